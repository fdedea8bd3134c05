"""R4 (provinces), R5-R8 (the actions), R10 (the end) and the decisions D3-D12."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine import rules
from engine.actions import (
    CardSource,
    EndByAgreement,
    EndTurn,
    Levy,
    Move,
    MoveWay,
    Occupy,
    Resign,
    SkipTurn,
    TakeBack,
    TakeCard,
    TakeOver,
)
from engine.errors import IllegalAction
from engine.events import GameEnded, ProvinceSplit, SupplyShuffled
from engine.game import apply
from engine.state import EndReason, GameState, Phase
from engine.symbols import NO_CARDS, add, total
from tests.engine.helpers import (
    CUT,
    STRIP,
    A,
    H,
    L,
    S,
    T,
    hand,
    make_map,
    position,
    pt,
    takeover_position,
)

# Islands (see worked example 7). The temples at (1,15) and (3,15) join the island below them by a side and
# touch the island above only at a corner: six provinces, and land that Alexander can walk across.
ISLANDS = make_map(
    """
S........~H....
~~~~~~~~~~~~~~~T
SL........~T....
~~~~~~~~~~~~~~~T
A.........~L......
"""
)


def test_r4_1_provinces_are_worked_out_again_after_walls() -> None:
    st = position(STRIP, face_up=(S, T), hands={0: NO_CARDS, 1: NO_CARDS})
    assert len(st.provinces) == 1
    path = (pt("A5", STRIP), pt("B4", STRIP), pt("C5", STRIP))
    after, events = apply(st, Move(0, MoveWay.NORMAL, path, slot=0))
    split = [e for e in events if isinstance(e, ProvinceSplit)]
    assert len(split) == 1 and split[0].province == 1
    assert sorted(len(p.spaces) for p in after.provinces) == [8, 10]
    assert after.province_by_id[1].spaces == frozenset(s for s in STRIP.spaces if s[1] >= 4)


def test_r4_1_islands_are_separate_provinces_from_the_start() -> None:
    st = position(ISLANDS, players=4)
    assert len(st.provinces) == 6


def test_r4_2_a_wall_that_closes_no_ring_splits_nothing() -> None:
    bare = position(STRIP, alexander="C1")
    walled = position(STRIP, alexander="C1", walls=(CUT[0],))
    assert len(walled.provinces) == 1
    # It only stops the spaces beside it from being empty: the amphora at (0,3).
    assert (0, 3) in rules.empty_spaces(bare) and (0, 3) not in rules.empty_spaces(walled)


def test_r4_3_provinces_never_merge_and_ids_are_stable() -> None:
    st = position(STRIP, walls=CUT)
    ids = {p.id: p.spaces for p in st.provinces}
    after, _ = apply(replace(st, phase=Phase.ACTIONS), EndTurn(0))
    assert {p.id: p.spaces for p in after.provinces} == ids


def test_r4_3_occupied_province_cannot_get_a_second_owner() -> None:
    st = position(STRIP, phase=Phase.ACTIONS, guards={1: ((0, 0),)}, hands={0: hand(T, H, A, L, T, S, H, A)})
    with pytest.raises(IllegalAction) as err:
        apply(st, Occupy(0, 1, ((0, 1),)))
    assert err.value.code == "occupy/not-free"


def test_r4_4_part_with_guards_stays_occupied_part_without_becomes_free() -> None:
    one_side = position(STRIP, walls=CUT, guards={1: ((0, 1),)})
    assert {len(p.spaces): rules.province_owner(one_side, p) for p in one_side.provinces} == {8: 1, 10: None}
    both_sides = position(STRIP, walls=CUT, guards={1: ((0, 1), (1, 7))})
    assert {len(p.spaces): rules.province_owner(both_sides, p) for p in both_sides.provinces} == {8: 1, 10: 1}


def test_r4_5_value_is_the_number_of_open_spaces() -> None:
    st = position(STRIP, walls=CUT)
    values = sorted(rules.province_value(st, p) for p in st.provinces)
    assert values == [3, 7]


def test_r4_5_province_without_symbol_space_cannot_be_occupied() -> None:
    m = make_map("T.~..\n~~~~~", start="A1")
    st = position(m, phase=Phase.ACTIONS, hands={0: hand(T)})
    bare = st.province_by_id[st.province_of[(0, 3)]]
    with pytest.raises(IllegalAction) as err:
        apply(st, Occupy(0, bare.id, ((0, 3),)))
    assert err.value.code == "occupy/no-symbol-space"


def test_r5_1_take_face_up_or_supply_card() -> None:
    st = position(STRIP, phase=Phase.ACTIONS, face_up=(T, L), hands={0: NO_CARDS, 1: NO_CARDS})
    a, _ = apply(st, TakeCard(0, CardSource.FACE_UP, 0))
    assert a.players[0].hand == hand(T) and a.face_up == (None, L)
    b, _ = apply(st, TakeCard(0, CardSource.SUPPLY))
    assert total(b.players[0].hand) == 1 and b.supply == st.supply[1:]


def test_r5_2_face_up_cards_taken_by_actions_are_replaced_at_end_of_turn() -> None:
    st = position(STRIP, phase=Phase.ACTIONS, face_up=(T, L), hands={0: NO_CARDS, 1: NO_CARDS})
    st, _ = apply(st, TakeCard(0, CardSource.FACE_UP, 0))
    st, _ = apply(st, TakeCard(0, CardSource.FACE_UP, 1))
    assert st.face_up == (None, None) and st.players[0].hand == hand(T, L)
    with pytest.raises(IllegalAction) as err:
        apply(replace(st, actions_taken=()), TakeCard(0, CardSource.FACE_UP, 0))
    assert err.value.code == "card/slot-empty"
    after, _ = apply(st, EndTurn(0))
    assert after.face_up == (st.supply[0], st.supply[1])


def test_r5_3_empty_supply_is_reshuffled_from_discard() -> None:
    st = position(STRIP, phase=Phase.ACTIONS, supply=(), discard=hand(T, T, H), hands={0: NO_CARDS})
    after, events = apply(st, TakeCard(0, CardSource.SUPPLY))
    assert any(isinstance(e, SupplyShuffled) and e.from_discard for e in events)
    assert total(after.players[0].hand) == 1 and len(after.supply) == 2 and after.discard == NO_CARDS


def test_r5_3_nothing_to_draw_leaves_slot_empty_and_refuses_supply() -> None:
    st = position(STRIP, phase=Phase.ACTIONS, supply=(), discard=NO_CARDS, face_up=(T, L))
    with pytest.raises(IllegalAction) as err:
        apply(st, TakeCard(0, CardSource.SUPPLY))
    assert err.value.code == "card/supply-empty"
    st, _ = apply(st, TakeCard(0, CardSource.FACE_UP, 0))
    after, _ = apply(st, EndTurn(0))
    assert after.face_up == (None, L)


def test_r5_4_no_hand_limit() -> None:
    st = position(STRIP, phase=Phase.ACTIONS, hands={0: (9, 9, 9, 9, 9)})
    after, _ = apply(st, TakeCard(0, CardSource.SUPPLY))
    assert total(after.players[0].hand) == 46


def test_r6_1_occupy_pays_for_every_other_symbol_space() -> None:
    st = position(STRIP, phase=Phase.ACTIONS, walls=CUT, hands={0: hand(T, A, L, T, H)})
    left = st.province_of[(0, 0)]
    after, _ = apply(st, Occupy(0, left, ((0, 1),)))  # guard on the horse; pay T, A, L, T
    assert after.players[0].hand == hand(H)
    assert after.players[0].guards == {(0, 1)}


def test_r6_1_occupy_refuses_missing_cards_and_names_them() -> None:
    st = position(STRIP, phase=Phase.ACTIONS, walls=CUT, hands={0: hand(T)})
    with pytest.raises(IllegalAction) as err:
        apply(st, Occupy(0, st.province_of[(0, 0)], ((0, 1),)))
    assert err.value.code == "occupy/missing-cards"
    assert err.value.details["missing"] == hand(T, A, L)


def test_r6_2_guards_only_on_symbol_spaces_one_per_space() -> None:
    st = position(STRIP, phase=Phase.ACTIONS, walls=CUT, hands={0: (5, 5, 5, 5, 5)})
    pid = st.province_of[(0, 0)]
    for guards, code in [
        (((0, 2),), "occupy/open-space"),
        (((0, 1), (0, 1)), "occupy/duplicate-space"),
        (((0, 5),), "occupy/outside-province"),
        ((), "occupy/no-guard"),
    ]:
        with pytest.raises(IllegalAction) as err:
            apply(st, Occupy(0, pid, guards))
        assert err.value.code == code
    few = replace(st, players=(replace(st.players[0], guards=frozenset({(0, 5), (0, 8)})),) + st.players[1:])
    with pytest.raises(IllegalAction) as err:
        apply(few, Occupy(0, pid, ((0, 0), (0, 1), (0, 3))))
    assert err.value.code == "occupy/not-enough-guards"


def test_r6_3_take_over_is_all_or_nothing() -> None:
    st = position(
        STRIP,
        players=3,
        phase=Phase.ACTIONS,
        walls=CUT,
        guards={1: ((0, 1),)},
        hands={0: hand(H, H, T, A, L)},
    )  # HH removes the guard; its horse space needs a third H
    pid = st.province_of[(0, 0)]
    with pytest.raises(IllegalAction) as err:
        apply(st, TakeOver(0, pid, ((0, 0),), compensation=hand(H, H, T)))
    assert err.value.code == "takeover/missing-cards"
    assert err.value.details["missing"] == hand(H)
    assert st.players[1].guards == {(0, 1)}  # nothing happened: the state is a value


def test_r6_3_removed_guards_spaces_count_for_the_new_occupation() -> None:
    st = takeover_position(2)
    pid = st.province_of[(0, 0)]
    # The taker's guard goes on the horse space the removed guard left; T, A, L, T pay the rest.
    after, _ = apply(st, TakeOver(0, pid, ((0, 1),)))
    assert after.players[0].guards == {(0, 1)} and after.players[1].guards == frozenset()
    assert after.players[0].hand == NO_CARDS


def test_r6_4_compensation_must_be_half_rounded_up_of_paid_cards() -> None:
    st = takeover_position(3)
    pid = st.province_of[(0, 0)]
    for bad in (hand(H, H), hand(S, S, S), hand(H, H, T, A)):
        with pytest.raises(IllegalAction) as err:
            apply(st, TakeOver(0, pid, ((0, 1),), compensation=bad))
        assert err.value.code == "takeover/bad-compensation"
        assert err.value.details["expected"] == 3
    after, _ = apply(st, TakeOver(0, pid, ((0, 1),), compensation=hand(H, A, L)))
    assert after.players[1].hand == add(st.players[1].hand, hand(H, A, L))


def test_r6_4_p11_a_three_player_game_with_one_resigned_still_compensates() -> None:
    """R6.4's "2-player game" is the game as it was set up (P11): a resignation does not make a 3-player
    game a 2-player one, so the loser of a province is still compensated."""
    st = takeover_position(3)
    st, _ = apply(st, Resign(2))
    pid = st.province_of[(0, 0)]
    with pytest.raises(IllegalAction) as err:
        apply(st, TakeOver(0, pid, ((0, 1),)))
    assert err.value.code == "takeover/bad-compensation" and err.value.details["expected"] == 3
    after, _ = apply(st, TakeOver(0, pid, ((0, 1),), compensation=hand(H, A, L)))
    assert after.players[1].hand == add(st.players[1].hand, hand(H, A, L))


def test_r6_5_cannot_take_over_own_province() -> None:
    st = position(STRIP, phase=Phase.ACTIONS, walls=CUT, guards={0: ((0, 1),)}, hands={0: (5, 5, 5, 5, 5)})
    with pytest.raises(IllegalAction) as err:
        apply(st, TakeOver(0, st.province_of[(0, 0)], ((0, 0),)))
    assert err.value.code == "takeover/own-province"
    with pytest.raises(IllegalAction) as err:  # nor can one occupy it again
        apply(st, Occupy(0, st.province_of[(0, 0)], ((0, 0),)))
    assert err.value.code == "takeover/own-province"


def _islands(levier: int = 0, **kw: object) -> GameState:
    guards = {0: ((0, 0), (0, 10), (2, 0), (2, 1)), 1: ((2, 11),), 2: ((4, 0),), 3: ((4, 11),)}
    return position(ISLANDS, players=4, current=levier, phase=Phase.ACTIONS, guards=guards, **kw)  # type: ignore[arg-type]


def test_r7_1_levy_at_most_once_per_turn() -> None:
    st = _islands(hands={0: hand(S, S)})
    st, _ = apply(st, Levy(0, S))
    with pytest.raises(IllegalAction) as err:
        apply(st, Levy(0, S))
    assert err.value.code == "levy/already"


def test_r7_2_levy_card_must_match_a_guard() -> None:
    st = _islands(hands={0: hand(T, S)})
    with pytest.raises(IllegalAction) as err:
        apply(st, Levy(0, T))
    assert err.value.code == "levy/card-not-matching"
    assert err.value.details["allowed"] == ["horse", "lyre", "soldier"]
    assert rules.levy_cards(st, 0) == [S]


def test_r7_2_player_without_guards_cannot_levy() -> None:
    st = position(ISLANDS, players=4, phase=Phase.ACTIONS, hands={0: hand(S)})
    with pytest.raises(IllegalAction) as err:
        apply(st, Levy(0, S))
    assert err.value.code == "levy/no-guards"


def test_r7_3_exactly_one_guard_scores_the_open_value() -> None:
    st = _islands(hands={0: hand(L)})
    assert [pts for pts, _ in rules.levy_scores(st)] == [12, 4, 9, 6]
    after, _ = apply(st, Levy(0, L))  # D3: the lyre matches a guard in the two-guard province
    assert [p.score for p in after.players] == [12, 4, 9, 6]


def test_r7_4_d8_r10_2_hundred_points_ends_the_game_after_everyone_scored() -> None:
    st = _islands(hands={0: hand(S, S)})
    players = list(st.players)
    players[2] = replace(players[2], score=95)
    st = replace(st, players=tuple(players))
    after, events = apply(st, Levy(0, S))
    assert isinstance(events[-1], GameEnded) and events[-1].reason is EndReason.POINTS
    assert [p.score for p in after.players] == [12, 4, 104, 6]  # everyone scored first (D8)
    assert after.phase is Phase.OVER and after.result is not None and after.result.winners == (2,)
    with pytest.raises(IllegalAction) as err:  # the action left is lost
        apply(after, TakeCard(0, CardSource.SUPPLY))
    assert err.value.code == "game/over"


def test_r8_1_take_back_a_guard_frees_the_province() -> None:
    st = _islands()
    after, _ = apply(st, TakeBack(0, (0, 10)))
    assert after.players[0].guards_in_supply == 1
    assert rules.province_owner(after, after.province_by_id[after.province_of[(0, 10)]]) is None
    with pytest.raises(IllegalAction) as err:
        apply(st, TakeBack(0, (2, 11)))
    assert err.value.code == "takeback/not-your-guard"


def test_d4_take_back_uses_an_action() -> None:
    st = _islands(hands={0: hand(S)})
    st, _ = apply(st, TakeBack(0, (0, 10)))
    st, _ = apply(st, TakeBack(0, (0, 0)))
    with pytest.raises(IllegalAction) as err:
        apply(st, Levy(0, S))
    assert err.value.code == "turn/no-actions-left"


def test_d7_zero_actions_then_end_turn() -> None:
    st = position(STRIP, phase=Phase.ACTIONS)
    after, _ = apply(st, EndTurn(0))
    assert after.current == 1 and after.phase is Phase.MOVE


def test_d9_r10_3_tied_leaders_share_the_victory() -> None:
    st = _islands()
    players = tuple(replace(p, score=s) for p, s in zip(st.players, [40, 55, 55, 10], strict=True))
    st = replace(st, players=players, ending=EndReason.WALLS)
    after, _ = apply(st, EndTurn(0))
    assert after.result is not None and after.result.winners == (1, 2)


def test_r10_1_walls_end_no_one_else_takes_a_turn() -> None:
    st = replace(_islands(), ending=EndReason.WALLS)
    after, events = apply(st, EndTurn(0))
    assert after.phase is Phase.OVER
    assert not any(type(e).__name__ == "TurnStarted" for e in events)


def test_r3_turn_must_start_with_a_move() -> None:
    st = position(STRIP)
    for action in (TakeCard(0, CardSource.SUPPLY), EndTurn(0)):
        with pytest.raises(IllegalAction) as err:
            apply(st, action)
        assert err.value.code == "turn/move-first"
    acted = replace(st, phase=Phase.ACTIONS)
    with pytest.raises(IllegalAction) as err:
        apply(acted, Move(0, MoveWay.NORMAL, (pt("A5", STRIP),), slot=0))
    assert err.value.code == "turn/already-moved"


def test_p1_resign_removes_guards_and_skips_the_seat() -> None:
    st = _islands(levier=1)
    after, _ = apply(st, Resign(0))
    assert after.players[0].resigned and after.players[0].guards == frozenset()
    assert after.players[0].hand == st.players[0].hand  # kept face down, out of play
    done, _ = apply(replace(after, current=3), EndTurn(3))
    assert done.current == 1  # seat 0 is skipped


def test_p1_last_player_standing_wins() -> None:
    st = position(STRIP, players=2)
    after, _ = apply(st, Resign(1))
    assert after.result is not None
    assert (after.result.reason, after.result.winners) == (EndReason.RESIGNATIONS, (0,))


def test_p2_skip_turn_passes_without_a_move() -> None:
    st = position(STRIP, players=3, current=2)
    after, _ = apply(st, SkipTurn(2))
    assert after.current == 0 and after.alexander == st.alexander


def test_p3_agreed_end_scores_the_game_as_it_stands() -> None:
    st = _islands()
    players = tuple(replace(p, score=s) for p, s in zip(st.players, [1, 2, 3, 0], strict=True))
    after, _ = apply(replace(st, players=players), EndByAgreement(1))
    assert after.result is not None
    assert (after.result.reason, after.result.winners) == (EndReason.AGREED, (2,))


def test_r6_queries_answer_before_guards_are_chosen() -> None:
    st = position(STRIP, players=3, phase=Phase.ACTIONS, walls=CUT, guards={1: ((0, 1),)}, hands={0: hand(T)})
    left, right = st.province_of[(0, 0)], st.province_of[(0, 5)]
    assert rules.check_province_action(st, 0, right, takeover=None).id == right  # free: occupy
    assert rules.check_province_action(st, 0, left, takeover=None).id == left  # yellow's: take over
    for pid, takeover, code in [
        (left, False, "occupy/not-free"),
        (right, True, "takeover/free"),
        (99, None, "province/unknown"),
    ]:
        with pytest.raises(IllegalAction) as err:
            rules.check_province_action(st, 0, pid, takeover=takeover)
        assert err.value.code == code
    with pytest.raises(IllegalAction) as err:
        rules.check_province_action(st, 1, left, takeover=None)
    assert err.value.code == "takeover/own-province"
    with pytest.raises(IllegalAction) as err:
        rules.check_province_action(replace(st, phase=Phase.MOVE), 0, right, takeover=None)
    assert err.value.code == "turn/move-first"
    province = st.province_by_id[left]
    assert rules.takeover_price(st, province, ((0, 1),)) == hand(H, H, T, A, L, T)


def test_r7_1_r7_2_can_levy_and_r5_3_supply_can_give() -> None:
    st = _islands(hands={0: hand(S, T)})
    assert rules.can_levy(st, 0) and not rules.can_levy(st, 1)  # seat 1 is not playing
    levied, _ = apply(st, Levy(0, S))
    assert not rules.can_levy(levied, 0)  # R7.1
    assert not rules.can_levy(_islands(hands={0: hand(T)}), 0)  # R7.2: no matching card
    assert rules.supply_can_give(st)
    assert rules.supply_can_give(replace(st, supply=(), discard=hand(T)))
    assert not rules.supply_can_give(replace(st, supply=(), discard=NO_CARDS))
