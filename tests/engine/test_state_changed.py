"""engine.state.changed, the fast ``dataclasses.replace`` that folding events uses (the engine's own
invariants and golden games check the states it makes; this checks what it carries over: the lookups
worked out from fields that did not change, and nothing else)."""

from __future__ import annotations

import dataclasses

import pytest

from engine import rules
from tests.engine.test_r4_1_splits import states


def test_a_changed_state_carries_the_lookups_of_the_fields_that_did_not_change_and_nothing_else() -> None:
    """engine.state.changed (the fast ``dataclasses.replace`` that folding events uses): the same value as
    ``replace``; the lookups of fields that did not change carried over, nothing else kept (``derived``);
    an unknown field is refused."""
    from engine.state import GameState, changed

    state = states("empire", 1)[10]
    rules.province_infos(state)
    assert state.derived and "province_of" in state.__dict__
    assert {"province_of", "province_by_id", "guard_owner"} <= state.__dict__.keys()
    moved = changed(state, version=state.version + 5, alexander=state.alexander)
    assert moved == dataclasses.replace(state, version=state.version + 5)
    assert isinstance(moved, GameState) and moved.derived == {} and moved.derived is not state.derived
    # What follows from fields that did not change comes along, and is what working it out gives.
    assert moved.__dict__["province_of"] is state.province_of and moved.guard_owner is state.guard_owner
    split = changed(state, provinces=state.provinces[1:])
    assert "province_of" not in split.__dict__ and "province_by_id" not in split.__dict__
    assert split.province_of == {s: p.id for p in state.provinces[1:] for s in p.spaces}
    assert split.__dict__["guard_owner"] is state.guard_owner
    players = changed(state, players=state.players[::-1])
    assert "guard_owner" not in players.__dict__ and players.__dict__["province_of"] is state.province_of
    assert players.guard_owner == {s: i for i, p in enumerate(state.players[::-1]) for s in p.guards}
    with pytest.raises(TypeError):
        changed(state, verison=3)
