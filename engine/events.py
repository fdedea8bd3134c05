"""What happened: every change to a game as a frozen event value.

Events are deltas: ``engine.game.evolve`` folds them into a state without consulting any rule or chance,
so replaying a game's events rebuilds its state exactly. Fields marked *secret* are blanked by
``engine.views.redact`` for viewers who may not see them.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.actions import CardSource, MoveWay
from engine.geometry import Point, Side, Space
from engine.state import ActionKind, EndReason, Options
from engine.symbols import Cards, Symbol


@dataclass(frozen=True)
class GameCreated:
    map_text: str
    players: int
    options: Options
    seed: int


@dataclass(frozen=True)
class SupplyShuffled:
    """The supply was formed from ``size`` cards (R2.4, R5.3). ``order`` and ``rng`` are secret."""

    size: int
    order: tuple[Symbol, ...] | None
    rng: int | None
    from_discard: bool


@dataclass(frozen=True)
class FirstPlayerChosen:
    player: int
    rng: int | None  # secret: the random state after the draw


@dataclass(frozen=True)
class CardTaken:
    """A card went into ``player``'s hand. From the supply, ``symbol`` is secret to everyone else."""

    player: int
    source: CardSource
    slot: int | None
    symbol: Symbol | None


@dataclass(frozen=True)
class FaceUpTurned:
    """The top card of the supply was turned face up into ``slot`` (R3.1 a, R5.2)."""

    slot: int
    symbol: Symbol


@dataclass(frozen=True)
class CardsDiscarded:
    player: int
    cards: Cards
    reason: str  # "special-move", "occupy", "take-over", "levy"


@dataclass(frozen=True)
class TurnStarted:
    player: int
    turn: int


@dataclass(frozen=True)
class AlexanderMoved:
    """R3: the move with its target symbol, the path walked and the walls it placed."""

    player: int
    way: MoveWay
    symbol: Symbol
    space: Space
    path: tuple[Point, ...]
    black: tuple[Side, ...]
    red: tuple[Side, ...]
    walls_ran_out: bool


@dataclass(frozen=True)
class MoveSkipped:
    """R3.8: no empty symbol space (or no card to move with), so Alexander stays."""

    player: int
    game_ends: bool


@dataclass(frozen=True)
class ProvinceSplit:
    """R4.1, R4.4: province ``province`` lost the spaces now in ``parts`` (new ids)."""

    province: int
    parts: tuple[tuple[int, frozenset[Space]], ...]


@dataclass(frozen=True)
class ActionUsed:
    player: int
    kind: ActionKind


@dataclass(frozen=True)
class GuardsPlaced:
    player: int
    province: int
    spaces: tuple[Space, ...]


@dataclass(frozen=True)
class GuardsRemoved:
    """Guards went back to ``player``'s supply: taken over (R6.3), taken back (R8.1) or resigned."""

    player: int
    spaces: tuple[Space, ...]
    reason: str  # "take-over", "take-back", "resigned"


@dataclass(frozen=True)
class CardsGiven:
    """R6.4: compensation from ``giver`` to ``receiver``."""

    giver: int
    receiver: int
    cards: Cards


@dataclass(frozen=True)
class Scored:
    """R7.3: one player's taxes in a levy."""

    player: int
    points: int
    provinces: tuple[int, ...]


@dataclass(frozen=True)
class TurnEnded:
    player: int
    skipped: bool


@dataclass(frozen=True)
class PlayerResigned:
    player: int


@dataclass(frozen=True)
class StepTakenBack:
    """P10: ``player`` took back their last step; the state is again the one at ``version`` (the version
    counter aside, which still counts every event)."""

    player: int
    version: int


@dataclass(frozen=True)
class GameEnded:
    reason: EndReason
    winners: tuple[int, ...]
    scores: tuple[int, ...]


Event = (
    GameCreated
    | SupplyShuffled
    | FirstPlayerChosen
    | CardTaken
    | FaceUpTurned
    | CardsDiscarded
    | TurnStarted
    | AlexanderMoved
    | MoveSkipped
    | ProvinceSplit
    | ActionUsed
    | GuardsPlaced
    | GuardsRemoved
    | CardsGiven
    | Scored
    | TurnEnded
    | PlayerResigned
    | GameEnded
    | StepTakenBack
)
EVENT_TYPES: tuple[type, ...] = (
    GameCreated, SupplyShuffled, FirstPlayerChosen, CardTaken, FaceUpTurned, CardsDiscarded, TurnStarted,
    AlexanderMoved, MoveSkipped, ProvinceSplit, ActionUsed, GuardsPlaced, GuardsRemoved, CardsGiven, Scored,
    TurnEnded, PlayerResigned, GameEnded, StepTakenBack,
)
