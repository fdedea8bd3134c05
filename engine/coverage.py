"""How far a game spread over its map: the coverage figures that ``python -m engine simulate`` reports.

A map's regions are its labels (MAP-FORMAT.md): every land space belongs to the region whose label is
nearest on screen. The *eastern* regions are those whose label lies east of the middle of the land; the
*far* region is the labelled one farthest (in sides) from the start point, the Indus on the default map.
For one finished game this module measures the share of each half's spaces that walls touch (a wall on
one of the space's sides), whether Alexander's walks reached a corner of the far region, and the largest
province at the end as a share of the land. These figures are how the default map was designed
(tools/design_map.py).
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from engine.events import AlexanderMoved, Event, FirstPlayerChosen
from engine.geometry import Point, Space, corners, is_up
from engine.maps import Map
from engine.state import GameState

_H = math.sqrt(3) / 2


@dataclass(frozen=True)
class Regions:
    """A map's land spaces by region, the eastern regions and the far region."""

    of: dict[Space, str]
    names: tuple[str, ...]
    east: frozenset[str]
    far: str | None
    far_points: frozenset[Point]

    def spaces(self, east: bool) -> list[Space]:
        return [s for s, name in self.of.items() if (name in self.east) == east]


def _centre(space: Space) -> tuple[float, float]:
    r, c = space
    return (c + 1) / 2, (r + (2 / 3 if is_up(space) else 1 / 3)) * _H


@lru_cache(maxsize=16)
def regions(game_map: Map) -> Regions:
    """Assign every land space to its nearest label; an unlabelled map is one unnamed western region."""
    labels = [(name, (p[1] / 2, p[0] * _H), p) for name, p in game_map.labels]
    if not labels:
        return Regions(dict.fromkeys(game_map.spaces, ""), ("",), frozenset(), None, frozenset())
    of: dict[Space, str] = {}
    for s in game_map.spaces:
        x, y = _centre(s)
        of[s] = min(labels, key=lambda lab: (lab[1][0] - x) ** 2 + (lab[1][1] - y) ** 2)[0]
    xs = [p[1] for p in game_map.points]
    middle = (min(xs) + max(xs)) / 2
    east = frozenset(name for name, _, p in labels if p[1] > middle)
    from_start = _distances(game_map, game_map.start)
    far = max(labels, key=lambda lab: (from_start.get(lab[2], -1), lab[0]))[0]
    far_points = frozenset(p for s, name in of.items() if name == far for p in corners(s))
    names = tuple(dict.fromkeys(name for name, _, _ in labels))
    return Regions(of, names, east, far, far_points)


def _distances(game_map: Map, origin: Point) -> dict[Point, int]:
    """Sides from ``origin`` to every point (R3.2: walls never block)."""
    dist = {origin: 0}
    queue = deque([origin])
    while queue:
        p = queue.popleft()
        for q in game_map.adjacent[p]:
            if q not in dist:
                dist[q] = dist[p] + 1
                queue.append(q)
    return dist


@dataclass(frozen=True)
class Coverage:
    """One game's coverage figures (see the module docstring)."""

    east_touched: float  # share of the eastern regions' spaces with a wall on a side
    west_touched: float
    far_reached: bool
    largest_province: float  # share of the land
    first_player: int | None


def game_coverage(state: GameState, events: Iterable[Event]) -> Coverage:
    """The coverage of a game from its final state and its events."""
    m = state.map
    reg = regions(m)
    walls = state.walls
    touched = {s for s in m.spaces if any(sd in walls for sd in m.space_sides[s])}

    def share(spaces: list[Space]) -> float:
        return sum(1 for s in spaces if s in touched) / len(spaces) if spaces else 0.0

    reached = False
    first = None
    for e in events:
        if isinstance(e, AlexanderMoved) and not reached:
            reached = any(p in reg.far_points for p in e.path)
        elif isinstance(e, FirstPlayerChosen):
            first = e.player
    largest = max((len(p.spaces) for p in state.provinces), default=0) / len(m.spaces)
    return Coverage(share(reg.spaces(True)), share(reg.spaces(False)), reached, largest, first)
