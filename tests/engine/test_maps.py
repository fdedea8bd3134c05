"""Map loading (MAP-FORMAT.md): refusing land Alexander cannot reach, and distances (R3.2) on demand."""

from __future__ import annotations

import pytest

from engine.geometry import Point
from engine.maps import DISTANCE_CACHE, MapError, default_map, parse_map
from tests.engine.bigmap import base_map, tiled_map_text


def _text(grid: str) -> str:
    return f"name: t\nstart: A1\ngrid:\n{grid}\n"


def test_map_format_disconnected_land_is_refused_naming_the_unreachable_spaces() -> None:
    with pytest.raises(MapError) as err:
        parse_map(_text("T.A~~~~\n~~~~~~~\n~~~..H"), "islands.map")
    assert err.value.spaces == ((2, 3), (2, 4), (2, 5))
    assert "islands.map:6:4" in str(err.value)
    assert "2,3 2,4 2,5" in str(err.value)


@pytest.mark.parametrize("where", ["name: t\x00", "# a comment\x07", "T.A\x00"])
def test_map_format_a_control_character_is_refused_with_its_line_and_column(where: str) -> None:
    """A map file is UTF-8 text: a NUL in its name was accepted, drawn in pictures, and refused by
    PostgreSQL when the game was stored (only there), so the owner learnt of it at the first game."""
    text = "name: t\nstart: A1\n# a comment\ngrid:\nT.A\n"
    plain = where.replace("\x00", "").replace("\x07", "")
    bad = text.replace(plain, where, 1)
    assert bad != text
    with pytest.raises(MapError) as err:
        parse_map(bad, "bad.map")
    line = bad.splitlines().index(next(ln for ln in bad.splitlines() if ln == where)) + 1
    assert f"bad.map:{line}:{len(where)}:" in str(err.value) and "control character" in str(err.value)
    parse_map(text, "good.map")  # the same file without it loads


def test_map_format_land_joined_only_at_a_corner_is_connected() -> None:
    # (0,2) and (0,4) are up triangles that share the corner B4 across the sea triangle (0,3).
    m = parse_map(_text("T.A~H"))
    assert m.distance[m.start][(1, 4)] >= 1 and len(m.spaces) == 4


def _reference_distances(adjacent: dict[Point, tuple[Point, ...]], origin: Point) -> dict[Point, int]:
    dist = {origin: 0}
    queue = [origin]
    for p in queue:
        for q in adjacent[p]:
            if q not in dist:
                dist[q] = dist[p] + 1
                queue.append(q)
    return dist


def test_r3_2_distances_on_demand_match_a_breadth_first_search() -> None:
    m = default_map()
    for origin in m.points[::7]:
        assert dict(m.distance[origin]) == _reference_distances(dict(m.adjacent), origin)
    with pytest.raises(KeyError):
        m.distance[(99, 99)]


def test_r3_2_a_large_map_keeps_a_bounded_number_of_distance_tables() -> None:
    m = parse_map(tiled_map_text(2, 2))
    assert len(m.spaces) == 4 * len(base_map().spaces) >= 4 * len(default_map().spaces)
    for origin in m.points:
        assert m.distance[origin][origin] == 0
    assert m.distance.cached == DISTANCE_CACHE < len(m.points)  # a bounded cache, not an all-pairs table
