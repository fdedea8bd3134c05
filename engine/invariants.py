"""Invariants that every reachable game state must satisfy, for simulations and tests.

``check(state)`` lists what is wrong with one state; ``check_step(before, after)`` adds what must hold
between two consecutive states (scores never fall, walls are never removed, provinces only split). An
empty list means all is well. Each message starts with the rule it guards.
"""

from __future__ import annotations

from engine import rules
from engine.maps import SideKind
from engine.state import ACTIONS_PER_TURN, CARDS_PER_SYMBOL, GUARDS_PER_PLAYER, ActionKind, GameState, Phase
from engine.symbols import SYMBOLS, add, total


def check(state: GameState) -> list[str]:
    out: list[str] = []
    out += _cards(state)
    out += _guards(state)
    out += _walls(state)
    out += _provinces(state)
    out += _turn(state)
    return out


def check_step(before: GameState, after: GameState) -> list[str]:
    out = check(after)
    for seat, (a, b) in enumerate(zip(before.players, after.players, strict=True)):
        if b.score < a.score:
            out.append(f"R7.3: seat {seat}'s score fell from {a.score} to {b.score}")
    if not before.walls <= after.walls:
        out.append("R4.3: walls were removed")
    if not before.red_walls <= after.red_walls:
        out.append("R3.6: red walls were removed")
    if after.turn < before.turn:
        out.append(f"turn count fell from {before.turn} to {after.turn}")
    if after.version <= before.version:
        out.append(f"version did not grow ({before.version} -> {after.version})")
    parents = [p.spaces for p in before.provinces]
    for p in after.provinces:
        if not any(p.spaces <= q for q in parents):
            out.append(f"R4.3: province {p.id} is not part of any earlier province (provinces merged)")
    return out


def _cards(state: GameState) -> list[str]:
    """R2.1: 55 cards, 11 per symbol, in hands, supply, face-up slots and discard pile; none negative."""
    out: list[str] = []
    count = state.discard
    if min(state.discard) < 0:
        out.append(f"R2.1: negative discard pile {state.discard}")
    for seat, p in enumerate(state.players):
        if min(p.hand) < 0:
            out.append(f"R2.1: seat {seat} holds a negative hand {p.hand}")
        count = add(count, p.hand)
    per = [0] * len(SYMBOLS)
    for s in state.supply:
        per[s.ordinal] += 1
    for up in state.face_up:
        if up is not None:
            per[up.ordinal] += 1
    full = [c + x for c, x in zip(count, per, strict=True)]
    if total(tuple(full)) != CARDS_PER_SYMBOL * len(SYMBOLS):  # type: ignore[arg-type]
        out.append(f"R2.1: {sum(full)} cards in the game instead of {CARDS_PER_SYMBOL * len(SYMBOLS)}")
    for sym, n in zip(SYMBOLS, full, strict=True):
        if n != CARDS_PER_SYMBOL:
            out.append(f"R2.1: {n} {sym.value} cards instead of {CARDS_PER_SYMBOL}")
    if len(state.face_up) != 2:
        out.append(f"R2.4: {len(state.face_up)} face-up slots instead of 2")
    return out


def _guards(state: GameState) -> list[str]:
    """R2.1, R6.1-R6.2, R4.3: 4 guards each; only on symbol spaces, one per space; one owner per province."""
    out: list[str] = []
    m = state.map
    seen: dict[tuple[int, int], int] = {}
    for seat, p in enumerate(state.players):
        if len(p.guards) > GUARDS_PER_PLAYER or p.guards_in_supply < 0:
            out.append(f"R2.1: seat {seat} has {len(p.guards)} guards on the map")
        for g in p.guards:
            if g not in m.symbol:
                out.append(f"R6.1: seat {seat}'s guard at {g} is not on a land space")
            elif m.symbol[g] is None:
                out.append(f"R6.2: seat {seat}'s guard at {g} stands on an open space")
            if g in seen:
                out.append(f"R6.2: guards of seats {seen[g]} and {seat} share space {g}")
            seen[g] = seat
        if p.resigned and p.guards:
            out.append(f"P1: resigned seat {seat} still has guards on the map")
    for prov in state.provinces:
        owners = {seen[s] for s in prov.spaces if s in seen}
        if len(owners) > 1:
            out.append(f"R4.3: province {prov.id} holds guards of seats {sorted(owners)}")
    return out


def _walls(state: GameState) -> list[str]:
    """R2.1, R3.5-R3.6, D2: walls lie on sides of the map; placed + left = the map's supply, none negative."""
    out: list[str] = []
    m = state.map
    if state.black_left < 0:
        out.append(f"R3.6: {state.black_left} black walls left")
    if state.red_left < 0:
        out.append(f"R3.7: {state.red_left} red walls left")
    black_placed = len(state.walls) - len(state.red_walls)
    if black_placed + state.black_left != m.black_walls:
        out.append(f"R2.1: {black_placed} black walls placed + {state.black_left} left != {m.black_walls}")
    if len(state.red_walls) + state.red_left != m.red_walls:
        out.append(f"R2.1: {len(state.red_walls)} red walls placed + {state.red_left} left != {m.red_walls}")
    if not state.red_walls <= state.walls:
        out.append("R3.6: a red wall is missing from the walls")
    for sd in state.walls:
        kind = m.side_kind.get(sd)
        if kind is None:
            out.append(f"R3.5: wall on {sd}, which is not a side of the map")
        elif kind is not SideKind.INTERIOR and not state.options.coast_walls:
            out.append(f"D2: wall on the {kind.value} side {sd} with coast_walls off")
    if state.alexander not in m.adjacent:
        out.append(f"R2.3: Alexander stands on {state.alexander}, not a point of the map")
    return out


def _provinces(state: GameState) -> list[str]:
    """R4.1: provinces partition the land, each connected, and walls (or coasts) close every one."""
    out: list[str] = []
    ids = [p.id for p in state.provinces]
    if len(set(ids)) != len(ids):
        out.append(f"R4.1: duplicate province ids {sorted(ids)}")
    if any(i >= state.next_province_id for i in ids):
        out.append(f"R4.1: a province id is not below next_province_id {state.next_province_id}")
    covered: set[tuple[int, int]] = set()
    for p in state.provinces:
        if not p.spaces:
            out.append(f"R4.1: province {p.id} is empty")
        if covered & p.spaces:
            out.append(f"R4.1: province {p.id} overlaps another province")
        covered |= p.spaces
    land = set(state.map.spaces)
    if covered != land:
        out.append(f"R4.1: provinces cover {len(covered)} spaces, the land has {len(land)}")
    expected = {p.spaces for p in rules.initial_provinces(state)}
    actual = {p.spaces for p in state.provinces}
    if expected != actual:
        out.append(
            f"R4.1: {len(actual - expected)} provinces differ from the connected parts of the land "
            f"({len(actual)} held, {len(expected)} recomputed)"
        )
    return out


def _turn(state: GameState) -> list[str]:
    """R3, R7.1, D7: at most two actions a turn and at most one levy; the end and the phase agree."""
    out: list[str] = []
    if len(state.actions_taken) > ACTIONS_PER_TURN:
        out.append(f"R3: {len(state.actions_taken)} actions in one turn")
    if state.actions_taken.count(ActionKind.LEVY) > 1:
        out.append("R7.1: two levies in one turn")
    if state.phase is Phase.MOVE and state.actions_taken:
        out.append("R3: actions taken before the move")
    if (state.phase is Phase.OVER) != (state.result is not None):
        out.append(f"R10: phase {state.phase.value} with result {state.result}")
    if state.current >= len(state.players) or state.current < 0:
        out.append(f"current seat {state.current} out of range")
    for seat, p in enumerate(state.players):
        if p.score < 0:
            out.append(f"R7.3: seat {seat} has a negative score")
    return out
