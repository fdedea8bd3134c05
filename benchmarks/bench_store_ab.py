"""The store's CPU per action, this tree against another commit's, in alternating rounds (issue 31).

One action is bench_postgres.py's (`act`: load the snapshot, a stand-in for the engine, append the event,
the snapshot, whose turn it is, a post and a keyed reminder), made one at a time over 50 games, on SQLite
and on a throwaway PostgreSQL server (tests/storage/pg_cluster.py). Each tree runs in a process of its own
(its own `storage` package); each figure is the best of 5 batches of 300 actions (the least disturbed by
the machine's other work), after 200 to warm up. Also printed: the database calls a hundred actions make
on PostgreSQL (asyncpg's), which must be the same if only the code around them changed.

    python benchmarks/bench_store_ab.py [--before 976715c] [--rounds 3] [--batch 300] [--warm 200]

The default baseline, 976715c, is the tree before each storage operation was written once (issue 31).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import pstats
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
_CALLS = ("fetch", "fetchrow", "execute", "executemany")


async def measure(url: str, batch: int, warm: int) -> None:
    """In a tree's own process: print its best CPU ms per action, and asyncpg's calls per 100 actions."""
    from bench_postgres import act, realistic_snapshot  # the tree's own, found on sys.path

    from storage import open_database

    store = await open_database(url)
    rng = random.Random(1)
    ids = []
    for i in range(50):
        game = await store.create_game(1, 10_000 + i, 1, {}, time.time())
        snapshot = realistic_snapshot(rng)
        await store.append(game.id, 0, [{"t": "deal"}], snapshot, time.time(), status="playing")
        ids.append(game.id)
    for _ in range(warm):
        await act(store, rng.choice(ids), rng)
    best = float("inf")
    for _ in range(5):
        cpu = time.process_time()
        for _ in range(batch):
            await act(store, rng.choice(ids), rng)
        best = min(best, (time.process_time() - cpu) / batch * 1000)
    profile = cProfile.Profile()
    profile.enable()
    for _ in range(100):
        await act(store, rng.choice(ids), rng)
    profile.disable()
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    calls = sum(v[1] for k, v in stats.items() if k[2] in _CALLS and "asyncpg" in k[0])
    print(f"{best:.3f} {calls}", flush=True)
    await store.close()


def run_tree(tree: Path, url: str, batch: int, warm: int) -> tuple[float, int]:
    env = {**os.environ, "PYTHONPATH": f"{tree}{os.pathsep}{tree / 'benchmarks'}"}
    child = [sys.executable, str(Path(__file__).resolve()), "--child", url]
    child += ["--batch", f"{batch}", "--warm", f"{warm}"]
    done = subprocess.run(child, env=env, cwd=tree, capture_output=True, text=True, timeout=600, check=True)
    best, calls = done.stdout.split()[-2:]
    return float(best), int(calls)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench_store_ab")
    parser.add_argument("--before", default="976715c", help="the baseline commit")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--batch", type=int, default=300, help="actions a batch (the best of 5 is kept)")
    parser.add_argument("--warm", type=int, default=200, help="actions before the first batch")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        asyncio.run(measure(args.child, args.batch, args.warm))
        return 0
    sys.path.insert(0, str(HERE / "tests" / "storage"))
    from pg_cluster import start_cluster

    with tempfile.TemporaryDirectory() as scratch:
        base = Path(scratch) / "before"
        subprocess.run(["git", "-C", str(HERE), "worktree", "add", "-q", "--detach", str(base), args.before],
                       check=True)  # fmt: skip
        cluster = start_cluster()
        try:
            rows: dict[tuple[str, str], list[tuple[float, int]]] = {}
            for n in range(args.rounds):
                # Who goes first alternates.
                trees = [("before", base), ("now", HERE)][:: 1 if n % 2 == 0 else -1]
                for name, tree in trees:
                    for backend in ("sqlite", "postgres"):
                        url = cluster.url(cluster.create_database(cluster.new_name("ab")))
                        if backend == "sqlite":
                            url = str(Path(scratch) / f"{name}{n}.db")
                        rows.setdefault((backend, name), []).append(
                            run_tree(tree, url, args.batch, args.warm)
                        )
                print(f"round {n + 1} done, load {os.getloadavg()[0]:.1f}", flush=True)
        finally:
            cluster.stop()
            subprocess.run(["git", "-C", str(HERE), "worktree", "remove", "--force", str(base)], check=False)
    print(
        f"CPU ms per action, best of 5 batches of {args.batch}, {args.rounds} rounds; before = {args.before}"
    )
    print(f"{'backend':10}{'tree':8}{'each round':>28}{'best':>8}{'asyncpg calls/100':>19}")
    for (backend, name), found in sorted(rows.items()):
        each = " ".join(f"{b:.3f}" for b, _ in found)
        calls = found[0][1] if backend == "postgres" else "-"
        print(f"{backend:10}{name:8}{each:>28}{min(b for b, _ in found):8.3f}{calls!s:>19}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
