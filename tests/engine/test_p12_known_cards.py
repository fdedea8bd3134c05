"""P12: the cards the table knows a player holds (taken face up, or given in a take-over, and not paid
since) are part of the state, of every view and of the position notation; the hard player's sampled worlds
deal them to their holders, and it still never peeks."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from engine import ai, invariants
from engine.actions import CardSource
from engine.determinize import sample_world, unplaced_cards, unseen_cards
from engine.events import CardsDiscarded, CardsGiven, CardTaken, Event, StepTakenBack
from engine.game import apply, evolve, new_game
from engine.maps import packaged_map
from engine.notation import format_position, parse_position
from engine.state import GameState, Phase
from engine.symbols import NO_CARDS, SYMBOLS, Cards, add, as_list, contains, one, sub, total
from engine.views import redact_all, view
from tests.engine.helpers import H, L, S, T, hand, hidden_twin

AEGEAN = packaged_map("aegean")
FAST_HARD = ai.HardPlayer(candidates=3, worlds=2)


def _fold(state: GameState, *events: Event) -> GameState:
    for e in events:
        state = evolve(state, e)
    return state


def _fresh(players: int = 3) -> GameState:
    st, _ = new_game(AEGEAN, players, 11)
    return st


def test_p12_r3_1_r5_1_a_card_taken_face_up_is_known_to_every_view_and_a_drawn_one_is_not() -> None:
    st = _fresh()
    seat = st.current
    up = st.face_up[0]
    assert up is not None
    before = st.players[seat].known
    taken = _fold(st, CardTaken(seat, CardSource.FACE_UP, 0, up))
    top = taken.supply[0]
    drawn = _fold(taken, CardTaken(seat, CardSource.SUPPLY, None, top))
    assert taken.players[seat].known == add(before, one(up))
    assert drawn.players[seat].known == taken.players[seat].known  # a card from the supply stays secret
    for viewer in [None, *range(len(st.players))]:
        assert view(drawn, viewer).players[seat].known == add(before, one(up))


def test_p12_paying_a_card_lowers_the_known_count_of_its_symbol_by_one_never_below_zero() -> None:
    st = _fresh()
    seat = st.current
    player = replace(st.players[seat], hand=NO_CARDS, known=NO_CARDS)
    st = replace(st, players=tuple(player if i == seat else p for i, p in enumerate(st.players)))
    # Two horses taken face up, a third drawn face down: the table knows of two.
    st = replace(st, face_up=(H, H), supply=(H,) + st.supply[1:])  # the card count does not matter here
    st = _fold(st, CardTaken(seat, CardSource.FACE_UP, 0, H), CardTaken(seat, CardSource.FACE_UP, 1, H))
    st = _fold(st, CardTaken(seat, CardSource.SUPPLY, None, H))
    assert st.players[seat].hand == hand(H, H, H) and st.players[seat].known == hand(H, H)
    # One horse paid: it may have been a known one or the drawn one; at least one known horse is left.
    st = _fold(st, CardsDiscarded(seat, hand(H), "levy"))
    assert st.players[seat].known == hand(H)
    # Two more paid: none is known to be left, and the count does not go below zero.
    st = _fold(st, CardsDiscarded(seat, hand(H, H), "occupy"))
    assert st.players[seat].hand == NO_CARDS and st.players[seat].known == NO_CARDS
    # Paying a symbol the table knew nothing of leaves the other known cards alone.
    st = replace(st, face_up=(L, T), supply=(S,) + st.supply[1:])
    st = _fold(st, CardTaken(seat, CardSource.FACE_UP, 0, L), CardTaken(seat, CardSource.SUPPLY, None, S))
    st = _fold(st, CardsDiscarded(seat, hand(S), "special-move"))
    assert st.players[seat].known == hand(L)


def test_p12_r6_4_cards_given_in_a_take_over_are_known_to_be_held_by_the_loser() -> None:
    st = _fresh()
    giver, receiver = 0, 1
    players = list(st.players)
    players[giver] = replace(players[giver], hand=hand(T, T, H), known=hand(T))
    players[receiver] = replace(players[receiver], hand=hand(L), known=NO_CARDS)
    st = _fold(replace(st, players=tuple(players)), CardsGiven(giver, receiver, hand(T, H)))
    assert st.players[receiver].known == hand(T, H) and st.players[receiver].hand == hand(T, H, L)
    assert st.players[giver].known == NO_CARDS and st.players[giver].hand == hand(T)


def _less(a: Cards, b: Cards) -> Cards:
    n = [max(0, x - y) for x, y in zip(a, b, strict=True)]
    return n[0], n[1], n[2], n[3], n[4]


def _known_from_public_events(events: list[Event], players: int) -> list[Cards]:
    """The rule worked out afresh by a spectator who reads only the public (redacted) events."""
    known = [NO_CARDS] * players
    for e in redact_all(events, None):
        if isinstance(e, CardTaken) and e.source is CardSource.FACE_UP:
            assert e.symbol is not None  # a face-up card is public
            known[e.player] = add(known[e.player], one(e.symbol))
        elif isinstance(e, CardsDiscarded):
            known[e.player] = _less(known[e.player], e.cards)
        elif isinstance(e, CardsGiven):
            known[e.giver] = _less(known[e.giver], e.cards)
            known[e.receiver] = add(known[e.receiver], e.cards)
        assert not isinstance(e, StepTakenBack)
    return known


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (3, 2), (4, 3)])
def test_p12_every_view_knows_what_a_spectator_of_the_public_events_knows(players: int, seed: int) -> None:
    st, events = new_game(AEGEAN, players, seed)
    log = list(events)
    rng = random.Random(seed)
    seen_known = 0
    while st.phase is not Phase.OVER:
        player = ai.random_player if rng.random() < 0.5 else ai.greedy_player
        st, events = apply(st, player(st, rng))
        log.extend(events)
        expected = _known_from_public_events(log, players)
        for viewer in [None, *range(players)]:
            assert [p.known for p in view(st, viewer).players] == expected
        for p in st.players:
            assert contains(p.hand, p.known)  # what the table knows of is really in the hand
        seen_known += sum(total(k) for k in expected)
        assert invariants.check(st) == []
    assert seen_known > 0


def test_p12_the_position_notation_writes_and_reads_the_known_cards() -> None:
    st = _midgame()
    assert any(p.known != NO_CARDS for p in st.players)
    text = format_position(st)
    for seat, p in enumerate(st.players):
        letters = "".join(s.letter for s in as_list(p.known)) or "-"
        assert f"player {seat}: " in text and f" known {letters}" in text.splitlines()[_line(text, seat)]
    assert parse_position(text) == st


def _line(text: str, seat: int) -> int:
    return next(i for i, x in enumerate(text.splitlines()) if x.startswith(f"player {seat}:"))


# --- the hard player --------------------------------------------------------------------------------------


def _midgame(seed: int = 4) -> GameState:
    """A 3-player position on the small map where a rival is known to hold cards, at a move."""
    state, _ = new_game(AEGEAN, 3, seed)
    rng = random.Random(seed)
    while True:
        state, _ = apply(state, ai.greedy_player(state, rng))
        rivals = [p for i, p in enumerate(state.players) if i != state.current]
        if state.turn >= 4 and state.phase is Phase.MOVE and any(total(p.known) for p in rivals):
            return state


def test_p12_sampled_worlds_deal_each_rival_the_cards_known_to_be_in_that_hand() -> None:
    state = _midgame()
    me = state.current
    v = view(state, me)
    known = {p.seat: p.known for p in v.players if p.seat != me}
    assert any(total(k) for k in known.values())
    all_known = NO_CARDS
    for cards in known.values():
        all_known = add(all_known, cards)
    assert unplaced_cards(v) == sub(unseen_cards(v), all_known)
    for k in range(20):
        w = sample_world(v, random.Random(k))
        assert view(w, me) == v
        assert invariants.check(w) == []
        for seat, cards in known.items():
            assert contains(w.players[seat].hand, cards), (k, seat)
            assert w.players[seat].known == cards


def test_p12_without_the_known_cards_some_sampled_world_would_contradict_the_table() -> None:
    """Not vacuous: dealt at random, the unseen cards often miss a rival's known card."""
    state = _midgame()
    me = state.current
    v = view(state, me)
    rival = next(p for p in v.players if p.seat != me and total(p.known))
    forgetful = replace(v, players=tuple(replace(p, known=NO_CARDS) for p in v.players))
    missed = sum(
        not contains(sample_world(forgetful, random.Random(k)).players[rival.seat].hand, rival.known)
        for k in range(20)
    )
    assert missed > 0


@pytest.mark.parametrize("seed", [4, 6, 9])
def test_p12_r2_5_the_hard_player_decides_the_same_whatever_the_hidden_cards_with_known_cards(
    seed: int,
) -> None:
    state = _midgame(seed)
    me = state.current
    twin = hidden_twin(state, random.Random(seed + 100))
    assert twin != state and view(twin, me) == view(state, me)
    assert invariants.check(twin) == []
    assert FAST_HARD(state, random.Random(7)) == FAST_HARD(twin, random.Random(7))
    moved, _ = apply(state, ai.greedy_player(state, random.Random(1)))
    moved_twin = hidden_twin(moved, random.Random(seed + 200))
    assert view(moved_twin, me) == view(moved, me)
    assert FAST_HARD(moved, random.Random(3)) == FAST_HARD(moved_twin, random.Random(3))


def test_p12_views_still_hide_every_rival_hand_beyond_its_known_cards() -> None:
    state = _midgame()
    me = state.current
    twin = hidden_twin(state, random.Random(1))
    rivals_differ = any(
        a.hand != b.hand for i, (a, b) in enumerate(zip(state.players, twin.players, strict=True)) if i != me
    )
    assert rivals_differ or twin.supply != state.supply
    assert view(twin, me) == view(state, me)
    assert view(twin) == view(state)
    assert all(len(SYMBOLS) == len(p.known) for p in view(state).players)
