"""Games played on from a given position (``python -m engine simulate --from FILE``)."""

from __future__ import annotations

import random

from engine import invariants
from engine.ai import MAX_TURNS, PLAYERS, GameStats, _kind
from engine.events import Event
from engine.game import apply, evolve
from engine.maps import Map
from engine.notation import parse_position
from engine.state import GameState


def read_position(text: str, game_map: Map | None) -> GameState:
    """A position in engine.notation's notation; ``game_map`` when given is its map, whatever its digest."""
    return parse_position(text, maps=(lambda _digest: game_map) if game_map is not None else None)


def play_from(position: GameState, seed: int, ai: str) -> tuple[GameState, list[Event], GameStats]:
    """``engine.ai.play_game`` from a given position: every seat played by ``ai``, every invariant checked
    after every action, each action through the fully checked ``apply``."""
    rng = random.Random(seed)
    state, events, violations = position, [], list(invariants.check(position))
    actions: dict[str, int] = {}
    while not state.over and state.turn <= position.turn + MAX_TURNS:
        action = PLAYERS[ai](state, rng)
        kind = _kind(action)
        actions[kind] = actions.get(kind, 0) + 1
        after, evs = apply(state, action)
        events.extend(evs)
        violations.extend(f"turn {after.turn} {kind}: {v}" for v in invariants.check_step(state, after))
        state = after
    return state, events, GameStats(state.turn, actions, violations, not state.over)


def fold(position: GameState, events: list[Event]) -> GameState:
    """The state the events lead to from ``position``: a replay that starts mid-game."""
    state = position
    for e in events:
        state = evolve(state, e)
    return state
