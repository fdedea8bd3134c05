"""Drains a backlog of due reminders through the real bot and the offline Discord, at Discord's pace.

N games (each in its own channel, on the default map, real SQLite store) are started through the pipeline,
so each has its turn's reminder in the outbox; the clock then jumps past them, and the delivery worker
drains them while the fake Discord enforces the global limit of 50 requests a second (a token bucket that
answers 429 with Retry-After beyond it). Printed: the time to deliver all N, the rate, the 429s, and that
each reminder went out exactly once (one message per channel; every remind duty done as "sent").

Baseline in the same run: the same worker without its pacer (``rate=None``, the earlier batch of 50), on
``--baseline`` games: it sends as fast as it can, meets the limit, and retries after each 429. (Before
issue 12 the bot sent at most 100 notices a minute: 10,000 took 100 minutes.)

    python benchmarks/bench_notices.py [--games 10000] [--baseline 2000]

Target (issue 12): 10,000 due reminders within 5 minutes, each exactly once.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.games.tables import Table, names_of  # noqa: E402
from bot.outbox.deliveries import Deliveries, Pacer  # noqa: E402
from engine.game import new_game  # noqa: E402
from engine.maps import default_map  # noqa: E402
from tests.bot.driver import Clock, bot_factory, harness  # noqa: E402

HOUR = 3600.0


async def run(games: int, paced: bool) -> dict[str, float]:
    clock = Clock()
    with tempfile.TemporaryDirectory() as tmp:
        async with harness(bot_factory(str(Path(tmp) / "n.db"), default_map(), 7, clock)) as d:
            bot = d.bot
            pipeline = bot.pipeline
            store = pipeline.store
            worker: Deliveries = bot.deliveries
            if not paced:
                worker.pacer, worker.batch = None, 50
            base = 900_000_000_000_000_000
            made = time.perf_counter()
            # The turn posts are not what this measures: they are not sent.
            pipeline.wake = lambda game_id: None
            for i in range(games):
                channel = base + i
                d.add_channel(f"t{i}", channel_id=channel)
                users = (base + 10_000_000 + 2 * i, base + 10_000_000 + 2 * i + 1)
                names = {str(u): f"p{u % 1000}" for u in users}
                rec = await store.create_game(d.guild_id, channel, users[0], {"names": names}, clock())
                for u in users:
                    rec = await store.join_seat(rec.id, u, clock())
                state, events = new_game(default_map(), 2, i + 1)
                await pipeline.commit(
                    Table(rec, None, names_of(rec)), state, tuple(events), seats=list(enumerate(users))
                )
            # Mark the turn posts done, leaving only the reminders.
            await store._write(  # type: ignore[attr-defined]
                lambda c: c.execute("UPDATE duties SET done_at = 1, outcome = 'bench' WHERE kind != 'remind'")
            )
            made = time.perf_counter() - made
            limit = d.limit_globally(50.0)
            first = d.mark()
            clock.now += 25 * HOUR  # every reminder is due now
            started = time.perf_counter()
            while True:
                await worker.drain()
                [(left,)] = await store._read(  # type: ignore[attr-defined]
                    "SELECT count(*) FROM duties WHERE kind = 'remind' AND done_at IS NULL AND due_at <= ?",
                    clock.now,
                )
                if not left:
                    break
                await asyncio.sleep(0.05)
            took = time.perf_counter() - started
            sent = [r for r in d.requests_since(first) if r.kind == "channel_message" and r.fault is None]
            per_channel = Counter(r.channel_id for r in sent if not r.deduplicated)
            # Exactly once: one reminder message in every channel (a retry whose first attempt got through
            # would be deduplicated by its nonce, and is not counted), and none due is left.
            once = len(per_channel) == games and set(per_channel.values()) == {1}
            return {
                "games": games,
                "setup s": made,
                "seconds": took,
                "per second": games / took,
                "429s": limit.refused,
                "requests": limit.passed,
                "exactly once": float(once),
                "channels reached": len(per_channel),
            }


async def main(games: int = 10_000, baseline: int = 2_000) -> int:
    print(f"bench_notices: {games} due reminders, one per channel; Discord's global limit (fake): 50/s")
    rows = []
    if baseline:
        rows.append(("baseline: no pacer, batch 50", await run(baseline, paced=False)))
    rows.append((f"the worker: pacer {Pacer(45).rate:.0f}/s, batch 100", await run(games, paced=True)))
    print(
        f"{'worker':<34}{'reminders':>10}{'sent':>8}{'seconds':>10}{'per s':>8}{'429s':>8}"
        f"{'exactly once':>14}"
    )
    for name, r in rows:
        print(
            f"{name:<34}{r['games']:>10.0f}{r['channels reached']:>8.0f}{r['seconds']:>10.1f}"
            f"{r['per second']:>8.1f}{r['429s']:>8.0f}{'yes' if r['exactly once'] else 'NO':>14}"
        )
    final = rows[-1][1]
    projected = 10_000 / final["per second"]
    ok = final["exactly once"] and projected <= 300
    print(f"10,000 reminders at this rate: {projected:.0f} s (target <= 300 s, each exactly once):",
          "met" if ok else "NOT met")  # fmt: skip
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--baseline", type=int, default=2_000)
    a = parser.parse_args()
    raise SystemExit(asyncio.run(main(a.games, a.baseline)))
