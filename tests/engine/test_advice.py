"""Issue 29, hints: the hard player's suggestion and its facts come from the player's own view (R2.5), and
the suggestion is legal (apply accepts it)."""

from __future__ import annotations

import random

from engine import ai
from engine.advice import advise, suggest
from engine.determinize import sample_world
from engine.game import apply, new_game
from engine.maps import packaged_map
from engine.views import view


def _positions(n: int = 12) -> list:
    """States met in a greedy game of three on the small map, every few actions."""
    state, _ = new_game(packaged_map("aegean"), 3, 7)
    rng, out, step = random.Random(7), [], 0
    while not state.over and len(out) < n:
        if step % 3 == 0:
            out.append(state)
        state, _ = apply(state, ai.greedy_player(state, rng))
        step += 1
    return out


def test_r2_5_a_hint_is_the_same_whatever_the_hidden_cards_and_apply_accepts_it():
    kinds = set()
    for state in _positions():
        me = state.current
        v = view(state, me)
        action = suggest(v, random.Random(3))
        apply(state, action)  # legal in the real game
        # Another game the player cannot tell apart (other hands and the supply dealt differently).
        other = sample_world(v, random.Random(11))
        assert view(other, me) == v
        assert suggest(view(other, me), random.Random(3)) == action
        facts = [advise(v, action, random.Random(k)) for k in range(3)]
        assert facts[0] == facts[1] == facts[2], "the facts of a hint depend on no hidden card"
        kinds.add(facts[0].kind)
    assert "move" in kinds and len(kinds) >= 2, kinds


def test_the_facts_of_a_move_hint_are_the_engines():
    state = _positions(1)[0]
    v = view(state, state.current)
    action = suggest(v, random.Random(1))
    fact = advise(v, action, random.Random(1))
    assert fact.kind == "move" and fact.path is not None
    assert fact.sides == len(action.path) - 1 and fact.path.points == action.path
    assert fact.black + fact.red == len(fact.path.new_walls)


def test_a_face_up_card_hint_names_the_province_it_pays_for():
    """R6.1: the provinces the card makes affordable, checked on the real game, and the same in any
    world the view allows; a card from the supply names none (it is not known yet)."""
    from engine.actions import CardSource, TakeCard
    from engine.state import Phase

    state, _ = new_game(packaged_map("aegean"), 2, 7)
    rng, found = random.Random(7), 0
    while not state.over and found < 3:
        if state.phase is Phase.ACTIONS and state.actions_taken == ():
            me, v = state.current, view(state, state.current)
            for slot, card in enumerate(state.face_up):
                if card is None:
                    continue
                take = TakeCard(me, CardSource.FACE_UP, slot)
                fact = advise(v, take, random.Random(1))
                assert fact == advise(v, take, random.Random(2))
                before = {p.province for p in ai.occupation_plans(state)}
                after = {p.province for p in ai.occupation_plans(apply(state, take)[0])}
                assert {p for p, _value in fact.free} == after - before
                found += bool(fact.free)
            supply = advise(v, TakeCard(me, CardSource.SUPPLY), random.Random(1))
            assert supply.symbol is None and supply.free == ()
        state, _ = apply(state, ai.greedy_player(state, rng))
    assert found, "no face-up card opened a province in this game"
