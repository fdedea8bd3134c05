"""Benchmark: how long a duty one process commits for another process's shard waits before its owner
claims it, with the owner listening (PostgreSQL LISTEN/NOTIFY, `GameStore.listen_for_duties`) beside the
baseline measured in the same run: an owner that only polls (the bot's fallback, and all it did before).

The writer and the owner are two stores on one PostgreSQL (each its own pool of server sessions, as two
processes have; the notification goes through the server). Each sample: the writer commits one due duty
for a guild on the owner's shard, then the owner claims it, woken by the notification or at its next poll
(every --poll seconds; the bot polls every 60 s, and so does the listening owner here). Printed: the
wait from commit to claim, p50/p99/max.

    python benchmarks/bench_wakeups.py [--samples 200] [--poll 1.0] [--poll-samples 10] [--url postgresql://...]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "storage"))

from storage import GameStore, NewDuty, ShardSlice, open_postgres_store  # noqa: E402

SHARDS = ShardSlice(2, (1,))  # the owner serves shard 1 of 2
GUILD = (7 << 22) | 1  # on shard 1


async def owner_loop(
    owner: GameStore, woken: asyncio.Event, poll: float, claimed: dict[int, asyncio.Future[float]]
) -> None:
    """The delivery worker's wait: until woken, or ``poll`` seconds; then claim what is due."""
    while True:
        try:
            await asyncio.wait_for(woken.wait(), poll)
        except TimeoutError:
            pass
        woken.clear()
        for d in await owner.claim_duties(time.time(), "owner", 60.0, 10, SHARDS):
            # The notification can wake the owner before the writer's add_duties has returned.
            arrival(claimed, d.id).set_result(time.perf_counter())
            await owner.finish_duty(d.id, "owner", time.time())


def arrival(claimed: dict[int, asyncio.Future[float]], duty_id: int) -> asyncio.Future[float]:
    """The future of one duty's claim, made by whichever side, writer or owner, asks first."""
    return claimed.setdefault(duty_id, asyncio.get_running_loop().create_future())


async def measure(url: str, samples: int, listen: bool, poll: float) -> list[float]:
    """Commit ``samples`` duties at random moments; each one's wait from commit to claim, in seconds."""
    writer, owner = await open_postgres_store(url), await open_postgres_store(url)
    woken = asyncio.Event()
    claimed: dict[int, asyncio.Future[float]] = {}
    rng = random.Random(7)
    try:
        if listen:
            await owner.listen_for_duties(SHARDS, woken.set)
            await asyncio.wait_for(woken.wait(), 10)  # listening now
        game = await writer.create_game(GUILD, 1_000 + int(listen), 1, {}, time.time())
        worker = asyncio.ensure_future(owner_loop(owner, woken, poll, claimed))
        waits: list[float] = []
        for _ in range(samples):
            # At a random moment of the owner's poll cycle, as a player presses a button.
            await asyncio.sleep(rng.uniform(0.005, 0.05 if listen else poll))
            (duty,) = await writer.add_duties(game.id, [NewDuty("post", time.time() - 1, 1)], time.time())
            committed = time.perf_counter()
            done = arrival(claimed, duty.id)
            # Bounded: a dead owner loop or a lost notification ends the run with an error, never a hang.
            await asyncio.wait({done, worker}, timeout=poll + 30, return_when=asyncio.FIRST_COMPLETED)
            if not done.done():
                worker.cancel()
                raise RuntimeError(f"duty {duty.id} was not claimed within {poll + 30:g} s") from (
                    worker.exception() if worker.done() and not worker.cancelled() else None
                )
            # A claim woken before add_duties returned arrived as the commit did: no wait.
            waits.append(max(0.0, done.result() - committed))
        worker.cancel()
        await writer.abandon_game(game.id, time.time())
        return waits
    finally:
        await owner.close()
        await writer.close()


def figures(waits: list[float]) -> dict[str, float]:
    ordered = sorted(w * 1000 for w in waits)
    n = len(ordered)
    return {"p50": ordered[n // 2], "p99": ordered[min(n - 1, int(0.99 * n))], "max": ordered[-1]}


async def main(samples: int = 200, poll: float = 1.0, poll_samples: int = 10, url: str | None = None) -> int:
    cluster: Any = None
    if url is None:
        import pg_cluster

        cluster = pg_cluster.start_cluster()
        url = cluster.url(cluster.create_database("wakeups"))
    try:
        listening = figures(await measure(url, samples, True, 60.0))
        polling = figures(await measure(url, poll_samples, False, poll))
    finally:
        if cluster is not None:
            cluster.stop()
    print("a duty committed by one store for another's shard: commit -> claimed by the owner (ms)")
    print(f"{'owner':<34}{'samples':>8}{'p50':>10}{'p99':>10}{'max':>10}")
    for name, n, r in (
        ("listening (LISTEN/NOTIFY)", samples, listening),
        (f"polling every {poll:g} s (baseline)", poll_samples, polling),
    ):
        print(f"{name:<34}{n:>8}{r['p50']:>10.1f}{r['p99']:>10.1f}{r['max']:>10.1f}")
    ratio = polling["p50"] / max(listening["p50"], 1e-6)
    print(f"p50: {ratio:.0f}x sooner listening; the bot itself polls every 60 s, not every {poll:g} s")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--poll", type=float, default=1.0)
    parser.add_argument("--poll-samples", type=int, default=10)
    parser.add_argument("--url", help="an existing, empty PostgreSQL database (default: a throwaway server)")
    a = parser.parse_args()
    raise SystemExit(asyncio.run(main(a.samples, a.poll, a.poll_samples, a.url)))
