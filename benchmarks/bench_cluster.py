"""Benchmark: game actions per second through the whole bot, with 1, 2 and 4 processes on one PostgreSQL,
beside SQLite on one process (the baseline, measured in the same run).

Each process is one member of a cluster: the real bot (bot.client.make_bot) with its slice of the shards
(process k of n serves shard k of n), on an offline Discord of its own whose guild is on that shard, with
the real renderer (in a thread of the process: ALEXANDROS_RENDER_WORKERS=0) and the default map. It
plays greedy 3-player games one after another through interactions, exactly as the tests do
(tests/bot/driver.py: slash commands, autocomplete, buttons, selects), so that every action goes
interaction -> pipeline -> commit -> duties -> delivery worker (the board picture, the turn post's edit,
the next player's ping) -> the fake Discord. One action is one game action committed (a move, a card
taken, a levy, an end of turn...); each took one to five interactions. A process handles one interaction
at a time (one player at a time, as in bench_bot.py), so the figures say how processes add up, each
with its own games. "bot cores" is the CPU the bot processes got per second of the window: when other work
holds the machine's cores, more processes cannot get more of them, and the rows say so.

The store-level figures of the same comparison come from bench_postgres.py. PostgreSQL is a throwaway
server started here (tests/storage/pg_cluster.py, durability off as in the tests) unless --url names an
empty database. Every process and the server share this machine's cores.

    python benchmarks/bench_cluster.py [--seconds 20] [--processes 1,2,4] [--url postgresql://...]
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import multiprocessing
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "storage"))


class TimeUp(Exception):
    """The measured window is over: stop the game being played."""


def guild_of_shard(shard: int, count: int) -> int:
    """A guild id on ``shard`` of ``count``: Discord's rule is (guild_id >> 22) % count."""
    base = 1_300_000_000_000
    return ((base + (shard - base) % count) << 22) | 4242


async def run_process(
    url: str, shard: int, count: int, start_at: float, seconds: float, seed: int, channel: int
) -> tuple[list[float], int, float]:
    """Plays games until the window closes; returns the latency of each action done inside the window,
    the interactions in the window, and the CPU time of this process in it."""
    from bot.client import make_bot
    from bot.games.pictures import Pictures
    from engine.maps import default_map
    from tests.bot.driver import Game, play_whole_game
    from tests.harness import OfflineDiscord

    game_map = default_map()
    shards: dict[str, Any] = {} if count == 0 else {"shard_count": count, "shard_ids": (shard,)}

    def factory() -> Any:
        return make_bot(
            url, map_provider=lambda: game_map, clock=time.time, seed_source=lambda: seed,
            pictures=Pictures(), **shards,
        )  # fmt: skip

    d = OfflineDiscord(
        factory,
        guild_id=guild_of_shard(shard, max(count, 1)),
        channel_id=channel,  # a channel of its own: a channel has one game in play at a time
        loggers=("bot",),
        watched_tasks=("alx-",),
    )
    latencies: list[float] = []
    async with d:
        await d.bot.warmed()
        await asyncio.sleep(max(0.0, start_at - time.time()))
        deadline = time.perf_counter() + seconds
        interactions = len(d.history)
        cpu = time.process_time()
        last = time.perf_counter()

        async def on_action(g: Game, n: int) -> None:
            nonlocal last
            now = time.perf_counter()
            if now > deadline:
                raise TimeUp
            latencies.append(now - last)
            last = now

        game = 0
        while time.perf_counter() < deadline:
            game += 1
            last = time.perf_counter()
            try:
                await play_whole_game(
                    d, 3, ai_seed=seed * 1000 + game, on_action=on_action, require_end=False
                )
            except TimeUp:
                break
        cpu = time.process_time() - cpu
        interactions = len(d.history) - interactions
        # The game left in play when the window closed is simply left in its channel: this bot is done.
    return latencies, interactions, cpu


def process_entry(
    url: str, shard: int, count: int, start_at: float, seconds: float, seed: int, channel: int
) -> tuple[list[float], int, float]:
    return asyncio.run(run_process(url, shard, count, start_at, seconds, seed, channel))


def measure(url: str, processes: int, seconds: float, sharded: bool) -> dict[str, float]:
    channels = 7_000_000_000_000_000_000 + processes * 100
    # Every process starts its bot (login, store, warm-up) first; then all play together.
    start_at = time.time() + 8.0 + 2.0 * processes
    spawn = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(processes, mp_context=spawn) as pool:
        futures = [
            pool.submit(
                process_entry, url, k, processes if sharded else 0, start_at, seconds, 11 + k, channels + k
            )
            for k in range(processes)
        ]
        results = [f.result() for f in futures]
    latencies = sorted(x for lat, _, _ in results for x in lat)
    n = max(1, len(latencies))
    return {
        "actions": len(latencies),
        "per_second": len(latencies) / seconds,
        "interactions": sum(i for _, i, _ in results) / seconds,
        "p50": latencies[len(latencies) // 2] * 1000 if latencies else 0.0,
        "p99": latencies[min(n - 1, int(0.99 * n))] * 1000 if latencies else 0.0,
        "cpu_ms": sum(cpu for _, _, cpu in results) * 1000 / n,
        # Cores the bot processes got (the server's are not counted): a loaded machine gives fewer.
        "cores": sum(cpu for _, _, cpu in results) / seconds,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--processes", default="1,2,4")
    parser.add_argument("--url", help="an existing, empty PostgreSQL database (default: a throwaway server)")
    args = parser.parse_args()
    counts = [int(p) for p in args.processes.split(",")]
    cluster = None
    if args.url:
        pg_url = args.url
    else:
        import pg_cluster

        cluster = pg_cluster.start_cluster()
        pg_url = cluster.url(cluster.create_database("bench"))
    try:
        with tempfile.TemporaryDirectory() as directory:
            print(
                f"greedy 3-player games on the default map through the offline Discord, real renderer; "
                f"{args.seconds:g} s per row; process k of n serves shard k of n and plays in its guild"
            )
            rows: list[tuple[str, int, dict[str, float]]] = []
            rows.append(("sqlite", 1, measure(str(Path(directory) / "bench.db"), 1, args.seconds, False)))
            for processes in counts:
                rows.append(("postgres", processes, measure(pg_url, processes, args.seconds, True)))
            base = rows[0][2]["per_second"]
            # Other work on the machine takes cores from the bots and the server: say how busy it was.
            print(f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
            print()
            head = (
                "backend", "processes", "actions/s", "vs SQLite", "interact./s", "p50 ms", "p99 ms",
                "CPU ms/act", "bot cores",
            )  # fmt: skip
            print("{:<10} {:>9} {:>10} {:>10} {:>11} {:>8} {:>8} {:>10} {:>9}".format(*head))
            for name, processes, r in rows:
                print(
                    f"{name:<10} {processes:>9} {r['per_second']:>10.1f} {r['per_second'] / base:>9.2f}x"
                    f" {r['interactions']:>11.1f} {r['p50']:>8.1f} {r['p99']:>8.1f} {r['cpu_ms']:>10.1f}"
                    f" {r['cores']:>9.2f}"
                )
    finally:
        if cluster is not None:
            cluster.stop()


if __name__ == "__main__":
    main()
