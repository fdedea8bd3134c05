"""Invariants that every reachable game state must satisfy, for simulations, tests and the position notation.

``check(state)`` lists what is wrong with one state; ``check_step(before, after)`` adds what must hold
between two consecutive states (scores never fall, walls are never removed, provinces only split). An
empty list means all is well. Each message starts with the rule it guards.

``violations(state)`` gives the same findings as values that also say which part of the state is at fault
(``Violation.field``, a GameState field name, and ``Violation.at``, a seat or an undo point), so that
engine.notation can name the line of a position. Findings about one part of the state come first, those
that weigh parts against each other (the card count, the provinces against the walls) after them.
"""

from __future__ import annotations

from typing import NamedTuple

from engine import rules
from engine.maps import SideKind
from engine.state import (
    ACTIONS_PER_TURN,
    CARDS_PER_SYMBOL,
    GUARDS_PER_PLAYER,
    ActionKind,
    GameState,
    Phase,
    UndoTrail,
)
from engine.symbols import SYMBOLS, add, contains

MIN_PLAYERS, MAX_PLAYERS = 2, 4  # R2.2
RNG_LIMIT = 1 << 64  # the SplitMix64 state (engine.state.splitmix64)


class Violation(NamedTuple):
    rule: str  # "R2.1", "P12", ...
    field: str  # the GameState field at fault ("players", "current", ...)
    at: int | None  # the seat for "players", the undo point for "undo"; else None
    text: str  # a sentence without the rule

    def __str__(self) -> str:
        return f"{self.rule}: {self.text}"


def check(state: GameState) -> list[str]:
    return [str(v) for v in violations(state)]


def violations(state: GameState) -> list[Violation]:
    out: list[Violation] = []
    out += _seats(state)
    out += _turn(state)
    out += _walls(state)
    out += _guards(state)
    out += _result(state)
    out += _cards(state)
    out += _provinces(state)
    out += _undo(state)
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


def _seats(state: GameState) -> list[Violation]:
    """R2.2, P1, R7.3, P12: 2 to 4 players; who is on turn; no negative score; known cards in the hand."""
    out: list[Violation] = []
    n = len(state.players)
    if n > MAX_PLAYERS:
        out.append(Violation("R2.2", "players", MAX_PLAYERS, f"a game has 2 to 4 players, this one has {n}"))
    elif n < MIN_PLAYERS:
        out.append(Violation("R2.2", "players", n - 1 if n else None, f"a game has 2 to 4 players, not {n}"))
    if not 0 <= state.current < n:
        out.append(
            Violation(
                "R2.4", "current", None, f"seat {state.current} is on turn, but the game has {n} players"
            )
        )
    elif state.players[state.current].resigned and state.phase is not Phase.OVER:
        out.append(Violation("P1", "current", None, f"seat {state.current} is on turn, but has resigned"))
    for seat, p in enumerate(state.players):
        if p.score < 0:
            out.append(Violation("R7.3", "players", seat, f"seat {seat} has a negative score"))
        if min(p.hand) < 0:
            out.append(Violation("R2.1", "players", seat, f"seat {seat} holds a negative hand {p.hand}"))
        if min(p.known) < 0 or not contains(p.hand, p.known):
            out.append(
                Violation(
                    "P12",
                    "players",
                    seat,
                    f"seat {seat}'s known cards {p.known} are not in the hand {p.hand}",
                )
            )
    return out


def _turn(state: GameState) -> list[Violation]:
    """R3, R7.1, D7, R10.1: at most two actions a turn and at most one levy; the end and the phase agree."""
    out: list[Violation] = []
    if not 0 <= state.rng < RNG_LIMIT:
        out.append(Violation("R2.4", "rng", None, "the random state is not a number from 0 to 2^64 - 1"))
    if len(state.actions_taken) > ACTIONS_PER_TURN:
        out.append(Violation("R3", "actions_taken", None, f"{len(state.actions_taken)} actions in one turn"))
    if state.actions_taken.count(ActionKind.LEVY) > 1:
        out.append(Violation("R7.1", "actions_taken", None, "two levies in one turn"))
    if state.phase is Phase.MOVE and state.actions_taken:
        out.append(Violation("R3", "actions_taken", None, "actions taken before the move"))
    if state.phase is Phase.MOVE and state.ending is not None:
        out.append(Violation("R10.1", "ending", None, "the game cannot be ending before the move of a turn"))
    if (state.phase is Phase.OVER) != (state.result is not None):
        result = "a result" if state.result is not None else "no result"
        out.append(Violation("R10", "result", None, f"phase {state.phase.value} with {result}"))
    return out


def _walls(state: GameState) -> list[Violation]:
    """R2.1, R3.5-R3.6, D2: walls lie on sides of the map; placed + left = the map's supply, none negative."""
    out: list[Violation] = []
    m = state.map
    if state.alexander not in m.adjacent:
        out.append(
            Violation(
                "R2.3", "alexander", None, f"Alexander stands on {state.alexander}, not a point of the map"
            )
        )
    for sd in sorted(state.walls):
        kind = m.side_kind.get(sd)
        if kind is None:
            out.append(Violation("R3.5", "walls", None, f"wall on {sd}, which is not a side of the map"))
        elif kind is not SideKind.INTERIOR and not state.options.coast_walls:
            out.append(
                Violation("D2", "walls", None, f"wall on the {kind.value} side {sd} with coast_walls off")
            )
    if state.black_left < 0:
        out.append(
            Violation(
                "R3.6", "walls", None, f"{state.black_left} black walls left: the map has {m.black_walls}"
            )
        )
    if not state.red_walls <= state.walls:
        out.append(Violation("R3.6", "red_walls", None, "a red wall is missing from the walls"))
    if state.red_walls and state.black_left > 0:
        text = f"red walls stand, but {state.black_left} black walls are left: red ones come after the last"
        out.append(Violation("R3.6", "red_walls", None, text))
    if state.red_left < 0:
        out.append(
            Violation(
                "R3.7", "red_walls", None, f"{state.red_left} red walls left: the map has {m.red_walls}"
            )
        )
    last = state.last_move
    if last is not None:
        if not 0 <= last.player < len(state.players):
            out.append(
                Violation(
                    "R3",
                    "last_move",
                    None,
                    f"the last move was made by seat {last.player}, not a seat of this game",
                )
            )
        if any(p not in m.adjacent for p in last.path):
            out.append(Violation("R3.4", "last_move", None, "the last move walks off the map"))
        elif last.path and last.path[-1] != state.alexander:
            out.append(
                Violation("R3.4", "last_move", None, "the last move does not end where Alexander stands")
            )
        if not set(last.black + last.red) <= state.walls or not set(last.red) <= state.red_walls:
            out.append(
                Violation("R3.5", "last_move", None, "the last move placed walls that are not on the map")
            )
    return out


def _guards(state: GameState) -> list[Violation]:
    """R2.1, R6.1-R6.2, R4.3, P1: 4 guards each, on symbol spaces, one a space; one owner a province."""
    out: list[Violation] = []
    m = state.map
    seen: dict[tuple[int, int], int] = {}
    for seat, p in enumerate(state.players):
        if len(p.guards) > GUARDS_PER_PLAYER or p.guards_in_supply < 0:
            out.append(
                Violation(
                    "R2.1",
                    "players",
                    seat,
                    f"seat {seat} has {len(p.guards)} guards on the map, not at most 4",
                )
            )
        for g in sorted(p.guards):
            if g not in m.symbol:
                out.append(
                    Violation("R6.1", "players", seat, f"seat {seat}'s guard at {g} is not on a land space")
                )
            elif m.symbol[g] is None:
                out.append(
                    Violation("R6.2", "players", seat, f"seat {seat}'s guard at {g} stands on an open space")
                )
            if g in seen:
                out.append(
                    Violation(
                        "R6.2", "players", seat, f"guards of seats {seen[g]} and {seat} share space {g}"
                    )
                )
            seen[g] = seat
        if p.resigned and p.guards:
            out.append(Violation("P1", "players", seat, f"resigned seat {seat} still has guards on the map"))
    for prov in state.provinces:
        owners = sorted({seen[s] for s in prov.spaces if s in seen})
        if len(owners) > 1:
            text = f"province {prov.id} holds guards of seats {owners}"
            out.append(Violation("R4.3", "players", owners[-1], text))
    return out


def _result(state: GameState) -> list[Violation]:
    """R10.3, D9: the winners are seats of the game, and the scores are the players' scores."""
    res = state.result
    if res is None:
        return []
    out: list[Violation] = []
    n = len(state.players)
    if any(not 0 <= w < n for w in res.winners):
        out.append(
            Violation(
                "R10.3",
                "result",
                None,
                f"the winners {list(res.winners)} are not all seats of a {n}-player game",
            )
        )
    elif list(res.winners) != sorted(set(res.winners)):
        out.append(
            Violation(
                "R10.3", "result", None, f"the winners {list(res.winners)} are not in seat order, each once"
            )
        )
    if res.scores != tuple(p.score for p in state.players):
        out.append(
            Violation(
                "R10.3", "result", None, f"the final scores {list(res.scores)} are not the players' scores"
            )
        )
    return out


def _cards(state: GameState) -> list[Violation]:
    """R2.1, R2.4: 55 cards, 11 per symbol, in hands, supply, face-up slots and discard pile; two slots."""
    out: list[Violation] = []
    if len(state.face_up) != 2:
        out.append(Violation("R2.4", "face_up", None, f"{len(state.face_up)} face-up slots instead of 2"))
    count = state.discard
    if min(state.discard) < 0:
        out.append(Violation("R2.1", "discard", None, f"negative discard pile {state.discard}"))
    for p in state.players:
        count = add(count, p.hand)
    per = [0] * len(SYMBOLS)
    for s in state.supply:
        per[s.ordinal] += 1
    for up in state.face_up:
        if up is not None:
            per[up.ordinal] += 1
    full = [c + x for c, x in zip(count, per, strict=True)]
    wrong = [f"{n} {sym.value} cards" for sym, n in zip(SYMBOLS, full, strict=True) if n != CARDS_PER_SYMBOL]
    if wrong:
        all_cards = CARDS_PER_SYMBOL * len(SYMBOLS)
        text = f"the game holds {sum(full)} cards ({', '.join(wrong)}), not {all_cards}, 11 of each symbol"
        out.append(Violation("R2.1", "supply", None, text))
    return out


def _provinces(state: GameState) -> list[Violation]:
    """R4.1: provinces partition the land, each connected, and walls (or coasts) close every one."""
    out: list[Violation] = []
    ids = [p.id for p in state.provinces]
    if len(set(ids)) != len(ids):
        out.append(Violation("R4.1", "provinces", None, f"duplicate province ids {sorted(ids)}"))
    if any(i >= state.next_province_id for i in ids):
        text = f"a province id is not below next_province_id {state.next_province_id}"
        out.append(Violation("R4.1", "next_province_id", None, text))
    covered: set[tuple[int, int]] = set()
    for p in state.provinces:
        if not p.spaces:
            out.append(Violation("R4.1", "provinces", None, f"province {p.id} is empty"))
        if covered & p.spaces:
            out.append(Violation("R4.1", "provinces", None, f"province {p.id} overlaps another province"))
        covered |= p.spaces
    land = set(state.map.spaces)
    if covered != land:
        text = f"provinces cover {len(covered)} spaces, the land has {len(land)}"
        out.append(Violation("R4.1", "provinces", None, text))
    if all(sd in state.map.side_kind for sd in state.walls):  # the walls' parts: only for walls on the map
        expected = {p.spaces for p in rules.initial_provinces(state)}
        actual = {p.spaces for p in state.provinces}
        if expected != actual:
            text = (
                f"{len(actual - expected)} provinces differ from the connected parts of the land "
                f"({len(actual)} held, {len(expected)} recomputed)"
            )
            out.append(Violation("R4.1", "provinces", None, text))
    return out


def _undo(state: GameState) -> list[Violation]:
    """P10: each undo point is a state of this turn before now, without a trail of its own."""
    out: list[Violation] = []
    version = -1
    for i, point in enumerate(state.undo.points):
        if point.undo != UndoTrail():
            out.append(Violation("P10", "undo", i, f"undo point {i} has a trail of its own"))
        if not version < point.version < state.version:
            out.append(
                Violation("P10", "undo", i, f"undo point {i} is not an earlier state than the one after it")
            )
        version = point.version
        if point.map != state.map or len(point.players) != len(state.players):
            out.append(Violation("P10", "undo", i, f"undo point {i} is a state of another game"))
            continue
        out.extend(Violation("P10", "undo", i, f"undo point {i}: {v}") for v in violations(point))
    return out
