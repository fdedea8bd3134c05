"""The panel band under the board: the players, the turn, the walls and cards, and the previews' captions.

The band is laid out in columns, each a flow of lines. Every line is one line of text at the phone-readable
size (``Layout.text``), cut with an ellipsis if it is too long: nothing in the band is smaller.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial

from PIL import Image, ImageDraw, ImageFont

from engine.state import ACTIONS_PER_TURN, WINNING_SCORE, ActionKind, Phase
from engine.symbols import SYMBOLS, Cards, Symbol
from engine.views import GameView
from rendering.board import thick_line
from rendering.fonts import drawable, ellipsize, font
from rendering.icons import draw_mark, symbol_icon
from rendering.layout import Layout
from rendering.theme import RGB, Theme, mix
from rendering.words import ENGLISH, Words


def action_name(kind: ActionKind, words: Words) -> str:
    """An action's name, as the status line lists the actions used."""
    names = {
        # TRANSLATORS: an action's name, in the board's status line of actions used (keep it short).
        ActionKind.TAKE_CARD: words.ptr("action", "take card"),
        ActionKind.OCCUPY: words.ptr("action", "occupy"),
        ActionKind.TAKE_OVER: words.ptr("action", "take over"),
        ActionKind.LEVY: words.ptr("action", "levy"),
        ActionKind.TAKE_BACK: words.ptr("action", "take back"),
    }
    return names.get(kind, str(kind))


def symbol_name(symbol: Symbol, words: Words) -> str:
    """A symbol's name, as a card shows it."""
    names = {
        Symbol.TEMPLE: words.ptr("symbol", "temple"),
        Symbol.AMPHORA: words.ptr("symbol", "amphora"),
        Symbol.HORSE: words.ptr("symbol", "horse"),
        Symbol.LYRE: words.ptr("symbol", "lyre"),
        Symbol.SOLDIER: words.ptr("symbol", "soldier"),
    }
    return names.get(symbol, symbol.value)


def colour_name(name: str, words: Words) -> str:
    """A seat colour's name from the theme ("Red"), capitalised in the picture's language; a colour the
    catalogs do not know stays as the theme names it."""
    names = {
        # TRANSLATORS: a seat's colour, drawn (capitalised) for a player whose name the font cannot draw.
        "red": words.ptr("colour", "red"),
        "yellow": words.ptr("colour", "yellow"),
        "blue": words.ptr("colour", "blue"),
        "green": words.ptr("colour", "green"),
    }
    said = names.get(name.lower())
    return said[:1].upper() + said[1:] if said else name


def player_names(v: GameView, names: Sequence[str] | None, theme: Theme, words: Words = ENGLISH) -> list[str]:
    """Display names by seat, less any character the font cannot draw; the colour's name stands in for a
    name that is missing or has nothing drawable left (a name in Chinese, say: it is in the bot's text)."""
    given = list(names or ())
    colours = theme.palette.player_names
    out = []
    for pl in v.players:
        name = drawable(given[pl.seat]) if pl.seat < len(given) else ""
        out.append(name or colour_name(colours[pl.seat % len(colours)], words))
    return out


def caption_top(lay: Layout) -> int:
    """The first row the panel band's texts and marks are drawn in (``Band``): nothing above it."""
    return lay.panel_top + lay.size(12)


def line_height(size: int) -> int:
    """The rows a line of text at ``size`` takes in the panel's flow, from its top to the next line's."""
    return round(size * 1.18)


class Band:
    """The panel band: its box, its text size and line height, and columns across it."""

    def __init__(self, im: Image.Image, lay: Layout, theme: Theme, words: Words = ENGLISH) -> None:
        self.im = im
        self.words = words
        self.d = ImageDraw.Draw(im)
        self.lay = lay
        self.theme = theme
        self.pal = theme.palette
        self.k = lay.size
        self.size = lay.text(theme.sizes.text_font)
        self.title = lay.text(theme.sizes.title_font)
        self.line = line_height(self.size)
        self.top = caption_top(lay)
        self.bottom = lay.height - self.k(10)
        self.left = self.k(24)
        self.right = lay.width - self.k(24)

    def rows(self) -> int:
        return max(1, (self.bottom - self.top) // self.line)

    def column(self, x0: float, x1: float) -> Column:
        return Column(self, x0, x1)

    def split(self, *fractions: float) -> list[Column]:
        """Columns across the band, ``fractions`` of its width each, with a gap between them."""
        gap = self.k(28)
        width = self.right - self.left - gap * (len(fractions) - 1)
        out, x = [], float(self.left)
        for f in fractions:
            out.append(self.column(x, x + width * f))
            x += width * f + gap
        return out


class Column:
    """A flow of one-line texts from the top of the band."""

    def __init__(self, band: Band, x0: float, x1: float) -> None:
        self.b = band
        self.x0 = x0
        self.x1 = x1
        self.y = float(band.top)

    @property
    def free_rows(self) -> int:
        return max(0, int((self.b.bottom - self.y) // self.b.line))

    def font(self, bold: bool = False, title: bool = False) -> ImageFont.FreeTypeFont:
        return font(self.b.title if title else self.b.size, bold, condensed=True)

    def text(
        self,
        text: str,
        bold: bool = False,
        colour: RGB | None = None,
        x: float | None = None,
        title: bool = False,
    ) -> None:
        """One line at the flow's position, cut with an ellipsis to the column's width."""
        size = self.b.title if title else self.b.size
        left = self.x0 if x is None else x
        fitted = ellipsize(text, size, round(self.x1 - left), bold, condensed=True)
        self.b.d.text((left, self.y), fitted, font=self.font(bold, title), fill=colour or self.b.pal.ink)
        self.y += line_height(size)

    def mark(self, seat: int, x: float | None = None) -> float:
        """A player's mark at the start of the current line; returns where the text goes on."""
        r = self.b.size * 0.36
        left = self.x0 if x is None else x
        draw_mark(
            self.b.d, seat, left + r, self.y + self.b.size * 0.6, r, self.b.theme, width=max(1, self.b.k(2))
        )
        return left + 2 * r + self.b.k(10)

    def symbols(self, cards: Cards, label: str, colour: RGB | None = None) -> None:
        """A label then each symbol with a count above zero, as icon and "×n"; "nothing" when empty."""
        b = self.b
        f = self.font()
        fb = self.font(bold=True)
        ink = colour or b.pal.ink
        b.d.text((self.x0, self.y), label, font=f, fill=ink)
        x = self.x0 + f.getlength(label) + b.k(10)
        icon = round(b.size * 1.1)
        if not any(cards):
            b.d.text((x, self.y), b.words.tr("nothing"), font=fb, fill=b.pal.muted)
        for sym, n in zip(SYMBOLS, cards, strict=True):
            if not n:
                continue
            text = f"×{n}"
            if x + icon + fb.getlength(text) > self.x1:
                if self.free_rows < 2:
                    b.d.text((x, self.y), "…", font=fb, fill=ink)
                    break
                self.y += b.line  # on to the next line, indented under the first symbol
                x = self.x0 + b.k(20)
            ic = symbol_icon(sym, icon, b.theme)
            b.im.paste(ic, (round(x), round(self.y + b.size * 0.6 - icon / 2)), ic)
            x += icon + b.k(2)
            b.d.text((x, self.y), text, font=fb, fill=ink)
            x += fb.getlength(text) + b.k(12)
        self.y += b.line


def draw_card(
    im: Image.Image,
    x: float,
    y: float,
    symbol: Symbol | None,
    w: int,
    h: int,
    theme: Theme,
    name_size: int,
    count: int | None = None,
    words: Words = ENGLISH,
) -> None:
    """A card face with its symbol and its name (at ``name_size``); ``None`` is an empty slot; ``count``
    adds a "×n" corner."""
    pal = theme.palette
    d = ImageDraw.Draw(im)
    r = max(4, w // 10)
    line = max(2, w // 40)
    if symbol is None:
        d.rounded_rectangle(
            (x, y, x + w, y + h),
            radius=r,
            fill=mix(pal.panel, pal.panel_line, 0.3),
            outline=pal.panel_line,
            width=line,
        )
        f = font(name_size, condensed=True)
        d.text((x + w / 2, y + h / 2), words.tr("empty"), font=f, fill=pal.muted, anchor="mm")
        return
    faded = count == 0
    d.rounded_rectangle(
        (x, y, x + w, y + h),
        radius=r,
        fill=pal.white,
        outline=pal.panel_line if faded else pal.ink,
        width=line,
    )
    name_h = name_size * 1.25
    band = mix(pal.symbol(symbol), pal.white, 0.55 if not faded else 0.85)
    d.rounded_rectangle(
        (x + line * 2, y + line * 2, x + w - line * 2, y + h - name_h), radius=r * 0.6, fill=band
    )
    size = round(min(w * 0.72, (h - name_h) * 0.8))
    icon = symbol_icon(symbol, size, theme)
    if faded:
        icon = icon.copy()
        icon.putalpha(icon.getchannel("A").point(lambda a: a // 4))
    im.paste(icon, (round(x + (w - size) / 2), round(y + (h - name_h) / 2 - size / 2 + line)), icon)
    f = font(name_size, condensed=True)
    d.text(
        (x + w / 2, y + h - name_h / 2 - line),
        ellipsize(symbol_name(symbol, words), name_size, w - 2 * line, condensed=True),
        font=f,
        fill=pal.muted if faded else pal.ink,
        anchor="mm",
    )
    if count is not None:
        # The count sits on the card's top-right corner, half outside, clear of the symbol.
        cs = name_size
        text = f"×{count}"
        cf = font(cs, True, condensed=True)
        tw = cf.getlength(text)
        bw, bh = tw + cs * 0.7, cs * 1.3
        cx, cy = x + w - bw * 0.35, y + bh * 0.1
        fill = pal.panel_line if faded else pal.ink
        d.rounded_rectangle(
            (cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2),
            radius=bh / 2,
            fill=fill,
            outline=pal.white,
            width=line,
        )
        d.text((cx, cy), text, font=cf, fill=pal.white, anchor="mm")


def status(v: GameView, words: Words = ENGLISH) -> str:
    """What the player on turn (marked ▶ among the players) must or may do now, and which actions they
    have used (R3, R5–R8; levy at most once, R7.1)."""
    if v.over:
        return words.tr("Game over")
    if v.phase is Phase.MOVE:
        return words.tr("Move Alexander first")
    left = ACTIONS_PER_TURN - len(v.actions_taken)
    if not v.actions_taken:
        return words.ntr("{n} action left", "{n} actions left", left).format(n=left)
    if left <= 0:
        return words.tr("No action left")
    used = ", ".join(action_name(a, words) for a in v.actions_taken)
    # TRANSLATORS: a narrow status line: {n} actions left this turn, {actions} the actions used.
    return words.tr("{n} left · used {actions}").format(n=left, actions=used)


@dataclass(frozen=True)
class PlayerRows:
    """Where the players' rows lie in their column: the first one's top and the pitch from row to row, and
    whether each row draws only within its own box (from ``k(2)`` above its top to ``k(2)`` above the next
    row's), so that a picture may keep a row's pixels while another row changes (rendering.pictures)."""

    top: int
    pitch: int
    apart: bool
    score_w: float  # the scores' column, as wide as the widest score: every row's name is cut to it

    def row_top(self, i: int) -> int:
        return self.top + i * self.pitch


def player_rows(b: Band, v: GameView) -> PlayerRows:
    """The players' rows: a line apart, or more where the band has room, so that each row keeps its ink
    (the name's descenders, the score bar under it, the highlight) off the next row's box."""
    fb = font(b.size, True, condensed=True)
    ascent, descent = fb.getmetrics()
    reach = max(ascent + descent, math.ceil(b.size * 1.08 + _bar_h(b))) + 1  # rows of ink from a row's top
    needed = reach + b.k(2)  # the next row's highlight starts k(2) above its top
    # The last row's highlight ends k(2) above the next row's top would be: it may end on the band's bottom.
    room = (b.bottom - b.top + b.k(2)) // max(len(v.players), 1)
    pitch = min(max(b.line, needed), room)
    score_w = max(fb.getlength(str(pl.score)) for pl in v.players)
    return PlayerRows(b.top, pitch, pitch >= needed, score_w)


def _bar_h(b: Band) -> int:
    return max(2, b.k(b.theme.sizes.track_h))


def players_column(c: Column, v: GameView, names: list[str], rows: PlayerRows) -> None:
    """Every player on one line: mark, name, score (with a bar to 100), guards in supply, hand size."""
    for i in range(len(v.players)):
        player_row(c, v, names, i, rows)


# The pieces of a player's row, left to right: the mark, name, score and its bar; the guards in supply; the
# hand. Each may be drawn alone (over the row's highlight), as a part of its own (``_players_parts``).
NAME, GUARDS, HAND = "name", "guards", "hand"
ROW_PIECES: frozenset[str] = frozenset((NAME, GUARDS, HAND))


def _row_xs(c: Column) -> tuple[float, float, float, float]:
    """Where a player's row puts its score (right-aligned), its guards and its hand, and the guards' width."""
    b = c.b
    gr = b.size * 0.22
    guards_w = 4 * (2 * gr + b.k(5))
    hand_x = c.x1 - (c.font().getlength("99") + b.size * 0.7)
    guards_x = hand_x - b.k(14) - guards_w
    return guards_x - b.k(14), guards_x, hand_x, guards_w


def player_row(
    c: Column, v: GameView, names: list[str], i: int, rows: PlayerRows, pieces: frozenset[str] = ROW_PIECES
) -> None:
    """The ``i``-th player's row of the players' column (``players_column``): its highlight, and the
    ``pieces`` asked for."""
    b = c.b
    pal = b.pal
    pl = v.players[i]
    winners = set(v.result.winners) if v.result else set()
    fb = c.font(bold=True)
    gr = b.size * 0.22
    top = c.y = rows.row_top(i)
    current = pl.seat == v.current and not v.over
    if current or pl.seat in winners:
        b.d.rounded_rectangle(
            (c.x0 - b.k(10), top - b.k(2), c.x1 + b.k(10), top + rows.pitch - b.k(2) - 1),
            radius=b.k(10),
            fill=mix(pal.panel, pal.player(pl.seat), 0.3),
            outline=pal.ink,
            width=b.k(2),
        )
    score_x, guards_x, hand_x, _ = _row_xs(c)
    if NAME in pieces:
        x = c.mark(pl.seat)
        prefix = "▶ " if current else ("★ " if pl.seat in winners else "")
        shown = b.words.tr("{name} (resigned)").format(name=names[pl.seat]) if pl.resigned else names[pl.seat]
        name = ellipsize(prefix + shown, b.size, round(score_x - rows.score_w - b.k(10) - x), True, True)
        b.d.text((x, top), name, font=fb, fill=pal.muted if pl.resigned else pal.ink)
        b.d.text((score_x, top), str(pl.score), font=fb, fill=pal.ink, anchor="ra")
        # The score as a bar under the name, to 100 points (R10.2).
        bar_y = top + b.size * 1.08
        bar_h = _bar_h(b)
        end = x + (score_x - x) * min(pl.score, WINNING_SCORE) / WINNING_SCORE
        b.d.rectangle((x, bar_y, score_x, bar_y + bar_h), fill=pal.white, outline=pal.panel_line)
        if pl.score:
            b.d.rectangle((x, bar_y, max(end, x + bar_h), bar_y + bar_h), fill=pal.player(pl.seat))
    if GUARDS in pieces:
        _row_guards(c, pl.seat, pl.guards_in_supply, guards_x, top + b.size * 0.6, gr)
    if HAND in pieces:
        # The hand: a small card with the number of cards in it (R2.5: the count is public).
        cw, ch = b.size * 0.42, b.size * 0.62
        cy = top + b.size * 0.6
        b.d.rounded_rectangle(
            (hand_x, cy - ch / 2, hand_x + cw, cy + ch / 2), radius=b.k(3), fill=pal.white, outline=pal.ink
        )
        b.d.text((hand_x + cw + b.k(6), top), str(pl.hand_size), font=fb, fill=pal.ink)
    c.y = top + rows.pitch


def _row_guards(c: Column, seat: int, in_supply: int, gx: float, cy: float, gr: float) -> None:
    """A row's four guards, those still in supply filled (R2.1)."""
    b = c.b
    pal = b.pal
    for k in range(4):
        supply = k < in_supply
        draw_mark(
            b.d,
            seat,
            gx + gr,
            cy,
            gr,
            b.theme,
            fill=None if supply else pal.panel,
            outline=pal.ink if supply else pal.panel_line,
            width=1,
        )
        gx += 2 * gr + b.k(5)


def walls_line(c: Column, v: GameView) -> None:
    """ "Walls" with a black and a red swatch and how many of each are left (R2.1, R3.6)."""
    b = c.b
    f, fb = c.font(), c.font(bold=True)
    walls = b.words.tr("Walls")
    b.d.text((c.x0, c.y), walls, font=f, fill=b.pal.ink)
    x = c.x0 + f.getlength(walls) + b.k(14)
    mid = c.y + b.size * 0.6
    ww = max(4, b.k(9))
    swatch = b.k(40)
    for colour, n in ((b.pal.wall, v.black_left), (b.pal.red_wall, v.red_left)):
        if colour == b.pal.red_wall:
            thick_line(b.d, (x + ww, mid), (x + swatch, mid), b.pal.wall, ww + b.k(4))
        thick_line(b.d, (x + ww, mid), (x + swatch, mid), colour, ww)
        x += swatch + b.k(10)
        b.d.text((x, c.y), str(n), font=fb, fill=b.pal.warning if n == 0 else b.pal.ink)
        x += fb.getlength(str(n)) + b.k(24)
    c.y += b.line


def face_up_cards(b: Band, x0: float, x1: float, v: GameView) -> None:
    """The two face-up cards (R2.4), as large as the band allows."""
    gap = b.k(16)
    h = b.bottom - b.top
    w = min(round((x1 - x0 - gap) / 2), h)
    for i, sym in enumerate(v.face_up[:2]):
        draw_card(b.im, x1 - (2 - i) * w - (1 - i) * gap, b.top, sym, w, h, b.theme, b.size, words=b.words)


def board_panel(
    im: Image.Image, v: GameView, lay: Layout, names: list[str], theme: Theme, words: Words = ENGLISH
) -> None:
    """The board's band: the players; the turn, the walls and the cards; the face-up cards."""
    for part in board_panel_parts(im, v, lay, names, theme, words):
        part.draw()


def panel_split(lay: Layout) -> int:
    """The first row of a board picture that is the panel's alone: below the separator line's upper half
    (walls at the map's edge may reach its lower half)."""
    return lay.panel_top + 2


Box = tuple[int, int, int, int]


@dataclass(frozen=True)
class PanelPart:
    """One part of the board's band, drawn alone within ``box``; ``facts``: everything its pixels depend on
    besides the picture's layout, theme and language (a key to keep them by)."""

    box: Box
    facts: tuple[object, ...]
    draw: Callable[[], None]


def _turn_lines(b: Band) -> tuple[int, ...]:
    """The tops of the turn column's lines (its title, status, walls, supply and discard), a line apart as
    the column's flow puts them (``Column.text``)."""
    tops, y = [], b.top
    for size in (b.title, b.size, b.size, b.size):
        tops.append(y)
        y += line_height(size)
    return tuple(tops)


@lru_cache(maxsize=1024)
def _ink_rows(text: str, size: int, bold: bool) -> tuple[int, int]:
    """The rows a line of text inks, from the row it is drawn at (its ascender's): a stack of accents
    (Vietnamese "Ấ") reaches above it."""
    box = font(size, bold, condensed=True).getbbox(text, anchor="la")
    return int(box[1]), int(box[3])


def _turn_parts(c: Column, v: GameView, box: Box) -> list[PanelPart]:
    """The turn's column (its title, status, walls, supply and discard) as a part for each line, where each
    line's ink keeps within its rows, from its top to the next line's (an action changes the status, and
    seldom another line), else as one part. A line's ink is the box FreeType draws its texts in: a deep
    descender may reach the next line's first row at some sizes ("ʝ"), a stack of accents above its own top
    ("Ấ"). The kept parts then give the pixels of the column drawn whole."""
    b, words = c.b, c.b.words
    # Turn 0 is the deal, before the first turn: a replay's first frame (it read "Turn 0").
    title = words.tr("The deal") if v.turn == 0 else words.tr("Turn {turn}").format(turn=v.turn)
    said = status(v, words)
    stock = words.tr("Supply {supply} · discard {discard}").format(
        supply=v.supply_size, discard=sum(v.discard)
    )
    # Each line: its facts, how to draw it, and its texts (text, size, bold). The walls' swatches lie across
    # the middle of their line.
    lines: tuple[tuple[tuple[object, ...], Callable[[], None], tuple[tuple[str, int, bool], ...]], ...] = (
        (("title", title), partial(c.text, title, bold=True, title=True), ((title, b.title, True),)),
        (("status", said), partial(c.text, said, bold=True), ((said, b.size, True),)),
        (
            ("walls", v.black_left, v.red_left),
            partial(walls_line, c, v),
            ((words.tr("Walls"), b.size, False), (f"{v.black_left}{v.red_left}", b.size, True)),
        ),
        (("stock", stock), partial(c.text, stock), ((stock, b.size, False),)),
    )
    x0, top, x1, bottom = box
    tops = _turn_lines(b)
    edges = [top, *tops[1:], bottom]
    inked = [(i, *_ink_rows(*text)) for i, (_, _, texts) in enumerate(lines) for text in texts]
    within = all(edges[i] <= tops[i] + high and tops[i] + low <= edges[i + 1] for i, high, low in inked)
    drawn = [partial(_at, c, tops[i], draw) for i, (_, draw, _) in enumerate(lines)]
    if not within:
        return [PanelPart(box, ("turn", *(facts for facts, _, _ in lines)), partial(_in_turn, drawn))]
    return [
        PanelPart((x0, edges[i], x1, edges[i + 1]), facts, draw)
        for i, ((facts, _, _), draw) in enumerate(zip(lines, drawn, strict=True))
    ]


def _at(c: Column, y: int, draw: Callable[[], None]) -> None:
    """``draw`` a line of ``c`` at row ``y``."""
    c.y = y
    draw()


def _in_turn(draws: Sequence[Callable[[], None]]) -> None:
    for draw in draws:
        draw()


def board_panel_parts(
    im: Image.Image,
    v: GameView,
    lay: Layout,
    names: list[str],
    theme: Theme,
    words: Words = ENGLISH,
    *,
    pieces: bool = False,
) -> list[PanelPart]:
    """The board's band in parts, which draw nothing outside their boxes: the players, the turn's lines (its
    title, status, walls, supply and discard), the face-up cards, and the legend under them. An action
    changes one or two of them: a picture keeps the others' pixels (rendering.pictures).

    ``pieces``: each player's row as three parts (``_players_parts``). Each draws the row's highlight across
    the whole row, so these parts must be cut out one by one as they are drawn, not drawn in turn on one
    picture (``board_panel``)."""
    b = Band(im, lay, theme, words)
    b.bottom = lay.legend_top
    players, turn, cards = b.split(0.38, 0.35, 0.27)
    # The boxes meet halfway across the gaps between the columns.
    left, right = round((players.x1 + turn.x0) / 2), round((turn.x1 + cards.x0) / 2)
    # The cards' outline is drawn on the band's last row, the legend's first (``legend_top``).
    top, bottom = panel_split(lay), lay.legend_top + 1
    return [
        *_players_parts(players, v, names, (0, top, left, bottom), pieces),
        *_turn_parts(turn, v, (left, top, right, bottom)),
        PanelPart(
            (right, top, lay.width, bottom),
            ("cards", v.face_up[:2]),
            lambda: face_up_cards(b, cards.x0, cards.x1, v),
        ),
        PanelPart((0, bottom, lay.width, lay.height), ("legend",), lambda: legend(b)),
    ]


def _players_parts(c: Column, v: GameView, names: list[str], box: Box, pieces: bool) -> list[PanelPart]:
    """The players' column as parts: a row each where the rows keep apart (most actions change one player's
    row: their hand, score or guards), else the column whole. With ``pieces``, each row as three parts
    side by side, each with the row's highlight: the name and score, the guards, the hand (most actions
    change one of them: a move's cards, a levy's guards)."""
    rows = player_rows(c.b, v)
    winners = v.result.winners if v.result else ()
    if not rows.apart:
        seats = tuple((p.seat, p.score, p.guards_in_supply, p.hand_size, p.resigned) for p in v.players)
        whole = ("players", seats, tuple(names), v.current, v.over, winners, rows)
        return [PanelPart(box, whole, partial(players_column, c, v, names, rows))]
    x0, top, x1, bottom = box
    edges = [top, *(rows.row_top(i) - c.b.k(2) for i in range(1, len(v.players))), bottom]
    parts = []
    if pieces:
        score_x, guards_x, hand_x, guards_w = _row_xs(c)
        # Each piece's box reaches halfway across the gaps between them.
        cuts = [x0, round((score_x + guards_x) / 2), round((guards_x + guards_w - c.b.k(5) + hand_x) / 2), x1]
    for i, p in enumerate(v.players):
        marked = (p.seat == v.current and not v.over, p.seat in winners, rows)
        if not pieces:
            row = ("player", p.seat, p.score, p.guards_in_supply, p.hand_size, p.resigned, names[p.seat])
            draw = partial(player_row, c, v, names, i, rows)
            parts.append(PanelPart((x0, edges[i], x1, edges[i + 1]), (*row, *marked), draw))
            continue
        facts: tuple[object, ...]
        for (left, right), piece, facts in zip(
            itertools.pairwise(cuts),
            (NAME, GUARDS, HAND),
            ((p.score, p.resigned, names[p.seat]), (p.guards_in_supply,), (p.hand_size,)),
            strict=True,
        ):
            draw = partial(player_row, c, v, names, i, rows, frozenset((piece,)))
            box = (left, edges[i], right, edges[i + 1])
            parts.append(PanelPart(box, (piece, p.seat, *facts, *marked), draw))
    return parts


def legend(b: Band) -> None:
    """One line under the band saying what the players' rows and the badges show: a dot for each guard left
    in supply, a card for the cards in hand, a faint badge for a province worth nothing (R4.5)."""
    d, pal, words = b.d, b.pal, b.words
    f = font(b.size, condensed=True)
    y = b.lay.legend_top + b.k(2)
    mid = y + b.size * 0.6
    gap = b.k(10)
    x = float(b.left)

    def say(text: str, last: bool = False) -> float:
        d.text((x, y), text, font=f, fill=pal.muted)
        end = x + f.getlength(text) + gap
        if not last:  # a middle dot between the entries, drawn: it is no word to translate
            dot = b.size * 0.08
            end += gap
            d.ellipse((end - dot, mid - dot, end + dot, mid + dot), fill=pal.muted)
            end += 2 * gap
        return end

    r = b.size * 0.22
    draw_mark(d, 0, x + r, mid, r, b.theme, fill=pal.ink, outline=pal.ink, width=1)
    x += 2 * r + gap
    # TRANSLATORS: the board's legend: the dots in a player's row are the guards not yet on the map.
    x = say(words.tr("guards left"))
    cw, ch = b.size * 0.42, b.size * 0.62
    card = (x, mid - ch / 2, x + cw, mid + ch / 2)
    d.rounded_rectangle(card, radius=b.k(3), fill=pal.white, outline=pal.ink)
    x += cw + gap
    # TRANSLATORS: the board's legend: the small card in a player's row and the number beside it.
    x = say(words.tr("cards in hand"))
    fb = font(b.size, bold=True, condensed=True)
    w = fb.getlength("P") + b.size * 0.5
    box = (x, mid - b.size * 0.5, x + w, mid + b.size * 0.5)
    line = max(1, b.size // 14)
    d.rounded_rectangle(box, radius=b.size * 0.3, fill=pal.panel, outline=pal.muted, width=line)
    d.text((x + w / 2, mid), "P", font=fb, fill=pal.muted, anchor="mm")
    x += w + gap
    say(words.tr("worth {value}").format(value=0), last=True)


def end_panel(
    im: Image.Image, v: GameView, lay: Layout, names: list[str], theme: Theme, words: Words = ENGLISH
) -> None:
    """The end's band: the ranking, winners first (R10.3), the players who resigned last (whatever their
    score: they are out of the game, R10.3 ranks only those still in), and why the game ended."""
    b = Band(im, lay, theme, words)
    ranking, about = b.split(0.5, 0.5)
    res = v.result
    scores = res.scores if res else tuple(pl.score for pl in v.players)
    winners = set(res.winners) if res else set()
    resigned = {pl.seat for pl in v.players if pl.resigned}
    order = sorted(range(len(v.players)), key=lambda i: (i in resigned, -scores[i], i))
    fb = ranking.font(bold=True)
    row = min(b.line, (b.bottom - b.top) // max(len(order), 1))
    for rank, seat in enumerate(order, start=1):
        top = ranking.y
        if seat in winners:
            b.d.rounded_rectangle(
                (ranking.x0 - b.k(10), top - b.k(2), ranking.x1 + b.k(10), top + row - b.k(2)),
                radius=b.k(10),
                fill=mix(b.pal.panel, b.pal.player(seat), 0.3),
                outline=b.pal.ink,
                width=b.k(2),
            )
        b.d.text((ranking.x0, top), f"{rank}.", font=fb, fill=b.pal.ink)
        x = ranking.mark(seat, ranking.x0 + fb.getlength("4.") + b.k(10))
        score = str(scores[seat])
        star = "★ " if seat in winners else ""
        name = words.tr("{name} (resigned)").format(name=names[seat]) if seat in resigned else names[seat]
        room = round(ranking.x1 - x - fb.getlength(score) - b.k(14))
        ink = b.pal.muted if seat in resigned else b.pal.ink
        b.d.text((x, top), ellipsize(star + name, b.size, room, True, True), font=fb, fill=ink)
        b.d.text((ranking.x1, top), score, font=fb, fill=b.pal.ink, anchor="ra")
        ranking.y = top + row
    reasons = {
        "walls": words.tr("The walls ran out."),
        "no-space": words.tr("Alexander had nowhere to go."),
        "points": words.tr("{points} points were reached.").format(points=WINNING_SCORE),
        "resignations": words.tr("The other players resigned."),
        "agreed": words.tr("The players agreed to end it."),
    }
    about.text(words.tr("Game over"), bold=True, title=True)
    about.text(words.ntr("after {n} turn", "after {n} turns", v.turn).format(n=v.turn), colour=b.pal.muted)
    if winners:
        won = ", ".join(names[i] for i in sorted(winners))
        label = words.tr("Winner: {names}") if len(winners) == 1 else words.tr("Shared win: {names}")
        about.text(label.format(names=won), bold=True)
    if res is not None:
        about.text(reasons.get(str(res.reason), str(res.reason)))
