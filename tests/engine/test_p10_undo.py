"""P10: the player on turn takes back their last steps, never past revealed hidden information (R2.5)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from engine import ai, rules, serialize
from engine.actions import CardSource, EndTurn, Levy, Move, MoveWay, TakeBack, TakeCard, TakeOver, Undo
from engine.determinize import ALL_CARDS
from engine.errors import IllegalAction
from engine.events import StepTakenBack
from engine.game import apply, new_game, replay
from engine.maps import default_map
from engine.notation import format_action, parse_action
from engine.snapshot import dump_state, load_state, maps_by_digest
from engine.state import GameState, Phase
from engine.symbols import add, cards_of, sub
from tests.engine.helpers import CUT, STRIP, A, H, L, T, hand, make_map, position, takeover_position

MAP = make_map(
    """
.T.A.H.L.S~~
S.L.H.A.T..~
.T.A.H.L.S..
"""
)


def _same_but_version(after: GameState, before: GameState) -> bool:
    return replace(after, version=before.version) == before


def _code(state: GameState, player: int = 0) -> str:
    with pytest.raises(IllegalAction) as err:
        apply(state, Undo(player))
    return err.value.code


def _horse_path(st: GameState) -> tuple[tuple[int, int], ...]:
    target = rules.targets(st, H)[0]
    return next(rules.shortest_paths(st, target.corners[0].point))


def test_p10_nothing_to_take_back_at_the_start_of_a_turn() -> None:
    st = position(MAP)
    assert _code(st) == "undo/nothing"


def test_p10_d4_actions_are_taken_back_one_at_a_time_and_the_state_is_the_earlier_one() -> None:
    st0 = position(STRIP, phase=Phase.ACTIONS, walls=CUT, guards={0: ((0, 1),)}, hands={0: hand(T)})
    st1, _ = apply(st0, TakeCard(0, CardSource.FACE_UP, 0))  # R5.2: the slot waits for the turn's end
    st2, _ = apply(st1, TakeBack(0, (0, 1)))  # R8.1
    back1, events = apply(st2, Undo(0))
    assert events == [StepTakenBack(0, st1.version)]
    assert back1.version == st2.version + 1
    assert _same_but_version(back1, st1)
    back0, _ = apply(back1, Undo(0))
    assert _same_but_version(back0, st0)
    assert back0.face_up == st0.face_up and back0.actions_taken == ()
    assert _code(back0) == "undo/nothing"


def test_p10_r7_3_a_levy_and_everyone_s_score_are_taken_back() -> None:
    st0 = position(STRIP, phase=Phase.ACTIONS, walls=CUT, guards={0: ((0, 1),)}, hands={0: hand(H)})
    st1, _ = apply(st0, Levy(0, H))
    assert st1.players[0].score > 0
    back, _ = apply(st1, Undo(0))
    assert _same_but_version(back, st0) and back.players[0].score == 0 and not back.levied


def test_p10_r3_5_r4_1_a_special_move_is_taken_back_with_its_walls_and_splits() -> None:
    st0 = position(MAP, face_up=(L, L), hands={0: hand(H), 1: hand()})
    moved, events = apply(st0, Move(0, MoveWay.SPECIAL, _horse_path(st0), card=H))
    assert moved.walls and moved.phase is Phase.ACTIONS
    back, _ = apply(moved, Undo(0))
    assert _same_but_version(back, st0)
    assert back.walls == frozenset() and back.provinces == st0.provinces and back.players[0].hand == hand(H)


def test_p10_r3_1_a_normal_move_turns_a_face_up_card_so_it_cannot_be_taken_back() -> None:
    st0 = position(MAP, face_up=(H, L), hands={0: hand(T), 1: hand()})
    moved, _ = apply(st0, Move(0, MoveWay.NORMAL, _horse_path(st0), slot=0))
    assert _code(moved) == "undo/revealed"


def test_p10_r3_1_a_normal_move_with_nothing_left_to_turn_can_be_taken_back() -> None:
    st0 = position(MAP, face_up=(H, L), hands={0: hand(T), 1: hand()}, supply=(), discard=hand())
    moved, _ = apply(st0, Move(0, MoveWay.NORMAL, _horse_path(st0), slot=0))
    assert moved.face_up[0] is None  # R5.3: nothing was drawn, so nothing was revealed
    back, _ = apply(moved, Undo(0))
    assert _same_but_version(back, st0)


def test_p10_r5_1_a_card_drawn_from_the_supply_stops_the_undo_and_what_came_before() -> None:
    st0 = position(STRIP, phase=Phase.ACTIONS, walls=CUT, guards={0: ((0, 1),)}, hands={0: hand(T)})
    st1, _ = apply(st0, TakeBack(0, (0, 1)))
    st2, _ = apply(st1, TakeCard(0, CardSource.SUPPLY))
    assert _code(st2) == "undo/revealed"  # neither the draw nor the take-back before it


def test_p10_r5_3_a_reshuffle_is_revealing_too() -> None:
    st0 = position(STRIP, phase=Phase.ACTIONS, supply=(), discard=hand(T, T, H), hands={0: hand()})
    st1, _ = apply(st0, TakeCard(0, CardSource.SUPPLY))
    assert _code(st1) == "undo/revealed"


def test_p10_a_step_after_a_reveal_can_still_be_taken_back_but_not_further() -> None:
    st0 = position(STRIP, phase=Phase.ACTIONS, walls=CUT, guards={0: ((0, 1),)}, hands={0: hand()})
    st1, _ = apply(st0, TakeCard(0, CardSource.SUPPLY))
    st2, _ = apply(st1, TakeBack(0, (0, 1)))
    back, _ = apply(st2, Undo(0))
    assert _same_but_version(back, st1)
    assert _code(back) == "undo/revealed"


def test_p10_r6_4_compensation_shown_to_another_player_cannot_be_taken_back() -> None:
    st = takeover_position(3)
    after, _ = apply(st, TakeOver(0, st.province_of[(0, 0)], ((0, 1),), compensation=hand(H, A, L)))
    assert _code(after) == "undo/revealed"


def test_p10_r6_4_a_two_player_take_over_gives_nothing_and_can_be_taken_back() -> None:
    st = position(
        STRIP, phase=Phase.ACTIONS, walls=CUT, guards={1: ((0, 1),)}, hands={0: hand(H, H, T, A, L, T)}
    )
    after, _ = apply(st, TakeOver(0, st.province_of[(0, 0)], ((0, 1),)))
    back, _ = apply(after, Undo(0))
    assert _same_but_version(back, st) and back.players[1].guards == frozenset({(0, 1)})


def test_p10_d7_nothing_is_taken_back_across_the_end_of_a_turn() -> None:
    st0 = position(STRIP, phase=Phase.ACTIONS, walls=CUT, guards={0: ((0, 1),)}, hands={0: hand(T)})
    st1, _ = apply(st0, TakeBack(0, (0, 1)))
    st2, _ = apply(st1, EndTurn(0))
    assert _code(st2, 1) == "undo/nothing"
    with pytest.raises(IllegalAction) as err:
        apply(st2, Undo(0))
    assert err.value.code == "game/not-your-turn"


def test_p1_p10_another_player_resigning_clears_the_trail() -> None:
    from engine.actions import Resign

    st0 = position(STRIP, players=3, phase=Phase.ACTIONS, walls=CUT, guards={0: ((0, 1),), 2: ((1, 1),)})
    st1, _ = apply(st0, TakeBack(0, (0, 1)))
    st2, _ = apply(st1, Resign(2))
    assert _code(st2) == "undo/nothing"


def test_p10_undo_writes_and_reads_in_the_notation() -> None:
    assert format_action(Undo(1)) == "1: U"
    assert parse_action("1: U") == Undo(1)


def test_p10_p8_replay_snapshots_and_json_rebuild_games_with_undos_exactly() -> None:
    """Random games where the player on turn often takes steps back: the log replays to the same state,
    the lean snapshot and the JSON document load it back, and each undo lands on the earlier state."""
    game_map = default_map()
    maps = maps_by_digest(game_map)
    undos = 0
    for seed in range(6):
        rng = random.Random(seed)
        state, events = new_game(game_map, 2 + seed % 3, seed)
        log = list(events)
        by_version = {state.version: state}
        for _ in range(120):
            if state.phase is Phase.OVER:
                break
            if state.undo.points and rng.random() < 0.5:
                target = state.undo.points[-1].version
                state, events = apply(state, Undo(state.current), expected_version=state.version)
                assert _same_but_version(state, by_version[target])
                undos += 1
            else:
                action = ai.random_player(state, rng)
                state, events = apply(state, action, expected_version=state.version)
            log.extend(events)
            by_version[state.version] = state
            assert state.version == len(log)
            assert load_state(dump_state(state), maps) == state
        assert replay(log) == state
        assert serialize.loads(serialize.dumps(state)) == state
    assert undos > 20


def test_p10_the_position_notation_carries_the_undo_trail() -> None:
    from engine.notation import format_position, parse_position

    st0 = position(STRIP, phase=Phase.ACTIONS, walls=CUT, guards={0: ((0, 1),)}, hands={0: hand(T)})
    # The set hand's temple comes from the supply, and the cards dealt before lie in the discard pile: the
    # notation reads only positions that keep every invariant, R2.1's 55 cards too.
    supply = list(st0.supply)
    supply.remove(T)
    shown = cards_of(supply + [s for s in st0.face_up if s is not None])
    st0 = replace(st0, supply=tuple(supply), discard=sub(ALL_CARDS, add(shown, hand(T))))
    st1, _ = apply(st0, TakeCard(0, CardSource.FACE_UP, 0))
    st2, _ = apply(st1, TakeBack(0, (0, 1)))
    assert len(st2.undo.points) == 2
    text = format_position(st2)
    assert "undo-point 1:" in text
    back = parse_position(text, maps=lambda digest: STRIP)
    assert back == st2
    assert apply(back, Undo(0))[0] == apply(st2, Undo(0))[0]


def test_p10_json_writes_the_trail_s_points_without_the_map_they_share() -> None:
    st0 = position(STRIP, phase=Phase.ACTIONS, walls=CUT, guards={0: ((0, 1),)}, hands={0: hand(T)})
    st1, _ = apply(st0, TakeCard(0, CardSource.FACE_UP, 0))
    doc = serialize.dump(st1)
    assert doc["value"]["map"]["text"] == STRIP.text
    assert [set(p) & {"map"} for p in doc["value"]["undo"]["points"]] == [set()]
    assert serialize.load(doc) == st1
