"""Every sentence the bot posts or answers, built from plain values. Discord-free.

Public messages (lobby, turn, status, end, reminders) and private answers (what an action did, the steps of
a guided move, reminder settings, autocomplete hints) live here, next to ``bot.words`` (refusals, event
lines and names of things), so that the wording can be read and changed in one place. Public texts are
made only from public facts (views, redacted events); Discord formatting is plain markdown, ``<@id>``
mentions and ``<t:unix:R>`` timestamps.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine import rules
from engine.events import Event
from engine.game import MAX_PLAYERS, MIN_PLAYERS
from engine.state import COLOURS, GameState, Phase
from engine.symbols import total
from engine.views import redact, view
from storage import GameRecord

from .limits import content as clip
from .schedule import DeadlinePolicy, ReminderPrefs, format_timestamp
from .tables import Table
from .words import END_REASONS, cards_text


def when(ts: float | None) -> str:
    """A moment as a Discord timestamp (each reader's time zone and language; it never goes stale)."""
    return format_timestamp(ts) if ts else "never"


def jump_link(guild_id: int | None, channel_id: int, message_id: int | None = None) -> str:
    """A link that opens the channel (and the message) in Discord; ``@me`` stands for direct messages."""
    base = f"https://discord.com/channels/{guild_id if guild_id is not None else '@me'}/{channel_id}"
    return base if message_id is None else f"{base}/{message_id}"


def lobby_text(table: Table) -> str:
    rec = table.record
    seated = [f"<@{uid}>" for _, uid in sorted(rec.seats)]
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
    return f"{left} action{'s' if left != 1 else ''} left: {offer}."


def open_actions(st: GameState) -> list[str]:
    """The actions the current player may have now, judged from public facts only.

    A public message must not hint at a hidden hand, so whether the cards are there is not asked: a
    levy is named when the player has a guard on the map, whatever their hand holds.
    """
    me = st.players[st.current]
    provinces = rules.province_infos(st)
    out = []
    if any(s is not None for s in st.face_up) or rules.supply_can_give(st):
        out.append("take a card")
    if me.guards_in_supply and any(p.owner is None and p.symbol_spaces for p in provinces):
        out.append("occupy")
    if me.guards_in_supply and any(p.owner not in (None, st.current) for p in provinces):
        out.append("take over")
    if me.guards and not st.levied:
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
        f"**Turn {st.turn} — {name} ({COLOURS[seat]})** <@{uid}>, it is your turn.\n"
        f"{can_do(table)}{deadline_note(table)}"
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
            + ("moving Alexander." if st.phase is Phase.MOVE else f"{rules.actions_left(st)} action(s) left.")
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
    winners = " and ".join(f"<@{table.user_of(w)}>" for w in res.winners) or "nobody"
    lines = [
        f"**Game {table.id} is over** — {END_REASONS.get(res.reason, str(res.reason))}.",
        f"{'Winners' if len(res.winners) > 1 else 'Winner'}: {winners}.",
        scores_line(table),
        "Players: "
        + ", ".join(f"<@{uid}>" for _, uid in sorted(table.record.seats))
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
        f"Your hand ({n} card{'s' if n != 1 else ''}): {cards_text(hand)}. "
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
    """``/alexandros waiting``: every game waiting on the asking player, across servers, with links."""
    if not entries:
        return "No game is waiting for you. Enjoy the break!"
    lines = [f"**{len(entries)} game{'s' if len(entries) != 1 else ''} waiting for you**"]
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
    return clip(f"**The last {len(lines)} events**\n{body}")


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


def pick_cards(count: int) -> str:
    return f"Pick {count} cards"


def move_step_2(card: str, shown: int, total: int) -> str:
    more = "" if total <= shown else f" (the first {shown} of {total}; type `/alexandros move` for all)"
    return f"**Move Alexander** — step 2 of 3: {card}. Pick the point where he stops{more}."


def move_step_3(count: int, point: str) -> str:
    return f"**Move Alexander** — step 3 of 3: {count} paths to {point} differ in their walls. Pick one."


def move_confirm(card: str, path: str, preview: rules.MovePreview) -> str:
    """The guided move's last step: what the move will do, flagged when it ends the game (R3.6, R10.1)."""
    walls = f"{len(preview.black)} black wall{'s' if len(preview.black) != 1 else ''}"
    if preview.red:
        walls += f" and {len(preview.red)} red wall{'s' if len(preview.red) != 1 else ''}"
    cut = ""
    if preview.cuts:
        cut = f" It cuts {len(preview.cuts)} province{'s' if len(preview.cuts) != 1 else ''}."
    end = (
        " **This move ends the game**: the walls run out, so the game ends after your actions."
        if (preview.ends_game)
        else ""
    )
    return f"**Move Alexander** — {card}, to {path}: it places {walls}.{cut}{end} Confirm?"


def actions_prompt(table: Table) -> str:
    return f"**Actions** — {can_do(table)}"


def province_prompt(takeover: bool, province: int, guards: str, paid: str, guards_left: int) -> str:
    """The occupy / take-over preview: the cheapest plan (``guards``, ``paid``), and the choice of spaces."""
    verb = "Take over" if takeover else "Occupy"
    return clip(
        f"**{verb} province {province}** — cheapest: guards on {guards}, paying {paid}. Use it, or choose "
        f"the guards' spaces (up to {guards_left})."
    )


def compensation_prompt(province: int, paid: str, size: int, owner: str) -> str:
    return (
        f"**Take over province {province}** — you pay {paid}. Choose the {size} card"
        f"{'s' if size != 1 else ''} {owner} receives."
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
    """``/alexandros reminders``: the player's settings as they now stand."""
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
