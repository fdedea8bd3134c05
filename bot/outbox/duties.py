"""What the bot owes the channel after a change: the outbox duties, built as plain values (no I/O).

The pipeline writes these in the same commit as the change (storage ``append``), and bot.outbox.deliveries
sends them later, in order per channel, retrying until Discord takes them. Everything a duty shows is decided
here, at commit time, from public facts only: texts are worded from redacted events and the picture is
drawn from the public view (stored in the duty), so the outbox never holds a hidden card.

Duty kinds and payloads:
- ``post``: a new message. ``text``; ``picture`` ("board" or "end") drawn with ``names`` from ``public``
  (the state with its secrets taken out, ``public_state``, as a lean snapshot whose map, ``map``, is
  stored once by digest) or, in older duties, from ``view`` (a public view with its map inside);
  ``buttons`` (``{"game", "version", "moving"}``) for a live turn; ``ping``: user ids mentioned (and
  notified); ``turn_post``: when set, the message becomes the turn post of that turn (the version of
  its TurnStarted event).
- ``edit``: edit the turn post of turn ``since`` (the same fields as a post). A live turn whose post
  cannot be found or edited is posted afresh instead; a closed one is left as it is.
- ``lobby``: edit the lobby message (``message``) to ``text``, with the lobby buttons while ``open``.
- ``remind`` and ``deadline``: timers (keyed, one per game) handled by bot.outbox.timers when they fall due.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from engine import serialize
from engine.events import Event
from engine.snapshot import dumps_public
from engine.state import GameState, Phase, UndoTrail
from engine.symbols import Symbol, total
from engine.views import view
from storage import Duty, NewDuty

from ..games.computers import is_computer
from ..games.seat_rules import is_paused
from ..games.tables import Outcome, Table
from ..texts import posts

POST = "post"
EDIT = "edit"
LOBBY = "lobby"
REMIND = "remind"
DEADLINE = "deadline"


def buttons(table: Table) -> dict[str, Any] | None:
    """The turn post's button facts (game, version, move phase), or None when the game is over."""
    st = table.state
    if st is None or st.over or table.record.status != "playing":
        return None
    facts: dict[str, Any] = {"game": table.id, "version": table.version, "moving": st.phase is Phase.MOVE}
    if st.undo.points:  # P10: the Undo button, while a step can be taken back
        facts["undo"] = True
    if is_paused(table.record.options):  # nothing can be played: Move, Actions and End are greyed
        facts["paused"] = True
    return facts


def _picture(state: GameState, table: Table, lean: bool = True) -> dict[str, Any]:
    """The picture's facts. Lean (the default): the ``public`` state (``public_state``: nothing secret left
    in it) as a lean snapshot's JSON text, its map by digest; the worker loads it and makes the public view.
    As text, the delivery worker reads the duty without parsing the snapshot and hands it to the render
    worker as it is (parsed and pickled on the way, it cost the event loop about 40 us a picture; older
    duties hold it as JSON, and still draw). Otherwise the public view itself, with its map inside (for a
    game whose map may not be stored yet)."""
    out: dict[str, Any] = {
        "picture": "end" if state.over else "board",
        "names": list(table.names),
        "locale": table.locale,  # the picture's description speaks the game's language
    }
    if lean:
        out["public"] = dumps_public(state)  # dump_state(public_state(...)) as JSON text
        out["map"] = state.map.digest
    else:
        out["view"] = serialize.dump(view(state, None))
    return out


def held(duty: Duty) -> tuple[int, str]:
    """A claimed duty and the worker holding it, for the store's writes made on its behalf (``leased``)."""
    assert duty.lease_owner is not None, "only a claimed duty is held"
    return duty.id, duty.lease_owner


def public_state(state: GameState) -> GameState:
    """The state with every secret taken out, so that the outbox may hold it (R2.5): each hand becomes as
    many cards of one symbol (only its size is public), the supply as many cards of one symbol (its order
    is secret), the random generator and the seed zero, and P10's trail goes (it holds the turn's earlier
    states whole, secrets and all; the turn post's Undo button is decided from the real state). Its public
    view is the real state's public view.
    """
    players = tuple(dataclasses.replace(p, hand=(total(p.hand), 0, 0, 0, 0)) for p in state.players)
    supply = (Symbol.TEMPLE,) * len(state.supply) if state.supply else ()
    return dataclasses.replace(state, players=players, supply=supply, rng=0, seed=0, undo=UndoTrail())


def say(
    channel_id: int, text: str, ping: Sequence[int] = (), now: float = 0.0, turn: int | None = None
) -> NewDuty:
    """A plain public message (an announcement), due at once. ``turn``: it calls its one pinged player to
    the turn that started at that version (a game resumed, a seat taken on its turn), so a player who
    wants DMs is told by DM instead (bot.outbox.notices.route)."""
    payload: dict[str, Any] = {"text": text, "ping": list(ping)}
    if turn is not None:
        payload["turn_ping"] = turn
    return NewDuty(POST, now, channel_id, payload=payload)


def lobby_edit(table: Table, now: float) -> list[NewDuty]:
    message = table.record.options.get("lobby_message")
    if not message:
        return []
    payload = {
        "message": int(message),
        "text": posts.lobby_text(table),
        "open": table.record.status == "lobby",
        "locale": table.locale,  # the buttons the worker puts back speak the game's language
    }
    return [NewDuty(LOBBY, now, table.record.channel_id, payload=payload)]


def after_change(
    outcome: Outcome,
    since: int | None,
    turn_events: Sequence[Event],
    now: float,
    hints: Mapping[int, int] | None = None,
) -> list[NewDuty]:
    """The posts and edits one committed change causes.

    ``since`` is the version of the TurnStarted event of the turn that was on before the change (None
    when there was none, e.g. at the start), and ``turn_events`` that turn's events before the change.
    """
    table, before = outcome.table, outcome.before
    state = outcome.state
    channel = table.record.channel_id
    new_turn = outcome.new_turn_version
    out: list[NewDuty] = []
    split = len(outcome.events) if new_turn is None else new_turn - outcome.base_version - 1
    old_turn = [*turn_events, *outcome.events[:split]]
    if since is not None:
        closing = new_turn is not None or state.over
        shown = before if closing else table
        fields: dict[str, Any] = {"since": since}
        if not closing:
            fields.update(_picture(state, table), buttons=buttons(table))
        text = posts.turn_text(shown, posts.turn_header(shown), old_turn, closed=closing)
        out.append(NewDuty(EDIT, now, channel, payload={"text": text, **fields}))
    if state.over:
        out.append(
            NewDuty(
                POST,
                now,
                channel,
                payload={
                    "text": posts.end_text(table, hints),
                    "ping": [u for u in table.record.user_ids if not is_computer(u)],
                    **_picture(state, table),
                },
            )
        )
    elif new_turn is not None:
        uid = table.current_user
        text = posts.turn_text(table, posts.turn_header(table), outcome.events[split:])
        payload = {
            "text": text,
            "ping": [uid] if uid is not None and not is_computer(uid) else [],
            "buttons": buttons(table),
            "turn_post": new_turn,
            **_picture(state, table),
        }
        out.append(NewDuty(POST, now, channel, payload=payload))
    return out


def turn_post(
    table: Table, since: int, turn_events: Sequence[Event], now: float, lean: bool = True
) -> NewDuty:
    """The current turn's post again, as a new message that becomes the turn post (after its messages were
    lost, e.g. a console started again on the same database)."""
    state = table.state
    assert state is not None
    uid = table.current_user
    payload = {
        "text": posts.turn_text(table, posts.turn_header(table), turn_events),
        "ping": [uid] if uid is not None and not is_computer(uid) else [],
        "buttons": buttons(table),
        "turn_post": since,
        **_picture(state, table, lean),
    }
    return NewDuty(POST, now, table.record.channel_id, payload=payload)


def reminder(table: Table, since: int, started: float, due: float, last_sent: float | None = None) -> NewDuty:
    """The next reminder of the waiting player (one pending per game: keyed)."""
    payload: dict[str, Any] = {"since": since, "started": started, "version": table.version}
    if last_sent is not None:
        payload["last_sent"] = last_sent
    return NewDuty(REMIND, due, table.record.channel_id, table.current_user, payload, key=REMIND)


def deadline(table: Table, since: int, due: float) -> NewDuty:
    """The end of the turn's time at a table with a deadline (P2), keyed: one pending per game."""
    st = table.state
    assert st is not None
    payload = {"since": since, "turn": st.turn}
    return NewDuty(DEADLINE, due, table.record.channel_id, table.current_user, payload, key=DEADLINE)


def turn_edit(table: Table, since: int, turn_events: Sequence[Event], now: float) -> NewDuty:
    """The live turn post worded afresh (a seat handed over, a vacation, a pause: bot.commands.seats)."""
    state = table.state
    assert state is not None
    text = posts.turn_text(table, posts.turn_header(table), turn_events)
    payload = {"text": text, "since": since, "buttons": buttons(table), **_picture(state, table)}
    return NewDuty(EDIT, now, table.record.channel_id, payload=payload)
