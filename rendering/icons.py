"""Small pictures drawn from vector shapes: the five symbols, the players' guard marks, Alexander.

Each icon is drawn four times too large on a transparent canvas and shrunk, which gives clean edges that
ImageDraw alone cannot, and is cached per size, so a board pays for it once. The symbols differ in shape
(temple, amphora, horse head, lyre, crested helmet), not only in colour.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache

from PIL import Image, ImageDraw

from engine.symbols import Symbol
from rendering.theme import DEFAULT_THEME, PLAYER_MARKS, RGB, Theme, mix

SUPER = 4
Pts = list[tuple[float, float]]


class _Pen:
    """Draws in unit coordinates (0..1) on a square canvas of ``n`` pixels."""

    def __init__(self, draw: ImageDraw.ImageDraw, n: int, ink: RGB, line: float) -> None:
        self.d = draw
        self.n = n
        self.ink = ink
        self.w = max(1, round(line * n))

    def p(self, pts: Pts) -> list[tuple[float, float]]:
        return [(x * self.n, y * self.n) for x, y in pts]

    def poly(self, pts: Pts, fill: RGB | None) -> None:
        self.d.polygon(self.p(pts), fill=fill, outline=self.ink, width=self.w)

    def rect(self, x0: float, y0: float, x1: float, y1: float, fill: RGB | None) -> None:
        self.poly([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], fill)

    def ellipse(self, x0: float, y0: float, x1: float, y1: float, fill: RGB | None) -> None:
        n = self.n
        self.d.ellipse((x0 * n, y0 * n, x1 * n, y1 * n), fill=fill, outline=self.ink, width=self.w)

    def line(self, pts: Pts, width: float | None = None, colour: RGB | None = None) -> None:
        w = self.w if width is None else max(1, round(width * self.n))
        self.d.line(self.p(pts), fill=colour or self.ink, width=w, joint="curve")

    def arc(self, box: tuple[float, float, float, float], start: float, end: float, width: float) -> None:
        n = self.n
        self.d.arc(tuple(v * n for v in box), start, end, fill=self.ink, width=max(1, round(width * n)))


def _temple(pen: _Pen, fill: RGB) -> None:
    pen.poly([(0.08, 0.34), (0.5, 0.08), (0.92, 0.34)], fill)
    pen.rect(0.12, 0.34, 0.88, 0.43, fill)
    for x in (0.17, 0.36, 0.55, 0.74):
        pen.rect(x, 0.43, x + 0.09, 0.80, fill)
    pen.rect(0.07, 0.80, 0.93, 0.92, fill)


def _amphora(pen: _Pen, fill: RGB) -> None:
    pen.arc((0.14, 0.14, 0.44, 0.5), 90, 270, 0.07)
    pen.arc((0.56, 0.14, 0.86, 0.5), 270, 90, 0.07)
    pen.poly([(0.40, 0.80), (0.60, 0.80), (0.68, 0.94), (0.32, 0.94)], fill)
    pen.ellipse(0.22, 0.32, 0.78, 0.86, fill)
    pen.rect(0.39, 0.12, 0.61, 0.38, fill)
    pen.rect(0.31, 0.06, 0.69, 0.13, fill)
    pen.line([(0.25, 0.56), (0.75, 0.56)], 0.06)


def _horse(pen: _Pen, fill: RGB) -> None:
    head = [
        (0.30, 0.95),
        (0.33, 0.72),
        (0.40, 0.58),
        (0.28, 0.60),
        (0.14, 0.56),
        (0.07, 0.47),
        (0.10, 0.38),
        (0.30, 0.22),
        (0.40, 0.15),
        (0.43, 0.04),
        (0.52, 0.13),
        (0.64, 0.15),
        (0.80, 0.28),
        (0.90, 0.50),
        (0.92, 0.95),
    ]
    pen.poly(head, fill)
    mane = [(0.64, 0.15), (0.80, 0.28), (0.90, 0.50), (0.92, 0.95), (0.80, 0.95), (0.78, 0.50), (0.68, 0.30)]
    pen.poly(mane, mix(fill, pen.ink, 0.55))
    pen.ellipse(0.40, 0.27, 0.50, 0.37, pen.ink)
    pen.ellipse(0.10, 0.43, 0.16, 0.49, pen.ink)


def _lyre(pen: _Pen, fill: RGB) -> None:
    pen.poly([(0.22, 0.70), (0.78, 0.70), (0.70, 0.93), (0.30, 0.93)], fill)
    for x in (0.38, 0.46, 0.54, 0.62):
        pen.line([(x, 0.22), (x, 0.72)], 0.025)
    arm = 0.10
    pen.line([(0.30, 0.72), (0.16, 0.50), (0.20, 0.26), (0.10, 0.08)], arm + 0.07)
    pen.line([(0.70, 0.72), (0.84, 0.50), (0.80, 0.26), (0.90, 0.08)], arm + 0.07)
    pen.line([(0.30, 0.72), (0.16, 0.50), (0.20, 0.26), (0.10, 0.08)], arm, fill)
    pen.line([(0.70, 0.72), (0.84, 0.50), (0.80, 0.26), (0.90, 0.08)], arm, fill)
    pen.rect(0.14, 0.17, 0.86, 0.25, fill)


def _soldier(pen: _Pen, fill: RGB, crest: RGB) -> None:
    """A crested Corinthian helmet seen from the front, with its T-shaped face opening."""
    n = pen.n
    pen.d.pieslice(
        (0.16 * n, 0.02 * n, 0.84 * n, 0.46 * n), 180, 360, fill=crest, outline=pen.ink, width=pen.w
    )
    dome = [
        (0.5 + 0.33 * math.cos(a), 0.50 - 0.30 * math.sin(a)) for a in (math.pi * k / 12 for k in range(13))
    ]
    helmet = dome + [
        (0.15, 0.62),
        (0.22, 0.95),
        (0.42, 0.95),
        (0.42, 0.66),
        (0.58, 0.66),
        (0.58, 0.95),
        (0.78, 0.95),
        (0.85, 0.62),
    ]
    pen.poly(helmet, fill)
    pen.poly(
        [
            (0.24, 0.50),
            (0.76, 0.50),
            (0.76, 0.60),
            (0.57, 0.60),
            (0.57, 0.80),
            (0.43, 0.80),
            (0.43, 0.60),
            (0.24, 0.60),
        ],
        pen.ink,
    )


def _paint_symbol(symbol: Symbol, theme: Theme) -> Callable[[_Pen], None]:
    fill = theme.palette.symbol(symbol)
    if symbol is Symbol.TEMPLE:
        return lambda pen: _temple(pen, fill)
    if symbol is Symbol.AMPHORA:
        return lambda pen: _amphora(pen, fill)
    if symbol is Symbol.HORSE:
        return lambda pen: _horse(pen, fill)
    if symbol is Symbol.LYRE:
        return lambda pen: _lyre(pen, fill)
    return lambda pen: _soldier(pen, fill, theme.palette.crest)


def _canvas(size: int, paint: Callable[[_Pen], None], ink: RGB, line: float) -> Image.Image:
    n = size * SUPER
    im = Image.new("RGBA", (n, n), (0, 0, 0, 0))
    paint(_Pen(ImageDraw.Draw(im), n, ink, line))
    return im.resize((size, size), Image.Resampling.LANCZOS)


@lru_cache(maxsize=128)
def symbol_icon(symbol: Symbol, size: int, theme: Theme = DEFAULT_THEME) -> Image.Image:
    """The symbol's picture, ``size`` pixels square, on a transparent background."""
    line = 0.07 if size < 40 else 0.045
    return _canvas(size, _paint_symbol(symbol, theme), theme.palette.ink, line)


def mark_points(mark: str, cx: float, cy: float, r: float) -> list[tuple[float, float]]:
    """The outline of a player's mark (square, triangle, diamond) of radius ``r`` around a centre."""
    if mark == "square":
        k = r * 0.86
        return [(cx - k, cy - k), (cx + k, cy - k), (cx + k, cy + k), (cx - k, cy + k)]
    if mark == "triangle":
        return [(cx, cy - r * 1.1), (cx + r * 1.05, cy + r * 0.75), (cx - r * 1.05, cy + r * 0.75)]
    return [(cx, cy - r * 1.15), (cx + r * 1.15, cy), (cx, cy + r * 1.15), (cx - r * 1.15, cy)]


def draw_mark(
    draw: ImageDraw.ImageDraw,
    seat: int,
    cx: float,
    cy: float,
    r: float,
    theme: Theme,
    fill: RGB | None = None,
    outline: RGB | None = None,
    width: int = 2,
) -> None:
    """Draw seat ``seat``'s mark (circle, square, triangle, diamond) in its colour."""
    mark = PLAYER_MARKS[seat % len(PLAYER_MARKS)]
    colour = theme.palette.player(seat) if fill is None else fill
    ink = theme.palette.ink if outline is None else outline
    if mark == "circle":
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=colour, outline=ink, width=width)
    else:
        draw.polygon(mark_points(mark, cx, cy, r), fill=colour, outline=ink, width=width)


@lru_cache(maxsize=64)
def guard_icon(seat: int, size: int, theme: Theme = DEFAULT_THEME) -> Image.Image:
    """A guard: the seat's mark in its colour with a dark rim, ``size`` pixels square."""
    n = size * SUPER
    im = Image.new("RGBA", (n, n), (0, 0, 0, 0))
    draw = ImageDraw.Draw(im)
    cy = n / 2 + (n * 0.06 if PLAYER_MARKS[seat % 4] == "triangle" else 0)
    # A white rim first: the guard must stand out on land tinted in its own colour.
    draw_mark(
        draw, seat, n / 2, cy, n * 0.42, theme, fill=theme.palette.white, outline=theme.palette.white, width=1
    )
    draw_mark(draw, seat, n / 2, cy, n * 0.36, theme, width=max(2, round(n * 0.06)))
    return im.resize((size, size), Image.Resampling.LANCZOS)


@lru_cache(maxsize=16)
def alexander_icon(size: int, theme: Theme = DEFAULT_THEME) -> Image.Image:
    """Alexander: a standing figure with a plumed helmet on a white disc, centred on his point."""
    n = size * SUPER
    im = Image.new("RGBA", (n, n), (0, 0, 0, 0))
    d = ImageDraw.Draw(im)
    ink, white = theme.palette.ink, theme.palette.white
    w = round(n * 0.06)
    d.ellipse((w, w, n - w, n - w), fill=white, outline=ink, width=w)
    u = n / 100
    d.polygon([(50 * u, 44 * u), (73 * u, 84 * u), (27 * u, 84 * u)], fill=ink)  # cloak
    d.ellipse((40 * u, 26 * u, 60 * u, 46 * u), fill=ink)  # head
    d.pieslice((36 * u, 12 * u, 64 * u, 40 * u), 180, 360, fill=theme.palette.crest)  # plume
    d.line([(72 * u, 20 * u), (72 * u, 84 * u)], fill=ink, width=round(4 * u))  # spear
    return im.resize((size, size), Image.Resampling.LANCZOS)
