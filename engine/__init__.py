"""The rules of Alexandros (docs/ALEXANDROS.md) as a pure, deterministic library.

Standard library only: no I/O in the rules, no clock, no global random. A game is a ``GameState`` value;
``apply(state, action)`` returns the next state and the events that happened, or raises ``IllegalAction``
with a stable code (engine.errors documents which code wins when several checks fail). ``engine.rules``
answers every "what is legal?" question (``destinations`` and ``preview_move`` for the guided move),
``engine.views`` hides what a viewer may not see, ``engine.serialize`` turns all of it into JSON,
``engine.snapshot`` stores states lean (the map by reference), and ``engine.notation`` writes actions and
positions as short text.
"""

from engine.actions import (
    Action,
    CardSource,
    EndByAgreement,
    EndTurn,
    Levy,
    Move,
    MoveWay,
    Occupy,
    Resign,
    SkipTurn,
    TakeBack,
    TakeCard,
    TakeOver,
    Undo,
)
from engine.errors import ERROR_CODES, IllegalAction
from engine.events import (
    EVENT_TYPES,
    ActionUsed,
    AlexanderMoved,
    CardsDiscarded,
    CardsGiven,
    CardTaken,
    Event,
    FaceUpTurned,
    FirstPlayerChosen,
    GameCreated,
    GameEnded,
    GuardsPlaced,
    GuardsRemoved,
    MoveSkipped,
    PlayerResigned,
    ProvinceSplit,
    Scored,
    StepTakenBack,
    SupplyShuffled,
    TurnEnded,
    TurnStarted,
)
from engine.game import apply, evolve, new_game, replay
from engine.geometry import Point, Side, Space, point_label
from engine.maps import LabelError, Map, MapError, default_map, load_map, packaged_map, parse_map
from engine.notation import NotationError, format_action, format_position, parse_action, parse_position
from engine.rules import Destination, MoveChoice, MovePreview, PathOption, ProvinceCut, ProvincePart
from engine.snapshot import SnapshotError, dump_state, load_state, map_ref
from engine.state import (
    ActionKind,
    EndReason,
    GameResult,
    GameState,
    LastMove,
    Options,
    Phase,
    PlayerState,
    Province,
    UndoTrail,
)
from engine.symbols import SYMBOLS, Cards, Symbol
from engine.views import GameView, PlayerPublic, ProvinceView, redact, view

__all__ = [
    "ERROR_CODES", "EVENT_TYPES", "SYMBOLS", "Action", "ActionKind", "ActionUsed", "AlexanderMoved",
    "CardSource", "CardTaken", "Cards", "CardsDiscarded", "CardsGiven", "Destination", "EndByAgreement",
    "EndReason", "EndTurn", "Event", "FaceUpTurned", "FirstPlayerChosen", "GameCreated", "GameEnded",
    "GameResult", "GameState", "GameView", "GuardsPlaced", "GuardsRemoved", "IllegalAction", "LabelError",
    "LastMove", "Levy", "Map", "MapError", "Move", "MoveChoice", "MovePreview", "MoveSkipped", "MoveWay",
    "NotationError", "Occupy", "Options", "PathOption", "Phase", "PlayerPublic", "PlayerResigned",
    "PlayerState", "Point", "Province", "ProvinceCut", "ProvincePart", "ProvinceSplit", "ProvinceView",
    "Resign", "Scored", "Side", "SkipTurn", "SnapshotError", "Space", "StepTakenBack", "SupplyShuffled",
    "Symbol", "TakeBack", "TakeCard", "TakeOver", "TurnEnded", "TurnStarted", "Undo", "UndoTrail", "apply",
    "default_map", "dump_state", "evolve", "format_action", "format_position", "load_map", "load_state",
    "map_ref", "new_game", "packaged_map", "parse_action", "parse_map", "parse_position", "point_label",
    "redact", "replay", "view",
]
