"""engine.state.changed, the fast ``dataclasses.replace`` that folding events uses (the engine's own
invariants and golden games check the states it makes; this checks what it carries over)."""

from __future__ import annotations

import dataclasses

import pytest

from engine import rules
from tests.engine.test_r4_1_splits import states


def test_a_changed_state_has_the_fields_asked_for_and_nothing_worked_out_from_the_old_one() -> None:
    """engine.state.changed (the fast ``dataclasses.replace`` that folding events uses): the same value as
    ``replace``, and no kept work (``derived``, ``province_of``) carried over; an unknown field is refused."""
    from engine.state import GameState, changed

    state = states("empire", 1)[10]
    rules.province_infos(state)
    assert state.derived and "province_of" in state.__dict__
    moved = changed(state, version=state.version + 5, alexander=state.alexander)
    assert moved == dataclasses.replace(state, version=state.version + 5)
    assert isinstance(moved, GameState) and moved.derived == {} and "province_of" not in moved.__dict__
    assert moved.__dict__.keys() == {f.name for f in dataclasses.fields(GameState)} | {"derived"}
    with pytest.raises(TypeError):
        changed(state, verison=3)
