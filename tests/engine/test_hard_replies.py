"""Issue 29: the hard player's optional ways to value an option (off by default): the next rival's best
``replies`` (each with the rest of that rival's turn), and a weight on the chance (R10.3) at the end of the
player's own turn. Either way it decides from its own view only (R2.5), legally, and within a deadline."""

from __future__ import annotations

import random

import pytest

from engine import ai
from engine.game import apply, new_game
from engine.maps import packaged_map
from engine.state import GameState, Phase
from engine.views import view
from tests.engine.helpers import hidden_twin

AEGEAN = packaged_map("aegean")
VARIANTS = [
    ai.HardPlayer(candidates=3, worlds=2, replies=2),
    ai.HardPlayer(candidates=3, worlds=2, replies=2, reply_worst=1.0, reply_mix=0.5),
    ai.HardPlayer(candidates=3, worlds=2, turn_end=0.5),
]


def _midgame(players: int = 3, seed: int = 4, turns: int = 5) -> GameState:
    state, _ = new_game(AEGEAN, players, seed)
    rng = random.Random(seed)
    while state.turn < turns or state.phase is not Phase.MOVE:
        state, _ = apply(state, ai.greedy_player(state, rng))
    return state


def test_the_new_settings_are_off_by_default() -> None:
    hard = ai.HardPlayer()
    assert (hard.replies, hard.turn_end) == (0, 0.0)


@pytest.mark.parametrize("hard", VARIANTS)
def test_r2_5_each_variant_decides_the_same_whatever_the_hidden_cards(
    hard: ai.HardPlayer,
) -> None:
    state = _midgame()
    moved, _ = apply(state, ai.greedy_player(state, random.Random(1)))
    for k, position in enumerate((state, moved)):  # at a move (R3) and in the action phase (R5-R8)
        me = position.current
        twin = hidden_twin(position, random.Random(10 + k))
        assert view(twin, me) == view(position, me)
        action = hard(position, random.Random(k))
        assert hard(twin, random.Random(k)) == action
        apply(position, action)  # legal


def test_replies_end_at_the_end_of_the_next_rivals_turn() -> None:
    state = _midgame()
    hard = ai.HardPlayer(replies=2)
    after = hard._finish_turn(state, random.Random(1), lambda: False)
    assert after is not None and after.turn == state.turn + 1 and after.current != state.current


def test_replies_honour_the_deadline() -> None:
    state = _midgame()
    asked = []

    def deadline() -> bool:
        asked.append(1)
        return True

    hard = ai.HardPlayer(candidates=3, worlds=5, replies=3, deadline=deadline)
    apply(state, hard(state, random.Random(2)))  # the greedy choice: nothing was valued in time
    assert len(asked) == 1
