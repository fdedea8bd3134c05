"""The turn post names only the actions open now, from public facts alone (never from the hidden hand)."""

from __future__ import annotations

from dataclasses import replace

from bot.games.tables import Table
from bot.texts import posts
from bot.texts.posts import open_actions
from engine import ai, views
from engine.actions import Levy, Occupy, TakeBack, TakeCard, TakeOver
from engine.state import ActionKind, GameState, Phase
from engine.symbols import NO_CARDS
from storage import GameRecord
from tests.engine.helpers import H, S, T, hand, make_map, position, sd

STRIP = make_map("TH.A.A...\n.LT..S.H.", start="A5")
CUT = (sd("A5", "B4", STRIP), sd("B4", "C5", STRIP))


def test_a_new_player_can_take_cards_and_occupy_only() -> None:
    st = position(STRIP, phase=Phase.ACTIONS, walls=CUT)
    assert open_actions(st) == ["take a card", "occupy"]


def test_guards_on_the_map_open_take_back_surely_and_levy_and_take_over_maybe() -> None:
    # Four cards: enough for some hand to pay two for bob's guard and two of the 5 symbol spaces that the
    # 3 guards left cannot cover (R6.3); whether this hand can is not public, so the post does not say.
    guards = {0: ((0, 5),), 1: ((0, 1),)}
    st = position(STRIP, phase=Phase.ACTIONS, walls=CUT, guards=guards, hands={0: hand(S, T, T, H)})
    assert open_actions(st) == ["take a card", "take back a guard"]
    found = views.open_actions(views.view(st, None))
    assert found.maybe == (ActionKind.TAKE_OVER, ActionKind.LEVY)
    levied = replace(st, actions_taken=(ActionKind.LEVY,))
    assert ActionKind.LEVY not in views.open_actions(views.view(levied, None)).maybe


def test_nothing_to_draw_closes_take_a_card() -> None:
    st = position(STRIP, phase=Phase.ACTIONS, walls=CUT, supply=(), discard=NO_CARDS, face_up=(None, None))
    assert "take a card" not in open_actions(st)


def test_the_hand_never_changes_the_public_offer() -> None:
    """Only the hand's size is public (R2.5): two hands of one size get the same offer, whatever they hold."""
    for a, b in ((hand(S, T, T), hand(H, H, H)), (hand(S), hand(T)), (NO_CARDS, NO_CARDS)):
        guards = {0: ((0, 5),), 1: ((0, 1),)}
        offers = [
            views.open_actions(
                views.view(position(STRIP, phase=Phase.ACTIONS, walls=CUT, guards=guards, hands={0: h}), None)
            )
            for h in (a, b)
        ]
        assert offers[0] == offers[1]


def test_issue_15_an_empty_hand_cannot_levy_or_take_over() -> None:
    st = position(
        STRIP, phase=Phase.ACTIONS, walls=CUT, guards={0: ((0, 5),), 1: ((0, 1),)}, hands={0: NO_CARDS}
    )
    assert open_actions(st) == ["take a card", "take back a guard"]
    assert views.open_actions(views.view(st, None)).maybe == ()


def test_issue_15_take_over_needs_two_cards_per_guard_in_hand_size() -> None:
    # Bob's province: 1 guard (2 cards) and 5 symbol spaces for 4 guards (1 card) = 3 cards.
    for cards, maybe in ((hand(S, S), False), (hand(S, S, S), True)):
        st = position(STRIP, phase=Phase.ACTIONS, walls=CUT, guards={1: ((0, 1),)}, hands={0: cards})
        assert "take over" not in open_actions(st)  # never sure: it always costs cards (R6.3)
        assert (ActionKind.TAKE_OVER in views.open_actions(views.view(st, None)).maybe) is maybe


def test_issue_15_occupy_needs_the_cards_that_guards_cannot_cover() -> None:
    # One guard left for a free province of 3 symbol spaces: some hand of 2 cards could pay, 1 card cannot.
    mine = {0: ((0, 0), (0, 3), (1, 2))}
    for cards, offered in ((hand(), False), (hand(H), False), (hand(H, T), True)):
        st = position(STRIP, phase=Phase.ACTIONS, walls=CUT, guards=mine, hands={0: cards})
        assert st.players[0].guards_in_supply == 1
        assert "occupy" not in open_actions(st)  # the one guard cannot cover 3 spaces: cards decide
        assert (ActionKind.OCCUPY in views.open_actions(views.view(st, None)).maybe) is offered, cards


def test_issue_28_the_turn_post_offers_no_levy_her_cards_may_not_pay() -> None:
    """Issue 28: one soldier in hand, her only guard on a temple space: the post named "levy taxes", and
    `levy card:?` then said there was none. Now it names only what is open whatever she holds, and words
    the rest as "what your cards allow" - the same words for a temple card, so her hand stays hidden."""
    temple = (0, 0)
    assert STRIP.symbol[temple] is T
    said = []
    for cards in (hand(S), hand(T)):
        st = position(STRIP, phase=Phase.ACTIONS, walls=CUT, guards={0: (temple,)}, hands={0: cards})
        st = replace(st, actions_taken=(ActionKind.TAKE_CARD,))
        said.append(posts.can_do(_table(st)))
    assert said[0] == said[1]
    assert "levy" not in said[0], said[0]
    assert said[0].startswith(
        "1 action left: take a card, occupy, take back a guard, or what your cards allow"
    )


def test_issue_28_every_action_named_is_open_for_every_hand_of_that_size() -> None:
    """The public offer is real: each action it names is one the engine accepts now, whatever the hand."""
    kinds = {"take a card": ActionKind.TAKE_CARD, "occupy": ActionKind.OCCUPY, "levy taxes": ActionKind.LEVY,
             "take back a guard": ActionKind.TAKE_BACK}  # fmt: skip
    for guards in ({0: ((0, 0),)}, {0: ((0, 0), (0, 3), (1, 2))}, {}):
        for cards in (hand(), hand(S), hand(T, H), hand(H, H, H)):
            st = position(STRIP, phase=Phase.ACTIONS, walls=CUT, guards=guards, hands={0: cards})
            legal = {_kind(a) for a in ai.legal_actions(st)}
            for name in open_actions(st):
                assert kinds[name] in legal, (name, guards, cards)


def _kind(action: object) -> ActionKind | None:
    return {TakeCard: ActionKind.TAKE_CARD, Occupy: ActionKind.OCCUPY, TakeOver: ActionKind.TAKE_OVER,
            Levy: ActionKind.LEVY, TakeBack: ActionKind.TAKE_BACK}.get(type(action))  # type: ignore[call-overload]  # fmt: skip


def _table(st: GameState) -> Table:
    record = GameRecord(7, 1, 2, "playing", {"names": {}}, 3, 0.0, 0.0, 101, 101, 0.0, ((0, 101), (1, 102)))  # type: ignore[arg-type]
    return Table(record, st, ("Ann", "Bob"))
