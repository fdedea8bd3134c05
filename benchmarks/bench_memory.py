"""Memory of one bot process as it touches more and more games: bounded caches keep it flat.

A store (SQLite, in a temporary folder) is filled with N games in play (lean snapshots of real mid-game
states on the default map, written in bulk). Then every game is touched the way an interaction touches it:
its lock held, its record and state loaded through bot.games.tables (``Tables.by_id``). RSS is read after
1,000 games and after N; every garbage collection's pause is timed through ``gc.callbacks``.

Baseline in the same run (a process of its own): the same touches with an unbounded state cache, as before
issue 12 (``GameService._cache`` kept every game ever touched), over ``--baseline`` games.

    python benchmarks/bench_memory.py [--games 100000] [--baseline 10000] [--cache 2000]

Targets (issue 12): RSS after touching 100,000 games <= 1.2x the RSS after 1,000; GC pauses <= 50 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.games.tables import Tables  # noqa: E402
from engine import ai  # noqa: E402
from engine.game import apply, new_game  # noqa: E402
from engine.maps import default_map  # noqa: E402
from engine.snapshot import dumps_state  # noqa: E402
from storage import open_store  # noqa: E402


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


class GcPauses:
    """The duration of every collection (gc.callbacks: 'start' and 'stop'): wall time, and the CPU time of
    the thread (on a shared machine the process may be switched out in the middle of a collection)."""

    def __init__(self) -> None:
        self.pauses: list[float] = []
        self.cpu: list[float] = []
        self._t = 0.0
        self._c = 0.0
        self.paused = False  # our own gc.collect() calls (to read RSS) are not the collector's pauses
        gc.callbacks.append(self._cb)

    def _cb(self, phase: str, info: dict[str, int]) -> None:
        if self.paused:
            return
        if phase == "start":
            self._t, self._c = time.perf_counter(), time.thread_time()
        else:
            self.pauses.append(time.perf_counter() - self._t)
            self.cpu.append(time.thread_time() - self._c)


def sample_snapshots(count: int = 20) -> list[str]:
    """Lean snapshots of real mid-game states (several, so the games are not all alike)."""
    out = []
    for seed in range(1, count + 1):
        state, _ = new_game(default_map(), 3, seed)
        rng = random.Random(seed)
        for _ in range(30 + seed):
            if state.over:
                break
            state, _ = apply(state, ai.greedy_player(state, rng))
        out.append(dumps_state(state))
    return out


async def fill(path: Path, games: int) -> None:
    store = await open_store(path)
    try:
        snaps = sample_snapshots()
        game_map = default_map()
        await store._write(  # type: ignore[attr-defined]
            lambda c: c.execute(
                "INSERT INTO maps (digest, name, text) VALUES (?, ?, ?)",
                (game_map.digest, game_map.name, game_map.text),
            )
        )
        versions = [json.loads(s)["version"] for s in snaps]

        async def body(conn: object) -> None:
            c = conn  # an aiosqlite connection in the store's write transaction
            await c.executemany(  # type: ignore[attr-defined]
                "INSERT INTO games (id, guild_id, channel_id, status, options, version, created_by,"
                " created_at, updated_at, waiting_on, turn_started_at)"
                " VALUES (?, 1, ?, 'playing', ?, ?, 1, 0, 0, ?, 0)",
                [
                    (i, 10_000_000 + i, json.dumps({"names": {"1": "a", "2": "b", "3": "c"}}),
                     versions[i % len(snaps)], 1)
                    for i in range(1, games + 1)
                ],
            )  # fmt: skip
            await c.executemany(  # type: ignore[attr-defined]
                "INSERT INTO seats (game_id, seat, user_id) VALUES (?, ?, ?)",
                [(i, s, s + 1) for i in range(1, games + 1) for s in range(3)],
            )
            await c.executemany(  # type: ignore[attr-defined]
                "INSERT INTO snapshots (game_id, version, body) VALUES (?, ?, ?)",
                [(i, versions[i % len(snaps)], snaps[i % len(snaps)]) for i in range(1, games + 1)],
            )

        await store._write(body)  # type: ignore[attr-defined]
    finally:
        await store.close()


async def touch(path: Path, games: int, cache: int) -> dict[str, float]:
    store = await open_store(path)
    tables = Tables(store, cache)
    await tables.by_id(1)  # the map parsed, as the bot's warm-up does; then, as the bot does, freeze
    gc.collect()
    gc.freeze()
    pauses = GcPauses()
    out: dict[str, float] = {}
    try:
        started = time.perf_counter()
        for i in range(1, games + 1):
            async with tables.locks.hold(i):
                table = await tables.by_id(i)
                assert table.state is not None
            if i == min(1_000, games):
                pauses.paused = True
                gc.collect()
                pauses.paused = False
                out["rss at 1,000"] = rss_mb()
        pauses.paused = True
        gc.collect()
        out["rss at end"] = rss_mb()
        out["seconds"] = time.perf_counter() - started
        out["cached"] = len(tables.cache)
        out["locks"] = len(tables.locks)
        out["gc max ms"] = max(pauses.pauses, default=0.0) * 1000
        out["gc max cpu ms"] = max(pauses.cpu, default=0.0) * 1000
        out["gcs"] = len(pauses.pauses)
    finally:
        await store.close()
    return out


def one(path: Path, games: int, cache: int) -> dict[str, float]:
    """One measurement in a fresh process, so that its RSS is its own."""
    proc = subprocess.run(
        [sys.executable, __file__, "--one", str(path), str(games), str(cache)],
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, float] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def main(games: int = 100_000, baseline: int = 10_000, cache: int = 2000) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "m.db"
        asyncio.run(fill(path, max(games, baseline)))
        rows = [(f"bounded cache ({cache} games)", games, one(path, games, cache))]
        if baseline:
            rows.append(("baseline: unbounded cache", baseline, one(path, baseline, 10**9)))
    print("bench_memory: touching games through bot.games.tables (lock, record, lean snapshot), default map")
    print(f"{'cache':<30}{'games':>8}{'RSS@1k MB':>11}{'RSS@end MB':>12}{'ratio':>7}{'kept':>8}"
          f"{'locks':>7}{'GC max ms':>11}{'(CPU)':>7}{'touch/s':>9}")  # fmt: skip
    for name, n, r in rows:
        ratio = r["rss at end"] / r["rss at 1,000"] if n >= 1000 else float("nan")
        print(
            f"{name:<30}{n:>8}{r['rss at 1,000']:>11.1f}{r['rss at end']:>12.1f}{ratio:>7.2f}"
            f"{r['cached']:>8.0f}{r['locks']:>7.0f}{r['gc max ms']:>11.1f}{r['gc max cpu ms']:>7.1f}"
            f"{n / r['seconds']:>9.0f}"
        )
    if baseline:
        b = rows[1][2]
        per_game = (b["rss at end"] - b["rss at 1,000"]) * 1024 / max(1, baseline - 1000)
        print(f"baseline grows by {per_game:.1f} KB per game touched: {per_game * games / 1024:.0f} MB "
              f"at {games} games")  # fmt: skip
    r = rows[0][2]
    ok = r["rss at end"] <= 1.2 * r["rss at 1,000"] and r["gc max cpu ms"] <= 50
    verdict = "met" if ok else "NOT met"
    print(f"targets (RSS ratio <= 1.2, GC pauses <= 50 ms of the collector's CPU time): {verdict} "
          f"(wall-clock max {r['gc max ms']:.0f} ms: this machine is shared)")  # fmt: skip
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--one":
        print(json.dumps(asyncio.run(touch(Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])))))
        raise SystemExit(0)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--baseline", type=int, default=10_000)
    parser.add_argument("--cache", type=int, default=2000)
    a = parser.parse_args()
    raise SystemExit(main(a.games, a.baseline, a.cache))
