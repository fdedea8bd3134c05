"""Computer players at a table (issue 14): seats the computer plays, and the level that plays for an absent
player (deadline policy autoplay). The levels are the engine's (``engine.ai.LEVELS``: easy = random,
normal = greedy, hard = the player that searches sampled worlds from its own view); a turn is played off
the event loop, and the hard level stops when its time is up.

A computer seat has a small negative user id (-1, -2, -3 in its game: Discord ids are positive, and the
pseudonyms of forgotten users are large negative numbers); the table's options keep its level by that id
(``options["computers"]``), and the table's level for absent players in ``options["computer"]``.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Mapping
from typing import Any

from engine.actions import Action
from engine.ai import LEVELS, hard_player
from engine.errors import IllegalAction
from engine.events import Event
from engine.game import apply
from engine.state import GameState

log = logging.getLogger("bot")

DEFAULT_LEVEL = "normal"
LEVEL_NAMES = {"easy": "easy", "normal": "normal", "hard": "hard"}
THINKING_SECONDS = 2.5  # the hard level's budget per decision (issue 14: a hard cap of 3 s)
AUTOPLAY_CAP = 40  # a turn is a move and at most two actions; the cap only guards against a looping player


def is_computer(user_id: int | None) -> bool:
    return user_id is not None and -100 < user_id < 0


def seat_level(options: Mapping[str, Any], user_id: int) -> str:
    level = (options.get("computers") or {}).get(str(user_id), DEFAULT_LEVEL)
    return level if level in LEVELS else DEFAULT_LEVEL


def table_level(options: Mapping[str, Any]) -> str:
    level = options.get("computer", DEFAULT_LEVEL)
    return level if level in LEVELS else DEFAULT_LEVEL


def _deadline(until: float) -> Callable[[], bool]:
    return lambda: time.monotonic() > until


def play_turn(
    state: GameState, level: str, rng: random.Random
) -> tuple[GameState, tuple[Event, ...], tuple[Action, ...]] | None:
    """The computer plays the current seat's whole turn at ``level`` (None: it failed or looped).

    Runs in a worker thread: the hard level takes up to THINKING_SECONDS per decision.
    """
    player = LEVELS[level]
    seat, turn = state.current, state.turn
    cur, events, actions = state, [], []
    for _ in range(AUTOPLAY_CAP):
        try:
            if level == "hard":
                action = hard_player(cur, rng, _deadline(time.monotonic() + THINKING_SECONDS))
            else:
                action = player(cur, rng)
        except Exception:  # noqa: BLE001 - a computer player's defect must not stall the game
            # (as the greedy player once asserted on far walled moves, now fixed and pinned by
            # tests/engine/test_move_queries.py): the easy level always finds a legal action.
            log.warning("the %s computer player failed; the easy one plays this action", level, exc_info=True)
            action = LEVELS["easy"](cur, rng)
        try:
            cur, evs = apply(cur, action)
        except IllegalAction:
            return None
        events.extend(evs)
        actions.append(action)
        if cur.over or cur.turn != turn or cur.current != seat:
            return cur, tuple(events), tuple(actions)
    return None
