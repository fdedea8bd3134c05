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
from collections.abc import Iterator, Sequence

from engine.geometry import Point, Space
from engine.views import GameView
from rendering.board import DEAD, region_sprite
from rendering.labels import BADGE, REGION, Label, alexander_size, guard_size, wall_width
from rendering.layout import Layout
from rendering.theme import Theme

MARGIN = 3  # pixels beyond a piece's computed reach, for rounding and anti-aliased edges

Piece = tuple[tuple[object, ...], float, float]  # what is drawn, and its first and last row


def board_band_keys(
    v: GameView, lay: Layout, theme: Theme, labels: Sequence[Label], rows: int, bands: int
) -> list[tuple[object, ...]]:
    """The key of each of the first ``bands`` bands of ``rows`` rows of ``board_image(v)`` (with the last
    move), given its ``labels``: the pieces drawn across the band, in the order ``board_image`` draws them."""
    keys: list[list[object]] = [[] for _ in range(bands)]
    for what, top, bottom in _pieces(v, lay, theme, labels):
        first = max(0, math.floor(top - MARGIN) // rows)
        last = min(bands - 1, math.ceil(bottom + MARGIN) // rows)
        for k in range(first, last + 1):
            keys[k].append(what)
    return [(v.map, lay, theme, k, *key) for k, key in enumerate(keys)]


def _pieces(v: GameView, lay: Layout, theme: Theme, labels: Sequence[Label]) -> Iterator[Piece]:
    """Every piece of the board with its rows, in ``board_image``'s order: the provinces' tints, the last
    move, the region names, the walls, the new walls' marks, the guards, the badges' leaders and badges,
    Alexander."""
    owners: dict[int, list[Space]] = {}
    for p in v.provinces:
        if p.owner is not None:
            owners.setdefault(p.owner, []).extend(p.spaces)
        elif not p.can_be_occupied:
            owners.setdefault(DEAD, []).extend(p.spaces)
    for owner, spaces in sorted(owners.items()):
        for s in spaces:
            ys = [y for _, y in lay.tri(s)]
            yield ("tint", owner, s), min(ys) - 1, max(ys) + 2
    w = wall_width(lay, theme)
    lm = v.last_move
    if lm is not None and len(lm.path) >= 2:
        halo = w + 2 * lay.of_side(theme.sizes.halo_s)
        for a, b in zip(lm.path, lm.path[1:], strict=False):
            yield _segment(("last", a, b), lay, a, b, halo)
        x, y = lay.px(lm.path[0])
        yield ("start", lm.path[0]), y - 2 * halo, y + 2 * halo
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


def _segment(what: tuple[object, ...], lay: Layout, a: Point, b: Point, width: float) -> Piece:
    """A thick line from point ``a`` to ``b`` with round ends (``rendering.board.thick_line``)."""
    ya, yb = lay.px(a)[1], lay.px(b)[1]
    return what, min(ya, yb) - width, max(ya, yb) + width
