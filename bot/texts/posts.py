"""What a game's channel reads: the public posts (lobby, turn, status, end, reminders, deadlines, seats
handed over, pauses, the leaderboard), each made only from public facts (views, redacted events), and the
names they share with private answers (a seat's colour, a user, a time, a link, what the player on turn can
do). A post speaks the game's language (``Table.locale``): ``@public`` for the functions taking the table
first, a ``locale`` argument for the others.

Every sentence is a message of the catalogs (bot.words.i18n); Discord formatting is plain markdown, ``<@id>``
mentions and ``<t:unix:R>`` timestamps. Texts are functions, never module constants, so that each is worded
in the language speaking when it is asked for. What one person reads is in bot.texts.private.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Concatenate, ParamSpec, TypeVar

from engine import rules, views
from engine.events import Event
from engine.game import MAX_PLAYERS, MIN_PLAYERS
from engine.state import COLOURS, WINNING_SCORE, ActionKind, EndReason, GameState, Phase
from engine.symbols import Symbol
from engine.views import redact, view
from storage import PlayerRating

from ..games.computers import is_computer
from ..games.schedule import DeadlinePolicy
from ..games.seat_rules import hints_allowed, is_paused, is_rated_table, turn_due, vacations
from ..games.tables import Table
from ..process.limits import content as clip
from ..words import i18n, words
from ..words.i18n import N_, _, ngettext, pgettext
from ..words.words import END_REASONS, count, format_timestamp

P = ParamSpec("P")


R = TypeVar("R")


def public(text: Callable[Concatenate[Table, P], R]) -> Callable[Concatenate[Table, P], R]:
    """A text posted in public: it speaks the game's language (its table's), whoever asked for it."""

    @functools.wraps(text)
    def in_the_games_language(table: Table, /, *args: P.args, **kwargs: P.kwargs) -> R:
        with i18n.speaking(table.locale):
            return text(table, *args, **kwargs)

    return in_the_games_language


# --- names the posts and the private answers share ----------------------------------------------------------


def _colour_names() -> dict[str, str]:
    # TRANSLATORS: a seat's colour, e.g. "Turn 5 — Ann (red)"
    return {
        "red": pgettext("colour", "red"),
        "yellow": pgettext("colour", "yellow"),
        "blue": pgettext("colour", "blue"),
        "green": pgettext("colour", "green"),
    }


def colour_name(colour: str) -> str:
    """One of ``engine.state.COLOURS`` in the language speaking now."""
    return _colour_names().get(colour, colour)


def colour(seat: int) -> str:
    """A seat's colour in the language speaking now."""
    return colour_name(COLOURS[seat])


def symbol_name(symbol: Symbol) -> str:
    """A symbol's name in the language speaking now (the names are marked in bot.words.words)."""
    return pgettext("symbol", symbol.value)


def when(ts: float | None) -> str:
    """A moment as a Discord timestamp (each reader's time zone and language; it never goes stale)."""
    return format_timestamp(ts) if ts else _("never")


def jump_link(guild_id: int | None, channel_id: int, message_id: int | None = None) -> str:
    """A link that opens the channel (and the message) in Discord; ``@me`` stands for direct messages."""
    base = f"https://discord.com/channels/{guild_id if guild_id is not None else '@me'}/{channel_id}"
    return base if message_id is None else f"{base}/{message_id}"


def who(table: Table, user_id: int | None) -> str:
    """A player as the channel shows them: a mention, or the name of a seat with no Discord id (a computer
    seat's, or a forgotten user's pseudonym: storage.privacy)."""
    if user_id is not None and user_id < 0:
        names: dict[str, str] = table.record.options.get("names", {})
        name = names.get(str(user_id))
        if name is None:
            name = _("the computer") if is_computer(user_id) else _("a former player")
        return f"**{words.shown_name(name)}**"
    return f"<@{user_id}>"


# A computer player's level as players read it (the command's choice values are typed as they are).
_LEVELS = {
    "easy": lambda: pgettext("computer level", "easy"),
    "normal": lambda: pgettext("computer level", "normal"),
    "hard": lambda: pgettext("computer level", "hard"),
}


def level_name(level: str) -> str:
    """A computer level in the language speaking now ("schwer"); an unknown one as it is."""
    return _LEVELS[level]() if level in _LEVELS else level


def computer_name(level: str, locale: str) -> str:
    """A computer seat's name, kept in the game's record: in the game's language."""
    with i18n.speaking(locale):
        # TRANSLATORS: a computer player's name; {level} is easy, normal or hard (translated)
        return _("Computer ({level})").format(level=level_name(level))


# --- the lobby, the turn post, the status and the end -------------------------------------------------------


@public
def lobby_text(table: Table) -> str:
    rec = table.record
    seated = [who(table, uid) for _seat, uid in sorted(rec.seats)]
    if rec.status == "abandoned":
        return _("**Alexandros — game {game}** was closed.").format(game=rec.id)
    if rec.status != "lobby":
        return _("**Alexandros — game {game}** has started with {players}.").format(
            game=rec.id, players=", ".join(seated)
        )
    return _(
        "**Alexandros — game {game}**: a table for {min}–{max} players.\n"
        "Seated ({seated}/{max}): {players}\n"
        "Press **Join** to sit down. {creator} presses **Start** when {min} or more are seated."
    ).format(
        game=rec.id,
        min=MIN_PLAYERS,
        max=MAX_PLAYERS,
        seated=len(seated),
        players=", ".join(seated) or _("nobody yet"),
        creator=words.shown_name(table.record.options.get("creator") or _("The creator")),
    ) + deadline_text(table)


def _policy(table: Table) -> DeadlinePolicy:
    return (
        DeadlinePolicy.AUTOPLAY
        if table.record.options.get("deadline_policy") == DeadlinePolicy.AUTOPLAY.value
        else DeadlinePolicy.SKIP
    )


@public
def deadline_text(table: Table) -> str:
    hours = table.record.options.get("deadline_hours")
    if not hours:
        return ""
    if _policy(table) is DeadlinePolicy.AUTOPLAY:
        return "\n" + _(
            "Turn deadline: {hours} hours; a turn not taken by then is played by the computer, and so are "
            "that player's next turns until they come back with `/alexandros back`."
        ).format(hours=i18n.number(hours))
    return "\n" + _("Turn deadline: {hours} hours; a turn not taken by then is skipped.").format(
        hours=i18n.number(hours)
    )


def can_do(table: Table) -> str:
    """What the current player can do now, without naming any card in their hand (in the language in force:
    a public post's or a private answer's)."""
    st = table.state
    assert st is not None
    if st.phase is Phase.MOVE:
        ups = list(dict.fromkeys(symbol_name(s) for s in st.face_up if s is not None))  # not "horse or horse"
        # TRANSLATORS: joins the face-up cards' symbols: "horse or lyre"
        shown = _(" or ").join(ups) if ups else _("none")
        return _(
            "Move Alexander first (`/alexandros move` or **Move**): take a face-up card ({cards}), or play a "
            "card from your hand."
        ).format(cards=shown)
    left = rules.actions_left(st)
    if left == 0:
        return _("Both actions are used: end the turn (`/alexandros end` or **End turn**).")
    found = views.open_actions(view(st, None))  # public facts only: the hand is never looked at (R2.5)
    names = [_(_ACTION_NAMES[k]) for k in found.sure]
    if names and found.maybe:
        # TRANSLATORS: {left} is "1 action" or "2 actions"; {actions} lists the ones open whatever the
        # hand holds: "take a card, take back a guard"; the others depend on the cards in hand
        text = _("{left} left: {actions}, or what your cards allow (**Actions** shows it); or end the turn.")
        return text.format(left=count(left, "action"), actions=", ".join(names))
    if found.maybe:
        return _("{left} left: what your cards allow (**Actions** shows it); or end the turn.").format(
            left=count(left, "action")
        )
    if names:
        # TRANSLATORS: {left} is "1 action" or "2 actions"; {actions} lists them: "take a card, occupy"
        return _("{left} left: {actions} (**Actions**), or end the turn.").format(
            left=count(left, "action"), actions=", ".join(names)
        )
    return _("{left} left: end the turn.").format(left=count(left, "action"))


_ACTION_NAMES = {
    ActionKind.TAKE_CARD: N_("take a card"),
    ActionKind.OCCUPY: N_("occupy"),
    ActionKind.TAKE_OVER: N_("take over"),
    ActionKind.LEVY: N_("levy taxes"),
    ActionKind.TAKE_BACK: N_("take back a guard"),
}


def open_actions(st: GameState) -> list[str]:
    """The actions the turn post names (R2.5: from public facts only, ``engine.views.open_actions``): the
    ones open whatever the hand holds; the others it words as "what your cards allow"."""
    return [_(_ACTION_NAMES[k]) for k in views.open_actions(view(st, None)).sure]


@public
def turn_title(table: Table) -> str:
    """The turn post's title, "**Turn 5 — Ann (red)**": the turn and the seat whose turn it is."""
    st = table.state
    assert st is not None
    # TRANSLATORS: the turn post's title; {colour} is the seat's colour
    return _("**Turn {turn} — {name} ({colour})**").format(
        turn=st.turn, name=table.speaker.seat(st.current), colour=colour(st.current)
    )


@public
def turn_header(table: Table) -> str:
    """The live turn post's first lines: its title, who is called to play and what they can do. A computer
    seat is called by nobody (it plays at once; the title names it, so it is not named again)."""
    st = table.state
    assert st is not None
    seat = st.current
    uid = table.user_of(seat)
    if is_computer(uid):
        # TRANSLATORS: {title} is the turn post's title, "**Turn 5 — Computer (hard) (red)**"
        return _("{title} The computer plays this turn.").format(title=turn_title(table)) + away_note(table)
    name = table.speaker.seat(seat)
    return (
        _("**Turn {turn} — {name} ({colour})** {player}, it is your turn.").format(
            turn=st.turn, name=name, colour=colour(seat), player=who(table, uid)
        )
        + f"\n{can_do(table)}{deadline_note(table)}{away_note(table)}"
    )


@public
def deadline_note(table: Table) -> str:
    deadline = turn_due(table.record.options, table.current_user, table.record.turn_started_at)
    if deadline is None:
        return ""
    due = when(deadline)
    if _policy(table) is DeadlinePolicy.AUTOPLAY:
        # TRANSLATORS: {when} is a Discord timestamp shown as "in 3 hours"
        return " " + _("The turn is played by the computer {when} if not taken.").format(when=due)
    return " " + _("The turn is skipped {when} if not taken.").format(when=due)


@public
def turn_text(table: Table, header: str, events: Sequence[Event], closed: bool = False) -> str:
    lines = table.speaker.event_lines([redact(e, None) for e in events])
    body = "\n".join(f"• {line}" for line in lines)
    if closed:  # a finished turn keeps its title and its lines, not the invitation to play
        # TRANSLATORS: {title} is the turn post's title, "**Turn 5 — Ann (red)**"
        header = _("{title} — turn over.").format(title=turn_title(table))
    return clip(header + ("\n" + body if body else ""))


@public
def scores_line(table: Table) -> str:
    st = table.state
    assert st is not None
    parts = []
    for i, p in enumerate(st.players):
        name = table.speaker.seat(i)
        if p.resigned:
            parts.append(_("{name} {score} (resigned)").format(name=name, score=p.score))
        else:
            parts.append(f"{name} {p.score}")
    return _("Scores: {scores}").format(scores=", ".join(parts))


_STATUSES = {
    "lobby": N_("lobby"),
    "playing": N_("playing"),
    "finished": N_("finished"),
    "abandoned": N_("abandoned"),
}


@public
def status_text(table: Table, votes: set[int] | None = None) -> str:
    rec = table.record
    st = table.state
    if rec.status == "lobby" or st is None:  # a table closed in the lobby never had a board
        return lobby_text(table)
    v = view(st, None)
    status = _(_STATUSES[rec.status]) if rec.status in _STATUSES else rec.status
    out = [_("**Alexandros — game {game}** ({status})").format(game=rec.id, status=status)]
    if rec.status == "playing" and not st.over:  # an abandoned game has no turn waiting any more
        fields = {
            "turn": st.turn,
            "name": table.speaker.seat(st.current),
            "colour": colour(st.current),
            "since": when(rec.turn_started_at),
        }
        if rec.turn_started_at is None:  # paused: no turn is running (away_note below says so)
            out.append(_("Turn {turn}: {name} ({colour}).").format(**fields))
        elif st.phase is Phase.MOVE:
            out.append(_("Turn {turn}: {name} ({colour}), since {since}; moving Alexander.").format(**fields))
        else:
            out.append(
                _("Turn {turn}: {name} ({colour}), since {since}; {left} left.").format(
                    **fields, left=count(rules.actions_left(st), "action")
                )
            )
        away = away_note(table)  # a pause, and the players on vacation
        if away:
            out.append(away.strip("\n"))
    if st.over and st.result is not None:  # how it ended, and who won ("status shows how it ended")
        out += _how_it_ended(table, table.speaker.seat)
    out.append(_("Walls left: {black} black, {red} red.").format(black=v.black_left, red=v.red_left))
    out.append(scores_line(table))
    hands = ", ".join(f"{table.speaker.seat(p.seat)} {p.hand_size}" for p in v.players)
    out.append(
        _("Cards in hand: {hands}. Supply: {supply}. Face up: {face_up}.").format(
            hands=hands,
            supply=v.supply_size,
            face_up=", ".join(symbol_name(s) if s else _("(empty)") for s in v.face_up),
        )
    )
    if votes:
        out.append(
            _("Agreed to end the game: {players}.").format(
                players=", ".join(table.speaker.seat(s) for s in sorted(votes))
            )
        )
    return clip("\n".join(out))


@public
def end_text(table: Table, hints: Mapping[int, int] | None = None) -> str:
    """The end post; ``hints``: hints used by user id, at a table that allows them (issue 29)."""
    st = table.state
    assert st is not None and st.result is not None
    lines = [
        *_how_it_ended(table, lambda w: who(table, table.user_of(w))),
        scores_line(table),
        _("Players: {players}. Thanks for playing!").format(
            players=", ".join(who(table, uid) for _seat, uid in sorted(table.record.seats))
        ),
    ]
    if hints_allowed(table.record.options):
        people = [u for _seat, u in sorted(table.record.seats) if not is_computer(u)]
        lines.append(hints_used_line([(who(table, u), (hints or {}).get(u, 0)) for u in people]))
    if not is_rated_table(table.record.options):
        lines.append(_("This game is not rated (a practice game, or a game with hints)."))
    return clip("\n".join(lines))


def _how_it_ended(table: Table, name: Callable[[int], str]) -> list[str]:
    """A finished game's reason and its winners in one sentence (``name``: a seat as the message names it):
    "**Game 1 is over** — alice reached 100 points and won with 104 points." (R10.2, R10.3, D9)."""
    st = table.state
    assert st is not None and st.result is not None
    res = st.result
    n = len(res.winners)
    # TRANSLATORS: joins the winners: "<@1> and <@2>"
    winners = _(" and ").join(name(w) for w in res.winners)
    top = max((st.players[w].score for w in res.winners), default=0)
    fields = {"game": table.id, "players": winners, "points": top}
    if res.reason is EndReason.POINTS:
        reached = [i for i, p in enumerate(st.players) if p.score >= WINNING_SCORE and not p.resigned]
        if set(reached) == set(res.winners):
            line = ngettext(
                "**Game {game} is over** — {players} reached {target} points and won with {points}.",
                "**Game {game} is over** — {players} reached {target} points and share the win "
                "with {points}.",
                n,
            )
            return [line.format(**fields, target=WINNING_SCORE)]
        # TRANSLATORS: why a game ended: "alice and bob reached 100 points"
        reason = _("{players} reached {target} points").format(
            players=_(" and ").join(name(i) for i in reached), target=WINNING_SCORE
        )
    else:
        reason = _(END_REASONS.get(res.reason, str(res.reason)))
    if not n:
        return [_("**Game {game} is over** — {reason}; nobody won.").format(game=table.id, reason=reason)]
    line = ngettext(
        "**Game {game} is over** — {reason}; {players} won with {points} points.",
        "**Game {game} is over** — {reason}; {players} share the win with {points} points.",
        n,
    )
    return [line.format(**fields, reason=reason)]


# --- playing over days: reminders, deadlines, nudges, "waiting on me" ---------------------------------------


@public
def reminder_text(table: Table, user_id: int, started: float) -> str:
    st = table.state
    assert st is not None
    return clip(
        _(
            "<@{user}>, a reminder: it is still your turn in game {game} (turn {turn}, waiting since "
            "{since}). {what_next}"
        ).format(user=user_id, game=table.id, turn=st.turn, since=when(started), what_next=can_do(table))
    )


def skipped_text(user_id: int | None, hours: float, locale: str) -> str:
    with i18n.speaking(locale):
        return _("<@{user}>'s turn passed its {hours}-hour deadline and was skipped.").format(
            user=user_id, hours=i18n.number(hours)
        )


@public
def autoplay_text(table: Table, user_id: int | None, hours: float, absent: bool = False) -> str:
    """Why the computer played a turn for an absent player: at its deadline, or at once (``absent``: they
    were marked absent at an earlier turn). What it played is on the turn post, closed with its steps."""
    if absent:
        return _(
            "Played by the computer for <@{user}> (away since an earlier deadline).\n"
            "It plays their turns until they type `/alexandros back` in this channel."
        ).format(user=user_id)
    return _(
        "Played by the computer for <@{user}> (the turn passed its {hours}-hour deadline).\n"
        "The computer plays their next turns too, until they type `/alexandros back` in this channel."
    ).format(user=user_id, hours=i18n.number(hours))


def back_public_text(user_id: int, locale: str) -> str:
    with i18n.speaking(locale):
        return _("<@{user}> is back and plays their own turns again.").format(user=user_id)


@public
def nudge_text(table: Table, waiting: int, nudger: str) -> str:
    st = table.state
    assert st is not None
    return _(
        "<@{user}>, {nudger} nudges you: game {game} waits for your turn (turn {turn}, since {since})."
    ).format(
        user=waiting, nudger=nudger, game=table.id, turn=st.turn, since=when(table.record.turn_started_at)
    )


# --- resigning, abandoning and agreeing to end, told in public ----------------------------------------------


def resigned_public(name: str, locale: str) -> str:
    with i18n.speaking(locale):
        return _("{name} resigned.").format(name=name)


def abandoned_text(game_id: int, by: str, locale: str) -> str:
    with i18n.speaking(locale):
        return _("Game {game} was abandoned by {by}. The channel is free for a new game.").format(
            game=game_id, by=by
        )


def agree_proposed(by: str, waiting: str, locale: str, seconded: bool = False) -> str:
    """P3: the channel's line for a vote to end the game: the first proposes it, a later one agrees."""
    with i18n.speaking(locale):
        if seconded:
            seconds = _("{by} agrees to end the game too (waiting for {waiting}).")
            return seconds.format(by=by, waiting=waiting)
        return _(
            "{by} proposes to end the game now, scored as it stands. "
            "The others agree with `/alexandros agree` (waiting for {waiting})."
        ).format(by=by, waiting=waiting)


# --- the pictures' alt texts --------------------------------------------------------------------------------


# Pictures' descriptions (alt text), read out by screen readers.
def alt_board(locale: str) -> str:
    """The public board picture's description (the turn post: the game's language)."""
    with i18n.speaking(locale):
        return _("the board")


def alt_end(locale: str) -> str:
    with i18n.speaking(locale):
        return _("the final board and scores")


# --- DM notices (bot.outbox.notices) and the dashboard (bot.commands.dashboard) -----------------------------


@public
def dm_fallback_turn_text(table: Table, user_id: int) -> str:
    """The channel ping that replaces a turn DM the user's privacy settings refused: a public post, in the
    game's language."""
    st = table.state
    assert st is not None
    return _("<@{user}>, it is your turn in game {game} (turn {turn}).").format(
        user=user_id, game=table.id, turn=st.turn
    )


def dms_closed_note(locale: str) -> str:
    """Said once, under the channel ping that replaced a refused direct message."""
    with i18n.speaking(locale):
        return _(
            "(I tried to tell you by direct message, but your privacy settings refuse messages from me, so I "
            "ping you here from now on. To get direct messages, allow them from this server's members (the "
            "server's Privacy Settings) and type `/alexandros me reminders dm:true` again.)"
        )


def status_post_text(status: str, turn_link: str | None, locale: str) -> str:
    """The pinned status message of a game channel: the public status, and a link to the turn post."""
    with i18n.speaking(locale):
        link = "\n" + _("The current turn: {link}").format(link=turn_link) if turn_link else ""
        return clip(
            f"📌 {status}{link}\n-# "
            + _("Kept up to date by the bot; `/alexandros me games` lists your games.")
        )


def pin_permission_missing(locale: str) -> str:
    """Posted in the game's channel when Discord refused to pin its status message."""
    with i18n.speaking(locale):
        return _(
            "I could not pin this game's status message: pinning needs the **Pin Messages** permission. A "
            "server admin can give it to my role in this channel's settings (Edit Channel → Permissions). "
            "The status message is still kept up to date, unpinned."
        )


# --- Ratings, leaderboard and replays (issue 16) ------------------------------------------------------------


def alt_replay(locale: str) -> str:
    with i18n.speaking(locale):
        return _("an animated replay of the game, one frame per turn")


def no_ratings() -> str:
    return _("No game on this server has been rated yet: a finished game of two or more players counts.")


def ratings_note() -> str:
    return _(
        "Rating: (skill − 3 × uncertainty) × 10, from openskill, never below 0; provisional for the first "
        "{n} games. Computer players are not rated."
    ).format(n=PROVISIONAL_GAMES)


def replay_text(game_id: int, over: bool, locale: str) -> str:
    with i18n.speaking(locale):
        if over:
            return _("Replay of game {game}: every turn from the deal to the end.").format(game=game_id)
        return _("Replay of game {game}: every turn from the deal to now.").format(game=game_id)


# A rating is read after few games: until this many it is marked provisional.
PROVISIONAL_GAMES = 5


def shown_rating(r: PlayerRating) -> int:
    """The rating players read: openskill's ordinal (mu - 3 sigma, 0 for a newcomer) times ten, rounded and
    never below 0 (a first loss made it "-1.8", which puzzled)."""
    return max(0, round(10 * r.ordinal))


def _rating_line(r: PlayerRating) -> str:
    if r.games < PROVISIONAL_GAMES:
        # TRANSLATORS: {rating} is a whole number of 0 or more; {games} "3 games", {wins} "1 win"
        line = _("<@{user}>: {rating} (provisional), {games}, {wins}")
    else:
        line = _("<@{user}>: {rating}, {games}, {wins}")
    return line.format(
        user=r.user_id, rating=shown_rating(r), games=count(r.games, "game"), wins=count(r.wins, "win")
    )


def places(entries: Sequence[PlayerRating]) -> list[int]:
    """Each entry's place, best first: equal ratings as shown share a place ("1, 1, 3")."""
    shown = [shown_rating(r) for r in entries]
    return [1 + sum(other > mine for other in shown) for mine in shown]


def leaderboard_text(entries: Sequence[PlayerRating], locale: str) -> str:
    """``/alexandros leaderboard``, posted for everyone: in the server's language (``locale``)."""
    with i18n.speaking(locale):
        if not entries:
            return no_ratings()
        lines = [f"{p}. {_rating_line(r)}" for p, r in zip(places(entries), entries, strict=True)]
        return _("**Leaderboard of this server**") + "\n" + "\n".join(lines) + f"\n-# {ratings_note()}"


def stats_text(user_id: int, rating: PlayerRating | None, place: int | None, rated: int, locale: str) -> str:
    """``/alexandros stats``, posted for everyone: in the server's language (``locale``)."""
    with i18n.speaking(locale):
        if rating is None:
            return _("<@{user}> has no rated game on this server yet.").format(user=user_id)
        where = (
            " " + _("Place {place} of {rated} on this server.").format(place=place, rated=rated)
            if place is not None
            else ""
        )
        return f"{_rating_line(rating)}.{where}\n-# {ratings_note()}"


# --- seats over days: substitutes, vacations, pausing, taking back (bot.commands.seats) ---------------------


@public
def away_note(table: Table) -> str:
    """The turn post's line about a paused game and the players on vacation (what everyone sees)."""
    out = ""
    if is_paused(table.record.options):
        out += "\n" + _(
            "⏸ The game is paused: nothing can be played, and no deadline runs, until it is resumed."
        )
    away = [
        _("{player} until {when}").format(player=table.speaker.seat(seat), when=when(until))
        for uid, until in sorted(vacations(table.record.options).items(), key=lambda kv: kv[1])
        # the record's last change is when the post is worded: a vacation over by then is not shown
        if (seat := table.seat_of(uid)) is not None and until > table.record.updated_at
    ]
    if away:
        out += "\n" + _("🏖 On vacation (deadlines and reminders wait): {players}.").format(
            players=", ".join(away)
        )
    return out


def took_back_public(name: str, locale: str, move: bool = True) -> str:
    """What the channel reads after an undo (P10): the move taken back, or an action."""
    with i18n.speaking(locale):
        if move:
            return _("{name} took back their move.").format(name=name)
        return _("{name} took back an action.").format(name=name)


def seat_offered(holder: str, colour: str, to_user: int, by: str, locale: str) -> str:
    """Posted in the channel; ``colour`` is the seat's colour in ``engine.state.COLOURS``."""
    with i18n.speaking(locale):
        if by == holder:  # their own seat ("alice offers alice's seat" read oddly)
            return _(
                "{by} offers their seat ({colour}) to <@{user}>. <@{user}>, press the button to take it: "
                "from then on the seat's hand and turns are yours."
            ).format(by=by, colour=colour_name(colour), user=to_user)
        return _(
            "{by} offers {holder}'s seat ({colour}) to <@{user}>. <@{user}>, press the button to take it: "
            "from then on the seat's hand and turns are yours."
        ).format(by=by, holder=holder, colour=colour_name(colour), user=to_user)


def seat_taken(new_user: int, old: str, colour: str, on_turn: bool, locale: str) -> str:
    """Posted in the channel; ``colour`` is the seat's colour in ``engine.state.COLOURS``."""
    with i18n.speaking(locale):
        fields = {"user": new_user, "old": old, "colour": colour_name(colour)}
        if on_turn:
            return _(
                "<@{user}> took over {old}'s seat ({colour}). {old} no longer plays in this game. <@{user}>, "
                "it is your turn."
            ).format(**fields)
        return _("<@{user}> took over {old}'s seat ({colour}). {old} no longer plays in this game.").format(
            **fields
        )


def paused_public(by: str, locale: str) -> str:
    with i18n.speaking(locale):
        return _(
            "⏸ {by} paused the game. Nothing can be played, and no deadline or reminder runs, until it is "
            "resumed."
        ).format(by=by)


def resumed_public(by: str, user_id: int | None, locale: str) -> str:
    with i18n.speaking(locale):
        if user_id is not None:
            return _("▶ {by} resumed the game. <@{user}>, it is your turn again.").format(by=by, user=user_id)
        return _("▶ {by} resumed the game.").format(by=by)


def vacation_public(name: str, until: float | None, locale: str) -> str:
    with i18n.speaking(locale):
        if until is None:
            return _("{name} is back from vacation.").format(name=name)
        return _(
            "🏖 {name} is on vacation until {when}: their deadlines and reminders wait until then."
        ).format(name=name, when=when(until))


# --- hints (issue 29, bot.commands.hints) -------------------------------------------------------------------


def hints_used_line(counts: Sequence[tuple[str, int]]) -> str:
    """The end post's line of hints used (issue 29): "Hints used: alice 3, bob 0"."""
    return _("Hints used: {players}.").format(players=", ".join(f"{name} {n}" for name, n in counts))
