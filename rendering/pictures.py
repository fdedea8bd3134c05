"""Every picture the bot posts, as PNG bytes, drawn from a ``GameView`` and plain rules-query values.

Nothing here sees a ``GameState``: the board and end pictures need only the public view, the hand needs
the player's own view (a public view is refused), and the previews take the active player's view plus
the values ``engine.rules.targets``, ``path_options`` and ``plan_occupation`` returned.
"""

from __future__ import annotations

import io
import math
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache, wraps
from typing import ParamSpec

from PIL import Image, ImageDraw

from engine.geometry import Point, Space, neighbour_across, point_label
from engine.maps import Map
from engine.rules import CornerOption, OccupyPlan, PathOption, Target
from engine.symbols import SYMBOLS, Symbol, total
from engine.views import GameView
from rendering import board as b
from rendering.band_keys import MARGIN, Call, Piece, TracedDraw, board_band_keys, replay
from rendering.fonts import drawable, ellipsize, font
from rendering.labels import (
    NAMES,
    PLACED,
    Box,
    Label,
    board_labels,
    marker_box,
    marker_radius,
    overlap,
    pieces,
    square,
    wall_width,
)
from rendering.layout import BOARD_WIDTH, XY, Layout, layout, min_text_px
from rendering.panel import (
    Band,
    PanelPart,
    board_panel,
    board_panel_parts,
    caption_top,
    colour_name,
    draw_card,
    end_panel,
    panel_split,
    player_names,
    symbol_name,
)
from rendering.png import BANDS, ROWS, bands, compressed, palette_of, palette_png, png_of_bands
from rendering.png import Band as PngBand
from rendering.recent import Recent
from rendering.theme import DEFAULT_THEME, RGB, Theme
from rendering.words import ENGLISH, Words

_P = ParamSpec("_P")

# --- Encoding -------------------------------------------------------------------------------------


@lru_cache(maxsize=8)
def _palette_image(theme: Theme) -> Image.Image:
    im = Image.new("P", (1, 1))
    im.putpalette(theme.png_palette)
    return im


# zlib level 3 rather than the default 6: on a mid-game board of palette pixels it compresses in under half
# the time for about 15 % more bytes (benchmarks/bench_render.py prints both side by side). The bands are
# compressed by zlib-ng (rendering.png), whose level 2 is both faster and smaller than zlib's level 3 was.
COMPRESS_LEVEL = 2
# The panel's rows, drawn again for nearly every picture (the board above them is mostly kept), and a
# preview's rows from the panel down, are compressed at zlib-ng's fastest level: on the panel bands of a
# bench_bot run's pictures 0.037 ms and 1,969 bytes a band, where runs of one colour (zlib's Z_RLE, used
# before) took 0.070 ms and 1,798 bytes. A board is about 2.5 KB larger (of some 100), for half a
# millisecond less CPU (its 15 bands of panel).
PANEL_LEVEL = 1


def encode(im: Image.Image, theme: Theme = DEFAULT_THEME, compress_level: int = COMPRESS_LEVEL) -> bytes:
    """PNG bytes of a picture mapped onto the theme's fixed palette: about a third the size and a fifth of
    the encoding time of an RGB PNG, and deterministic (no adaptive quantizer). Discord shows it inline.
    Its bands of rows are compressed once and reused by later pictures that show them unchanged
    (rendering.png)."""
    return palette_png(quantized(im, theme), compress_level)


def quantized(im: Image.Image, theme: Theme = DEFAULT_THEME) -> Image.Image:
    """The picture on the theme's fixed palette, each pixel its nearest colour (no dithering)."""
    rgb = im if im.mode == "RGB" else im.convert("RGB")
    return rgb.quantize(palette=_palette_image(theme), dither=Image.Dither.NONE)


def encode_pillow(
    im: Image.Image, theme: Theme = DEFAULT_THEME, compress_level: int = COMPRESS_LEVEL
) -> bytes:
    """The same palette picture written by Pillow's PNG writer (one zlib stream, nothing reused): the
    encoding before rendering.png, kept as the benchmark's baseline."""
    out = io.BytesIO()
    quantized(im, theme).save(out, "PNG", compress_level=compress_level)
    return out.getvalue()


def encode_rgb(im: Image.Image, compress_level: int = 6) -> bytes:
    """The plain encoding, an RGB PNG at zlib's default level: kept as the benchmark's baseline."""
    out = io.BytesIO()
    im.save(out, "PNG", compress_level=compress_level)
    return out.getvalue()


# --- The board and the end of the game ------------------------------------------------------------


def board_picture(
    v: GameView,
    names: Sequence[str] | None = None,
    width: int = BOARD_WIDTH,
    theme: Theme = DEFAULT_THEME,
    *,
    words: Words = ENGLISH,
) -> Image.Image:
    im, lay = b.board_image(v, width, theme, words=words)
    board_panel(im, v, lay, player_names(v, names, theme, words), theme, words)
    return im


def render_board(
    v: GameView,
    names: Sequence[str] | None = None,
    width: int = BOARD_WIDTH,
    theme: Theme = DEFAULT_THEME,
    *,
    words: Words = ENGLISH,
) -> bytes:
    """The whole board with the side panel, after any change (use the public view), its words in the
    game's language.

    Most actions (a card taken, a levy, a turn ended) change only the panel: the board above it is kept
    from the last picture that showed the same pieces (``BOARDS``: its compressed bands down to the panel,
    and the rows that share a band with the panel), and only the panel is drawn on the map layer, quantized
    and compressed. A board is kept only if it is cleanly apart from its panel (the board left the panel's
    rows as the map layer has them; the panel's parts draw only below the split), so a kept board gives the
    very file a fresh drawing would. A board drawn afresh keeps its bands by what they show
    (``BOARD_BANDS``), and the panel's parts by their facts (``PANEL_PARTS``); the panel starts from the
    one the game's last board showed (``LAST_PANELS``, ``_panel_bands``)."""
    lay = layout(v.map, width, theme)
    split = panel_split(lay)
    cut = split // ROWS * ROWS  # the rows above are whole bands of the board alone
    key = (v.map, width, theme, words, v.last_move, v.red_walls, *pieces(v))
    kept = BOARDS.get(key)
    shown = player_names(v, names, theme, words)
    if kept is None:
        # Only the bands not kept by their keys are drawn, and every band from the cut down that a piece
        # reaches (rendering.band_keys): none reaches below the last band whose key names one.
        labels = board_labels(v, lay, theme, (), words)
        keys = board_band_keys(v, lay, theme, labels, ROWS, _bands_in(lay))
        found = _found(keys[: cut // ROWS])
        ends = max(_pieces_end(keys, cut), cut // ROWS + 1)
        rows, show = _to_draw(keys[:ends], found)
        im = b.board_in_rows(v, lay, theme, labels, rows, show)
        top = _kept_bands(im, keys[: cut // ROWS], found, lay, theme)
        reached = min(ends * ROWS, lay.height)
        drawn = im.crop((0, split, width, reached)).tobytes()
        if drawn != _map_layer_rows(v.map, width, theme)[: len(drawn)]:
            # The board reaches into the panel's rows: the panel drawn over it (on the map layer's rows below
            # the board's last), not kept.
            im.paste(b.map_layer(v.map, width, theme).crop((0, reached, width, lay.height)), (0, reached))
            board_panel(im, v, lay, shown, theme, words)
            q = quantized(im.crop((0, cut, width, lay.height)), theme)
            rest = bands(q.tobytes(), width, PANEL_LEVEL)
            return png_of_bands(width, lay.height, palette_of(q), [*top, *rest])
        board_rows = quantized(im.crop((0, cut, width, split)), theme).tobytes()
        BOARDS.put(key, (top, board_rows))
    else:
        top, board_rows = kept
    panel = _panel_bands(v, lay, shown, theme, words, board_rows)
    return png_of_bands(width, lay.height, palette_of(_panel_background(v.map, width, theme)), [*top, *panel])


# Bands of boards lately drawn, by what each shows (rendering.band_keys): a band's compressed bytes, about
# 2 KB, shared with rendering.png's cache. Between a game's boards about three bands in four stay the same.
BOARD_BANDS: Recent[tuple[object, ...], PngBand] = Recent(4096)


def _bands_in(lay: Layout) -> int:
    """How many bands of ``ROWS`` rows a picture of this layout has (the last one may be short)."""
    return -(-lay.height // ROWS)


def _pieces_end(keys: Sequence[tuple[object, ...]], cut: int) -> int:
    """The band after the last one from the ``cut`` down whose key names a piece (``cut // ROWS`` if none):
    no piece reaches below it (rendering.band_keys). A key is (map, layout, theme, band, *pieces)."""
    return max((k + 1 for k in range(cut // ROWS, len(keys)) if keys[k][4:]), default=cut // ROWS)


def _found(keys: Sequence[tuple[object, ...]]) -> list[PngBand | None]:
    """The bands kept by these keys (None where a band is not)."""
    return [BOARD_BANDS.get(k) for k in keys]


def _to_draw(
    keys: Sequence[tuple[object, ...]], found: Sequence[PngBand | None]
) -> tuple[list[tuple[int, int]], b.Show]:
    """What a board must draw, given its bands' ``keys`` (every band of the picture, rendering.band_keys)
    and the first bands ``found`` kept: the rows of the bands not kept and of every band after them (runs
    of rows, top to bottom), and the pieces that reach those rows, as ``rendering.board``'s ``show``."""
    if not any(found):  # every band is drawn: every piece, without asking each
        return [(0, len(keys) * ROWS)], b.every
    wanted = [k for k, band in enumerate(found) if band is None] + list(range(len(found), len(keys)))
    rows: list[tuple[int, int]] = []
    for k in wanted:
        if rows and rows[-1][1] == k * ROWS:
            rows[-1] = (rows[-1][0], (k + 1) * ROWS)
        else:
            rows.append((k * ROWS, (k + 1) * ROWS))
    # A key is (map, layout, theme, band, *what each piece across the band is).
    shown = {what for k in wanted for what in keys[k][4:]}
    return rows, shown.__contains__


def _kept_bands(
    im: Image.Image,
    keys: Sequence[tuple[object, ...]],
    found: list[PngBand | None],
    lay: Layout,
    theme: Theme,
) -> list[PngBand]:
    """The compressed bands of ``im``'s first ``len(keys)`` bands: those ``found`` kept by their keys are
    taken; the others are quantized and compressed, neighbours together, and kept by their keys."""
    i = 0
    while i < len(found):
        if found[i] is not None:
            i += 1
            continue
        j = i
        while j < len(found) and found[j] is None:
            j += 1
        pixels = quantized(im.crop((0, i * ROWS, lay.width, j * ROWS)), theme).tobytes()
        for k, band in enumerate(bands(pixels, lay.width, COMPRESS_LEVEL, first=i), start=i):
            found[k] = band
            BOARD_BANDS.put(keys[k], band)
        i = j
    return [band for band in found if band is not None]


def _pixels_of(im: Image.Image) -> int:
    return im.width * im.height  # a palette picture's bytes


# The panel's parts lately drawn, as palette pixels, by their facts (rendering.panel.board_panel_parts):
# 4-70 KB each at 1,280 px. An action changes one or two parts; the others' pixels are pasted as kept. Kept
# by their bytes, not their count: with 50 games acting at once, one cache of 256 parts forgot most players'
# names before their game's next action, when the turn's column was one part of 88 KB, new with nearly
# every action (bench_bot's requests replayed: 1,493 names drawn of 3,750; 337 now, the fewest any size
# gives). Its lines are parts of their own now, and their facts repeat from game to game ("Turn 7").
PANEL_PARTS: Recent[tuple[object, ...], Image.Image] = Recent(16 << 20, _pixels_of)


@dataclass(frozen=True)
class _LastPanel:
    """The panel a game's board showed last (``LAST_PANELS``): its parts' boxes and facts in order, the
    palette pixels from the cut down (the board's rows to the split, then the panel's) and their bands."""

    facts: tuple[tuple[object, ...], ...]
    pixels: bytes
    bands: tuple[PngBand, ...]


# The panel each game's board showed last, by the game's map, layout, theme, language and players' names:
# about 330 KB each at 1,280 px, 32 MB of them (some 100 games). An action changes 1 to 5 of a panel's 15
# parts (the turn's status, a hand, the face-up cards): only those are pasted over the last pixels, and
# only the bands across them whose pixels changed are compressed again. Before, every board looked up all
# its parts and its 16 bands by their facts (bench_bot's requests replayed: the panel 1.15-1.3 ms a board;
# the face-up cards' part spans every band and changes with 57 % of the actions, so 11.75 bands a board
# missed and were assembled and hashed).
LAST_PANELS: Recent[tuple[object, ...], _LastPanel] = Recent(32 << 20, lambda last: len(last.pixels))


def _panel_bands(
    v: GameView, lay: Layout, shown: list[str], theme: Theme, words: Words, board_rows: bytes
) -> list[PngBand]:
    """The compressed bands from the cut down: ``board_rows`` (the board's rows from the cut to the split),
    then the board panel's rows (rendering.panel.board_panel_parts, which tile the panel on its
    background). From the panel the game's board showed last (``LAST_PANELS``, the same boxes): the parts
    whose facts changed pasted over its pixels, and the bands across them (and the first, if the board's
    rows changed) compressed again where their pixels changed; its other bands as they were. Without one:
    every part pasted, and each band found by its pixels or compressed."""
    split, width = panel_split(lay), lay.width
    cut = split // ROWS * ROWS
    im = b.canvas("panel", v.map, width, theme)
    parts = board_panel_parts(im, v, lay, shown, theme, words, pieces=True)
    facts = tuple((part.box, *part.facts) for part in parts)
    spot = (v.map, lay, theme, words, tuple(shown))
    last = LAST_PANELS.get(spot)
    step = ROWS * width
    if last is None or [f[0] for f in last.facts] != [f[0] for f in facts]:
        pixels = board_rows + _panel_pixels(v, lay, parts, theme, words, im).tobytes()
        out = bands(pixels, width, PANEL_LEVEL, first=cut // ROWS)
        LAST_PANELS.put(spot, _LastPanel(facts, pixels, tuple(out)))
        return out
    changed = [k for k, f in enumerate(facts) if f != last.facts[k]]
    new_rows = last.pixels[: len(board_rows)] != board_rows
    if not changed and not new_rows:
        return list(last.bands)
    panel = Image.frombytes("P", (width, lay.height - split), last.pixels[len(board_rows) :])
    layer = _map_layer_panel(v.map, width, theme)
    touched = {0} if new_rows else set()
    for k in changed:
        x0, y0, _, y1 = parts[k].box
        panel.paste(_part_pixels(v, lay, parts[k], theme, words, im, layer), (x0, y0 - split))
        touched.update(range((y0 - cut) // ROWS, (y1 - 1 - cut) // ROWS + 1))
    pixels = board_rows + panel.tobytes()
    out = list(last.bands)
    for i in sorted(touched):
        band = pixels[i * step : (i + 1) * step]
        if band != last.pixels[i * step : (i + 1) * step]:
            out[i] = compressed(band, width, PANEL_LEVEL)
    LAST_PANELS.put(spot, _LastPanel(facts, pixels, tuple(out)))
    return out


def _panel_pixels(
    v: GameView, lay: Layout, parts: Sequence[PanelPart], theme: Theme, words: Words, im: Image.Image
) -> Image.Image:
    """The board panel's rows (from the split down) on the theme's palette, where ``parts`` lie (of
    ``board_panel_parts`` on ``im``; the rest is left as the map layer): the same pixels as the panel drawn
    whole on the map layer and quantized (pixel by pixel, without dithering), assembled from the parts'
    pixels (``_part_pixels``)."""
    split = panel_split(lay)
    layer = _map_layer_panel(v.map, lay.width, theme)
    out = _panel_background(v.map, lay.width, theme).copy()
    for part in parts:
        out.paste(_part_pixels(v, lay, part, theme, words, im, layer), (part.box[0], part.box[1] - split))
    return out


def _part_pixels(
    v: GameView, lay: Layout, part: PanelPart, theme: Theme, words: Words, im: Image.Image, layer: Image.Image
) -> Image.Image:
    """A panel part's palette pixels: kept (``PANEL_PARTS``), or drawn on ``im`` over the map ``layer``'s
    pixels of its own box (a part draws nothing outside it) and quantized."""
    key = (v.map, lay, theme, words, part.box, *part.facts)
    pixels = PANEL_PARTS.get(key)
    if pixels is None:
        split = panel_split(lay)
        x0, y0, x1, y1 = part.box
        im.paste(layer.crop((x0, y0 - split, x1, y1 - split)), (x0, y0))
        part.draw()
        pixels = quantized(im.crop(part.box), theme)
        PANEL_PARTS.put(key, pixels)
    return pixels


def forget_kept() -> None:
    """Forgets every board, band, panel part and label placement this process keeps: what a worker that
    never drew a picture has (tests that must see every text drawn, benchmarks of a cold worker)."""
    for kept in (BOARDS, BOARD_BANDS, PANEL_PARTS, LAST_PANELS, NAMES, PLACED, BANDS):
        kept.clear()


@lru_cache(maxsize=8)
def _panel_background(m: Map, width: int, theme: Theme) -> Image.Image:
    return quantized(_map_layer_panel(m, width, theme), theme)


@lru_cache(maxsize=8)
def _map_layer_panel(m: Map, width: int, theme: Theme) -> Image.Image:
    """The map layer from the panel's split row down (as ``render_board`` splits): the panel's rows before
    anything is drawn on them."""
    layer = b.map_layer(m, width, theme)
    top = panel_split(layout(m, width, theme))
    return layer.crop((0, top, width, layer.height))


@lru_cache(maxsize=8)
def _map_layer_rows(m: Map, width: int, theme: Theme) -> bytes:
    return _map_layer_panel(m, width, theme).tobytes()


# Boards lately drawn, by everything the board above the panel shows: about 100 KB each (compressed bands,
# shared with rendering.png's cache, and up to 16 rows of pixels).
BOARDS: Recent[tuple[object, ...], tuple[list[PngBand], bytes]] = Recent(128)


def render_end(
    v: GameView,
    names: Sequence[str] | None = None,
    width: int = BOARD_WIDTH,
    theme: Theme = DEFAULT_THEME,
    *,
    words: Words = ENGLISH,
) -> bytes:
    """The final board with the final scores and the winner(s)."""
    im, lay = b.board_image(v, width, theme, words=words)
    end_panel(im, v, lay, player_names(v, names, theme, words), theme, words)
    return encode(im, theme)


# --- A player's hand ------------------------------------------------------------------------------


def render_hand(
    v: GameView, name: str = "", width: int = 1200, theme: Theme = DEFAULT_THEME, *, words: Words = ENGLISH
) -> bytes:
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
    shown = drawable(name) or colour_name(pal.player_names[seat % len(pal.player_names)], words)
    margin = round(36 * k)
    tf = max(min_text_px(width), round(36 * k))
    r = tf * 0.42
    from rendering.icons import draw_mark

    draw_mark(d, seat, margin + r, margin + tf * 0.62, r, theme, width=max(1, round(2 * k)))
    n = total(v.hand)
    cards = words.ntr("{n} card", "{n} cards", n).format(n=n)
    cf = font(tf, condensed=True)
    title_w = width - 2 * margin - 2 * r - cf.getlength(cards) - 30 * k
    d.text(
        (margin + 2 * r + 12 * k, margin),
        ellipsize(words.tr("{name}'s hand").format(name=shown), tf, round(title_w), True, condensed=True),
        font=font(tf, True, condensed=True),
        fill=pal.ink,
    )
    d.text((width - margin, margin), cards, font=cf, fill=pal.muted, anchor="ra")
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
        draw_card(im, x, top, sym, cw, ch, theme, tf, count=c, words=words)
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
    """A round marker with a letter or number (a pill for longer texts), as ``marker_box`` measures it."""
    size = lay.text(theme.sizes.point_font)
    f = font(size, True, condensed=True)
    x0, y0, x1, y1 = marker_box(at, text, lay, theme)
    line = max(2, lay.size(2))
    if x1 - x0 <= y1 - y0 + 1:
        d.ellipse((x0, y0, x1, y1), fill=fill, outline=theme.palette.ink, width=line)
    else:
        # Rounded a hair less than a half circle: Pillow trips over exact half circles in floats.
        r = (y1 - y0) / 2 - 0.5
        d.rounded_rectangle((x0, y0, x1, y1), radius=r, fill=fill, outline=theme.palette.ink, width=line)
    d.text(at, text, font=f, fill=ink or b.readable_on(fill, theme), anchor="mm")


def _outline_spaces(
    d: ImageDraw.ImageDraw, spaces: Sequence[Space], lay: Layout, colour: RGB, width: int
) -> None:
    for s in spaces:
        pts = lay.tri(s)
        for a, c in zip(pts, pts[1:] + pts[:1], strict=True):
            b.thick_line(d, a, c, colour, width)


class _Whole(Exception):
    """A preview whose marks, board or caption reach rows another of them draws too (the panel's split):
    it is drawn again with its whole board first, in the order the picture layers them."""


_whole = threading.local()  # whether this thread draws previews on whole boards (``drawn_whole``)


@contextmanager
def drawn_whole() -> Iterator[None]:
    """Within it, this thread's previews are drawn on their whole board, as before boards were drawn band
    by band (the tests' and the benchmark's reference)."""
    before = getattr(_whole, "on", False)
    _whole.on = True
    try:
        yield
    finally:
        _whole.on = before


def _whole_if_needed(draw: Callable[_P, bytes]) -> Callable[_P, bytes]:
    """A preview drawn band by band, or on its whole board where it cannot be (``_Whole``)."""

    @wraps(draw)
    def drawn(*args: _P.args, **kwargs: _P.kwargs) -> bytes:
        try:
            return draw(*args, **kwargs)
        except _Whole:
            with drawn_whole():
                return draw(*args, **kwargs)

    return drawn


@dataclass
class _Preview:
    """A preview being drawn: its picture and layout, and what its bands' keys are made of (the view, its
    labels, the marks drawn beneath the walls and over everything).

    Drawn band by band (the ``_calls`` lists set), the picture holds only the caption, drawn on the map
    layer's rows from the cut down; the marks are noted with their pens' calls, and ``png`` draws the
    board, and the marks over it, only in the bands that are not kept by their keys. Drawn whole, the
    picture is the whole board with everything drawn on it as it comes."""

    im: Image.Image
    lay: Layout
    v: GameView
    theme: Theme
    words: Words
    labels: tuple[Label, ...]
    under: list[Piece]
    under_calls: list[Call] | None
    over: list[Piece] = field(default_factory=list)
    over_calls: list[Call] | None = None

    def draw(self) -> ImageDraw.ImageDraw:
        """A pen for the preview's marks over the board, which notes them for the keys."""
        return TracedDraw(self.im, self.over, self.over_calls)

    def png(self) -> bytes:
        """The file (``encode``'s, byte for byte): the bands above the panel kept by their keys where they
        were drawn before (rendering.band_keys), the panel's rows quantized and compressed. The caption is
        drawn in the panel's band (from below the split), never in a band kept by its key."""
        lay, width = self.lay, self.lay.width
        split = panel_split(lay)
        cut = split // ROWS * ROWS
        keys = board_band_keys(
            self.v,
            lay,
            self.theme,
            self.labels,
            ROWS,
            _bands_in(lay),
            last_move=False,
            under=self.under,
            over=self.over,
        )
        found = _found(keys[: cut // ROWS])
        if self.over_calls is None:
            top = _kept_bands(self.im, keys[: cut // ROWS], found, lay, self.theme)
        else:
            top = self._bands_drawn(keys, found, split, cut)
        q = quantized(self.im.crop((0, cut, width, lay.height)), self.theme)
        rest = bands(q.tobytes(), width, PANEL_LEVEL, first=cut // ROWS)
        return png_of_bands(width, lay.height, palette_of(q), [*top, *rest])

    def _bands_drawn(
        self, keys: list[tuple[object, ...]], found: list[PngBand | None], split: int, cut: int
    ) -> list[PngBand]:
        """The bands above the cut, the board and its marks drawn in those not kept, and the rows from the
        cut to the caption's top drawn onto the caption's picture. Raises ``_Whole`` where the board or a
        mark reaches the caption's rows, or the caption was drawn above them: the rows there would need
        them drawn in their order."""
        assert self.under_calls is not None and self.over_calls is not None
        lay, width = self.lay, self.lay.width
        rows, show = _to_draw(keys, found)
        under, under_calls = self.under, self.under_calls

        def under_walls(d: ImageDraw.ImageDraw, _: Layout) -> None:
            replay(d, under_calls, under, show)

        board = b.board_in_rows(self.v, lay, self.theme, self.labels, rows, show, False, under_walls)
        replay(ImageDraw.Draw(board), self.over_calls, self.over, show)
        layer = b.map_layer(self.v.map, width, self.theme)
        top = caption_top(lay)
        # No piece reaches below the last band whose key names one (rendering.band_keys), nor a mark below
        # its note: the rows between the caption's top and there are compared, pixel by pixel.
        pieces_end = _pieces_end(keys, cut) * ROWS
        marks_end = max((math.ceil(bottom) + MARGIN + 1 for _, _, bottom in self.over), default=0)
        reached = (0, top, width, min(max(pieces_end, marks_end), lay.height))
        if reached[3] > top and board.crop(reached).tobytes() != layer.crop(reached).tobytes():
            raise _Whole
        above = (0, cut, width, top)
        if self.im.crop(above).tobytes() != layer.crop(above).tobytes():
            raise _Whole
        self.im.paste(board.crop(above), above)
        return _kept_bands(board, keys[: cut // ROWS], found, lay, self.theme)


def _preview_image(
    v: GameView,
    width: int,
    theme: Theme,
    under_walls: Callable[[ImageDraw.ImageDraw, Layout], None] | None = None,
    avoid: Sequence[Box] = (),
    words: Words = ENGLISH,
) -> _Preview:
    """The board for a preview: no last-move highlight, so that the preview's own marks stand out, and no
    badge under the preview's markers (``avoid``). Drawn band by band (``_Preview``) unless this thread
    draws previews whole (``drawn_whole``); the marks drawn beneath the walls are noted for the bands'
    keys."""
    lay = layout(v.map, width, theme)
    labels = board_labels(v, lay, theme, avoid, words)
    under: list[Piece] = []
    if getattr(_whole, "on", False):
        traced = None
        if under_walls is not None:
            outline = under_walls

            def traced(d: ImageDraw.ImageDraw, lay: Layout) -> None:
                # A pen of its own on the image board_image's pen draws on (Pillow keeps it as _image).
                outline(TracedDraw(d._image, under), lay)

        im, lay = b.board_image(v, width, theme, False, traced, avoid, words)
        return _Preview(im, lay, v, theme, words, labels, under, None)
    im = b.canvas("caption", v.map, width, theme)
    cut = panel_split(lay) // ROWS * ROWS
    im.paste(b.map_layer(v.map, width, theme).crop((0, cut, width, lay.height)), (0, cut))
    under_calls: list[Call] = []
    if under_walls is not None:
        under_walls(TracedDraw(im, under, under_calls), lay)
    return _Preview(im, lay, v, theme, words, labels, under, under_calls, [], [])


def _mover(v: GameView) -> int:
    return v.viewer if v.viewer is not None else v.current


def _grid(band: Band, x0: float, x1: float, n: int, min_w: float) -> tuple[list[tuple[float, float]], int]:
    """Cells for ``n`` list entries in the band between ``x0`` and ``x1``: columns at least ``min_w`` wide,
    filled top to bottom; returns the cells' top-left corners (reading down each column) and the cell
    width. Entries beyond the cells are summed up by the caller."""
    cols = max(1, int((x1 - x0) // min_w))
    rows = band.rows()
    w = (x1 - x0) / cols
    cells = [(x0 + c * w, float(band.top + r * band.line)) for c in range(cols) for r in range(rows)]
    return cells[:n], round(w)


@_whole_if_needed
def render_move_preview(
    v: GameView,
    targets: Sequence[Target],
    symbol: Symbol | None = None,
    names: Sequence[str] | None = None,
    width: int = BOARD_WIDTH,
    theme: Theme = DEFAULT_THEME,
    *,
    words: Words = ENGLISH,
) -> bytes:
    """Every legal destination point for a target symbol (R3.2, R3.4), labelled A, B, C… (see
    ``destination_letters``), with the new walls a path there places (R3.5)."""
    pal = theme.palette
    spaces = [t.space for t in targets]
    lay = layout(v.map, width, theme)
    letters = destination_letters(targets)

    def outline(d: ImageDraw.ImageDraw, lay: Layout) -> None:
        _outline_spaces(d, spaces, lay, pal.highlight, max(3, lay.of_side(0.09)))

    avoid = [marker_box(lay.px(at), letter, lay, theme) for letter, at in letters]
    pv = _preview_image(v, width, theme, outline, avoid, words)
    im, lay, d = pv.im, pv.lay, pv.draw()
    for letter, at in letters:
        _marker(d, lay.px(at), letter, lay, theme, pal.white, pal.highlight)
    if symbol is None and targets:
        symbol = v.map.symbol.get(targets[0].space)
    all_names = player_names(v, names, theme, words)
    band = Band(im, lay, theme, words)
    head, rest = band.split(0.4, 0.6)
    title = (
        words.tr("Move: {symbol}").format(symbol=symbol_name(symbol, words)) if symbol else words.tr("Move")
    )
    head.text(title, bold=True, title=True)
    head.text(words.tr("{name}: choose a point").format(name=all_names[_mover(v)]), bold=True)
    head.text(words.tr("Alexander is at {point}").format(point=point_label(v.alexander)), colour=pal.muted)
    if not targets:
        head.text(words.tr("No empty space shows this symbol."), colour=pal.warning)
        return pv.png()
    sides = targets[0].distance
    head.text(
        words.ntr("closest: {n} side away", "closest: {n} sides away", sides).format(n=sides),
        colour=pal.muted,
    )
    options = {c.point: c for t in targets for c in t.corners}
    f, fb = font(band.size, condensed=True), font(band.size, True, condensed=True)
    cells, cw = _grid(band, rest.x0, rest.x1, len(letters), band.size * 7.4)
    if len(cells) < len(letters):
        cells = cells[:-1]
    for (x, y), (letter, pt) in zip(cells, letters, strict=False):
        c = options[pt]
        r = marker_radius(letter, lay.text(theme.sizes.point_font))[0]
        _marker(band.d, (x + r, y + band.size * 0.6), letter, lay, theme, pal.white, pal.highlight)
        tx = x + 2 * r + band.k(10)
        label = point_label(pt)
        band.d.text((tx, y), label, font=fb, fill=pal.ink)
        low, high = c.fewest_walls, c.most_walls
        walls = (
            words.ntr("{n} wall", "{n} walls", low).format(n=low)
            if low == high
            # TRANSLATORS: a path needs from {low} to {high} new walls; the form goes with {high}.
            else words.ntr("{low}–{high} wall", "{low}–{high} walls", high).format(low=low, high=high)
        )
        wx = tx + fb.getlength(label) + band.k(12)
        band.d.text(
            (wx, y),
            ellipsize(walls, band.size, round(x + cw - wx - band.k(8)), False, True),
            font=f,
            fill=pal.ink,
        )
    if len(cells) < len(letters):
        x, y = _grid(band, rest.x0, rest.x1, len(letters), band.size * 7.4)[0][len(cells)]
        more = words.tr("… {n} more").format(n=len(letters) - len(cells))
        band.d.text((x, y), more, font=f, fill=pal.muted)
    return pv.png()


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


def _clearest(spots: Sequence[XY], text: str, taken: Sequence[Box], lay: Layout, theme: Theme) -> XY:
    """The first clear spot for a marker of ``text``; failing one, the first that covers the fewest markers
    already placed (the first spot drew it right over another number, which then could not be read)."""
    best: tuple[int, XY] | None = None
    for q in spots:
        box = marker_box(q, text, lay, theme)
        covered = sum(overlap(box, o) for o in taken)
        if covered == 0:
            return q
        if best is None or covered < best[0]:
            best = (covered, q)
    assert best is not None, "a path has a side, so a spot"
    return best[1]


@_whole_if_needed
def render_path_preview(
    v: GameView,
    corner: Point | CornerOption,
    paths: Sequence[PathOption],
    names: Sequence[str] | None = None,
    width: int = BOARD_WIDTH,
    theme: Theme = DEFAULT_THEME,
    *,
    confirm: bool = False,
    ends_game: bool = False,
    words: Words = ENGLISH,
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
    lay = layout(v.map, width, theme)
    n = len(paths)
    usage: Counter[tuple[Point, Point]] = Counter()
    for opt in paths:
        for a, c in zip(opt.points, opt.points[1:], strict=False):
            usage[(min(a, c), max(a, c))] += 1
    line_w = max(4, lay.of_side(0.08))
    spread = min(lay.of_side(0.3), line_w * 1.6 * max(n - 1, 0)) if n > 1 else 0
    lines = [
        _offset_polyline([lay.px(q) for q in opt.points], (i / (n - 1) - 0.5) * spread if n > 1 else 0.0)
        for i, opt in enumerate(paths)
    ]
    # Numbers keep clear of each other, of Alexander and of the chosen point where they can.
    star = marker_box(lay.px(point), "★", lay, theme)
    taken: list[Box] = [star, square(lay.px(v.alexander), lay.of_side(theme.sizes.alexander_s * 2))]
    labels: list[tuple[XY, int]] = []
    if not confirm:
        for i, (opt, pts) in enumerate(zip(paths, lines, strict=True)):
            segs = list(zip(opt.points, opt.points[1:], strict=False))
            if not segs:
                continue
            # The number goes on a side that few other paths share, near the middle of the path.
            mid = (len(segs) - 1) / 2
            order = sorted(
                range(len(segs)), key=lambda k: (usage[(min(segs[k]), max(segs[k]))], abs(k - mid), k)
            )
            spots = [
                (pts[k][0] + (pts[k + 1][0] - pts[k][0]) * t, pts[k][1] + (pts[k + 1][1] - pts[k][1]) * t)
                for ts in ((0.5, 0.3, 0.7), (0.15, 0.85))  # the sides' ends once every middle is taken
                for k in order
                for t in ts
            ]
            text = str(i + 1)
            at = _clearest(spots, text, taken, lay, theme)
            taken.append(marker_box(at, text, lay, theme))
            labels.append((at, i))
    pv = _preview_image(v, width, theme, avoid=taken, words=words)
    im, lay, d = pv.im, pv.lay, pv.draw()
    # White casings first, under every path: dashes read against any land, and crossings stay clear.
    for pts in lines:
        _styled_polyline(d, pts, pal.white, line_w + lay.size(4), None, lay)
    for i, pts in enumerate(lines):
        colour, dash = _path_style(i, theme)
        _styled_polyline(d, pts, colour, line_w, dash, lay)
    for at, i in labels:
        _marker(d, at, str(i + 1), lay, theme, _path_style(i, theme)[0])
    _marker(d, lay.px(point), "★", lay, theme, pal.white, pal.highlight)
    who = player_names(v, names, theme, words)[_mover(v)]
    band = Band(im, lay, theme, words)
    if confirm:
        _confirm_caption(band, v, point, paths[0], who, ends_game)
        return pv.png()
    head, rest = band.split(0.4, 0.6)
    head.text(words.tr("Paths to {point}").format(point=point_label(point)), bold=True, title=True)
    head.text(words.tr("{name}: choose a path").format(name=who), bold=True)
    head.text(words.tr("from Alexander at {point}").format(point=point_label(v.alexander)), colour=pal.muted)
    if ends_game:
        head.text(words.tr("It ends the game."), bold=True, colour=pal.warning)
    if not paths:
        head.text(words.tr("No path to this point."), colour=pal.warning)
    fb = font(band.size, True, condensed=True)
    walls = [len(opt.new_walls) for opt in paths]
    # One entry a path while they fit; else one a run of paths placing as many walls ("1–9: 5 walls"), so
    # that every numbered path's walls are read here too (paths come fewest walls first: few runs).
    fits = len(_grid(band, rest.x0, rest.x1, n, band.size * 7.2)[0]) >= n
    runs = [(i, i) for i in range(n)] if fits else _runs(walls)
    cells, cw = _grid(band, rest.x0, rest.x1, len(runs), band.size * 7.2)
    shown = len(cells) if len(cells) >= len(runs) else len(cells) - 1
    for (x, y), (first, last) in zip(cells[:shown], runs, strict=False):
        r = marker_radius(str(first + 1), lay.text(theme.sizes.point_font))[0]
        cy = y + band.size * 0.6
        _marker(band.d, (x + r, cy), str(first + 1), lay, theme, _path_style(first, theme)[0])
        text = words.ntr("{n} wall", "{n} walls", walls[first]).format(n=walls[first])
        if first == last:
            colour, dash = _path_style(first, theme)
            sx = x + 2 * r + band.k(10)
            sample = band.size * 1.4
            _styled_polyline(band.d, [(sx, cy), (sx + sample, cy)], colour, line_w, dash, lay)
            tx = sx + sample + band.k(12)
        else:
            tx = x + 2 * r + band.k(8)
            band.d.text((tx, y), "–", font=fb, fill=pal.ink)
            tx += band.d.textlength("– ", font=fb)
            r_last = marker_radius(str(last + 1), lay.text(theme.sizes.point_font))[0]
            _marker(band.d, (tx + r_last, cy), str(last + 1), lay, theme, _path_style(last, theme)[0])
            tx += 2 * r_last + band.k(12)
        band.d.text(
            (tx, y), ellipsize(text, band.size, round(x + cw - tx), True, True), font=fb, fill=pal.ink
        )
    if shown < len(runs):
        x, y = cells[-1]
        more = words.tr("… {n} more").format(n=n - runs[shown][0])
        band.d.text((x, y), more, font=font(band.size, condensed=True), fill=pal.muted)
    return pv.png()


def _runs(values: Sequence[int]) -> list[tuple[int, int]]:
    """The runs of equal neighbours in ``values``, as (first index, last index)."""
    out: list[tuple[int, int]] = []
    for i, value in enumerate(values):
        if out and values[out[-1][1]] == value:
            out[-1] = (out[-1][0], i)
        else:
            out.append((i, i))
    return out


def wall_split(new_walls: int, black_left: int, red_left: int) -> tuple[int, int]:
    """R3.6, R3.7: how many black and red walls a path with ``new_walls`` new walls places: black ones
    while they last, then red ones, and no more than are left (when no move fits, as many as are left)."""
    black = min(new_walls, black_left)
    return black, min(new_walls - black, red_left)


def _confirm_caption(
    band: Band, v: GameView, point: Point, path: PathOption, who: str, ends_game: bool
) -> None:
    """The confirm form's caption: what pressing Confirm will do (R3.4–R3.6, R10.1)."""
    pal, words = band.pal, band.words
    head, walls, end = band.split(0.36, 0.32, 0.32)
    head.text(words.tr("Confirm the move"), bold=True, title=True)
    head.text(words.tr("Alexander to {point}").format(point=point_label(point)), bold=True)
    head.text(words.tr("from {point}, by {name}").format(point=point_label(v.alexander), name=who))
    black, red = wall_split(len(path.new_walls), v.black_left, v.red_left)
    if not path.new_walls:
        walls.text(words.tr("Places no wall"), bold=True)
        walls.text(words.tr("(it runs along walls)"), colour=pal.muted)
    elif not black:
        places_red = words.ntr("Places {n} red wall", "Places {n} red walls", red).format(n=red)
        walls.text(places_red, bold=True, colour=pal.warning)
    else:
        walls.text(
            words.ntr("Places {n} black wall", "Places {n} black walls", black).format(n=black), bold=True
        )
        if red:
            and_red = words.ntr("and {n} red wall", "and {n} red walls", red).format(n=red)
            walls.text(and_red, bold=True, colour=pal.warning)
    # TRANSLATORS: black walls left after this move, in a narrow column.
    walls.text(words.tr("{n} black left after it").format(n=v.black_left - black), colour=pal.muted)
    if ends_game:
        # Two lines each: the column is narrow.
        # TRANSLATORS: two lines in a narrow column: keep the line break.
        for line in words.tr("This move ends\nthe game.").split("\n"):
            end.text(line, bold=True, colour=pal.warning)
        for line in words.tr("Your actions follow,\nthen nobody plays on.").split("\n"):
            end.text(line)
    else:
        end.text(words.tr("The game goes on."), colour=pal.muted)


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


@_whole_if_needed
def render_province_preview(
    v: GameView,
    province_id: int,
    plan: OccupyPlan | None,
    names: Sequence[str] | None = None,
    width: int = BOARD_WIDTH,
    theme: Theme = DEFAULT_THEME,
    *,
    words: Words = ENGLISH,
) -> bytes:
    """A province outlined, with the guards and cards that occupying (R6.1–R6.2) or taking it over (R6.3–R6.4)
    would cost."""
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
        w = wall_width(lay, theme) + 2 * lay.of_side(theme.sizes.halo_s)
        for _, sd in boundary:
            b.thick_line(d, lay.px(sd[0]), lay.px(sd[1]), pal.highlight, w)

    lay = layout(v.map, width, theme)
    mover = _mover(v)
    ghost = lay.of_side(theme.sizes.guard_s) * 2.6
    avoid = [square(lay.centre(s), ghost) for s in (plan.guards if plan is not None else ())]
    pv = _preview_image(v, width, theme, outline, avoid, words)
    im, lay, d = pv.im, pv.lay, pv.draw()
    if plan is not None:
        for s in plan.guards:
            b.ghost_guard(d, mover, lay.centre(s), lay, theme)
    all_names = player_names(v, names, theme, words)
    band = Band(im, lay, theme, words)
    head, cost, verdict = band.split(0.33, 0.4, 0.27)
    take_over = prov.owner is not None and prov.owner != mover
    title = words.tr("Take over P{province}") if take_over else words.tr("Occupy P{province}")
    head.text(title.format(province=prov.id), bold=True, title=True)
    head.text(words.tr("worth {value}").format(value=prov.value))
    spaces = len(prov.symbol_spaces)
    head.text(words.ntr("{n} symbol space", "{n} symbol spaces", spaces).format(n=spaces), colour=pal.muted)
    if take_over and prov.owner is not None:
        x = head.mark(prov.owner)
        head.text(words.tr("held by {name}").format(name=all_names[prov.owner]), x=x)
    if plan is None:
        why = (
            words.tr("It is yours already.")
            if prov.owner == mover
            else words.tr("It has no symbol space.")
            if not prov.symbol_spaces
            else words.tr("No guard left in supply.")
        )
        cost.text(words.tr("It cannot be taken."), bold=True, colour=pal.warning)
        cost.text(why)
        return pv.png()
    x = cost.mark(mover)
    guards = len(plan.guards)
    cost.text(
        words.ntr("{name}: {n} guard", "{name}: {n} guards", guards).format(name=all_names[mover], n=guards),
        bold=True,
        x=x,
    )
    if take_over:
        cost.symbols(plan.removal, words.tr("Remove:"))
    cost.symbols(plan.cost, words.tr("Occupy:"))
    paid = total(plan.paid)
    cost.text(words.ntr("{n} card in all", "{n} cards in all", paid).format(n=paid))
    if total(plan.missing):
        verdict.text(words.tr("You lack"), bold=True, colour=pal.warning)
        verdict.symbols(plan.missing, "", colour=pal.warning)
    else:
        # TRANSLATORS: two lines in a narrow column: keep the line break.
        for line in words.tr("You can pay\nfor this.").split("\n"):
            verdict.text(line, bold=True, colour=pal.good)
    if plan.compensation and prov.owner is not None:
        x = verdict.mark(prov.owner)
        verdict.text(all_names[prov.owner], x=x, colour=pal.muted)
        back = plan.compensation
        # The taker's cards (R6.4), not the owner's own coming "back".
        gets = words.ntr("gets {n} of your cards", "gets {n} of your cards", back).format(n=back)
        verdict.text(gets, colour=pal.muted)
    return pv.png()
