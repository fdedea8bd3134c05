"""Read at a glance (issue 28): region names sit in free land, in the same place in every picture of one
position; no badge lies on a wall or is cut by the map's frame.

Every picture of 200 positions of whole games on both packaged maps (start, middle, end; the board, and in
the positions where a move is due its move, path and province previews) is drawn while recording what the
board draws: every thick line (walls, the last move, leader lines, preview outlines and paths), the previews'
markers and planned guards, the badges and the region names. Symbols, guards, Alexander, coasts and the sea
come from the view. A region name may touch none of them; a badge may touch no wall and must stay inside the
map's frame.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import pytest

from bot.games.pictures import words_for
from engine import GameState, apply, new_game, rules, view
from engine.ai import greedy_player
from engine.maps import Map, SideKind, packaged_map
from engine.state import Phase
from engine.views import GameView
from rendering import board as B
from rendering import pictures as P
from rendering import (
    render_board,
    render_end,
    render_move_preview,
    render_path_preview,
    render_province_preview,
)
from rendering.labels import (
    BADGE,
    REGION,
    Box,
    Label,
    alexander_size,
    guard_size,
    marker_box,
    overlap,
    square,
)
from rendering.layout import SQRT3_2, Layout, layout
from rendering.theme import DEFAULT_THEME
from rendering.words import ENGLISH, Words

WIDTH = 1000
POSITIONS = 200
GAMES = (
    ("empire", 4, 3),
    ("empire", 3, 8),
    ("empire", 2, 11),
    ("aegean", 2, 5),
    ("aegean", 3, 6),
    ("aegean", 3, 9),
)
Segment = tuple[tuple[float, float], tuple[float, float], float]  # ends and half width


@dataclass
class Drawn:
    """What one picture drew on its board."""

    regions: list[Label] = field(default_factory=list)
    badges: list[Label] = field(default_factory=list)
    lines: list[Segment] = field(default_factory=list)
    boxes: list[Box] = field(default_factory=list)


def _games() -> Iterator[tuple[Map, list[GameState]]]:
    for name, players, seed in GAMES:
        m = packaged_map(name)
        rng = random.Random(seed)
        state, _ = new_game(m, players, seed)
        states = [state]
        while not state.over and len(states) < 3000:
            state, _ = apply(state, greedy_player(state, rng))
            states.append(state)
        yield m, states


@cache
def positions() -> list[GameState]:
    """Every game's start and end, and positions where a move is due, spread evenly over the games."""
    ends: list[GameState] = []
    moving: list[GameState] = []
    for _, states in _games():
        ends += [states[0], states[-1]]
        moving += [s for s in states if s.phase is Phase.MOVE and rules.can_move(s)]
    want = POSITIONS - len(ends)
    return ends + [moving[i * len(moving) // want] for i in range(want)]


def seg_box_distance(a: tuple[float, float], b: tuple[float, float], box: Box) -> float:
    """The distance between the segment ``ab`` and the box (0 when they meet)."""
    x0, y0, x1, y1 = box
    # Clip the segment to the box (Liang-Barsky): any part inside means they meet.
    t0, t1 = 0.0, 1.0
    dx, dy = b[0] - a[0], b[1] - a[1]
    inside = True
    for p, q in ((-dx, a[0] - x0), (dx, x1 - a[0]), (-dy, a[1] - y0), (dy, y1 - a[1])):
        if p == 0:
            if q < 0:
                inside = False
                break
        else:
            t = q / p
            if p < 0:
                t0 = max(t0, t)
            else:
                t1 = min(t1, t)
    if inside and t0 <= t1:
        return 0.0

    def point_seg(px: float, py: float) -> float:
        length2 = dx * dx + dy * dy
        t = 0.0 if length2 == 0 else max(0.0, min(1.0, ((px - a[0]) * dx + (py - a[1]) * dy) / length2))
        return math.hypot(px - a[0] - t * dx, py - a[1] - t * dy)

    def point_box(px: float, py: float) -> float:
        return math.hypot(max(x0 - px, 0.0, px - x1), max(y0 - py, 0.0, py - y1))

    return min(
        point_box(*a),
        point_box(*b),
        *(point_seg(x, y) for x in (x0, x1) for y in (y0, y1)),
    )


def on_land(m: Map, lay: Layout, x: float, y: float) -> bool:
    """Whether the pixel lies on a land space."""
    h = lay.side * SQRT3_2
    fr = (y - lay.oy) / h
    r = math.floor(fr)
    t = fr - r
    u = (x - lay.ox) / (lay.side / 2)
    for c in (math.floor(u) - 1, math.floor(u)):
        up = (r + c) % 2 == 0
        lo, hi = (c + 1 - t, c + 1 + t) if up else (c + t, c + 2 - t)
        if lo <= u <= hi and (r, c) in m.spaces:
            return True
    return False


def off_land(m: Map, lay: Layout, box: Box) -> bool:
    x0, y0, x1, y1 = box
    step = lay.side / 8
    nx, ny = max(2, math.ceil((x1 - x0) / step) + 1), max(2, math.ceil((y1 - y0) / step) + 1)
    return not all(
        on_land(m, lay, x0 + (x1 - x0) * i / (nx - 1), y0 + (y1 - y0) * j / (ny - 1))
        for i in range(nx)
        for j in range(ny)
    )


def fixed_things(v: GameView, lay: Layout) -> tuple[list[Box], list[Segment]]:
    """What every picture of ``v`` draws and the recorder does not see: symbols, guards, Alexander, coasts."""
    theme = DEFAULT_THEME
    icon = lay.of_side(theme.sizes.icon_s)
    boxes = [square(lay.centre(s), icon) for s in v.map.symbol_spaces]
    g = guard_size(lay, theme)
    boxes += [square(lay.centre(s), g) for pl in v.players for s in pl.guards]
    boxes.append(square(lay.px(v.alexander), alexander_size(lay, theme)))
    line = lay.size(2) / 2
    lines = [
        (lay.px(sd[0]), lay.px(sd[1]), line)
        for sd, kind in v.map.side_kind.items()
        if kind in (SideKind.COAST, SideKind.EDGE)
    ]
    return boxes, lines


@pytest.fixture
def record(monkeypatch: pytest.MonkeyPatch) -> Callable[[Callable[[], bytes]], Drawn]:
    """Draws a picture and returns what its board drew."""
    current: list[Drawn] = []

    def spy(name: str, module: Any, note: Callable[..., None]) -> None:
        real = getattr(module, name)

        def wrapped(*args: Any, **kwargs: Any) -> Any:
            if current:
                note(current[-1], *args, **kwargs)
            return real(*args, **kwargs)

        monkeypatch.setattr(module, name, wrapped)

    def lines(d: Drawn, _: Any, a: Any, b: Any, __: Any, width: int, *rest: Any, **kw: Any) -> None:
        d.lines.append((a, b, width / 2))

    spy("thick_line", B, lines)
    spy("dashed_line", B, lines)
    spy(
        "draw_regions",
        B,
        lambda d, im, labels, *a, **k: d.regions.extend(x for x in labels if x.kind == REGION),
    )
    spy(
        "draw_badges",
        B,
        lambda d, im, v, labels, *a, **k: d.badges.extend(x for x in labels if x.kind == BADGE),
    )

    def marker(d: Drawn, _: Any, at: Any, text: str, lay: Layout, theme: Any, *a: Any, **k: Any) -> None:
        d.boxes.append(marker_box(at, text, lay, theme))

    def ghost(d: Drawn, _: Any, seat: int, at: Any, lay: Layout, theme: Any) -> None:
        r = lay.of_side(theme.sizes.guard_s) * 1.15 + (max(3, lay.size(4)) + lay.size(4)) / 2
        d.boxes.append(square(at, 2 * r))

    spy("_marker", P, marker)
    spy("ghost_guard", B, ghost)

    real_whole = P.drawn_whole

    @contextmanager
    def whole() -> Iterator[None]:
        # A preview drawn band by band was given up for its whole board: only the whole drawing shows.
        if current:
            current[-1] = Drawn()
        with real_whole():
            yield

    monkeypatch.setattr(P, "drawn_whole", whole)

    def run(draw: Callable[[], bytes]) -> Drawn:
        P.BOARDS.clear()  # a kept board is not drawn again
        P.BOARD_BANDS.clear()  # nor a band kept by its key
        current.append(Drawn())
        try:
            draw()
        finally:
            drawn = current.pop()
        return drawn

    return run


def pictures(s: GameState, words: Words = ENGLISH) -> dict[str, Callable[[], bytes]]:
    """The pictures of one position: its board (or end), and its previews when a move is due."""
    v = view(s)
    if s.over:
        return {"end": lambda: render_end(v, None, WIDTH, words=words)}
    out: dict[str, Callable[[], bytes]] = {"board": lambda: render_board(v, None, WIDTH, words=words)}
    if s.phase is not Phase.MOVE or not rules.can_move(s):
        return out
    mine = view(s, s.current)
    symbol = max(sorted({c.symbol for c in rules.move_choices(s)}), key=lambda y: len(rules.targets(s, y)))
    targets = rules.targets(s, symbol)
    corner = max((c for t in targets for c in t.corners), key=lambda c: (c.paths, c.point))
    paths = rules.path_options(s, corner.point)
    prov = max(s.provinces, key=lambda p: (len(rules.province_symbol_spaces(s, p)), p.id))
    plan = rules.plan_occupation(s, s.current, prov)
    out["move"] = lambda: render_move_preview(mine, targets, symbol, None, WIDTH, words=words)
    out["paths"] = lambda: render_path_preview(mine, corner, paths, None, WIDTH, words=words)
    out["confirm"] = lambda: render_path_preview(
        mine, corner, paths[:1], None, WIDTH, confirm=True, words=words
    )
    out["province"] = lambda: render_province_preview(mine, prov.id, plan, None, WIDTH, words=words)
    return out


def faults(v: GameView, kind: str, drawn: Drawn) -> list[str]:
    """Every region name over anything else drawn, and every badge on a wall or cut by the frame."""
    lay = layout(v.map, WIDTH, DEFAULT_THEME)
    boxes, lines = fixed_things(v, lay)
    if kind in ("board", "end") and v.last_move is not None and v.last_move.path:
        w = B.wall_width(lay, DEFAULT_THEME) + 2 * lay.of_side(DEFAULT_THEME.sizes.halo_s)
        boxes.append(square(lay.px(v.last_move.path[0]), 1.8 * w + max(2, w // 3)))
    on_board = [ln for ln in drawn.lines if min(ln[0][1], ln[1][1]) < lay.panel_top]
    lines += on_board
    boxes += [b for b in drawn.boxes if b[1] < lay.panel_top]
    out: list[str] = []
    for i, r in enumerate(drawn.regions):
        where = f"{kind}, turn {v.turn}, {r.text}"
        out += [f"name over a line: {where}" for a, b, hw in lines if seg_box_distance(a, b, r.box) < hw]
        out += [f"name over a piece or marker: {where}" for b in boxes if overlap(r.box, b)]
        out += [f"name over a badge: {where}, {b.text}" for b in drawn.badges if overlap(r.box, b.box)]
        out += [
            f"name over a name: {where}, {o.text}" for o in drawn.regions[i + 1 :] if overlap(r.box, o.box)
        ]
        if off_land(v.map, lay, r.box):
            out.append(f"name off the land: {where}")
    w = B.wall_width(lay, DEFAULT_THEME)
    walls = [
        (lay.px(sd[0]), lay.px(sd[1]), (w + (lay.size(4) if sd in v.red_walls else 0)) / 2) for sd in v.walls
    ]
    left, top, right, bottom = lay.map_box
    for b in drawn.badges:
        where = f"{kind}, turn {v.turn}, badge {b.text}"
        out += [f"badge on a wall: {where}" for a, c, hw in walls if seg_box_distance(a, c, b.box) < hw]
        x0, y0, x1, y1 = b.box
        if x0 < left or y0 < top or x1 > right or y1 > bottom:
            out.append(f"badge cut by the frame: {where}")
    return out


def test_the_positions_span_whole_games_on_both_maps() -> None:
    ps = positions()
    assert len(ps) == POSITIONS
    assert {s.map.name for s in ps} == {"Alexander's Empire", "The Aegean"}
    assert sum(s.over for s in ps) == len(GAMES) and sum(not s.walls for s in ps) >= len(GAMES)
    assert max(len(s.provinces) for s in ps) >= 20


def test_region_names_and_badges_cover_nothing_and_names_stay_put(
    record: Callable[[Callable[[], bytes]], Drawn],
) -> None:
    found: list[str] = []
    moved: list[str] = []
    names = 0
    german = words_for("de")
    # Every position in English, every fourth in German too: German names are longer.
    for i, s in enumerate(positions()):
        for words in (ENGLISH, german) if i % 4 == 0 else (ENGLISH,):
            seen: dict[str, list[tuple[str, Box]]] = {}
            for kind, draw in pictures(s, words).items():
                drawn = record(draw)
                found += faults(view(s), kind, drawn)
                seen[kind] = sorted((r.text, r.box) for r in drawn.regions)
                names += len(drawn.regions)
            first = next(iter(seen.values()))
            moved += [f"turn {s.turn}: {kind}" for kind, regions in seen.items() if regions != first]
    kinds = Counter(f.split(":")[0] for f in found)
    print(f"overlaps: {len(found)} {dict(kinds)}; pictures whose names moved: {len(moved)}; names: {names}")
    assert names > 1000  # with no name drawn, nothing would be checked
    assert not found, f"{len(found)} overlaps, such as {found[:8]}"
    assert not moved, f"{len(moved)} pictures move region names, such as {moved[:8]}"
