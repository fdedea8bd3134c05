"""Generate the packaged maps (``engine/maps/empire.map``, the default, and ``aegean.map``, the small one)
and document their design.

Run ``python tools/design_map.py`` to rewrite the maps, ``--check`` to compare without writing.

Design
------
* The land/sea sketches below are drawn from real places on a rough longitude/latitude raster, then
  squeezed and simplified by hand: one character is one triangle. ``#`` is land, ``~`` sea, a blank is
  off the map. Seas make coasts (Aegean, Black Sea, Mediterranean, Caspian, Persian Gulf, Arabian Sea).
  Where the land runs on beyond the empire the map simply stops, with straight edges along grid lines.
  The land must be one piece through shared sides (checked). It is not a copy of the published board.
* The empire is a narrow band, 7 rows high, from Macedonia to the Indus. Alexander goes to the closest
  empty space of a symbol, so his walk spreads from the start like a random walk and stops where the
  walls run out. On a first empire of 236 spaces in 12 rows, four greedy players walled 55-58% of the
  western spaces but 15-17% of the eastern ones, reached the Indus in about a third of the games, and
  left a never-occupied province of 59% of the land. In a band only a few spaces high the walk can
  only go on eastwards once the west is walled up, so the march reaches the Indus (docs/PLAYING.md, "Default
  map", has the figures of ``python -m engine simulate``, which reports this coverage).
* Symbol spaces are chosen with a fixed seed. The symbol density varies by terrain: the river valleys
  (Nile, Mesopotamia, Indus) are fertile, with few symbol spaces and so many open (taxable) spaces, and
  the mountains and deserts (Anatolian plateau, Zagros, Hindu Kush, Gedrosia) are dense with symbols.
  Alexander is drawn to symbol spaces, so the dense regions get cut into many small, cheap provinces
  and the fertile ones stay large, valuable and costly: provinces of various sizes form.
* Each symbol gets the same number of spaces (the remainder spread one each), and a symbol is kept
  away from its own kind nearby, so that every symbol is found all over the map and "the closest"
  space of a symbol is rarely far.
* The wall supplies were tuned with ``python -m engine simulate`` (400 greedy games): the empire's so
  that four-player games last 25-40 turns and both endings are common, the Aegean's so that a game of
  two or three players lasts about 15-20 turns. A label never sits on the start point.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from dataclasses import dataclass
from pathlib import Path

# Run as a script from a checkout, the project need not be installed.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

ROOT = Path(__file__).resolve().parent.parent
MAPS = ROOT / "engine" / "maps"
LETTERS = "TAHLS"

Sketch = list[str]
Region = tuple[str, float, float]  # name, column, row of the label's centre in triangle coordinates
Terrain = tuple[tuple[int, int], tuple[int, int], float]  # column range, row range, relative density


@dataclass(frozen=True)
class Design:
    """Everything one generated map is made of."""

    file: str
    name: str
    start: str
    walls: str  # tuned by simulation; see the module docstring
    seed: int
    sketch: Sketch
    regions: list[Region]
    terrain: list[Terrain]
    title: str  # the first comment line
    symbol_share: float = 0.47  # of the land spaces
    tuned: str = "python -m engine simulate --games 400 --players 4"


# fmt: off
EMPIRE = Design(
    file="empire.map",
    name="Alexander's Empire",
    title="Alexander's empire: the default map of Alexandros on Discord.",
    start="B2",  # Pella, in Macedonia (north-west)
    walls="70 black, 10 red",
    seed=336,  # the year Alexander became king
    sketch=[
        "####~~~~~~~~~~###~~~~~~~~######",
        "#######~~~~~######~~~~~~#######",
        "~~~############################",
        "~~~~~###########################",
        "~~~~~~~~~#######################",
        "  ####~~~#########~~~~##########",
        "  ###########   ~~~~~~~~~~~####",
    ],
    regions=[
        ("Macedonia", 1.5, 2.0), ("Thrace", 5.0, 0.8), ("Asia Minor", 7.0, 2.5), ("Armenia", 14.0, 0.8),
        ("Syria", 10.5, 4.5), ("Egypt", 4.5, 5.8), ("Mesopotamia", 12.5, 2.8), ("Babylonia", 14.0, 4.6),
        ("Media", 18.0, 2.5), ("Parthia", 21.0, 1.0), ("Persia", 20.0, 4.2), ("Bactria", 26.0, 0.8),
        ("Arachosia", 23.5, 3.0), ("Gedrosia", 23.0, 5.6), ("Gandhara", 28.5, 1.8), ("Indus", 29.0, 5.0),
    ],
    terrain=[
        ((2, 9), (5, 6), 0.55),  # the Nile: fertile
        ((11, 16), (2, 5), 0.65),  # Mesopotamia and Babylonia: fertile
        ((26, 31), (3, 6), 0.65),  # the Indus: fertile
        ((5, 10), (1, 3), 1.25),  # the Anatolian plateau
        ((17, 20), (2, 4), 1.3),  # the Zagros
        ((22, 28), (0, 2), 1.25),  # the Hindu Kush
        ((20, 26), (5, 6), 1.3),  # Carmania and Gedrosia: desert
    ],
)
AEGEAN = Design(
    file="aegean.map",
    name="The Aegean",
    title="The Aegean: a small map for a quick game of 2 or 3 players.",
    start="B2",  # Pella again
    walls="40 black, 6 red",
    seed=334,  # the year Alexander crossed the Hellespont
    sketch=[
        "#########~~~~~~~~~~~",
        "###~~#####~~~~######",
        "~##~~~~~############",
        "~~~~~~##############",
        "~~~~~###############",
        "~~~~~~~~~~######~~~~",
    ],
    regions=[
        ("Macedonia", 1.0, 0.8), ("Thrace", 5.5, 0.5), ("Troad", 8.0, 2.2), ("Bithynia", 14.0, 1.2),
        ("Lydia", 9.0, 3.8), ("Phrygia", 15.0, 3.0), ("Caria", 7.5, 4.6), ("Cilicia", 13.5, 5.0),
    ],
    terrain=[
        ((6, 11), (2, 4), 0.7),  # the Ionian coast: fertile
        ((12, 19), (1, 3), 1.2),  # the Phrygian highlands
    ],
    symbol_share=0.44,
    tuned="python -m engine simulate --map engine/maps/aegean.map --games 400 --players 3",
)
# fmt: on

DESIGNS = [EMPIRE, AEGEAN]


def land_spaces(d: Design) -> list[tuple[int, int]]:
    return [(r, c) for r, row in enumerate(d.sketch) for c, ch in enumerate(row) if ch == "#"]


def density(d: Design, space: tuple[int, int]) -> float:
    r, c = space
    for (c0, c1), (r0, r1), k in d.terrain:
        if c0 <= c <= c1 and r0 <= r <= r1:
            return k
    return 1.0


def centre(space: tuple[int, int]) -> tuple[float, float]:
    """Screen position of a triangle's centre, in side lengths."""
    r, c = space
    up = (r + c) % 2 == 0
    y = (r + (2 / 3 if up else 1 / 3)) * math.sqrt(3) / 2
    return (c + 1) / 2, y


def choose_symbol_spaces(d: Design, land: list[tuple[int, int]], rng: random.Random) -> list[tuple[int, int]]:
    """Pick the symbol spaces one by one where the terrain wants them and few symbols stand nearby."""
    want = round(d.symbol_share * len(land))
    pos = {s: centre(s) for s in land}
    chosen: list[tuple[int, int]] = []
    crowd = dict.fromkeys(land, 0.0)
    left = set(land)
    while len(chosen) < want:
        # Crowding falls off with distance; the random factor keeps the pattern irregular.
        best = max(sorted(left), key=lambda s: density(d, s) * (0.55 + rng.random()) / (1.0 + crowd[s]))
        chosen.append(best)
        left.discard(best)
        bx, by = pos[best]
        for s in left:
            x, y = pos[s]
            dist = math.hypot(x - bx, y - by)
            if dist < 2.0:
                crowd[s] += (2.0 - dist) ** 2
    return sorted(chosen)


def assign_symbols(spaces: list[tuple[int, int]], rng: random.Random) -> dict[tuple[int, int], str]:
    """Equal counts per symbol (the remainder one each), then swaps that keep each symbol from its own kind.

    The energy counts pairs of equal symbols closer than 4 sides, the closer the more; random swaps that
    lower it are kept. The counts never change.
    """
    n = len(spaces)
    deck = [sym for i, sym in enumerate(LETTERS) for _ in range(n // 5 + (1 if i < n % 5 else 0))]
    rng.shuffle(deck)
    out = dict(zip(spaces, deck, strict=True))
    pos = {s: centre(s) for s in spaces}
    near: dict[tuple[int, int], list[tuple[tuple[int, int], float]]] = {s: [] for s in spaces}
    for a in spaces:
        for b in spaces:
            d = math.hypot(pos[a][0] - pos[b][0], pos[a][1] - pos[b][1])
            if a != b and d < 4.0:
                near[a].append((b, 1.0 / (0.25 + d * d)))

    def energy(s: tuple[int, int], sym: str) -> float:
        return sum(w for t, w in near[s] if out[t] == sym)

    for _ in range(40 * n):
        a, b = rng.sample(spaces, 2)
        sa, sb = out[a], out[b]
        if sa == sb:
            continue
        before = energy(a, sa) + energy(b, sb)
        out[a], out[b] = sb, sa
        after = energy(a, sb) + energy(b, sa)
        if after >= before:
            out[a], out[b] = sa, sb
    return out


def label_point(d: Design, land: set[tuple[int, int]], col: float, row: float, taken: set[str]) -> str:
    """A free lattice point near (col, row), preferring points with land all round, as a label."""
    best: tuple[float, str] | None = None
    for i in range(1, len(d.sketch)):
        for x in range(1, 60):
            if (x + i) % 2 == 0:
                continue
            around = [(i - 1, x - 2), (i - 1, x - 1), (i - 1, x), (i, x - 2), (i, x - 1), (i, x)]
            on_land = sum(1 for t in around if t in land)
            name = f"{chr(ord('A') + i)}{x}"
            if on_land < 4 or name in taken:
                continue
            d = (x - (col + 1)) ** 2 + ((i - (row + 0.5)) * 1.7) ** 2 + 2.0 * (6 - on_land)
            if best is None or d < best[0]:
                best = (d, name)
    assert best is not None
    taken.add(best[1])
    return best[1]


def connected(land: list[tuple[int, int]]) -> bool:
    """Whether all land spaces form one piece through shared sides (an island could not be reached)."""
    from engine.geometry import neighbour_across, sides_of

    todo, seen, land_set = [land[0]], {land[0]}, set(land)
    while todo:
        s = todo.pop()
        for sd in sides_of(s):
            t = neighbour_across(s, sd)
            if t in land_set and t not in seen:
                seen.add(t)
                todo.append(t)
    return len(seen) == len(land)


def build(d: Design) -> str:
    rng = random.Random(d.seed)
    land = land_spaces(d)
    assert connected(land), f"{d.file}: the land is not one piece"
    symbols = assign_symbols(choose_symbol_spaces(d, land, rng), rng)
    rows = []
    for r, row in enumerate(d.sketch):
        chars = []
        for c, ch in enumerate(row):
            if ch == "#":
                chars.append(symbols.get((r, c), "."))
            elif ch == "~":
                chars.append("~")
            else:
                chars.append(" ")
        rows.append("".join(chars).rstrip())
    land_set = set(land)
    counts = {sym: sum(1 for v in symbols.values() if v == sym) for sym in LETTERS}
    lines = [
        f"# {d.title}",
        "# Generated by tools/design_map.py, which documents the design. Do not edit by hand.",
        f"# {len(land)} land spaces, {len(symbols)} symbol spaces: "
        + ", ".join(f"{k} {v}" for k, v in counts.items()),
        f"# The wall supply is tuned by self-play: {d.tuned}.",
        f"name: {d.name}",
        f"start: {d.start}",
        f"walls: {d.walls}",
    ]
    taken = {d.start}  # a label never hides Alexander's start
    lines += [f"label: {name} at {label_point(d, land_set, c, r, taken)}" for name, c, r in d.regions]
    lines.append("grid:")
    lines += rows
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if a map on disk differs")
    parser.add_argument("--print", action="store_true", help="print the maps instead of writing them")
    args = parser.parse_args(argv)
    stale = 0
    for d in DESIGNS:
        text = build(d)
        out = MAPS / d.file
        if args.print:
            print(text, end="")
        elif args.check:
            same = out.exists() and out.read_text(encoding="utf-8") == text
            print(f"{d.file} is up to date" if same else f"{d.file} differs from the generator")
            stale += not same
        else:
            out.write_text(text, encoding="utf-8")
            print(f"wrote {out}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
