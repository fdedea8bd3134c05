"""Map files (MAP-FORMAT.md): parsing, checking, and the lattice tables the rules need.

A ``Map`` is immutable and precomputes, once per map text, everything that never changes during a game:
land spaces and their symbols, the kind of every side and the point graph Alexander walks on. Distances
(R3.2) are computed on demand, one breadth-first search per origin point, and a bounded number of them is
cached, so that loading a map and its memory stay linear in its size (issue 12).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property, lru_cache
from importlib import resources

from engine.geometry import (
    MAX_LINES,
    Point,
    Side,
    Space,
    corners,
    nearest,
    neighbour_across,
    parse_label_syntax,
    point_label,
    sides_of,
)
from engine.symbols import LETTER_SYMBOLS, Symbol


class SideKind(StrEnum):
    INTERIOR = "interior"
    COAST = "coast"
    EDGE = "edge"


class MapError(ValueError):
    """A map file that cannot be played; the message names file, line and column."""

    def __init__(
        self, source: str, line: int, column: int, problem: str, spaces: tuple[Space, ...] = ()
    ) -> None:
        super().__init__(f"{source}:{line}:{column}: {problem}")
        self.source = source
        self.line = line
        self.column = column
        self.problem = problem
        self.spaces = spaces  # the spaces at fault when it is not one character (unreachable land)


class LabelError(ValueError):
    """A point label that is not a corner of a land space; carries the nearest valid labels."""

    def __init__(
        self,
        text: str,
        suggestions: tuple[str, ...],
        rows: tuple[str, str] = ("A", "A"),
        columns: tuple[int, int] = (0, 0),
    ) -> None:
        if suggestions:
            hint = f" Nearest points: {', '.join(suggestions)}."
        else:
            hint = f" Rows are {rows[0]} to {rows[1]}, columns {columns[0]} to {columns[1]}."
        super().__init__(f"{text!r} is not a point of this map.{hint}")
        self.text = text
        self.suggestions = suggestions  # empty when the label lies off the map's rows or columns
        self.rows = rows  # the first and last row letter of the map's points
        self.columns = columns  # the lowest and highest column number


LAND = ".TAHLS"
SEA = "~"
NOTHING = " "
DEFAULT_BLACK = 65
DEFAULT_RED = 10
DISTANCE_CACHE = 256  # origin points whose distances a map keeps; the default map has 166 points


class Distances(Mapping[Point, Mapping[Point, int]]):
    """``distances[a][b]``: sides between points a and b along the map's lines (R3.2: walls never block).

    Each origin's table is one breadth-first search, made when first asked for and kept in a bounded
    cache (the oldest table goes first): memory is at most ``DISTANCE_CACHE`` tables of one map's points.
    """

    def __init__(self, adjacent: Mapping[Point, tuple[Point, ...]], cache: int = DISTANCE_CACHE) -> None:
        self._adjacent = adjacent
        self._cache: dict[Point, dict[Point, int]] = {}
        self.capacity = cache

    def __getitem__(self, origin: Point) -> Mapping[Point, int]:
        try:
            return self._cache[origin]
        except KeyError:
            pass
        if origin not in self._adjacent:
            raise KeyError(origin)
        table = self._search(origin)
        if len(self._cache) >= self.capacity:
            self._cache.pop(next(iter(self._cache), origin), None)
        self._cache[origin] = table
        return table

    def __iter__(self) -> Iterator[Point]:
        return iter(self._adjacent)

    def __len__(self) -> int:
        return len(self._adjacent)

    def __contains__(self, origin: object) -> bool:
        return origin in self._adjacent

    @property
    def cached(self) -> int:
        """How many origins' tables are kept now."""
        return len(self._cache)

    def _search(self, origin: Point) -> dict[Point, int]:
        adjacent = self._adjacent
        dist = {origin: 0}
        frontier = [origin]
        d = 0
        while frontier:
            d += 1
            nxt = []
            for p in frontier:
                for q in adjacent[p]:
                    if q not in dist:
                        dist[q] = d
                        nxt.append(q)
            frontier = nxt
        return dist


@dataclass(frozen=True, eq=False)
class Map:
    """One playable map. Two maps are equal when their texts are equal."""

    name: str
    text: str
    start: Point
    black_walls: int
    red_walls: int
    labels: tuple[tuple[str, Point], ...]
    rows: tuple[str, ...]
    spaces: tuple[Space, ...]
    symbol: Mapping[Space, Symbol | None] = field(repr=False)
    space_sides: Mapping[Space, tuple[Side, Side, Side]] = field(repr=False)
    side_kind: Mapping[Side, SideKind] = field(repr=False)
    side_spaces: Mapping[Side, tuple[Space, ...]] = field(repr=False)
    points: tuple[Point, ...] = field(repr=False)
    adjacent: Mapping[Point, tuple[Point, ...]] = field(repr=False)
    point_spaces: Mapping[Point, tuple[Space, ...]] = field(repr=False)
    distance: Distances = field(repr=False)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Map) and (self is other or self.text == other.text)

    def __hash__(self) -> int:
        return hash(self.text)

    @cached_property
    def digest(self) -> str:
        """The hash of the text (kept: every commit's snapshot names its map by it)."""
        return hashlib.sha256(self.text.encode()).hexdigest()[:16]

    @property
    def lines(self) -> int:
        return len(self.rows) + 1

    @cached_property
    def symbol_spaces(self) -> tuple[Space, ...]:
        return tuple(s for s in self.spaces if self.symbol[s] is not None)

    def cell(self, space: Space) -> str:
        r, c = space
        if r < 0 or r >= len(self.rows) or c < 0 or c >= len(self.rows[r]):
            return NOTHING
        return self.rows[r][c]

    def parse_point(self, text: str) -> Point:
        """Read a typed label such as ``d7``; raise LabelError naming the nearest valid points."""
        p = parse_label_syntax(text)
        if p is not None and p in self.adjacent:
            return p
        return self._label_error(text, p)

    def _label_error(self, text: str, guess: Point | None) -> Point:
        """The geometrically nearest points to a label inside the map's rows and columns; for one outside
        them (or no label at all), none: the error says which rows and columns there are."""
        rows = [q[0] for q in self.points]
        cols = [q[1] for q in self.points]
        first, last = min(rows), max(rows)
        near: tuple[str, ...] = ()
        if guess is not None and first <= guess[0] <= last and min(cols) <= guess[1] <= max(cols):
            near = tuple(point_label(q) for q in nearest(guess, self.points))
        letters = (point_label((first, 0))[0], point_label((last, 0))[0])
        raise LabelError(text.strip(), near, letters, (min(cols), max(cols)))


def parse_map(text: str, source: str = "<map>") -> Map:
    """Parse and check a map file; raise MapError with file, line and column of the first fault."""
    return _parse_cached(text, source)


# Tab, CR and LF aside, C0 controls and DEL are no text: a NUL in a map's name was drawn in pictures and
# refused by PostgreSQL only when a game was stored.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


@lru_cache(maxsize=32)
def _parse_cached(text: str, source: str) -> Map:
    control = _CONTROL.search(text)
    if control is not None:
        before = text[: control.start()]
        at_row, at_column = before.count("\n") + 1, control.start() - (before.rfind("\n") + 1) + 1
        raise MapError(source, at_row, at_column, f"control character {control.group()!r}: not text")
    header: dict[str, tuple[str, int]] = {}
    labels_raw: list[tuple[str, int]] = []
    rows: list[str] = []
    grid_line = 0
    in_grid = False
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip("\r\n")
        if in_grid:
            rows.append(line.rstrip("\n"))
            continue
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        key, sep, value = line.partition(":")
        key = key.strip().lower()
        if not sep:
            raise MapError(source, number, 1, f"expected 'key: value' or 'grid:', got {line.strip()!r}")
        if key == "grid":
            in_grid = True
            grid_line = number
            continue
        if key == "label":
            labels_raw.append((value.strip(), number))
        elif key in ("name", "start", "walls"):
            header[key] = (value.strip(), number)
        else:
            raise MapError(source, number, 1, f"unknown header key {key!r}")
    if not in_grid:
        raise MapError(source, len(text.splitlines()) + 1, 1, "missing 'grid:'")
    while rows and not rows[-1].strip():
        rows.pop()
    for key in ("name", "start"):
        if key not in header or not header[key][0]:
            raise MapError(source, 1, 1, f"missing {key!r}")
    if len(rows) + 1 > MAX_LINES:
        raise MapError(source, grid_line + MAX_LINES, 1, f"more than {MAX_LINES} lines ({len(rows) + 1})")
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            if ch not in LAND + SEA + NOTHING:
                raise MapError(source, grid_line + 1 + r, c + 1, f"unknown character {ch!r}")

    black, red = DEFAULT_BLACK, DEFAULT_RED
    if "walls" in header:
        black, red = _parse_walls(*header["walls"], source)

    spaces = tuple((r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch in LAND)
    if not spaces:
        raise MapError(source, grid_line + 1, 1, "no land space")
    symbol: dict[Space, Symbol | None] = {
        s: LETTER_SYMBOLS.get(rows[s[0]][s[1]]) for s in spaces
    }
    if not any(v is not None for v in symbol.values()):
        raise MapError(source, grid_line + 1, 1, "no symbol space at all")

    def cell(s: Space) -> str:
        r, c = s
        return rows[r][c] if 0 <= r < len(rows) and 0 <= c < len(rows[r]) else NOTHING

    space_sides: dict[Space, tuple[Side, Side, Side]] = {}
    side_kind: dict[Side, SideKind] = {}
    side_spaces: dict[Side, list[Space]] = {}
    for s in spaces:
        space_sides[s] = sides_of(s)
        for sd in space_sides[s]:
            side_spaces.setdefault(sd, []).append(s)
            other = cell(neighbour_across(s, sd))
            kind = SideKind.INTERIOR if other in LAND else SideKind.COAST if other == SEA else SideKind.EDGE
            side_kind[sd] = kind

    adjacent_sets: dict[Point, set[Point]] = {}
    point_spaces: dict[Point, list[Space]] = {}
    for sd in side_kind:
        a, b = sd
        adjacent_sets.setdefault(a, set()).add(b)
        adjacent_sets.setdefault(b, set()).add(a)
    for s in spaces:
        for p in corners(s):
            point_spaces.setdefault(p, []).append(s)
    adjacent = {p: tuple(sorted(q)) for p, q in sorted(adjacent_sets.items())}
    points = tuple(adjacent)

    start_text, start_line = header["start"]
    start = parse_label_syntax(start_text)
    if start is None or start not in adjacent:
        raise MapError(source, start_line, 8, f"start {start_text!r} is not a corner of a land space")
    distance = Distances(adjacent)
    _check_connected(spaces, distance[start], grid_line, source)

    labels: list[tuple[str, Point]] = []
    for value, number in labels_raw:
        name, _, at = value.rpartition(" at ")
        where = parse_label_syntax(at)
        if not name or where is None:
            raise MapError(source, number, 8, f"label must be 'NAME at POINT', got {value!r}")
        labels.append((name.strip(), where))

    return Map(
        name=header["name"][0],
        text=text,
        start=start,
        black_walls=black,
        red_walls=red,
        labels=tuple(labels),
        rows=tuple(rows),
        spaces=spaces,
        symbol=symbol,
        space_sides=space_sides,
        side_kind=side_kind,
        side_spaces={k: tuple(v) for k, v in side_spaces.items()},
        points=points,
        adjacent=adjacent,
        point_spaces={k: tuple(v) for k, v in point_spaces.items()},
        distance=distance,
    )


def _parse_walls(value: str, line: int, source: str) -> tuple[int, int]:
    parts = [p.strip().split() for p in value.split(",")]
    found: dict[str, int] = {}
    for part in parts:
        if len(part) != 2 or not part[0].isdigit() or part[1] not in ("black", "red"):
            raise MapError(source, line, 8, f"walls must look like '65 black, 10 red', got {value!r}")
        found[part[1]] = int(part[0])
    return found.get("black", DEFAULT_BLACK), found.get("red", DEFAULT_RED)


def _check_connected(
    spaces: tuple[Space, ...], reach: Mapping[Point, int], grid_line: int, source: str
) -> None:
    """Every land space must be reachable from the start along sides, or distances (R3.2) are undefined."""
    cut_off = tuple(s for s in spaces if not any(p in reach for p in corners(s)))
    if cut_off:
        r, c = cut_off[0]
        names = " ".join(f"{a},{b}" for a, b in cut_off)
        problem = f"land not connected to the start: {len(cut_off)} unreachable spaces (row,column): {names}"
        raise MapError(source, grid_line + 1 + r, c + 1, problem, cut_off)


def load_map(path: str) -> Map:
    with open(path, encoding="utf-8") as f:
        return parse_map(f.read(), path)


def packaged_map(name: str = "empire") -> Map:
    """A map shipped inside the package (``engine/maps/NAME.map``)."""
    text = resources.files("engine").joinpath("maps", f"{name}.map").read_text(encoding="utf-8")
    return parse_map(text, f"{name}.map")


def packaged_map_names() -> tuple[str, ...]:
    """The maps shipped inside the package: every ``engine/maps/*.map``, by name."""
    folder = resources.files("engine").joinpath("maps")
    return tuple(sorted(p.name[: -len(".map")] for p in folder.iterdir() if p.name.endswith(".map")))


def default_map() -> Map:
    return packaged_map("empire")
