"""The guided move's queries (engine.rules.destinations, destination_points, preview_move) against apply,
on the default map and on a map 4x its size, where the shortest paths number in the hundreds of thousands.

What is offered is what apply accepts (R3.2-R3.7, P5), and nothing apply accepts is left out.
"""

from __future__ import annotations

import random
import re

import pytest

from engine import ai, rules
from engine.actions import Move, MoveWay
from engine.errors import IllegalAction
from engine.events import AlexanderMoved, ProvinceSplit
from engine.game import apply, new_game
from engine.geometry import Point, Side, corners, side
from engine.maps import Map, default_map, parse_map
from engine.state import GameState, Phase
from tests.engine.bigmap import base_map, tiled_map_text
from tests.engine.helpers import A, L, position

BIG = parse_map(tiled_map_text(walls="40 black, 8 red"))
SPARSE = parse_map(tiled_map_text(walls="10 black, 5 red", symbols=False))  # far moves, R3.7 at once
WALLED = parse_map(tiled_map_text(walls="26 black, 4 red", symbols=False))
FAR = parse_map(tiled_map_text(walls="200 black, 10 red", symbols=False))  # far moves, many turns


def _bfs(m: Map, origin: Point) -> dict[Point, int]:
    dist = {origin: 0}
    queue = [origin]
    for p in queue:
        for q in m.adjacent[p]:
            if q not in dist:
                dist[q] = dist[p] + 1
                queue.append(q)
    return dist


def _cheapest_path(st: GameState, corner: Point) -> tuple[Point, ...]:
    """A shortest path with the fewest new walls, by a dynamic programme written for this test alone."""
    to_corner = _bfs(st.map, corner)

    def cost(a: Point, b: Point) -> int:
        return 0 if side(a, b) in st.walls else 1

    best: dict[Point, tuple[int, tuple[Point, ...]]] = {corner: (0, (corner,))}
    for p in sorted(to_corner, key=lambda q: to_corner[q]):
        if p == corner or to_corner[p] > to_corner[st.alexander]:
            continue
        options = [
            (cost(p, q) + best[q][0], (p,) + best[q][1])
            for q in st.map.adjacent[p]
            if to_corner[q] == to_corner[p] - 1
        ]
        best[p] = min(options)
    return best[st.alexander][1]


def _move(st: GameState, choice: rules.MoveChoice, path: tuple[Point, ...]) -> Move:
    return ai.move_action(st, choice, path)


def _accepted(st: GameState, move: Move) -> bool:
    try:
        apply(st, move)
    except IllegalAction:
        return False
    return True


def _check_complete(st: GameState) -> int:
    """Every offered destination and cheapest path is accepted; every point apply accepts is offered."""
    checked = 0
    for choice in rules.move_choices(st):
        dests = rules.destinations(st, choice, path_limit=4)
        assert rules.destination_points(st, choice) == tuple(d.point for d in dests)
        offered = {d.point for d in dests}
        for d in dests:
            assert d.cheapest and all(len(o.new_walls) == d.fewest_walls for o in d.cheapest)
            for option in d.cheapest[:2]:
                assert _accepted(st, _move(st, choice, option.points)), (choice, d.point)
        # Independently: corners of the closest empty spaces of the symbol, each tried on a cheapest path.
        dist = _bfs(st.map, st.alexander)
        empty = [s for s in rules.empty_spaces(st) if st.map.symbol[s] is choice.symbol]
        closest = min(min(dist[p] for p in corners(s)) for s in empty)
        candidates = {p for s in empty if min(dist[q] for q in corners(s)) == closest for p in corners(s)}
        for p in candidates:
            accepted = _accepted(st, _move(st, choice, _cheapest_path(st, p)))
            assert accepted == (p in offered), (choice, p)
            checked += 1
    return checked


def _states(m: Map, seed: int, players: int = 3, turns: int = 400) -> list[GameState]:
    st, _ = new_game(m, players, seed)
    rng = random.Random(seed)
    out = []
    while st.phase is not Phase.OVER and st.turn < turns:
        if st.phase is Phase.MOVE and rules.move_choices(st):
            out.append(st)
        st, _ = apply(st, ai.random_player(st, rng))
    return out


@pytest.mark.parametrize("m", [BIG, SPARSE, FAR], ids=["4x", "4x-far-few-walls", "4x-far"])
def test_r3_4_r3_7_every_destination_apply_accepts_is_offered_on_a_map_4x_the_default(m: Map) -> None:
    assert len(m.spaces) == 4 * len(base_map().spaces) >= 4 * len(default_map().spaces)
    checked = 0
    most_paths = 0
    for seed in (1, 2, 3):
        for st in _states(m, seed)[:: 4 if m is BIG else 1]:
            checked += _check_complete(st)
            most_paths = max(
                most_paths, max(d.paths for c in rules.move_choices(st) for d in rules.destinations(st, c, 0))
            )
    assert checked > 10
    if m is not BIG:
        assert most_paths > 100_000  # far beyond what listing the paths could ever offer


def _far_walled_position() -> tuple[GameState, Point, tuple[Side, ...]]:
    """On the far map, walls already stand along all but 3 sides of the LAST shortest path (in point order)
    to a lyre, and only 10 walls are left: R3.7 allows only paths that reuse those walls."""
    st = position(WALLED, players=3, face_up=(L, L))
    dest = rules.destinations(st, L, path_limit=0)[0]
    to_corner = _bfs(WALLED, dest.point)
    path = [st.alexander]
    while path[-1] != dest.point:
        path.append(max(q for q in WALLED.adjacent[path[-1]] if to_corner[q] == to_corner[path[-1]] - 1))
    sides = tuple(side(a, b) for a, b in zip(path, path[1:], strict=False))
    return position(WALLED, players=3, face_up=(L, L), walls=sides[3:]), dest.point, sides[:3]


def test_r3_7_a_far_move_that_reuses_walls_is_offered_and_taken_by_every_player() -> None:
    st, point, open_sides = _far_walled_position()
    dest = next(d for d in rules.destinations(st, L) if d.point == point)
    assert dest.paths > 2000 and dest.fewest_walls == 3 < rules.walls_left(st) < dest.most_walls
    assert set(dest.cheapest[0].new_walls) == set(open_sides)
    assert rules.legal_path_options(st, point)[0] == dest.cheapest[0]
    for seed in range(20):
        move = ai.random_move(st, random.Random(seed))
        assert len(rules.new_walls(st, move.path)) <= rules.walls_left(st)
        apply(st, move)


def test_r3_4_cheapest_options_differ_in_walls_and_come_in_point_order() -> None:
    for st in _states(default_map(), 5, players=4)[:40]:
        for choice in rules.move_choices(st):
            for d in rules.destinations(st, choice):
                walls = [frozenset(o.new_walls) for o in d.cheapest]
                assert len(set(walls)) == len(walls)
                assert [o.points for o in d.cheapest] == sorted(o.points for o in d.cheapest)
                if d.cheapest_complete:  # the same as the cheapest of all the path options
                    every = rules.path_options(st, d.point, limit=10_000)
                    assert d.cheapest == tuple(o for o in every if len(o.new_walls) == d.fewest_walls)


def test_r3_7_destinations_leave_out_points_whose_fewest_walls_do_not_fit() -> None:
    from tests.engine.test_r2_r3_setup_and_moves import WALL_POOR

    fits = position(WALL_POOR, face_up=(A, L))  # 2 walls left; the amphora's corners need 3 or more
    assert rules.destination_points(fits, A) == ()
    assert rules.destination_points(fits, L) != ()
    stuck = position(WALL_POOR, face_up=(A, None), hands={0: (0,) * 5, 1: (0,) * 5})  # P5: no move fits
    points = rules.destination_points(stuck, A)
    assert points and all(d.fewest_walls == 3 for d in rules.destinations(stuck, A))


def test_r3_7_allowed_targets_offer_the_points_apply_accepts_no_others() -> None:
    """The move preview draws ``allowed_targets``: its corners are exactly ``destination_points`` (it drew
    every corner of ``targets``, also those R3.7 forbids when few walls are left)."""
    from tests.engine.test_r2_r3_setup_and_moves import WALL_POOR

    fits = position(WALL_POOR, face_up=(A, L))
    assert rules.allowed_targets(fits, A) == [] and rules.targets(fits, A) != []
    stuck = position(WALL_POOR, face_up=(A, None), hands={0: (0,) * 5, 1: (0,) * 5})
    cut = 0
    for st in (fits, stuck):
        for symbol in {c.symbol for c in rules.move_choices(st)}:
            allowed = {c.point for t in rules.allowed_targets(st, symbol) for c in t.corners}
            assert allowed == set(rules.destination_points(st, symbol))
            cut += len({c.point for t in rules.targets(st, symbol) for c in t.corners} - allowed)
    assert cut > 0
    for seed in range(6):  # whole games on a map with few walls: every state on the way
        text = re.sub(r"^walls:.*$", "walls: 3 black, 1 red", default_map().text, flags=re.M)
        st, rng = new_game(parse_map(text, "few walls"), 2, seed)[0], random.Random(seed)
        while not st.over:
            if st.phase is Phase.MOVE:
                for symbol in {c.symbol for c in rules.move_choices(st)}:
                    allowed = {c.point for t in rules.allowed_targets(st, symbol) for c in t.corners}
                    assert allowed == set(rules.destination_points(st, symbol)), (seed, st.turn)
            st = apply(st, ai.greedy_player(st, rng))[0]


def _apply_outcome(st: GameState, move: Move) -> tuple[object, ...]:
    after, events = apply(st, move)
    moved = next(e for e in events if isinstance(e, AlexanderMoved))
    cuts = []
    for e in events:
        if isinstance(e, ProvinceSplit):
            ids = [e.province] + [pid for pid, _ in e.parts]
            provinces = [after.province_by_id[pid] for pid in ids]
            parts = [
                (p.id, p.spaces, rules.province_value(after, p), rules.province_owner(after, p))
                for p in provinces
            ]
            cuts.append((e.province, parts))
    return moved.black, moved.red, moved.walls_ran_out, cuts, after.black_left, after.red_left


def test_r3_5_r3_6_r4_4_preview_tells_what_apply_does() -> None:
    seen_cut = seen_end = 0
    for m, seed in ((default_map(), 3), (default_map(), 4), (BIG, 3)):
        for st in _states(m, seed, players=4):
            for choice in rules.move_choices(st)[:2]:
                for d in rules.destinations(st, choice, path_limit=2)[:4]:
                    move = _move(st, choice, d.cheapest[-1].points)
                    pv = rules.preview_move(st, move)
                    cuts = [
                        (c.province, [(p.id, p.spaces, p.value, p.owner) for p in c.parts]) for c in pv.cuts
                    ]
                    told = (pv.black, pv.red, pv.ends_game, cuts, pv.black_left, pv.red_left)
                    assert told == _apply_outcome(st, move)
                    seen_cut += bool(pv.cuts)
                    seen_end += pv.ends_game
    assert seen_cut > 10 and seen_end > 0


def test_r3_7_preview_refuses_what_apply_refuses() -> None:
    from tests.engine.test_r2_r3_setup_and_moves import WALL_POOR

    fits = position(WALL_POOR, face_up=(A, L))
    t = rules.targets(fits, A)[0]
    path = next(rules.shortest_paths(fits, t.corners[0].point))
    move = Move(0, MoveWay.NORMAL, path, slot=0)
    with pytest.raises(IllegalAction) as by_apply:
        apply(fits, move)
    with pytest.raises(IllegalAction) as by_preview:
        rules.preview_move(fits, move)
    assert by_apply.value.code == by_preview.value.code == "move/too-many-walls"


def test_r3_7_the_greedy_player_also_finds_the_far_move_that_reuses_walls() -> None:
    st, _, _ = _far_walled_position()
    apply(st, ai.greedy_player(st, random.Random(1)))


def test_answers_kept_with_a_state_are_the_answers_worked_out_afresh() -> None:
    """R3.3, R3.2-R3.4, R3.7: empty_spaces, the destinations and the fewest walls of any move are kept
    with the state that was asked (GameState.derived); on every move position of three games they equal
    the answers for an equal state never asked before, asked twice give the same object, and what is kept
    is not part of the state's value (equality, snapshots)."""
    import dataclasses

    from engine.snapshot import dump_state

    checked = 0
    for seed in range(3):
        state, _ = new_game(default_map(), 3, seed)
        rng = random.Random(seed)
        for _ in range(120):
            if state.over:
                break
            if state.phase is Phase.MOVE:
                fresh = dataclasses.replace(state)
                assert not fresh.derived
                for symbol in sorted(rules.symbols_with_empty_space(state)):
                    kept = rules.destinations(state, symbol)
                    assert rules.destinations(state, symbol) == kept
                    assert rules.destinations(fresh, symbol) == kept
                    assert rules.destination_points(fresh, symbol) == rules.destination_points(state, symbol)
                assert rules.empty_spaces(state) is rules.empty_spaces(state)
                assert rules.empty_spaces(fresh) == rules.empty_spaces(state)
                kept_fewest = rules.fewest_walls_of_any_move(state)  # R3.7
                assert kept_fewest == rules.fewest_walls_of_any_move(state)
                assert kept_fewest == rules._fewest_walls_of_any_move(fresh)
                assert state == dataclasses.replace(state) and dump_state(state) == dump_state(fresh)
                checked += 1
            state = apply(state, ai.greedy_player(state, rng))[0]
    assert checked > 20


def test_the_move_queries_leave_no_garbage_cycles() -> None:
    """The path searches (R3.4-R3.7) free what they made as they return: no reference cycle is left for the
    garbage collector, whose collections hold a bot's event loop (issue 30's stalls). A nested function that
    called itself held itself through its closure: thousands of such cycles a minute of play."""
    import collections
    import gc

    states = _states(default_map(), 5, players=4)[:12]
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        for st in states:
            for choice in rules.move_choices(st):
                for d in rules.destinations(st, choice):
                    rules.path_options(st, d.point, limit=50)
                    rules.legal_path_options(st, d.point, limit=5)
                    list(rules.shortest_paths(st, d.point, limit=20))
        found = gc.collect()
        kinds = collections.Counter(type(o).__name__ for o in gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert found == 0, kinds.most_common(5)
