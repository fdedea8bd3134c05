"""R2 (components and setup) and R3 (moving Alexander)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine import rules
from engine.actions import CardSource, EndTurn, Move, MoveWay, TakeCard
from engine.errors import IllegalAction
from engine.events import AlexanderMoved, CardTaken, FaceUpTurned, MoveSkipped
from engine.game import apply, new_game
from engine.maps import SideKind
from engine.state import COLOURS, GUARDS_PER_PLAYER, EndReason, Options, Phase
from engine.symbols import NO_CARDS, SYMBOLS, add, total
from tests.engine.helpers import A, H, L, S, T, hand, make_map, position, pt, sd

SMALL = make_map(
    """
.T.A.H.L.S~~
S.L.H.A.T..~
.T.A.H.L.S..
"""
)


def _all_cards(st) -> tuple[int, ...]:  # type: ignore[no-untyped-def]
    counts = st.discard
    for p in st.players:
        counts = add(counts, p.hand)
    for c in list(st.supply) + [c for c in st.face_up if c is not None]:
        counts = add(counts, tuple(1 if s is c else 0 for s in SYMBOLS))  # type: ignore[arg-type]
    return counts


def test_r2_1_components() -> None:
    st, _ = new_game(SMALL, 4, seed=3)
    assert _all_cards(st) == (11, 11, 11, 11, 11)
    assert all(p.guards_in_supply == GUARDS_PER_PLAYER == 4 and p.score == 0 for p in st.players)
    assert (st.black_left, st.red_left) == (65, 10)


def test_r2_1_map_may_declare_wall_counts() -> None:
    m = make_map(".T.A.", walls="12 black, 3 red")
    st, _ = new_game(m, 2, seed=1)
    assert (st.black_left, st.red_left) == (12, 3)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_r2_2_player_counts_and_colours(players: int) -> None:
    st, _ = new_game(SMALL, players, seed=1)
    assert len(st.players) == players
    assert COLOURS[:players] == ("red", "yellow", "blue", "green")[:players]


@pytest.mark.parametrize("players", [1, 5])
def test_r2_2_refuses_other_player_counts(players: int) -> None:
    with pytest.raises(IllegalAction) as err:
        new_game(SMALL, players, seed=1)
    assert err.value.code == "game/bad-setup"


def test_r2_3_alexander_starts_on_the_start_point() -> None:
    st, _ = new_game(SMALL, 2, seed=1)
    assert st.alexander == SMALL.start == (0, 1)


def test_r2_4_deal_one_card_each_two_face_up_rest_is_supply() -> None:
    st, events = new_game(SMALL, 3, seed=11)
    assert [total(p.hand) for p in st.players] == [1, 1, 1]
    assert all(c is not None for c in st.face_up)
    assert len(st.supply) == 55 - 3 - 2
    assert sum(isinstance(e, CardTaken) for e in events) == 3
    assert sum(isinstance(e, FaceUpTurned) for e in events) == 2


def test_r2_4_starting_player_is_random_and_seeded() -> None:
    firsts = {new_game(SMALL, 4, seed=s)[0].current for s in range(40)}
    assert firsts == {0, 1, 2, 3}
    assert new_game(SMALL, 4, seed=5)[0] == new_game(SMALL, 4, seed=5)[0]


def test_r2_4_play_goes_clockwise() -> None:
    st = position(SMALL, players=3, current=1, phase=Phase.ACTIONS)
    after, _ = apply(st, EndTurn(1))
    assert after.current == 2
    after = replace(after, phase=Phase.ACTIONS)
    assert apply(after, EndTurn(2))[0].current == 0


def test_r3_1a_normal_move_takes_face_up_card_and_replaces_it_at_once() -> None:
    st = position(SMALL, face_up=(T, L), hands={0: NO_CARDS, 1: NO_CARDS})
    (target,) = rules.targets(st, T)[:1]
    path = next(rules.shortest_paths(st, target.corners[0].point))
    after, events = apply(st, Move(0, MoveWay.NORMAL, path, slot=0))
    assert after.players[0].hand == hand(T)
    assert after.face_up[0] == st.supply[0] and after.face_up[1] is L
    assert [type(e).__name__ for e in events][:2] == ["CardTaken", "FaceUpTurned"]


def test_r3_1b_special_move_discards_from_hand_and_keeps_face_up_cards() -> None:
    st = position(SMALL, face_up=(T, L), hands={0: hand(H), 1: NO_CARDS})
    target = rules.targets(st, H)[0]
    path = next(rules.shortest_paths(st, target.corners[0].point))
    after, _ = apply(st, Move(0, MoveWay.SPECIAL, path, card=H))
    assert after.players[0].hand == NO_CARDS
    assert after.face_up == st.face_up
    assert after.discard == add(st.discard, hand(H))


def _without_empty(symbol, st):  # type: ignore[no-untyped-def]
    """Put a wall on a side of every space of ``symbol`` so that none is empty."""
    walls = {st.map.space_sides[s][0] for s in st.map.symbol_spaces if st.map.symbol[s] is symbol}
    return replace(st, walls=st.walls | frozenset(walls))


def test_r3_1c_joker_only_for_face_up_card_without_empty_space() -> None:
    st = _without_empty(A, position(SMALL, face_up=(A, L), hands={0: hand(A), 1: NO_CARDS}))
    choices = rules.move_choices(st)
    jokers = {c.symbol for c in choices if c.way is MoveWay.JOKER}
    assert jokers == {T, H, L, S}
    assert all(c.slot == 0 for c in choices if c.way is MoveWay.JOKER)
    # The hand's amphora has no empty space: no special move with it.
    assert not any(c.way is MoveWay.SPECIAL for c in choices)
    target = rules.targets(st, S)[0]
    path = next(rules.shortest_paths(st, target.corners[0].point))
    after, _ = apply(st, Move(0, MoveWay.JOKER, path, slot=0, named=S))
    assert after.players[0].hand == hand(A, A)
    with pytest.raises(IllegalAction) as err:
        apply(st, Move(0, MoveWay.JOKER, path, slot=1, named=S))
    assert err.value.code == "move/joker-not-allowed"
    with pytest.raises(IllegalAction) as err:
        apply(st, Move(0, MoveWay.SPECIAL, path, card=A))
    assert err.value.code == "move/no-empty-space"


def test_r3_1c_hand_card_is_never_a_joker() -> None:
    st = _without_empty(A, position(SMALL, face_up=(T, L), hands={0: hand(A), 1: NO_CARDS}))
    target = rules.targets(st, S)[0]
    path = next(rules.shortest_paths(st, target.corners[0].point))
    with pytest.raises(IllegalAction) as err:
        apply(st, Move(0, MoveWay.SPECIAL, path, card=A, named=S))
    assert err.value.code == "move/unexpected-symbol"


def test_r3_2_distance_counts_sides_and_ignores_walls_and_guards() -> None:
    m = SMALL
    walls = (sd("A1", "A3", m), sd("A1", "B2", m), sd("A1", "B0", m))
    st = position(m, walls=walls, guards={1: ((1, 0),)})
    assert rules.space_distance(st, (2, 1)) == 2  # C2 via walled sides and past a guard


def test_r3_3_empty_spaces() -> None:
    m = SMALL
    st = position(m, alexander="B4")
    empty = rules.empty_spaces(st)
    # Alexander's point touches the spaces around B4 (D1): none of them is empty.
    assert not set(m.point_spaces[pt("B4", m)]) & empty
    walled = position(m, walls=(sd("C5", "D6", m),))  # the lower left side of (2,5), the horse
    assert (2, 5) not in rules.empty_spaces(walled)
    # A wall that only touches a corner does not count.
    corner_only = position(m, walls=(sd("C7", "D8", m),))
    assert (2, 5) in rules.empty_spaces(corner_only)
    guarded = position(m, guards={0: ((2, 5),)})
    assert (2, 5) not in rules.empty_spaces(guarded)


def test_r3_3_coast_side_is_not_a_wall() -> None:
    m = SMALL
    st = position(m)
    coast = [s for s in m.symbol_spaces if any(m.side_kind[x] is SideKind.COAST for x in m.space_sides[s])]
    assert coast and all(s in rules.empty_spaces(st) for s in coast if st.alexander not in _corners(s))


def _corners(space):  # type: ignore[no-untyped-def]
    from engine.geometry import corners

    return corners(space)


def test_r3_4_any_corner_and_any_shortest_path() -> None:
    m = SMALL
    st = position(m, face_up=(H, L))
    (target,) = [t for t in rules.targets(st, H)][:1]
    for corner in target.corners:
        paths = list(rules.shortest_paths(st, corner.point))
        assert len(paths) == corner.paths
        for path in paths:
            after, _ = apply(st, Move(0, MoveWay.NORMAL, path, slot=0))
            assert after.alexander == corner.point


def test_r3_4_path_must_be_shortest_and_end_on_a_corner_of_a_target() -> None:
    m = SMALL
    st = position(m, face_up=(H, L))
    target = rules.targets(st, H)[0]
    far = max(target.corners, key=lambda c: c.distance)
    good = next(rules.shortest_paths(st, far.point))
    detour = good[:1] + (pt("B0", m), good[0]) + good[1:]
    with pytest.raises(IllegalAction) as err:
        apply(st, Move(0, MoveWay.NORMAL, detour, slot=0))
    assert err.value.code == "move/not-shortest"
    elsewhere = (st.alexander, pt("A3", m))  # A3 is a corner of no horse space
    assert not any(m.symbol[s] is H for s in m.point_spaces[elsewhere[-1]])
    with pytest.raises(IllegalAction) as err:
        apply(st, Move(0, MoveWay.NORMAL, elsewhere, slot=0))
    assert err.value.code == "move/wrong-symbol"


# Two rows of land above a sea: line C is coast. Alexander starts on C1.
COASTAL = make_map("......\nT..A..\n~~~~~~~~", start="C1")


def test_r3_5_walls_go_on_coast_sides_too() -> None:
    m = COASTAL
    st = position(m, face_up=(A, L))
    path = (pt("C1", m), pt("C3", m), pt("C5", m))  # along the coast to the far corner of (1,3)
    assert [m.side_kind[x] for x in rules.new_walls(st, path)] == [SideKind.COAST, SideKind.COAST]
    after, _ = apply(st, Move(0, MoveWay.NORMAL, path, slot=0))
    assert after.black_left == st.black_left - 2


def test_r3_5_walls_go_on_edge_sides_too() -> None:
    m = make_map("T..A~~\n......", start="A1")
    st = position(m, face_up=(A, L))
    path = (pt("A1", m), pt("A3", m), pt("A5", m))  # along the top edge of the map
    assert [m.side_kind[x] for x in rules.new_walls(st, path)] == [SideKind.EDGE, SideKind.EDGE]
    after, _ = apply(st, Move(0, MoveWay.NORMAL, path, slot=0))
    assert after.black_left == st.black_left - 2


def test_r3_6_using_the_last_black_wall_exactly_does_not_end() -> None:
    m = make_map("T..........\n......A....", walls="3 black, 10 red")
    st = position(m, face_up=(A, L))
    path = (pt("A1", m), pt("A3", m), pt("A5", m), pt("B6", m))
    after, events = apply(st, Move(0, MoveWay.NORMAL, path, slot=0))
    assert (after.black_left, after.red_left) == (0, 10)
    assert after.ending is None
    final, _ = apply(after, EndTurn(0))
    assert final.phase is Phase.MOVE and final.current == 1


WALL_POOR = make_map(
    """
T..........
......A....
..L........
""",
    walls="1 black, 1 red",
)


def test_r3_7_move_needing_more_walls_than_left_is_refused_when_another_fits() -> None:
    m = WALL_POOR
    # The amphora needs 3 walls; a lyre move (distance 2, 2 walls) fits.
    st = position(m, face_up=(A, L))
    path = (pt("A1", m), pt("A3", m), pt("A5", m), pt("B6", m))
    with pytest.raises(IllegalAction) as err:
        apply(st, Move(0, MoveWay.NORMAL, path, slot=0))
    assert err.value.code == "move/too-many-walls"
    assert err.value.details == {"needed": 3, "left": 2, "fewest": 2}


def test_r3_7_when_no_move_fits_the_fewest_walls_move_places_what_is_left() -> None:
    m = WALL_POOR
    st = position(m, face_up=(A, T), hands={0: NO_CARDS, 1: NO_CARDS})
    st = replace(st, face_up=(A, None))
    path = (pt("A1", m), pt("A3", m), pt("A5", m), pt("B6", m))
    after, events = apply(st, Move(0, MoveWay.NORMAL, path, slot=0))
    moved = next(e for e in events if isinstance(e, AlexanderMoved))
    assert len(moved.black) == 1 and len(moved.red) == 1 and moved.walls_ran_out
    assert after.ending is EndReason.WALLS


def test_r3_7_when_no_move_fits_a_move_with_more_than_the_fewest_walls_is_refused() -> None:
    m = make_map(WALL_POOR.text.split("grid:\n", 1)[1], walls="1 black, 0 red")
    st = position(m, face_up=(A, None), hands={0: NO_CARDS, 1: NO_CARDS})
    # B6 needs 3 walls, the fewest of any move; B8, another corner of the amphora, needs 4.
    path = (pt("A1", m), pt("A3", m), pt("A5", m), pt("A7", m), pt("B8", m))
    with pytest.raises(IllegalAction) as err:
        apply(st, Move(0, MoveWay.NORMAL, path, slot=0))
    assert err.value.code == "move/not-fewest-walls"
    assert err.value.details == {"needed": 4, "fewest": 3, "left": 1}


def test_r3_8_no_empty_symbol_space_skips_the_move_and_ends_after_actions() -> None:
    st = position(SMALL, players=2, current=1, phase=Phase.ACTIONS)
    for s in SYMBOLS:
        st = _without_empty(s, st)
    after, events = apply(st, EndTurn(1))
    assert any(isinstance(e, MoveSkipped) and e.game_ends for e in events)
    assert after.phase is Phase.ACTIONS and after.current == 0
    after, _ = apply(after, TakeCard(0, CardSource.SUPPLY))
    final, _ = apply(after, EndTurn(0))
    assert final.phase is Phase.OVER and final.result is not None
    assert final.result.reason is EndReason.NO_SPACE


def test_d2_coast_walls_option_leaves_coast_and_edge_sides_bare() -> None:
    m = COASTAL
    st = position(m, face_up=(A, L), options=Options(coast_walls=False))
    path = (pt("C1", m), pt("C3", m), pt("C5", m))
    after, _ = apply(st, Move(0, MoveWay.NORMAL, path, slot=0))
    assert after.walls == frozenset() and after.black_left == st.black_left


def test_d2_coast_walls_are_placed_by_default() -> None:
    st = position(COASTAL, face_up=(A, L))
    assert st.options.coast_walls is True


def test_r3_7_queries_offer_exactly_the_paths_apply_accepts() -> None:
    m = WALL_POOR  # 1 black + 1 red left
    fits = position(m, face_up=(A, L))  # the lyre fits in 2 walls, so the amphora (3) is out
    assert rules.walls_allowed(fits, 2) and not rules.walls_allowed(fits, 3)
    assert rules.legal_path_options(fits, pt("B6", m)) == []
    stuck = position(m, face_up=(A, None), hands={0: NO_CARDS, 1: NO_CARDS})  # no move fits: fewest is 3
    assert rules.walls_allowed(stuck, 3) and not rules.walls_allowed(stuck, 4)
    b6, b8 = rules.corner_option(stuck, pt("B6", m)), rules.corner_option(stuck, pt("B8", m))
    assert rules.corner_allowed(stuck, b6) and not rules.corner_allowed(stuck, b8)
    for st in (fits, stuck):
        for choice in rules.move_choices(st):
            for target in rules.targets(st, choice.symbol):
                for corner in target.corners:
                    offered = rules.legal_path_options(st, corner.point)
                    for option in rules.path_options(st, corner.point):
                        move = Move(0, choice.way, option.points, slot=choice.slot, card=choice.card)
                        try:
                            apply(st, move)
                            accepted = True
                        except IllegalAction:
                            accepted = False
                        assert accepted == (option in offered), (corner.point, option)
