"""A band's key names everything drawn across its rows (rendering.band_keys): what is left out of a key must
leave the band's pixels alone."""

from __future__ import annotations

import random
from typing import Any

import pytest
from PIL import Image, ImageChops, ImageDraw

from engine.maps import load_map
from engine.views import view
from rendering import board as B
from rendering.band_keys import MARGIN, Call, Piece, TracedDraw, _pieces, board_band_keys, replay
from rendering.fonts import font
from rendering.labels import board_labels
from rendering.layout import layout
from rendering.png import ROWS
from rendering.samples import play
from rendering.theme import DEFAULT_THEME

MAP = "tests/engine/maps/empire-2026.map"


def _changed_rows(before: Image.Image, after: Image.Image) -> tuple[int, int] | None:
    box = ImageChops.difference(before, after).getbbox()
    return None if box is None else (box[1], box[3] - 1)


def _shape(rng: random.Random, kind: int) -> tuple[str, tuple[Any, ...], dict[str, Any]]:
    """A random shape of one of the kinds a preview draws: a pen's method, its arguments."""
    x, y = rng.uniform(40, 360), rng.uniform(40, 360)
    w, h = rng.uniform(1, 60), rng.uniform(1, 60)
    width = rng.randint(1, 14)
    ink, fill = (20, 20, 30), (200, 40, 40)
    box = (x, y, x + w, y + h)
    if kind == 0:
        pts = [(x + rng.uniform(-40, 40), y + rng.uniform(-40, 40)) for _ in range(rng.randint(2, 4))]
        return "line", (pts,), {"fill": ink, "width": width, "joint": rng.choice([None, "curve"])}
    if kind == 1:
        return "ellipse", (box,), {"fill": fill, "outline": ink, "width": width}
    if kind == 2:
        return "rectangle", (box,), {"fill": fill, "outline": ink, "width": width}
    if kind == 3:
        return (
            "rounded_rectangle",
            (box,),
            {"radius": min(w, h) / 2, "fill": fill, "outline": ink, "width": width},
        )
    if kind == 4:
        pts = [(x + rng.uniform(-30, 30), y + rng.uniform(-30, 30)) for _ in range(3)]
        return "polygon", (pts,), {"fill": fill, "outline": ink, "width": width}
    f = font(rng.randint(10, 40), bold=rng.random() < 0.5, condensed=True)
    text = rng.choice(["P12", "★", "Ag", "7", "…"])
    anchor = rng.choice(["la", "mm", "ra", "ls", "md"])
    return "text", ((x, y), text), {"font": f, "fill": ink, "anchor": anchor}


def test_a_traced_mark_claims_every_row_it_draws_on() -> None:
    """Each shape a preview draws through TracedDraw (lines with joints, ellipses, rectangles, rounded
    rectangles, polygons, texts at every anchor) changes no row outside the rows it noted, with the margin
    the keys add; noted without drawing and replayed, it draws the very same pixels and notes the same."""
    rng = random.Random(7)
    blank = Image.new("RGB", (400, 400), (250, 246, 236))
    for n in range(400):
        method, args, kwargs = _shape(rng, n % 6)
        im = blank.copy()
        traced: list[Piece] = []
        getattr(TracedDraw(im, traced), method)(*args, **kwargs)
        assert traced, f"shape {n} was not noted"
        rows = _changed_rows(blank, im)
        assert rows is not None, f"shape {n} drew nothing"
        top = min(t for _, t, _ in traced) - MARGIN
        bottom = max(b for _, _, b in traced) + MARGIN
        assert top <= rows[0] and rows[1] <= bottom, (n, traced[0][0][0], rows, (top, bottom))
        noted: list[Piece] = []
        calls: list[Call] = []
        later = blank.copy()
        getattr(TracedDraw(later, noted, calls), method)(*args, **kwargs)
        assert later.tobytes() == blank.tobytes(), f"shape {n} was drawn while only noted"
        assert noted[0] == traced[0], f"shape {n} was noted otherwise"
        replay(ImageDraw.Draw(later), calls, noted, lambda _: True)
        assert later.tobytes() == im.tobytes(), f"shape {n} replayed drew other pixels"


def test_a_noting_pen_refuses_what_it_cannot_note() -> None:
    """A pen that notes its shapes for later draws nothing now: a shape it cannot note would be missing from
    the picture, so it is refused."""
    im = Image.new("RGB", (100, 100))
    box, ink = (10, 10, 50, 50), (1, 2, 3)
    refused: list[tuple[str, tuple[Any, ...]]] = [
        ("arc", (box, 0, 90)),
        ("pieslice", (box, 0, 90)),
        ("chord", (box, 0, 90)),
        ("point", ([(5, 5)],)),
        ("multiline_text", ((5, 5), "a\nb")),
    ]
    for method, args in refused:
        with pytest.raises(TypeError):
            getattr(TracedDraw(im, [], []), method)(*args, fill=ink)
    assert im.getbbox() is None, "a refused shape was drawn"


def test_a_band_whose_key_names_no_piece_shows_the_map_alone() -> None:
    """On every board of two games, a band above the panel whose key names no piece (no tint, wall, guard,
    label, Alexander or last move) has exactly the map layer's pixels: no piece reaches further than it
    claims into an empty band."""
    theme = DEFAULT_THEME
    empty = 0
    for players, seed in ((4, 31), (3, 32)):
        for state in play(load_map(MAP), players=players, seed=seed).states[::3]:
            v = view(state)
            lay = layout(v.map, 1280, theme)
            im, _ = B.board_image(v, 1280, theme)
            layer = B.map_layer(v.map, 1280, theme)
            cut = (lay.panel_top + 2) // ROWS * ROWS
            keys = board_band_keys(v, lay, theme, board_labels(v, lay, theme), ROWS, cut // ROWS)
            for k, key in enumerate(keys):
                if len(key) > 4:  # the map, the layout, the theme, the band's index: nothing more
                    continue
                empty += 1
                box = (0, k * ROWS, lay.width, (k + 1) * ROWS)
                assert im.crop(box).tobytes() == layer.crop(box).tobytes(), (seed, state.turn, k)
    assert empty > 50


def test_every_band_a_kind_of_piece_draws_on_is_claimed_by_a_piece_of_that_kind() -> None:
    """Each kind of piece drawn alone on the map layer (the tints, the last move, the region names, the
    walls, the new walls' marks, the guards, the badges and their leaders, Alexander) changes only bands
    that a piece of that kind claims (``_pieces``' rows, with the keys' margin)."""
    theme = DEFAULT_THEME
    draws = {
        "tint": lambda im, v, lay, labels: B.tint_provinces(im, v, lay, theme),
        "last": lambda im, v, lay, labels: B.draw_last_move(ImageDraw.Draw(im), v, lay, theme),
        "region": lambda im, v, lay, labels: B.draw_regions(im, labels, theme),
        "wall": lambda im, v, lay, labels: B.draw_walls(ImageDraw.Draw(im), v, lay, theme),
        "new wall's mark": lambda im, v, lay, labels: B.draw_new_wall_marks(
            ImageDraw.Draw(im), v, lay, theme
        ),
        "guard": lambda im, v, lay, labels: B.draw_guards(im, v, lay, theme),
        "badge": lambda im, v, lay, labels: B.draw_badges(im, v, labels, lay, theme),
        "alexander": lambda im, v, lay, labels: B.draw_alexander(im, v, lay, theme),
    }
    kinds = {
        "last": {"last", "start"},
        "wall": {"wall", "red wall", "red wall's dots"},
        "badge": {"leader", "badge"},
    }
    drawn = dict.fromkeys(draws, 0)
    for players, seed in ((4, 33), (2, 34)):
        for state in play(load_map(MAP), players=players, seed=seed).states[::4]:
            v = view(state)
            lay = layout(v.map, 1280, theme)
            labels = board_labels(v, lay, theme)
            layer = B.map_layer(v.map, 1280, theme).copy()
            pieces = list(_pieces(v, lay, theme, labels, True, (), ()))
            for name, draw in draws.items():
                im = layer.copy()
                draw(im, v, lay, labels)
                claimed: set[int] = set()
                for what, top, bottom in pieces:
                    if what[0] in kinds.get(name, {name}):
                        claimed.update(range(int((top - MARGIN) // ROWS), int((bottom + MARGIN) // ROWS) + 1))
                for k in range(lay.height // ROWS):
                    box = (0, k * ROWS, lay.width, (k + 1) * ROWS)
                    if im.crop(box).tobytes() != layer.crop(box).tobytes():
                        drawn[name] += 1
                        assert k in claimed, (name, seed, state.turn, k)
    assert all(drawn.values()), drawn
