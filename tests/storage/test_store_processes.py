"""Several real processes on one PostgreSQL database, as bot clusters share it (pg_process_child.py).

- 3 processes deliver 10,000 due duties: each exactly once, and each channel's in order.
- 3 processes, each serving one shard of three, deliver only their own guilds' duties.
- 2 processes race on one game's append, round after round: one commit wins, the other is refused.
- A process SIGKILLed after claiming duties and before finishing them loses nothing: its leases run
  out and another process delivers those duties, once.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import asyncpg
from pg_cluster import PgCluster

from storage import GameStore, NewDuty, open_postgres_store

CHILD = Path(__file__).with_name("pg_process_child.py")
ROOT = Path(__file__).resolve().parents[2]
CHANNELS = 200


async def fresh_store(cluster: PgCluster) -> tuple[str, GameStore]:
    schema = cluster.new_name("mp")
    conn = await asyncpg.connect(cluster.url())
    try:
        await conn.execute(f"CREATE SCHEMA {schema}")
    finally:
        await conn.close()
    url = cluster.url(schema=schema)
    return url, await open_postgres_store(url)


async def start(*args: str) -> asyncio.subprocess.Process:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return await asyncio.create_subprocess_exec(
        sys.executable,
        str(CHILD),
        *args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        env=env,
        cwd=ROOT,
    )


async def line_of(proc: asyncio.subprocess.Process) -> str:
    assert proc.stdout is not None
    line = await asyncio.wait_for(proc.stdout.readline(), timeout=30)
    assert line, "the child ended early"
    return line.decode().strip()


async def add_many(store: GameStore, count: int, due: float) -> list[int]:
    """`count` due duties over CHANNELS channels (and some direct messages), in a few transactions."""
    ids: list[int] = []
    for start_at in range(0, count, 1000):
        duties = [
            NewDuty("post", due + i * 1e-6, None if i % 10 == 0 else i % CHANNELS, payload={"i": i})
            for i in range(start_at, min(count, start_at + 1000))
        ]
        ids.extend(d.id for d in await store.add_duties(None, duties, due))
    return ids


def sent_by(out: bytes) -> list[tuple[int, int]]:
    """(duty id, time_ns) of every `sent` line of a child's output."""
    lines = out.decode().split("\n")
    assert "done" in lines, "the child did not finish its deliveries"
    assert not [line for line in lines if line.startswith("lost")], "a lease was lost mid-delivery"
    return [(int(p[1]), int(p[2])) for p in (line.split() for line in lines) if p and p[0] == "sent"]


async def test_three_processes_deliver_ten_thousand_duties_exactly_once(pg_cluster: PgCluster) -> None:
    url, store = await fresh_store(pg_cluster)
    try:
        ids = await add_many(store, 10_000, time.time() - 60)
        # Each duty's channel, read while it is pending: a done duty no longer names it (issue 32).
        channel_of = {d.id: d.channel_id for d in await store.pending_duties(None)}
        procs = [await start("deliver", url, f"worker-{w}", "60") for w in range(3)]
        outs = [(await asyncio.wait_for(p.communicate(), timeout=120))[0] for p in procs]
        assert [p.returncode for p in procs] == [0, 0, 0]
        sends = [sent_by(out) for out in outs]
        counted = Counter(duty for per_child in sends for duty, _ in per_child)
        assert set(counted) == set(ids) and set(counted.values()) == {1}, "each duty sent exactly once"
        assert all(len(per_child) > 500 for per_child in sends), "the three processes shared the work"
        # A channel's duties went out in order even across processes: each was sent after the one before it.
        when = {duty: t for per_child in sends for duty, t in per_child}
        rows = await asyncpg.connect(url)
        try:
            channels: dict[int, list[int]] = defaultdict(list)
            for duty_id, outcome, attempts in await rows.fetch(
                "SELECT id, outcome, attempts FROM duties ORDER BY due_at, id"
            ):
                assert (outcome, attempts) == ("sent", 1)
                channel = channel_of[duty_id]
                if channel is not None:
                    channels[channel].append(when[duty_id])
        finally:
            await rows.close()
        assert len(channels) == CHANNELS - CHANNELS // 10
        assert all(times == sorted(times) for times in channels.values())
        assert await store.pending_duties(None) == []
    finally:
        await store.close()


async def test_each_process_delivers_the_duties_of_its_own_shards(pg_cluster: PgCluster) -> None:
    url, store = await fresh_store(pg_cluster)
    try:
        now = time.time() - 60
        shard_of: dict[int, int] = {}
        for g in range(60):
            guild = ((g * 7 + 1) << 22) | g  # shard (guild >> 22) % 3 == (7g + 1) % 3
            game = await store.create_game(guild, 5000 + g, 1, {}, now)
            made = await store.add_duties(
                game.id, [NewDuty("post", now + i * 1e-3, 5000 + g, payload={"i": i}) for i in range(50)], now
            )
            shard_of.update((d.id, (guild >> 22) % 3) for d in made)
        procs = [await start("deliver", url, f"shard-{k}", "60", "3", str(k)) for k in range(3)]
        outs = [(await asyncio.wait_for(p.communicate(), timeout=120))[0] for p in procs]
        assert [p.returncode for p in procs] == [0, 0, 0]
        counted: Counter[int] = Counter()
        for k, out in enumerate(outs):
            mine = [duty for duty, _ in sent_by(out)]
            assert mine and all(shard_of[d] == k for d in mine), f"process {k} sent another shard's duty"
            counted.update(mine)
        assert set(counted) == set(shard_of) and set(counted.values()) == {1}
    finally:
        await store.close()


async def test_two_processes_racing_on_one_game_one_wins_the_other_is_refused(pg_cluster: PgCluster) -> None:
    url, store = await fresh_store(pg_cluster)
    rounds = 25
    try:
        game = await store.create_game(1, 1, 1, {}, time.time(), snapshot={"count": 0})
        procs = [await start("race", url, str(game.id), str(rounds), name) for name in ("a", "b")]
        for proc in procs:
            assert await line_of(proc) == "ready"
        wins: Counter[str] = Counter()
        for round_ in range(rounds):
            assert [await line_of(p) for p in procs] == [f"loaded {round_}"] * 2
            for proc in procs:
                assert proc.stdin is not None
                proc.stdin.write(b"go\n")
            for proc in procs:
                assert proc.stdin is not None
                await proc.stdin.drain()
            results = sorted([await line_of(p) for p in procs])
            assert results == [f"conflict {round_} {round_ + 1}", f"won {round_ + 1}"], results
            wins[results[1]] += 1
        for proc in procs:
            await asyncio.wait_for(proc.wait(), timeout=30)
            assert proc.returncode == 0
        events = await store.events(game.id)
        assert [v for v, _ in events] == list(range(1, rounds + 1))
        assert await store.load_snapshot(game.id) == (rounds, {"count": rounds})
        assert await store.integrity_check()
    finally:
        await store.close()


async def test_a_process_killed_mid_delivery_loses_nothing(pg_cluster: PgCluster) -> None:
    url, store = await fresh_store(pg_cluster)
    lease = 1.5
    try:
        ids = await add_many(store, 300, time.time() - 60)
        victim = await start("hang", url, "victim", str(lease), "40")
        assert await line_of(victim) == "ready"
        claimed = [int(x) for x in (await line_of(victim)).split()[1:]]
        assert len(claimed) == 40
        victim.send_signal(signal.SIGKILL)
        await victim.wait()
        assert victim.returncode == -signal.SIGKILL
        killed_at = time.time()
        survivor = await start("deliver", url, "survivor", "30")
        out, _ = await asyncio.wait_for(survivor.communicate(), timeout=60)
        assert survivor.returncode == 0
        sends = sent_by(out)
        counted = Counter(duty for duty, _ in sends)
        assert set(counted) == set(ids) and set(counted.values()) == {1}, "every duty sent once, none lost"
        when = dict(sends)
        assert all(when[d] / 1e9 >= killed_at + lease - 0.5 for d in claimed), (
            "taken only once the lease ran out"
        )
        conn = await asyncpg.connect(url)
        try:
            rows = await conn.fetch(
                "SELECT attempts, lease_owner, outcome FROM duties WHERE id = ANY($1::bigint[])", claimed
            )
        finally:
            await conn.close()
        assert {tuple(r) for r in rows} == {(2, None, "sent")}, "done: the worker's name goes (issue 32)"
    finally:
        await store.close()
