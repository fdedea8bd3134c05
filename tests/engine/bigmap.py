"""Large maps for tests and benchmarks, made by tiling a map of 236 spaces (issue 14 item 4, issue 12 item 7).

The tiled map is the empire map as it was before its redesign (tests/engine/maps/empire-2026.map, 236
spaces): 2 x 2 tiles give 944 spaces, the map of the issues' figures, and more than 4x today's default.
"""

from __future__ import annotations

import functools
from pathlib import Path

from engine.maps import Map, parse_map

BASE_MAP = Path(__file__).with_name("maps") / "empire-2026.map"


@functools.cache
def base_map() -> Map:
    return parse_map(BASE_MAP.read_text(encoding="utf-8"), str(BASE_MAP))


def tiled_map_text(
    across: int = 2, down: int = 2, walls: str = "62 black, 10 red", symbols: bool = True
) -> str:
    """The base map's grid repeated ``across`` x ``down`` times: 2 x 2 gives 944 spaces.

    Tiles are shifted by an even number of rows and columns, so every triangle keeps its orientation and
    neighbouring tiles share sides. ``symbols=False`` keeps symbol spaces only in the last tile, so that
    Alexander's moves from the start are long.
    """
    base = base_map()
    width = max(len(r) for r in base.rows)
    width += width % 2
    rows: list[str] = []
    for d in range(down):
        for row in base.rows:
            line = ""
            for a in range(across):
                cells = row.ljust(width)
                if not symbols and (a, d) != (across - 1, down - 1):
                    cells = "".join("." if ch in "TAHLS" else ch for ch in cells)
                line += cells
            rows.append(line.rstrip())
    grid = "\n".join(rows)
    return f"name: Tiled {across}x{down}\nstart: {_label(base.start)}\nwalls: {walls}\ngrid:\n{grid}\n"


def _label(p: tuple[int, int]) -> str:
    return f"{chr(ord('A') + p[0])}{p[1]}"
