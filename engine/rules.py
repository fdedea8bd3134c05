"""Answers to every "what is legal?" question, computed from a state. Nothing here changes a state.

The bot's autocomplete, the renderer's previews and the computer players all ask these functions, and
``engine.game`` uses the same functions to check actions, so that what is offered is what is accepted.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import partial

from engine.actions import MoveWay
from engine.errors import IllegalAction
from engine.geometry import Point, Side, Space, corners, side
from engine.maps import SideKind
from engine.state import ACTIONS_PER_TURN, GameState, Phase, Province
from engine.symbols import NO_CARDS, SYMBOLS, Cards, Symbol, add, contains, missing, one, sub, total

# --- Moving Alexander (R3) ---------------------------------------------------------------------------


def empty_spaces(state: GameState) -> frozenset[Space]:
    """R3.3: symbol spaces with no wall on a side, no guard, and Alexander on none of their corners (D1)."""
    m = state.map
    near_alexander = set(m.point_spaces.get(state.alexander, ()))
    guarded = state.guard_owner
    walls = state.walls
    return frozenset(
        s
        for s in m.symbol_spaces
        if s not in guarded
        and s not in near_alexander
        and not any(sd in walls for sd in m.space_sides[s])
    )


def symbols_with_empty_space(state: GameState) -> frozenset[Symbol]:
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


def corner_option(state: GameState, corner: Point) -> CornerOption:
    """Count the shortest paths to ``corner`` and their fewest and most new walls, without listing them."""
    start = state.alexander
    m = state.map
    to_corner = m.distance[corner]
    memo: dict[Point, tuple[int, int, int]] = {}

    def walk(p: Point) -> tuple[int, int, int]:
        if p == corner:
            return 1, 0, 0
        if p in memo:
            return memo[p]
        n, lo, hi = 0, 1 << 30, -1
        d = to_corner[p]
        for q in m.adjacent[p]:
            if to_corner[q] == d - 1:
                cn, clo, chi = walk(q)
                w = wall_cost(state, side(p, q))
                n += cn
                lo = min(lo, clo + w)
                hi = max(hi, chi + w)
        memo[p] = (n, lo, hi)
        return memo[p]

    n, lo, hi = walk(start)
    return CornerOption(corner, to_corner[start], n, lo, hi)


@dataclass(frozen=True)
class PathOption:
    points: tuple[Point, ...]
    new_walls: tuple[Side, ...]


def shortest_paths(state: GameState, corner: Point, limit: int = 2000) -> Iterator[tuple[Point, ...]]:
    """R3.4: every shortest path from Alexander to ``corner`` (at most ``limit``), in a fixed order."""
    m = state.map
    to_corner = m.distance[corner]
    count = 0
    path = [state.alexander]

    def extend() -> Iterator[tuple[Point, ...]]:
        nonlocal count
        p = path[-1]
        if p == corner:
            count += 1
            yield tuple(path)
            return
        for q in m.adjacent[p]:
            if count >= limit:
                return
            if to_corner[q] == to_corner[p] - 1:
                path.append(q)
                yield from extend()
                path.pop()

    yield from extend()


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
    """
    seen: dict[frozenset[Side], PathOption] = {}
    for pts in shortest_paths(state, corner):
        walls = new_walls(state, pts)
        key = frozenset(walls)
        if key not in seen:
            seen[key] = PathOption(pts, walls)
    ranked = sorted(seen.values(), key=lambda o: (len(o.new_walls), o.points))
    return ranked[:limit]


def walls_left(state: GameState) -> int:
    return state.black_left + state.red_left


def fewest_walls_of_any_move(state: GameState) -> int | None:
    """R3.7: the fewest new walls any legal move needs (None when no move exists)."""
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


def legal_path_options(state: GameState, corner: Point, limit: int = 25) -> list[PathOption]:
    """``path_options`` without the paths R3.7 forbids, fewest walls first."""
    options = path_options(state, corner, limit=limit)
    if all(len(o.new_walls) <= walls_left(state) for o in options):
        return options
    fewest = fewest_walls_of_any_move(state)
    return [o for o in options if walls_allowed(state, len(o.new_walls), fewest)]


def can_move(state: GameState) -> bool:
    return bool(move_choices(state))


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
    sym = state.map.symbol
    return tuple(sorted(s for s in province.spaces if sym[s] is not None))


def split_province(state: GameState, province: Province, walls: frozenset[Side]) -> list[frozenset[Space]]:
    """R4.1: the connected parts of a province once ``walls`` stand, largest first."""
    m = state.map
    left = set(province.spaces)
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
    parts.sort(key=lambda p: (-len(p), min(p)))
    return parts


def initial_provinces(state: GameState) -> tuple[Province, ...]:
    whole = Province(0, frozenset(state.map.spaces))
    parts = split_province(state, whole, state.walls)
    parts.sort(key=min)
    return tuple(Province(i + 1, p) for i, p in enumerate(parts))


def splits_after(state: GameState, added: tuple[Side, ...]) -> list[tuple[int, list[frozenset[Space]]]]:
    """The provinces that ``added`` walls cut in two or more, with their parts (largest first)."""
    if not added:
        return []
    m = state.map
    walls = state.walls | frozenset(added)
    touched = {
        state.province_of[s]
        for sd in added
        if m.side_kind[sd] is SideKind.INTERIOR
        for s in m.side_spaces[sd]
    }
    out = []
    for pid in sorted(touched):
        parts = split_province(state, state.province_by_id[pid], walls)
        if len(parts) > 1:
            out.append((pid, parts))
    return out


# --- Occupy and take over (R6) ------------------------------------------------------------------------


def occupation_cost(state: GameState, province: Province, guards: tuple[Space, ...]) -> Cards:
    """R6.1-R6.2: one card for every symbol space of the province without one of the new guards."""
    sym = state.map.symbol
    need = NO_CARDS
    for s in province_symbol_spaces(state, province):
        if s not in guards:
            need = add(need, one(_symbol(sym[s])))
    return need


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
    out = []
    for p in state.provinces:
        out.append(
            ProvinceInfo(
                id=p.id,
                spaces=p.spaces,
                value=province_value(state, p),
                symbol_spaces=province_symbol_spaces(state, p),
                owner=province_owner(state, p),
                guards=tuple(sorted(s for s in p.spaces if s in state.guard_owner)),
            )
        )
    return out


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
