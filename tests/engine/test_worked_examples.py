"""The eight worked examples of ALEXANDROS.md §11, each on a small hand-drawn map."""

from __future__ import annotations

import pytest

from engine import rules
from engine.actions import CardSource, EndTurn, Levy, Move, MoveWay, Occupy, TakeCard, TakeOver
from engine.errors import IllegalAction
from engine.events import AlexanderMoved, CardsGiven, GameEnded, Scored
from engine.game import apply
from engine.state import EndReason, GameState, Phase
from engine.symbols import NO_CARDS, add, total
from tests.engine.helpers import A, H, L, S, T, hand, make_map, position, pt, sd

# Alexander on A1. Horse spaces at (0,4) (2 sides away) and (0,6) (3 sides away); soldiers at (1,3),
# (1,4) and (2,1), all 2 sides away.
EXAMPLE_1 = make_map(
    """
....H.H....
...SS......
.S.........
"""
)


def test_example_1_r3_2_closest_horse_is_the_only_target() -> None:
    st = position(EXAMPLE_1, face_up=(H, L))
    distance, spaces = rules.closest_targets(st, H)
    assert (distance, spaces) == (2, [(0, 4)])
    assert rules.space_distance(st, (0, 6)) == 3


def test_example_1_r3_2_farther_horse_is_refused_with_both_distances() -> None:
    st = position(EXAMPLE_1, face_up=(H, L))
    far_path = (pt("A1", EXAMPLE_1), pt("A3", EXAMPLE_1), pt("A5", EXAMPLE_1), pt("A7", EXAMPLE_1))
    with pytest.raises(IllegalAction) as err:
        apply(st, Move(0, MoveWay.NORMAL, far_path, slot=0))
    assert err.value.code == "move/not-closest"
    assert err.value.details["distance"] == 3 and err.value.details["closest"] == 2


def test_example_1_r3_2_tied_soldier_spaces_offer_every_corner() -> None:
    st = position(EXAMPLE_1, face_up=(S, L))
    found = rules.targets(st, S)
    assert [t.space for t in found] == [(1, 3), (1, 4), (2, 1)]
    assert all(t.distance == 2 for t in found)
    points = {c.point for t in found for c in t.corners}
    # Nine corners, fewer where spaces share them: B4 and C5 by (1,3) and (1,4), C3 by (1,3) and (2,1).
    assert len(points) == 6 and sum(len(t.corners) for t in found) == 9


# Alexander on A1; the only amphora at (1,6), whose corner B6 is 3 sides away by three shortest paths.
EXAMPLE_2 = make_map(
    """
T..........
......A....
....H.L.S..
"""
)


def test_example_2_r3_4_three_paths_two_reuse_a_wall() -> None:
    m = EXAMPLE_2
    st = position(m, face_up=(A, L), walls=(sd("B4", "B6", m),))
    corner = rules.corner_option(st, pt("B6", m))
    assert (corner.distance, corner.paths, corner.fewest_walls, corner.most_walls) == (3, 3, 2, 3)
    options = rules.path_options(st, pt("B6", m))
    assert sorted(len(o.new_walls) for o in options) == [2, 2, 3]


def test_example_2_r3_5_move_places_only_new_walls() -> None:
    m = EXAMPLE_2
    st = position(m, face_up=(A, L), walls=(sd("B4", "B6", m),))
    path = (pt("A1", m), pt("B2", m), pt("B4", m), pt("B6", m))
    after, events = apply(st, Move(0, MoveWay.NORMAL, path, slot=0))
    moved = next(e for e in events if isinstance(e, AlexanderMoved))
    assert moved.black == (sd("A1", "B2", m), sd("B2", "B4", m))
    assert after.black_left == st.black_left - 2
    assert after.alexander == pt("B6", m)


def test_example_3_r3_5_move_along_existing_walls_places_nothing() -> None:
    m = EXAMPLE_2
    walls = (sd("A1", "B2", m), sd("B2", "B4", m), sd("B4", "B6", m))
    st = position(m, face_up=(A, L), walls=walls)
    path = (pt("A1", m), pt("B2", m), pt("B4", m), pt("B6", m))
    after, events = apply(st, Move(0, MoveWay.NORMAL, path, slot=0))
    moved = next(e for e in events if isinstance(e, AlexanderMoved))
    assert moved.black == () and moved.red == ()
    assert after.walls == st.walls and after.black_left == st.black_left


# A strip of two rows. Yellow (seat 1) guards the horse at (0,1). Alexander on A5 goes to the soldier
# at (1,5) by its corner C5, cutting the strip between columns 3 and 4.
EXAMPLE_4 = make_map(
    """
TH.A.A...
.LT..S.H.
""",
    start="A5",
)


def test_example_4_r4_4_split_keeps_yellow_part_and_frees_the_other() -> None:
    m = EXAMPLE_4
    st = position(m, players=2, face_up=(S, T), guards={1: ((0, 1),)}, hands={0: hand(A, S), 1: NO_CARDS})
    assert len(st.provinces) == 1 and rules.province_owner(st, st.provinces[0]) == 1
    path = (pt("A5", m), pt("B4", m), pt("C5", m))
    after, _ = apply(st, Move(0, MoveWay.NORMAL, path, slot=0))
    assert len(after.provinces) == 2
    yellow = after.province_by_id[after.province_of[(0, 1)]]
    other = after.province_by_id[after.province_of[(0, 5)]]
    assert rules.province_owner(after, yellow) == 1 and rules.province_value(after, yellow) == 3
    assert rules.province_owner(after, other) is None
    # Red occupies the freed part in the same turn: a guard on the horse, a card for amphora and soldier.
    done, _ = apply(after, Occupy(0, other.id, ((1, 7),)))
    assert rules.province_owner(done, done.province_by_id[other.id]) == 0
    assert done.players[0].hand == hand(S)  # the soldier card taken for the move is left


def test_example_4_r3_3_guarded_soldier_space_is_not_a_target() -> None:
    m = EXAMPLE_4
    st = position(m, players=2, face_up=(S, T), guards={1: ((1, 5),)})
    path = (pt("A5", m), pt("B4", m), pt("C5", m))
    assert rules.closest_targets(st, S) == (-1, [])
    with pytest.raises(IllegalAction) as err:
        apply(st, Move(0, MoveWay.NORMAL, path, slot=0))
    assert err.value.code == "move/no-empty-space"


# One province: two temples, a horse, an amphora, a lyre and a soldier, and nine open spaces.
EXAMPLE_5 = make_map(
    """
T.H.A.L.S
T.....
""",
    start="A1",
)


def test_example_5_r6_2_occupy_with_extra_guard() -> None:
    st = position(EXAMPLE_5, players=2, phase=Phase.ACTIONS, hands={0: hand(T, A, L, S, H), 1: NO_CARDS})
    (province,) = st.provinces
    assert rules.province_value(st, province) == 9
    assert len(rules.province_symbol_spaces(st, province)) == 6
    after, _ = apply(st, Occupy(0, province.id, ((0, 0), (0, 2))))
    assert after.players[0].hand == hand(H)  # paid temple, amphora, lyre and soldier
    assert after.players[0].guards == {(0, 0), (0, 2)}
    assert after.discard == add(st.discard, hand(T, A, L, S))
    assert rules.levy_scores(after)[0] == (0, ())  # two red guards: the province scores nothing


@pytest.mark.parametrize("players", [4, 2])
def test_example_6_r6_3_r6_4_take_over(players: int) -> None:
    paid_hand = hand(T, T, H, H, T, H, A, S, T)
    st = position(
        EXAMPLE_5,
        players=players,
        current=1,
        phase=Phase.ACTIONS,
        guards={0: ((0, 0), (0, 2))},
        hands={0: NO_CARDS, 1: paid_hand},
    )
    (province,) = st.provinces
    plan_cost = rules.occupation_cost(st, province, ((0, 6),))
    assert plan_cost == hand(T, H, A, S, T)
    assert rules.removal_cost(st, province) == hand(T, T, H, H)
    give = hand(T, T, H, H, A) if players == 4 else NO_CARDS
    after, events = apply(st, TakeOver(1, province.id, ((0, 6),), compensation=give))
    assert after.players[0].guards == frozenset() and after.players[0].guards_in_supply == 4
    assert after.players[1].guards == {(0, 6)}
    assert after.players[1].hand == NO_CARDS
    if players == 4:
        assert total(after.players[0].hand) == 5  # half of nine, rounded up, chosen by the taker
        assert after.players[0].hand == give
        assert any(isinstance(e, CardsGiven) for e in events)
    else:
        assert after.players[0].hand == NO_CARDS
        assert not any(isinstance(e, CardsGiven) for e in events)


# Islands, each its own province. Open values: 8 and 4 (red, one guard each), 8 (red, two guards),
# 4 (yellow), 9 (blue), 6 (green).
# The temples at (1,15) and (3,15) touch the island above only at a corner: the land is connected.
EXAMPLE_7 = make_map(
    """
S........~H....
~~~~~~~~~~~~~~~T
SL........~T....
~~~~~~~~~~~~~~~T
A.........~L......
""",
    walls="65 black, 10 red",
)


def _levy_position(levier: int) -> GameState:
    guards = {
        levier: ((0, 0), (0, 10), (2, 0), (2, 1)),
        (levier + 1) % 4: ((2, 11),),
        (levier + 2) % 4: ((4, 0),),
        (levier + 3) % 4: ((4, 11),),
    }
    return position(
        EXAMPLE_7,
        players=4,
        current=levier,
        phase=Phase.ACTIONS,
        guards=guards,
        hands={levier: hand(S)},
    )


def test_example_7_r7_3_everyone_scores_in_clockwise_order() -> None:
    st = _levy_position(2)
    after, events = apply(st, Levy(2, S))
    scored = [(e.player, e.points) for e in events if isinstance(e, Scored)]
    assert scored == [(2, 12), (3, 4), (0, 9), (1, 6)]
    assert [p.score for p in after.players] == [9, 6, 12, 4]
    assert after.players[2].hand == NO_CARDS


# A straight strip; Alexander on A1 must walk 3 sides to the only amphora's corner B6.
EXAMPLE_8 = make_map(
    """
T..........
......A....
""",
    walls="2 black, 10 red",
)


def test_example_8_r3_6_r10_1_end_by_walls() -> None:
    m = EXAMPLE_8
    st = position(m, face_up=(A, L))
    path = (pt("A1", m), pt("A3", m), pt("A5", m), pt("B6", m))
    after, events = apply(st, Move(0, MoveWay.NORMAL, path, slot=0))
    moved = next(e for e in events if isinstance(e, AlexanderMoved))
    assert len(moved.black) == 2 and len(moved.red) == 1 and moved.walls_ran_out
    assert (after.black_left, after.red_left) == (0, 9)
    after, _ = apply(after, TakeCard(0, CardSource.SUPPLY))
    after, _ = apply(after, TakeCard(0, CardSource.SUPPLY))
    assert after.phase is Phase.ACTIONS  # both actions were still allowed
    final, events = apply(after, EndTurn(0))
    ended = events[-1]
    assert isinstance(ended, GameEnded) and ended.reason is EndReason.WALLS
    assert final.phase is Phase.OVER
