"""Every sentence the bot posts or answers, built from plain values. Discord-free.

Public messages (lobby, turn, status, end, reminders) and private answers (what an action did, the steps of
a guided move, reminder settings, autocomplete hints) live here, next to ``bot.words.words`` (refusals, event
lines and names of things), so that the wording can be read and changed in one place. Public texts are
made only from public facts (views, redacted events); Discord formatting is plain markdown, ``<@id>``
mentions and ``<t:unix:R>`` timestamps.

Every sentence is a message of the catalogs (bot.words.i18n). A private answer speaks the language in force
(the
asking user's); a public text speaks the game's language (``Table.locale``): ``@public`` for the functions
taking the table first, a ``locale`` argument for the others. Texts are functions, never module constants,
so that each is worded in the language speaking when it is asked for.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Concatenate, NamedTuple, ParamSpec, TypeVar

from engine import rules, views
from engine.actions import Move, MoveWay, TakeBack
from engine.advice import Advice
from engine.events import Event
from engine.game import MAX_PLAYERS, MIN_PLAYERS
from engine.state import COLOURS, WINNING_SCORE, ActionKind, EndReason, GameState, Phase
from engine.symbols import Symbol, total
from engine.views import redact, view
from storage import GameRecord, PlayerRating

from ..games.computers import is_computer
from ..games.schedule import DeadlinePolicy, ReminderPrefs, format_timestamp
from ..games.seat_rules import hints_allowed, is_paused, is_rated_table, turn_due, vacations
from ..games.tables import Table
from ..process.limits import MAX_OPTIONS
from ..process.limits import content as clip
from ..words import i18n, words
from ..words.i18n import N_, _, ngettext, pgettext
from ..words.words import END_REASONS, cards_text, count

P = ParamSpec("P")
R = TypeVar("R")


def public(text: Callable[Concatenate[Table, P], R]) -> Callable[Concatenate[Table, P], R]:
    """A text posted in public: it speaks the game's language (its table's), whoever asked for it."""

    @functools.wraps(text)
    def in_the_games_language(table: Table, /, *args: P.args, **kwargs: P.kwargs) -> R:
        with i18n.speaking(table.locale):
            return text(table, *args, **kwargs)

    return in_the_games_language


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


def computer_seated(level: str) -> str:
    return _(
        "A computer player ({level}) sits at the table; it plays its turns as soon as they come."
    ).format(level=level_name(level))


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


def hand_text(table: Table, seat: int) -> str:
    st = table.state
    assert st is not None
    hand = st.players[seat].hand
    p = st.players[seat]
    n = total(hand)
    return _("Your hand ({cards}): {hand}. Guards left to place: {guards}. Score: {score}.").format(
        cards=count(n, "card"), hand=cards_text(hand), guards=p.guards_in_supply, score=p.score
    )


# --- playing over days: reminders, deadlines, nudges, "waiting on me" -------------------------------------


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


def back_text(table: Table, deadline: float | None) -> str:
    """``/alexandros back``; ``deadline`` is set when it is the player's turn now."""
    extra = (
        " "
        + _("It is your turn now; the computer plays it for you {when} if you do not.").format(
            when=when(deadline)
        )
        if deadline is not None
        else ""
    )
    return (
        _("Welcome back: the computer no longer plays for you in game {game}.").format(game=table.id) + extra
    )


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


def waiting_text(entries: Sequence[tuple[GameRecord, int | None]], deadline: dict[int, float]) -> str:
    """``/alexandros me waiting``: every game waiting on the asking player, across servers, with links."""
    if not entries:
        return _("No game is waiting for you. Enjoy the break!")
    n = len(entries)
    lines = [ngettext("**{n} game waiting for you**", "**{n} games waiting for you**", n).format(n=n)]
    for record, message_id in entries:
        fields = {
            "game": record.id,
            "link": jump_link(record.guild_id, record.channel_id, message_id),
            "since": when(record.turn_started_at),
        }
        if record.id in deadline:
            line = _("• Game {game}: {link} — your turn since {since}, deadline {deadline}.").format(
                **fields, deadline=when(deadline[record.id])
            )
        else:
            line = _("• Game {game}: {link} — your turn since {since}.").format(**fields)
        lines.append(line)
    return clip("\n".join(lines))


# --- private answers: the lobby, errors, leaving and ending ----------------------------------------------


def oops() -> str:
    return _("Something went wrong on my side. Your game is saved; try again, or use `/alexandros board`.")


def thread_needs_text_channel() -> str:
    return _("Threads can be made in text channels only; start it here instead.")


def joined() -> str:
    return _("You joined the table.")


def left() -> str:
    return _("You left the table.")


def started() -> str:
    return _("The game has started.")


def resign_prompt(game_id: int) -> str:
    return _(
        "**Resign from game {game}?** Your guards leave the map and your turns are skipped to the end, "
        "and this cannot be undone. Press **Resign** to confirm, or dismiss this message to play on."
    ).format(game=game_id)


def resigned() -> str:
    return _("You resigned. Your guards left the map; thanks for playing.")


def all_agreed() -> str:
    return _("Everyone agreed: the game ends now.")


def nothing_yet() -> str:
    return _("Nothing has happened yet.")


def thread_name(creator: str) -> str:
    return f"Alexandros — {creator}"


def opened_in(channel_id: int) -> str:
    return _("Your game is open in <#{channel}>.").format(channel=channel_id)


def practice_thread_name(player: str) -> str:
    return _("Alexandros practice — {player}").format(player=player)


def practice_no_thread() -> str:
    return _("No thread can be made here, so the practice game opens in this channel.")


def practice_opened(channel_id: int, note: str | None) -> str:
    opened = _(
        "Your practice game is open in <#{channel}>: it is not rated, and `/alexandros learn hint` suggests "
        "a good play whenever it is your turn."
    ).format(channel=channel_id)
    return f"{note} {opened}" if note else opened


def resigned_public(name: str, locale: str) -> str:
    with i18n.speaking(locale):
        return _("{name} resigned.").format(name=name)


def abandon_prompt(game_id: int, lobby: bool) -> str:
    if lobby:
        text = _(
            "**Abandon game {game}?** The table closes, and this cannot be undone. Press **Abandon the "
            "game** to confirm, or dismiss this message to keep playing."
        )
    else:
        text = _(
            "**Abandon game {game}?** The game ends now for everyone, unscored, and this cannot be undone. "
            "Press **Abandon the game** to confirm, or dismiss this message to keep playing."
        )
    return text.format(game=game_id)


def abandoned_private(game_id: int) -> str:
    return _("You abandoned game {game}. Start a new one with `/alexandros new`.").format(game=game_id)


def abandoned_text(game_id: int, by: str, locale: str) -> str:
    with i18n.speaking(locale):
        return _("Game {game} was abandoned by {by}. The channel is free for a new game.").format(
            game=game_id, by=by
        )


def agree_noted(waiting: str) -> str:
    return _("Noted: you agree to end the game. Still waiting for {waiting}.").format(waiting=waiting)


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


def log_text(lines: Sequence[str]) -> str:
    """``/alexandros log``: the last events, one bullet each."""
    body = "\n".join(f"• {x}" for x in lines) or nothing_yet()
    n = len(lines)
    if n == 1:
        title = _("The last event")
    else:
        title = ngettext("The last {n} event", "The last {n} events", n).format(n=n)
    return clip(f"**{title}**\n{body}")


# --- private answers: what an action did ---------------------------------------------------------------


def done() -> str:
    return _("Done.")


def moved() -> str:
    return _("Alexander moved.")


def took_card() -> str:
    return _("You took a card.")


def levied() -> str:
    return _("You levied taxes.")


def took_guard_back() -> str:
    return _("You took a guard back.")


def turn_over() -> str:
    return _("Your turn is over.")


def province_taken(province: int) -> str:
    return _("Province {province} is yours.").format(province=province)


def action_summary(done: str, lines: Sequence[str]) -> str:
    """What an action did, for the one who made it: ``done`` and the first lines of its events."""
    return clip(done + ("\n" + "\n".join(f"• {x}" for x in lines[:12]) if lines else ""))


# --- guided flows: prompts and select placeholders -----------------------------------------------------


def pick_card() -> str:
    return _("Pick a card")


def pick_point() -> str:
    return _("Pick a point")


def pick_path() -> str:
    return _("Pick a path")


def pick_action() -> str:
    return _("Pick an action")


def move_step_1() -> str:
    return _("**Move Alexander** — step 1 of 3: pick a card.")


def pick_move_card() -> str:
    return _("Pick a card to move with:")


def pick_cards(n: int) -> str:
    return ngettext("Pick {n} card", "Pick {n} cards", n).format(n=n)


def move_step_2(card: str, shown: int, total: int, ends_game: bool = False) -> str:
    more = (
        ""
        if total <= shown
        else " "
        + _("(the first {shown} of {total}; type `/alexandros move` for all)").format(
            shown=shown, total=total
        )
    )
    end = (
        "\n"
        + _(
            "**Some of these moves end the game**: those marked “ends the game” need more walls than the "
            "black walls left, so red walls are used and the game ends after your actions (R3.6)."
        )
        if ends_game
        else ""
    )
    # TRANSLATORS: {more} is empty or " (the first 25 of 40; …)"; {end} is empty or a paragraph
    return _("**Move Alexander** — step 2 of 3: {card}. Pick the point where he stops{more}.{end}").format(
        card=card, more=more, end=end
    )


def move_step_3(n: int, point: str, shown: int | None = None) -> str:
    """Step 3's prompt; ``shown``: how many of the ``n`` paths the menu holds (Discord's 25 at most)."""
    # TRANSLATORS: {paths} is "2 paths"
    text = _("**Move Alexander** — step 3 of 3: {paths} to {point} differ in their walls. Pick one.").format(
        paths=count(n, "path"), point=point
    )
    if shown is not None and shown < n:
        text += " " + _("(the first {shown} of {total}; type `/alexandros move` for all)").format(
            shown=shown, total=n
        )
    return text


def route_text(points: Sequence[str]) -> str:
    """Where a path goes, for the confirm step: "D2 via C1 B2", or "D2" for a single side."""
    if len(points) > 2:
        return _("{end} via {points}").format(end=points[-1], points=" ".join(points[1:-1]))
    return points[-1]


def move_confirm(card: str, path: str, preview: rules.MovePreview) -> str:
    """The guided move's last step: what the move will do, flagged when it ends the game (R3.6, R10.1);
    ``path`` is where it goes (``route_text``)."""
    walls = count(len(preview.black), "black wall")
    if preview.red:
        walls = _("{black} and {red}").format(black=walls, red=count(len(preview.red), "red wall"))
    cut = ""
    if preview.cuts:
        cut = " " + _("It cuts {provinces}.").format(provinces=count(len(preview.cuts), "province"))
    end = (
        " " + _("**This move ends the game**: the walls run out, so the game ends after your actions.")
        if (preview.ends_game)
        else ""
    )
    # TRANSLATORS: {cuts} and {end} are empty or whole sentences with a space before them
    return _("**Move Alexander** — {card}, to {path}: it places {walls}.{cuts}{end} Confirm?").format(
        card=card, path=path, walls=walls, cuts=cut, end=end
    )


def actions_prompt(table: Table, left_out: int = 0) -> str:
    """The Actions menu's prompt; ``left_out``: provinces open to the player that the menu had no room for.

    The menu itself lists what this player can do (from the whole state); the public line (``can_do``)
    knows only what any hand of their size allows, so here it would say less than the menu shows."""
    st = table.state
    assert st is not None
    left = rules.actions_left(st)
    if st.phase is Phase.MOVE or left == 0:
        text = _("**Actions** — {what_next}").format(what_next=can_do(table))
    else:
        text = _("**Actions** — {left} left: choose one below, or end the turn.").format(
            left=count(left, "action")
        )
    if left_out:
        text += "\n" + ngettext(
            "{n} more province to occupy or take over is not in the menu: "
            "`/alexandros occupy` and `/alexandros takeover` list them all.",
            "{n} more provinces to occupy or take over are not in the menu: "
            "`/alexandros occupy` and `/alexandros takeover` list them all.",
            left_out,
        ).format(n=left_out)
    return text


def province_prompt(
    takeover: bool,
    province: int,
    guards: Sequence[str],
    paid: str,
    guards_left: int,
    stacked: int = 1,
    scoring: tuple[str, str] | None = None,
    symbol_spaces: int = 0,
) -> str:
    """The occupy / take-over preview: the cheapest plan (``guards``: its spaces' names, none without a plan;
    ``paid``), and the choice of spaces (``symbol_spaces``: how many symbol spaces the province has; a select
    menu holds 25, the plan's first).

    ``stacked``: the plan's number of guards; two or more of one player's guards in a province score
    nothing (R7.3), so such a plan is flagged, with ``scoring`` (a space, its price) when one guard is
    affordable too."""
    if takeover:
        title = _("Take over province {province}").format(province=province)
    else:
        title = _("Occupy province {province}").format(province=province)
    warn = ""
    if stacked > 1:
        warn = "\n" + _(
            "**It scores nothing** with {guards} of yours: a province scores only for a player with exactly "
            "one guard in it (R7.3), until you take the others back."
        ).format(guards=count(stacked, "guard"))
        if scoring is not None:
            warn += " " + _("With one guard on the {space} it scores, paying {paid}.").format(
                space=scoring[0], paid=scoring[1]
            )
        else:
            warn += " " + _("No plan with one guard is affordable now.")
    # As many guards as the player has left, and no more than the province has symbol spaces (R6.2).
    most = min(guards_left, symbol_spaces) if symbol_spaces else guards_left
    if most > 1:
        choose = _("choose the guards' spaces (up to {n}; one scores, two or more do not)").format(n=most)
    else:
        choose = _("choose the guard's space")
    # The article belongs to the message: languages inflect it ("auf dem Pferdefeld").
    if not guards:
        plan = "-"
    elif len(guards) == 1:
        plan = _("a guard on the {space}").format(space=guards[0])
    else:
        # TRANSLATORS: one space of "guards on {spaces}", after "on": "the horse space (C6 D5 D7)"
        spaces = ", ".join(pgettext("guards on", "the {space}").format(space=g) for g in guards)
        plan = _("guards on {spaces}").format(spaces=spaces)
    if symbol_spaces > MAX_OPTIONS:
        menu = _("The menu holds {shown} of the province's {n} symbol spaces, the plan's first.")
        warn += "\n" + menu.format(shown=MAX_OPTIONS, n=symbol_spaces)
    # TRANSLATORS: {plan} is "a guard on A4" or "guards on A4, B5"; {choose} is "choose the guard's space"
    return clip(
        _("**{title}** — cheapest: {plan}, paying {paid}. Use it, or {choose}.{warn}").format(
            title=title, plan=plan, paid=paid, choose=choose, warn=warn
        )
    )


def compensation_prompt(province: int, paid: str, size: int, owner: str) -> str:
    # TRANSLATORS: {cards} is "2 cards"; {owner} is the province's owner
    return _(
        "**Take over province {province}** — you pay {paid}. Choose the {cards} {owner} receives."
    ).format(province=province, paid=paid, cards=count(size, "card"), owner=owner)


# Pictures' descriptions (alt text), read out by screen readers.


def alt_board(locale: str) -> str:
    """The public board picture's description (the turn post: the game's language)."""
    with i18n.speaking(locale):
        return _("the board")


def alt_end(locale: str) -> str:
    with i18n.speaking(locale):
        return _("the final board and scores")


def alt_hand() -> str:
    return _("your hand")


def alt_move() -> str:
    return _("where Alexander can go")


def alt_paths() -> str:
    return _("the paths")


def alt_path() -> str:
    return _("the chosen path")


def alt_province() -> str:
    return _("the province")


# --- reminder settings ---------------------------------------------------------------------------------


def quiet_hours_format() -> str:
    return _("Write quiet hours as start-end, like 22:00-08:00, or off.")


def reminder_settings_text(prefs: ReminderPrefs, saved: bool) -> str:
    """``/alexandros me reminders``: the player's settings as they now stand."""
    if prefs.interval_hours is None:
        every = _("the table's interval")
    elif prefs.interval_hours == 0:
        every = _("never")
    else:
        every = _("every {hours} hours").format(hours=i18n.number(prefs.interval_hours))
    quiet = f"{prefs.quiet_start:%H:%M}-{prefs.quiet_end:%H:%M}" if prefs.has_quiet_hours else _("none")
    return (_("Saved.") + " " if saved else "") + _(
        "Your reminders: {every}; quiet hours: {quiet} ({time_zone}). They apply from your next reminder."
    ).format(every=every, quiet=quiet, time_zone=prefs.time_zone)


# --- autocomplete hints and old components ---------------------------------------------------------------

# What autocomplete shows when the engine offers nothing, so that the player learns why (by command name).
_NOTHING_TO_CHOOSE = {
    "occupy": N_("(no free province you can afford now)"),
    "takeover": N_("(no opponent's province you can afford now)"),
    "levy": N_("(no levy now: once a turn, with a card matching one of your guards)"),
    "takeback": N_("(you have no guard on the map)"),
    "take": N_("(no card left to take)"),
}


def nothing_to_choose(command: str) -> str:
    """Autocomplete's one entry when there is nothing to offer for ``command`` (its English name)."""
    why = _NOTHING_TO_CHOOSE.get(command)
    return _(why) if why is not None else nothing_now()


def nothing_now() -> str:
    return _("(nothing to choose now)")


def move_first_hint() -> str:
    return _("(move Alexander first)")


def already_moved_hint() -> str:
    return _("(you have already moved)")


def button_retired() -> str:
    return _("This button is no longer in use. Look at the latest turn message.")


def button_stale() -> str:
    return _("This button is out of date. Look at the latest turn message.")


def menu_retired() -> str:
    return _("This menu is no longer in use. Look at the latest turn message.")


def menu_stale() -> str:
    return _("This menu is out of date. Look at the latest turn message.")


def nothing_picked() -> str:
    return _("There was nothing to choose here.")


def form_retired() -> str:
    return _("This form is no longer in use. Look at the latest turn message.")


def not_your_turn_hint(current: str) -> str:
    return _("(it is {player}'s turn, not yours)").format(player=current)


def sync_busy() -> str:
    return _(
        "Another process of this bot is syncing the commands right now (only one may at a time): try again "
        "in a minute."
    )


def sync_owner_only() -> str:
    return _(
        "Only the bot's owner (or its team) can sync the commands everywhere: Discord limits how often an "
        "application may do it. `/alexandros-admin sync` without `everywhere` refreshes this server."
    )


def synced(count: int, everywhere: bool) -> str:
    if everywhere:
        return _("Synced {n} commands everywhere; Discord may take up to an hour to show them.").format(
            n=count
        )
    if count:
        return _("Synced {n} commands to this server.").format(n=count)
    return _("This server has no copies of the commands left: it shows the global ones, each once.")


# --- DM notices (bot.outbox.notices) and the dashboard (bot.commands.dashboard)
# --------------------------------------------


def dm_turn_text(table: Table) -> str:
    """A turn ping by direct message (public facts only, like the turn post it points to), in the language
    speaking now: its reader's (``notices.dm_language``), not the game's, so it is not ``public``."""
    st = table.state
    assert st is not None
    return clip(
        _("It is your turn in Alexandros game {game} (turn {turn}). {what_next}").format(
            game=table.id, turn=st.turn, what_next=can_do(table)
        )
    )


@public
def dm_fallback_turn_text(table: Table, user_id: int) -> str:
    """The channel ping that replaces a turn DM the user's privacy settings refused: a public post, in the
    game's language."""
    st = table.state
    assert st is not None
    return _("<@{user}>, it is your turn in game {game} (turn {turn}).").format(
        user=user_id, game=table.id, turn=st.turn
    )


def dm_reminder_text(table: Table, started: float) -> str:
    """A reminder by direct message, in its reader's language (speaking now; as ``dm_turn_text``)."""
    st = table.state
    assert st is not None
    return clip(
        _(
            "A reminder: it is still your turn in Alexandros game {game} (turn {turn}, waiting since "
            "{since}). {what_next}"
        ).format(game=table.id, turn=st.turn, since=when(started), what_next=can_do(table))
    )


def dms_closed_note(locale: str) -> str:
    """Said once, under the channel ping that replaced a refused direct message."""
    with i18n.speaking(locale):
        return _(
            "(I tried to tell you by direct message, but your privacy settings refuse messages from me, so I "
            "ping you here from now on. To get direct messages, allow them from this server's members (the "
            "server's Privacy Settings) and type `/alexandros me reminders dm:true` again.)"
        )


def dm_settings_line(on: bool, closed: bool) -> str:
    """The DM part of ``/alexandros me reminders``' answer."""
    if not on:
        return _("Turn pings and reminders: in the game's channel (`dm:true` sends them by direct message).")
    if closed:
        return _(
            "Turn pings and reminders: by direct message was asked, but your direct messages were closed to "
            "me, so they come in the channel. Open them and type `/alexandros me reminders dm:true` again."
        )
    return _(
        "Turn pings and reminders: by direct message, instead of a ping in the channel. If your direct "
        "messages are closed to me, I ping you in the channel and tell you once."
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


class MyGame(NamedTuple):
    """One line of ``/alexandros me games``: a game, its players' names, its turn post and status message."""

    record: GameRecord
    names: tuple[str, ...]
    turn_post: int | None
    status_post: int | None


def mygames_text(user_id: int, games: Sequence[MyGame], total: int, limit: int = 2000) -> str:
    """``/alexandros me games``: the asker's games in this server (only to them), with jump links. As many
    whole lines as fit in one message (``limit``), then how many more there are."""
    if not games:
        return _("You are in no game in this server. Open one with `/alexandros new`, or join a table.")
    lines = [_("**Your games in this server ({total})**").format(total=total)]
    for g in games:
        line = _mygame_line(user_id, g)
        if len("\n".join([*lines, line])) > limit - 40:  # room for the "more" line
            break
        lines.append(line)
    shown = len(lines) - 1
    if total > shown:
        lines.append(_("…and {n} more.").format(n=total - shown))
    return clip("\n".join(lines))


def _mygame_line(user_id: int, g: MyGame) -> str:
    rec = g.record
    if rec.status == "lobby":
        where = jump_link(rec.guild_id, rec.channel_id, g.status_post)
        return _("• Game {game} in <#{channel}>: at the table, {seated} seated, not started. {link}").format(
            game=rec.id, channel=rec.channel_id, seated=len(rec.seats), link=where
        )
    names = dict(zip((uid for _seat, uid in sorted(rec.seats)), g.names, strict=False))
    waiting = rec.waiting_on
    if waiting == user_id:
        whose = _("**your turn**")
    else:
        whose = _("{player}'s turn").format(player=names.get(waiting or 0, _("nobody")))
    post = g.turn_post if g.turn_post is not None else g.status_post
    return _("• Game {game} in <#{channel}>: {whose} since {since} — {link}").format(
        game=rec.id,
        channel=rec.channel_id,
        whose=whose,
        since=when(rec.turn_started_at),
        link=jump_link(rec.guild_id, rec.channel_id, post),
    )


# --- Ratings, leaderboard and replays (issue 16) --------------------------------------------------------


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


def recomputed_text(games: int, players: int) -> str:
    return _("Ratings recomputed from {games}: {players} rated.").format(
        games=ngettext("{n} rated game", "{n} rated games", games).format(n=games),
        players=count(players, "player"),
    )


# --- users' data (issue 11): forget-me and the admin purge (bot/commands/privacy.py)
# -----------------------------


def forget_ask() -> str:
    return _(
        "**Forget me?** This deletes your settings (reminders, quiet hours, time zone) and removes you from "
        'the records of your finished games: there your name becomes "former player N" and your Discord id a '
        "number that leads back to nobody, so the scores still add up. Messages already posted in channels "
        "stay (delete them yourself, or ask the server's moderators). It cannot be undone. Press **Confirm** "
        "to go ahead, or ignore this message."
    )


def forget_not_yours() -> str:
    return _("This button is for the person who asked to be forgotten, not for you.")


def admin_manage_server() -> str:
    return _("Only a member with Manage Server can use the bot's admin commands in this server.")


def purge_manage_server() -> str:
    return _("Only a member with Manage Server can purge this server's old games.")


def forget_seated(channel_ids: list[int]) -> str:
    where = ", ".join(f"<#{c}>" for c in channel_ids[:10])
    if len(channel_ids) > 10:
        where = _("{channels} and {n} more").format(channels=where, n=len(channel_ids) - 10)
    return _(
        "You are still seated in a game that is not over ({channels}). Resign there with "
        "`/alexandros resign` (or leave the table before it starts), then ask again."
    ).format(channels=where)


def forgotten(games: int, settings: bool, named: int = 0) -> str:
    """The answer to a forget: ``games`` records with a former player in the user's place, ``named`` other
    records that named them (a moderator's pause, a seat offer, a post) and do no more."""
    what = _("Your settings are deleted") if settings else _("You had no settings")
    parts = []
    if games:
        parts.append(
            ngettext(
                "a former player stands in your place in {n} game record",
                "a former player stands in your place in {n} game records",
                games,
            ).format(n=games)
        )
    if named and games:
        parts.append(
            ngettext(
                "your name and id are removed from {n} more game record",
                "your name and id are removed from {n} more game records",
                named,
            ).format(n=named)
        )
    elif named:
        parts.append(
            ngettext(
                "your name and id are removed from {n} game record",
                "your name and id are removed from {n} game records",
                named,
            ).format(n=named)
        )
    records = "; ".join(parts) if parts else _("no game record named you")
    # TRANSLATORS: {settings} is "Your settings are deleted"; {records} "a former player stands in…"
    return _(
        "Done: {settings}, and {records}. The host's log files may still show your id until they are rotated."
    ).format(settings=what, records=records)


def purged(games: int, days: int) -> str:
    if not games:
        return _(
            "No finished or abandoned game of this server is older than {days} days: nothing was deleted."
        ).format(days=days)
    # TRANSLATORS: {days} is "30 days"
    return ngettext(
        "Deleted {n} finished or abandoned game of this server older than {days}, with their moves and "
        "settings. Games in play were not touched.",
        "Deleted {n} finished or abandoned games of this server older than {days}, with their moves and "
        "settings. Games in play were not touched.",
        games,
    ).format(n=games, days=count(days, "day"))


# --- seats over days: substitutes, vacations, pausing, taking back (bot.commands.seats)
# --------------------------


def took_back(more: bool = True) -> str:
    """P10's answer; ``more``: a step before it can be taken back too (the turn post's Undo button shows)."""
    if not more:
        return _("You took back your last step. Play on: the steps before it cannot be taken back.")
    return _(
        "You took back your last step. Play on, or take back more with Undo (or `/alexandros game undo`)."
    )


def offer_accepted() -> str:
    return _("You hold the seat now. Your hand: the My hand button on the turn post, or `/alexandros hand`.")


def accept_seat() -> str:
    return _("Accept the seat")


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


def paused() -> str:
    return _("The game is paused. Resume it with `/alexandros game resume`.")


def resumed(deadline: bool = True) -> str:
    """``deadline``: the table has turn deadlines (a table without one has none to start again)."""
    if not deadline:
        return _("The game is resumed.")
    return _("The game is resumed; the turn's deadline starts again from now.")


def vacation_public(name: str, until: float | None, locale: str) -> str:
    with i18n.speaking(locale):
        if until is None:
            return _("{name} is back from vacation.").format(name=name)
        return _(
            "🏖 {name} is on vacation until {when}: their deadlines and reminders wait until then."
        ).format(name=name, when=when(until))


def vacation_set(until: float | None) -> str:
    if until is None:
        return _("Welcome back: your deadlines and reminders run again.")
    return _(
        "Your vacation runs until {when}. Your turn's deadline waits until then, and no reminder is sent. "
        "End it early with `/alexandros vacation days:0`."
    ).format(when=when(until))


# --- hints (issue 29, bot.commands.hints)
# ---------------------------------------------------------------------------


def hint_text(advice: Advice, speaker: words.Speaker, me: int, used: int) -> str:
    """The private answer to ``/alexandros learn hint``: the hard player's choice and why, from the asker's
    own view (engine.advice)."""
    head = _("**Hint** — what the hard computer would do here, from what you can see:")
    tail = ngettext(
        "You have used {n} hint in this game.", "You have used {n} hints in this game.", used
    ).format(n=used)
    return f"{head}\n{hint_reason(advice, speaker, me)}\n-# {tail}"


def hint_reason(advice: Advice, speaker: words.Speaker, me: int) -> str:
    """One sentence (two at most): the suggested action and the engine's facts that make it good."""
    a = advice
    if a.kind == "move":
        return _hint_move(a)
    if a.kind == "take":
        if a.symbol is None:
            return _(
                "Take the top card of the supply: cards pay for provinces and levies, and nobody sees it."
            )
        if a.free:
            province, value = a.free[0]
            return _(
                "Take the face-up card {symbol}: with it you can pay for province {province} (value {value})."
            ).format(symbol=symbol_name(a.symbol), province=province, value=value)
        return _("Take the face-up card {symbol}: one more card to pay for provinces and levies.").format(
            symbol=symbol_name(a.symbol)
        )
    if a.kind in ("occupy", "takeover"):
        guards = count(a.guards, "guard")
        if a.kind == "takeover":
            lead = _(
                "Take over {owner}'s province {province} (value {value}) with {guards}, paying {cards}"
            ).format(
                owner=speaker.seat(a.owner),
                province=a.province,
                value=a.value,
                guards=guards,
                cards=cards_text(a.cost),
            )
        else:
            lead = _("Occupy province {province} (value {value}) with {guards}, paying {cards}").format(
                province=a.province, value=a.value, guards=guards, cards=cards_text(a.cost)
            )
        if a.guards == 1:
            why = _("with one guard there it adds {points} at every levy").format(
                points=count(a.value, "point")
            )
        else:
            why = _("it is yours, though it scores only once you have a single guard there")
        return _("{lead}: {why}.").format(lead=lead, why=why)
    if a.kind == "levy":
        mine = a.gains[me] if me < len(a.gains) else 0
        others = ", ".join(
            f"{speaker.seat(seat)} {count(g, 'point')}" for seat, g in enumerate(a.gains) if seat != me
        )
        return _("Levy taxes with the card {symbol}: you score {points}, the others {others}.").format(
            symbol=symbol_name(a.symbol or Symbol.TEMPLE), points=count(mine, "point"), others=others
        )
    if a.kind == "takeback":
        assert isinstance(a.action, TakeBack)
        space = speaker.space(a.action.space)
        if a.freed:
            return _(
                "Take back your guard on the {space}: province {province} becomes free, and the guard can "
                "go where it scores more."
            ).format(space=space, province=a.province)
        return _(
            "Take back your guard on the {space}: fewer guards in province {province} means it can "
            "score again (one guard scores, two score nothing)."
        ).format(space=space, province=a.province)
    return _("End your turn: no action left is worth more to you now.")


def _hint_move(a: Advice) -> str:
    symbol = symbol_name(a.symbol or Symbol.TEMPLE)
    way = a.action.way if isinstance(a.action, Move) else MoveWay.NORMAL
    if way is MoveWay.JOKER:
        lead = _("Take the face-up card {card} as a joker and name {symbol}").format(
            card=symbol_name(a.joker or Symbol.TEMPLE), symbol=symbol
        )
    elif way is MoveWay.SPECIAL:
        lead = _("Move with the card {symbol} from your hand").format(symbol=symbol)
    else:
        lead = _("Move with the face-up card {symbol}").format(symbol=symbol)
    space, sides = words.symbol_space(a.symbol or Symbol.TEMPLE), count(a.sides, "side")
    if a.black + a.red == 0:
        detail = _("the closest {space} is {sides} away and no wall is needed").format(
            space=space, sides=sides
        )
    else:
        walls = count(a.black, "black wall")
        if a.red:
            walls = _("{black} and {red}").format(black=walls, red=count(a.red, "red wall"))
        detail = _("the closest {space} is {sides} away and the path places {walls}").format(
            space=space, sides=sides, walls=walls
        )
    out = _("{lead}: {detail}.").format(lead=lead, detail=detail)
    if a.free:
        provinces = ", ".join(_("{province} (value {value})").format(province=p, value=v) for p, v in a.free)
        out += " " + ngettext(
            "It forms free province {provinces}, which you can occupy this turn.",
            "It forms free provinces {provinces}, which you can occupy this turn.",
            len(a.free),
        ).format(provinces=provinces)
    if a.ends_game:
        out += " " + _("**This move ends the game**: the walls run out, so the game ends after your actions.")
    return out


def hints_used_line(counts: Sequence[tuple[str, int]]) -> str:
    """The end post's line of hints used (issue 29): "Hints used: alice 3, bob 0"."""
    return _("Hints used: {players}.").format(players=", ".join(f"{name} {n}" for name, n in counts))


# --- watching on the web (bot.commands.watching, /alexandros-admin web)
# ---------------------------------------------


def web_state(on: bool) -> str:
    if on:
        return _("Watching games on the web is on for this server.")
    return _("Watching games on the web is off for this server: every watch link leads nowhere now.")


def web_new_link(url: str) -> str:
    return _("The game's watch link was changed: the old one leads nowhere now. The new one: {url}").format(
        url=url
    )


def web_none() -> str:
    return _("This bot has no web face: its host has not set ALEXANDROS_WEB_PORT.")


def web_manage_server() -> str:
    return _("Only a member with Manage Server can change watching on the web.")


def web_no_game() -> str:
    return _("This channel has no game whose link could be changed.")
