"""The words drawn in pictures, in the picture's language: a plain value the bot builds from its catalogs.

Rendering does not know the bot or its gettext catalogs (the bot depends on rendering, not the other way), so
the bot hands every picture a ``Words``: the translations of rendering's own messages (``MESSAGES``) in one
language, and that language's plural rule as gettext's C expression ("(n != 1)"). It is a frozen, picklable
value, so it travels with a ``RenderRequest`` to a worker process. ``Words()`` is English: every message is
its own English msgid, and a message missing from a ``Words`` falls back to English too.

Rendering's code calls the lookups with literal English strings, so that Babel extracts them into the bot's
catalogs (``tr``, ``ntr`` and ``ptr`` are extraction keywords in tools/catalogs.py)::

    words.tr("Turn {turn}").format(turn=v.turn)
    words.ntr("{n} red wall", "{n} red walls", n).format(n=n)
    words.ptr("symbol", "temple")

``MESSAGES`` lists every one of them (a test checks it against what Babel extracts from rendering/).
"""

from __future__ import annotations

import gettext
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

ENGLISH_RULE = "(n != 1)"
_CONTEXT = "\x04"  # gettext's separator between a message's context and its id

# (context, message id or (singular, plural)): every message rendering draws, as Babel extracts them.
Message = tuple[str | None, str | tuple[str, str]]
MESSAGES: tuple[Message, ...] = (
    # rendering/panel.py
    ("action", "take card"),
    ("action", "occupy"),
    ("action", "take over"),
    ("action", "levy"),
    ("action", "take back"),
    ("colour", "red"),
    ("colour", "yellow"),
    ("colour", "blue"),
    ("colour", "green"),
    ("symbol", "temple"),
    ("symbol", "amphora"),
    ("symbol", "horse"),
    ("symbol", "lyre"),
    ("symbol", "soldier"),
    (None, "nothing"),
    (None, "empty"),
    (None, "Game over"),
    (None, "Move Alexander first"),
    (None, ("{n} action left", "{n} actions left")),
    (None, "No action left"),
    (None, "{n} left · used {actions}"),
    (None, "{name} (resigned)"),
    (None, "Walls"),
    (None, "Turn {turn}"),
    (None, "The deal"),
    (None, "Supply {supply} · discard {discard}"),
    (None, "guards left"),
    (None, "cards in hand"),
    (None, "The walls ran out."),
    (None, "Alexander had nowhere to go."),
    (None, "{points} points were reached."),
    (None, "The other players resigned."),
    (None, "The players agreed to end it."),
    (None, ("after {n} turn", "after {n} turns")),
    (None, "Winner: {names}"),
    (None, "Shared win: {names}"),
    # rendering/labels.py: the region names of the packaged maps
    *(
        ("region", name)
        for name in (
            "Macedonia",
            "Thrace",
            "Asia Minor",
            "Armenia",
            "Syria",
            "Egypt",
            "Mesopotamia",
            "Babylonia",
            "Media",
            "Parthia",
            "Persia",
            "Bactria",
            "Arachosia",
            "Gedrosia",
            "Gandhara",
            "Indus",
            "Troad",
            "Bithynia",
            "Lydia",
            "Phrygia",
            "Caria",
            "Cilicia",
        )
    ),
    # rendering/pictures.py: the hand
    (None, ("{n} card", "{n} cards")),
    (None, "{name}'s hand"),
    # the move preview
    (None, "Move: {symbol}"),
    (None, "Move"),
    (None, "{name}: choose a point"),
    (None, "Alexander is at {point}"),
    (None, "No empty space shows this symbol."),
    (None, ("closest: {n} side away", "closest: {n} sides away")),
    (None, ("{n} wall", "{n} walls")),
    (None, ("{low}–{high} wall", "{low}–{high} walls")),
    (None, "… {n} more"),
    # the path preview and the confirm form
    (None, "Paths to {point}"),
    (None, "{name}: choose a path"),
    (None, "from Alexander at {point}"),
    (None, "It ends the game."),
    (None, "No path to this point."),
    (None, "Confirm the move"),
    (None, "Alexander to {point}"),
    (None, "from {point}, by {name}"),
    (None, "Places no wall"),
    (None, "(it runs along walls)"),
    (None, ("Places {n} red wall", "Places {n} red walls")),
    (None, ("Places {n} black wall", "Places {n} black walls")),
    (None, ("and {n} red wall", "and {n} red walls")),
    (None, "{n} black left after it"),
    (None, "This move ends\nthe game."),
    (None, "Your actions follow,\nthen nobody plays on."),
    (None, "The game goes on."),
    # the occupy and take-over preview
    (None, "Take over P{province}"),
    (None, "Occupy P{province}"),
    (None, "worth {value}"),
    (None, ("{n} symbol space", "{n} symbol spaces")),
    (None, "held by {name}"),
    (None, "It is yours already."),
    (None, "It has no symbol space."),
    (None, "No guard left in supply."),
    (None, "It cannot be taken."),
    (None, ("{name}: {n} guard", "{name}: {n} guards")),
    (None, "Remove:"),
    (None, "Occupy:"),
    (None, ("{n} card in all", "{n} cards in all")),
    (None, "You lack"),
    (None, "You can pay\nfor this."),
    (None, ("gets {n} of your cards", "gets {n} of your cards")),
)


@lru_cache(maxsize=16)
def plural_function(rule: str) -> Callable[[int], int]:
    """The plural rule (a C expression of ``n``, as in a catalog's Plural-Forms header) as a function."""
    return gettext.c2py(rule)


def key(message: str, context: str | None = None) -> str:
    """Where ``Words.texts`` keeps a message: its id, or its context and id joined as gettext does."""
    return f"{context}{_CONTEXT}{message}" if context else message


@dataclass(frozen=True)
class Words:
    """The words of rendering's messages in one language. ``texts`` maps a message (``key``) to its
    translation, ``plurals`` a plural message's singular id to its forms (as many as the language has, in
    the order ``plural_rule`` numbers them). Anything missing is English."""

    texts: dict[str, str] = field(default_factory=dict)
    plurals: dict[str, tuple[str, ...]] = field(default_factory=dict)
    plural_rule: str = ENGLISH_RULE
    language: str = "en"

    def __hash__(self) -> int:  # equal Words share a language and a rule; the dicts are not hashable
        return hash((self.language, self.plural_rule, len(self.texts), len(self.plurals)))

    def tr(self, message: str) -> str:
        """The message in this language."""
        return self.texts.get(message, message)

    def ptr(self, context: str, message: str) -> str:
        """The message within ``context`` ("symbol", "colour", "action") in this language."""
        return self.texts.get(key(message, context), message)

    def ntr(self, singular: str, plural: str, n: int) -> str:
        """The form of a plural message for the number ``n``, by this language's plural rule."""
        forms = self.plurals.get(singular)
        if not forms:
            return singular if n == 1 else plural
        return forms[min(self.form(n), len(forms) - 1)]

    def form(self, n: int) -> int:
        """Which of this language's plural forms goes with the number ``n`` (0 is the first)."""
        return int(plural_function(self.plural_rule)(n))


ENGLISH = Words()
