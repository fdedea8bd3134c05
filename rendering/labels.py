"""Where the board's labels go, so that none covers another: region names, guards, Alexander, province badges.

Region names come first, and are placed from the position's public facts alone, so that every picture of one
position (the board and its previews) shows them in the same place: each name sits on free land of its
region, clear of everything any picture of that position may draw there (symbols and the guards a preview
plans on them, walls, coasts, Alexander, the previews' target outlines, letters and paths); split over two
lines, or left out, where it fits nowhere. Guards and Alexander stand where the rules put them (R6.1, R3.4).
Every province then gets one badge, its id and (when it is occupied or can be occupied, R4.4–R4.5) its value,
on the free spot that best fits: inside the province if any spot there is clear, else on a nearby space with
a leader line to the province. A badge never lies on a wall or outside the map's frame; a province worth
nothing gets a faint badge with its id alone. Nothing placed here overlaps anything else placed here.

``board_labels`` returns the boxes, so tests can check them without reading pixels; the board draws from
the same list. Every text is at least the phone-readable size (``Layout.text``).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

from engine.geometry import Point, Side, Space, corners
from engine.maps import Map, SideKind
from engine.rules import empty_symbol_spaces
from engine.symbols import Symbol
from engine.views import GameView, ProvinceView
from rendering.fonts import font
from rendering.layout import BOARD_WIDTH, SQRT3_2, XY, Layout, layout
from rendering.recent import Recent
from rendering.theme import DEFAULT_THEME, Theme
from rendering.words import ENGLISH, Words

Box = tuple[float, float, float, float]
BADGE = "badge"
REGION = "region"
GUARD = "guard"
ALEXANDER = "alexander"
MARKER = "marker"
Segment = tuple[XY, XY, float]  # a drawn line: its ends and half its width


@dataclass(frozen=True)
class Label:
    """One thing on the board that must stay clear of the others.

    ``size`` is the font's pixel size (0 for a piece without text); ``anchor`` is the space centre a badge
    placed outside its province points at (None when the badge sits inside it); ``faint`` marks the badge of
    a province worth nothing. A region name's ``text`` may hold two lines."""

    kind: str
    box: Box
    text: str = ""
    size: int = 0
    province: int | None = None
    seat: int | None = None
    value: str = ""
    anchor: XY | None = None
    faint: bool = False


def overlap(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


class _Index:
    """Boxes in grid buckets, so that a candidate is checked against its neighbours only."""

    def __init__(self, cell: float) -> None:
        self.cell = max(cell, 8.0)
        self.buckets: dict[tuple[int, int], list[Box]] = defaultdict(list)

    def add(self, b: Box) -> None:
        c = self.cell
        buckets = self.buckets
        j0, j1 = int(b[1] // c), int(b[3] // c) + 1
        for i in range(int(b[0] // c), int(b[2] // c) + 1):
            for j in range(j0, j1):
                buckets[i, j].append(b)

    def _overlapping(self, b: Box, first: bool = False) -> list[Box]:
        """The boxes that overlap ``b`` (one in several cells, as often as it is met), or with ``first`` only
        the first met, walking the cells in place: placing a board's labels asks some 2,000 times, and
        lists of the cells were a third of it, then a generator's set-up most of what was left."""
        get = self.buckets.get
        c = self.cell
        x0, y0, x1, y1 = b
        j0, j1 = int(y0 // c), int(y1 // c) + 1
        out: list[Box] = []
        for i in range(int(x0 // c), int(x1 // c) + 1):
            for j in range(j0, j1):
                for q in get((i, j), ()):
                    if x0 < q[2] and q[0] < x1 and y0 < q[3] and q[1] < y1:
                        out.append(q)
                        if first:
                            return out
        return out

    def hits(self, b: Box) -> bool:
        return bool(self._overlapping(b, first=True))

    def count(self, b: Box) -> int:
        return len(set(self._overlapping(b)))


def seg_box_near(a: XY, b: XY, box: Box, half: float) -> bool:
    """Whether the segment ``ab`` comes nearer the box than ``half`` (0 when they meet): the least of the
    distances, found by stopping at the first one under ``half`` (the placer asks some 40 times a badge)."""
    if _meets(a, b, box):
        return 0.0 < half
    return any(d < half for d in _corner_distances(a, b, box))


def _meets(a: XY, b: XY, box: Box) -> bool:
    """Whether the segment ``ab`` crosses or touches the box (Liang-Barsky clipping)."""
    x0, y0, x1, y1 = box
    dx, dy = b[0] - a[0], b[1] - a[1]
    t0, t1 = 0.0, 1.0
    meets = True
    for p, q in ((-dx, a[0] - x0), (dx, x1 - a[0]), (-dy, a[1] - y0), (dy, y1 - a[1])):
        if p == 0:
            meets = meets and q >= 0
        elif p < 0:
            t0 = max(t0, q / p)
        else:
            t1 = min(t1, q / p)
    return meets and t0 <= t1


def _corner_distances(a: XY, b: XY, box: Box) -> Iterator[float]:
    """The distances whose least is the segment's from a box it does not meet: from each end to the box,
    and from each corner of the box to the segment."""
    x0, y0, x1, y1 = box
    dx, dy = b[0] - a[0], b[1] - a[1]
    for px, py in (a, b):
        yield math.hypot(max(x0 - px, 0.0, px - x1), max(y0 - py, 0.0, py - y1))
    length2 = dx * dx + dy * dy
    for px in (x0, x1):
        for py in (y0, y1):
            t = 0.0 if length2 == 0 else max(0.0, min(1.0, ((px - a[0]) * dx + (py - a[1]) * dy) / length2))
            yield math.hypot(px - a[0] - t * dx, py - a[1] - t * dy)


class _Lines:
    """Drawn lines with their widths, in grid buckets: which of them a box touches."""

    def __init__(self, cell: float) -> None:
        self.boxes = _Index(cell)
        self.lines: dict[Box, list[Segment]] = defaultdict(list)

    def add(self, a: XY, b: XY, half: float) -> None:
        box = (min(a[0], b[0]) - half, min(a[1], b[1]) - half, max(a[0], b[0]) + half, max(a[1], b[1]) + half)
        if box not in self.lines:
            self.boxes.add(box)
        self.lines[box].append((a, b, half))

    def hits(self, b: Box) -> bool:
        lines = self.lines
        for near in self.boxes._overlapping(b):
            for a, c, half in lines[near]:
                if seg_box_near(a, c, b, half):
                    return True
        return False


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
        self.names: list[Box] = []  # the region names' boxes: no leader line crosses them
        cell = lay.side * 2
        self.hard = _Index(cell)
        self.icons = _Index(cell)
        self.walls = _Lines(cell)
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
        # As wide as the board draws them (red ones wider), and a pixel more: a badge never touches one.
        w = wall_half_width(lay, theme)
        for sd in v.walls:
            extra = lay.size(4) / 2 if sd in v.red_walls else 0.0
            self.walls.add(lay.px(sd[0]), lay.px(sd[1]), w + extra + 1)

    def put(self, label: Label) -> None:
        self.labels.append(label)
        self.hard.add(label.box)

    def inside_frame(self, b: Box) -> bool:
        f = self.frame
        return b[0] >= f[0] and b[1] >= f[1] and b[2] <= f[2] and b[3] <= f[3]

    def free(self, b: Box) -> bool:
        return self.inside_frame(b) and not self.hard.hits(b) and not self.walls.hits(b)

    def leader_clear(self, box: Box, anchor: XY | None) -> bool:
        """Whether a leader line from ``box`` to ``anchor`` would keep off every region name."""
        if anchor is None or not self.names:
            return True
        start = (min(max(anchor[0], box[0]), box[2]), min(max(anchor[1], box[1]), box[3]))
        half = max(2, self.lay.size(3)) * 1.6 + self.lay.size(4)
        return not any(seg_box_near(start, anchor, n, half) for n in self.names)

    def clamp(self, b: Box) -> Box:
        """``b`` moved the least way that puts it inside the map's frame (if it fits at all)."""
        f = self.frame
        dx = max(f[0] - b[0], 0.0) + min(f[2] - b[2], 0.0)
        dy = max(f[1] - b[1], 0.0) + min(f[3] - b[3], 0.0)
        return (b[0] + dx, b[1] + dy, b[2] + dx, b[3] + dy)

    def soft(self, b: Box) -> int:
        return 2 * self.icons.count(b)


Candidate = tuple[XY, XY | None, float]


def _badge_candidates(v: GameView, p: ProvinceView, lay: Layout, limit: int = 20) -> Iterable[Candidate]:
    """Candidate badge centres, best first: (centre, leader anchor or None, rank penalty). Inside the
    province first, nearest its middle first; then nearby spaces outside it, with a leader line."""
    yield from _inside_candidates(v.map, lay, p.spaces, limit)
    yield from _outside_candidates(v.map, lay, p.spaces, limit)


# A province keeps its spaces from board to board, and its candidates with them (a fresh board asks for
# every province's).
@lru_cache(maxsize=2048)
def _inside_candidates(m: Map, lay: Layout, spaces: frozenset[Space], limit: int) -> tuple[Candidate, ...]:
    centres = _centres(m, lay)
    own = [centres[s] for s in spaces]
    cx, cy = _centroid(own)
    inside = sorted(own, key=lambda c: ((c[0] - cx) ** 2 + (c[1] - cy) ** 2, c))[:limit]
    quarter = lay.side / 4
    sixth = lay.side * SQRT3_2 / 6
    return tuple(
        ((x + dx, y + dy), None, rank * 0.25)
        for rank, (x, y) in enumerate(inside)
        for dx, dy in ((0.0, 0.0), (-quarter, 0.0), (quarter, 0.0), (0.0, -sixth), (0.0, sixth))
    )


@lru_cache(maxsize=512)
def _outside_candidates(m: Map, lay: Layout, spaces: frozenset[Space], limit: int) -> tuple[Candidate, ...]:
    centres = _centres(m, lay)
    own = [centres[s] for s in spaces]
    out: list[Candidate] = []
    for depth, s in _nearby(m, spaces, 6)[: limit * 6]:
        at = centres[s]
        anchor = min(own, key=lambda c: (c[0] - at[0]) ** 2 + (c[1] - at[1]) ** 2)
        out.append((at, anchor, 10.0 * depth + math.dist(at, anchor) / lay.side))
    return tuple(out)


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
            if not pl.free(box):
                continue
            anchor = min(centres, key=lambda c: math.dist(c, (x, y)))
            if pl.leader_clear(box, anchor):
                return box, anchor
    return None


def worthless(p: ProvinceView) -> bool:
    """A province someone holds or may occupy that is worth nothing (R4.5: it has no open space)."""
    return shows_value(p) and p.value == 0


def _place_badge(pl: _Placer, p: ProvinceView, st: BadgeStyle, inside_only: bool) -> bool:
    """Put the province's badge on its best clear spot; with ``inside_only``, only inside the province.
    Returns whether it was placed. A province worth nothing gets a faint badge of its id alone: it scores
    nothing, but a player may still name it (to occupy it for a levy, R7.2)."""
    text = f"P{p.id}"
    faint = worthless(p)
    value = str(p.value) if shows_value(p) and not faint else ""
    w = badge_width(text, value, st)
    h = st.height
    best: tuple[float, Box, XY | None] | None = None
    for (x, y), anchor, penalty in _badge_candidates(pl.v, p, pl.lay):
        if best is not None and penalty >= best[0]:
            break  # candidates come in increasing penalty; nothing later can win
        if inside_only and anchor is not None:
            break
        box = pl.clamp((x - w / 2, y - h / 2, x + w / 2, y + h / 2))
        if not pl.free(box) or not pl.leader_clear(box, anchor):
            continue
        cost = penalty + pl.soft(box)
        if best is None or cost < best[0]:
            best = (cost, box, anchor)
    if best is None and not inside_only:
        found = _anywhere(pl, p, w, h)
        if found is not None:
            best = (0.0, found[0], found[1])
    if best is None:
        return False  # better no badge than a badge over another label
    pl.put(Label(BADGE, best[1], text, st.size, province=p.id, value=value, anchor=best[2], faint=faint))
    return True


# --- Region names ------------------------------------------------------------------------------------


def region_size(lay: Layout, theme: Theme) -> int:
    return lay.text(theme.sizes.region_font)


@lru_cache(maxsize=1024)
def region_name(name: str, words: Words) -> str:
    """A region's name in the picture's language; a name the catalogs do not know stays as the map has it."""
    names = {
        # TRANSLATORS: a region of the map, drawn in capitals on the board.
        "Macedonia": words.ptr("region", "Macedonia"),
        "Thrace": words.ptr("region", "Thrace"),
        "Asia Minor": words.ptr("region", "Asia Minor"),
        "Armenia": words.ptr("region", "Armenia"),
        "Syria": words.ptr("region", "Syria"),
        "Egypt": words.ptr("region", "Egypt"),
        "Mesopotamia": words.ptr("region", "Mesopotamia"),
        "Babylonia": words.ptr("region", "Babylonia"),
        "Media": words.ptr("region", "Media"),
        "Parthia": words.ptr("region", "Parthia"),
        "Persia": words.ptr("region", "Persia"),
        "Bactria": words.ptr("region", "Bactria"),
        "Arachosia": words.ptr("region", "Arachosia"),
        "Gedrosia": words.ptr("region", "Gedrosia"),
        "Gandhara": words.ptr("region", "Gandhara"),
        "Indus": words.ptr("region", "Indus"),
        "Troad": words.ptr("region", "Troad"),
        "Bithynia": words.ptr("region", "Bithynia"),
        "Lydia": words.ptr("region", "Lydia"),
        "Phrygia": words.ptr("region", "Phrygia"),
        "Caria": words.ptr("region", "Caria"),
        "Cilicia": words.ptr("region", "Cilicia"),
    }
    return names.get(name, name)


def space_at(m: Map, lay: Layout, at: XY) -> Space | None:
    """The land space under a pixel, if any."""
    fr = (at[1] - lay.oy) / (lay.side * SQRT3_2)
    r = math.floor(fr)
    t = fr - r
    u = (at[0] - lay.ox) / (lay.side / 2)
    for c in (math.floor(u) - 1, math.floor(u)):
        lo, hi = (c + 1 - t, c + 1 + t) if (r + c) % 2 == 0 else (c + t, c + 2 - t)
        if lo <= u <= hi and (r, c) in m.spaces:
            return (r, c)
    return None


@lru_cache(maxsize=16)
def _region_spots(m: Map, lay: Layout) -> tuple[tuple[XY, ...], ...]:
    """For each of the map's labels, the spots its name may be centred on, nearest the label's point first:
    an eighth of a side apart across its region, the land spaces nearer its point than any other label's."""
    anchors = [lay.px(at) for _, at in m.labels]
    if not anchors:
        return ()
    centres = _centres(m, lay)
    owner = {
        s: min(range(len(anchors)), key=lambda i: (math.dist(anchors[i], c), i)) for s, c in centres.items()
    }
    dx, dy = lay.side / 8, lay.side * SQRT3_2 / 8
    out: list[tuple[XY, ...]] = []
    for i, a in enumerate(anchors):
        mine = [s for s, k in owner.items() if k == i]
        pts = [p for s in mine for p in lay.tri(s)]
        if not pts:
            out.append(())
            continue
        x0, y0 = min(x for x, _ in pts), min(y for _, y in pts)
        nx = int((max(x for x, _ in pts) - x0) / dx) + 1
        ny = int((max(y for _, y in pts) - y0) / dy) + 1
        spots = [
            q
            for i_ in range(nx + 1)
            for j in range(ny + 1)
            for q in [(x0 + i_ * dx, y0 + j * dy)]
            if owner.get(space_at(m, lay, q) or (-1, -1)) == i
        ]
        out.append(tuple(sorted(spots, key=lambda q: (math.dist(q, a), q))))
    return tuple(out)


def _targets(v: GameView) -> frozenset[Space]:
    """Where a move preview of this position may draw, whatever the hand of the player to move (a secret):
    the closest empty spaces of every symbol (R3.2, R3.3: the move preview outlines them and letters their
    corners). A path preview draws the shortest paths to their corners (R3.4: ``_on_shortest_paths``)."""
    m = v.map
    guarded = {s for pl in v.players for s in pl.guards}
    empty = empty_symbol_spaces(m, v.walls, guarded, v.alexander)
    dist = m.distance[v.alexander]
    closest: dict[Symbol | None, tuple[int, list[Space]]] = {}
    for s, symbol, points in _symbol_corners(m):
        if s not in empty:
            continue
        d = min(dist[p] for p in points)
        best = closest.get(symbol)
        if best is None or d < best[0]:
            closest[symbol] = (d, [s])
        elif d == best[0]:
            best[1].append(s)
    return frozenset(s for _, spaces in closest.values() for s in spaces)


@lru_cache(maxsize=16)
def _symbol_corners(m: Map) -> tuple[tuple[Space, Symbol | None, tuple[Point, ...]], ...]:
    """Each symbol space in order, with its symbol and corners."""
    return tuple((s, m.symbol[s], tuple(corners(s))) for s in sorted(m.symbol_spaces))


def _on_shortest_paths(m: Map, start: Point, ends: Iterable[Point], sides: Collection[Side]) -> bool:
    """Whether one of ``sides`` lies on a shortest path from ``start`` to one of ``ends`` (R3.4): a side
    ``pq`` does when ``p`` is on one (as far from ``start`` and the end together as they are apart) and
    ``q`` a step nearer the end."""
    if not sides:
        return False
    from_start = m.distance[start]
    for end in ends:
        to_end = m.distance[end]
        whole = to_end[start]
        for p, q in sides:
            to_p, to_q = to_end[p], to_end[q]
            if to_q == to_p - 1 and from_start[p] + to_p == whole:
                return True
            if to_p == to_q - 1 and from_start[q] + to_q == whole:
                return True
    return False


def _outline(lay: Layout, theme: Theme) -> float:
    """Half the width a province preview outlines a province with (and the board the last move), a pixel
    more: as far from a wall, coast or edge as anything is drawn along it."""
    return (wall_width(lay, theme) + 2 * lay.of_side(theme.sizes.halo_s)) / 2 + 1


@lru_cache(maxsize=256)
def _free_of_the_map(m: Map, lay: Layout, theme: Theme, region: int, w: float, h: float) -> tuple[Box, ...]:
    """The boxes ``w`` by ``h`` on the spots of a region (``_region_spots``) that stay inside the map's frame
    and clear of what never moves: the symbols (with the guard a province preview may plan on one, which is
    larger than a symbol or a guard) and the coasts and edges (as wide as a province preview outlines them).
    What is left, a few boxes a name, is all a position has to check."""
    cell = lay.side * 2
    boxes, lines = _Index(cell), _Lines(cell)
    sz = theme.sizes
    ghost = lay.of_side(sz.guard_s) * 1.15 + (max(3, lay.size(4)) + lay.size(4)) / 2
    for s in m.symbol_spaces:
        boxes.add(square(lay.centre(s), 2 * ghost + 2))
    outline = _outline(lay, theme)
    for sd, kind in m.side_kind.items():
        if kind in (SideKind.COAST, SideKind.EDGE):
            lines.add(lay.px(sd[0]), lay.px(sd[1]), outline)
    left, top, right, bottom = lay.map_box
    return tuple(
        b
        for x, y in _region_spots(m, lay)[region]
        for b in [(x - w / 2, y - h / 2, x + w / 2, y + h / 2)]
        if left <= b[0]
        and top <= b[1]
        and b[2] <= right
        and b[3] <= bottom
        and not boxes.hits(b)
        and not lines.hits(b)
    )


@dataclass(frozen=True)
class _NameSpot:
    """A box a region's name may take (``_free_of_the_map``), with what of a position would come too near it,
    as any picture of the position may draw it: a wall on one of ``sides`` (as wide as a province preview
    outlines it), a path preview's line along one of ``paths`` (as far as it spreads, numbers included), a
    move preview's outline or letters of one of ``targets``."""

    box: Box
    sides: frozenset[Side]
    paths: frozenset[Side]
    targets: frozenset[Space]


def _near(a: XY, b: XY, box: Box, half: float) -> bool:
    """Whether the line ``ab``, ``half`` wide each way, comes near the box (as ``_Lines.hits`` finds it)."""
    around = (min(a[0], b[0]) - half, min(a[1], b[1]) - half, max(a[0], b[0]) + half, max(a[1], b[1]) + half)
    return overlap(around, box) and seg_box_near(a, b, box, half)


@lru_cache(maxsize=256)
def _name_spots(m: Map, lay: Layout, theme: Theme, region: int, w: float, h: float) -> tuple[_NameSpot, ...]:
    """``_free_of_the_map``'s boxes, each with the sides and spaces whose drawing would come near it: a
    position then asks its walls, paths and targets of a few sets, not every line of it of every box."""
    outline = _outline(lay, theme)
    size = lay.text(theme.sizes.point_font)
    radii = (marker_radius("AA", size), marker_radius("★", size))
    letter = (max(r[0] for r in radii), max(r[1] for r in radii))
    line_w = max(4, lay.of_side(0.08))
    path = lay.of_side(0.3) / 2 + max(line_w / 2 + lay.size(4), *marker_radius("88", size)) + 1
    target_line = max(3, lay.of_side(0.09)) / 2 + 1
    lines = [(sd, lay.px(sd[0]), lay.px(sd[1])) for sd in m.side_kind]

    def target_near(t: Space, box: Box) -> bool:
        pts = lay.tri(t)
        return any(_near(a, b, box, target_line) for a, b in zip(pts, pts[1:] + pts[:1], strict=True)) or any(
            overlap((x - letter[0] - 1, y - letter[1] - 1, x + letter[0] + 1, y + letter[1] + 1), box)
            for x, y in pts
        )

    return tuple(
        _NameSpot(
            box,
            frozenset(sd for sd, a, b in lines if _near(a, b, box, outline)),
            frozenset(sd for sd, a, b in lines if _near(a, b, box, path)),
            frozenset(t for t in m.symbol_spaces if target_near(t, box)),
        )
        for box in _free_of_the_map(m, lay, theme, region, w, h)
    )


def _moving_obstacles(v: GameView, lay: Layout, theme: Theme) -> tuple[_Index, _Lines]:
    """What of a position ``_NameSpot`` does not name: the boxes of Alexander and of the last move's start,
    and the last move's lines (as wide as a province preview outlines a wall)."""
    cell = lay.side * 2
    boxes, lines = _Index(cell), _Lines(cell)
    boxes.add(square(lay.px(v.alexander), alexander_size(lay, theme) + 2))
    band = wall_width(lay, theme) + 2 * lay.of_side(theme.sizes.halo_s)
    lm = v.last_move
    if lm is not None and lm.path:
        boxes.add(square(lay.px(lm.path[0]), 1.8 * band + max(2, band // 3) + 2))
        outline = _outline(lay, theme)
        for p, q in zip(lm.path, lm.path[1:], strict=False):
            lines.add(lay.px(p), lay.px(q), outline)
    return boxes, lines


@lru_cache(maxsize=1024)
def _name_layouts(text: str, size: int) -> tuple[tuple[str, float, float], ...]:
    """A name's text with its box's width and height: on one line, then split over two where it has words."""
    f = font(size, condensed=True)
    out = [(text, f.getlength(text) + size * 0.3, size * 1.05)]
    words = text.split()
    if len(words) > 1:
        k = min(range(1, len(words)), key=lambda k: abs(len(" ".join(words[:k])) - len(" ".join(words[k:]))))
        lines = [" ".join(words[:k]), " ".join(words[k:])]
        out.append(("\n".join(lines), max(f.getlength(x) for x in lines) + size * 0.3, size * 2.1))
    return tuple(out)


# Region names lately placed, by the position's public facts (a board and its previews share them).
NAMES: Recent[tuple[object, ...], tuple[Label, ...]] = Recent(64)


def region_labels(
    v: GameView, lay: Layout, theme: Theme = DEFAULT_THEME, words: Words = ENGLISH
) -> tuple[Label, ...]:
    """The region names of a position, each on the spot of its region nearest its point that is clear of
    everything any picture of the position may draw there (``_NameSpot``) and of the other names;
    left out where no spot is. They depend on the position alone, never on a preview's overlay."""
    key = (v.map, lay, theme, words, v.alexander, v.walls, v.last_move, tuple(p.guards for p in v.players))
    found = NAMES.get(key)
    if found is None:
        found = _place_names(v, lay, theme, words)
        NAMES.put(key, found)
    return found


def _place_names(v: GameView, lay: Layout, theme: Theme, words: Words) -> tuple[Label, ...]:
    size = region_size(lay, theme)
    # Each name's ways of being written, with the boxes the map leaves them (one line first, then two).
    names = [
        [(text, _name_spots(v.map, lay, theme, i, w, h)) for text, w, h in _name_layouts(shown, size)]
        for i, (name, _) in enumerate(v.map.labels)
        for shown in [region_name(name, words).upper()]
    ]
    if not any(spots for ways in names for _, spots in ways):
        return ()  # the map has no room for any name: the position need not be looked at
    boxes, lines = _moving_obstacles(v, lay, theme)
    aimed: list[tuple[frozenset[Space], frozenset[Point]]] = []  # the targets and their corners, when asked

    def clear(spot: _NameSpot) -> bool:
        if not spot.sides.isdisjoint(v.walls) or boxes.hits(spot.box) or lines.hits(spot.box):
            return False
        if not aimed:
            targets = _targets(v)
            aimed.append((targets, frozenset(p for s in targets for p in corners(s))))
        targets, ends = aimed[0]
        if not spot.targets.isdisjoint(targets):
            return False
        return not _on_shortest_paths(v.map, v.alexander, ends, spot.paths)

    out: list[Label] = []
    for ways in names:
        for text, spots in ways:
            found = next((spot.box for spot in spots if clear(spot)), None)
            if found is not None:
                out.append(Label(REGION, found, text, size))
                boxes.add(found)
                break
    return tuple(out)


# --- All labels --------------------------------------------------------------------------------------


# Boards placed lately, by everything their placement depends on: placing every badge is a quarter of
# drawing a board. Boards whose pieces did not move are kept whole (rendering.pictures.BOARDS) and never ask;
# what this serves is a picture drawn again on the same pieces, such as a preview without markers. 256 of
# them (about 7 MB, 29 KB each), so that a game's are still here when its preview comes with 50 games
# acting at once (bench_bot's requests replayed: 373 boards placed whole against 556 with 32).
PLACED: Recent[tuple[object, ...], tuple[Label, ...]] = Recent(256)


def pieces(v: GameView) -> tuple[object, ...]:
    """Where everything on the board stands: Alexander, the walls, each seat's guards, the provinces (their
    owners and values). What the labels are placed around, and a cache key for what is drawn from it."""
    return (v.alexander, v.walls, tuple((p.seat, p.guards) for p in v.players), v.provinces)


def board_labels(
    v: GameView,
    lay: Layout,
    theme: Theme = DEFAULT_THEME,
    avoid: Sequence[Box] = (),
    words: Words = ENGLISH,
) -> tuple[Label, ...]:
    """Every label of the board, none overlapping another or anything in ``avoid`` (a preview's markers):
    ``place_labels``, from a bounded cache of recent boards (the same pieces on the same board are
    labelled the same)."""
    names = region_labels(v, lay, theme, words)
    plain_key = (v.map, lay, theme, (), names, *pieces(v))
    plain = PLACED.get(plain_key)
    if plain is None:
        plain = _place_all(v, lay, theme, (), words)
        PLACED.put(plain_key, plain)
    moved = _covered(plain, avoid)
    if not moved:
        return plain
    key = (v.map, lay, theme, tuple(avoid), names, *pieces(v))
    found = PLACED.get(key)
    if found is None:
        found = _move_badges(v, lay, theme, avoid, plain, moved)
        PLACED.put(key, found)
    return found


def place_labels(
    v: GameView, lay: Layout, theme: Theme = DEFAULT_THEME, avoid: Sequence[Box] = (), words: Words = ENGLISH
) -> tuple[Label, ...]:
    """The board's labels placed afresh, without the cache: every label of the board; for a preview, the
    board's labels with only the badges its markers (``avoid``) cover placed again, around everything else.
    A preview so shows the badges where the board shows them, and costs one badge's placing rather than the
    whole board's (about 6 ms of a preview's 11 on the default map: bench_render)."""
    plain = _place_all(v, lay, theme, (), words)
    moved = _covered(plain, avoid)
    return _move_badges(v, lay, theme, avoid, plain, moved) if moved else plain


def _covered(plain: Sequence[Label], avoid: Sequence[Box]) -> set[int]:
    """The provinces whose badge in ``plain`` a box of ``avoid`` covers."""
    return {
        lab.province
        for lab in plain
        if lab.kind == BADGE and lab.province is not None and any(_touch(lab.box, a) for a in avoid)
    }


def _move_badges(
    v: GameView, lay: Layout, theme: Theme, avoid: Sequence[Box], plain: Sequence[Label], moved: set[int]
) -> tuple[Label, ...]:
    """``plain`` with the badges of the provinces ``moved`` placed again around everything else."""
    pl = _Placer(v, lay, theme, avoid)
    for lab in plain:
        if lab.kind == BADGE and lab.province in moved:
            continue
        pl.put(lab)
        if lab.kind == REGION:
            pl.names.append(lab.box)
    _place_badges(pl, [p for p in v.provinces if p.id in moved], badge_style(lay, theme))
    return tuple(pl.labels)


def _touch(a: Box, b: Box) -> bool:
    """Whether two boxes overlap, as the placer's index tests it (touching edges do not)."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _place_all(
    v: GameView, lay: Layout, theme: Theme, avoid: Sequence[Box], words: Words = ENGLISH
) -> tuple[Label, ...]:
    pl = _Placer(v, lay, theme, avoid)
    for lab in region_labels(v, lay, theme, words):
        pl.put(lab)
        pl.names.append(lab.box)
    a = alexander_size(lay, theme)
    pl.put(Label(ALEXANDER, square(lay.px(v.alexander), a)))
    g = guard_size(lay, theme)
    for player in v.players:
        for s in sorted(player.guards):
            pl.put(Label(GUARD, square(lay.centre(s), g), seat=player.seat))
    _place_badges(pl, v.provinces, badge_style(lay, theme))
    return tuple(pl.labels)


def _place_badges(pl: _Placer, provinces: Iterable[ProvinceView], st: BadgeStyle) -> None:
    # Provinces whose value matters first; among them, the most cramped first; those worth nothing last.
    order = sorted(provinces, key=lambda p: (worthless(p), not shows_value(p), len(p.spaces), p.id))
    # Every badge that fits inside its province goes there first, so that no badge placed outside takes
    # the room another province needed; then the others, nearby with a leader line.
    left = [p for p in order if not _place_badge(pl, p, st, inside_only=True)]
    for p in left:
        _place_badge(pl, p, st, inside_only=False)


def label_boxes(
    v: GameView, width: int = BOARD_WIDTH, theme: Theme = DEFAULT_THEME, words: Words = ENGLISH
) -> tuple[Label, ...]:
    """The labels of ``v``'s board picture ``width`` pixels wide (for tests)."""
    return board_labels(v, layout(v.map, width, theme), theme, words=words)


def wall_width(lay: Layout, theme: Theme) -> int:
    """How wide a wall is drawn."""
    return max(lay.size(theme.sizes.wall_min), lay.of_side(theme.sizes.wall_s))


def wall_half_width(lay: Layout, theme: Theme) -> float:
    return wall_width(lay, theme) / 2


def marker_box(at: XY, text: str, lay: Layout, theme: Theme) -> Box:
    """The box of a preview's round marker (a destination letter, a path number, the chosen point)."""
    size = lay.text(theme.sizes.point_font)
    r = marker_radius(text, size)
    return (at[0] - r[0], at[1] - r[1], at[0] + r[0], at[1] + r[1])


def marker_radius(text: str, size: int) -> tuple[float, float]:
    f = font(size, bold=True, condensed=True)
    ry = size * 0.58
    return max(ry, f.getlength(text) / 2 + size * 0.2), ry
