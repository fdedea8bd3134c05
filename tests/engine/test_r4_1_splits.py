"""R4.1: the provinces new walls cut. ``splits_after`` first checks whether the spaces either side of the new
walls still reach each other (most walls cut nothing) and splits a province only when they do not; this
checks it against splitting every touched province, on states of whole games on every shipped map, with
new walls made of the paths Alexander takes and of sides picked at random."""

from __future__ import annotations

import random
from importlib import resources

import pytest

from engine import apply, rules
from engine.ai import greedy_player
from engine.game import new_game
from engine.geometry import Side, Space
from engine.maps import SideKind, packaged_map
from engine.state import GameState, Phase

MAPS = sorted(p.name.removesuffix(".map") for p in resources.files("engine").joinpath("maps").iterdir()
              if p.name.endswith(".map"))  # fmt: skip


Splits = list[tuple[int, list[frozenset[Space]]]]


def every_touched_split(state: GameState, added: tuple[Side, ...]) -> Splits:
    """The plain way: split every province a new interior wall lies in."""
    m = state.map
    walls = state.walls | frozenset(added)
    inner = [sd for sd in added if m.side_kind[sd] is SideKind.INTERIOR]
    touched = {state.province_of[s] for sd in inner for s in m.side_spaces[sd]}
    out = []
    for pid in sorted(touched):
        parts = rules.split_province(state, state.province_by_id[pid], walls)
        if len(parts) > 1:
            out.append((pid, parts))
    return out


def states(name: str, seed: int, players: int = 3) -> list[GameState]:
    state, _ = new_game(packaged_map(name), players, seed)
    rng = random.Random(seed)
    out = [state]
    while not state.over and len(out) < 400:
        state = apply(state, greedy_player(state, rng))[0]
        out.append(state)
    return out


@pytest.mark.parametrize("name", MAPS)
def test_r4_1_the_provinces_cut_are_those_a_full_split_finds(name: str) -> None:
    rng = random.Random(name)
    checked = cuts = 0
    for seed in (1, 2):
        played = states(name, seed)
        for before, after in zip(played, played[1:], strict=False):
            moved = after.last_move is not None and after.last_move is not before.last_move
            if before.phase is Phase.MOVE and moved:
                assert after.last_move is not None
                added = after.last_move.black + after.last_move.red  # the walls of Alexander's path
                assert rules.splits_after(before, added) == every_touched_split(before, added)
                checked += 1
            kinds = before.map.side_kind
            free = [sd for sd, k in kinds.items() if k is SideKind.INTERIOR and sd not in before.walls]
            for _ in range(3):
                added = tuple(rng.sample(free, min(len(free), rng.randint(1, 8))))
                want = every_touched_split(before, added)
                assert rules.splits_after(before, added) == want
                cuts += bool(want)
                checked += 1
    assert checked > 100 and cuts > 10, (checked, cuts)
