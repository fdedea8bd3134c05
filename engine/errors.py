"""Refusals with stable codes. The engine never writes prose: the bot turns codes into sentences.

The order of refusals
---------------------
``apply`` checks in a fixed order and raises the first check that fails, so an action that is wrong in
several ways always gets the same code (tests/engine/test_error_codes.py pins this order):

1. ``game/stale`` (an older ``expected_version``), ``game/over``, ``game/unknown-player``,
   ``game/resigned``; ``Resign`` and ``EndByAgreement`` need nothing more; then ``game/not-your-turn``.
2. ``EndTurn``: ``turn/move-first``. ``SkipTurn``: nothing more. ``Undo`` (P10): ``undo/revealed`` when this
   turn revealed hidden information after its last step that could be taken back, else ``undo/nothing``.
3. ``Move`` (engine.rules.check_move, which preview_move shares):
   a. the turn: ``turn/already-moved``;
   b. the card (R3.1): ``move/bad-slot``, ``move/slot-empty``; then for a normal move
      ``move/unexpected-symbol``, ``move/no-empty-space``; for a joker ``move/joker-not-allowed``,
      ``move/joker-needs-symbol``, ``move/no-empty-space``; for a special move ``move/not-in-hand``,
      ``move/unexpected-symbol``, ``move/no-empty-space``;
   c. the path's form: ``move/bad-path`` (its start, then each side in walking order);
   d. where it ends (R3.2-R3.4): ``move/wrong-symbol`` (no space of the target symbol has that corner),
      ``move/not-empty`` (none of them is empty), ``move/not-closest``; then ``move/not-shortest``;
   e. the walls (R3.7, P5): ``move/too-many-walls`` or ``move/not-fewest-walls``.
4. Every other action: ``turn/move-first``, ``turn/no-actions-left``, then its own checks:
   - ``TakeCard``: ``card/bad-slot``, ``card/slot-empty``; from the supply ``card/supply-empty``;
   - ``Occupy``: ``province/unknown``, ``takeover/own-province``, ``occupy/not-free``,
     ``occupy/no-symbol-space``; the guards: ``occupy/no-guard``, ``occupy/not-enough-guards``,
     ``occupy/duplicate-space``, then per guard in order ``occupy/outside-province``, ``occupy/open-space``;
     then ``occupy/missing-cards``;
   - ``TakeOver``: ``province/unknown``, ``takeover/own-province``, ``takeover/free``,
     ``occupy/no-symbol-space``, the guards as for Occupy, ``takeover/missing-cards``,
     ``takeover/bad-compensation``;
   - ``Levy``: ``levy/already``, ``levy/no-guards``, ``levy/not-in-hand``, ``levy/card-not-matching``;
   - ``TakeBack``: ``takeback/not-your-guard``.

``new_game`` refuses a player count with ``game/bad-setup``.
"""

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
    "move/wrong-symbol",
    "move/not-empty",
    "move/not-closest",
    "move/bad-path",
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
    "undo/nothing",
    "undo/revealed",
})
