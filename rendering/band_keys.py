"""What each band of a board's rows shows, as a key: everything drawn across those rows, in the order drawn.

A board is the map layer with the pieces of one view drawn over it (rendering.board). Its pixels in a band
of rows (rendering.png's ``ROWS``) are decided by the map layer there and by the pieces whose drawing reaches
those rows, drawn in order: two boards whose band has the same key show the same pixels there, whatever
else differs, in this game or another on the same map. ``rendering.pictures.render_board`` keeps each
band's compressed bytes by its key and quantizes and compresses only the bands whose key is new: between a
game's boards about three bands in four stay as they were (a move changes Alexander, a few walls and the
badges near them).

Each piece's rows are where its drawing can reach, with a margin: a piece left out of a band it touches
would let a band be taken for another. ``tests/rendering/test_png.py`` compares whole games' files with
files drawn with nothing kept.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from PIL import Image, ImageDraw

from engine.geometry import Point
from engine.views import GameView
from rendering.board import region_sprite, tints
from rendering.labels import BADGE, REGION, Label, alexander_size, guard_size, wall_width
from rendering.layout import Layout
from rendering.theme import Theme

MARGIN = 3  # pixels beyond a piece's computed reach, for rounding and anti-aliased edges

Piece = tuple[tuple[object, ...], float, float]  # what is drawn, and its first and last row
Call = tuple[str, tuple[Any, ...], dict[str, Any]]  # a pen's method, with its arguments


def board_band_keys(
    v: GameView,
    lay: Layout,
    theme: Theme,
    labels: Sequence[Label],
    rows: int,
    bands: int,
    *,
    last_move: bool = True,
    under: Sequence[Piece] = (),
    over: Sequence[Piece] = (),
) -> list[tuple[object, ...]]:
    """The key of each of the first ``bands`` bands of ``rows`` rows of ``board_image(v)``, given its
    ``labels``: the pieces drawn across the band, in the order ``board_image`` draws them. A preview's board
    leaves out the last move (``last_move``) and adds its own marks, those it draws beneath the walls
    (``under``) and those over everything (``over``), as a ``TracedDraw`` noted them."""
    keys: list[list[object]] = [[] for _ in range(bands)]
    for what, top, bottom in _pieces(v, lay, theme, labels, last_move, under, over):
        first = max(0, math.floor(top - MARGIN) // rows)
        last = min(bands - 1, math.ceil(bottom + MARGIN) // rows)
        for k in range(first, last + 1):
            keys[k].append(what)
    return [(v.map, lay, theme, k, *key) for k, key in enumerate(keys)]


def _pieces(
    v: GameView,
    lay: Layout,
    theme: Theme,
    labels: Sequence[Label],
    last_move: bool,
    under: Sequence[Piece],
    over: Sequence[Piece],
) -> Iterator[Piece]:
    """Every piece of the board with its rows, in ``board_image``'s order: the provinces' tints, the last
    move, a preview's marks beneath the walls, the region names, the walls, the new walls' marks, the
    guards, the badges' leaders and badges, Alexander, a preview's marks over everything."""
    for owner, spaces in tints(v):
        for s in spaces:
            ys = [y for _, y in lay.tri(s)]
            yield ("tint", owner, s), min(ys) - 1, max(ys) + 2
    w = wall_width(lay, theme)
    lm = v.last_move if last_move else None
    if lm is not None and len(lm.path) >= 2:
        halo = w + 2 * lay.of_side(theme.sizes.halo_s)
        for a, b in zip(lm.path, lm.path[1:], strict=False):
            yield _segment(("last", a, b), lay, a, b, halo)
        x, y = lay.px(lm.path[0])
        yield ("start", lm.path[0]), y - 2 * halo, y + 2 * halo
    yield from under
    for lab in labels:
        if lab.kind == REGION:
            h = region_sprite(lab.text, lab.size, theme).height
            cy = (lab.box[1] + lab.box[3]) / 2
            yield ("region", lab), cy - h / 2 - 1, cy + h / 2 + 1
    red = lay.size(4)
    for sd in sorted(v.walls - v.red_walls):
        yield _segment(("wall", sd), lay, sd[0], sd[1], w)
    for sd in sorted(v.red_walls):
        yield _segment(("red wall", sd), lay, sd[0], sd[1], w + red)
    for sd in sorted(v.red_walls):
        yield _segment(("red wall's dots", sd), lay, sd[0], sd[1], w)
    if lm is not None:
        placed = set(lm.black) | set(lm.red)
        for a, b in zip(lm.path, lm.path[1:], strict=False):
            if (min(a, b), max(a, b)) in placed:
                yield _segment(("new wall's mark", a, b), lay, a, b, w)
    g = guard_size(lay, theme)
    for pl in v.players:
        for s in sorted(pl.guards):
            y = lay.centre(s)[1]
            yield ("guard", pl.seat, s), y - g / 2 - 1, y + g / 2 + 1
    leader = max(2, lay.size(3))
    reach = max(leader + red, leader * 1.6 + 1)
    for lab in labels:
        if lab.kind == BADGE and lab.anchor is not None:
            ay = lab.anchor[1]
            sy = min(max(ay, lab.box[1]), lab.box[3])
            yield ("leader", lab.box, lab.anchor), min(ay, sy) - reach, max(ay, sy) + reach
    holder = {p.id: p.owner for p in v.provinces}
    for lab in labels:
        if lab.kind == BADGE:
            held = holder.get(lab.province) if lab.province is not None else None
            yield ("badge", lab, held), lab.box[1] - 1, lab.box[3] + 1
    size = alexander_size(lay, theme)
    y = lay.px(v.alexander)[1]
    yield ("alexander", v.alexander), y - size / 2 - 1, y + size / 2 + 1
    yield from over


def _segment(what: tuple[object, ...], lay: Layout, a: Point, b: Point, width: float) -> Piece:
    """A thick line from point ``a`` to ``b`` with round ends (``rendering.board.thick_line``)."""
    ya, yb = lay.px(a)[1], lay.px(b)[1]
    return what, min(ya, yb) - width, max(ya, yb) + width


class TracedDraw(ImageDraw.ImageDraw):
    """An ``ImageDraw`` that notes in ``traced`` each shape it draws, with its arguments and the rows it can
    reach: a preview's own marks, for its bands' keys. The shapes the previews draw are noted (line,
    ellipse, rectangle, rounded rectangle, polygon, text; the others Pillow draws inside them are within
    theirs); a mark drawn any other way would be missing from the keys, and ``tests/rendering`` compares
    previews with previews drawn with nothing kept.

    With ``calls`` it only notes: each shape is kept there, to be drawn later by ``replay`` (a preview's
    marks, noted before the board beneath them is drawn, in the rows that need it)."""

    def __init__(self, im: Image.Image, traced: list[Piece], calls: list[Call] | None = None) -> None:
        super().__init__(im)
        self.traced = traced
        self.calls = calls

    def _note(self, kind: str, xy: Any, reach: float, *args: object) -> None:
        # ``reach``: rows beyond the shape's points; an outline wider than half its box grows outward.
        ys = [float(y) for y in _flat(xy)[1::2]]
        self.traced.append(((kind, _frozen(xy), *args), min(ys) - reach, max(ys) + reach))

    def _kept(self, method: str, *args: Any, **kwargs: Any) -> bool:
        if self.calls is None:
            return False
        self.calls.append((method, args, kwargs))
        return True

    def line(self, xy: Any, fill: Any = None, width: int = 0, joint: str | None = None) -> None:
        self._note("line", xy, width + 1, fill, width, joint)
        if not self._kept("line", xy, fill, width, joint):
            super().line(xy, fill, width, joint)

    def ellipse(self, xy: Any, fill: Any = None, outline: Any = None, width: int = 1) -> None:
        self._note("ellipse", xy, width + 1, fill, outline, width)
        if not self._kept("ellipse", xy, fill, outline, width):
            super().ellipse(xy, fill, outline, width)

    def rectangle(self, xy: Any, fill: Any = None, outline: Any = None, width: int = 1) -> None:
        self._note("rectangle", xy, width + 1, fill, outline, width)
        if not self._kept("rectangle", xy, fill, outline, width):
            super().rectangle(xy, fill, outline, width)

    def rounded_rectangle(
        self,
        xy: Any,
        radius: float = 0,
        fill: Any = None,
        outline: Any = None,
        width: int = 1,
        *,
        corners: tuple[bool, bool, bool, bool] | None = None,
    ) -> None:
        self._note("rounded rectangle", xy, width + 1, radius, fill, outline, width, corners)
        if not self._kept("rounded_rectangle", xy, radius, fill, outline, width, corners=corners):
            super().rounded_rectangle(xy, radius, fill, outline, width, corners=corners)

    def polygon(self, xy: Any, fill: Any = None, outline: Any = None, width: int = 1) -> None:
        self._note("polygon", xy, width + 1, fill, outline, width)
        if not self._kept("polygon", xy, fill, outline, width):
            super().polygon(xy, fill, outline, width)

    def text(
        self,
        xy: Any,
        text: Any,
        fill: Any = None,
        font: Any = None,
        anchor: str | None = None,
        *args: Any,
        **kwargs: Any,
    ) -> None:
        if args:
            raise TypeError("a traced text takes its options by name")
        box = self.textbbox(xy, text, font=font, anchor=anchor, stroke_width=kwargs.get("stroke_width", 0))
        key = (text, fill, font, anchor, tuple(sorted(kwargs.items())))
        self.traced.append((("text", _frozen(xy), *key), box[1] - 1, box[3] + 1))
        if not self._kept("text", xy, text, fill=fill, font=font, anchor=anchor, **kwargs):
            super().text(xy, text, fill=fill, font=font, anchor=anchor, **kwargs)

    # Shapes noted for later draw nothing now: one of the others would be left out of the picture, so it is
    # refused. Drawing as it comes, Pillow draws some inside the noted ones (a curved joint's pie slice).
    def arc(self, *args: Any, **kwargs: Any) -> None:
        self._unnoted("arc", *args, **kwargs)

    def chord(self, *args: Any, **kwargs: Any) -> None:
        self._unnoted("chord", *args, **kwargs)

    def pieslice(self, *args: Any, **kwargs: Any) -> None:
        self._unnoted("pieslice", *args, **kwargs)

    def point(self, *args: Any, **kwargs: Any) -> None:
        self._unnoted("point", *args, **kwargs)

    def multiline_text(self, *args: Any, **kwargs: Any) -> None:
        self._unnoted("multiline_text", *args, **kwargs)

    def _unnoted(self, method: str, *args: Any, **kwargs: Any) -> None:
        if self.calls is not None:
            raise TypeError(f"a noting pen draws no {method}: lines, ellipses, rectangles, polygons, texts")
        getattr(super(), method)(*args, **kwargs)


def replay(
    d: ImageDraw.ImageDraw,
    calls: Sequence[Call],
    traced: Sequence[Piece],
    show: Callable[[tuple[object, ...]], bool],
) -> None:
    """Draw the shapes a noting ``TracedDraw`` kept (``calls``, one a note of ``traced``), in order, those
    whose note ``show`` lets through."""
    for (method, args, kwargs), (what, _, _) in zip(calls, traced, strict=True):
        if show(what):
            getattr(ImageDraw.ImageDraw, method)(d, *args, **kwargs)


def _flat(xy: Any) -> list[float]:
    """Coordinates as x, y, x, y…, from Pillow's forms of them: a box, points, or (x, y) pairs."""
    out: list[float] = []
    for item in xy:
        if isinstance(item, int | float):
            out.append(item)
        else:
            out.extend(item)
    return out


def _frozen(xy: Any) -> tuple[float, ...]:
    return tuple(_flat(xy))
