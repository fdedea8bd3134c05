"""The computer players (engine/ai.py): legal, deterministic, and able to finish whole games alone."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from engine import rules
from engine.actions import EndTurn, Move, TakeOver
from engine.ai import (
    GreedyPlayer,
    compensation_cards,
    greedy_player,
    legal_actions,
    play_game,
    random_player,
)
from engine.game import apply, new_game
from engine.maps import default_map, parse_map
from engine.state import EndReason, Phase
from engine.symbols import total
from tests.engine.helpers import A, H, L, S, T, hand, make_map, position

EMPIRE = default_map()
# Few walls, so that the end by walls (R3.6-R3.7) comes soon and a move may not fit.
SHORT = make_map(
    """
.T.A.H.L.S~~.T.A.H
S.L.H.A.T..~S.L.H.
.T.A.H.L.S...T.A.H
H.S.T.L.A.~~H.S.T.
""",
    walls="9 black, 2 red",
)


@pytest.mark.parametrize(
    ("ai", "players", "seed"),
    [
        ("greedy", 2, 11),
        ("greedy", 3, 12),
        ("greedy", 4, 13),
        ("random", 2, 21),
        ("random", 3, 22),
        ("random", 4, 23),
    ],
)
def test_whole_games_on_the_empire_map_end_with_no_violation(ai: str, players: int, seed: int) -> None:
    # play_game sends every action through apply, which raises on anything illegal.
    state, events, stats = play_game(EMPIRE, players, seed, ai=ai, check=True)
    assert state.phase is Phase.OVER and not stats.unfinished
    assert stats.violations == []
    assert state.result is not None and state.result.reason in (
        EndReason.WALLS,
        EndReason.NO_SPACE,
        EndReason.POINTS,
    )
    assert stats.actions["move"] >= stats.turns - 2  # a turn without a move only when none is possible


@pytest.mark.parametrize("ai", ["greedy", "random"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_r3_7_games_that_run_out_of_walls_stay_legal(ai: str, seed: int) -> None:
    state, _, stats = play_game(SHORT, 3, seed, ai=ai, check=True)
    assert stats.violations == []
    assert state.result is not None


def test_mixed_seats_and_player_objects() -> None:
    state, _, stats = play_game(EMPIRE, 3, 5, ai=["greedy", "random", GreedyPlayer(noise=0.0)])
    assert state.phase is Phase.OVER and stats.violations == []


def test_same_seed_same_game_and_the_global_random_is_untouched() -> None:
    random.seed(1234)
    before = random.getstate()
    a = play_game(EMPIRE, 4, 99, ai="greedy", check=False)
    b = play_game(EMPIRE, 4, 99, ai="greedy", check=False)
    assert random.getstate() == before
    assert a[1] == b[1] and a[0] == b[0]
    c = play_game(EMPIRE, 4, 99, ai="random", check=False)
    d = play_game(EMPIRE, 4, 99, ai="random", check=False)
    assert c[1] == d[1]


@pytest.mark.parametrize("player", [greedy_player, random_player])
def test_every_answer_is_accepted_by_apply_for_the_current_seat(player) -> None:  # type: ignore[no-untyped-def]
    state, _ = new_game(EMPIRE, 4, 3)
    rng = random.Random(3)
    for _ in range(60):
        action = player(state, rng)
        assert action.player == state.current
        if state.phase is Phase.MOVE:
            assert isinstance(action, Move)
        state, _ = apply(state, action)
        if state.phase is Phase.OVER:
            break


def test_legal_actions_always_offer_to_end_the_turn_and_only_affordable_occupations() -> None:
    st = position(SHORT, players=3, phase=Phase.ACTIONS, hands={0: hand(T, A), 1: hand(), 2: hand()})
    acts = legal_actions(st)
    assert acts[-1] == EndTurn(0)
    for a in acts:
        after, _ = apply(st, a)
        assert after.version > st.version


def test_r6_4_compensation_keeps_the_cards_that_would_let_the_loser_levy() -> None:
    st = position(SHORT, players=3, guards={1: ((0, 1),)})  # seat 1 keeps a guard on a temple
    assert SHORT.symbol[(0, 1)] is T
    paid = hand(T, T, H, H, S)
    comp = compensation_cards(st, 1, paid, rules.compensation_size(st, paid))
    assert total(comp) == 3 and comp[T.ordinal] == 0


def test_r6_3_greedy_take_over_is_legal_when_it_chooses_one() -> None:
    # Seat 1 holds a small province cut off by walls; seat 0 can pay for it (R6.3) and compensate (R6.4).
    m = parse_map("name: t\nstart: A1\nwalls: 65 black, 10 red\ngrid:\nT.A~~~~\nH.L.S.T\n")
    st = position(
        m,
        players=3,
        phase=Phase.ACTIONS,
        guards={1: ((0, 0),)},
        hands={0: hand(T, T, A, H, L, S, T), 1: hand(), 2: hand()},
    )
    takeovers = [a for a in legal_actions(st) if isinstance(a, TakeOver)]
    assert takeovers
    for a in takeovers:
        after, _ = apply(st, a)
        assert rules.province_owner(after, after.province_by_id[a.province]) == 0


def test_greedy_occupies_a_free_province_for_nothing_then_levies_alone() -> None:
    m = parse_map("name: t\nstart: A1\nwalls: 65 black, 10 red\ngrid:\n.T.~.H.\n")
    st = position(m, players=2, phase=Phase.ACTIONS, guards={0: ((0, 1),)}, hands={0: hand(T), 1: hand()})
    st = replace(st, face_up=(None, None), supply=(), discard=hand())
    player, rng = GreedyPlayer(noise=0.0), random.Random(0)
    kinds = []
    while not kinds or kinds[-1] != "EndTurn":
        action = player(st, rng)
        kinds.append(type(action).__name__)
        st, _ = apply(st, action)
    assert kinds == ["Occupy", "Levy", "EndTurn"]
    assert st.players[0].score == 4 and st.players[1].score == 0


def test_play_game_rejects_a_wrong_number_of_players() -> None:
    with pytest.raises(ValueError):
        play_game(EMPIRE, 3, 1, ai=["greedy", "random"])


def test_random_player_in_move_phase_uses_every_way_over_many_seeds() -> None:
    ways = set()
    for seed in range(30):
        st, _ = new_game(EMPIRE, 2, seed)
        mv = random_player(st, random.Random(seed))
        assert isinstance(mv, Move)
        ways.add(mv.way)
        apply(st, mv)
    assert len(ways) >= 2
