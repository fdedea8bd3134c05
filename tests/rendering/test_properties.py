"""Smoke properties: random games, random maps and random names render without error, in landscape."""

from __future__ import annotations

import asyncio
import io
import random
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from engine import GameState, MapError, apply, new_game, parse_map, point_label, rules, view
from engine.geometry import corners
from engine.state import Phase
from rendering import (
    destination_letters,
    render_board,
    render_board_async,
    render_end,
    render_hand,
    render_move_preview,
    render_path_preview,
    render_province_preview,
)
from rendering.pictures import letter_for
from rendering.samples import greedy_action
from tests.rendering.games import small_map

PNG = b"\x89PNG\r\n\x1a\n"
SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
NAME = st.text(st.characters(exclude_categories=("Cs", "Cc")), max_size=40)


def _size(png: bytes) -> tuple[int, int]:
    assert png.startswith(PNG)
    with Image.open(io.BytesIO(png)) as im:
        return im.size


def _play(seed: int, players: int, steps: int) -> GameState:
    rng = random.Random(seed)
    state, _ = new_game(small_map(), players, seed)
    for _ in range(steps):
        if state.over:
            break
        state, _ = apply(state, greedy_action(state, rng))
    return state


@SETTINGS
@given(
    seed=st.integers(0, 2**16),
    players=st.integers(2, 4),
    steps=st.integers(0, 150),
    width=st.sampled_from([640, 1000]),
    names=st.lists(NAME, min_size=4, max_size=4),
)
def test_random_mid_game_views_render(
    seed: int, players: int, steps: int, width: int, names: list[str]
) -> None:
    state = _play(seed, players, steps)
    w, h = _size(render_board(view(state), names, width))
    assert (w, h) == (width, h) and w > h * 1.5
    seat = state.current
    _size(render_hand(view(state, seat), names[seat]))
    if state.over:
        _size(render_end(view(state), names, width))
        return
    mine = view(state, seat)
    rng = random.Random(seed)
    if state.phase is Phase.MOVE and rules.can_move(state):
        choice = rng.choice(rules.move_choices(state))
        targets = rules.targets(state, choice.symbol)
        _size(render_move_preview(mine, targets, choice.symbol, names, width))
        corner = rng.choice([c for t in targets for c in t.corners])
        _size(render_path_preview(mine, corner, rules.path_options(state, corner.point), names, width))
    for prov in state.provinces:
        _size(render_province_preview(mine, prov.id, rules.plan_occupation(state, seat, prov), names, width))


ROW = st.text(alphabet=".TAHLS~ ", min_size=1, max_size=30)


@SETTINGS
@given(rows=st.lists(ROW, min_size=1, max_size=25), seed=st.integers(0, 1000))
def test_any_playable_map_renders(rows: list[str], seed: int) -> None:
    rows = [r.rstrip() or "." for r in rows]
    rows[0] = "T" + rows[0][1:]  # at least one land symbol space, at (0, 0)
    text = "name: Random\nstart: A1\nlabel: Somewhere at B2\ngrid:\n" + "\n".join(rows) + "\n"
    try:
        game_map = parse_map(text)
    except MapError as err:  # land Alexander cannot reach is refused: drown it, the rest is playable
        grid = [list(r) for r in rows]
        for r, c in err.spaces:
            grid[r][c] = "~"
        text = text.split("grid:")[0] + "grid:\n" + "\n".join("".join(r) for r in grid) + "\n"
        game_map = parse_map(text)
    assert point_label(corners((0, 0))[0]) == "A1"
    state, _ = new_game(game_map, 2, seed)
    w, h = _size(render_board(view(state), ("a", "b"), 800))
    assert w > h


def test_letters_run_in_reading_order() -> None:
    assert [letter_for(i) for i in (0, 1, 25, 26, 27)] == ["A", "B", "Z", "AA", "AB"]
    states = [_play(3, 3, n) for n in range(0, 40)]
    state = next(s for s in states if s.phase is Phase.MOVE and rules.can_move(s))
    targets = rules.targets(state, rules.move_choices(state)[0].symbol)
    letters = destination_letters(targets)
    points = [p for _, p in letters]
    assert points == sorted(set(points))
    assert {c.point for t in targets for c in t.corners} == set(points)


def test_async_wrapper_gives_the_same_picture() -> None:
    v = view(_play(1, 2, 10))
    assert asyncio.run(render_board_async(v, ("x", "y"), 640)) == render_board(v, ("x", "y"), 640)


async def test_concurrent_renders_in_threads_agree() -> None:
    views = [view(_play(seed, 3, 40)) for seed in (1, 2, 3)]
    expected = [render_board(v, None, 640) for v in views]
    got = await asyncio.gather(*(render_board_async(v, None, 640) for v in views * 3))
    assert list(got) == expected * 3


def test_gallery_command_writes_every_kind_of_picture(tmp_path: Path) -> None:
    from rendering.__main__ import main
    from rendering.samples import GALLERY

    assert main(["gallery", str(tmp_path), "--width", "800"]) == 0
    names = sorted(p.stem for p in tmp_path.glob("*.png"))
    assert names == sorted(GALLERY)
    for p in tmp_path.glob("*.png"):
        w, h = _size(p.read_bytes())
        assert w > h


def test_names_the_font_cannot_draw_fall_back_to_the_colour() -> None:
    from rendering.panel import player_names
    from rendering.theme import DEFAULT_THEME

    v = view(_play(1, 2, 0))
    assert player_names(v, ("李小龍", "Zoë 🙂 Ж"), DEFAULT_THEME) == ["Red", "Zoë Ж"]
    assert player_names(v, None, DEFAULT_THEME) == ["Red", "Yellow"]


def test_the_default_maps_board_is_landscape_at_the_default_width() -> None:
    from engine import default_map, new_game
    from rendering import BOARD_WIDTH

    w, h = _size(render_board(view(new_game(default_map(), 4, 1)[0])))
    assert w == BOARD_WIDTH and w >= h * 1.3  # Discord on Android crops square pictures
