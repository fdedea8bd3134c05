"""``python -m engine simulate --from FILE``: simulations that start from a written position."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from engine import ai, simulate
from engine.game import apply, new_game
from engine.maps import default_map
from engine.notation import format_position
from engine.state import GameState
from tests.engine.test_views_serialize import MAP


def _midgame(seed: int = 5, turns: int = 12) -> GameState:
    st, _ = new_game(default_map(), 3, seed)
    rng = random.Random(seed)
    while st.turn < turns:
        st, _ = apply(st, ai.greedy_player(st, rng))
    return st


def test_simulate_from_a_position_plays_on_from_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    start = _midgame()
    path = tmp_path / "midgame.txt"
    path.write_text(format_position(start))
    args = ["--from", str(path), "--games", "2", "--ai", "random", "--replay-every", "1", "--json"]
    code = simulate.main(args)
    figures = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert code == 0
    assert figures["players"] == 3  # from the position, not --players
    assert figures["turns_min"] > start.turn  # the games went on from turn 12
    assert figures["replays_checked"] == 2 and figures["replay_mismatches"] == 0
    assert figures["invariant_violations"] == 0


def test_simulate_from_a_position_on_a_map_written_into_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    st, _ = new_game(MAP, 2, 9)
    path = tmp_path / "small.txt"
    path.write_text(format_position(st, map_text=True))
    assert simulate.main(["--from", str(path), "--games", "1", "--quiet", "--json"]) == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["map"] == MAP.name
