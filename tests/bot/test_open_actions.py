"""The turn post names only the actions open now, from public facts alone (never from the hidden hand)."""

from __future__ import annotations

from dataclasses import replace

from bot.texts import open_actions
from engine.state import ActionKind, Phase
from engine.symbols import NO_CARDS
from tests.engine.helpers import S, T, hand, make_map, position, sd

STRIP = make_map("TH.A.A...\n.LT..S.H.", start="A5")
CUT = (sd("A5", "B4", STRIP), sd("B4", "C5", STRIP))


def test_a_new_player_can_take_cards_and_occupy_only() -> None:
    st = position(STRIP, phase=Phase.ACTIONS, walls=CUT)
    assert open_actions(st) == ["take a card", "occupy"]


def test_guards_on_the_map_open_levy_and_take_back_and_others_provinces_open_take_over() -> None:
    st = position(STRIP, phase=Phase.ACTIONS, walls=CUT, guards={0: ((0, 5),), 1: ((0, 1),)})
    assert open_actions(st) == ["take a card", "take over", "levy taxes", "take back a guard"]
    levied = replace(st, actions_taken=(ActionKind.LEVY,))
    assert "levy taxes" not in open_actions(levied)


def test_nothing_to_draw_closes_take_a_card() -> None:
    st = position(STRIP, phase=Phase.ACTIONS, walls=CUT, supply=(), discard=NO_CARDS, face_up=(None, None))
    assert "take a card" not in open_actions(st)


def test_the_hand_never_changes_the_public_offer() -> None:
    base = position(STRIP, phase=Phase.ACTIONS, walls=CUT, guards={0: ((0, 5),)}, hands={0: NO_CARDS})
    rich = position(STRIP, phase=Phase.ACTIONS, walls=CUT, guards={0: ((0, 5),)}, hands={0: hand(S, T, T)})
    assert open_actions(base) == open_actions(rich)
