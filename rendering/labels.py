"""Where the board's labels go, so that none covers another: guards, Alexander, province badges, region names.

Guards and Alexander stand where the rules put them (R6.1, R3.4). Every province then gets one badge, its id
and (when it is occupied or can be occupied, R4.4–R4.5) its value, on the free spot that best fits:
inside the province if any spot there is clear, else on a nearby space with a leader line to the province.
Region names come last and are left out where no spot near their anchor is clear. Nothing placed here
overlaps anything else placed here; covering symbol icons and walls is allowed but avoided.

``board_labels`` returns the boxes, so tests can check them without reading pixels; the board draws from
the same list. Every text is at least the phone-readable size (``Layout.text``).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

from engine.geometry import Space
from engine.maps import Map
from engine.views import GameView, ProvinceView
from rendering.fonts import font
from rendering.layout import BOARD_WIDTH, SQRT3_2, XY, Layout, layout
from rendering.recent import Recent
from rendering.theme import DEFAULT_THEME, Theme

Box = tuple[float, float, float, float]
BADGE = "badge"
REGION = "region"
GUARD = "guard"
ALEXANDER = "alexander"
MARKER = "marker"
# What a badge over a wall costs its spot, per third of a wall it covers: walls are the game (R3.5, R4),
# so a badge moves off them, beside its province with a leader line if it must. Measured over a 4-player
# game (every 8th board): walls more than 30 % hidden by badges and leaders 238 of 569 before, 162 now.
WALL_COST = 12


@dataclass(frozen=True)
class Label:
    """One thing on the board that must stay clear of the others.

    ``size`` is the font's pixel size (0 for a piece without text); ``anchor`` is the space centre a badge
    placed outside its province points at (None when the badge sits inside it)."""

    kind: str
    box: Box
    text: str = ""
    size: int = 0
    province: int | None = None
    seat: int | None = None
    value: str = ""
    anchor: XY | None = None


def overlap(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


class _Index:
    """Boxes in grid buckets, so that a candidate is checked against its neighbours only."""

    def __init__(self, cell: float) -> None:
        self.cell = max(cell, 8.0)
        self.buckets: dict[tuple[int, int], list[Box]] = defaultdict(list)

    def _cells(self, b: Box) -> list[tuple[int, int]]:
        c = self.cell
        i0, i1, j0, j1 = int(b[0] // c), int(b[2] // c), int(b[1] // c), int(b[3] // c)
        return [(i, j) for i in range(i0, i1 + 1) for j in range(j0, j1 + 1)]

    def add(self, b: Box) -> None:
        for key in self._cells(b):
            self.buckets[key].append(b)

    def _overlapping(self, b: Box) -> Iterator[Box]:
        """The boxes that overlap ``b`` (one in several cells, as often as it is met), walking the cells in
        place: placing a board's labels asks some 2,000 times, and ``_cells``' lists were a third of it."""
        get = self.buckets.get
        c = self.cell
        x0, y0, x1, y1 = b
        j0, j1 = int(y0 // c), int(y1 // c) + 1
        for i in range(int(x0 // c), int(x1 // c) + 1):
            for j in range(j0, j1):
                for q in get((i, j), ()):
                    if x0 < q[2] and q[0] < x1 and y0 < q[3] and q[1] < y1:
                        yield q

    def hits(self, b: Box) -> bool:
        return next(self._overlapping(b), None) is not None

    def count(self, b: Box) -> int:
        return len(set(self._overlapping(b)))


def square(at: XY, size: float) -> Box:
    h = size / 2
    return (at[0] - h, at[1] - h, at[0] + h, at[1] + h)


def guard_size(lay: Layout, theme: Theme) -> int:
    return lay.of_side(theme.sizes.guard_s * 2)


def alexander_size(lay: Layout, theme: Theme) -> int:
    return max(lay.size(26), lay.of_side(theme.sizes.alexander_s * 2))


@dataclass(frozen=True)
class BadgeStyle:
    size: int  # font pixel size
    pad: int
    height: int


def badge_style(lay: Layout, theme: Theme) -> BadgeStyle:
    size = lay.text(theme.sizes.badge_font)
    pad = max(2, round(size * 0.16))
    return BadgeStyle(size, pad, round(size * 1.0))


@lru_cache(maxsize=1024)
def badge_width(text: str, value: str, st: BadgeStyle) -> float:
    f = font(st.size, bold=True, condensed=True)
    w = f.getlength(text) + 2 * st.pad
    if value:
        w += f.getlength(value) + 2 * st.pad
    return w


def shows_value(p: ProvinceView) -> bool:
    """A value matters for a province someone holds or may occupy (R4.4, R4.5)."""
    return p.owner is not None or p.can_be_occupied


@lru_cache(maxsize=16)
def _space_neighbours(m: Map) -> dict[Space, tuple[Space, ...]]:
    """Spaces sharing a side, walls or not (for looking around a province)."""
    out: dict[Space, list[Space]] = defaultdict(list)
    for spaces in m.side_spaces.values():
        for a in spaces:
            for b in spaces:
                if a != b:
                    out[a].append(b)
    return {s: tuple(sorted(set(n))) for s, n in out.items()}


@lru_cache(maxsize=16)
def _centres(m: Map, lay: Layout) -> dict[Space, XY]:
    return {s: lay.centre(s) for s in m.spaces}


def _centroid(pts: Sequence[XY]) -> XY:
    return sum(x for x, _ in pts) / len(pts), sum(y for _, y in pts) / len(pts)


def _nearby(m: Map, spaces: frozenset[Space], depth: int) -> list[tuple[int, Space]]:
    """Spaces outside ``spaces`` up to ``depth`` steps away, with their distance in steps."""
    nb = _space_neighbours(m)
    seen = set(spaces)
    frontier = sorted(spaces)
    out: list[tuple[int, Space]] = []
    for d in range(1, depth + 1):
        nxt: list[Space] = []
        for s in frontier:
            for n in nb.get(s, ()):
                if n not in seen:
                    seen.add(n)
                    nxt.append(n)
                    out.append((d, n))
        frontier = nxt
    return out


class _Placer:
    def __init__(self, v: GameView, lay: Layout, theme: Theme, avoid: Sequence[Box]) -> None:
        self.v = v
        self.lay = lay
        self.theme = theme
        self.labels: list[Label] = []
        cell = lay.side * 2
        self.hard = _Index(cell)
        self.icons = _Index(cell)
        self.walls = _Index(cell)
        left, top, right, bottom = lay.map_box
        self.frame = (float(left), float(top), float(right), float(bottom))
        for b in avoid:
            self.hard.add(b)
        guarded = {s for pl in v.players for s in pl.guards}
        icon = lay.of_side(theme.sizes.icon_s)
        centres = _centres(v.map, lay)
        for s in v.map.symbol_spaces:
            if s not in guarded:
                self.icons.add(square(centres[s], icon * 0.8))
        w = lay.of_side(theme.sizes.wall_s)
        for sd in v.walls:
            (ax, ay), (bx, by) = lay.px(sd[0]), lay.px(sd[1])
            for t in (0.2, 0.5, 0.8):  # along the whole side: a badge over a wall's end hides it too
                self.walls.add(square((ax + (bx - ax) * t, ay + (by - ay) * t), w))

    def put(self, label: Label) -> None:
        self.labels.append(label)
        self.hard.add(label.box)

    def inside_frame(self, b: Box) -> bool:
        f = self.frame
        return b[0] >= f[0] and b[1] >= f[1] and b[2] <= f[2] and b[3] <= f[3]

    def free(self, b: Box) -> bool:
        return self.inside_frame(b) and not self.hard.hits(b)

    def clamp(self, b: Box) -> Box:
        """``b`` moved the least way that puts it inside the map's frame (if it fits at all)."""
        f = self.frame
        dx = max(f[0] - b[0], 0.0) + min(f[2] - b[2], 0.0)
        dy = max(f[1] - b[1], 0.0) + min(f[3] - b[3], 0.0)
        return (b[0] + dx, b[1] + dy, b[2] + dx, b[3] + dy)

    def soft(self, b: Box) -> int:
        return 2 * self.icons.count(b) + WALL_COST * self.walls.count(b)


def _badge_candidates(
    v: GameView, p: ProvinceView, lay: Layout, limit: int = 20
) -> Iterable[tuple[XY, XY | None, float]]:
    """Candidate badge centres, best first: (centre, leader anchor or None, rank penalty). Inside the
    province first, nearest its middle first; then nearby spaces outside it, with a leader line."""
    centres = _centres(v.map, lay)
    own = [centres[s] for s in p.spaces]
    cx, cy = _centroid(own)
    inside = sorted(own, key=lambda c: ((c[0] - cx) ** 2 + (c[1] - cy) ** 2, c))[:limit]
    quarter = lay.side / 4
    sixth = lay.side * SQRT3_2 / 6
    for rank, (x, y) in enumerate(inside):
        for dx, dy in ((0.0, 0.0), (-quarter, 0.0), (quarter, 0.0), (0.0, -sixth), (0.0, sixth)):
            yield (x + dx, y + dy), None, rank * 0.25
    for depth, s in _nearby(v.map, p.spaces, 6)[: limit * 6]:
        at = centres[s]
        anchor = min(own, key=lambda c: (c[0] - at[0]) ** 2 + (c[1] - at[1]) ** 2)
        yield at, anchor, 10.0 * depth + math.dist(at, anchor) / lay.side


def _anywhere(pl: _Placer, p: ProvinceView, w: float, h: float) -> tuple[Box, XY] | None:
    """The last resort: a clear spot of the whole map near the province, searched ring by ring on a
    half-side grid around its middle (the first clear ring wins, nearest spot first)."""
    lay = pl.lay
    centres = [_centres(pl.v.map, lay)[s] for s in p.spaces]
    cx, cy = _centroid(centres)
    f = pl.frame
    step = lay.side / 2
    # The grid of centres that keep the box inside the frame, and the province's middle on it.
    nx = max(0, int((f[2] - f[0] - w) / step)) + 1
    ny = max(0, int((f[3] - f[1] - h) / step)) + 1
    ci = min(max(round((cx - f[0] - w / 2) / step), 0), nx - 1)
    cj = min(max(round((cy - f[1] - h / 2) / step), 0), ny - 1)
    for ring in range(max(nx, ny)):
        spots = [
            (f[0] + w / 2 + i * step, f[1] + h / 2 + j * step)
            for i in range(max(ci - ring, 0), min(ci + ring, nx - 1) + 1)
            for j in range(max(cj - ring, 0), min(cj + ring, ny - 1) + 1)
            if max(abs(i - ci), abs(j - cj)) == ring
        ]
        spots.sort(key=lambda q: ((q[0] - cx) ** 2 + (q[1] - cy) ** 2, q))
        for x, y in spots:
            box = (x - w / 2, y - h / 2, x + w / 2, y + h / 2)
            if pl.free(box):
                return box, min(centres, key=lambda c: math.dist(c, (x, y)))
    return None


def _place_badge(pl: _Placer, p: ProvinceView, st: BadgeStyle, inside_only: bool) -> bool:
    """Put the province's badge on its best clear spot; with ``inside_only``, only inside the province.
    Returns whether it was placed."""
    text = f"P{p.id}"
    value = str(p.value) if shows_value(p) else ""
    w = badge_width(text, value, st)
    h = st.height
    best: tuple[float, Box, XY | None] | None = None
    for (x, y), anchor, penalty in _badge_candidates(pl.v, p, pl.lay):
        if best is not None and penalty >= best[0]:
            break  # candidates come in increasing penalty; nothing later can win
        if inside_only and anchor is not None:
            break
        box = pl.clamp((x - w / 2, y - h / 2, x + w / 2, y + h / 2))
        if not pl.free(box):
            continue
        if inside_only and pl.walls.count(box):
            continue  # the first pass takes only spots clear of walls; the second weighs them (WALL_COST)
        cost = penalty + pl.soft(box)
        if best is None or cost < best[0]:
            best = (cost, box, anchor)
    if best is None and not inside_only:
        found = _anywhere(pl, p, w, h)
        if found is not None:
            best = (0.0, found[0], found[1])
    if best is None:
        return False  # better no badge than a badge over another label
    pl.put(Label(BADGE, best[1], text, st.size, province=p.id, value=value, anchor=best[2]))
    return True


@lru_cache(maxsize=1)
def _region_offsets() -> tuple[tuple[int, int], ...]:
    steps = [(dx, dy) for dy in (0, -1, 1, -2, 2) for dx in (0, -1, 1, -2, 2, -3, 3)]
    return tuple(sorted(steps, key=lambda d: (abs(d[0]) + 1.5 * abs(d[1]), d)))


def region_size(lay: Layout, theme: Theme) -> int:
    return lay.text(theme.sizes.region_font)


def _place_regions(pl: _Placer) -> None:
    lay = pl.lay
    size = region_size(lay, pl.theme)
    f = font(size, condensed=True)
    half_row = lay.side * 0.866 / 2
    for name, at in pl.v.map.labels:
        text = name.upper()
        w = f.getlength(text) + size * 0.3
        h = size * 1.05
        x0, y0 = lay.px(at)
        boxes = [
            (x - w / 2, y - h / 2, x + w / 2, y + h / 2)
            for dx, dy in _region_offsets()
            for x, y in [(x0 + dx * lay.side / 2, y0 + dy * half_row)]
        ]
        # A spot that hides no symbol space first (a name over one hid what a player may move to), then
        # the clear spot that hides the fewest, the nearest of those: one pass, nearest spots first.
        best: Box | None = None
        fewest = 0
        for b in boxes:
            if not pl.free(b):
                continue
            hidden = pl.icons.count(b)
            if best is None or hidden < fewest:
                best, fewest = b, hidden
                if not hidden:
                    break
        if best is not None:
            pl.put(Label(REGION, best, text, size))


# Boards placed lately, by everything their placement depends on: placing every badge is a quarter of
# drawing a board. Boards whose pieces did not move are kept whole (rendering.pictures.BOARDS) and never ask;
# what this serves is a picture drawn again on the same pieces, such as a preview without markers.
PLACED: Recent[tuple[object, ...], tuple[Label, ...]] = Recent(32)


def pieces(v: GameView) -> tuple[object, ...]:
    """Where everything on the board stands: Alexander, the walls, each seat's guards, the provinces (their
    owners and values). What the labels are placed around, and a cache key for what is drawn from it."""
    return (v.alexander, v.walls, tuple((p.seat, p.guards) for p in v.players), v.provinces)


def board_labels(
    v: GameView, lay: Layout, theme: Theme = DEFAULT_THEME, avoid: Sequence[Box] = ()
) -> tuple[Label, ...]:
    """Every label of the board, none overlapping another or anything in ``avoid`` (a preview's markers).
    The same pieces on the same board are labelled the same, from a bounded cache of recent boards."""
    key = (v.map, lay, theme, tuple(avoid), *pieces(v))
    found = PLACED.get(key)
    if found is None:
        found = _place_all(v, lay, theme, avoid)
        PLACED.put(key, found)
    return found


def _place_all(v: GameView, lay: Layout, theme: Theme, avoid: Sequence[Box]) -> tuple[Label, ...]:
    pl = _Placer(v, lay, theme, avoid)
    a = alexander_size(lay, theme)
    pl.put(Label(ALEXANDER, square(lay.px(v.alexander), a)))
    g = guard_size(lay, theme)
    for player in v.players:
        for s in sorted(player.guards):
            pl.put(Label(GUARD, square(lay.centre(s), g), seat=player.seat))
    st = badge_style(lay, theme)
    # Provinces whose value matters first; among them, the most cramped first.
    order = sorted(v.provinces, key=lambda p: (not shows_value(p), len(p.spaces), p.id))
    # Every badge that fits inside its province goes there first, so that no badge placed outside takes
    # the room another province needed; then the others, nearby with a leader line.
    left = [p for p in order if not _place_badge(pl, p, st, inside_only=True)]
    for p in left:
        _place_badge(pl, p, st, inside_only=False)
    _place_regions(pl)
    return tuple(pl.labels)


def label_boxes(v: GameView, width: int = BOARD_WIDTH, theme: Theme = DEFAULT_THEME) -> tuple[Label, ...]:
    """The labels of ``v``'s board picture ``width`` pixels wide (for tests)."""
    return board_labels(v, layout(v.map, width, theme), theme)


def marker_box(at: XY, text: str, lay: Layout, theme: Theme) -> Box:
    """The box of a preview's round marker (a destination letter, a path number, the chosen point)."""
    size = lay.text(theme.sizes.point_font)
    r = marker_radius(text, size)
    return (at[0] - r[0], at[1] - r[1], at[0] + r[0], at[1] + r[1])


def marker_radius(text: str, size: int) -> tuple[float, float]:
    f = font(size, bold=True, condensed=True)
    ry = size * 0.58
    return max(ry, f.getlength(text) / 2 + size * 0.2), ry
