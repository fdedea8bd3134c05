"""The text of the bot's public messages (lobby, turn, status, end), built from a Table. Discord-free.

Public texts are made only from public facts (views, redacted events); Discord formatting is plain
markdown, ``<@id>`` mentions and ``<t:unix:R>`` timestamps.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine import rules
from engine.events import Event
from engine.game import MAX_PLAYERS, MIN_PLAYERS
from engine.state import COLOURS, Phase
from engine.symbols import total
from engine.views import redact, view

from .service import Table
from .words import END_REASONS, cards_text

MAX_CONTENT = 2000


def when(ts: float | None) -> str:
    return f"<t:{int(ts)}:R>" if ts else "never"


def clip(text: str, limit: int = MAX_CONTENT) -> str:
    """Keep a message within Discord's limit, dropping whole lines from the middle if needed."""
    if len(text) <= limit:
        return text
    lines = text.split("\n")
    head, tail = lines[:2], lines[2:]
    while tail and len("\n".join(head + ["…"] + tail)) > limit:
        tail.pop(0)
    out = "\n".join(head + ["…"] + tail)
    return out[:limit]


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


def deadline_text(table: Table) -> str:
    hours = table.record.options.get("deadline_hours")
    if not hours:
        return ""
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
    return (
        f"{left} action{'s' if left != 1 else ''} left: take a card, occupy, take over, levy taxes, take "
        "back a guard (**Actions**), or end the turn."
    )


def turn_header(table: Table, last_pinged: float | None) -> str:
    st = table.state
    assert st is not None
    seat = st.current
    uid = table.user_of(seat)
    name = table.speaker.seat(seat)
    return (
        f"**Turn {st.turn} — {name} ({COLOURS[seat]})** <@{uid}>, it is your turn.\n"
        f"{can_do(table)} Last reminded: {when(last_pinged)}.{deadline_note(table)}"
    )


def deadline_note(table: Table) -> str:
    hours = table.record.options.get("deadline_hours")
    started = table.record.turn_started_at
    if not hours or not started:
        return ""
    return f" The turn is skipped {when(started + float(hours) * 3600)} if not taken."


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
    if rec.status == "lobby":
        return lobby_text(table)
    st = table.state
    assert st is not None
    v = view(st, None)
    out = [f"**Alexandros — game {rec.id}** ({rec.status})"]
    if not st.over:
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
