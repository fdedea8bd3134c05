"""The five symbols of spaces and cards (ALEXANDROS.md §1), and hands as counts per symbol."""

from __future__ import annotations

from enum import StrEnum


class Symbol(StrEnum):
    TEMPLE = "temple"
    AMPHORA = "amphora"
    HORSE = "horse"
    LYRE = "lyre"
    SOLDIER = "soldier"

    @property
    def letter(self) -> str:
        return SYMBOL_LETTERS[self]

    @property
    def ordinal(self) -> int:
        return SYMBOL_INDEX[self]


SYMBOLS: tuple[Symbol, ...] = tuple(Symbol)
SYMBOL_INDEX: dict[Symbol, int] = {s: i for i, s in enumerate(SYMBOLS)}
SYMBOL_LETTERS: dict[Symbol, str] = {
    Symbol.TEMPLE: "T",
    Symbol.AMPHORA: "A",
    Symbol.HORSE: "H",
    Symbol.LYRE: "L",
    Symbol.SOLDIER: "S",
}
LETTER_SYMBOLS: dict[str, Symbol] = {v: k for k, v in SYMBOL_LETTERS.items()}

# A multiset of cards: one count per symbol, in SYMBOLS order. Cards of one symbol are identical.
Cards = tuple[int, int, int, int, int]
NO_CARDS: Cards = (0, 0, 0, 0, 0)


def cards_of(symbols: list[Symbol] | tuple[Symbol, ...]) -> Cards:
    counts = [0, 0, 0, 0, 0]
    for s in symbols:
        counts[SYMBOL_INDEX[s]] += 1
    return _cards(counts)


def one(symbol: Symbol, n: int = 1) -> Cards:
    counts = [0, 0, 0, 0, 0]
    counts[SYMBOL_INDEX[symbol]] = n
    return _cards(counts)


def add(a: Cards, b: Cards) -> Cards:
    return _cards([x + y for x, y in zip(a, b, strict=True)])


def sub(a: Cards, b: Cards) -> Cards:
    return _cards([x - y for x, y in zip(a, b, strict=True)])


def without(a: Cards, b: Cards) -> Cards:
    """``a`` less ``b``, no count below zero."""
    return _cards([max(0, x - y) for x, y in zip(a, b, strict=True)])


def contains(a: Cards, b: Cards) -> bool:
    return all(x >= y for x, y in zip(a, b, strict=True))


def missing(have: Cards, need: Cards) -> Cards:
    """What ``need`` asks for beyond ``have``."""
    return _cards([max(0, y - x) for x, y in zip(have, need, strict=True)])


def total(a: Cards) -> int:
    return sum(a)


def count(a: Cards, symbol: Symbol) -> int:
    return a[SYMBOL_INDEX[symbol]]


def as_list(a: Cards) -> list[Symbol]:
    return [s for s, n in zip(SYMBOLS, a, strict=True) for _ in range(n)]


def _cards(counts: list[int]) -> Cards:
    return (counts[0], counts[1], counts[2], counts[3], counts[4])
