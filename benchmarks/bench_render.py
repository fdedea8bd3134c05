"""How long a mid-game board takes to render and encode, and how big its PNG is.

Run: ``python benchmarks/bench_render.py [--runs N] [--width PX]``. Uses the default map (the demo map of
``rendering.samples`` if the default map is missing), a seeded greedy game, and the public view of a
state in the middle of it. The first render (which builds the cached map layers) is reported apart.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import view  # noqa: E402
from engine.state import Phase  # noqa: E402
from rendering import render_board  # noqa: E402
from rendering.samples import play, sample_map  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--width", type=int, default=1600)
    args = parser.parse_args()
    m = sample_map()
    game = play(m, players=4, seed=11)
    states = [s for s in game.states if s.phase is Phase.ACTIONS]
    state = states[len(states) * 2 // 3] if states else game.states[len(game.states) // 2]
    v = view(state)
    names = ("Alexandra", "Björn", "Chloé", "Dmitri")
    t0 = time.perf_counter()
    png = render_board(v, names, args.width)
    first = (time.perf_counter() - t0) * 1000
    times, cpu = [], []
    for _ in range(args.runs):
        t0, c0 = time.perf_counter(), time.process_time()
        png = render_board(v, names, args.width)
        times.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
    walls = len(v.walls)
    guards = sum(len(p.guards) for p in v.players)
    print(
        f"map: {m.name} ({len(m.spaces)} land spaces), turn {v.turn}, {walls} walls, {guards} guards, "
        f"{len(v.provinces)} provinces"
    )
    print(f"first render (builds the map layer): {first:.1f} ms")
    print(
        f"median render+encode at {args.width} px over {args.runs} runs: {statistics.median(times):.1f} ms "
        f"(min {min(times):.1f}, max {max(times):.1f})"
    )
    # CPU time of this process: the same figure when other processes load the machine.
    print(f"median CPU time per render: {statistics.median(cpu):.1f} ms")
    print(f"PNG size: {len(png)} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
