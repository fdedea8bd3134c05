"""The triangular lattice of MAP-FORMAT.md: spaces, points, sides and point labels.

A space is a triangle ``(r, c)``; a point is a lattice corner ``(i, x)`` on grid line ``i`` at half-side
position ``x``; a side is the ordered pair of its two end points. Everything here is pure arithmetic.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

Space = tuple[int, int]
Point = tuple[int, int]
Side = tuple[Point, Point]

MAX_LINES = 26


def is_up(space: Space) -> bool:
    """Triangle ``(r, c)`` points up when ``r + c`` is even."""
    r, c = space
    return (r + c) % 2 == 0


def corners(space: Space) -> tuple[Point, Point, Point]:
    """The three corners of a space, in MAP-FORMAT.md order (apex first for an up triangle)."""
    r, c = space
    if is_up(space):
        return (r, c + 1), (r + 1, c), (r + 1, c + 2)
    return (r, c), (r, c + 2), (r + 1, c + 1)


def side(a: Point, b: Point) -> Side:
    """The canonical form of the side between two points (smaller point first)."""
    return (a, b) if a <= b else (b, a)


def sides_of(space: Space) -> tuple[Side, Side, Side]:
    a, b, c = corners(space)
    return side(a, b), side(a, c), side(b, c)


def neighbour_across(space: Space, s: Side) -> Space:
    """The grid triangle on the other side of side ``s`` of ``space`` (it may be sea or off the map)."""
    r, c = space
    (i1, _), (i2, _) = s
    if i1 == i2:  # horizontal side: the triangle above or below
        return (r + 1, c) if is_up(space) else (r - 1, c)
    x_min = min(s[0][1], s[1][1])
    return (r, c - 1) if x_min == c else (r, c + 1)


def point_label(p: Point) -> str:
    """``(3, 7)`` -> ``D7`` (MAP-FORMAT.md, point labels)."""
    return f"{chr(ord('A') + p[0])}{p[1]}"


def side_label(s: Side) -> str:
    return f"{point_label(s[0])}-{point_label(s[1])}"


_LABEL = re.compile(r"^\s*([A-Za-z])\s*(\d{1,3})\s*$")


def parse_label_syntax(text: str) -> Point | None:
    """Read a label's letter and number, ignoring case; None when it is not of the form ``D7``."""
    m = _LABEL.match(text)
    if not m:
        return None
    return ord(m.group(1).upper()) - ord("A"), int(m.group(2))


def nearest(p: Point, candidates: Iterable[Point], count: int = 3) -> list[Point]:
    """The ``count`` candidates closest to ``p`` on screen, for "did you mean" answers."""

    def key(q: Point) -> tuple[float, Point]:
        dy = (q[0] - p[0]) * 0.8660254037844386
        dx = (q[1] - p[1]) * 0.5
        return dx * dx + dy * dy, q

    return sorted(candidates, key=key)[:count]
