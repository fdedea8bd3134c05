"""Placing a board's labels (rendering.labels): CPU time a board, with the placer before its grid index was
tuned (commit 4f8e1dc) measured side by side in the same run, on the same boards.

    python benchmarks/bench_labels.py [--games 3] [--every 3] [--map PATH] [--no-baseline]

The boards: every ``every``-th state of ``games`` seeded greedy games on the map (by default the 236-space
map of bench_bot, whose boards are the densest), as the public sees them; each is placed afresh (the cache
of recent placements emptied first), as when a move or a guard changes the pieces. Each tree runs in a
process of its own; the baseline's tree is a temporary ``git worktree``. Printed: boards, CPU ms a board
(the median of ``--runs`` passes over all of them), and whether both trees placed the very same labels.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pickle
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
OLD_COMMIT = "4f8e1dc"
MAP = HERE / "tests" / "engine" / "maps" / "empire-2026.map"


def one(games: int, every: int, runs: int, map_path: str) -> dict[str, object]:
    """In this process (whichever tree is first on sys.path): the figures of one tree."""
    from engine.ai import play_game
    from engine.game import evolve
    from engine.maps import load_map
    from engine.views import view
    from rendering.labels import PLACED, Label, label_boxes

    m = load_map(map_path)
    views = []
    for seed in range(1, games + 1):
        _, events, _ = play_game(m, 3 + seed % 2, seed, ai="greedy", check=False)
        state = None
        for e in events:
            state = evolve(state, e)
            if state.version % every == 0:
                views.append(view(state, None))
    placed: list[tuple[Label, ...]] = []
    times = []
    for _ in range(runs):
        placed = []
        start = time.process_time()
        for v in views:
            PLACED.clear()
            placed.append(label_boxes(v))
        times.append((time.process_time() - start) * 1000 / len(views))
    every_box = pickle.dumps([[tuple(vars(x).values()) for x in b] for b in placed])
    digest = hashlib.sha256(every_box).hexdigest()
    return {"boards": len(views), "ms": statistics.median(times), "digest": digest}


def in_process(root: Path, games: int, every: int, runs: int, map_path: str) -> dict[str, object]:
    proc = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--one", str(games), str(every), str(runs), map_path],
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"the run in {root} failed:\n{proc.stderr[-3000:]}")
    result: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def main(
    games: int = 3, every: int = 3, runs: int = 3, map_path: str = str(MAP), baseline: bool = True
) -> int:
    now = in_process(HERE, games, every, runs, map_path)
    name = Path(map_path).name
    print(f"bench_labels: {now['boards']} boards of {games} games, {name}, median of {runs} runs")
    print(f"now:                 {now['ms']:.2f} ms CPU a board")
    if not baseline:
        return 0
    where = Path(tempfile.mkdtemp(prefix="alx-labels-"))
    shutil.rmtree(where)
    subprocess.run(["git", "-C", str(HERE), "worktree", "add", "--detach", str(where), OLD_COMMIT],
                   check=True, capture_output=True)  # fmt: skip
    try:
        old = in_process(where, games, every, runs, map_path)
    finally:
        subprocess.run(["git", "-C", str(HERE), "worktree", "remove", "--force", str(where)],
                       capture_output=True)  # fmt: skip
    ratio = float(str(now["ms"])) / float(str(old["ms"]))
    print(f"{OLD_COMMIT} (before):    {old['ms']:.2f} ms CPU a board ({ratio:.2f}x)")
    print(f"the same labels on every board: {'yes' if now['digest'] == old['digest'] else 'NO'}")
    return 0 if now["digest"] == old["digest"] else 1


if __name__ == "__main__":
    if len(sys.argv) == 6 and sys.argv[1] == "--one":
        sys.path.insert(0, os.getcwd())
        print(json.dumps(one(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])))
        raise SystemExit(0)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--every", type=int, default=3)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--map", default=str(MAP))
    parser.add_argument("--no-baseline", action="store_true")
    a = parser.parse_args()
    raise SystemExit(main(a.games, a.every, a.runs, a.map, not a.no_baseline))
