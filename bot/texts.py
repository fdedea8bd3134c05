"""Every sentence the bot posts or answers, built from plain values. Discord-free.

Public messages (lobby, turn, status, end, reminders) and private answers (what an action did, the steps of
a guided move, reminder settings, autocomplete hints) live here, next to ``bot.words`` (refusals, event
lines and names of things), so that the wording can be read and changed in one place. Public texts are
made only from public facts (views, redacted events); Discord formatting is plain markdown, ``<@id>``
mentions and ``<t:unix:R>`` timestamps.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from engine import rules
from engine.events import Event
from engine.game import MAX_PLAYERS, MIN_PLAYERS
from engine.state import COLOURS, GameState, Phase
from engine.symbols import total
from engine.views import redact, view
from storage import GameRecord, PlayerRating

from .computers import is_computer
from .limits import content as clip
from .schedule import DeadlinePolicy, ReminderPrefs, format_timestamp
from .seat_rules import is_paused, vacations
from .tables import Table
from .words import END_REASONS, cards_text, count


def when(ts: float | None) -> str:
    """A moment as a Discord timestamp (each reader's time zone and language; it never goes stale)."""
    return format_timestamp(ts) if ts else "never"


def jump_link(guild_id: int | None, channel_id: int, message_id: int | None = None) -> str:
    """A link that opens the channel (and the message) in Discord; ``@me`` stands for direct messages."""
    base = f"https://discord.com/channels/{guild_id if guild_id is not None else '@me'}/{channel_id}"
    return base if message_id is None else f"{base}/{message_id}"


def who(table: Table, user_id: int | None) -> str:
    """A player as the channel shows them: a mention, or a computer seat's name (it has no Discord id)."""
    if is_computer(user_id):
        names: dict[str, str] = table.record.options.get("names", {})
        return f"**{names.get(str(user_id), 'the computer')}**"
    return f"<@{user_id}>"


def computer_name(level: str) -> str:
    return f"Computer ({level})"


def computer_seated(level: str) -> str:
    return f"A computer player ({level}) sits at the table; it plays its turns as soon as they come."


def computer_played(name: str, lines: Sequence[str]) -> str:
    """The public log of a computer seat's turn (from redacted events only)."""
    return clip(f"**{name}** played: " + ("; ".join(lines) if lines else "no action") + ".")


def lobby_text(table: Table) -> str:
    rec = table.record
    seated = [who(table, uid) for _, uid in sorted(rec.seats)]
    if rec.status == "abandoned":
        return f"**Alexandros — game {rec.id}** was closed."
    if rec.status != "lobby":
        return f"**Alexandros — game {rec.id}** has started with {', '.join(seated)}."
    return (
        f"**Alexandros — game {rec.id}**: a table for {MIN_PLAYERS}–{MAX_PLAYERS} players.\n"
        f"Seated ({len(seated)}/{MAX_PLAYERS}): {', '.join(seated) or 'nobody yet'}\n"
        f"Press **Join** to sit down. {table.record.options.get('creator', 'The creator')} presses **Start** "
        f"when {MIN_PLAYERS} or more are seated." + deadline_text(table)
    )


def _policy(table: Table) -> DeadlinePolicy:
    return (
        DeadlinePolicy.AUTOPLAY
        if table.record.options.get("deadline_policy") == DeadlinePolicy.AUTOPLAY.value
        else DeadlinePolicy.SKIP
    )


def deadline_text(table: Table) -> str:
    hours = table.record.options.get("deadline_hours")
    if not hours:
        return ""
    if _policy(table) is DeadlinePolicy.AUTOPLAY:
        return (
            f"\nTurn deadline: {hours:g} hours; a turn not taken by then is played by the computer, and "
            "so are that player's next turns until they come back with `/alexandros back`."
        )
    return f"\nTurn deadline: {hours:g} hours; a turn not taken by then is skipped."


def can_do(table: Table) -> str:
    """What the current player can do now, without naming any card in their hand."""
    st = table.state
    assert st is not None
    if st.phase is Phase.MOVE:
        ups = [s.value for s in st.face_up if s is not None]
        shown = " or ".join(ups) if ups else "none"
        return (
            f"Move Alexander first (`/alexandros move` or **Move**): take a face-up card ({shown}), "
            "or play a card from your hand."
        )
    left = rules.actions_left(st)
    if left == 0:
        return "Both actions are used: end the turn (`/alexandros end` or **End turn**)."
    kinds = open_actions(st)
    offer = f"{', '.join(kinds)} (**Actions**), or end the turn" if kinds else "end the turn"
    return f"{count(left, 'action')} left: {offer}."


def open_actions(st: GameState) -> list[str]:
    """The actions open to the current player now, judged from public facts only (R2.5).

    A public message must not hint at the hidden hand, so its CONTENTS are never asked; its SIZE is public.
    An action is named when some hand of that size could pay for it: occupy when a free province with a
    symbol space needs no more cards than the hand holds once every guard left covers a space (R6.1, R6.2);
    take over likewise, with two cards for each of the owner's guards (R6.3); levy with a guard on the map,
    no levy yet this turn and a card in hand (R7.1, R7.2); take back with a guard on the map (R8.1).
    """
    me = st.players[st.current]
    cards = total(me.hand)
    provinces = rules.province_infos(st)
    guards = me.guards_in_supply

    def cards_needed(p: rules.ProvinceInfo) -> int:
        removal = 2 * len(p.guards) if p.owner is not None else 0
        return removal + max(0, len(p.symbol_spaces) - guards)

    out = []
    if any(s is not None for s in st.face_up) or rules.supply_can_give(st):
        out.append("take a card")
    if guards and any(p.owner is None and p.symbol_spaces and cards_needed(p) <= cards for p in provinces):
        out.append("occupy")
    if guards and any(p.owner not in (None, st.current) and cards_needed(p) <= cards for p in provinces):
        out.append("take over")
    if me.guards and not st.levied and cards:
        out.append("levy taxes")
    if me.guards:
        out.append("take back a guard")
    return out


def turn_header(table: Table) -> str:
    st = table.state
    assert st is not None
    seat = st.current
    uid = table.user_of(seat)
    name = table.speaker.seat(seat)
    return (
        f"**Turn {st.turn} — {name} ({COLOURS[seat]})** {who(table, uid)}, it is your turn.\n"
        f"{can_do(table)}{deadline_note(table)}{away_note(table)}"
    )


def deadline_note(table: Table) -> str:
    hours = table.record.options.get("deadline_hours")
    started = table.record.turn_started_at
    if not hours or not started:
        return ""
    verb = "played by the computer" if _policy(table) is DeadlinePolicy.AUTOPLAY else "skipped"
    return f" The turn is {verb} {when(started + float(hours) * 3600)} if not taken."


def turn_text(table: Table, header: str, events: Sequence[Event], closed: bool = False) -> str:
    lines = table.speaker.event_lines([redact(e, None) for e in events])
    body = "\n".join(f"• {line}" for line in lines)
    if closed:  # a finished turn keeps its title and its lines, not the invitation to play
        header = header.split("\n")[0].split(" <@")[0] + " — turn over."
    return clip(header + ("\n" + body if body else ""))


def scores_line(table: Table) -> str:
    st = table.state
    assert st is not None
    parts = []
    for i, p in enumerate(st.players):
        mark = " (resigned)" if p.resigned else ""
        parts.append(f"{table.speaker.seat(i)} {p.score}{mark}")
    return "Scores: " + ", ".join(parts)


def status_text(table: Table, votes: set[int] | None = None) -> str:
    rec = table.record
    st = table.state
    if rec.status == "lobby" or st is None:  # a table closed in the lobby never had a board
        return lobby_text(table)
    v = view(st, None)
    out = [f"**Alexandros — game {rec.id}** ({rec.status})"]
    if rec.status == "playing" and not st.over:  # an abandoned game has no turn waiting any more
        out.append(
            f"Turn {st.turn}: {table.speaker.seat(st.current)} ({COLOURS[st.current]}), since "
            f"{when(rec.turn_started_at)}; "
            + (
                "moving Alexander."
                if st.phase is Phase.MOVE
                else f"{count(rules.actions_left(st), 'action')} left."
            )
        )
    out.append(f"Walls left: {v.black_left} black, {v.red_left} red.")
    out.append(scores_line(table))
    hands = ", ".join(f"{table.speaker.seat(p.seat)} {p.hand_size}" for p in v.players)
    out.append(
        f"Cards in hand: {hands}. Supply: {v.supply_size}. Face up: "
        + ", ".join(s.value if s else "(empty)" for s in v.face_up)
        + "."
    )
    if votes:
        out.append("Agreed to end the game: " + ", ".join(table.speaker.seat(s) for s in sorted(votes)) + ".")
    return clip("\n".join(out))


def end_text(table: Table) -> str:
    st = table.state
    assert st is not None and st.result is not None
    res = st.result
    winners = " and ".join(who(table, table.user_of(w)) for w in res.winners) or "nobody"
    lines = [
        f"**Game {table.id} is over** — {END_REASONS.get(res.reason, str(res.reason))}.",
        f"{'Winners' if len(res.winners) > 1 else 'Winner'}: {winners}.",
        scores_line(table),
        "Players: "
        + ", ".join(who(table, uid) for _, uid in sorted(table.record.seats))
        + ". Thanks for playing!",
    ]
    return clip("\n".join(lines))


def hand_text(table: Table, seat: int) -> str:
    st = table.state
    assert st is not None
    hand = st.players[seat].hand
    p = st.players[seat]
    n = total(hand)
    return (
        f"Your hand ({count(n, 'card')}): {cards_text(hand)}. "
        f"Guards left to place: {p.guards_in_supply}. Score: {p.score}."
    )


# --- playing over days: reminders, deadlines, nudges, "waiting on me" -------------------------------------


def reminder_text(table: Table, user_id: int, started: float) -> str:
    st = table.state
    assert st is not None
    return clip(
        f"<@{user_id}>, a reminder: it is still your turn in game {table.id} (turn {st.turn}, waiting since "
        f"{when(started)}). {can_do(table)}"
    )


def skipped_text(user_id: int | None, hours: float) -> str:
    return f"<@{user_id}>'s turn passed its {hours:g}-hour deadline and was skipped."


def autoplay_text(table: Table, user_id: int | None, lines: Sequence[str], hours: float) -> str:
    """The public log of a turn the computer played for an absent player (from redacted events only)."""
    body = "; ".join(lines) if lines else "no action"
    return clip(
        f"Played by the computer for <@{user_id}> (the turn passed its {hours:g}-hour deadline): {body}.\n"
        f"The computer plays their next turns too, until they type `/alexandros back` in this channel."
    )


def back_text(table: Table, deadline: float | None) -> str:
    """``/alexandros back``; ``deadline`` is set when it is the player's turn now."""
    extra = (
        f" It is your turn now; the computer plays it for you {when(deadline)} if you do not."
        if deadline is not None
        else ""
    )
    return f"Welcome back: the computer no longer plays for you in game {table.id}.{extra}"


def back_public_text(user_id: int) -> str:
    return f"<@{user_id}> is back and plays their own turns again."


def nudge_text(table: Table, waiting: int, nudger: str) -> str:
    st = table.state
    assert st is not None
    return (
        f"<@{waiting}>, {nudger} nudges you: game {table.id} waits for your turn (turn {st.turn}, since "
        f"{when(table.record.turn_started_at)})."
    )


def waiting_text(entries: Sequence[tuple[GameRecord, int | None]], deadline: dict[int, float]) -> str:
    """``/alexandros me waiting``: every game waiting on the asking player, across servers, with links."""
    if not entries:
        return "No game is waiting for you. Enjoy the break!"
    lines = [f"**{count(len(entries), 'game')} waiting for you**"]
    for record, message_id in entries:
        line = (
            f"• Game {record.id}: {jump_link(record.guild_id, record.channel_id, message_id)} — your turn "
            f"since {when(record.turn_started_at)}"
        )
        if record.id in deadline:
            line += f", deadline {when(deadline[record.id])}"
        lines.append(line + ".")
    return clip("\n".join(lines))


# --- private answers: the lobby, errors, leaving and ending ----------------------------------------------

OOPS = "Something went wrong on my side. Your game is saved; try again, or use `/alexandros board`."
THREAD_NEEDS_TEXT_CHANNEL = "Threads can be made in text channels only; start it here instead."
JOINED = "You joined the table."
LEFT = "You left the table."
STARTED = "The game has started."
RESIGNED = "You resigned. Your guards left the map; thanks for playing."
ALL_AGREED = "Everyone agreed: the game ends now."
NOTHING_YET = "Nothing has happened yet."


def thread_name(creator: str) -> str:
    return f"Alexandros — {creator}"


def opened_in(channel_id: int) -> str:
    return f"Your game is open in <#{channel_id}>."


def resigned_public(name: str) -> str:
    return f"{name} resigned."


def abandon_prompt(game_id: int, lobby: bool) -> str:
    what = "The table closes" if lobby else "The game ends now for everyone, unscored"
    return (
        f"**Abandon game {game_id}?** {what}, and this cannot be undone. Press **Abandon the game** to "
        "confirm, or dismiss this message to keep playing."
    )


def abandoned_private(game_id: int) -> str:
    return f"You abandoned game {game_id}. Start a new one with `/alexandros new`."


def abandoned_text(game_id: int, by: str) -> str:
    return f"Game {game_id} was abandoned by {by}. The channel is free for a new game."


def agree_noted(waiting: str) -> str:
    return f"Noted: you agree to end the game. Still waiting for {waiting}."


def agree_proposed(by: str, waiting: str) -> str:
    return (
        f"{by} proposes to end the game now, scored as it stands. "
        f"The others agree with `/alexandros agree` (waiting for {waiting})."
    )


def log_text(lines: Sequence[str]) -> str:
    """``/alexandros log``: the last events, one bullet each."""
    body = "\n".join(f"• {x}" for x in lines) or NOTHING_YET
    title = "The last event" if len(lines) == 1 else f"The last {count(len(lines), 'event')}"
    return clip(f"**{title}**\n{body}")


# --- private answers: what an action did ---------------------------------------------------------------

DONE = "Done."
MOVED = "Alexander moved."
TOOK_CARD = "You took a card."
LEVIED = "You levied taxes."
TOOK_GUARD_BACK = "You took a guard back."
TURN_OVER = "Your turn is over."


def province_taken(province: int) -> str:
    return f"Province {province} is yours."


def action_summary(done: str, lines: Sequence[str]) -> str:
    """What an action did, for the one who made it: ``done`` and the first lines of its events."""
    return clip(done + ("\n" + "\n".join(f"• {x}" for x in lines[:12]) if lines else ""))


# --- guided flows: prompts and select placeholders -----------------------------------------------------

PICK_CARD = "Pick a card"
PICK_POINT = "Pick a point"
PICK_PATH = "Pick a path"
PICK_ACTION = "Pick an action"
MOVE_STEP_1 = "**Move Alexander** — step 1 of 3: pick a card."
PICK_MOVE_CARD = "Pick a card to move with:"


def pick_cards(n: int) -> str:
    return f"Pick {count(n, 'card')}"


def move_step_2(card: str, shown: int, total: int, ends_game: bool = False) -> str:
    more = "" if total <= shown else f" (the first {shown} of {total}; type `/alexandros move` for all)"
    end = (
        "\n**Some of these moves end the game**: those marked “ends the game” need more walls than the black "
        "walls left, so red walls are used and the game ends after your actions (R3.6)."
        if ends_game
        else ""
    )
    return f"**Move Alexander** — step 2 of 3: {card}. Pick the point where he stops{more}.{end}"


def move_step_3(n: int, point: str) -> str:
    return f"**Move Alexander** — step 3 of 3: {count(n, 'path')} to {point} differ in their walls. Pick one."


def route_text(points: Sequence[str]) -> str:
    """Where a path goes, for the confirm step: "D2 via C1 B2", or "D2" for a single side."""
    via = f" via {' '.join(points[1:-1])}" if len(points) > 2 else ""
    return f"{points[-1]}{via}"


def move_confirm(card: str, path: str, preview: rules.MovePreview) -> str:
    """The guided move's last step: what the move will do, flagged when it ends the game (R3.6, R10.1);
    ``path`` is where it goes (``route_text``)."""
    walls = count(len(preview.black), "black wall")
    if preview.red:
        walls += f" and {count(len(preview.red), 'red wall')}"
    cut = ""
    if preview.cuts:
        cut = f" It cuts {count(len(preview.cuts), 'province')}."
    end = (
        " **This move ends the game**: the walls run out, so the game ends after your actions."
        if (preview.ends_game)
        else ""
    )
    return f"**Move Alexander** — {card}, to {path}: it places {walls}.{cut}{end} Confirm?"


def actions_prompt(table: Table) -> str:
    return f"**Actions** — {can_do(table)}"


def province_prompt(
    takeover: bool,
    province: int,
    guards: str,
    paid: str,
    guards_left: int,
    stacked: int = 1,
    scoring: tuple[str, str] | None = None,
) -> str:
    """The occupy / take-over preview: the cheapest plan (``guards``, ``paid``), and the choice of spaces.

    ``stacked``: the plan's number of guards; two or more of one player's guards in a province score
    nothing (R7.3), so such a plan is flagged, with ``scoring`` (a space, its price) when one guard is
    affordable too."""
    verb = "Take over" if takeover else "Occupy"
    warn = ""
    if stacked > 1:
        warn = (
            f"\n**It scores nothing** with {count(stacked, 'guard')} of yours: a province scores only for a "
            "player with exactly one guard in it (R7.3), until you take the others back."
        )
        if scoring is not None:
            warn += f" With one guard on the {scoring[0]} it scores, paying {scoring[1]}."
        else:
            warn += " No plan with one guard is affordable now."
    if guards_left > 1:
        choose = f"choose the guards' spaces (up to {guards_left}; one scores, two or more do not)"
    else:
        choose = "choose the guard's space"
    return clip(
        f"**{verb} province {province}** — cheapest: {'guards' if stacked != 1 else 'a guard'} on {guards}, "
        f"paying {paid}. Use it, or {choose}.{warn}"
    )


def compensation_prompt(province: int, paid: str, size: int, owner: str) -> str:
    return (
        f"**Take over province {province}** — you pay {paid}. "
        f"Choose the {count(size, 'card')} {owner} receives."
    )


# Pictures' descriptions (alt text), read out by screen readers.
ALT_BOARD = "the board"
ALT_END = "the final board and scores"
ALT_HAND = "your hand"
ALT_MOVE = "where Alexander can go"
ALT_PATHS = "the paths"
ALT_PATH = "the chosen path"
ALT_PROVINCE = "the province"


# --- reminder settings ---------------------------------------------------------------------------------

QUIET_HOURS_FORMAT = "Write quiet hours as start-end, like 22:00-08:00, or off."


def reminder_settings_text(prefs: ReminderPrefs, saved: bool) -> str:
    """``/alexandros me reminders``: the player's settings as they now stand."""
    if prefs.interval_hours is None:
        every = "the table's interval"
    elif prefs.interval_hours == 0:
        every = "never"
    else:
        every = f"every {prefs.interval_hours:g} hours"
    quiet = f"{prefs.quiet_start:%H:%M}-{prefs.quiet_end:%H:%M}" if prefs.has_quiet_hours else "none"
    return (
        f"{'Saved. ' if saved else ''}Your reminders: {every}; quiet hours: {quiet} ({prefs.time_zone}). "
        "They apply from your next turn."
    )


# --- autocomplete hints and old components ---------------------------------------------------------------

# What autocomplete shows when the engine offers nothing, so that the player learns why (by command name).
NOTHING_TO_CHOOSE = {
    "occupy": "(no free province you can afford now)",
    "takeover": "(no opponent's province you can afford now)",
    "levy": "(no levy now: once a turn, with a card matching one of your guards)",
    "takeback": "(you have no guard on the map)",
    "take": "(no card left to take)",
}
NOTHING_NOW = "(nothing to choose now)"
MOVE_FIRST_HINT = "(move Alexander first)"
ALREADY_MOVED_HINT = "(you have already moved)"
BUTTON_RETIRED = "This button is no longer in use. Look at the latest turn message."
BUTTON_STALE = "This button is out of date. Look at the latest turn message."
MENU_RETIRED = "This menu is no longer in use. Look at the latest turn message."
MENU_STALE = "This menu is out of date. Look at the latest turn message."
NOTHING_PICKED = "There was nothing to choose here."
FORM_RETIRED = "This form is no longer in use. Look at the latest turn message."


def not_your_turn_hint(current: str) -> str:
    return f"(it is {current}'s turn, not yours)"


SYNC_BUSY = (
    "Another process of this bot is syncing the commands right now (only one may at a time): try again "
    "in a minute."
)

SYNC_OWNER_ONLY = (
    "Only the bot's owner (or its team) can sync the commands everywhere: Discord limits how often an "
    "application may do it. `/alexandros-admin sync` without `everywhere` refreshes this server."
)


def synced(count: int, everywhere: bool) -> str:
    if everywhere:
        return f"Synced {count} commands everywhere; Discord may take up to an hour to show them."
    if count:
        return f"Synced {count} commands to this server."
    return "This server has no copies of the commands left: it shows the global ones, each once."


# --- DM notices (bot.notices) and the dashboard (bot.dashboard) --------------------------------------------


def dm_turn_text(table: Table) -> str:
    """A turn ping by direct message (public facts only, like the turn post it points to)."""
    st = table.state
    assert st is not None
    return clip(f"It is your turn in Alexandros game {table.id} (turn {st.turn}). {can_do(table)}")


def dm_fallback_turn_text(table: Table, user_id: int) -> str:
    """The channel ping that replaces a turn DM the user's privacy settings refused."""
    st = table.state
    assert st is not None
    return f"<@{user_id}>, it is your turn in game {table.id} (turn {st.turn})."


def dm_reminder_text(table: Table, started: float) -> str:
    st = table.state
    assert st is not None
    return clip(
        f"A reminder: it is still your turn in Alexandros game {table.id} (turn {st.turn}, waiting since "
        f"{when(started)}). {can_do(table)}"
    )


def dms_closed_note() -> str:
    """Said once, under the channel ping that replaced a refused direct message."""
    return (
        "(I tried to tell you by direct message, but your privacy settings refuse messages from me, so I "
        "ping you here from now on. To get direct messages, allow them from this server's members (the "
        "server's Privacy Settings) and type `/alexandros me reminders dm:true` again.)"
    )


def dm_settings_line(on: bool, closed: bool) -> str:
    """The DM part of ``/alexandros me reminders``' answer."""
    if not on:
        return "Turn pings and reminders: in the game's channel (`dm:true` sends them by direct message)."
    if closed:
        return (
            "Turn pings and reminders: by direct message was asked, but your direct messages were closed to "
            "me, so they come in the channel. Open them and type `/alexandros me reminders dm:true` again."
        )
    return (
        "Turn pings and reminders: by direct message, instead of a ping in the channel. If your direct "
        "messages are closed to me, I ping you in the channel and tell you once."
    )


def status_post_text(status: str, turn_link: str | None) -> str:
    """The pinned status message of a game channel: the public status, and a link to the turn post."""
    link = f"\nThe current turn: {turn_link}" if turn_link else ""
    return clip(f"📌 {status}{link}\n-# Kept up to date by the bot; `/alexandros me games` lists your games.")


PIN_PERMISSION_MISSING = (
    "I could not pin this game's status message: pinning needs the **Pin Messages** permission. A server "
    "admin can give it to my role in this channel's settings (Edit Channel → Permissions). The status "
    "message is still kept up to date, unpinned."
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
        return "You are in no game in this server. Open one with `/alexandros new`, or join a table."
    lines = [f"**Your games in this server ({total})**"]
    for g in games:
        line = _mygame_line(user_id, g)
        if len("\n".join([*lines, line])) > limit - 40:  # room for the "more" line
            break
        lines.append(line)
    shown = len(lines) - 1
    if total > shown:
        lines.append(f"…and {total - shown} more.")
    return clip("\n".join(lines))


def _mygame_line(user_id: int, g: MyGame) -> str:
    rec = g.record
    if rec.status == "lobby":
        where = jump_link(rec.guild_id, rec.channel_id, g.status_post)
        seated = len(rec.seats)
        return f"• Game {rec.id} in <#{rec.channel_id}>: at the table, {seated} seated, not started. {where}"
    names = dict(zip((uid for _, uid in sorted(rec.seats)), g.names, strict=False))
    waiting = rec.waiting_on
    whose = "**your turn**" if waiting == user_id else f"{names.get(waiting or 0, 'nobody')}'s turn"
    post = g.turn_post if g.turn_post is not None else g.status_post
    return (
        f"• Game {rec.id} in <#{rec.channel_id}>: {whose} since {when(rec.turn_started_at)} — "
        f"{jump_link(rec.guild_id, rec.channel_id, post)}"
    )


# --- Ratings, leaderboard and replays (issue 16) --------------------------------------------------------

ALT_REPLAY = "an animated replay of the game, one frame per turn"
NO_RATINGS = "No game on this server has been rated yet: a finished game of two or more players counts."
RATINGS_NOTE = "Rating: skill minus three times its uncertainty (openskill). Computer players are not rated."


def replay_text(game_id: int, over: bool) -> str:
    until = "the end" if over else "now"
    return f"Replay of game {game_id}: every turn from the deal to {until}."


def _rating_line(r: PlayerRating) -> str:
    return (
        f"<@{r.user_id}>: {r.ordinal:.1f} (skill {r.mu:.1f} ± {r.sigma:.1f}), "
        f"{count(r.games, 'game')}, {count(r.wins, 'win')}"
    )


def leaderboard_text(entries: Sequence[PlayerRating]) -> str:
    if not entries:
        return NO_RATINGS
    lines = [f"{i}. {_rating_line(r)}" for i, r in enumerate(entries, 1)]
    return "**Leaderboard of this server**\n" + "\n".join(lines) + f"\n-# {RATINGS_NOTE}"


def stats_text(user_id: int, rating: PlayerRating | None, place: int | None, rated: int) -> str:
    if rating is None:
        return f"<@{user_id}> has no rated game on this server yet."
    where = f" Place {place} of {rated} on this server." if place is not None else ""
    return f"{_rating_line(rating)}.{where}\n-# {RATINGS_NOTE}"


def recomputed_text(games: int, players: int) -> str:
    return f"Ratings recomputed from {count(games, 'rated game')}: {count(players, 'player')} rated."


# --- users' data (issue 11): forget-me and the admin purge (bot/privacy.py) -----------------------------

FORGET_ASK = (
    "**Forget me?** This deletes your settings (reminders, quiet hours, time zone) and removes you from "
    'the records of your finished games: there your name becomes "former player N" and your Discord id a '
    "number that leads back to nobody, so the scores still add up. Messages already posted in channels "
    "stay (delete them yourself, or ask the server's moderators). It cannot be undone. Press **Confirm** "
    "to go ahead, or ignore this message."
)
FORGET_NOT_YOURS = "This button is for the person who asked to be forgotten, not for you."
PURGE_MANAGE_SERVER = "Only a member with Manage Server can purge this server's old games."


def forget_seated(channel_ids: list[int]) -> str:
    where = ", ".join(f"<#{c}>" for c in channel_ids[:10])
    more = f" and {len(channel_ids) - 10} more" if len(channel_ids) > 10 else ""
    return (
        f"You are still seated in a game that is not over ({where}{more}). Resign there with "
        "`/alexandros resign` (or leave the table before it starts), then ask again."
    )


def forgotten(games: int, settings: bool) -> str:
    what = "Your settings are deleted" if settings else "You had no settings"
    records = (
        f"a former player stands in your place in {count(games, 'game record')}"
        if games
        else "no game record named you"
    )
    return f"Done: {what}, and {records}. The host's log files may still show your id until they are rotated."


def purged(games: int, days: int) -> str:
    if not games:
        return f"No finished or abandoned game of this server is older than {days} days: nothing was deleted."
    return (
        f"Deleted {count(games, 'finished or abandoned game')} of this server older than "
        f"{count(days, 'day')}, with their moves and settings. Games in play were not touched."
    )


# --- seats over days: substitutes, vacations, pausing, taking back (bot.seats) --------------------------

TOOK_BACK = "You took back your last step. Play on, or take back more with Undo (or `/alexandros game undo`)."
OFFER_ACCEPTED = (
    "You hold the seat now. Your hand: the My hand button on the turn post, or `/alexandros hand`."
)
ACCEPT_SEAT = "Accept the seat"


def away_note(table: Table) -> str:
    """The turn post's line about a paused game and the players on vacation (what everyone sees)."""
    out = ""
    if is_paused(table.record.options):
        out += "\n⏸ The game is paused: nothing can be played, and no deadline runs, until it is resumed."
    away = [
        f"{table.speaker.seat(seat)} until {when(until)}"
        for uid, until in sorted(vacations(table.record.options).items(), key=lambda kv: kv[1])
        # the record's last change is when the post is worded: a vacation over by then is not shown
        if (seat := table.seat_of(uid)) is not None and until > table.record.updated_at
    ]
    if away:
        out += "\n🏖 On vacation (deadlines and reminders wait): " + ", ".join(away) + "."
    return out


def took_back_public(name: str) -> str:
    return f"{name} took back their move."


def seat_offered(holder: str, colour: str, to_user: int, by: str) -> str:
    return (
        f"{by} offers {holder}'s seat ({colour}) to <@{to_user}>. <@{to_user}>, press the button to take it: "
        "from then on the seat's hand and turns are yours."
    )


def seat_taken(new_user: int, old: str, colour: str, on_turn: bool) -> str:
    turn = f" <@{new_user}>, it is your turn." if on_turn else ""
    return f"<@{new_user}> took over {old}'s seat ({colour}). {old} no longer plays in this game.{turn}"


def paused_public(by: str) -> str:
    return (
        f"⏸ {by} paused the game. Nothing can be played, and no deadline or reminder runs, until it is "
        "resumed."
    )


def resumed_public(by: str, user_id: int | None) -> str:
    turn = f" <@{user_id}>, it is your turn again." if user_id is not None else ""
    return f"▶ {by} resumed the game.{turn}"


PAUSED = "The game is paused. Resume it with `/alexandros game resume`."
RESUMED = "The game is resumed; the turn's deadline starts again from now."


def vacation_public(name: str, until: float | None) -> str:
    if until is None:
        return f"{name} is back from vacation."
    return f"🏖 {name} is on vacation until {when(until)}: their deadlines and reminders wait until then."


def vacation_set(until: float | None) -> str:
    if until is None:
        return "Welcome back: your deadlines and reminders run again."
    return (
        f"Your vacation runs until {when(until)}. Your turn's deadline waits until then, and no reminder "
        "is sent. End it early with `/alexandros vacation days:0`."
    )
