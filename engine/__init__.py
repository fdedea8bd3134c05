"""The rules of Alexandros (../shared/rules/ALEXANDROS.md) as a pure, deterministic library.

Standard library only: no I/O in the rules, no clock, no global random. A game is a ``GameState`` value;
``apply(state, action)`` returns the next state and the events that happened, or raises ``IllegalAction``
with a stable code. ``engine.rules`` answers every "what is legal?" question, ``engine.views`` hides what a
viewer may not see, and ``engine.serialize`` turns all of it into JSON.
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
)
from engine.errors import ERROR_CODES, IllegalAction
from engine.events import Event
from engine.game import apply, evolve, new_game, replay
from engine.geometry import Point, Side, Space, point_label
from engine.maps import LabelError, Map, MapError, default_map, load_map, packaged_map, parse_map
from engine.state import EndReason, GameState, Options, Phase
from engine.symbols import SYMBOLS, Cards, Symbol
from engine.views import GameView, redact, view

__all__ = [
    "ERROR_CODES", "SYMBOLS", "Action", "CardSource", "Cards", "EndByAgreement", "EndReason", "EndTurn",
    "Event", "GameState", "GameView", "IllegalAction", "LabelError", "Levy", "Map", "MapError", "Move",
    "MoveWay", "Occupy", "Options", "Phase", "Point", "Resign", "Side", "SkipTurn", "Space", "Symbol",
    "TakeBack", "TakeCard", "TakeOver", "apply", "default_map", "evolve", "load_map",
    "new_game", "packaged_map", "parse_map", "point_label", "redact", "replay", "view",
]
