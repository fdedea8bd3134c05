"""The position notation (engine.notation): every state reached in 200 simulated games -> text -> the
identical state (equal dataclasses): 200 games on the golden meadow map (short games, so that CI stays
quick), 20 on the default map, 6 on the small packaged map with undos, and a test map written into the
position. Malformed positions: tests/engine/test_position_validation.py."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from engine import ai
from engine.actions import Undo
from engine.game import apply, new_game
from engine.maps import Map, default_map, load_map, packaged_map
from engine.notation import POSITION_HEADER, NotationError, format_position, parse_position
from engine.state import GameState, Phase
from engine.symbols import total
from tests.engine.test_views_serialize import MAP, _snapshot_game

MEADOW = load_map(str(Path(__file__).parent / "golden" / "meadow.map"))
AEGEAN = packaged_map("aegean")


def _states(seed: int, players: int, game_map: Map | None = None) -> list[GameState]:
    """Every state between actions of one game: 9 in 10 actions random, the rest greedy."""
    st, _ = new_game(game_map or default_map(), players, seed)
    rng = random.Random(seed)
    out = [st]
    while st.phase is not Phase.OVER:
        player = ai.random_player if rng.random() < 0.9 else ai.greedy_player
        st, _ = apply(st, player(st, rng))
        out.append(st)
    return out


@pytest.mark.parametrize("first", range(0, 200, 50))
def test_position_round_trips_every_state_of_200_games_exactly(first: int) -> None:
    ends = set()
    for seed in range(first, first + 50):
        states = _states(seed, 2 + seed % 3, MEADOW)
        for st in states:
            assert parse_position(format_position(st), maps=lambda digest: MEADOW) == st, seed
        assert states[-1].result is not None
        ends.add(states[-1].result.reason)
    assert len(ends) >= 2


def test_position_round_trips_every_state_of_20_games_on_the_default_map() -> None:
    for seed in range(20):
        for st in _states(seed, 2 + seed % 3):
            assert parse_position(format_position(st)) == st, seed  # the packaged map, found by digest


def test_position_round_trips_every_state_of_games_on_the_small_map_with_undos_and_known_cards() -> None:
    """The small packaged map is found by its digest too (engine/maps/*.map), and states mid-turn with P10's
    undo points and P12's known cards come back identical."""
    undo_points = known = 0
    for seed in range(6):
        st, _ = new_game(AEGEAN, 2 + seed % 3, seed)
        rng = random.Random(seed)
        while st.phase is not Phase.OVER:
            if st.undo.points and rng.random() < 0.3:
                action = Undo(st.current)
            else:
                action = (ai.random_player if rng.random() < 0.7 else ai.greedy_player)(st, rng)
            st, _ = apply(st, action)
            assert parse_position(format_position(st)) == st, seed
            undo_points += len(st.undo.points)
            known += sum(total(p.known) for p in st.players)
    assert undo_points > 50 and known > 50


def test_position_carries_a_map_that_is_not_packaged() -> None:
    st = _snapshot_game()[1]
    assert st.map == MAP
    text = format_position(st, map_text=True)
    assert parse_position(text) == st
    with pytest.raises(NotationError):  # without the map text, the digest names no known map
        parse_position(format_position(st))
    assert parse_position(format_position(st), maps=lambda digest: MAP) == st


def test_position_refuses_provinces_that_do_not_match_the_walls() -> None:
    text = format_position(_states(1, 2)[30])
    line = next(x for x in text.splitlines() if x.startswith("provinces:"))
    broken = text.replace(line, "provinces: 1@0,0")
    with pytest.raises(NotationError):
        parse_position(broken)
    with pytest.raises(NotationError):
        parse_position(text.replace(POSITION_HEADER, "chess"))
