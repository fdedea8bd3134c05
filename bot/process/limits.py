"""Discord's limits, in one place: everything the bot sends is fitted here, because discord.py checks none
of them (a 2,001-character message fails as "This interaction failed" for the user).

- message content: 2,000 characters (``content``: whole lines dropped from the middle, then cut);
- a label (button, select option, autocomplete choice): 100 characters (``label``: cut after a whole
  clause or word);
- a select or an autocomplete list: 25 options (``options``);
- a value the user typed and the bot repeats back (``echo``): one line of at most 60 characters, so that a
  refusal quoting a 300-character value still fits and still reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

MAX_CONTENT = 2000
MAX_LABEL = 100
MAX_OPTIONS = 25
MAX_CUSTOM_ID = 100
MAX_ECHO = 60


def shorten(text: str, limit: int) -> str:
    """At most ``limit`` characters, ending in "…" when cut."""
    return text if len(text) <= limit else text[: max(0, limit - 1)] + "…"


def content(text: str, limit: int = MAX_CONTENT) -> str:
    """A message within Discord's limit, dropping whole lines from the middle if needed."""
    if len(text) <= limit:
        return text
    lines = text.split("\n")
    head, tail = lines[:2], lines[2:]
    while tail and len("\n".join(head + ["…"] + tail)) > limit:
        tail.pop(0)
    return shorten("\n".join(head + ["…"] + tail), limit)


def label(text: str) -> str:
    """One line of at most 100 characters (``cut``)."""
    return cut(" ".join(text.split()), MAX_LABEL)


def cut(text: str, limit: int) -> str:
    """At most ``limit`` characters. A longer text ends in "…" after its last whole clause that fits (up to
    ", " or "; ") if that keeps a third of ``limit``, else after its last whole word if that keeps half.
    Cut inside a word, "6 symbol spaces" read "6 symbol space…"; after a word, "6 symbol…"."""
    if len(text) <= limit:
        return text
    for separators, least in (((", ", "; "), limit // 3), ((" ",), limit // 2)):
        at = max(text.rfind(sep, 0, limit) for sep in separators)
        if at >= least:
            return text[:at] + "…"
    return shorten(text, limit)


def echo(value: object) -> str:
    """A value the user gave, as the bot quotes it back: one line, shortened."""
    return shorten(" ".join(str(value).split()), MAX_ECHO)


def options(items: Sequence[T]) -> list[T]:
    return list(items[:MAX_OPTIONS])
