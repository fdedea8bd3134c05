"""Every stable error code is raised by at least one scenario here (or in the rule tests named below)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest

from engine import rules
from engine.actions import CardSource, EndTurn, Levy, Move, MoveWay, Occupy, Resign, TakeCard, TakeOver, Undo
from engine.errors import ERROR_CODES, IllegalAction
from engine.game import apply, new_game
from engine.geometry import Point, corners
from engine.state import ActionKind, GameState, Phase
from tests.engine.helpers import CUT, STRIP, H, L, S, T, hand, make_map, position, pt

MAP = make_map(
    """
.T.A.H.L.S~~
S.L.H.A.T..~
.T.A.H.L.S..
"""
)


def _move_to() -> tuple[GameState, rules.Target, tuple[Point, ...]]:
    st = position(MAP, face_up=(H, L), hands={0: hand(T), 1: NO})
    t = rules.targets(st, H)[0]
    return st, t, next(rules.shortest_paths(st, t.corners[0].point))


NO = (0, 0, 0, 0, 0)


def _stale() -> None:
    st = position(MAP, phase=Phase.ACTIONS)
    apply(st, EndTurn(0), expected_version=st.version - 1)


def _unknown_player() -> None:
    apply(position(MAP), EndTurn(7))


def _not_your_turn() -> None:
    apply(position(MAP, phase=Phase.ACTIONS), EndTurn(1))


def _resigned() -> None:
    st, _ = apply(position(MAP, players=3), Resign(2))
    apply(st, Resign(2))


def _bad_setup() -> None:
    new_game(MAP, 5, seed=1)


def _move(**kw: object) -> Callable[[], None]:
    def run() -> None:
        st, t, path = _move_to()
        fields: dict[str, object] = {"way": MoveWay.NORMAL, "path": path, "slot": 0}
        fields.update(kw)
        apply(st, Move(0, **fields))  # type: ignore[arg-type]

    return run


def _not_empty() -> None:
    st, t, path = _move_to()
    guarded = replace(st, players=(replace(st.players[0], guards=frozenset({t.space})), st.players[1]))
    apply(guarded, Move(0, MoveWay.NORMAL, path, slot=0))  # to a corner of the guarded horse space only


def _wrong_symbol() -> None:
    st, _, _ = _move_to()
    apply(st, Move(0, MoveWay.NORMAL, _no_horse_step(st), slot=0))


def _no_horse_step(st: GameState) -> tuple[Point, ...]:
    """One side from Alexander to a point that is a corner of no horse space."""
    adjacent, around = MAP.adjacent[st.alexander], MAP.point_spaces
    return st.alexander, next(q for q in adjacent if all(MAP.symbol[s] is not H for s in around[q]))


def _joker_needs_symbol() -> None:
    st, t, path = _move_to()
    walls = {MAP.space_sides[s][0] for s in MAP.symbol_spaces if MAP.symbol[s] is H}
    st = replace(st, walls=frozenset(walls))
    apply(st, Move(0, MoveWay.JOKER, path, slot=0))


def _action(action: object, **kw: object) -> Callable[[], None]:
    def run() -> None:
        st = position(STRIP, phase=Phase.ACTIONS, walls=CUT, **kw)  # type: ignore[arg-type]
        apply(st, action)  # type: ignore[arg-type]

    return run


def _levy_not_in_hand() -> None:
    st = position(STRIP, phase=Phase.ACTIONS, walls=CUT, guards={0: ((0, 1),)}, hands={0: hand(T)})
    apply(st, Levy(0, H))


def _undo_after_a_draw() -> None:
    st, _ = apply(position(STRIP, phase=Phase.ACTIONS), TakeCard(0, CardSource.SUPPLY))
    apply(st, Undo(0))


SCENARIOS: dict[str, Callable[[], None]] = {
    "game/stale": _stale,
    "game/unknown-player": _unknown_player,
    "game/not-your-turn": _not_your_turn,
    "game/resigned": _resigned,
    "game/bad-setup": _bad_setup,
    "move/bad-slot": _move(slot=3),
    "move/slot-empty": lambda: apply(
        replace(_move_to()[0], face_up=(None, L)), Move(0, MoveWay.NORMAL, ((0, 1),), slot=0)
    ),
    "move/not-in-hand": _move(way=MoveWay.SPECIAL, slot=None, card=S),
    "move/joker-needs-symbol": _joker_needs_symbol,
    "move/unexpected-symbol": _move(named=S),
    "move/wrong-symbol": _wrong_symbol,
    "move/not-empty": _not_empty,
    "move/bad-path": _move(path=(pt("B2", MAP),)),
    "card/bad-slot": _action(TakeCard(0, CardSource.FACE_UP, 5)),
    "province/unknown": _action(Occupy(0, 99, ((0, 0),))),
    "takeover/free": _action(TakeOver(0, 1, ((0, 5),))),
    "levy/not-in-hand": _levy_not_in_hand,
    "undo/nothing": lambda: apply(position(MAP), Undo(0)),
    "undo/revealed": _undo_after_a_draw,
}

# Codes whose scenarios live beside the rule they enforce.
COVERED_ELSEWHERE = {
    "game/over": "test_r7_4_d8_r10_2_hundred_points_ends_the_game_after_everyone_scored",
    "turn/move-first": "test_r3_turn_must_start_with_a_move",
    "turn/already-moved": "test_r3_turn_must_start_with_a_move",
    "turn/no-actions-left": "test_d4_take_back_uses_an_action",
    "move/no-empty-space": "test_r3_1c_joker_only_for_face_up_card_without_empty_space",
    "move/joker-not-allowed": "test_r3_1c_joker_only_for_face_up_card_without_empty_space",
    "move/not-closest": "test_example_1_r3_2_farther_horse_is_refused_with_both_distances",
    "move/not-shortest": "test_r3_4_path_must_be_shortest_and_end_on_a_corner_of_a_target",
    "move/too-many-walls": "test_r3_7_move_needing_more_walls_than_left_is_refused_when_another_fits",
    "move/not-fewest-walls": "test_r3_7_when_no_move_fits_a_move_with_more_than_the_fewest_walls_is_refused",
    "card/slot-empty": "test_r5_2_face_up_cards_taken_by_actions_are_replaced_at_end_of_turn",
    "card/supply-empty": "test_r5_3_nothing_to_draw_leaves_slot_empty_and_refuses_supply",
    "occupy/not-free": "test_r4_3_occupied_province_cannot_get_a_second_owner",
    "occupy/no-symbol-space": "test_r4_5_province_without_symbol_space_cannot_be_occupied",
    "occupy/no-guard": "test_r6_2_guards_only_on_symbol_spaces_one_per_space",
    "occupy/not-enough-guards": "test_r6_2_guards_only_on_symbol_spaces_one_per_space",
    "occupy/duplicate-space": "test_r6_2_guards_only_on_symbol_spaces_one_per_space",
    "occupy/outside-province": "test_r6_2_guards_only_on_symbol_spaces_one_per_space",
    "occupy/open-space": "test_r6_2_guards_only_on_symbol_spaces_one_per_space",
    "occupy/missing-cards": "test_r6_1_occupy_refuses_missing_cards_and_names_them",
    "takeover/own-province": "test_r6_5_cannot_take_over_own_province",
    "takeover/missing-cards": "test_r6_3_take_over_is_all_or_nothing",
    "takeover/bad-compensation": "test_r6_4_compensation_must_be_half_rounded_up_of_paid_cards",
    "levy/already": "test_r7_1_levy_at_most_once_per_turn",
    "levy/no-guards": "test_r7_2_player_without_guards_cannot_levy",
    "levy/card-not-matching": "test_r7_2_levy_card_must_match_a_guard",
    "takeback/not-your-guard": "test_r8_1_take_back_a_guard_frees_the_province",
}


@pytest.mark.parametrize("code", sorted(SCENARIOS))
def test_error_code_is_raised(code: str) -> None:
    with pytest.raises(IllegalAction) as err:
        SCENARIOS[code]()
    assert err.value.code == code


def test_every_error_code_has_a_scenario() -> None:
    assert set(SCENARIOS) | set(COVERED_ELSEWHERE) == ERROR_CODES
    assert not set(SCENARIOS) & set(COVERED_ELSEWHERE)


def test_scenarios_named_elsewhere_exist_and_check_their_code() -> None:
    import inspect

    from tests.engine import test_r2_r3_setup_and_moves as moves
    from tests.engine import test_r4_to_r10_provinces_actions_end as actions
    from tests.engine import test_worked_examples as examples

    for code, name in COVERED_ELSEWHERE.items():
        fn = next((getattr(m, name) for m in (moves, actions, examples) if hasattr(m, name)), None)
        assert fn is not None, name
        assert f'"{code}"' in inspect.getsource(fn), (code, name)


# --- The order of refusals (engine/errors.py's docstring) -------------------------------------------------
# Each action below is wrong in two or more ways; the code is the first check of the documented order.


def _over() -> GameState:
    return replace(position(MAP, phase=Phase.ACTIONS), phase=Phase.OVER)


def _moved() -> GameState:
    return position(STRIP, phase=Phase.ACTIONS, walls=CUT)


def _farther_horse(st: GameState) -> tuple[Point, ...]:
    """A path to a corner of an empty horse space that is not a closest one, with a detour at its start."""
    closest, _ = rules.closest_targets(st, H)
    horses = [s for s in sorted(rules.empty_spaces(st)) if MAP.symbol[s] is H]
    near = {p for s in horses if rules.space_distance(st, s) == closest for p in corners(s)}
    farther = [s for s in horses if rules.space_distance(st, s) > closest]
    far = next(p for s in farther for p in corners(s) if p not in near)
    shortest = next(rules.shortest_paths(st, far))
    return (st.alexander, shortest[1]) + shortest  # there and back first: not shortest either


def _many_faults() -> list[tuple[str, Callable[[], object]]]:
    st, t, path = _move_to()
    far = (pt("B2", MAP),)  # does not start where Alexander stands (A1)
    wrong = _no_horse_step(st)  # ends on a corner of no horse space
    detour = (st.alexander, wrong[1])  # ... and is no shortest path either
    farther = _farther_horse(st)
    return [
        # stale beats over beats unknown player beats resigned beats not your turn
        ("game/stale", lambda: apply(_over(), EndTurn(9), expected_version=0)),
        ("game/over", lambda: apply(_over(), EndTurn(9))),
        ("game/unknown-player", lambda: apply(st, Move(9, MoveWay.NORMAL, far, slot=7))),
        ("game/resigned", lambda: apply(apply(position(MAP, players=3), Resign(2))[0], EndTurn(2))),
        ("game/not-your-turn", lambda: apply(st, Move(1, MoveWay.NORMAL, far, slot=7))),
        ("turn/move-first", lambda: apply(st, EndTurn(0))),
        ("turn/move-first", lambda: apply(st, TakeCard(0, CardSource.FACE_UP, 7))),
        # a move: the turn, then the card, then the destination, then the path, then the walls
        ("turn/already-moved", lambda: apply(_moved(), Move(0, MoveWay.NORMAL, far, slot=7))),
        ("move/bad-slot", lambda: apply(st, Move(0, MoveWay.NORMAL, far, slot=7))),
        ("move/unexpected-symbol", lambda: apply(st, Move(0, MoveWay.NORMAL, far, slot=0, named=S))),
        ("move/not-in-hand", lambda: apply(st, Move(0, MoveWay.SPECIAL, far, card=S, named=S))),
        ("move/bad-path", lambda: apply(st, Move(0, MoveWay.NORMAL, far, slot=0))),
        ("move/wrong-symbol", lambda: apply(st, Move(0, MoveWay.NORMAL, wrong + detour, slot=0))),
        ("move/not-closest", lambda: apply(st, Move(0, MoveWay.NORMAL, farther, slot=0))),
        # other actions: the turn, the actions left, then their own checks
        (
            "turn/no-actions-left",
            lambda: apply(replace(_moved(), actions_taken=(ActionKind.TAKE_CARD,) * 2), Occupy(0, 99, ())),
        ),
        ("province/unknown", lambda: apply(_moved(), Occupy(0, 99, ()))),
        ("occupy/no-guard", lambda: apply(_moved(), Occupy(0, _moved().province_of[(0, 5)], ()))),
        ("levy/already", lambda: apply(replace(_moved(), actions_taken=(ActionKind.LEVY,)), Levy(0, H))),
        ("levy/no-guards", lambda: apply(_moved(), Levy(0, H))),
    ]


@pytest.mark.parametrize("code,act", _many_faults(), ids=[c for c, _ in _many_faults()])
def test_the_order_of_refusals_is_the_documented_one(code: str, act: Callable[[], object]) -> None:
    with pytest.raises(IllegalAction) as err:
        act()
    assert err.value.code == code


def test_every_code_of_the_order_is_documented_in_errors_py() -> None:
    import engine.errors

    doc = engine.errors.__doc__ or ""
    for code in ERROR_CODES:
        assert f"``{code}``" in doc, code
    positions = [doc.index(f"``{c}``") for c, _ in _many_faults() if c != "turn/move-first"]
    assert positions == sorted(positions)  # the faults above come in the documented order
