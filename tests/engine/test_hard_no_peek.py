"""R2.5 and issue 29: the hard level (engine.ai.hard_player, its real budget) decides from its own view only:
in many positions, on both packaged maps, at moves and in the action phase, dealing the hidden cards
otherwise (each rival keeps the cards the table knows of, P12) never changes its decision."""

from __future__ import annotations

import random

from engine import ai
from engine.game import apply, new_game
from engine.maps import default_map, packaged_map
from engine.state import GameState, Phase
from engine.views import view
from tests.engine.helpers import hidden_twin


def _hidden(state: GameState) -> tuple[object, ...]:
    """What the player to act cannot see: the supply's order and the rivals' hands."""
    return state.supply, tuple(p.hand for i, p in enumerate(state.players) if i != state.current)


def _positions(game_map, players: int, seed: int, every: int, n: int) -> list[GameState]:  # type: ignore[no-untyped-def]
    """Every ``every``-th state of a greedy game (moves and actions alike), up to ``n`` of them."""
    state, _ = new_game(game_map, players, seed)
    rng, out, step = random.Random(seed), [], 0
    while not state.over and len(out) < n:
        if step % every == 0 and state.turn > 1:
            out.append(state)
        state, _ = apply(state, ai.greedy_player(state, rng))
        step += 1
    return out


def test_r2_5_the_hard_level_decides_the_same_whatever_the_hidden_cards_in_many_positions() -> None:
    positions = _positions(packaged_map("aegean"), 3, 5, 2, 20) + _positions(default_map(), 4, 3, 6, 20)
    phases, tested = set(), 0
    for k, state in enumerate(positions):
        me = state.current
        twins = (hidden_twin(state, random.Random(1000 * j + k)) for j in range(1, 6))
        twin = next((t for t in twins if _hidden(t) != _hidden(state)), None)
        if twin is None:  # every hidden card is known to the table (P12): nothing to deal otherwise
            continue
        assert view(twin, me) == view(state, me), k  # the player to act cannot tell them apart
        action = ai.hard_player(state, random.Random(k))
        assert ai.hard_player(twin, random.Random(k)) == action, k
        apply(state, action)  # and it is legal
        phases.add(state.phase)
        tested += 1
    assert tested >= 36 and phases == {Phase.MOVE, Phase.ACTIONS}, (tested, phases)
