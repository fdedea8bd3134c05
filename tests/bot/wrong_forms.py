"""The forms a player must never read (issue 15): bad articles and plurals, raw Discord markup in the console,
Python reprs, the generic error, and refusals that do not say what to do or what is allowed.

``wrong_forms(text)`` lists every hit with its line; ``no_way_forward(sentence)`` says whether a refusal
lacks a way forward. The tests of bot.words.words and the full games through the console use both.
"""

from __future__ import annotations

import re

_NOUNS = (
    r"(?:new |black |red |symbol |open )?"
    r"(?:side|card|wall|guard|path|province|action|game|point|space|player|event|hour|minute)"
)

WRONG: dict[str, re.Pattern[str]] = {
    "'a' before a vowel": re.compile(r"\b[Aa] (?=[aeiou]\w)"),
    "'an' before a consonant": re.compile(r"\b[Aa]n (?=[b-df-hj-np-tv-z]\w)"),
    "'a a'": re.compile(r"\b[Aa]n? an?\b"),
    "lazy plural": re.compile(r"[a-z]\(s\)"),
    "plural after 1": re.compile(rf"(?<![\d.,/–-])\b1 {_NOUNS}s\b"),
    "singular after 0 or many": re.compile(rf"(?<![\d.,/–-])\b(?:0|[2-9]|\d{{2,}}) {_NOUNS}\b(?!s)"),
    "raw timestamp": re.compile(r"<t:\d+(?::\w)?>"),
    "raw mention": re.compile(r"<[@#][!&]?\d+>"),
    "enum repr": re.compile(r"\b(?:Symbol|Phase|MoveWay|CardSource|EndReason|SideKind)\.[A-Z_]+"),
    "object repr": re.compile(r"<[\w.]+ object at 0x"),
    "dataclass repr": re.compile(r"\b[A-Z]\w+\((?:\w+=)"),
    "None": re.compile(r"(?<![\w`])None\b(?! of)"),
    "generic error": re.compile(r"Something went wrong|only this answer could not be shown"),
}

# A refusal names a way forward: a command, a thing to pick, choose, type, press or play, or what is
# allowed. These words are how the bot's sentences say so.
WAY_FORWARD = re.compile(
    r"`/alexandros|\b(?:pick|choose|type|press|use|play|take|end|join|start|ask|add|leave|look|put|try|"
    r"wait|occupy|levy|move|name|give|pay)\b|\b(?:you can|allowed|instead|offered|from the list|"
    r"symbols are|nearest points|choose \d|once|until|after|later|again)\b",
    re.IGNORECASE,
)


MARKUP = ("raw timestamp", "raw mention")


def wrong_forms(text: str, markup: bool = True) -> list[str]:
    """Every wrong form in ``text``, as "what: the line"; ``markup=False`` for text sent to Discord, which
    shows its ``<t:…>`` and ``<@…>`` markup as times and names."""
    hits = []
    for line in text.splitlines():
        for what, pattern in WRONG.items():
            if not markup and what in MARKUP:
                continue
            if pattern.search(line):
                hits.append(f"{what}: {line.strip()[:200]}")
    return hits


def no_way_forward(sentence: str) -> bool:
    return WAY_FORWARD.search(sentence) is None
