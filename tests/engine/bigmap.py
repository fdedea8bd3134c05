"""Large maps for tests and benchmarks, made by tiling the default map (issue 14 item 4, issue 12 item 7)."""

from __future__ import annotations

from engine.maps import default_map


def tiled_map_text(
    across: int = 2, down: int = 2, walls: str = "62 black, 10 red", symbols: bool = True
) -> str:
    """The default map's grid repeated ``across`` x ``down`` times: 2 x 2 gives 944 spaces, 4x the default.

    Tiles are shifted by an even number of rows and columns, so every triangle keeps its orientation and
    neighbouring tiles share sides. ``symbols=False`` keeps symbol spaces only in the last tile, so that
    Alexander's moves from the start are long.
    """
    base = default_map()
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
