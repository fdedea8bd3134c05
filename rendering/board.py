"""The board: a static map layer cached per map and size, and the pieces of one view drawn over it.

The map layer holds sea, land, symbol icons, region names and the rulers; it never changes during a game,
so it is drawn once and copied. Occupied provinces take their land from a second cached layer drawn in
the owner's tint, pasted through a mask of the province's triangles: icons, grid and names stay crisp.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache

from PIL import Image, ImageDraw

from engine.geometry import Point, Space, corners
from engine.maps import SEA, Map, SideKind
from engine.views import GameView, ProvinceView
from rendering.fonts import font, text_width
from rendering.icons import alexander_icon, guard_icon, mark_points, symbol_icon
from rendering.layout import XY, Layout, layout
from rendering.theme import PLAYER_MARKS, RGB, Theme, mix

# --- The static map layer -------------------------------------------------------------------------


def _sea_spaces(m: Map) -> list[Space]:
    return [(r, c) for r, row in enumerate(m.rows) for c, ch in enumerate(row) if ch == SEA]


# Each entry is a whole picture (4 MB at 1600 px): a map needs five (plain and four tints).
@lru_cache(maxsize=10)
def map_layer(m: Map, width: int, theme: Theme, tint: int | None = None) -> Image.Image:
    """The map without pieces; with ``tint`` a seat, the land takes that player's tint."""
    lay = layout(m, width, theme)
    pal = theme.palette
    land = pal.land if tint is None else pal.tinted_land(tint)
    im = Image.new("RGB", (lay.width, lay.height), pal.background)
    d = ImageDraw.Draw(im)
    d.rectangle((lay.board_w, 0, lay.width, lay.height), fill=pal.panel)
    d.line([(lay.board_w, 0), (lay.board_w, lay.height)], fill=pal.panel_line, width=lay.size(2))
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
    _region_names(d, m, lay, theme)
    _rulers(d, lay, theme)
    return im


def _region_names(d: ImageDraw.ImageDraw, m: Map, lay: Layout, theme: Theme) -> None:
    size = lay.size(theme.sizes.region_font)
    f = font(size, bold=True)
    for name, at in m.labels:
        x, y = lay.px(at)
        text = name.upper()
        d.text(
            (x, y),
            text,
            font=f,
            fill=theme.palette.region,
            anchor="mm",
            stroke_width=max(2, size // 8),
            stroke_fill=mix(theme.palette.land, theme.palette.white, 0.5),
        )


def region_boxes(m: Map, lay: Layout, theme: Theme) -> list[tuple[float, float, float, float]]:
    """The boxes the region names cover, which province badges keep off where they can."""
    size = lay.size(theme.sizes.region_font)
    out = []
    for name, at in m.labels:
        x, y = lay.px(at)
        w = text_width(name.upper(), size, bold=True) / 2
        out.append((x - w, y - size * 0.6, x + w, y + size * 0.6))
    return out


def _rulers(d: ImageDraw.ImageDraw, lay: Layout, theme: Theme) -> None:
    """Letters for lines down both sides, numbers for x along top and bottom (MAP-FORMAT.md)."""
    pal = theme.palette
    left, top, right, bottom = lay.map_box
    d.rectangle(lay.map_box, outline=pal.panel_line, width=lay.size(2))
    step = lay.side / 2
    size = lay.size(theme.sizes.ruler_font)
    letters = font(size, bold=True)
    widest = text_width(str(lay.x_max), size)
    if widest > step * 0.85:
        size = max(10, round(size * step * 0.85 / widest))
    f = font(size)
    # Neighbouring numbers alternate in shade, so that "10 11 12" never reads as one long number.
    shades = (pal.ruler, mix(pal.ruler, pal.highlight, 0.55))
    half = lay.ruler / 2
    for i in range(lay.lines):
        _, y = lay.px((i, 0))
        letter = chr(ord("A") + i)
        d.text((left - half, y), letter, font=letters, fill=pal.ruler, anchor="mm")
        d.text((right + half, y), letter, font=letters, fill=pal.ruler, anchor="mm")
        d.line([(left, y), (left + lay.size(6), y)], fill=pal.ruler, width=1)
        d.line([(right - lay.size(6), y), (right, y)], fill=pal.ruler, width=1)
    for x in range(lay.x_min, lay.x_max + 1):
        px, _ = lay.px((0, x))
        shade = shades[x % 2]
        d.text((px, top - half), str(x), font=f, fill=shade, anchor="mm")
        d.text((px, bottom + half), str(x), font=f, fill=shade, anchor="mm")
        d.line([(px, top), (px, top + lay.size(5))], fill=pal.ruler, width=1)
        d.line([(px, bottom - lay.size(5)), (px, bottom)], fill=pal.ruler, width=1)


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


def tint_provinces(im: Image.Image, v: GameView, lay: Layout, theme: Theme) -> None:
    by_owner: dict[int, list[Space]] = {}
    for p in v.provinces:
        if p.owner is not None:
            by_owner.setdefault(p.owner, []).extend(p.spaces)
    for owner, spaces in sorted(by_owner.items()):
        tris = [lay.tri(s) for s in spaces]
        # A mask only as large as the provinces (a whole-picture mask costs more than the drawing).
        x0 = math.floor(min(x for t in tris for x, _ in t)) - 1
        y0 = math.floor(min(y for t in tris for _, y in t)) - 1
        x1 = math.ceil(max(x for t in tris for x, _ in t)) + 2
        y1 = math.ceil(max(y for t in tris for _, y in t)) + 2
        mask = Image.new("L", (x1 - x0, y1 - y0), 0)
        md = ImageDraw.Draw(mask)
        for t in tris:
            md.polygon([(x - x0, y - y0) for x, y in t], fill=255, outline=255)
        tinted = map_layer(v.map, lay.width, theme, owner)
        box = (x0, y0, x1, y1)
        im.paste(tinted.crop(box), box, mask)


def _path_sides(path: Sequence[Point]) -> list[tuple[Point, Point]]:
    return list(zip(path, path[1:], strict=False))


def wall_width(lay: Layout, theme: Theme) -> int:
    return max(lay.size(theme.sizes.wall_min), lay.of_side(theme.sizes.wall_s))


def draw_walls(d: ImageDraw.ImageDraw, v: GameView, lay: Layout, theme: Theme) -> None:
    pal = theme.palette
    w = wall_width(lay, theme)
    black = sorted(v.walls - v.red_walls)
    for sd in black:
        thick_line(d, lay.px(sd[0]), lay.px(sd[1]), pal.wall, w)
    for sd in sorted(v.red_walls):
        thick_line(d, lay.px(sd[0]), lay.px(sd[1]), pal.wall, w + lay.size(4))
    for sd in sorted(v.red_walls):
        a, b = lay.px(sd[0]), lay.px(sd[1])
        thick_line(d, a, b, pal.red_wall, w)
        # White dots down the middle tell red walls from black ones without colour.
        for t in (0.3, 0.5, 0.7):
            x, y = a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t
            r = max(1.5, w / 5)
            d.ellipse((x - r, y - r, x + r, y + r), fill=pal.white)


def draw_last_move(d: ImageDraw.ImageDraw, v: GameView, lay: Layout, theme: Theme) -> None:
    """A band under Alexander's last path; drawn before the walls so the walls stay on top."""
    lm = v.last_move
    if lm is None or len(lm.path) < 2:
        return
    w = wall_width(lay, theme) + 2 * lay.of_side(theme.sizes.halo_s)
    for a, b in _path_sides(lm.path):
        thick_line(d, lay.px(a), lay.px(b), theme.palette.highlight, w)
    x, y = lay.px(lm.path[0])
    r = w * 0.9
    d.ellipse(
        (x - r, y - r, x + r, y + r),
        fill=theme.palette.white,
        outline=theme.palette.highlight,
        width=max(2, w // 3),
    )


def draw_new_wall_marks(d: ImageDraw.ImageDraw, v: GameView, lay: Layout, theme: Theme) -> None:
    """White arrowheads on the walls that the last move placed, pointing the way Alexander walked."""
    lm = v.last_move
    if lm is None:
        return
    placed = set(lm.black) | set(lm.red)
    w = wall_width(lay, theme)
    for a, b in _path_sides(lm.path):
        if (min(a, b), max(a, b)) not in placed:
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


def draw_guards(im: Image.Image, v: GameView, lay: Layout, theme: Theme) -> None:
    size = lay.of_side(theme.sizes.guard_s * 2)
    small = max(8, round(size * 0.5))
    for pl in v.players:
        icon = guard_icon(pl.seat, size, theme)
        for s in sorted(pl.guards):
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


def draw_alexander(im: Image.Image, v: GameView, lay: Layout, theme: Theme) -> None:
    size = max(lay.size(26), lay.of_side(theme.sizes.alexander_s * 2))
    paste_centred(im, alexander_icon(size, theme), lay.px(v.alexander))


def badge_spaces(v: GameView, p: ProvinceView, avoid: Iterable[Space] = (), limit: int = 24) -> list[Space]:
    """Where a province's badge may go, best first: open spaces nearest the middle of the province, then
    (for a province of symbol spaces only) any of its spaces."""
    avoid_set = set(avoid)
    open_spaces = [s for s in p.spaces if v.map.symbol.get(s) is None]
    pool = [s for s in open_spaces if s not in avoid_set] or open_spaces or sorted(p.spaces)

    pos = {s: _space_xy(s) for s in p.spaces}
    cx = sum(x for x, _ in pos.values()) / len(pos)
    cy = sum(y for _, y in pos.values()) / len(pos)
    return sorted(pool, key=lambda s: ((pos[s][0] - cx) ** 2 + (pos[s][1] - cy) ** 2, s))[:limit]


def _space_xy(s: Space) -> tuple[float, float]:
    """A space's centre in side units (for comparing distances only)."""
    pts = corners(s)
    return sum(q[1] for q in pts) / 6, sum(q[0] for q in pts) / 3 * 0.866


Box = tuple[float, float, float, float]


def _overlap(a: Box, b: Box) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def draw_province_badges(d: ImageDraw.ImageDraw, v: GameView, lay: Layout, theme: Theme) -> None:
    """Every province's id ("P7") over its value, the value shown when the province is occupied (in the
    owner's colour) or can be occupied (white). Stacked, so a badge covers about one triangle; each takes
    the best space whose badge overlaps the badges placed before it least (small provinces choose first)."""
    pal = theme.palette
    base = lay.size(theme.sizes.badge_font)
    size = max(base, min(lay.of_side(0.22), round(base * 1.4)))
    f = font(size, bold=True)
    near = set(v.map.point_spaces.get(v.alexander, ()))
    row = round(size * 1.12)
    pad = max(2, round(size * 0.22))
    outline = max(1, size // 10)
    ax, ay = lay.px(v.alexander)
    half = lay.of_side(0.2)
    placed: list[Box] = [(ax - half, ay - half, ax + half, ay + half)] + region_boxes(v.map, lay, theme)
    for p in sorted(v.provinces, key=lambda q: (len(q.spaces), q.id)):
        ident = f"P{p.id}"
        value = str(p.value)
        show_value = p.owner is not None or p.can_be_occupied
        w = max(f.getlength(ident), f.getlength(value) if show_value else 0) + 2 * pad
        h = row * (2 if show_value else 1)
        best: tuple[float, Box] | None = None
        for s in badge_spaces(v, p, near):
            cx, cy = lay.centre(s)
            box = (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)
            clash = sum(_overlap(box, q) for q in placed if q[0] < box[2] and box[0] < q[2])
            if best is None or clash < best[0]:
                best = (clash, box)
            if clash == 0:
                break
        assert best is not None
        box = best[1]
        placed.append(box)
        x0, y0 = box[0], box[1]
        cx = x0 + w / 2
        radius = size * 0.35
        if show_value:
            fill = pal.player(p.owner) if p.owner is not None else pal.white
            d.rounded_rectangle(box, radius=radius, fill=fill, outline=pal.ink, width=outline)
            d.rounded_rectangle(
                (x0, y0, x0 + w, y0 + row), radius=radius, fill=pal.ink, corners=(True, True, False, False)
            )
            d.text((cx, y0 + row * 1.5), value, font=f, fill=readable_on(fill, theme), anchor="mm")
        else:
            d.rounded_rectangle(box, radius=radius, fill=pal.ink)
        d.text((cx, y0 + row * 0.5), ident, font=f, fill=pal.white, anchor="mm")


def board_image(
    v: GameView,
    width: int,
    theme: Theme,
    last_move: bool = True,
    under_walls: Callable[[ImageDraw.ImageDraw, Layout], None] | None = None,
) -> tuple[Image.Image, Layout]:
    """The board of a view with every piece, on an image whose panel area is still empty.

    Previews leave out the last move (their own marks must stand out) and draw their outlines through
    ``under_walls``, beneath the walls, so that walls stay on top of every highlight."""
    lay = layout(v.map, width, theme)
    im = map_layer(v.map, width, theme).copy()
    tint_provinces(im, v, lay, theme)
    d = ImageDraw.Draw(im)
    if last_move:
        draw_last_move(d, v, lay, theme)
    if under_walls is not None:
        under_walls(d, lay)
    draw_walls(d, v, lay, theme)
    if last_move:
        draw_new_wall_marks(d, v, lay, theme)
    draw_guards(im, v, lay, theme)
    draw_province_badges(d, v, lay, theme)
    draw_alexander(im, v, lay, theme)
    return im, lay
