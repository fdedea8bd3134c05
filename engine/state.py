"""The immutable game state, its parts, and the seeded random source the state carries (R2).

P12, known cards: a player who watched the game knows some cards of each rival's hand. ``PlayerState.known``
is that public record, a multiset per player: a card taken face up (R3.1 a and c, R5.1) or given to the
player in view of all (R6.4) adds one of its symbol; each card the player pays (discarded or given away)
takes one of its symbol off, never below zero. A card paid of a symbol the player both took face up and
drew face down may be either, so the watcher is sure only that one fewer is left: the count is what the
hand certainly holds, ``max(0, known - paid)`` card by card, and never more than the hand (an invariant).
Cards drawn from the supply never count; the record stays with a player who resigns (P1).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field, fields
from enum import StrEnum
from functools import cached_property
from typing import Any

from engine.geometry import Point, Side, Space
from engine.maps import Map
from engine.symbols import NO_CARDS, Cards, Symbol

GUARDS_PER_PLAYER = 4  # R2.1
CARDS_PER_SYMBOL = 11  # R2.1
ACTIONS_PER_TURN = 2  # R3
WINNING_SCORE = 100  # R10.2
COLOURS = ("red", "yellow", "blue", "green")  # R2.2, in seating order


class Phase(StrEnum):
    MOVE = "move"  # the player must move Alexander (R3)
    ACTIONS = "actions"  # up to two actions, then end the turn (R5-R8, D7)
    OVER = "over"


class EndReason(StrEnum):
    WALLS = "walls"  # R10.1 through R3.6 or R3.7
    NO_SPACE = "no-space"  # R10.1 through R3.8
    POINTS = "points"  # R10.2
    RESIGNATIONS = "resignations"  # every player but one resigned (project decision)
    AGREED = "agreed"  # the players agreed to end it (project decision)


class ActionKind(StrEnum):
    TAKE_CARD = "take-card"
    OCCUPY = "occupy"
    TAKE_OVER = "take-over"
    LEVY = "levy"
    TAKE_BACK = "take-back"


@dataclass(frozen=True)
class Options:
    """Game options. ``coast_walls`` is D2."""

    coast_walls: bool = True


@dataclass(frozen=True)
class PlayerState:
    hand: Cards = NO_CARDS
    guards: frozenset[Space] = frozenset()
    score: int = 0
    resigned: bool = False
    # P12 (see above): the cards of ``hand`` the whole table knows of; public. Left out of JSON documents
    # while empty, so documents written before it existed stay as they were.
    known: Cards = field(default=NO_CARDS, metadata={"omit_default": True})

    @property
    def guards_in_supply(self) -> int:
        return GUARDS_PER_PLAYER - len(self.guards)


@dataclass(frozen=True)
class Province:
    """A maximal group of spaces joined by sides without walls (R4.1). Ids are stable: a split keeps the
    id on its largest part and numbers the other parts afresh, so commands typed earlier stay valid."""

    id: int
    spaces: frozenset[Space]


@dataclass(frozen=True)
class LastMove:
    """Alexander's last walk, kept for pictures that highlight it."""

    player: int
    path: tuple[Point, ...]
    black: tuple[Side, ...]
    red: tuple[Side, ...]


@dataclass(frozen=True)
class GameResult:
    reason: EndReason
    winners: tuple[int, ...]  # R10.3, D9: tied leaders share the victory
    scores: tuple[int, ...]


@dataclass(frozen=True)
class UndoTrail:
    """P10: what the player on turn may take back. ``points`` are the states before each step (the move or
    one action) of this turn that revealed nothing, oldest first, each without a trail of its own. A step
    that reveals hidden information (a card drawn from the supply, a face-up card turned, a reshuffle,
    cards given to another player) clears them, so no undo reaches back past it."""

    points: tuple[GameState, ...] = ()
    step_open: bool = False  # a step has begun and not finished: its later events push no point
    revealed: bool = False  # this turn revealed something, so its earlier steps can never be taken back


@dataclass(frozen=True)
class GameState:
    map: Map
    options: Options
    players: tuple[PlayerState, ...]
    alexander: Point
    walls: frozenset[Side]
    red_walls: frozenset[Side]
    provinces: tuple[Province, ...]
    next_province_id: int
    face_up: tuple[Symbol | None, ...]  # the two slots; None while a slot waits for a card (R5.2, R5.3)
    supply: tuple[Symbol, ...]  # top card first; its order is secret (R2.5)
    discard: Cards
    rng: int
    current: int = 0
    phase: Phase = Phase.MOVE
    turn: int = 0
    actions_taken: tuple[ActionKind, ...] = ()
    ending: EndReason | None = None  # R3.6-R3.8: set when the game ends as this turn ends (R10.1)
    last_move: LastMove | None = None
    result: GameResult | None = None
    version: int = 0  # counts applied actions; a stale action names an older version
    seed: int = 0
    # P10; left out of JSON documents while empty, so that documents of states without it stay as they were
    undo: UndoTrail = field(default=UndoTrail(), metadata={"omit_default": True})

    @property
    def black_left(self) -> int:
        return self.map.black_walls - (len(self.walls) - len(self.red_walls))

    @property
    def red_left(self) -> int:
        return self.map.red_walls - len(self.red_walls)

    @property
    def over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def levied(self) -> bool:
        return ActionKind.LEVY in self.actions_taken

    @cached_property
    def province_of(self) -> dict[Space, int]:
        return {s: p.id for p in self.provinces for s in p.spaces}

    @cached_property
    def province_by_id(self) -> dict[int, Province]:
        return {p.id: p for p in self.provinces}

    @cached_property
    def guard_owner(self) -> dict[Space, int]:
        return {s: i for i, pl in enumerate(self.players) for s in pl.guards}

    @cached_property
    def derived(self) -> dict[Hashable, Any]:
        """What the rules work out from this state, kept with it (engine.rules): a state never changes, so
        neither does anything worked out from it. Not part of its value: equality and snapshots ignore it."""
        return {}


def splitmix64(state: int) -> tuple[int, int]:
    """One step of SplitMix64: (new state, 64-bit output). The only source of chance in the engine."""
    state = (state + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return state, z ^ (z >> 31)


def randbelow(state: int, n: int) -> tuple[int, int]:
    """A uniform integer in [0, n) by rejection, so that shuffles carry no modulo bias."""
    limit = (1 << 64) - ((1 << 64) % n)
    while True:
        state, x = splitmix64(state)
        if x < limit:
            return state, x % n


def shuffled(state: int, items: tuple[Symbol, ...]) -> tuple[int, tuple[Symbol, ...]]:
    """Fisher-Yates with the carried random state."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        state, j = randbelow(state, i + 1)
        out[i], out[j] = out[j], out[i]
    return state, tuple(out)


_STATE_FIELDS = tuple(f.name for f in fields(GameState))
_STATE_FIELD_SET = frozenset(_STATE_FIELDS)


def changed(state: GameState, **changes: Any) -> GameState:
    """``dataclasses.replace`` for a state, four times as fast: an action folds several events, each of
    which made two or three new states through ``replace`` (apply: 155 -> 113 us an action on the 236-space
    map). The fields are copied, and the lookups worked out from fields that did not change (``province_of``
    when the provinces did not, ``guard_owner`` when the players did not); nothing else worked out from the
    old state (``derived``) carries over."""
    if not _STATE_FIELD_SET.issuperset(changes):
        raise TypeError(f"GameState has no field(s) {sorted(set(changes) - _STATE_FIELD_SET)}")
    new = object.__new__(GameState)
    old, made = state.__dict__, new.__dict__
    for name in _STATE_FIELDS:
        made[name] = old[name]
    made.update(changes)
    for name, sources in _CARRIED:  # worked out from fields that did not change: still true
        if name in old and sources.isdisjoint(changes):
            made[name] = old[name]
    return new


# The state's cached properties and the fields each is worked out from (``derived`` is never carried).
_CARRIED = (
    ("province_of", frozenset({"provinces"})),
    ("province_by_id", frozenset({"provinces"})),
    ("guard_owner", frozenset({"players"})),
)
