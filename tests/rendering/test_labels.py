"""The board's label layout: province badges, region names, guards and Alexander never overlap, every
province whose value matters shows it, and every text is readable on a phone.

The layout is checked from its boxes (``rendering.labels.label_boxes``), not from pixels, on every state
of 50 seeded games on the default map played by the engine's computer players.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from functools import cache

import pytest
from PIL import Image

from engine import GameState, apply, default_map, new_game, view
from engine.ai import PLAYERS
from engine.geometry import Side
from engine.state import Phase
from engine.views import GameView
from rendering.labels import (
    BADGE,
    GUARD,
    REGION,
    Label,
    board_labels,
    label_boxes,
    marker_box,
    overlap,
    shows_value,
)
from rendering.layout import Layout, layout, min_text_px
from rendering.theme import DEFAULT_THEME

WIDTH = 1600
GAMES = 50


def game_states(seed: int) -> Iterator[GameState]:
    """Every state of one seeded game: 2 to 4 players, a greedy computer player in one seat (in most
    games) and random ones in the others."""
    players = 2 + seed % 3
    seats = [PLAYERS["greedy" if i == seed % 4 else "random"] for i in range(players)]
    rng = random.Random(seed)
    state, _ = new_game(default_map(), players, seed)
    yield state
    while state.phase is not Phase.OVER and state.turn < 400:
        state, _ = apply(state, seats[state.current](state, rng))
        yield state


def board_key(v: GameView) -> tuple[object, ...]:
    """What the layout depends on: two states with the same key have the same labels."""
    provinces = tuple((p.id, p.spaces, p.value, p.owner, p.can_be_occupied) for p in v.provinces)
    return (v.walls, v.alexander, tuple(p.guards for p in v.players), provinces)


@cache
def boards() -> list[tuple[GameView, tuple[Label, ...]]]:
    """Every distinct board of the games, with its labels."""
    seen: set[tuple[object, ...]] = set()
    out = []
    for seed in range(GAMES):
        for state in game_states(seed):
            v = view(state)
            key = board_key(v)
            if key not in seen:
                seen.add(key)
                out.append((v, label_boxes(v, WIDTH)))
    return out


def clashes(labels: tuple[Label, ...]) -> list[tuple[Label, Label]]:
    """Every pair of overlapping labels (a sweep along x)."""
    ordered = sorted(labels, key=lambda lab: lab.box[0])
    out = []
    for i, a in enumerate(ordered):
        for b in ordered[i + 1 :]:
            if b.box[0] >= a.box[2]:
                break
            if overlap(a.box, b.box):
                out.append((a, b))
    return out


def test_the_games_reach_crowded_boards() -> None:
    views = [v for v, _ in boards()]
    assert len(views) > 1000
    assert max(len(v.provinces) for v in views) >= 25
    assert max(sum(len(p.guards) for p in v.players) for v in views) >= 10


def test_no_label_overlaps_another_on_any_board() -> None:
    for v, labels in boards():
        bad = clashes(labels)
        assert not bad, f"turn {v.turn}: {bad[0][0]} overlaps {bad[0][1]}"


def test_every_province_shows_its_badge_and_every_value_that_matters() -> None:
    for v, labels in boards():
        badges = {lab.province: lab for lab in labels if lab.kind == BADGE}
        assert set(badges) == {p.id for p in v.provinces}, f"turn {v.turn}: a province has no badge"
        for p in v.provinces:
            assert badges[p.id].text == f"P{p.id}"
            # Issue 28: a province worth nothing shows a faint badge of its id alone.
            worthless = shows_value(p) and p.value == 0
            assert badges[p.id].faint == worthless
            assert badges[p.id].value == (str(p.value) if shows_value(p) and not worthless else "")
        guards = sum(len(pl.guards) for pl in v.players)
        assert sum(lab.kind == GUARD for lab in labels) == guards


def test_labels_stay_inside_the_map_and_are_readable_on_a_phone() -> None:
    lay = layout(default_map(), WIDTH, DEFAULT_THEME)
    left, top, right, bottom = lay.map_box
    for _, labels in boards():
        for lab in labels:
            if lab.kind in (BADGE, REGION):  # pieces stand where the rules put them
                x0, y0, x1, y1 = lab.box
                assert left <= x0 and x1 <= right and top <= y0 and y1 <= bottom, lab
                assert lab.size * 400 / WIDTH >= 11, lab


@pytest.mark.parametrize("width", [640, 1000, 1600, 1618])
def test_the_readable_minimum_is_never_rounded_down(width: int) -> None:
    assert min_text_px(width) * 400 / width >= 11
    assert (min_text_px(width) - 1) * 400 / width < 11


def test_the_clash_check_sees_a_clash() -> None:
    a = Label(BADGE, (0, 0, 10, 10), "P1", 44, province=1)
    b = Label(REGION, (9, 9, 20, 20), "X", 44)
    c = Label(GUARD, (10, 0, 20, 9))
    assert clashes((a, b, c)) == [(a, b)]


@pytest.mark.parametrize("width", [1280, 900])
def test_no_overlap_at_other_widths(width: int) -> None:
    for v, _ in boards()[::10]:
        labels = label_boxes(v, width)
        bad = clashes(labels)
        assert not bad, f"{width} px, turn {v.turn}: {bad[0][0]} overlaps {bad[0][1]}"
        assert {lab.province for lab in labels if lab.kind == BADGE} == {p.id for p in v.provinces}


def test_labels_keep_clear_of_a_previews_markers() -> None:
    lay = layout(default_map(), WIDTH, DEFAULT_THEME)
    rng = random.Random(4)
    for v, _ in boards()[::25]:
        points = rng.sample(sorted(v.map.points), 8)
        markers = [marker_box(lay.px(p), "A", lay, DEFAULT_THEME) for p in points]
        labels = board_labels(v, lay, DEFAULT_THEME, avoid=markers)
        # Region names are placed from the position alone, clear of where a preview's markers can be (the
        # corners of the move's targets), not of these made-up ones: test_glance checks them.
        for lab in labels:
            if lab.kind == BADGE:
                assert not any(overlap(lab.box, m) for m in markers), lab


def test_recent_boards_keep_their_labels_and_changed_boards_are_placed_anew() -> None:
    """The placement cache is invisible: on every state of three games the labels are what placing them
    afresh gives; a state that shows the same pieces as the one before (a card taken, a levy, a turn ended)
    reuses its labels, and one whose walls, guards or Alexander changed is placed anew."""
    from rendering.labels import PLACED, _place_all

    lay = layout(default_map(), WIDTH, DEFAULT_THEME)
    reused = placed = 0
    for seed in range(3):
        PLACED.clear()
        previous: tuple[GameView, tuple[Label, ...]] | None = None
        for state in game_states(seed):
            v = view(state)
            labels = board_labels(v, lay, DEFAULT_THEME)
            assert labels == _place_all(v, lay, DEFAULT_THEME, ())
            if previous is not None:
                same = (v.alexander, v.walls, [p.guards for p in v.players], v.provinces) == (
                    previous[0].alexander,
                    previous[0].walls,
                    [p.guards for p in previous[0].players],
                    previous[0].provinces,
                )
                assert (labels is previous[1]) == same
                reused += same
                placed += not same
            previous = (v, labels)
    assert reused > 0 and placed > 0


def _wall_pixels(im: Image.Image, lay: Layout, sd: Side, n: int = 40) -> list[object]:
    (ax, ay), (bx, by) = lay.px(sd[0]), lay.px(sd[1])
    ts = [0.15 + 0.7 * k / n for k in range(n + 1)]
    return [im.getpixel((round(ax + (bx - ax) * t), round(ay + (by - ay) * t))) for t in ts]


def test_r4_walls_show_through_region_names(monkeypatch: pytest.MonkeyPatch) -> None:
    """Walls are the game: a region name sits on the lattice's lines, and its pale halo painted over the
    walls under it (up to 93 % of a wall, the last move's too). Names now go beneath the walls."""
    from rendering import board as B
    from rendering.theme import DEFAULT_THEME

    # Late boards that still have room for a name (issue 28: a name goes only where it covers nothing).
    late = [v for v, labels in boards() if len(v.walls) > 20 and any(x.kind == REGION for x in labels)][-3:]
    assert late
    draw_regions = B.draw_regions
    for v in late:
        named, lay = B.board_image(v, 1280, DEFAULT_THEME)
        monkeypatch.setattr(B, "draw_regions", lambda *a, **k: None)
        unnamed, _ = B.board_image(v, 1280, DEFAULT_THEME)
        monkeypatch.setattr(B, "draw_regions", draw_regions)
        assert named.tobytes() != unnamed.tobytes()  # there are names to draw
        for sd in v.walls:
            assert _wall_pixels(named, lay, sd) == _wall_pixels(unnamed, lay, sd)


def _names_placed_against_every_line(v: GameView, lay: Layout) -> list[tuple[str, tuple[float, ...]]]:
    """The region names as placed before each free box kept what would cover it (the reference): every
    wall, every side of every shortest path to a target's corners (R3.4, found by walking the paths), the
    targets' outlines and letters, Alexander and the last move, in one index, each box asked of all."""
    import rendering.labels as L
    from engine.geometry import corners, side

    theme = DEFAULT_THEME
    m = v.map
    cell = lay.side * 2
    boxes, lines = L._Index(cell), L._Lines(cell)
    boxes.add(L.square(lay.px(v.alexander), L.alexander_size(lay, theme) + 2))
    band = L.wall_width(lay, theme) + 2 * lay.of_side(theme.sizes.halo_s)
    outline = L._outline(lay, theme)
    for sd in v.walls:
        lines.add(lay.px(sd[0]), lay.px(sd[1]), outline)
    lm = v.last_move
    if lm is not None and lm.path:
        boxes.add(L.square(lay.px(lm.path[0]), 1.8 * band + max(2, band // 3) + 2))
        for p, q in zip(lm.path, lm.path[1:], strict=False):
            lines.add(lay.px(p), lay.px(q), outline)
    targets = L._targets(v)
    size = lay.text(theme.sizes.point_font)
    radii = (L.marker_radius("AA", size), L.marker_radius("★", size))
    letter = (max(r[0] for r in radii), max(r[1] for r in radii))
    line_w = max(4, lay.of_side(0.08))
    path = lay.of_side(0.3) / 2 + max(line_w / 2 + lay.size(4), *L.marker_radius("88", size)) + 1
    for end in {p for s in targets for p in corners(s)}:
        to_end, frontier = m.distance[end], {v.alexander}
        while frontier:
            step = {q for p in frontier for q in m.adjacent[p] if to_end[q] == to_end[p] - 1}
            for p in frontier:
                for q in m.adjacent[p]:
                    if q in step and to_end[q] == to_end[p] - 1:
                        sd = side(p, q)
                        lines.add(lay.px(sd[0]), lay.px(sd[1]), path)
            frontier = step
    target_line = max(3, lay.of_side(0.09)) / 2 + 1
    for t in targets:
        pts = lay.tri(t)
        for a, b in zip(pts, pts[1:] + pts[:1], strict=True):
            lines.add(a, b, target_line)
        for x, y in pts:
            boxes.add((x - letter[0] - 1, y - letter[1] - 1, x + letter[0] + 1, y + letter[1] + 1))
    out = []
    for i, (name, _) in enumerate(m.labels):
        for text, w, h in L._name_layouts(L.region_name(name, L.ENGLISH).upper(), L.region_size(lay, theme)):
            free = L._free_of_the_map(m, lay, theme, i, w, h)
            found = next((b for b in free if not boxes.hits(b) and not lines.hits(b)), None)
            if found is not None:
                out.append((text, found))
                boxes.add(found)
                break
    return out


@pytest.mark.parametrize("width", [900, 1280])
def test_r3_4_region_names_are_placed_as_if_every_line_of_the_position_were_asked(width: int) -> None:
    """A name's free boxes keep the sides and spaces whose drawing would cover them (``_NameSpot``): on
    every state of whole games, the names are those placed against every wall, path, target, Alexander and
    last move of the position built whole."""
    import rendering.labels as L

    m = default_map()
    lay = layout(m, width, DEFAULT_THEME)
    placed = 0
    for seed in (1, 2):
        for state in game_states(seed):
            v = view(state)
            got = [(lab.text, lab.box) for lab in L._place_names(v, lay, DEFAULT_THEME, L.ENGLISH)]
            assert got == _names_placed_against_every_line(v, lay)
            placed += len(got)
    assert placed > 100
