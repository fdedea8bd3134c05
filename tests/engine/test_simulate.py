"""The simulation command (engine/simulate.py, engine/__main__.py) and the state invariants."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from engine import invariants, simulate
from engine.__main__ import main as engine_main
from engine.ai import play_game
from engine.game import new_game
from engine.geometry import side
from engine.maps import default_map
from engine.state import ActionKind, PlayerState, Province
from engine.symbols import add, one
from tests.engine.helpers import S, T

ROOT = Path(__file__).resolve().parents[2]
EMPIRE = default_map()
REQUIRED = {"games", "turns_median", "end_reasons", "invariant_violations", "ms_per_game_median"}


def test_json_last_line_has_the_figures(capsys: pytest.CaptureFixture[str]) -> None:
    code = simulate.main(["--games", "2", "--players", "3", "--seed", "5", "--json", "--replay-every", "1"])
    out = capsys.readouterr().out.strip().splitlines()
    figures = json.loads(out[-1])
    assert code == 0
    assert REQUIRED <= figures.keys()
    assert figures["games"] == 2 and figures["invariant_violations"] == 0
    assert figures["replays_checked"] == 2 and figures["replay_mismatches"] == 0
    assert figures["json_mismatches"] == 0
    assert sum(figures["end_reasons"].values()) == 2
    assert len(out) == 5  # two game lines, the summary, the coverage, the JSON


def test_python_m_engine_simulate_runs_as_a_command() -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "engine",
            "simulate",
            "--games",
            "1",
            "--players",
            "2",
            "--seed",
            "3",
            "--ai",
            "random",
            "--json",
            "--quiet",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    figures = json.loads(proc.stdout.strip().splitlines()[-1])
    assert REQUIRED <= figures.keys() and figures["ai"] == "random"


def test_main_dispatch_and_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert engine_main(["--help"]) == 0
    assert engine_main([]) == 2
    assert "simulate" in capsys.readouterr().out


def test_seeds_are_deterministic_across_runs() -> None:
    a = simulate.run_game(EMPIRE, 4, 17, "greedy", check_replay=False)
    b = simulate.run_game(EMPIRE, 4, 17, "greedy", check_replay=False)
    assert (a.turns, a.reason, a.scores, a.actions) == (b.turns, b.reason, b.scores, b.actions)


def test_aggregate_percentiles_and_shares() -> None:
    games = [
        simulate.GameSummary(
            seed=i,
            players=4,
            turns=t,
            reason=r,
            scores=[s, 0, 0, 0],
            winners=[0],
            actions={"move": t},
            ms=10.0 * i,
        )
        for i, (t, r, s) in enumerate([(20, "walls", 50), (30, "points", 100), (40, "walls", 70)])
    ]
    fig = simulate.aggregate(games)
    assert fig["turns_median"] == 30 and fig["turns_p10"] == 22 and fig["turns_p90"] == 38
    assert fig["end_reasons"] == {"walls": 2, "points": 1}
    assert fig["end_share_walls"] == pytest.approx(0.667) and fig["score_max_median"] == 70


# --- invariants ------------------------------------------------------------------------------------------


def _midgame():  # type: ignore[no-untyped-def]
    state, _, _ = play_game(EMPIRE, 4, 8, ai="greedy", check=False)
    return state


def test_a_fresh_game_and_a_finished_one_are_clean() -> None:
    state, _ = new_game(EMPIRE, 4, 1)
    assert invariants.check(state) == []
    assert invariants.check(_midgame()) == []


def test_r2_1_a_card_too_many_is_found() -> None:
    state, _ = new_game(EMPIRE, 3, 1)
    p0 = state.players[0]
    bad = replace(state, players=(replace(p0, hand=add(p0.hand, one(T))),) + state.players[1:])
    found = invariants.check(bad)
    assert any("56 cards" in v for v in found) and any("12 temple" in v for v in found)


def test_r6_guards_on_open_spaces_and_shared_provinces_are_found() -> None:
    state, _ = new_game(EMPIRE, 2, 1)
    open_space = next(s for s in EMPIRE.spaces if EMPIRE.symbol[s] is None)
    a, b = [s for s in EMPIRE.symbol_spaces if EMPIRE.symbol[s] is S][:2]
    guards = (PlayerState(guards=frozenset({open_space, a})), PlayerState(guards=frozenset({b})))
    bad = replace(state, players=guards)
    found = invariants.check(bad)
    assert any("open space" in v for v in found)
    assert any("R4.3" in v for v in found)  # the whole map is one province at the start


def test_r4_1_provinces_that_do_not_match_the_walls_are_found() -> None:
    state, _ = new_game(EMPIRE, 2, 1)
    whole = state.provinces[0].spaces
    first = min(whole)
    split = (Province(1, whole - {first}), Province(2, frozenset({first})))
    found = invariants.check(replace(state, provinces=split, next_province_id=3))
    assert any("R4.1" in v and "differ" in v for v in found)


def test_walls_scores_and_actions_between_steps() -> None:
    state, _ = new_game(EMPIRE, 2, 1)
    some_side = side(EMPIRE.start, EMPIRE.adjacent[EMPIRE.start][0])
    walled = replace(state, walls=frozenset({some_side}), version=state.version + 1)
    scored = replace(walled, players=(replace(walled.players[0], score=5),) + walled.players[1:])
    assert invariants.check_step(state, walled) == []
    assert any("walls were removed" in v for v in invariants.check_step(walled, replace(state, version=9)))
    assert any("score fell" in v for v in invariants.check_step(scored, replace(walled, version=9)))
    three = replace(state, actions_taken=(ActionKind.LEVY, ActionKind.LEVY, ActionKind.TAKE_CARD))
    found = invariants.check(three)
    assert any("3 actions" in v for v in found) and any("two levies" in v for v in found)


# --- the default map, as tuned by these simulations ----------------------------------------------------


def test_the_default_map_keeps_its_design() -> None:
    m = EMPIRE
    land = len(m.spaces)
    symbols = [m.symbol[s] for s in m.symbol_spaces]
    counts = [symbols.count(sym) for sym in set(symbols)]
    assert 130 <= land <= 200  # a narrow band, so that the march reaches the east (issue 14)
    assert 0.45 <= len(symbols) / land <= 0.50
    assert len(counts) == 5 and max(counts) - min(counts) <= 2
    assert m.lines <= 26 and max(len(r) for r in m.rows) > 2 * len(m.rows)  # landscape
    assert m.start[0] <= 2 and m.start[1] <= 4  # Macedonia, in the north-west
    names = {name for name, _ in m.labels}
    assert {"Macedonia", "Egypt", "Persia", "Bactria", "Indus"} <= names
    for _, point in m.labels:
        assert point in m.point_spaces  # every label sits on a corner of a land space
    seas = sum(row.count("~") for row in m.rows)
    assert seas > 50


def test_the_map_file_is_what_its_generator_makes() -> None:
    proc = subprocess.run(
        [sys.executable, "tools/design_map.py", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_coverage_regions_of_the_default_map() -> None:
    from engine.coverage import regions

    reg = regions(EMPIRE)
    assert reg.far == "Indus"
    assert reg.east == {"Media", "Parthia", "Persia", "Bactria", "Arachosia", "Gedrosia", "Gandhara", "Indus"}
    assert set(reg.of) == set(EMPIRE.spaces) and set(reg.of.values()) == set(reg.names)
    assert reg.far_points and all(p in EMPIRE.point_spaces for p in reg.far_points)


def test_coverage_of_a_game_counts_walls_and_the_far_region() -> None:
    from engine.coverage import game_coverage

    state, events, _ = play_game(EMPIRE, 4, 3, ai="greedy", check=False)
    cov = game_coverage(state, events)
    assert 0 < cov.east_touched <= 1 and 0 < cov.west_touched <= 1
    assert 0 < cov.largest_province < 1 and cov.first_player in range(4)
    start, _ = new_game(EMPIRE, 4, 3)
    none = game_coverage(start, [])
    assert (none.east_touched, none.west_touched, none.far_reached, none.largest_province) == (0, 0, False, 1)
    summary = simulate.run_game(EMPIRE, 4, 3, "greedy", check_replay=False)
    assert summary.far_reached == cov.far_reached and summary.east_touched == cov.east_touched
