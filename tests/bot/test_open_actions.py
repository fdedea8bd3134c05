"""The turn post names only the actions open now, from public facts alone (never from the hidden hand)."""

from __future__ import annotations

from dataclasses import replace

from bot.texts import open_actions
from engine.state import ActionKind, Phase
from engine.symbols import NO_CARDS
from tests.engine.helpers import H, S, T, hand, make_map, position, sd

STRIP = make_map("TH.A.A...\n.LT..S.H.", start="A5")
CUT = (sd("A5", "B4", STRIP), sd("B4", "C5", STRIP))


def test_a_new_player_can_take_cards_and_occupy_only() -> None:
    st = position(STRIP, phase=Phase.ACTIONS, walls=CUT)
    assert open_actions(st) == ["take a card", "occupy"]


def test_guards_on_the_map_open_levy_and_take_back_and_others_provinces_open_take_over() -> None:
    # Four cards: enough for some hand to pay two for bob's guard and two of the 5 symbol spaces that the
    # 3 guards left cannot cover (R6.3).
    guards = {0: ((0, 5),), 1: ((0, 1),)}
    st = position(STRIP, phase=Phase.ACTIONS, walls=CUT, guards=guards, hands={0: hand(S, T, T, H)})
    assert open_actions(st) == ["take a card", "take over", "levy taxes", "take back a guard"]
    levied = replace(st, actions_taken=(ActionKind.LEVY,))
    assert "levy taxes" not in open_actions(levied)


def test_nothing_to_draw_closes_take_a_card() -> None:
    st = position(STRIP, phase=Phase.ACTIONS, walls=CUT, supply=(), discard=NO_CARDS, face_up=(None, None))
    assert "take a card" not in open_actions(st)


def test_the_hand_never_changes_the_public_offer() -> None:
    """Only the hand's size is public (R2.5): two hands of one size get the same offer, whatever they hold."""
    for a, b in ((hand(S, T, T), hand(H, H, H)), (hand(S), hand(T)), (NO_CARDS, NO_CARDS)):
        guards = {0: ((0, 5),), 1: ((0, 1),)}
        offers = [
            open_actions(position(STRIP, phase=Phase.ACTIONS, walls=CUT, guards=guards, hands={0: h}))
            for h in (a, b)
        ]
        assert offers[0] == offers[1]


def test_issue_15_an_empty_hand_cannot_levy_or_take_over() -> None:
    st = position(
        STRIP, phase=Phase.ACTIONS, walls=CUT, guards={0: ((0, 5),), 1: ((0, 1),)}, hands={0: NO_CARDS}
    )
    assert open_actions(st) == ["take a card", "take back a guard"]


def test_issue_15_take_over_needs_two_cards_per_guard_in_hand_size() -> None:
    # Bob's province: 1 guard (2 cards) and 5 symbol spaces for 4 guards (1 card) = 3 cards.
    st = position(STRIP, phase=Phase.ACTIONS, walls=CUT, guards={1: ((0, 1),)}, hands={0: hand(S, S)})
    assert "take over" not in open_actions(st)
    st = position(STRIP, phase=Phase.ACTIONS, walls=CUT, guards={1: ((0, 1),)}, hands={0: hand(S, S, S)})
    assert "take over" in open_actions(st)


def test_issue_15_occupy_needs_the_cards_that_guards_cannot_cover() -> None:
    # One guard left for a free province of 3 symbol spaces: some hand of 2 cards could pay, 1 card cannot.
    mine = {0: ((0, 0), (0, 3), (1, 2))}
    for cards, offered in ((hand(), False), (hand(H), False), (hand(H, T), True)):
        st = position(STRIP, phase=Phase.ACTIONS, walls=CUT, guards=mine, hands={0: cards})
        assert st.players[0].guards_in_supply == 1
        assert ("occupy" in open_actions(st)) is offered, cards
