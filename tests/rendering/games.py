"""A small fixed test map and deterministic games on it, for the rendering tests.

The map is written here, not taken from engine/maps, so that tuning the default map never changes a
golden image. The games are played by ``rendering.samples.greedy_action`` with a seeded generator.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from engine import GameState, Map, apply, new_game, parse_map
from rendering.samples import greedy_action

TEST_MAP = """\
name: Golden test map
start: A3
walls: 30 black, 6 red
label: Nordia at B8
label: Sudia at F13
grid:
~.T.A.H..~~
.S.L..T.A.H.~
~.H..S.L..T.A
 ..A.L.S..H.S.
  .T..H..L.A.~
   ~~.S..T..~
"""


def small_map() -> Map:
    return parse_map(TEST_MAP, "golden.map")


def game_states(players: int = 3, seed: int = 5, max_actions: int = 600) -> list[GameState]:
    """Every state of one whole greedy game on the test map."""
    rng = random.Random(seed)
    state, _ = new_game(small_map(), players, seed)
    states = [state]
    for _ in range(max_actions):
        if state.over:
            break
        state, _ = apply(state, greedy_action(state, rng))
        states.append(state)
    return states


def first(states: list[GameState], test: Callable[[GameState], bool]) -> GameState:
    found = next((s for s in states if test(s)), None)
    assert found is not None, "the test game never reached the wanted situation"
    return found
