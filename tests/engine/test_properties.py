"""Properties of random legal games (hypothesis): card, guard and wall counts, scores, replay, JSON, views."""

from __future__ import annotations

import random
from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import ai, invariants, rules, serialize
from engine.game import apply, new_game, replay
from engine.maps import default_map
from engine.state import GUARDS_PER_PLAYER, GameState, Phase
from engine.symbols import SYMBOLS, add, cards_of
from engine.views import view

MAP = default_map()
PROFILE = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _card_counts(state: GameState) -> tuple[int, ...]:
    counts = state.discard
    for p in state.players:
        counts = add(counts, p.hand)
    loose = [c for c in state.face_up if c is not None] + list(state.supply)
    return add(counts, cards_of(loose))


def _random_game(seed: int, players: int, steps: int) -> tuple[list[GameState], list[object]]:
    rng = random.Random(seed)
    state, events = new_game(MAP, players, seed)
    states, log = [state], list(events)
    for _ in range(steps):
        if state.phase is Phase.OVER:
            break
        action = ai.random_player(state, rng) if rng.random() < 0.7 else ai.greedy_player(state, rng)
        state, events = apply(state, action, expected_version=state.version)
        states.append(state)
        log.extend(events)
    return states, log


games = st.tuples(st.integers(0, 2**32), st.sampled_from([2, 3, 4]), st.integers(20, 160))


@PROFILE
@given(games)
def test_property_r2_1_55_cards_11_per_symbol(game: tuple[int, int, int]) -> None:
    states, _ = _random_game(*game)
    for s in states:
        assert _card_counts(s) == (11,) * len(SYMBOLS)


@PROFILE
@given(games)
def test_property_r2_1_four_guards_per_player_on_map_or_in_supply(game: tuple[int, int, int]) -> None:
    states, _ = _random_game(*game)
    for s in states:
        for p in s.players:
            assert len(p.guards) + p.guards_in_supply == GUARDS_PER_PLAYER
            assert all(s.map.symbol[g] is not None for g in p.guards)
        owners = [o for o in s.guard_owner.values()]
        assert len(owners) == sum(len(p.guards) for p in s.players)  # one guard per space


@PROFILE
@given(games)
def test_property_r3_5_walls_placed_plus_left_equal_the_supply(game: tuple[int, int, int]) -> None:
    states, _ = _random_game(*game)
    for s in states:
        black_placed = len(s.walls) - len(s.red_walls)
        assert black_placed + s.black_left == MAP.black_walls
        assert len(s.red_walls) + s.red_left == MAP.red_walls
        assert s.black_left >= 0 and s.red_left >= 0


@PROFILE
@given(games)
def test_property_scores_never_fall_and_invariants_hold(game: tuple[int, int, int]) -> None:
    states, _ = _random_game(*game)
    for before, after in zip(states, states[1:], strict=False):
        assert all(b.score <= a.score for b, a in zip(before.players, after.players, strict=True))
        assert invariants.check_step(before, after) == []
    assert invariants.check(states[-1]) == []


@PROFILE
@given(games)
def test_property_replay_and_json_round_trip_give_the_same_state(game: tuple[int, int, int]) -> None:
    states, log = _random_game(*game)
    assert replay(log) == states[-1]  # type: ignore[arg-type]
    assert serialize.loads(serialize.dumps(states[-1])) == states[-1]
    assert [serialize.loads(serialize.dumps(e)) for e in log] == log


@PROFILE
@given(games, st.integers(0, 3), st.randoms(use_true_random=False))
def test_property_r2_5_view_ignores_other_hands_and_supply_order(
    game: tuple[int, int, int], viewer_pick: int, shuffle: random.Random
) -> None:
    states, _ = _random_game(*game)
    s = states[-1]
    viewer = viewer_pick % len(s.players)
    players = []
    for i, p in enumerate(s.players):
        if i == viewer:
            players.append(p)
            continue
        # Same number of cards, other symbols.
        n = sum(p.hand)
        other = cards_of([shuffle.choice(SYMBOLS) for _ in range(n)])
        players.append(replace(p, hand=other))
    supply = list(s.supply)
    shuffle.shuffle(supply)
    changed = replace(s, players=tuple(players), supply=tuple(supply), rng=shuffle.getrandbits(64))
    assert view(changed, viewer) == view(s, viewer)
    assert view(changed, None) == view(s, None)


def test_property_rules_queries_offer_only_legal_moves() -> None:
    """Every destination and path the queries offer is accepted by apply (what is offered is accepted)."""
    states, _ = _random_game(99, 3, 120)
    checked = 0
    for s in states:
        if s.phase is not Phase.MOVE:
            continue
        for choice in rules.move_choices(s)[:3]:
            for target in rules.targets(s, choice.symbol)[:2]:
                for corner in target.corners:
                    for option in rules.path_options(s, corner.point, limit=3):
                        if len(option.new_walls) > rules.walls_left(s):
                            continue
                        apply(s, ai.move_action(s, choice, option.points))
                        checked += 1
    assert checked > 50
