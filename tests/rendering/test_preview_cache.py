"""Previews drawn band by band (rendering.pictures' ``_Preview``: the board and the marks drawn only in the
bands not kept by their keys, rendering.band_keys) are the very pictures drawn on a whole board, with
nothing kept."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import Any

import pytest
from PIL import Image

from bot.games.pictures import words_for
from engine import GameState, rules, view
from engine.state import Phase
from engine.views import GameView
from rendering import board as B
from rendering import labels as L
from rendering import pictures as P
from rendering import render_move_preview, render_path_preview, render_province_preview
from rendering.labels import Box, Label
from rendering.layout import Layout, layout
from rendering.recent import Recent
from rendering.samples import play, sample_map
from rendering.theme import DEFAULT_THEME, Theme
from rendering.words import ENGLISH, Words
from tests.rendering.games import game_states


def placed_afresh(
    v: GameView, lay: Layout, theme: Theme, avoid: Sequence[Box] = (), words: Words = ENGLISH
) -> tuple[Label, ...]:
    """Labels placed afresh, without the cache of recent placings."""
    return L.place_labels(v, lay, theme, avoid, words)


def previews(
    s: GameState, width: int, theme: Theme, words: Words
) -> Iterator[tuple[str, Callable[[], bytes]]]:
    """A guided move's three previews (points, paths, confirm) and the Actions menu's province previews."""
    mine = view(s, s.current)
    for symbol in sorted({c.symbol for c in rules.move_choices(s)})[:2]:
        targets = rules.targets(s, symbol)
        yield (
            "move",
            lambda t=targets, y=symbol: render_move_preview(mine, t, y, None, width, theme, words=words),
        )
        corners = sorted((c for t in targets for c in t.corners), key=lambda c: (-c.paths, c.point))
        for corner in corners[:2]:
            paths = rules.path_options(s, corner.point)
            yield (
                "paths",
                lambda c=corner, p=paths: render_path_preview(mine, c, p, None, width, theme, words=words),
            )
            yield (
                "confirm",
                lambda c=corner, p=paths: render_path_preview(
                    mine, c, p[:1], None, width, theme, confirm=True, words=words
                ),
            )
    for prov in s.provinces[:4]:
        plan = rules.plan_occupation(s, s.current, prov)
        yield (
            "province",
            lambda i=prov.id, p=plan: render_province_preview(mine, i, p, None, width, theme, words=words),
        )


def positions(states: list[GameState], n: int) -> list[GameState]:
    moving = [s for s in states if s.phase is Phase.MOVE and not s.over and rules.can_move(s)]
    step = max(1, len(moving) // n)
    return moving[::step][:n]


def clear() -> None:
    P.BOARD_BANDS.clear()


def reference(draw: Callable[[], bytes], monkeypatch: pytest.MonkeyPatch) -> bytes:
    """The picture as drawn before anything was kept: on its whole board, its labels placed afresh, every
    band quantized and compressed."""
    with monkeypatch.context() as m:
        m.setattr(B, "board_labels", placed_afresh)
        m.setattr(P, "board_labels", placed_afresh)
        m.setattr(P, "BOARD_BANDS", Recent(0))
        with P.drawn_whole():
            return draw()


def counting_rows(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The rows each board drawn band by band was drawn in, from here on."""
    drawn: list[int] = []
    real = B.board_in_rows

    def board_in_rows(*args: Any, **kwargs: Any) -> Any:
        drawn.append(sum(bottom - top for top, bottom in args[4]))
        return real(*args, **kwargs)

    monkeypatch.setattr(B, "board_in_rows", board_in_rows)
    return drawn


@pytest.mark.parametrize("which", ["test map", "default map"])
def test_previews_drawn_band_by_band_are_the_pictures_drawn_whole(
    which: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if which == "test map":
        states, n, width = game_states(players=3, seed=5), 10, 900
    else:
        states, n, width = play(sample_map(), players=4, seed=11).states, 4, 1280
    dark = replace(DEFAULT_THEME, palette=replace(DEFAULT_THEME.palette, land=(200, 190, 150)))
    # Languages, widths and themes alternate with the bands kept: a band of another language, width or
    # theme must never be taken for this one's.
    runs = [(ENGLISH, width, DEFAULT_THEME), (words_for("de"), width, DEFAULT_THEME)]
    runs += [(ENGLISH, width, dark), (ENGLISH, width - 100, dark)]
    drawn: list[tuple[str, Callable[[], bytes], bytes]] = []
    clear()
    rows = counting_rows(monkeypatch)
    heights: list[int] = []
    for s in positions(states, n):
        for words, w, theme in runs:
            for kind, draw in previews(s, w, theme, words):
                where = f"{kind}, turn {s.turn}, {w} px, {theme.palette.land}, {words.tr('Move')}"
                fresh = reference(draw, monkeypatch)
                # The bands as every picture before left them (never cleared in this pass).
                assert draw() == fresh, f"{where}: a warm cache drew another picture"
                heights.append(Image.open(io.BytesIO(fresh)).height)
                drawn.append((where, draw, fresh))
    hits = P.BOARD_BANDS.hits
    for where, draw, fresh in drawn:
        clear()
        assert draw() == fresh, f"{where}: a cold cache drew another picture"
        assert draw() == fresh, f"{where}: the bands just kept drew another picture"
    assert hits, "no band was ever kept"
    assert len(rows) >= 3 * len(drawn), "every preview drew its board band by band"
    assert min(rows) < min(heights) / 2, "a preview with its bands kept still drew most of its board"


@pytest.mark.parametrize("caption", ["reached by the board", "drawn above its top"])
def test_a_preview_whose_rows_would_mix_is_drawn_whole(caption: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the board or a mark reaches the caption's rows, or the caption is drawn above the row it
    starts at, their order matters there: the preview is drawn again on its whole board (``_Whole``)."""
    s = positions(game_states(players=3, seed=5), 3)[-1]
    real = P.caption_top

    def moved(lay: Layout) -> int:
        return lay.panel_top - 200 if caption == "reached by the board" else lay.height - 4

    monkeypatch.setattr(P, "caption_top", moved)
    whole = 0
    real_whole = P.drawn_whole

    def counted() -> Any:
        nonlocal whole
        whole += 1
        return real_whole()

    for kind, draw in previews(s, 900, DEFAULT_THEME, ENGLISH):
        clear()
        fresh = reference(draw, monkeypatch)
        before = whole
        monkeypatch.setattr(P, "drawn_whole", counted)
        assert draw() == fresh, f"{kind}: another picture"
        monkeypatch.setattr(P, "drawn_whole", real_whole)
        assert whole == before + 1, f"{kind}: drawn band by band though its rows mix"
    assert real(layout(s.map, 900, DEFAULT_THEME)) > 0
