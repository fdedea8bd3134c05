"""What a player can ask for: every turn action as a frozen value (ALEXANDROS.md §3-§8)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from engine.geometry import Point, Space
from engine.symbols import NO_CARDS, Cards, Symbol


class MoveWay(StrEnum):
    NORMAL = "normal"  # R3.1 a: take face-up card ``slot``
    SPECIAL = "special"  # R3.1 b: discard ``card`` from the hand
    JOKER = "joker"  # R3.1 c: take face-up card ``slot`` and name ``named``


class CardSource(StrEnum):
    FACE_UP = "face-up"
    SUPPLY = "supply"


@dataclass(frozen=True)
class Move:
    """Move Alexander along ``path``, from his current point to ``path[-1]``, a corner of a closest empty
    space of the target symbol (R3.2-R3.4). Which of the spaces sharing that corner is meant changes
    nothing, so a move names none."""

    player: int
    way: MoveWay
    path: tuple[Point, ...]
    slot: int | None = None
    card: Symbol | None = None
    named: Symbol | None = None

    @property
    def corner(self) -> Point:
        return self.path[-1]


@dataclass(frozen=True)
class TakeCard:
    """R5: a face-up card (``slot``) or the top card of the supply."""

    player: int
    source: CardSource
    slot: int | None = None


@dataclass(frozen=True)
class Occupy:
    """R6.1-R6.2: put guards on ``guards`` (symbol spaces of a free province); the cards are implied."""

    player: int
    province: int
    guards: tuple[Space, ...]


@dataclass(frozen=True)
class TakeOver:
    """R6.3-R6.4: remove the owner's guards, then occupy; ``compensation`` is what the loser receives."""

    player: int
    province: int
    guards: tuple[Space, ...]
    compensation: Cards = NO_CARDS


@dataclass(frozen=True)
class Levy:
    """R7: discard ``card``, matching the space under one of the player's guards, and everyone scores."""

    player: int
    card: Symbol


@dataclass(frozen=True)
class TakeBack:
    """R8.1: take the guard on ``space`` back into the supply."""

    player: int
    space: Space


@dataclass(frozen=True)
class EndTurn:
    """D7: end the turn after zero, one or two actions."""

    player: int


@dataclass(frozen=True)
class Resign:
    """Leave the game: the player's guards leave the map and the seat is skipped (project decision P1)."""

    player: int


@dataclass(frozen=True)
class SkipTurn:
    """A turn given up at a deadline, for an absent player: no move, no action (project decision P2)."""

    player: int


@dataclass(frozen=True)
class EndByAgreement:
    """The players agreed to end the game now; it is scored as it stands (project decision P3)."""

    player: int


@dataclass(frozen=True)
class Undo:
    """Take back the last step of this turn (the move or one action) that revealed nothing (P10)."""

    player: int


Action = (
    Move | TakeCard | Occupy | TakeOver | Levy | TakeBack | EndTurn | Resign | SkipTurn | EndByAgreement
    | Undo
)
ACTION_TYPES: tuple[type, ...] = (
    Move, TakeCard, Occupy, TakeOver, Levy, TakeBack, EndTurn, Resign, SkipTurn, EndByAgreement, Undo,
)
