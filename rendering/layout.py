"""Where things go: the map's lattice (MAP-FORMAT.md) scaled into the board area of a picture.

Point ``(i, x)`` sits at ``(x * s/2, i * s * sqrt(3)/2)`` for side ``s``; the layout adds the offset of
the map inside the picture and keeps the side as large as fits beside the panel and inside the rulers.
"""

from __future__ import annotations

import math
from dataclasses import astuple, dataclass
from functools import cached_property, lru_cache

from engine.geometry import Point, Side, Space, corners
from engine.maps import NOTHING, Map
from rendering.theme import Theme

SQRT3_2 = math.sqrt(3) / 2
XY = tuple[float, float]
# Readable on a phone: Discord shows a picture about 400 px wide there, and text must then be at least
# 11 px high. So every font's pixel size is at least 11/400 of the picture's width (44 px at 1600).
PHONE_WIDTH = 400
PHONE_TEXT = 11


# The width pictures are drawn at unless the caller says otherwise. Every size scales with the width, so
# text is as readable on a phone at any width; 1280 keeps a mid-game board under 150 KB and 30 ms of CPU
# (benchmarks/bench_render.py), and is still sharp when Discord opens the picture full size.
BOARD_WIDTH = 1280


def min_text_px(width: int) -> int:
    """The smallest font pixel size that is still ``PHONE_TEXT`` px high when shown ``PHONE_WIDTH`` wide."""
    return math.ceil(PHONE_TEXT * width / PHONE_WIDTH - 1e-9)


@dataclass(frozen=True)
class Layout:
    """The board fills the top of the picture; the panel is a band under it (``panel_top`` to ``height``),
    whose last line (from ``legend_top``) holds the board picture's legend.
    The rulers run along the top (x) and the left (lines)."""

    width: int
    height: int
    panel_top: int  # the panel band starts here
    legend_top: int  # the legend line under the band starts here
    scale: float  # picture width / 1600: multiplies every size of the theme
    side: float  # a triangle's side in pixels
    ox: float  # pixel position of lattice x = 0
    oy: float  # pixel position of line 0
    x_min: int
    x_max: int
    lines: int
    ruler: int  # ruler margin in pixels
    map_box: tuple[int, int, int, int]  # the framed map area (left, top, right, bottom)

    def __hash__(self) -> int:
        return self._hash

    @cached_property
    def _hash(self) -> int:
        # Kept: every band's and panel part's key holds the layout (rendering.pictures), and the generated
        # hash walked its 13 fields each time.
        return hash(astuple(self))

    def px(self, p: Point) -> XY:
        i, x = p
        return self.ox + x * self.side / 2, self.oy + i * self.side * SQRT3_2

    def tri(self, space: Space) -> list[XY]:
        return [self.px(p) for p in corners(space)]

    def centre(self, space: Space) -> XY:
        pts = self.tri(space)
        return sum(p[0] for p in pts) / 3, sum(p[1] for p in pts) / 3

    def mid(self, s: Side) -> XY:
        (ax, ay), (bx, by) = self.px(s[0]), self.px(s[1])
        return (ax + bx) / 2, (ay + by) / 2

    def size(self, px_at_1600: float) -> int:
        return max(1, round(px_at_1600 * self.scale))

    def text(self, px_at_1600: float) -> int:
        """A font's pixel size: the theme's size scaled, but never below the phone-readable minimum."""
        return max(min_text_px(self.width), round(px_at_1600 * self.scale))

    def of_side(self, fraction: float) -> int:
        return max(1, round(fraction * self.side))


def _extent(m: Map) -> tuple[int, int]:
    """The smallest and largest lattice x of any drawn triangle (land or sea)."""
    xs: list[int] = []
    for r, row in enumerate(m.rows):
        for c, ch in enumerate(row):
            if ch != NOTHING:
                xs += [c, c + 2]
        del r
    return (min(xs), max(xs)) if xs else (0, 2)


@lru_cache(maxsize=32)
def layout(m: Map, width: int, theme: Theme) -> Layout:
    """The layout of ``m`` in a landscape picture ``width`` pixels wide: the map as large as fits the width
    and the theme's largest height, the panel band under it."""
    sz = theme.sizes
    scale = width / sz.width
    x_min, x_max = _extent(m)
    rows = len(m.rows)
    ruler = round(sz.ruler * scale)
    pad = round(sz.pad * scale)
    panel = round(sz.panel_height * scale)
    legend = round(sz.legend_height * scale)
    avail_w = width - ruler - 3 * pad
    avail_h = round(sz.height * scale) - panel - ruler - 4 * pad
    cols = max(x_max - x_min, 1) / 2
    side = min(avail_w / cols, avail_h / max(rows * SQRT3_2, 1e-9), sz.max_side * scale)
    map_w = cols * side
    map_h = rows * SQRT3_2 * side
    left = ruler + pad
    ox = left + (avail_w - map_w) / 2 + pad - x_min * side / 2
    oy = ruler + 2 * pad
    panel_top = max(round(oy + map_h + 2 * pad), round(sz.min_height * scale) - panel)
    box = (
        round(ox + x_min * side / 2 - pad),
        round(oy - pad),
        round(ox + x_max * side / 2 + pad),
        round(oy + map_h + pad),
    )
    return Layout(
        width=width,
        height=panel_top + panel + legend,
        panel_top=panel_top,
        legend_top=panel_top + panel,
        scale=scale,
        side=side,
        ox=ox,
        oy=oy,
        x_min=x_min,
        x_max=x_max,
        lines=m.lines,
        ruler=ruler,
        map_box=box,
    )
