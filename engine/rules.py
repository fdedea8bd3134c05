"""Answers to every "what is legal?" question, computed from a state. Nothing here changes a state.

The bot's autocomplete, the renderer's previews and the computer players all ask these functions, and
``engine.game`` uses the same functions to check actions, so that what is offered is what is accepted.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Container, Hashable, Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import TypeVar, cast

from engine.actions import Move, MoveWay
from engine.errors import IllegalAction
from engine.geometry import Point, Side, Space, corners, side
from engine.maps import Map, SideKind
from engine.state import ACTIONS_PER_TURN, GameState, Phase, Province
from engine.symbols import NO_CARDS, SYMBOLS, Cards, Symbol, add, cards_of, contains, missing, one, sub, total

T = TypeVar("T")

# --- Moving Alexander (R3) ---------------------------------------------------------------------------


def _kept(state: GameState, key: Hashable, work: Callable[[], T]) -> T:
    """``work()`` once per state and key. The bot asks one state the same questions several times for one
    action (its autocomplete, its reading of the command, the check in ``apply``)."""
    derived = state.derived
    if key not in derived:
        derived[key] = work()
    return cast(T, derived[key])


def empty_spaces(state: GameState) -> frozenset[Space]:
    """R3.3: symbol spaces with no wall on a side, no guard, and Alexander on none of their corners (D1)."""
    return _kept(state, "empty_spaces", partial(_empty_spaces, state))


def _empty_spaces(state: GameState) -> frozenset[Space]:
    return empty_symbol_spaces(state.map, state.walls, state.guard_owner, state.alexander)


def empty_symbol_spaces(
    m: Map, walls: Container[Side], guarded: Container[Space], alexander: Point
) -> frozenset[Space]:
    """R3.3 from the public facts alone (a picture has a view, not a state): the symbol spaces with no
    wall on a side, no guard, and Alexander on none of their corners."""
    near_alexander = set(m.point_spaces.get(alexander, ()))
    return frozenset(
        s
        for s in m.symbol_spaces
        if s not in guarded
        and s not in near_alexander
        and not any(sd in walls for sd in m.space_sides[s])
    )


def symbols_with_empty_space(state: GameState) -> frozenset[Symbol]:
    return _kept(state, "symbols_with_empty_space", partial(_symbols_with_empty_space, state))


def _symbols_with_empty_space(state: GameState) -> frozenset[Symbol]:
    m = state.map
    return frozenset(sym for s in empty_spaces(state) if (sym := m.symbol[s]) is not None)


@dataclass(frozen=True)
class MoveChoice:
    """One way to pick the target symbol (R3.1). For a joker, ``symbol`` is the named symbol."""

    way: MoveWay
    symbol: Symbol
    slot: int | None = None
    card: Symbol | None = None


def move_choices(state: GameState) -> list[MoveChoice]:
    """R3.1: the ways the current player may choose a target symbol right now."""
    if state.phase is not Phase.MOVE:
        return []
    usable = symbols_with_empty_space(state)
    out: list[MoveChoice] = []
    for slot, up in enumerate(state.face_up):
        if not isinstance(up, Symbol):
            continue
        if up in usable:
            out.append(MoveChoice(MoveWay.NORMAL, up, slot=slot))
        else:
            out.extend(MoveChoice(MoveWay.JOKER, named, slot=slot) for named in SYMBOLS if named in usable)
    hand = state.players[state.current].hand
    for sym in SYMBOLS:
        if hand[sym.ordinal] > 0 and sym in usable:
            out.append(MoveChoice(MoveWay.SPECIAL, sym, card=sym))
    return out


def space_distance(state: GameState, space: Space) -> int:
    """R3.2: sides from Alexander's point to the nearest corner of the space."""
    dist = state.map.distance[state.alexander]
    return min(dist[p] for p in corners(space))


@dataclass(frozen=True)
class CornerOption:
    """A corner Alexander may stop on (R3.4), with the shortest paths there and their new walls (R3.5)."""

    point: Point
    distance: int
    paths: int
    fewest_walls: int
    most_walls: int


@dataclass(frozen=True)
class Target:
    space: Space
    distance: int
    corners: tuple[CornerOption, ...]


def closest_targets(state: GameState, symbol: Symbol) -> tuple[int, list[Space]]:
    """R3.2: the distance of the closest empty spaces showing ``symbol``, and those spaces."""
    m = state.map
    candidates = [s for s in empty_spaces(state) if m.symbol[s] is symbol]
    if not candidates:
        return -1, []
    dists = {s: space_distance(state, s) for s in candidates}
    best = min(dists.values())
    return best, sorted(s for s, d in dists.items() if d == best)


def targets(state: GameState, symbol: Symbol) -> list[Target]:
    """Every legal destination for a target symbol, with every corner and a summary of its paths."""
    distance, spaces = closest_targets(state, symbol)
    return [
        Target(s, distance, tuple(corner_option(state, p) for p in corners(s)))
        for s in spaces
    ]


def wall_cost(state: GameState, sd: Side) -> int:
    """R3.5, D2: 1 when walking this side places a wall."""
    if sd in state.walls:
        return 0
    if not state.options.coast_walls and state.map.side_kind[sd] is not SideKind.INTERIOR:
        return 0
    return 1


class _PathDag:
    """The shortest paths from Alexander to one point (R3.4) as a graph: every step that stays shortest,
    with its new wall (R3.5), and per point the number of paths on to the end and their fewest and most
    new walls. It is linear in the area between the two points, where the paths themselves are not."""

    def __init__(self, state: GameState, corner: Point) -> None:
        m = state.map
        to_corner = m.distance[corner]
        self.start = state.alexander
        self.corner = corner
        self.length = to_corner[self.start]
        steps: dict[Point, tuple[tuple[Point, int], ...]] = {}
        layer = [self.start]
        layers = [layer]
        while layer:
            nxt: dict[Point, None] = {}
            for p in layer:
                d = to_corner[p] - 1
                out = tuple((q, wall_cost(state, side(p, q))) for q in m.adjacent[p] if to_corner[q] == d)
                steps[p] = out
                for q, _ in out:
                    nxt[q] = None
            layer = list(nxt)
            if layer:
                layers.append(layer)
        self.steps = steps
        # (paths, fewest walls, most walls) from each point on to the corner
        stats: dict[Point, tuple[int, int, int]] = {corner: (1, 0, 0)}
        for layer in reversed(layers):
            for p in layer:
                if p == corner:
                    continue
                n, lo, hi = 0, 1 << 30, -1
                for q, w in steps[p]:
                    cn, clo, chi = stats[q]
                    n += cn
                    lo = min(lo, clo + w)
                    hi = max(hi, chi + w)
                stats[p] = (n, lo, hi)
        self.stats = stats

    def option(self) -> CornerOption:
        n, lo, hi = self.stats[self.start]
        return CornerOption(self.corner, self.length, n, lo, hi)

    def wall_sets(
        self, max_walls: int | None = None, limit: int | None = None
    ) -> tuple[list[PathOption], bool]:
        """Paths that differ in their new walls, fewest walls first, then by their points; for each set of
        walls the first of its paths in point order. Returns them and whether none was left out.

        Only new walls tell paths apart, so the search branches on the next new wall alone: from a point it
        looks past every step along an existing wall (free) to the next side that takes a wall. A best-first
        queue ordered by (walls so far + fewest walls still to come, points so far) yields the options in
        order without listing the paths, whose number grows exponentially with the distance.
        """
        stats, steps, corner = self.stats, self.steps, self.corner
        heap: list[tuple[int, tuple[Point, ...], tuple[Side, ...], bool]] = []
        heapq.heappush(heap, (stats[self.start][1], (self.start,), (), False))
        out: list[PathOption] = []
        while heap:
            if limit is not None and len(out) >= limit:
                return out, False
            bound, points, walls, done = heapq.heappop(heap)
            if done:
                out.append(PathOption(points, walls))
                continue
            for at, route in self._free_reach(points[-1]).items():
                if at == corner:
                    heapq.heappush(heap, (len(walls), points + route, walls, True))
                for q, w in steps[at]:
                    if not w:
                        continue
                    cost = len(walls) + 1 + stats[q][1]
                    if max_walls is None or cost <= max_walls:
                        heapq.heappush(heap, (cost, points + route + (q,), walls + (side(at, q),), False))
        return out, True

    def _free_reach(self, origin: Point) -> dict[Point, tuple[Point, ...]]:
        """Points reached from ``origin`` by steps that place no wall, each with its first route in point
        order (a depth-first search in point order meets every point first along that route)."""
        routes: dict[Point, tuple[Point, ...]] = {origin: ()}
        steps = self.steps
        # The depth-first search with a stack of its own, not a nested function calling itself: such a
        # function holds itself through its closure, a cycle that only the garbage collector frees, and a
        # bot's collections then held its event loop for longer (issue 30's stalls).
        stack = [(origin, iter(steps[origin]))]
        while stack:
            p, ahead = stack[-1]
            for q, w in ahead:
                if not w and q not in routes:
                    routes[q] = routes[p] + (q,)
                    stack.append((q, iter(steps[q])))
                    break
            else:
                stack.pop()
        return routes


def corner_option(state: GameState, corner: Point) -> CornerOption:
    """Count the shortest paths to ``corner`` and their fewest and most new walls, without listing them."""
    return _path_dag(state, corner).option()


@dataclass(frozen=True)
class PathOption:
    points: tuple[Point, ...]
    new_walls: tuple[Side, ...]


def shortest_paths(
    state: GameState, corner: Point, limit: int | None = None
) -> Iterator[tuple[Point, ...]]:
    """R3.4: every shortest path from Alexander to ``corner`` (at most ``limit``), in point order.

    Their number grows exponentially with the distance: ask ``path_options`` for the ones that differ.
    """
    m = state.map
    to_corner = m.distance[corner]
    count = 0
    # Depth first in point order, with a stack of its own (see _PathDag._free_reach for why not recursion).
    path = [state.alexander]
    stack = [iter(m.adjacent[state.alexander])]
    if state.alexander == corner:
        yield tuple(path)
        return
    while stack:
        for q in stack[-1]:
            if limit is not None and count >= limit:
                return
            if to_corner[q] == to_corner[path[-1]] - 1:
                path.append(q)
                if q == corner:
                    count += 1
                    yield tuple(path)
                    path.pop()
                    continue
                stack.append(iter(m.adjacent[q]))
                break
        else:
            stack.pop()
            path.pop()


def new_walls(state: GameState, path: tuple[Point, ...]) -> tuple[Side, ...]:
    """R3.5: the sides of the path that get a wall, in walking order."""
    out = []
    for a, b in zip(path, path[1:], strict=False):
        sd = side(a, b)
        if wall_cost(state, sd):
            out.append(sd)
    return tuple(out)


def path_options(state: GameState, corner: Point, limit: int = 25) -> list[PathOption]:
    """Paths to ``corner`` that differ in effect: one per distinct set of new walls, fewest walls first.

    Two paths that place the same walls leave the same board, so a player needs to see only one of them.
    The first ``limit`` are returned; a set of fewest walls is never passed over for a costlier one.
    """
    return _path_dag(state, corner).wall_sets(limit=limit)[0]


def walls_left(state: GameState) -> int:
    return state.black_left + state.red_left


def fewest_walls_of_any_move(state: GameState) -> int | None:
    """R3.7: the fewest new walls any legal move needs (None when no move exists)."""
    return _kept(state, "fewest_walls", partial(_fewest_walls_of_any_move, state))


def _fewest_walls_of_any_move(state: GameState) -> int | None:
    best: int | None = None
    symbols = {c.symbol for c in move_choices(state)}
    for sym in symbols:
        for t in targets(state, sym):
            for c in t.corners:
                if best is None or c.fewest_walls < best:
                    best = c.fewest_walls
    return best


def walls_allowed(state: GameState, count: int, fewest: int | None = None) -> bool:
    """R3.7: may a move that needs ``count`` new walls be made now?

    It may when the black and red walls left cover it. Otherwise only when no move at all fits, and then
    only a move that needs the fewest walls of any. ``fewest`` may pass in a known
    ``fewest_walls_of_any_move`` to spare the whole-board query when asking many times.
    """
    left = walls_left(state)
    if count <= left:
        return True
    if fewest is None:
        fewest = fewest_walls_of_any_move(state)
    return fewest is not None and fewest > left and count == fewest


def corner_allowed(state: GameState, corner: CornerOption, fewest: int | None = None) -> bool:
    """R3.7 for a corner: some shortest path to it needs a number of walls the player may place."""
    return walls_allowed(state, corner.fewest_walls, fewest)


def allowed_targets(state: GameState, symbol: Symbol) -> list[Target]:
    """``targets`` with only the corners R3.7 allows (a target left with none goes): what a move preview
    may offer, the same points as ``destination_points``. ``targets`` keeps every corner, for questions
    about all of them (the fewest walls of any move)."""
    out = []
    fewest: int | None = None
    for t in targets(state, symbol):
        if any(c.fewest_walls > walls_left(state) for c in t.corners) and fewest is None:
            fewest = fewest_walls_of_any_move(state)  # only asked when R3.7 can matter
        corners = tuple(c for c in t.corners if corner_allowed(state, c, fewest))
        if corners:
            out.append(Target(t.space, t.distance, corners))
    return out


def _path_dag(state: GameState, corner: Point) -> _PathDag:
    """The shortest paths to ``corner`` (R3.4), worked out once per state: the guided move's menus, the
    autocomplete, the preview and ``apply`` ask the same state about the same corners."""
    return _kept(state, ("path_dag", corner), partial(_PathDag, state, corner))


def legal_path_options(state: GameState, corner: Point, limit: int = 25) -> list[PathOption]:
    """``path_options`` without the paths R3.7 forbids, fewest walls first (at most ``limit``)."""
    dag = _path_dag(state, corner)
    cap = _wall_cap(state, dag.stats[dag.start][1])
    if cap is None:
        return []
    return dag.wall_sets(max_walls=cap, limit=limit)[0]


def _wall_cap(state: GameState, fewest_here: int, fewest_any: int | None = None) -> int | None:
    """R3.7, P5: the most new walls a path to a point whose cheapest path needs ``fewest_here`` may place,
    or None when no path to it is allowed."""
    left = walls_left(state)
    if fewest_here <= left:
        return left
    if fewest_any is None:
        fewest_any = fewest_walls_of_any_move(state)
    if fewest_any is not None and fewest_any > left and fewest_here == fewest_any:
        return fewest_here
    return None


def can_move(state: GameState) -> bool:
    return bool(move_choices(state))


# --- The guided move: one call per question (issue 10 item 4) -----------------------------------------


@dataclass(frozen=True)
class Destination:
    """A point Alexander may stop on for a target symbol (R3.2-R3.4, R3.7 and P5 respected).

    ``spaces`` are the closest empty spaces it is a corner of (which one is named changes nothing);
    ``paths`` counts the shortest paths; ``cheapest`` are the paths with the fewest new walls that differ
    in which walls they place, in point order; ``cheapest_complete`` is False when ``path_limit`` cut
    that list short (the point itself is never left out).
    """

    point: Point
    distance: int
    spaces: tuple[Space, ...]
    paths: int
    fewest_walls: int
    most_walls: int
    cheapest: tuple[PathOption, ...]
    cheapest_complete: bool


def _target_symbol(choice: MoveChoice | Symbol) -> Symbol:
    return choice.symbol if isinstance(choice, MoveChoice) else choice


Dags = tuple[tuple["_PathDag", tuple[Space, ...]], ...]


def _destination_dags(state: GameState, symbol: Symbol) -> Dags:
    """R3.2-R3.4, R3.7, P5: every allowed destination point, with its path graph and its spaces."""
    return _kept(state, ("destinations", symbol), partial(_find_destination_dags, state, symbol))


def _find_destination_dags(state: GameState, symbol: Symbol) -> Dags:
    _, spaces = closest_targets(state, symbol)
    per_point: dict[Point, list[Space]] = {}
    for s in spaces:
        for p in corners(s):
            per_point.setdefault(p, []).append(s)
    dags = [(_path_dag(state, p), tuple(sorted(per_point[p]))) for p in sorted(per_point)]
    left = walls_left(state)
    fewest_any: int | None = None
    if any(dag.stats[dag.start][1] > left for dag, _ in dags):
        fewest_any = fewest_walls_of_any_move(state)  # only asked when R3.7 can matter
    return tuple(
        (dag, spaces_at)
        for dag, spaces_at in dags
        if _wall_cap(state, dag.stats[dag.start][1], fewest_any) is not None
    )


def destinations(state: GameState, choice: MoveChoice | Symbol, path_limit: int = 25) -> list[Destination]:
    """Every legal destination point of a move choice, in point order, with its cheapest path options.

    Complete: every point ``apply`` accepts for this target symbol is here, whatever the distance.
    """
    out = []
    for dag, spaces in _destination_dags(state, _target_symbol(choice)):
        n, lo, hi = dag.stats[dag.start]
        cheapest, complete = dag.wall_sets(max_walls=lo, limit=path_limit)
        out.append(Destination(dag.corner, dag.length, spaces, n, lo, hi, tuple(cheapest), complete))
    return out


def destination_points(state: GameState, choice: MoveChoice | Symbol) -> tuple[Point, ...]:
    """The distinct points a move choice may end on (R3.2-R3.4, R3.7), in point order."""
    return tuple(dag.corner for dag, _ in _destination_dags(state, _target_symbol(choice)))


@dataclass(frozen=True)
class CheckedMove:
    """A move that passed every check of R3, and the walls it places (R3.5-R3.7). ``space`` is the closest
    empty space of the symbol that the end point is a corner of (the smallest, when several are)."""

    symbol: Symbol
    space: Space
    black: tuple[Side, ...]
    red: tuple[Side, ...]
    ends_game: bool  # R3.6, R3.7: red walls were needed, or no move fitted; the game ends after the turn


def check_move(state: GameState, action: Move) -> CheckedMove:
    """Every check of R3.1-R3.7 on a move, in the order of engine.errors; raise IllegalAction on the first
    that fails. ``apply`` and ``preview_move`` both use it, so a preview is what apply would do."""
    if state.phase is Phase.OVER:
        raise IllegalAction("game/over")
    if action.player != state.current:
        raise IllegalAction("game/not-your-turn", player=action.player, current=state.current)
    if state.phase is not Phase.MOVE:
        raise IllegalAction("turn/already-moved")
    player = state.players[action.player]
    usable = symbols_with_empty_space(state)

    target: Symbol
    if action.way in (MoveWay.NORMAL, MoveWay.JOKER):
        if action.slot not in (0, 1):
            raise IllegalAction("move/bad-slot", slot=action.slot)
        up = state.face_up[action.slot]
        if not isinstance(up, Symbol):
            raise IllegalAction("move/slot-empty", slot=action.slot)
        if action.way is MoveWay.NORMAL:
            if action.named is not None:
                raise IllegalAction("move/unexpected-symbol")
            if up not in usable:
                raise IllegalAction("move/no-empty-space", symbol=up.value, joker=True)
            target = up
        else:
            if up in usable:
                raise IllegalAction("move/joker-not-allowed", symbol=up.value)
            if action.named is None:
                raise IllegalAction("move/joker-needs-symbol")
            if action.named not in usable:
                raise IllegalAction("move/no-empty-space", symbol=action.named.value, joker=False)
            target = action.named
    else:
        if action.card is None or player.hand[action.card.ordinal] == 0:
            raise IllegalAction("move/not-in-hand", card=action.card.value if action.card else None)
        if action.named is not None:
            raise IllegalAction("move/unexpected-symbol")
        if action.card not in usable:
            raise IllegalAction("move/no-empty-space", symbol=action.card.value, joker=False)
        target = action.card

    m = state.map
    path = action.path
    if not path or path[0] != state.alexander:
        raise IllegalAction("move/bad-path", reason="start", alexander=state.alexander)
    for a, b in zip(path, path[1:], strict=False):
        if b not in m.adjacent.get(a, ()):
            raise IllegalAction("move/bad-path", reason="not-a-side", at=a, to=b)
    point = path[-1]
    around = m.point_spaces[point]
    showing = [s for s in around if m.symbol[s] is target]
    if not showing:
        raise IllegalAction("move/wrong-symbol", symbol=target.value, point=point, space=around[0])
    empty = empty_spaces(state)
    open_spaces = [s for s in showing if s in empty]
    if not open_spaces:
        raise IllegalAction("move/not-empty", point=point, space=showing[0])
    closest, _ = closest_targets(state, target)
    distance, space = min((space_distance(state, s), s) for s in open_spaces)
    if distance != closest:
        raise IllegalAction("move/not-closest", distance=distance, closest=closest, symbol=target.value)
    shortest = m.distance[state.alexander][point]
    if len(path) - 1 != shortest:
        raise IllegalAction("move/not-shortest", length=len(path) - 1, shortest=shortest)

    needed = new_walls(state, path)
    left = walls_left(state)
    if len(needed) > left:
        fewest = fewest_walls_of_any_move(state)
        if not walls_allowed(state, len(needed), fewest):
            code = "move/too-many-walls" if fewest is not None and fewest <= left else "move/not-fewest-walls"
            raise IllegalAction(code, needed=len(needed), left=left, fewest=fewest)
        needed = needed[:left]  # R3.7: place as many walls as are left
        ran_out = True
    else:
        ran_out = len(needed) > state.black_left  # R3.6: red walls end the game; an exact finish does not
    return CheckedMove(target, space, needed[: state.black_left], needed[state.black_left :], ran_out)


@dataclass(frozen=True)
class ProvincePart:
    """One part of a province cut by a move: its id after the split (P6), value (R4.5) and owner (R4.4)."""

    id: int
    spaces: frozenset[Space]
    value: int
    owner: int | None


@dataclass(frozen=True)
class ProvinceCut:
    province: int
    owner: int | None
    parts: tuple[ProvincePart, ...]  # the largest first: it keeps the province's id


@dataclass(frozen=True)
class MovePreview:
    """What a move would do, without doing it: its walls (R3.5), whether the game ends after this turn
    (R3.6, R3.7, R10.1) and the provinces it cuts (R4.1, R4.4), with the parts' values and owners."""

    symbol: Symbol
    point: Point
    black: tuple[Side, ...]
    red: tuple[Side, ...]
    ends_game: bool
    cuts: tuple[ProvinceCut, ...]
    black_left: int
    red_left: int

    @property
    def new_walls(self) -> tuple[Side, ...]:
        return self.black + self.red


def preview_move(state: GameState, action: Move) -> MovePreview:
    """The outcome of ``action`` as ``apply`` would make it; raise IllegalAction as apply would."""
    checked = check_move(state, action)
    added = checked.black + checked.red
    owner_of = state.guard_owner
    sym = state.map.symbol
    next_id = state.next_province_id
    cuts = []
    for pid, parts in splits_after(state, added):
        owner = province_owner(state, state.province_by_id[pid])
        out = []
        for i, part in enumerate(parts):
            if i == 0:
                part_id = pid
            else:
                part_id, next_id = next_id, next_id + 1
            owners = {owner_of[s] for s in part if s in owner_of}
            value = sum(1 for s in part if sym[s] is None)
            out.append(ProvincePart(part_id, part, value, next(iter(owners)) if owners else None))
        cuts.append(ProvinceCut(pid, owner, tuple(out)))
    return MovePreview(
        checked.symbol,
        action.path[-1],
        checked.black,
        checked.red,
        checked.ends_game,
        tuple(cuts),
        state.black_left - len(checked.black),
        state.red_left - len(checked.red),
    )


# --- Provinces (R4) -----------------------------------------------------------------------------------


def province_value(state: GameState, province: Province) -> int:
    """R4.5: the number of open spaces."""
    sym = state.map.symbol
    return sum(1 for s in province.spaces if sym[s] is None)


def province_owner(state: GameState, province: Province) -> int | None:
    """R4.4: the player whose guards stand in it, or None when it is free."""
    owners = {state.guard_owner[s] for s in province.spaces if s in state.guard_owner}
    return next(iter(owners)) if owners else None


def province_symbol_spaces(state: GameState, province: Province) -> tuple[Space, ...]:
    """The province's symbol spaces, in order (kept per shape: ``_shape``)."""
    return _shape(state.map, province.spaces)[1]


def split_province(state: GameState, province: Province, walls: frozenset[Side]) -> list[frozenset[Space]]:
    """R4.1: the connected parts of a province once ``walls`` stand, largest first."""
    return _largest_first(_parts(state.map, province.spaces, walls))


def _largest_first(parts: list[frozenset[Space]]) -> list[frozenset[Space]]:
    parts.sort(key=lambda p: (-len(p), min(p)))
    return parts


def _parts(m: Map, spaces: frozenset[Space], walls: frozenset[Side]) -> list[frozenset[Space]]:
    """The connected parts of ``spaces`` (a province)."""
    left = set(spaces)
    parts: list[frozenset[Space]] = []
    while left:
        seed = min(left)
        group = {seed}
        stack = [seed]
        left.discard(seed)
        while stack:
            s = stack.pop()
            for sd in m.space_sides[s]:
                if sd in walls:
                    continue
                for n in m.side_spaces[sd]:
                    if n in left:
                        left.discard(n)
                        group.add(n)
                        stack.append(n)
        parts.append(frozenset(group))
    return parts


def initial_provinces(state: GameState) -> tuple[Province, ...]:
    whole = Province(0, frozenset(state.map.spaces))
    parts = split_province(state, whole, state.walls)
    parts.sort(key=min)
    return tuple(Province(i + 1, p) for i, p in enumerate(parts))


def splits_after(state: GameState, added: tuple[Side, ...]) -> list[tuple[int, list[frozenset[Space]]]]:
    """R4.1: the provinces that ``added`` walls cut in two or more, with their parts (largest first)."""
    if not added:
        return []
    m = state.map
    walls = state.walls | frozenset(added)
    ends: dict[int, set[Space]] = {}  # each touched province: the spaces on either side of its new walls
    for sd in added:
        if m.side_kind[sd] is SideKind.INTERIOR:
            for s in m.side_spaces[sd]:
                ends.setdefault(state.province_of[s], set()).add(s)
    out = []
    for pid in sorted(ends):
        parts = _cut(m, state.province_by_id[pid].spaces, walls, ends[pid])
        if parts is not None:
            out.append((pid, parts))
    return out


def _cut(
    m: Map, inside: frozenset[Space], walls: frozenset[Side], ends: set[Space]
) -> list[frozenset[Space]] | None:
    """The parts of a province (largest first) that new walls cut, or None if they cut nothing; ``ends``:
    the spaces either side of the new walls.

    The province was whole before, and each new wall parts only the two spaces it lies between: the
    province is still whole if they all still meet, since every old way through can go around the walls;
    and likewise, what is left of it once some parts are taken away is one part if the ends in it meet.
    So a search starts from every end at once, a ring of spaces at a time each, and two searches that meet
    become one. A search that runs out of spaces has walked a whole part, the smallest first; once the
    searches left have all met, the spaces nobody finished are the last part, without walking them.
    Most moves cut nothing, and the searches meet a few spaces around the walls; a cut walks the parts cut
    off, not the rest of a large province (236-space map: 110 -> 26 us a move, the full walk before)."""
    root = {e: e for e in ends}  # which search each search became (searches are named by their end)

    def find(e: Space) -> Space:
        while root[e] != e:
            root[e] = root[root[e]]
            e = root[e]
        return e

    owner = {e: e for e in ends}  # the search that reached each space first
    members = {e: [e] for e in ends}
    rings = {e: [e] for e in ends}
    parts: list[frozenset[Space]] = []
    while len(rings) > 1:
        for r in list(rings):
            if r not in rings:  # it met another search this round, and goes on as that one
                continue
            ahead: list[Space] = []
            met: set[Space] = set()
            mine = members[r]
            for s in rings[r]:
                for sd in m.space_sides[s]:
                    if sd in walls:
                        continue
                    for n in m.side_spaces[sd]:
                        if n not in inside:
                            continue
                        o = owner.get(n)
                        if o is None:
                            owner[n] = r
                            mine.append(n)
                            ahead.append(n)
                        else:
                            other = find(o)
                            if other != r:
                                met.add(other)
            rings[r] = ahead
            for other in met:
                root[other] = r
                mine.extend(members.pop(other))
                ahead.extend(rings.pop(other))
            if not ahead:  # nowhere left to go: a whole part
                parts.append(frozenset(members.pop(r)))
                del rings[r]
            if len(rings) <= 1:
                break
    if not parts:
        return None
    rest = inside.difference(*parts)
    return _largest_first([*parts, rest] if rest else parts)


# --- Occupy and take over (R6) ------------------------------------------------------------------------


def occupation_cost(state: GameState, province: Province, guards: tuple[Space, ...]) -> Cards:
    """R6.1-R6.2: one card for every symbol space of the province without one of the new guards."""
    sym = state.map.symbol
    return cards_of([_symbol(sym[s]) for s in province_symbol_spaces(state, province) if s not in guards])


def removal_cost(state: GameState, province: Province) -> Cards:
    """R6.3: two cards showing the symbol under each of the owner's guards."""
    sym = state.map.symbol
    need = NO_CARDS
    for s in province.spaces:
        if s in state.guard_owner:
            need = add(need, one(_symbol(sym[s]), 2))
    return need


def compensation_size(state: GameState, paid: Cards) -> int:
    """R6.4: half of all cards paid, rounded up; nothing in a 2-player game."""
    if len(state.players) == 2:
        return 0
    return (total(paid) + 1) // 2


def takeover_price(state: GameState, province: Province, guards: tuple[Space, ...]) -> Cards:
    """R6.3: every card a take-over with these guards costs: the removal and the occupation together."""
    return add(removal_cost(state, province), occupation_cost(state, province, guards))


def check_province_action(state: GameState, player: int, province_id: int, takeover: bool | None) -> Province:
    """The checks of R6 that come before any guard is chosen; raise IllegalAction when one fails.

    ``takeover`` False asks about occupying, True about taking over, None about whichever the owner allows.
    """
    if state.phase is Phase.MOVE:
        raise IllegalAction("turn/move-first")
    if actions_left(state) == 0:
        raise IllegalAction("turn/no-actions-left")
    province = state.province_by_id.get(province_id)
    if province is None:
        raise IllegalAction("province/unknown", province=province_id)
    owner = province_owner(state, province)
    if owner == player:  # R6.5, and a province of one's own is not free to occupy either
        raise IllegalAction("takeover/own-province", province=province_id)
    if takeover is False and owner is not None:
        raise IllegalAction("occupy/not-free", province=province_id, owner=owner)
    if takeover is True and owner is None:
        raise IllegalAction("takeover/free", province=province_id)
    if not province_symbol_spaces(state, province):
        raise IllegalAction("occupy/no-symbol-space", province=province_id)
    return province


@dataclass(frozen=True)
class OccupyPlan:
    """The fewest guards that make occupying (or taking over) a province affordable, and its price."""

    province: int
    guards: tuple[Space, ...]
    removal: Cards
    cost: Cards
    missing: Cards
    compensation: int

    @property
    def paid(self) -> Cards:
        return add(self.removal, self.cost)

    @property
    def affordable(self) -> bool:
        return total(self.missing) == 0


def plan_occupation(state: GameState, player: int, province: Province) -> OccupyPlan | None:
    """The cheapest way for ``player`` to occupy or take over ``province``, or None if it never can be.

    Each guard spares one card, so guards go first on symbols the hand lacks; more guards than needed
    are never suggested, because a province with two guards of one player scores nothing (R7.3).
    """
    owner = province_owner(state, province)
    spaces = province_symbol_spaces(state, province)
    pl = state.players[player]
    if owner == player or not spaces or pl.guards_in_supply == 0:
        return None
    removal = removal_cost(state, province) if owner is not None else NO_CARDS
    if not contains(pl.hand, removal):
        have = NO_CARDS
    else:
        have = sub(pl.hand, removal)
    sym = state.map.symbol
    chosen: list[Space] = []
    free_spaces = list(spaces)

    def shortage() -> Cards:
        return missing(have, occupation_cost(state, province, tuple(chosen)))

    while len(chosen) < pl.guards_in_supply and free_spaces:
        short = shortage()
        if chosen and total(short) == 0:
            break
        # Cover the symbol the hand lacks most; with no shortage, the one it holds fewest of.
        best = min(free_spaces, key=partial(_cover_key, sym, short, have))
        if chosen and short[_symbol(sym[best]).ordinal] == 0:
            break
        chosen.append(best)
        free_spaces.remove(best)
    cost = occupation_cost(state, province, tuple(chosen))
    paid = add(removal, cost)
    return OccupyPlan(
        province=province.id,
        guards=tuple(chosen),
        removal=removal,
        cost=cost,
        missing=missing(pl.hand, paid),
        compensation=compensation_size(state, paid) if owner is not None else 0,
    )


@dataclass(frozen=True)
class ProvinceInfo:
    id: int
    spaces: frozenset[Space]
    value: int
    symbol_spaces: tuple[Space, ...]
    owner: int | None
    guards: tuple[Space, ...]


def province_infos(state: GameState) -> list[ProvinceInfo]:
    """Each province's value (R4.5), symbol spaces, owner (R4.4) and guards."""
    return list(_kept(state, "province_infos", partial(_province_infos, state)))


def _province_infos(state: GameState) -> tuple[ProvinceInfo, ...]:
    # A province's value and symbol spaces follow from its spaces alone, and most provinces are carried
    # over unchanged from state to state: they are worked out once per shape (``_shape``). Its guards are
    # found from the few guards on the map, not by looking at every space of every province.
    guards_in: dict[int, list[Space]] = {}
    of = state.province_of
    for s in state.guard_owner:
        guards_in.setdefault(of[s], []).append(s)
    owner_of = state.guard_owner
    out = []
    for p in state.provinces:
        value, symbol_spaces = _shape(state.map, p.spaces)
        guards = tuple(sorted(guards_in.get(p.id, ())))
        owners = {owner_of[s] for s in guards}  # R4.4: one player's, as province_owner finds it
        out.append(
            ProvinceInfo(
                id=p.id,
                spaces=p.spaces,
                value=value,
                symbol_spaces=symbol_spaces,
                owner=next(iter(owners)) if owners else None,
                guards=guards,
            )
        )
    return tuple(out)


@lru_cache(maxsize=4096)
def _shape(m: Map, spaces: frozenset[Space]) -> tuple[int, tuple[Space, ...]]:
    """R4.5: a province's value (its open spaces), and its symbol spaces in order."""
    sym = m.symbol
    return sum(1 for s in spaces if sym[s] is None), tuple(sorted(s for s in spaces if sym[s] is not None))


# --- Levy and take back (R7, R8) ----------------------------------------------------------------------


def levy_cards(state: GameState, player: int) -> list[Symbol]:
    """R7.2, D3: hand cards matching the space under any of the player's guards."""
    pl = state.players[player]
    under = {state.map.symbol[s] for s in pl.guards}
    return [sym for sym in SYMBOLS if sym in under and pl.hand[sym.ordinal] > 0]


def can_levy(state: GameState, player: int) -> bool:
    """R7.1, R7.2: an action is left, no levy yet this turn, and a hand card matches one of the guards."""
    return (
        state.current == player
        and actions_left(state) > 0
        and not state.levied
        and bool(levy_cards(state, player))
    )


def supply_can_give(state: GameState) -> bool:
    """R5.3: a card can come from the supply (or from the discard pile, shuffled into a new supply)."""
    return bool(state.supply) or total(state.discard) > 0


def levy_scores(state: GameState) -> list[tuple[int, tuple[int, ...]]]:
    """R7.3: per player, the points a levy would give now and the provinces that give them."""
    per_player: list[list[int]] = [[] for _ in state.players]
    for p in state.provinces:
        counts: dict[int, int] = {}
        for s in p.spaces:
            owner = state.guard_owner.get(s)
            if owner is not None:
                counts[owner] = counts.get(owner, 0) + 1
        for owner, n in counts.items():
            if n == 1:
                per_player[owner].append(p.id)
    out = []
    for ids in per_player:
        pts = sum(province_value(state, state.province_by_id[i]) for i in ids)
        out.append((pts, tuple(sorted(ids))))
    return out


def scoring_order(state: GameState, first: int) -> list[int]:
    """R7.3: the levying player, then the others clockwise (seating order)."""
    n = len(state.players)
    return [(first + k) % n for k in range(n) if not state.players[(first + k) % n].resigned]


# --- The turn as a whole --------------------------------------------------------------------------------


def actions_left(state: GameState) -> int:
    if state.phase is not Phase.ACTIONS:
        return 0
    return ACTIONS_PER_TURN - len(state.actions_taken)


def next_seat(state: GameState, after: int) -> int | None:
    """The next player clockwise who has not resigned."""
    n = len(state.players)
    for k in range(1, n + 1):
        seat = (after + k) % n
        if not state.players[seat].resigned:
            return seat
    return None


def active_players(state: GameState) -> list[int]:
    return [i for i, p in enumerate(state.players) if not p.resigned]


def winners(state: GameState) -> tuple[int, ...]:
    """R10.3, D9: every player still in the game with the top score."""
    seats = active_players(state)
    if not seats:
        return ()
    best = max(state.players[i].score for i in seats)
    return tuple(i for i in seats if state.players[i].score == best)


def _cover_key(
    sym: Mapping[Space, Symbol | None], short: Cards, have: Cards, s: Space
) -> tuple[int, int, Space]:
    i = _symbol(sym[s]).ordinal
    return (-short[i], have[i], s)


def _symbol(s: Symbol | None) -> Symbol:
    assert s is not None, "a symbol space was expected"
    return s
