"""The side panel beside the board: cards, counts, walls left, the players, and preview legends."""

from __future__ import annotations

from collections.abc import Sequence

from PIL import Image, ImageDraw

from engine.state import ACTIONS_PER_TURN, WINNING_SCORE, ActionKind, Phase
from engine.symbols import SYMBOLS, Cards, Symbol
from engine.views import GameView
from rendering.board import thick_line
from rendering.fonts import drawable, ellipsize, font, text_width
from rendering.icons import draw_mark, symbol_icon
from rendering.layout import Layout
from rendering.theme import Theme, mix

ACTION_NAMES = {
    ActionKind.TAKE_CARD: "take card",
    ActionKind.OCCUPY: "occupy",
    ActionKind.TAKE_OVER: "take over",
    ActionKind.LEVY: "levy",
    ActionKind.TAKE_BACK: "take back",
}


def player_names(v: GameView, names: Sequence[str] | None, theme: Theme) -> list[str]:
    """Display names by seat, less any character the font cannot draw; the colour's name stands in for a
    name that is missing or has nothing drawable left (a name in Chinese, say: it is in the bot's text)."""
    given = list(names or ())
    out = []
    for pl in v.players:
        name = drawable(given[pl.seat]) if pl.seat < len(given) else ""
        out.append(name or theme.palette.player_names[pl.seat % len(theme.palette.player_names)])
    return out


def wrap(text: str, size: int, width: int, bold: bool = False, lines: int = 1) -> list[str]:
    """``text`` broken at spaces into at most ``lines`` lines of at most ``width`` pixels."""
    out: list[str] = []
    words = text.split(" ")
    while words and len(out) < lines - 1:
        line = words.pop(0)
        while words and text_width(f"{line} {words[0]}", size, bold) <= width:
            line += " " + words.pop(0)
        out.append(line)
    if words:
        out.append(ellipsize(" ".join(words), size, width, bold))
    return out


class Panel:
    """A vertical flow of panel content from the top of the panel area."""

    def __init__(self, im: Image.Image, lay: Layout, theme: Theme) -> None:
        self.im = im
        self.d = ImageDraw.Draw(im)
        self.lay = lay
        self.theme = theme
        self.pal = theme.palette
        self.k = lay.size
        self.x0 = lay.board_w + self.k(18)
        self.x1 = lay.width - self.k(18)
        self.y = self.k(16)

    @property
    def w(self) -> int:
        return self.x1 - self.x0

    def text(
        self,
        text: str,
        size: int,
        bold: bool = False,
        colour: tuple[int, int, int] | None = None,
        x: float | None = None,
        gap: int = 6,
        lines: int = 1,
    ) -> None:
        """Text at the flow's position, wrapped at word breaks onto up to ``lines`` lines, the last one
        cut with an ellipsis if it still does not fit."""
        px = self.k(size)
        left = self.x0 if x is None else x
        width = round(self.x1 - left)
        for k, line in enumerate(wrap(text, px, width, bold, lines)):
            if k:
                self.y += round(px * 1.2)
            self.d.text((left, self.y), line, font=font(px, bold), fill=colour or self.pal.ink)
        self.y += round(px * 1.2) + self.k(gap)

    def rule(self) -> None:
        self.y += self.k(4)
        self.d.line([(self.x0, self.y), (self.x1, self.y)], fill=self.pal.panel_line, width=self.k(2))
        self.y += self.k(10)

    def heading(self, text: str) -> None:
        self.text(text, self.theme.sizes.small_font, bold=True, colour=self.pal.muted, gap=4)


def draw_card(
    im: Image.Image,
    x: float,
    y: float,
    symbol: Symbol | None,
    w: int,
    h: int,
    theme: Theme,
    count: int | None = None,
) -> None:
    """A card face with its symbol and name; ``None`` is an empty slot; ``count`` adds a "×n" corner."""
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
        d.text((x + w / 2, y + h / 2), "empty", font=font(max(10, w // 6)), fill=pal.muted, anchor="mm")
        return
    faded = count == 0
    d.rounded_rectangle(
        (x, y, x + w, y + h),
        radius=r,
        fill=pal.white,
        outline=pal.panel_line if faded else pal.ink,
        width=line,
    )
    band = mix(pal.symbol(symbol), pal.white, 0.55 if not faded else 0.85)
    d.rounded_rectangle(
        (x + line * 2, y + line * 2, x + w - line * 2, y + h * 0.72), radius=r * 0.6, fill=band
    )
    size = round(min(w * 0.72, h * 0.5))
    icon = symbol_icon(symbol, size, theme)
    if faded:
        icon = icon.copy()
        icon.putalpha(icon.getchannel("A").point(lambda a: a // 4))
    im.paste(icon, (round(x + (w - size) / 2), round(y + h * 0.37 - size / 2)), icon)
    name_size = max(10, round(w * 0.16))
    d.text(
        (x + w / 2, y + h * 0.86),
        symbol.value,
        font=font(name_size, bold=True),
        fill=pal.muted if faded else pal.ink,
        anchor="mm",
    )
    if count is not None:
        # The count sits on the card's top-right corner, half outside, clear of the symbol.
        cs = max(12, round(w * 0.2))
        text = f"×{count}"
        f = font(cs, True)
        tw = f.getlength(text)
        bw, bh = tw + cs * 0.8, cs * 1.4
        cx, cy = x + w - bw * 0.35, y + bh * 0.1
        fill = pal.panel_line if faded else pal.ink
        d.rounded_rectangle(
            (cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2),
            radius=bh / 2,
            fill=fill,
            outline=pal.white,
            width=line,
        )
        d.text((cx, cy), text, font=f, fill=pal.white, anchor="mm")


def _status(v: GameView, names: list[str]) -> tuple[str, str]:
    """Whose turn it is and what they must do; then which actions they have used."""
    if v.over:
        return "Game over", ""
    who = names[v.current]
    if v.phase is Phase.MOVE:
        return f"{who}: move Alexander", "then up to 2 actions"
    used = ", ".join(ACTION_NAMES.get(a, str(a)) for a in v.actions_taken)
    left = ACTIONS_PER_TURN - len(v.actions_taken)
    return (
        f"{who}: {left} of {ACTIONS_PER_TURN} actions left",
        f"used: {used}" if used else "no action used yet",
    )


def cards_row(p: Panel, cards: Cards, label: str) -> None:
    """A label and five small symbol icons with a count each."""
    size = p.k(p.theme.sizes.small_font)
    f = font(size, True)
    p.d.text((p.x0, p.y + size * 0.1), label, font=f, fill=p.pal.ink)
    x = p.x0 + f.getlength(label) + p.k(10)
    icon = p.k(24)
    step = (p.x1 - x) / 5
    for sym, n in zip(SYMBOLS, cards, strict=True):
        ic = symbol_icon(sym, icon, p.theme)
        p.im.paste(ic, (round(x), round(p.y + size * 0.6 - icon / 2)), ic)
        p.d.text((x + icon + p.k(4), p.y + size * 0.1), str(n), font=f, fill=p.pal.ink if n else p.pal.muted)
        x += step
    p.y += icon + p.k(8)


def table_section(p: Panel, v: GameView) -> None:
    """Face-up cards, supply, discard pile and walls left."""
    sz = p.theme.sizes
    cw, ch = p.k(sz.card_w), p.k(sz.card_h)
    top = p.y
    p.heading("FACE-UP CARDS")
    for i, sym in enumerate(v.face_up[:2]):
        draw_card(p.im, p.x0 + i * (cw + p.k(10)), p.y, sym, cw, ch, p.theme)
    right = p.x0 + 2 * (cw + p.k(10)) + p.k(8)
    y = top
    f = font(p.k(sz.text_font))
    fb = font(p.k(sz.text_font), True)
    line = round(p.k(sz.text_font) * 1.55)
    p.d.text((right, y), "Supply", font=f, fill=p.pal.ink)
    p.d.text((p.x1, y), str(v.supply_size), font=fb, fill=p.pal.ink, anchor="ra")
    y += line
    p.d.text((right, y), "Discard", font=f, fill=p.pal.ink)
    p.d.text((p.x1, y), str(sum(v.discard)), font=fb, fill=p.pal.ink, anchor="ra")
    y += line + p.k(6)
    p.d.text((right, y), "Walls left", font=fb, fill=p.pal.muted)
    y += line
    swatch = p.k(34)
    ww = max(4, p.k(8))
    for colour, label, n in ((p.pal.wall, "black", v.black_left), (p.pal.red_wall, "red", v.red_left)):
        mid = y + p.k(sz.text_font) * 0.6
        if colour == p.pal.red_wall:
            thick_line(p.d, (right + ww, mid), (right + swatch, mid), p.pal.wall, ww + p.k(4))
        thick_line(p.d, (right + ww, mid), (right + swatch, mid), colour, ww)
        p.d.text((right + swatch + p.k(12), y), label, font=f, fill=p.pal.ink)
        p.d.text((p.x1, y), str(n), font=fb, fill=p.pal.warning if n == 0 else p.pal.ink, anchor="ra")
        y += line
    p.y = max(p.y + ch, y) + p.k(10)
    cards_row(p, v.discard, "Discarded")


def players_section(p: Panel, v: GameView, names: list[str], final: bool = False) -> None:
    """Every player: mark, name, score on a track to 100, guards in supply, hand size."""
    sz = p.theme.sizes
    tf = p.k(sz.text_font)
    sf = p.k(sz.small_font)
    winners = set(v.result.winners) if v.result else set()
    for pl in v.players:
        top = p.y
        row_h = round(tf * 1.3 + p.k(sz.track_h) + sf * 1.3 + p.k(18))
        current = pl.seat == v.current and not v.over
        if current or pl.seat in winners:
            p.d.rounded_rectangle(
                (p.x0 - p.k(8), top - p.k(4), p.x1 + p.k(8), top + row_h - p.k(6)),
                radius=p.k(8),
                fill=mix(p.pal.panel, p.pal.player(pl.seat), 0.22),
                outline=p.pal.ink,
                width=p.k(2),
            )
        r = tf * 0.45
        draw_mark(p.d, pl.seat, p.x0 + r + p.k(2), top + tf * 0.65, r, p.theme, width=max(1, p.k(2)))
        name = names[pl.seat]
        prefix = "▶ " if current else ("★ " if pl.seat in winners else "")
        suffix = " (resigned)" if pl.resigned else ""
        score = str(pl.score)
        fb = font(tf, True)
        score_w = fb.getlength(score)
        x = p.x0 + 2 * r + p.k(12)
        fitted = ellipsize(prefix + name + suffix, tf, round(p.x1 - x - score_w - p.k(12)), True)
        p.d.text((x, top), fitted, font=fb, fill=p.pal.muted if pl.resigned else p.pal.ink)
        p.d.text((p.x1, top), score, font=fb, fill=p.pal.ink, anchor="ra")
        y = top + round(tf * 1.3)
        track_h = p.k(sz.track_h)
        p.d.rounded_rectangle(
            (p.x0, y, p.x1, y + track_h),
            radius=track_h / 2,
            fill=p.pal.white,
            outline=p.pal.panel_line,
            width=1,
        )
        filled = p.x0 + (p.x1 - p.x0) * min(pl.score, WINNING_SCORE) / WINNING_SCORE
        if pl.score > 0:
            p.d.rounded_rectangle(
                (p.x0, y, max(filled, p.x0 + track_h), y + track_h),
                radius=track_h / 2,
                fill=p.pal.player(pl.seat),
                outline=p.pal.ink,
                width=1,
            )
        for tick in range(25, WINNING_SCORE, 25):
            tx = p.x0 + (p.x1 - p.x0) * tick / WINNING_SCORE
            p.d.line([(tx, y + 1), (tx, y + track_h - 1)], fill=p.pal.muted, width=1)
        y += track_h + p.k(6)
        if not final:
            f = font(sf)
            p.d.text((p.x0, y), "guards", font=f, fill=p.pal.muted)
            gx = p.x0 + f.getlength("guards") + p.k(10)
            gr = sf * 0.42
            for k in range(4):
                supply = k < pl.guards_in_supply
                draw_mark(
                    p.d,
                    pl.seat,
                    gx + gr,
                    y + sf * 0.62,
                    gr,
                    p.theme,
                    fill=None if supply else p.pal.panel,
                    outline=p.pal.ink if supply else p.pal.panel_line,
                    width=1,
                )
                gx += 2 * gr + p.k(6)
            hand = f"{pl.hand_size} card{'s' if pl.hand_size != 1 else ''} in hand"
            p.d.text((p.x1, y), hand, font=f, fill=p.pal.ink, anchor="ra")
        p.y = top + row_h


def legend(p: Panel) -> None:
    """The five symbols with their names, pinned to the bottom of the panel."""
    sf = p.k(p.theme.sizes.small_font) - p.k(2)
    icon = p.k(30)
    y = p.lay.height - icon - sf - p.k(18)
    step = (p.x1 - p.x0) / 5
    for i, sym in enumerate(SYMBOLS):
        cx = p.x0 + step * (i + 0.5)
        ic = symbol_icon(sym, icon, p.theme)
        p.im.paste(ic, (round(cx - icon / 2), round(y)), ic)
        p.d.text((cx, y + icon + p.k(3)), sym.value, font=font(sf), fill=p.pal.muted, anchor="ma")


def board_panel(im: Image.Image, v: GameView, lay: Layout, names: list[str], theme: Theme) -> None:
    p = Panel(im, lay, theme)
    p.text(f"Turn {v.turn}", theme.sizes.title_font, bold=True, gap=2)
    status, used = _status(v, names)
    p.text(status, theme.sizes.text_font, bold=True, gap=0)
    p.text(used, theme.sizes.small_font, colour=theme.palette.muted, gap=0)
    p.rule()
    table_section(p, v)
    p.rule()
    players_section(p, v, names)
    legend(p)


def colour_chip(p: Panel, x: float, y: float, seat: int) -> None:
    """A player's mark inline with text (for names in preview legends)."""
    r = p.k(p.theme.sizes.text_font) * 0.42
    draw_mark(p.d, seat, x + r, y + r * 1.4, r, p.theme, width=1)


def symbol_counts(p: Panel, cards: Cards, label: str, colour: tuple[int, int, int] | None = None) -> None:
    """A label then each symbol with a count above zero, as icon and "×n"; "nothing" when empty."""
    sz = p.theme.sizes
    tf = p.k(sz.text_font)
    f = font(tf, True)
    p.d.text((p.x0, p.y), label, font=font(tf), fill=colour or p.pal.ink)
    x = p.x0 + font(tf).getlength(label) + p.k(10)
    icon = round(tf * 1.4)
    if not any(cards):
        p.d.text((x, p.y), "nothing", font=f, fill=p.pal.muted)
    for sym, n in zip(SYMBOLS, cards, strict=True):
        if not n:
            continue
        if x + icon + f.getlength(f"×{n}") > p.x1:
            x = p.x0 + p.k(20)
            p.y += icon + p.k(6)
        ic = symbol_icon(sym, icon, p.theme)
        p.im.paste(ic, (round(x), round(p.y + tf * 0.6 - icon / 2)), ic)
        x += icon + p.k(2)
        p.d.text((x, p.y), f"×{n}", font=f, fill=colour or p.pal.ink)
        x += f.getlength(f"×{n}") + p.k(12)
    p.y += max(icon, tf) + p.k(8)


def final_section(p: Panel, v: GameView, names: list[str]) -> None:
    """The final ranking, winners first, with the reason the game ended."""
    res = v.result
    scores = res.scores if res else tuple(pl.score for pl in v.players)
    winners = set(res.winners) if res else set()
    reasons = {
        "walls": "the walls ran out",
        "no-space": "Alexander had nowhere to go",
        "points": f"{WINNING_SCORE} points were reached",
        "resignations": "the other players resigned",
        "agreed": "the players agreed to end it",
    }
    if res is not None:
        p.text(
            f"Ended because {reasons.get(str(res.reason), str(res.reason))}.",
            p.theme.sizes.small_font,
            colour=p.pal.muted,
            lines=2,
        )
    won = [names[i] for i in sorted(winners)]
    if won:
        label = "Winner" if len(won) == 1 else "Winners (shared)"
        p.text(f"{label}: {', '.join(won)}", p.theme.sizes.text_font, bold=True, lines=2)
    p.rule()
    order = sorted(range(len(v.players)), key=lambda i: (-scores[i], i))
    tf = p.k(p.theme.sizes.title_font)
    for rank, seat in enumerate(order, start=1):
        top = p.y
        if seat in winners:
            p.d.rounded_rectangle(
                (
                    p.x0 - p.k(8),
                    top - p.k(4),
                    p.x1 + p.k(8),
                    top + tf * 1.3 + p.k(p.theme.sizes.track_h) + p.k(8),
                ),
                radius=p.k(8),
                fill=mix(p.pal.panel, p.pal.player(seat), 0.3),
                outline=p.pal.ink,
                width=p.k(2),
            )
        fb = font(tf, True)
        p.d.text((p.x0, top), f"{rank}.", font=fb, fill=p.pal.ink)
        r = tf * 0.4
        mx = p.x0 + fb.getlength("4.") + p.k(10)
        draw_mark(p.d, seat, mx + r, top + tf * 0.62, r, p.theme, width=p.k(2))
        score = str(scores[seat])
        nx = mx + 2 * r + p.k(10)
        name = ellipsize(names[seat], tf, round(p.x1 - nx - fb.getlength(score) - p.k(14)), True)
        p.d.text((nx, top), name, font=fb, fill=p.pal.ink)
        p.d.text((p.x1, top), score, font=fb, fill=p.pal.ink, anchor="ra")
        y = round(top + tf * 1.3)
        track_h = p.k(p.theme.sizes.track_h)
        p.d.rounded_rectangle(
            (nx, y, p.x1, y + track_h),
            radius=track_h / 2,
            fill=p.pal.white,
            outline=p.pal.panel_line,
            width=1,
        )
        filled = nx + (p.x1 - nx) * min(scores[seat], WINNING_SCORE) / WINNING_SCORE
        if scores[seat] > 0:
            p.d.rounded_rectangle(
                (nx, y, max(filled, nx + track_h), y + track_h),
                radius=track_h / 2,
                fill=p.pal.player(seat),
                outline=p.pal.ink,
                width=1,
            )
        p.y = round(y + track_h + p.k(16))
    p.rule()


def end_panel(im: Image.Image, v: GameView, lay: Layout, names: list[str], theme: Theme) -> None:
    p = Panel(im, lay, theme)
    p.text("Game over", theme.sizes.big_font, bold=True, gap=2)
    p.text(f"after {v.turn} turns", theme.sizes.text_font, colour=theme.palette.muted, gap=4)
    final_section(p, v, names)
    legend(p)
