"""Previews drawn on a kept board (rendering.board.preview_board), with bands kept by their keys
(rendering.band_keys), are the very pictures drawn afresh."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace

import pytest

from bot.games.pictures import words_for
from engine import GameState, rules, view
from engine.state import Phase
from engine.views import GameView
from rendering import board as B
from rendering import labels as L
from rendering import pictures as P
from rendering import render_move_preview, render_path_preview, render_province_preview
from rendering.labels import Box, Label
from rendering.layout import Layout
from rendering.recent import Recent
from rendering.samples import play, sample_map
from rendering.theme import DEFAULT_THEME, Theme
from rendering.words import ENGLISH, Words
from tests.rendering.games import game_states


def uncached(
    v: object,
    width: int,
    theme: Theme,
    under_walls: object = None,
    avoid: object = (),
    words: Words = ENGLISH,
) -> object:
    """The board a preview was drawn on before boards were kept: drawn whole, every time."""
    return B.board_image(v, width, theme, False, under_walls, avoid, words)  # type: ignore[arg-type]


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
    B.PREVIEW_BOARDS.clear()
    P.BOARD_BANDS.clear()


@pytest.mark.parametrize("which", ["test map", "default map"])
def test_previews_on_kept_boards_are_the_pictures_drawn_afresh(
    which: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if which == "test map":
        states, n, width = game_states(players=3, seed=5), 10, 900
    else:
        states, n, width = play(sample_map(), players=4, seed=11).states, 4, 1280
    dark = replace(DEFAULT_THEME, palette=replace(DEFAULT_THEME.palette, land=(200, 190, 150)))
    # Languages, widths and themes alternate with the caches kept: a kept board of another language,
    # width or theme must never be taken for this one's.
    runs = [(ENGLISH, width, DEFAULT_THEME), (words_for("de"), width, DEFAULT_THEME)]
    runs += [(ENGLISH, width, dark), (ENGLISH, width - 100, dark)]
    drawn: list[tuple[str, Callable[[], bytes], bytes]] = []
    clear()
    for s in positions(states, n):
        for words, w, theme in runs:
            for kind, draw in previews(s, w, theme, words):
                where = f"{kind}, turn {s.turn}, {w} px, {theme.palette.land}, {words.tr('Move')}"
                with monkeypatch.context() as m:
                    m.setattr(B, "preview_board", uncached)
                    m.setattr(B, "board_labels", placed_afresh)
                    m.setattr(P, "BOARD_BANDS", Recent(0))  # no band kept by its key (rendering.band_keys)
                    fresh = draw()
                # The caches as every picture before left them (never cleared in this pass).
                assert draw() == fresh, f"{where}: a warm cache drew another picture"
                drawn.append((where, draw, fresh))
    hits = [B.PREVIEW_BOARDS.hits, P.BOARD_BANDS.hits]
    for where, draw, fresh in drawn:
        clear()
        assert draw() == fresh, f"{where}: a cold cache drew another picture"
        assert draw() == fresh, f"{where}: the board just kept drew another picture"
    assert all(hits), "the kept boards were never used"


def test_a_kept_board_serves_only_its_own_viewer() -> None:
    """Secrets: the key holds the viewer, so a preview copies only a board drawn from its own view."""
    s = positions(game_states(players=3, seed=5), 3)[-1]
    clear()
    targets = rules.targets(s, rules.move_choices(s)[0].symbol)
    corner = targets[0].corners[0]
    paths = rules.path_options(s, corner.point)
    render_path_preview(view(s, s.current), corner, paths, None, 900)
    render_path_preview(view(s, s.current), corner, paths, None, 900)
    assert B.PREVIEW_BOARDS.hits == 1, "the same viewer's second preview was drawn on the kept board"
    render_path_preview(view(s, (s.current + 1) % 3), corner, paths, None, 900)
    assert B.PREVIEW_BOARDS.hits == 1 and len(B.PREVIEW_BOARDS) == 2
