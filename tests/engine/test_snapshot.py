"""Lean snapshots (engine.snapshot): exact round trips without the map text, and old snapshots still load."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import serialize, snapshot
from engine.ai import play_game
from engine.game import evolve, replay
from engine.maps import default_map
from engine.state import GameState, UndoTrail
from tests.engine.test_views_serialize import MAP, _snapshot_game

SNAPSHOTS = Path(__file__).parent / "snapshots"


def states_of_games(*games: tuple[int, int]) -> Iterator[GameState]:
    """Every state of greedy games on the default map, each given as (seed, players), event by event."""
    for seed, players in games:
        _, events, _ = play_game(default_map(), players, seed, ai="greedy", check=False)
        state: GameState | None = None
        for e in events:
            state = evolve(state, e)
            yield state


def test_lean_snapshot_round_trips_every_state_of_whole_games_exactly() -> None:
    m = default_map()
    lookup = snapshot.maps_by_digest(m)
    checked = 0
    for state in states_of_games((1, 4), (2, 3), (3, 2)):
        text = snapshot.dumps_state(state)
        assert m.text not in text and m.name in text
        assert snapshot.loads_state(text, lookup) == state
        checked += 1
    assert checked > 500


def test_lean_snapshot_knows_every_field_of_the_game_state() -> None:
    st = _snapshot_game()[1]
    doc = snapshot.dump_state(st)
    fields = {f.name for f in dataclasses.fields(GameState)}
    # a new field must be given to the codec; P10's undo trail is written only when there is one, so
    # that snapshots of states without it stay byte for byte as they were
    assert set(doc) - {"lean"} == fields - {"undo"}
    with_trail = dataclasses.replace(st, undo=UndoTrail((st,), step_open=False, revealed=True))
    assert set(snapshot.dump_state(with_trail)) - {"lean"} == fields


def test_lean_snapshot_refers_to_the_map_by_name_and_digest() -> None:
    st = _snapshot_game()[1]
    assert snapshot.map_ref(st) == (MAP.name, MAP.digest)
    doc = snapshot.dump_state(st)
    with pytest.raises(snapshot.SnapshotError):
        snapshot.load_state(doc)  # no provider
    with pytest.raises(snapshot.SnapshotError):
        snapshot.load_state(doc, snapshot.maps_by_digest(default_map()))  # not the game's map
    with pytest.raises(snapshot.SnapshotError):
        snapshot.load_state(doc, lambda digest: default_map())  # a provider that answers with another map


def test_stored_snapshots_old_and_lean_load_to_the_same_state() -> None:
    """state-v1.json (engine.serialize, map text inside) and state-lean-v1.json must load forever (and so must
    state-lean-v1-known.json, the same state written with P12's known cards)."""
    old_doc = json.loads((SNAPSHOTS / "state-v1.json").read_text())
    lean_doc = json.loads((SNAPSHOTS / "state-lean-v1.json").read_text())
    old = snapshot.load_state(old_doc)  # no provider needed: the old form carries its map
    assert old == serialize.load(old_doc)
    lean = snapshot.load_state(lean_doc, snapshot.maps_by_digest(old.map))
    assert lean == old
    events = [serialize.load(d) for d in json.loads((SNAPSHOTS / "events-v1.json").read_text())]
    replayed = replay(events)
    # Written before P12, the stored states have no known cards; the replay works them out: each player
    # took one soldier face up. Apart from those, the replay is the stored state.
    assert [p.known for p in replayed.players] == [(0, 0, 0, 0, 1)] * 3
    assert all(p.known == (0, 0, 0, 0, 0) for p in lean.players)
    assert dataclasses.replace(replayed, players=lean.players) == lean
    assert [dataclasses.replace(p, known=(0, 0, 0, 0, 0)) for p in replayed.players] == list(lean.players)
    # The current format writes exactly what is stored (state-lean-v1-known.json: with P12's known cards),
    # so a format change cannot pass unnoticed.
    known_doc = json.loads((SNAPSHOTS / "state-lean-v1-known.json").read_text())
    assert snapshot.dump_state(_snapshot_game()[1]) == known_doc
    assert snapshot.load_state(known_doc, snapshot.maps_by_digest(old.map)) == replayed


def test_p10_a_states_lean_snapshot_is_made_once_and_each_caller_gets_its_own_copy() -> None:
    """A commit snapshots the turn's earlier states again with each new one (P10's trail): each state's
    snapshot is kept with it, and is the one a fresh codec run gives."""
    st = _snapshot_game()[1]
    with_trail = dataclasses.replace(st, undo=UndoTrail((st,), step_open=False, revealed=True))
    first = snapshot.dump_state(with_trail)
    assert first == snapshot._dump(with_trail)
    assert first["undo"][0][0] == snapshot._dump(st)
    assert snapshot.dump_state(st)["players"] is first["undo"][0][0]["players"], "the trail's state was kept"
    first["turn"] = -1  # a caller's own copy of the top level
    assert snapshot.dump_state(with_trail)["turn"] == st.turn
    fresh = dataclasses.replace(with_trail)  # a new object of equal value keeps nothing of the old one
    assert "snapshot.lean" not in fresh.derived and snapshot.dump_state(fresh) == snapshot._dump(with_trail)


def test_p10_a_snapshots_text_is_the_json_of_its_document_for_every_state_of_whole_games() -> None:
    """dumps_state and dumps_public write their documents' text from parts kept as text (the provinces, the
    walls, P10's trail): byte for byte what json.dumps writes, over whole games of 2-4 players with trails,
    and each state's text is kept with it."""
    with_trail = 0
    for state in states_of_games((4, 4), (5, 3), (6, 2)):
        if state.undo == UndoTrail() and state.version % 3 == 0:  # a trail whose state has no text yet
            state = dataclasses.replace(state, undo=UndoTrail((dataclasses.replace(state),), True, False))
        with_trail += state.undo != UndoTrail()
        text = snapshot.dumps_state(state)
        assert text == json.dumps(snapshot.dump_state(state), separators=(",", ":"))
        assert snapshot.dumps_state(state) is text, "kept with the state"
        public = snapshot.dumps_public(state)
        assert public == json.dumps(snapshot.dump_public(state), separators=(",", ":"))
        assert "\x00" not in text and "\\u0000" not in text + public
    assert with_trail > 100
