"""The board: a static map layer cached per map and size, and the pieces of one view drawn over it.

The map layer holds sea, free land, symbol icons and the rulers; it never changes during a game, so it is
drawn once and copied. Occupied provinces take their land from another cached layer drawn in the owner's
tint, and provinces nobody can occupy from one in dead land, pasted through a mask of the province's
triangles: icons and grid stay crisp. Labels (badges, region names) go where ``rendering.labels`` puts
them.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence
from functools import lru_cache

from PIL import Image, ImageDraw

from engine.geometry import Point, Space
from engine.maps import SEA, Map, SideKind
from engine.views import GameView
from rendering.fonts import font
from rendering.icons import alexander_icon, guard_icon, mark_points, symbol_icon
from rendering.labels import (
    BADGE,
    REGION,
    Box,
    Label,
    alexander_size,
    board_labels,
    guard_size,
    wall_width,
)
from rendering.layout import XY, Layout, layout
from rendering.theme import PLAYER_MARKS, RGB, Theme, mix
from rendering.words import ENGLISH, Words

# --- The static map layer -------------------------------------------------------------------------


def _sea_spaces(m: Map) -> list[Space]:
    return [(r, c) for r, row in enumerate(m.rows) for c, ch in enumerate(row) if ch == SEA]


# The land of a province nobody can occupy (R4.5: it has no symbol space), for ``map_layer``'s tint.
DEAD = -1


# Each entry is a whole picture (4 MB at 1600 px): a map needs six (free land, dead land, four tints).
@lru_cache(maxsize=12)
def map_layer(m: Map, width: int, theme: Theme, tint: int | None = None) -> Image.Image:
    """The map without pieces. The land is free land (``tint`` None), dead land (``DEAD``) or, with
    ``tint`` a seat, that player's tint."""
    lay = layout(m, width, theme)
    pal = theme.palette
    land = pal.land if tint is None else pal.dead_land if tint == DEAD else pal.tinted_land(tint)
    im = Image.new("RGB", (lay.width, lay.height), pal.background)
    d = ImageDraw.Draw(im)
    d.rectangle((0, lay.panel_top, lay.width, lay.height), fill=pal.panel)
    d.line([(0, lay.panel_top), (lay.width, lay.panel_top)], fill=pal.panel_line, width=lay.size(2))
    for s in _sea_spaces(m):
        d.polygon(lay.tri(s), fill=pal.sea, outline=pal.sea)
    for s in m.spaces:
        d.polygon(lay.tri(s), fill=land, outline=pal.grid)
    line = lay.size(2)
    for sd, kind in m.side_kind.items():
        if kind is SideKind.COAST:
            d.line([lay.px(sd[0]), lay.px(sd[1])], fill=pal.sea_line, width=line)
        elif kind is SideKind.EDGE:
            d.line([lay.px(sd[0]), lay.px(sd[1])], fill=pal.muted, width=line)
    icon = lay.of_side(theme.sizes.icon_s)
    for s in m.symbol_spaces:
        sym = m.symbol[s]
        assert sym is not None
        cx, cy = lay.centre(s)
        ic = symbol_icon(sym, icon, theme)
        im.paste(ic, (round(cx - icon / 2), round(cy - icon / 2)), ic)
    _rulers(d, lay, theme)
    return im


@lru_cache(maxsize=64)
def region_sprite(text: str, size: int, theme: Theme) -> Image.Image:
    """A region's name (one line or two) on a transparent canvas with a pale halo, drawn once and pasted on
    every board (a halo is a stroke, too slow to draw on every picture)."""
    f = font(size, condensed=True)
    stroke = max(2, size // 10)
    lines = text.split("\n")
    line = size * 1.05
    w = round(max(f.getlength(x) for x in lines)) + 2 * stroke + 2
    h = round(size * 0.25 + line * len(lines)) + 2 * stroke
    im = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    d = ImageDraw.Draw(im)
    for i, x in enumerate(lines):
        d.text(
            (w / 2, h / 2 + (i - (len(lines) - 1) / 2) * line),
            x,
            font=f,
            fill=theme.palette.region,
            anchor="mm",
            stroke_width=stroke,
            stroke_fill=mix(theme.palette.land, theme.palette.white, 0.55),
        )
    return im


def _rulers(d: ImageDraw.ImageDraw, lay: Layout, theme: Theme) -> None:
    """Letters for lines down the left, numbers for x along the top (MAP-FORMAT.md). At a readable size a
    number is wider than the step between two x, so numbers stand every second (or fourth) x, with a tick
    at every x; the numbers shown alternate in shade, so "10 12" never reads as one number."""
    pal = theme.palette
    left, top, right, bottom = lay.map_box
    d.rectangle(lay.map_box, outline=pal.panel_line, width=lay.size(2))
    size = lay.text(theme.sizes.ruler_font)
    letters = font(size, bold=True, condensed=True)
    f = font(size, condensed=True)
    step = lay.side / 2
    widest = f.getlength(str(lay.x_max))
    every = next((k for k in (1, 2, 4, 8) if k * step >= widest * 1.15), 16)
    shades = (pal.ruler, mix(pal.ruler, pal.highlight, 0.55))
    half = lay.ruler / 2
    for i in range(lay.lines):
        _, y = lay.px((i, 0))
        d.text((left - half, y), chr(ord("A") + i), font=letters, fill=pal.ruler, anchor="mm")
        d.line([(left, y), (left + lay.size(8), y)], fill=pal.ruler, width=max(1, lay.size(2)))
    first = lay.x_min + (-lay.x_min) % every
    for x in range(lay.x_min, lay.x_max + 1):
        px, _ = lay.px((0, x))
        shown = (x - first) % every == 0 and x >= first
        tick = lay.size(10 if shown else 6)
        d.line([(px, top), (px, top + tick)], fill=pal.ruler, width=max(1, lay.size(2)))
        if shown:
            shade = shades[((x - first) // every) % 2]
            d.text((px, top - half), str(x), font=f, fill=shade, anchor="mm")


# --- Drawing helpers ------------------------------------------------------------------------------


def thick_line(d: ImageDraw.ImageDraw, a: XY, b: XY, colour: RGB, width: int) -> None:
    """A line with round ends, so that walls meeting at a point join without notches."""
    d.line([a, b], fill=colour, width=width)
    r = width / 2
    for x, y in (a, b):
        d.ellipse((x - r, y - r, x + r, y + r), fill=colour)


def dashed_line(
    d: ImageDraw.ImageDraw, a: XY, b: XY, colour: RGB, width: int, dash: float, gap: float, phase: float = 0.0
) -> float:
    """A dashed segment; returns the dash phase at its end so that a polyline's dashes run on."""
    length = math.dist(a, b)
    if length == 0:
        return phase
    ux, uy = (b[0] - a[0]) / length, (b[1] - a[1]) / length
    period = dash + gap
    t = -phase
    while t < length:
        t0, t1 = max(t, 0.0), min(t + dash, length)
        if t1 > t0:
            d.line(
                [(a[0] + ux * t0, a[1] + uy * t0), (a[0] + ux * t1, a[1] + uy * t1)], fill=colour, width=width
            )
        t += period
    return (phase + length) % period


def readable_on(colour: RGB, theme: Theme) -> RGB:
    """Ink or white, whichever reads better on ``colour``."""
    r, g, b = colour
    return theme.palette.ink if 0.299 * r + 0.587 * g + 0.114 * b > 140 else theme.palette.white


def paste_centred(im: Image.Image, icon: Image.Image, at: XY) -> None:
    im.paste(icon, (round(at[0] - icon.width / 2), round(at[1] - icon.height / 2)), icon)


# --- Pieces ---------------------------------------------------------------------------------------


def tints(v: GameView) -> list[tuple[int, list[Space]]]:
    """The land drawn in a tint, by tint in drawing order: occupied provinces in their owner's tint,
    provinces nobody can occupy in dead land (``DEAD``); free provinces keep the free land (R4.4, R4.5)."""
    return [(tint, [s for spaces in lands for s in spaces]) for tint, lands in tinted_provinces(v)]


def tinted_provinces(v: GameView) -> list[tuple[int, list[frozenset[Space]]]]:
    """``tints(v)`` a province at a time: each tint's provinces' spaces."""
    by_tint: dict[int, list[frozenset[Space]]] = {}
    for p in v.provinces:
        if p.owner is not None:
            by_tint.setdefault(p.owner, []).append(p.spaces)
        elif not p.can_be_occupied:
            by_tint.setdefault(DEAD, []).append(p.spaces)
    return sorted(by_tint.items())


# Which pieces to draw, by what each is (``rendering.band_keys`` names them): a board drawn only in some
# rows draws only the pieces that reach them.
Show = Callable[[tuple[object, ...]], bool]


def every(_: tuple[object, ...]) -> bool:
    return True


def tint_provinces(im: Image.Image, v: GameView, lay: Layout, theme: Theme, show: Show = every) -> None:
    """The land of ``tints(v)`` pasted from the tinted map layers (R4.4, R4.5), a province at a time (the
    same pixels as each tint's land at once: one tint's provinces paste the same layer)."""
    for tint, provinces in tinted_provinces(v):
        tinted = map_layer(v.map, lay.width, theme, tint)
        for spaces in provinces:
            if show is not every and not any(show(("tint", tint, s)) for s in spaces):
                continue
            box, mask = _land_mask(lay, spaces)
            im.paste(tinted.crop(box), box, mask)


# A province keeps its spaces from board to board, and its mask with them: drawing every triangle of the
# tinted provinces was about 5 ms of a mid-game board at 1,280 px. A mask is as large as its province's box
# (tens of KB), so many are kept.
@lru_cache(maxsize=1024)
def _land_mask(lay: Layout, spaces: frozenset[Space]) -> tuple[tuple[int, int, int, int], Image.Image]:
    """The box of a province's land and its mask there (a mask only as large as the province: a
    whole-picture mask costs more than the drawing)."""
    tris = [lay.tri(s) for s in spaces]
    x0 = math.floor(min(x for t in tris for x, _ in t)) - 1
    y0 = math.floor(min(y for t in tris for _, y in t)) - 1
    x1 = math.ceil(max(x for t in tris for x, _ in t)) + 2
    y1 = math.ceil(max(y for t in tris for _, y in t)) + 2
    mask = Image.new("L", (x1 - x0, y1 - y0), 0)
    md = ImageDraw.Draw(mask)
    for t in tris:
        md.polygon([(x - x0, y - y0) for x, y in t], fill=255, outline=255)
    return (x0, y0, x1, y1), mask


def _path_sides(path: Sequence[Point]) -> list[tuple[Point, Point]]:
    return list(zip(path, path[1:], strict=False))


def draw_walls(d: ImageDraw.ImageDraw, v: GameView, lay: Layout, theme: Theme, show: Show = every) -> None:
    pal = theme.palette
    w = wall_width(lay, theme)
    black = sorted(v.walls - v.red_walls)
    for sd in black:
        if show(("wall", sd)):
            thick_line(d, lay.px(sd[0]), lay.px(sd[1]), pal.wall, w)
    for sd in sorted(v.red_walls):
        if show(("red wall", sd)):
            thick_line(d, lay.px(sd[0]), lay.px(sd[1]), pal.wall, w + lay.size(4))
    for sd in sorted(v.red_walls):
        if not show(("red wall's dots", sd)):
            continue
        a, b = lay.px(sd[0]), lay.px(sd[1])
        thick_line(d, a, b, pal.red_wall, w)
        # White dots down the middle tell red walls from black ones without colour.
        for t in (0.3, 0.5, 0.7):
            x, y = a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t
            r = max(1.5, w / 5)
            d.ellipse((x - r, y - r, x + r, y + r), fill=pal.white)


def draw_last_move(
    d: ImageDraw.ImageDraw, v: GameView, lay: Layout, theme: Theme, show: Show = every
) -> None:
    """A band under Alexander's last path; drawn before the walls so the walls stay on top."""
    lm = v.last_move
    if lm is None or len(lm.path) < 2:
        return
    w = wall_width(lay, theme) + 2 * lay.of_side(theme.sizes.halo_s)
    for a, b in _path_sides(lm.path):
        if show(("last", a, b)):
            thick_line(d, lay.px(a), lay.px(b), theme.palette.highlight, w)
    if not show(("start", lm.path[0])):
        return
    x, y = lay.px(lm.path[0])
    r = w * 0.9
    d.ellipse(
        (x - r, y - r, x + r, y + r),
        fill=theme.palette.white,
        outline=theme.palette.highlight,
        width=max(2, w // 3),
    )


def draw_new_wall_marks(
    d: ImageDraw.ImageDraw, v: GameView, lay: Layout, theme: Theme, show: Show = every
) -> None:
    """White arrowheads on the walls that the last move placed, pointing the way Alexander walked."""
    lm = v.last_move
    if lm is None:
        return
    placed = set(lm.black) | set(lm.red)
    w = wall_width(lay, theme)
    for a, b in _path_sides(lm.path):
        if (min(a, b), max(a, b)) not in placed or not show(("new wall's mark", a, b)):
            continue
        pa, pb = lay.px(a), lay.px(b)
        mx, my = (pa[0] + pb[0]) / 2, (pa[1] + pb[1]) / 2
        length = math.dist(pa, pb) or 1.0
        ux, uy = (pb[0] - pa[0]) / length, (pb[1] - pa[1]) / length
        k = w * 0.75
        tip = (mx + ux * k, my + uy * k)
        back = (mx - ux * k * 0.6, my - uy * k * 0.6)
        d.polygon(
            [
                tip,
                (back[0] - uy * k * 0.75, back[1] + ux * k * 0.75),
                (back[0] + uy * k * 0.75, back[1] - ux * k * 0.75),
            ],
            fill=theme.palette.white,
        )


def draw_guards(im: Image.Image, v: GameView, lay: Layout, theme: Theme, show: Show = every) -> None:
    size = guard_size(lay, theme)
    small = max(8, round(size * 0.5))
    for pl in v.players:
        icon = guard_icon(pl.seat, size, theme)
        for s in sorted(pl.guards):
            if not show(("guard", pl.seat, s)):
                continue
            c = lay.centre(s)
            paste_centred(im, icon, c)
            sym = v.map.symbol.get(s)
            if sym is not None:
                # The symbol stays readable on top of the guard: levies are paid by it (R7.2).
                paste_centred(im, symbol_icon(sym, small, theme), (c[0], c[1] + size * 0.04))


def ghost_guard(d: ImageDraw.ImageDraw, seat: int, at: XY, lay: Layout, theme: Theme) -> None:
    """A planned guard: the seat's mark as a thick outline only, so that a guard it replaces still shows."""
    r = lay.of_side(theme.sizes.guard_s) * 1.15
    mark = PLAYER_MARKS[seat % len(PLAYER_MARKS)]
    w = max(3, lay.size(4))
    for colour, width in ((theme.palette.white, w + lay.size(4)), (theme.palette.highlight, w)):
        if mark == "circle":
            d.ellipse((at[0] - r, at[1] - r, at[0] + r, at[1] + r), outline=colour, width=width)
        else:
            pts = mark_points(mark, at[0], at[1], r)
            d.line(pts + pts[:1], fill=colour, width=width, joint="curve")


def draw_alexander(im: Image.Image, v: GameView, lay: Layout, theme: Theme, show: Show = every) -> None:
    if not show(("alexander", v.alexander)):
        return
    size = alexander_size(lay, theme)
    paste_centred(im, alexander_icon(size, theme), lay.px(v.alexander))


def draw_leaders(
    d: ImageDraw.ImageDraw, labels: Sequence[Label], lay: Layout, theme: Theme, show: Show = every
) -> None:
    """A line from each badge placed outside its province to the province, ending in a dot."""
    w = max(2, lay.size(3))
    for lab in labels:
        if lab.kind != BADGE or lab.anchor is None or not show(("leader", lab.box, lab.anchor)):
            continue
        b = lab.box
        ax, ay = lab.anchor
        # From the point of the badge's box nearest the anchor.
        sx, sy = min(max(ax, b[0]), b[2]), min(max(ay, b[1]), b[3])
        thick_line(d, (sx, sy), (ax, ay), theme.palette.white, w + lay.size(4))
        thick_line(d, (sx, sy), (ax, ay), theme.palette.ink, w)
        r = w * 1.6
        d.ellipse((ax - r, ay - r, ax + r, ay + r), fill=theme.palette.ink, outline=theme.palette.white)


def draw_badge(d: ImageDraw.ImageDraw, lab: Label, v: GameView, theme: Theme) -> None:
    """A province's id on ink and, beside it, its value: in the owner's colour when occupied, white when
    free (R4.4)."""
    pal = theme.palette
    f = font(lab.size, bold=True, condensed=True)
    x0, y0, x1, y1 = lab.box
    radius = (y1 - y0) * 0.3
    outline = max(1, lab.size // 14)
    cy = (y0 + y1) / 2
    if lab.faint:
        # A province worth nothing (R4.5): its id alone, pale, so that it reads as quiet.
        d.rounded_rectangle(lab.box, radius=radius, fill=pal.panel, outline=pal.muted, width=outline)
        d.text(((x0 + x1) / 2, cy), lab.text, font=f, fill=pal.muted, anchor="mm")
        return
    if not lab.value:
        d.rounded_rectangle(lab.box, radius=radius, fill=pal.ink)
        d.text(((x0 + x1) / 2, cy), lab.text, font=f, fill=pal.white, anchor="mm")
        return
    prov = next(p for p in v.provinces if p.id == lab.province)
    fill = pal.player(prov.owner) if prov.owner is not None else pal.white
    split = x0 + f.getlength(lab.text) + 2 * (x1 - x0 - f.getlength(lab.text) - f.getlength(lab.value)) / 4
    d.rounded_rectangle(lab.box, radius=radius, fill=fill, outline=pal.ink, width=outline)
    d.rounded_rectangle((x0, y0, split, y1), radius=radius, fill=pal.ink, corners=(True, False, False, True))
    d.text(((x0 + split) / 2, cy), lab.text, font=f, fill=pal.white, anchor="mm")
    d.text(((split + x1) / 2, cy), lab.value, font=f, fill=readable_on(fill, theme), anchor="mm")


def draw_regions(im: Image.Image, labels: Sequence[Label], theme: Theme, show: Show = every) -> None:
    """The region names, beneath the walls (``rendering.labels`` keeps them clear of walls anyway)."""
    for lab in labels:
        if lab.kind == REGION and show(("region", lab)):
            sprite = region_sprite(lab.text, lab.size, theme)
            paste_centred(im, sprite, ((lab.box[0] + lab.box[2]) / 2, (lab.box[1] + lab.box[3]) / 2))


def draw_badges(
    im: Image.Image, v: GameView, labels: Sequence[Label], lay: Layout, theme: Theme, show: Show = every
) -> None:
    """The provinces' badges and their leader lines, over the pieces."""
    d = ImageDraw.Draw(im)
    draw_leaders(d, labels, lay, theme, show)
    holder = {p.id: p.owner for p in v.provinces}
    for lab in labels:
        if lab.kind != BADGE:
            continue
        held = holder.get(lab.province) if lab.province is not None else None
        if show(("badge", lab, held)):
            draw_badge(d, lab, v, theme)


def board_image(
    v: GameView,
    width: int,
    theme: Theme,
    last_move: bool = True,
    under_walls: Callable[[ImageDraw.ImageDraw, Layout], None] | None = None,
    avoid: Sequence[Box] = (),
    words: Words = ENGLISH,
) -> tuple[Image.Image, Layout]:
    """The board of a view with every piece, on an image whose panel area is still empty.

    Previews leave out the last move (their own marks must stand out), draw their outlines through
    ``under_walls``, beneath the walls, so that walls stay on top of every highlight, and pass the boxes
    of their markers as ``avoid``, so that no badge goes under a marker. Region names are in ``words``'
    language and are placed from the position alone (``rendering.labels.region_labels``)."""
    lay = layout(v.map, width, theme)
    im = map_layer(v.map, width, theme).copy()
    tint_provinces(im, v, lay, theme)
    labels = board_labels(v, lay, theme, avoid, words)
    _draw_pieces(im, v, lay, theme, labels, last_move, under_walls)
    return im, lay


def _draw_pieces(
    im: Image.Image,
    v: GameView,
    lay: Layout,
    theme: Theme,
    labels: Sequence[Label],
    last_move: bool,
    under_walls: Callable[[ImageDraw.ImageDraw, Layout], None] | None,
    show: Show = every,
) -> None:
    """Everything above the tinted land, in the order ``board_image`` layers it (and
    ``rendering.band_keys`` names it)."""
    d = ImageDraw.Draw(im)
    if last_move:
        draw_last_move(d, v, lay, theme, show)
    if under_walls is not None:
        under_walls(d, lay)
    draw_regions(im, labels, theme, show)
    draw_walls(d, v, lay, theme, show)
    if last_move:
        draw_new_wall_marks(d, v, lay, theme, show)
    draw_guards(im, v, lay, theme, show)
    draw_badges(im, v, labels, lay, theme, show)
    draw_alexander(im, v, lay, theme, show)


# --- Boards drawn in some rows only ---------------------------------------------------------------

_canvases = threading.local()  # each thread's (a console draws in threads; a render worker in one)


def canvas(purpose: str, m: Map, width: int, theme: Theme) -> Image.Image:
    """An image of the map layer's size, kept per thread, map and ``purpose``, drawn over from picture to
    picture: the caller pastes the map layer's rows it draws on; the other rows hold whatever an earlier
    picture left there, and nobody may read them. A fresh copy of the whole layer for each picture was 5 %
    of a render worker's time."""
    kept: dict[tuple[str, Map, int, Theme], Image.Image] = _canvases.__dict__.setdefault("images", {})
    im = kept.get((purpose, m, width, theme))
    if im is None:
        if len(kept) >= 12:
            kept.clear()
        im = kept[purpose, m, width, theme] = map_layer(m, width, theme).copy()
    return im


def board_in_rows(
    v: GameView,
    lay: Layout,
    theme: Theme,
    labels: Sequence[Label],
    rows: Sequence[tuple[int, int]],
    show: Show,
    last_move: bool = True,
    under_walls: Callable[[ImageDraw.ImageDraw, Layout], None] | None = None,
) -> Image.Image:
    """``board_image``'s very pixels in ``rows`` (ranges of rows, top to bottom), for a board whose other rows
    are kept already (as compressed bands, ``rendering.band_keys``): only the pieces ``show`` lets through
    are drawn, and the caller lets through every piece that reaches those rows, in ``band_keys``' names.

    The image is this thread's, drawn over from picture to picture: its other rows hold whatever an earlier
    board left there, and nobody may read them. Copying the whole map layer and drawing every piece was
    most of a preview's board, where a preview's marks change a few bands of some ninety."""
    im = canvas("board", v.map, lay.width, theme)
    layer = map_layer(v.map, lay.width, theme)
    for top, bottom in rows:
        im.paste(layer.crop((0, top, lay.width, min(bottom, lay.height))), (0, top))
    tint_provinces(im, v, lay, theme, show)
    _draw_pieces(im, v, lay, theme, labels, last_move, under_walls, show)
    return im
