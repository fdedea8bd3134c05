"""Where things go: the map's lattice (MAP-FORMAT.md) scaled into the board area of a picture.

Point ``(i, x)`` sits at ``(x * s/2, i * s * sqrt(3)/2)`` for side ``s``; the layout adds the offset of
the map inside the picture and keeps the side as large as fits beside the panel and inside the rulers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from engine.geometry import Point, Side, Space, corners
from engine.maps import NOTHING, Map
from rendering.theme import Theme

SQRT3_2 = math.sqrt(3) / 2
XY = tuple[float, float]


@dataclass(frozen=True)
class Layout:
    width: int
    height: int
    board_w: int  # the panel starts here
    scale: float  # picture width / 1600: multiplies every size of the theme
    side: float  # a triangle's side in pixels
    ox: float  # pixel position of lattice x = 0
    oy: float  # pixel position of line 0
    x_min: int
    x_max: int
    lines: int
    ruler: int  # ruler margin in pixels
    map_box: tuple[int, int, int, int]  # the framed map area (left, top, right, bottom)

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
    """The layout of ``m`` in a landscape picture ``width`` pixels wide (height from the theme's ratio)."""
    sz = theme.sizes
    scale = width / sz.width
    height = round(sz.height * scale)
    x_min, x_max = _extent(m)
    rows = len(m.rows)
    frame = 2 * round(sz.ruler * scale) + 2 * round(sz.pad * scale)
    board_w0 = width - round(sz.panel_width * scale)
    side0 = min((board_w0 - frame) / ((x_max - x_min) / 2), sz.max_side * scale)
    # A wide map leaves the picture lower rather than framed by empty bands above and below.
    height = max(round(sz.min_height * scale), min(height, round(rows * SQRT3_2 * side0 + frame)))
    panel = round(sz.panel_width * scale)
    board_w = width - panel
    ruler = round(sz.ruler * scale)
    pad = round(sz.pad * scale)
    avail_w = board_w - 2 * ruler - 2 * pad
    avail_h = height - 2 * ruler - 2 * pad
    side = min(avail_w / ((x_max - x_min) / 2), avail_h / (rows * SQRT3_2), sz.max_side * scale)
    map_w = (x_max - x_min) / 2 * side
    map_h = rows * SQRT3_2 * side
    ox = (board_w - map_w) / 2 - x_min * side / 2
    oy = (height - map_h) / 2
    box = (
        round((board_w - map_w) / 2 - pad),
        round(oy - pad),
        round((board_w + map_w) / 2 + pad),
        round(oy + map_h + pad),
    )
    return Layout(
        width=width,
        height=height,
        board_w=board_w,
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
