"""Every picture the bot posts, as PNG bytes, drawn from a ``GameView`` and plain rules-query values.

Nothing here sees a ``GameState``: the board and end pictures need only the public view, the hand needs
the player's own view (a public view is refused), and the previews take the active player's view plus
the values ``engine.rules.targets``, ``path_options`` and ``plan_occupation`` returned.
"""

from __future__ import annotations

import io
import math
from collections import Counter
from collections.abc import Callable, Sequence
from functools import lru_cache

from PIL import Image, ImageDraw

from engine.geometry import Point, Space, neighbour_across, point_label
from engine.rules import CornerOption, OccupyPlan, PathOption, Target
from engine.symbols import SYMBOLS, Symbol, total
from engine.views import GameView
from rendering import board as b
from rendering.fonts import drawable, ellipsize, font
from rendering.layout import XY, Layout
from rendering.panel import (
    Panel,
    board_panel,
    colour_chip,
    draw_card,
    end_panel,
    player_names,
    symbol_counts,
)
from rendering.theme import DEFAULT_THEME, RGB, Theme

# --- Encoding -------------------------------------------------------------------------------------


@lru_cache(maxsize=8)
def _palette_image(theme: Theme) -> Image.Image:
    im = Image.new("P", (1, 1))
    im.putpalette(theme.png_palette)
    return im


# zlib level 3 rather than the default 6: on a mid-game board of palette pixels it compresses in under half
# the time for about 15 % more bytes (benchmarks/bench_render.py prints both side by side).
COMPRESS_LEVEL = 3


def encode(im: Image.Image, theme: Theme = DEFAULT_THEME, compress_level: int = COMPRESS_LEVEL) -> bytes:
    """PNG bytes of a picture mapped onto the theme's fixed palette: about a third the size and a fifth of
    the encoding time of an RGB PNG, and deterministic (no adaptive quantizer). Discord shows it inline."""
    rgb = im if im.mode == "RGB" else im.convert("RGB")
    q = rgb.quantize(palette=_palette_image(theme), dither=Image.Dither.NONE)
    out = io.BytesIO()
    q.save(out, "PNG", compress_level=compress_level)
    return out.getvalue()


def encode_rgb(im: Image.Image, compress_level: int = 6) -> bytes:
    """The plain encoding, an RGB PNG at zlib's default level: kept as the benchmark's baseline."""
    out = io.BytesIO()
    im.save(out, "PNG", compress_level=compress_level)
    return out.getvalue()


# --- The board and the end of the game ------------------------------------------------------------


def board_picture(
    v: GameView, names: Sequence[str] | None = None, width: int = 1600, theme: Theme = DEFAULT_THEME
) -> Image.Image:
    im, lay = b.board_image(v, width, theme)
    board_panel(im, v, lay, player_names(v, names, theme), theme)
    return im


def render_board(
    v: GameView, names: Sequence[str] | None = None, width: int = 1600, theme: Theme = DEFAULT_THEME
) -> bytes:
    """The whole board with the side panel, after any change (use the public view)."""
    return encode(board_picture(v, names, width, theme), theme)


def render_end(
    v: GameView, names: Sequence[str] | None = None, width: int = 1600, theme: Theme = DEFAULT_THEME
) -> bytes:
    """The final board with the final scores and the winner(s)."""
    im, lay = b.board_image(v, width, theme)
    end_panel(im, v, lay, player_names(v, names, theme), theme)
    return encode(im, theme)


# --- A player's hand ------------------------------------------------------------------------------


def render_hand(v: GameView, name: str = "", width: int = 1200, theme: Theme = DEFAULT_THEME) -> bytes:
    """A player's cards grouped by symbol with counts. Only from that player's own view: a public view has
    no hand, and is refused rather than drawn empty."""
    if v.viewer is None or v.hand is None:
        raise ValueError("a hand picture needs the player's own view, not the public view")
    pal = theme.palette
    k = width / 1200
    height = round(420 * k)
    im = Image.new("RGB", (width, height), pal.panel)
    d = ImageDraw.Draw(im)
    seat = v.viewer
    shown = drawable(name) or pal.player_names[seat % len(pal.player_names)]
    margin = round(36 * k)
    tf = round(32 * k)
    r = tf * 0.42
    from rendering.icons import draw_mark

    draw_mark(d, seat, margin + r, margin + tf * 0.62, r, theme, width=max(1, round(2 * k)))
    n = total(v.hand)
    count = f"{n} card{'s' if n != 1 else ''}"
    cf = font(round(24 * k))
    title_w = width - 2 * margin - 2 * r - cf.getlength(count) - 30 * k
    d.text(
        (margin + 2 * r + 12 * k, margin),
        ellipsize(f"{shown}'s hand", tf, round(title_w), True),
        font=font(tf, True),
        fill=pal.ink,
    )
    d.text((width - margin, margin + tf * 0.2), count, font=cf, fill=pal.muted, anchor="ra")
    gap = round(30 * k)
    cw = (width - 2 * margin - 4 * gap) // 5
    ch = round(cw * 1.38)
    top = margin + round(tf * 1.5) + round(14 * k)
    for i, (sym, c) in enumerate(zip(SYMBOLS, v.hand, strict=True)):
        x = margin + i * (cw + gap)
        # A stack: one card outline behind per extra card (up to three), so the count shows at a glance.
        for j in range(min(c - 1, 3), 0, -1):
            off = round(j * 6 * k)
            d.rounded_rectangle(
                (x + off, top - off, x + cw + off, top + ch - off),
                radius=max(4, cw // 10),
                fill=pal.white,
                outline=pal.ink,
                width=max(1, round(2 * k)),
            )
        draw_card(im, x, top, sym, cw, ch, theme, count=c)
    return encode(im, theme)


# --- Move previews --------------------------------------------------------------------------------


def letter_for(i: int) -> str:
    """A, B, … Z, then AA, AB, …"""
    out = ""
    i += 1
    while i:
        i, rem = divmod(i - 1, 26)
        out = chr(ord("A") + rem) + out
    return out


def destination_letters(targets: Sequence[Target]) -> list[tuple[str, Point]]:
    """The letters of a move preview: every corner of every target once, in reading order (top line first,
    then left to right). The bot uses the same list to read a player's choice."""
    points = sorted({c.point for t in targets for c in t.corners})
    return [(letter_for(i), p) for i, p in enumerate(points)]


def _marker(
    d: ImageDraw.ImageDraw, at: XY, text: str, lay: Layout, theme: Theme, fill: RGB, ink: RGB | None = None
) -> None:
    size = lay.size(theme.sizes.point_font)
    f = font(size, True)
    r = max(size * 0.8, f.getlength(text) / 2 + size * 0.3)
    x, y = at
    d.ellipse((x - r, y - r, x + r, y + r), fill=fill, outline=theme.palette.ink, width=max(2, lay.size(2)))
    d.text((x, y), text, font=f, fill=ink or b.readable_on(fill, theme), anchor="mm")


def _outline_spaces(
    d: ImageDraw.ImageDraw, spaces: Sequence[Space], lay: Layout, colour: RGB, width: int
) -> None:
    for s in spaces:
        pts = lay.tri(s)
        for a, c in zip(pts, pts[1:] + pts[:1], strict=True):
            b.thick_line(d, a, c, colour, width)


def _preview_image(
    v: GameView,
    width: int,
    theme: Theme,
    under_walls: Callable[[ImageDraw.ImageDraw, Layout], None] | None = None,
) -> tuple[Image.Image, Layout]:
    """The board for a preview: no last-move highlight, so that the preview's own marks stand out."""
    return b.board_image(v, width, theme, last_move=False, under_walls=under_walls)


def _mover(v: GameView) -> int:
    return v.viewer if v.viewer is not None else v.current


def render_move_preview(
    v: GameView,
    targets: Sequence[Target],
    symbol: Symbol | None = None,
    names: Sequence[str] | None = None,
    width: int = 1600,
    theme: Theme = DEFAULT_THEME,
) -> bytes:
    """Every legal destination point for a target symbol, labelled A, B, C… (see ``destination_letters``)."""
    pal = theme.palette
    spaces = [t.space for t in targets]

    def outline(d: ImageDraw.ImageDraw, lay: Layout) -> None:
        _outline_spaces(d, spaces, lay, pal.highlight, max(3, lay.of_side(0.09)))

    im, lay = _preview_image(v, width, theme, outline)
    d = ImageDraw.Draw(im)
    letters = destination_letters(targets)
    for letter, at in letters:
        _marker(d, lay.px(at), letter, lay, theme, pal.white, pal.highlight)
    if symbol is None and targets:
        symbol = v.map.symbol.get(targets[0].space)
    all_names = player_names(v, names, theme)
    p = Panel(im, lay, theme)
    title = f"Move: {symbol.value}" if symbol else "Move"
    p.text(title, theme.sizes.title_font, bold=True, gap=2)
    p.text(f"{all_names[_mover(v)]}: choose a point", theme.sizes.text_font, gap=2)
    p.text(f"Alexander is at {point_label(v.alexander)}", theme.sizes.small_font, colour=pal.muted)
    if targets:
        closest = _count(targets[0].distance, "side")
        p.text(
            f"closest {symbol.value if symbol else 'target'}: {closest} away",
            theme.sizes.small_font,
            colour=pal.muted,
            lines=2,
        )
        p.text("walls: the new walls a path there places", theme.sizes.small_font, colour=pal.muted)
    p.rule()
    if not targets:
        p.text("No empty space shows this symbol.", theme.sizes.text_font, colour=pal.warning)
    options = {c.point: c for t in targets for c in t.corners}
    tf = lay.size(theme.sizes.text_font)
    label_w = max((font(tf, True).getlength(point_label(pt)) for _, pt in letters), default=0)
    detail_x = p.x0 + tf * 2.2 + label_w + tf * 0.6
    for letter, pt in letters:
        c = options[pt]
        if p.y > lay.height - tf * 2:
            p.text(f"… and {len(letters) - letters.index((letter, pt))} more", theme.sizes.small_font)
            break
        top = p.y
        _marker(p.d, (p.x0 + tf * 0.8, top + tf * 0.7), letter, lay, theme, pal.white, pal.highlight)
        paths = f"{_count(c.distance, 'side')} · {_count(c.paths, 'path')}"
        p.d.text((p.x0 + tf * 2.2, top), point_label(pt), font=font(tf, True), fill=pal.ink)
        walls = (
            _count(c.fewest_walls, "wall")
            if c.fewest_walls == c.most_walls
            else (f"{c.fewest_walls}–{c.most_walls} walls")
        )
        detail = f"{paths} · {walls}"
        sf = lay.size(theme.sizes.small_font)
        p.d.text(
            (detail_x, top + (tf - sf) * 0.6),
            ellipsize(detail, sf, round(p.x1 - detail_x)),
            font=font(sf),
            fill=pal.ink,
        )
        p.y = round(top + tf * 1.9)
    return encode(im, theme)


def _path_style(i: int, theme: Theme) -> tuple[RGB, tuple[float, float] | None]:
    """Path ``i``'s colour and dash pattern: colours first, then the same colours dashed, then dotted."""
    colours = theme.palette.path_colours
    dashes: tuple[tuple[float, float] | None, ...] = (None, (14.0, 8.0), (5.0, 6.0))
    return colours[i % len(colours)], dashes[(i // len(colours)) % len(dashes)]


def _styled_polyline(
    d: ImageDraw.ImageDraw,
    pts: list[XY],
    colour: RGB,
    width: int,
    dash: tuple[float, float] | None,
    lay: Layout,
) -> None:
    if dash is None:
        for a, c in zip(pts, pts[1:], strict=False):
            b.thick_line(d, a, c, colour, width)
        return
    phase = 0.0
    on, off = lay.size(dash[0]) + width, lay.size(dash[1]) + width
    for a, c in zip(pts, pts[1:], strict=False):
        phase = b.dashed_line(d, a, c, colour, width, on, off, phase)


def render_path_preview(
    v: GameView,
    corner: Point | CornerOption,
    paths: Sequence[PathOption],
    names: Sequence[str] | None = None,
    width: int = 1600,
    theme: Theme = DEFAULT_THEME,
    *,
    confirm: bool = False,
    ends_game: bool = False,
) -> bytes:
    """Every shortest path to a chosen point (R3.4), each in its own style and numbered 1, 2, 3…, with the new
    walls each one needs (R3.5). The numbers follow the order of ``paths``.

    With ``confirm`` it is the guided move's confirm step: ``paths`` holds the one chosen path, and the
    caption says what the move will do (walls placed, black and red, R3.6) instead of asking for a choice.
    ``ends_game`` (computed by the engine, passed on by the caller) flags a move after which the game ends
    (R10.1)."""
    if confirm and len(paths) != 1:
        raise ValueError("the confirm form shows exactly one chosen path")
    pal = theme.palette
    point = corner.point if isinstance(corner, CornerOption) else corner
    im, lay = _preview_image(v, width, theme)
    d = ImageDraw.Draw(im)
    n = len(paths)
    usage: Counter[tuple[Point, Point]] = Counter()
    for opt in paths:
        for a, c in zip(opt.points, opt.points[1:], strict=False):
            usage[(min(a, c), max(a, c))] += 1
    line_w = max(4, lay.of_side(0.08))
    spread = min(lay.of_side(0.3), line_w * 1.6 * max(n - 1, 0)) if n > 1 else 0
    labels: list[tuple[XY, int]] = []
    # Numbers keep clear of each other, of Alexander and of the chosen point where they can.
    taken: list[XY] = [lay.px(v.alexander), lay.px(point)]
    clear = lay.size(theme.sizes.point_font) * 1.9
    lines = [
        _offset_polyline([lay.px(q) for q in opt.points], (i / (n - 1) - 0.5) * spread if n > 1 else 0.0)
        for i, opt in enumerate(paths)
    ]
    # White casings first, under every path: dashes read against any land, and crossings stay clear.
    for pts in lines:
        _styled_polyline(d, pts, pal.white, line_w + lay.size(4), None, lay)
    for i, (opt, pts) in enumerate(zip(paths, lines, strict=True)):
        colour, dash = _path_style(i, theme)
        _styled_polyline(d, pts, colour, line_w, dash, lay)
        segs = list(zip(opt.points, opt.points[1:], strict=False))
        if segs:
            # The number goes on a side that few other paths share, near the middle of the path.
            mid = (len(segs) - 1) / 2
            order = sorted(
                range(len(segs)), key=lambda k: (usage[(min(segs[k]), max(segs[k]))], abs(k - mid), k)
            )
            spots = [
                (pts[k][0] + (pts[k + 1][0] - pts[k][0]) * t, pts[k][1] + (pts[k + 1][1] - pts[k][1]) * t)
                for k in order
                for t in (0.5, 0.3, 0.7)
            ]
            at = next((s for s in spots if all(math.dist(s, q) >= clear for q in taken)), spots[0])
            taken.append(at)
            labels.append((at, i))
    for at, i in labels:
        _marker(d, at, str(i + 1), lay, theme, _path_style(i, theme)[0])
    _marker(d, lay.px(point), "★", lay, theme, pal.white, pal.highlight)
    all_names = player_names(v, names, theme)
    p = Panel(im, lay, theme)
    if confirm:
        _confirm_caption(p, v, point, paths[0], all_names[_mover(v)], ends_game)
        return encode(im, theme)
    p.text(f"Paths to {point_label(point)}", theme.sizes.title_font, bold=True, gap=2)
    p.text(f"{all_names[_mover(v)]}: choose a path", theme.sizes.text_font, gap=2)
    p.text(f"from Alexander at {point_label(v.alexander)}", theme.sizes.small_font, colour=pal.muted)
    if ends_game:
        p.text("A move here ends the game.", theme.sizes.text_font, bold=True, colour=pal.warning, lines=2)
    p.rule()
    if not paths:
        p.text("No path to this point.", theme.sizes.text_font, colour=pal.warning)
    tf = lay.size(theme.sizes.text_font)
    sf = lay.size(theme.sizes.small_font)
    row = round(tf * 1.75)
    for i, opt in enumerate(paths):
        if p.y > lay.height - row:
            p.text(f"… and {n - i} more", theme.sizes.small_font)
            break
        top = p.y
        colour, dash = _path_style(i, theme)
        _marker(p.d, (p.x0 + tf * 0.8, top + tf * 0.7), str(i + 1), lay, theme, colour)
        sx = p.x0 + tf * 2
        _styled_polyline(
            p.d, [(sx, top + tf * 0.7), (sx + tf * 2.2, top + tf * 0.7)], colour, line_w, dash, lay
        )
        walls = len(opt.new_walls)
        text = f"{walls} new wall{'s' if walls != 1 else ''}"
        p.d.text((sx + tf * 2.8, top), text, font=font(tf, True), fill=pal.ink)
        via = " ".join(point_label(q) for q in opt.points[1:-1])
        if via:
            vx = sx + tf * 2.8 + font(tf, True).getlength(text) + tf * 0.6
            p.d.text(
                (vx, top + (tf - sf) * 0.6),
                ellipsize("via " + via, sf, round(p.x1 - vx)),
                font=font(sf),
                fill=pal.muted,
            )
        p.y = top + row
    return encode(im, theme)


def wall_split(new_walls: int, black_left: int) -> tuple[int, int]:
    """R3.6: how many black and red walls a path with ``new_walls`` new walls places."""
    black = min(new_walls, black_left)
    return black, new_walls - black


def _confirm_caption(
    p: Panel, v: GameView, point: Point, path: PathOption, who: str, ends_game: bool
) -> None:
    """The confirm form's caption: what pressing Confirm will do."""
    sizes, pal = p.theme.sizes, p.theme.palette
    p.text("Confirm the move", sizes.title_font, bold=True, gap=2)
    p.text(
        f"{who} moves Alexander from {point_label(v.alexander)} to {point_label(point)}",
        sizes.text_font,
        lines=3,
    )
    p.rule()
    black, red = wall_split(len(path.new_walls), v.black_left)
    if not path.new_walls:
        p.text("Places no wall: the path runs along walls only.", sizes.text_font, lines=2)
    else:
        p.text(f"Places {_count(black, 'black wall')}", sizes.text_font, bold=True)
        if red:
            p.text(f"and {_count(red, 'red wall')}", sizes.text_font, bold=True, colour=pal.warning)
    left = v.black_left - black
    p.text(f"{_count(left, 'black wall')} left after it", sizes.small_font, colour=pal.muted)
    if ends_game:
        p.rule()
        p.text("This move ends the game.", sizes.text_font, bold=True, colour=pal.warning, lines=2)
        p.text("You still take your actions; then nobody else plays.", sizes.small_font, lines=3)


def _offset_polyline(pts: list[XY], offset: float) -> list[XY]:
    """The polyline moved sideways by ``offset`` pixels, so that paths sharing sides stay visible."""
    if offset == 0 or len(pts) < 2:
        return pts
    out: list[XY] = []
    for k, (x, y) in enumerate(pts):
        nx = ny = 0.0
        segs = ([(pts[k - 1], pts[k])] if k > 0 else []) + (
            [(pts[k], pts[k + 1])] if k + 1 < len(pts) else []
        )
        for a, c in segs:
            length = math.dist(a, c) or 1.0
            nx += -(c[1] - a[1]) / length
            ny += (c[0] - a[0]) / length
        norm = math.hypot(nx, ny) or 1.0
        out.append((x + nx / norm * offset, y + ny / norm * offset))
    return out


# --- Occupy and take-over previews ----------------------------------------------------------------


def render_province_preview(
    v: GameView,
    province_id: int,
    plan: OccupyPlan | None,
    names: Sequence[str] | None = None,
    width: int = 1600,
    theme: Theme = DEFAULT_THEME,
) -> bytes:
    """A province outlined, with the guards and cards that occupying or taking it over would cost."""
    pal = theme.palette
    prov = next((p for p in v.provinces if p.id == province_id), None)
    if prov is None:
        raise ValueError(f"no province P{province_id} in this view")
    boundary = [
        (s, sd)
        for s in sorted(prov.spaces)
        for sd in v.map.space_sides[s]
        if neighbour_across(s, sd) not in prov.spaces
    ]

    def outline(d: ImageDraw.ImageDraw, lay: Layout) -> None:
        w = b.wall_width(lay, theme) + 2 * lay.of_side(theme.sizes.halo_s)
        for _, sd in boundary:
            b.thick_line(d, lay.px(sd[0]), lay.px(sd[1]), pal.highlight, w)

    im, lay = _preview_image(v, width, theme, outline)
    d = ImageDraw.Draw(im)
    mover = _mover(v)
    if plan is not None:
        for s in plan.guards:
            b.ghost_guard(d, mover, lay.centre(s), lay, theme)
    all_names = player_names(v, names, theme)
    p = Panel(im, lay, theme)
    take_over = prov.owner is not None and prov.owner != mover
    verb = "Take over" if take_over else "Occupy"
    p.text(f"{verb} P{prov.id}", theme.sizes.title_font, bold=True, gap=2)
    p.text(
        f"worth {prov.value} · {_count(len(prov.symbol_spaces), 'symbol space')}",
        theme.sizes.text_font,
        gap=2,
    )
    if take_over and prov.owner is not None:
        top = p.y
        colour_chip(p, p.x0, top, prov.owner)
        p.text(f"held by {all_names[prov.owner]}", theme.sizes.text_font, x=p.x0 + lay.size(26))
    p.rule()
    if plan is None:
        why = (
            "It is yours already."
            if prov.owner == mover
            else "It has no symbol space."
            if not prov.symbol_spaces
            else "You have no guard left in your supply."
        )
        p.text("This province cannot be taken.", theme.sizes.text_font, bold=True, colour=pal.warning)
        p.text(why, theme.sizes.text_font, lines=2)
        return encode(im, theme)
    top = p.y
    colour_chip(p, p.x0, top, mover)
    guards = len(plan.guards)
    p.text(
        f"{all_names[mover]} places {guards} guard{'s' if guards != 1 else ''}",
        theme.sizes.text_font,
        bold=True,
        x=p.x0 + lay.size(26),
    )
    if take_over:
        symbol_counts(p, plan.removal, "Remove guards:")
    symbol_counts(p, plan.cost, "Occupy:")
    p.text(f"{total(plan.paid)} card{'s' if total(plan.paid) != 1 else ''} in all", theme.sizes.text_font)
    if plan.compensation and prov.owner is not None:
        p.text(
            f"{all_names[prov.owner]} gets {plan.compensation} of them back",
            theme.sizes.small_font,
            colour=pal.muted,
        )
    p.rule()
    if total(plan.missing):
        symbol_counts(p, plan.missing, "You lack:", colour=pal.warning)
    else:
        p.text("You can pay for this.", theme.sizes.text_font, bold=True, colour=pal.good)
    return encode(im, theme)


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"
