"""Refusals with stable codes. The engine never writes prose: the bot turns codes into sentences."""

from __future__ import annotations

from typing import Any


class IllegalAction(Exception):
    """An action that the rules refuse. ``code`` is stable (``area/what``); ``details`` feed the message."""

    def __init__(self, code: str, **details: Any) -> None:
        super().__init__(code if not details else f"{code} {details}")
        self.code = code
        self.details = details


# Every code the engine raises, so that the bot can be checked to have words for each of them.
ERROR_CODES: frozenset[str] = frozenset({
    "game/over",
    "game/stale",
    "game/unknown-player",
    "game/not-your-turn",
    "game/resigned",
    "game/bad-setup",
    "turn/move-first",
    "turn/already-moved",
    "turn/no-actions-left",
    "move/bad-slot",
    "move/slot-empty",
    "move/not-in-hand",
    "move/no-empty-space",
    "move/joker-not-allowed",
    "move/joker-needs-symbol",
    "move/unexpected-symbol",
    "move/unknown-space",
    "move/wrong-symbol",
    "move/not-empty",
    "move/not-closest",
    "move/bad-path",
    "move/not-a-corner",
    "move/not-shortest",
    "move/too-many-walls",
    "move/not-fewest-walls",
    "card/bad-slot",
    "card/slot-empty",
    "card/supply-empty",
    "province/unknown",
    "occupy/not-free",
    "occupy/no-symbol-space",
    "occupy/no-guard",
    "occupy/not-enough-guards",
    "occupy/duplicate-space",
    "occupy/outside-province",
    "occupy/open-space",
    "occupy/missing-cards",
    "takeover/free",
    "takeover/own-province",
    "takeover/missing-cards",
    "takeover/bad-compensation",
    "levy/already",
    "levy/no-guards",
    "levy/not-in-hand",
    "levy/card-not-matching",
    "takeback/not-your-guard",
})
