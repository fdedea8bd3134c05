"""engine.outlook: each player's chance to win a game still going (R10.3, D9), and tools/fit_outlook.py, which
fits its weights to greedy games."""

from __future__ import annotations

import random
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from engine import ai, outlook
from engine.game import apply, new_game
from engine.maps import default_map, packaged_map
from engine.state import GameState, Phase

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import fit_outlook  # noqa: E402

sys.path.pop(0)


def _midgame(players: int, seed: int = 3, turns: int = 12) -> GameState:
    game_map = packaged_map("aegean") if players == 2 else default_map()
    state, _ = new_game(game_map, players, seed)
    rng = random.Random(seed)
    while state.turn < turns or state.phase is not Phase.MOVE:
        state, _ = apply(state, ai.greedy_player(state, rng))
    return state


@pytest.mark.parametrize("players", [2, 3, 4])
def test_r10_3_d9_every_player_has_a_chance_and_they_add_up_to_one(players: int) -> None:
    state = _midgame(players)
    hard = ai.HardPlayer()
    chances = [hard.chance(state, j) for j in range(players)]
    assert all(0.0 < c < 1.0 for c in chances)
    assert sum(chances) == pytest.approx(1.0)
    # D9: a player who resigned can no longer win; the others share the whole chance.
    out = tuple(replace(p, resigned=(j == 1)) for j, p in enumerate(state.players))
    left = [hard.chance(replace(state, players=out), j) for j in range(players)]
    assert left[1] == 0.0
    assert sum(left) == pytest.approx(1.0)


def test_r10_1_points_weigh_more_as_the_black_walls_run_out() -> None:
    """Early, much can still happen; near the end by walls (R10.1) ten points more is nearly the game."""
    rows = [(20.0, 4.0, 3.0, 2.0, 1.0)] * 4
    ahead = [(30.0, 4.0, 3.0, 2.0, 1.0), *rows[1:]]
    early = outlook.chances(ahead, 0.9, 0)[0] - outlook.chances(rows, 0.9, 0)[0]
    late = outlook.chances(ahead, 0.05, 0)[0] - outlook.chances(rows, 0.05, 0)[0]
    assert 0.0 < early < late
    assert outlook.chances(ahead, 0.05, 0)[0] > 0.75


def test_the_player_to_move_is_better_placed_than_the_one_who_waits_longest() -> None:
    rows = [(20.0, 4.0, 3.0, 2.0, 1.0)] * 4
    chances = outlook.chances(rows, 0.3, 2)
    assert chances[2] > chances[1]  # seat 1 moves three turns later


def test_the_fit_finds_the_weights_that_made_the_winners() -> None:
    """tools/fit_outlook.py's Newton fit, given winners drawn from known weights, predicts the chances those
    weights give on turns it never saw."""
    rng = random.Random(5)
    true = outlook.WEIGHTS[4]

    def turn() -> tuple[float, int, list[tuple[float, ...]]]:
        t = rng.random()
        rows = [
            (
                rng.uniform(0, 60) * (1 - t),
                rng.uniform(0, 12),
                rng.uniform(0, 5),
                rng.randint(0, 5),
                rng.uniform(0, 4),
            )
            for _ in range(4)
        ]
        return t, rng.randrange(4), rows

    data = []
    for _ in range(4000):
        t, current, rows = turn()
        p = outlook.chances(rows, t, current)
        winner = rng.choices(range(4), weights=p)[0]
        data.append((fit_outlook.design(t, current, rows), [1.0 if j == winner else 0.0 for j in range(4)]))
    w = fit_outlook.fit(data, len(data[0][0][0]))
    fitted = fit_outlook.unpack(w, 4)
    errors = []
    for _ in range(300):
        t, current, rows = turn()
        outlook.WEIGHTS[4] = fitted
        try:
            mine = outlook.chances(rows, t, current)
        finally:
            outlook.WEIGHTS[4] = true
        errors += [abs(a - b) for a, b in zip(mine, outlook.chances(rows, t, current), strict=True)]
    assert sum(errors) / len(errors) < 0.03
