"""A cluster of real bot processes on one PostgreSQL (issue 13): three processes, one shard each of three,
each running the whole bot (bot.client.make_bot with its shard slice, its delivery worker and timers) on
an offline Discord of its own (tests/bot/cluster_child.py); a fourth process replaces the one killed.

What the parent checks, from what each process's fake Discord reports and from the store:

- 10,000 due notices, over 200 channels in 12 guilds spread over the shards, plus the reminders and
  deadlines of real games that fell due, are delivered, each by the process that owns its guild's shard;
- a process killed (SIGKILL) mid-delivery loses nothing: its leases run out and its replacement delivers;
- exactly once, the way Discord counts: there is ONE Discord, so the parent merges what every process's
  fake made. A message re-sent with the same enforced nonce in the same channel is the same message
  (Discord returns the earlier one), and only the killed process's unfinished sends may be re-sent at all;
  every process that lived must have made each of its messages once;
- two processes pressing the same button at the same version commit once: the other is told "out of date";
- a duty one process commits for another's shard wakes that process at once (the workers poll every 60 s,
  as in production: PostgreSQL LISTEN/NOTIFY wakes them);
- only the process started with sync calls the command-sync routes.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import sys
import time
from collections import Counter, defaultdict
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from bot.client import make_bot
from bot.games.pictures import Pictures
from engine import ai
from engine.actions import EndTurn
from storage import NewDuty, ShardSlice, open_postgres_store
from tests.bot.driver import WALLS_MAP, Clock, Game
from tests.harness import OfflineDiscord
from tests.storage import pg_cluster as pg

CHILD = Path(__file__).with_name("cluster_child.py")
ROOT = Path(__file__).resolve().parents[2]
SHARDS = 3
GUILDS = 12
NOTICE_CHANNELS = 200
NOTICES = 10_000
LEASE = 2.0  # seconds a claimed duty stays a process's (production: 60)
# The longest a worker sleeps, as in production: a duty another process commits for its shards wakes it at
# once (PostgreSQL LISTEN/NOTIFY), and due times, back-offs and leases it reads from the store.
POLL = 60.0
DUE = "SELECT count(*) FROM duties WHERE done_at IS NULL AND due_at <= $1"


def guild(i: int) -> int:
    """Guild ids whose shard, (id >> 22) % SHARDS, is i % SHARDS."""
    return ((1_300_000_000_000 + i) << 22) | 4242


def shard_of(guild_id: int) -> int:
    return (guild_id >> 22) % SHARDS


@pytest.fixture(scope="module")
def cluster() -> Iterator[pg.PgCluster]:
    try:
        server = pg.start_cluster()
    except pg.PostgresMissing as exc:
        pytest.fail(str(exc), pytrace=False)
    try:
        yield server
    finally:
        server.stop()


@dataclass
class Child:
    """One bot process, its configuration and every event it reported."""

    name: str
    shards: tuple[int, ...]
    proc: asyncio.subprocess.Process
    events: list[dict[str, Any]] = field(default_factory=list)
    arrived: asyncio.Event = field(default_factory=asyncio.Event)
    reader: asyncio.Task[None] | None = None
    killed: bool = False

    async def read(self) -> None:
        assert self.proc.stdout is not None
        async for line in self.proc.stdout:
            if line.startswith(b"{"):
                self.events.append(json.loads(line))
                self.arrived.set()

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["ev"] == kind]

    async def wait_for(self, kind: str, count: int = 1, timeout: float = 30.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while len(self.of(kind)) < count:
            left = deadline - time.monotonic()
            assert left > 0, f"{self.name}: no {kind!r} in {timeout} s (last events: {self.events[-3:]})"
            assert self.proc.returncode is None or kind == "bye", f"{self.name} exited: {self.events[-3:]}"
            self.arrived.clear()
            try:
                await asyncio.wait_for(self.arrived.wait(), min(left, 0.5))
            except TimeoutError:
                pass
        return self.of(kind)[count - 1]

    def send(self, **cmd: Any) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(cmd) + "\n").encode())


async def spawn(name: str, shards: tuple[int, ...], tmp: Path) -> Child:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, str(CHILD),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=open(tmp / f"{name}.err", "wb"),
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
        limit=1 << 22,
    )  # fmt: skip
    child = Child(name, shards, proc)
    child.reader = asyncio.create_task(child.read())
    return child


async def open_real_game(url: str, g: int, channel: int, clock: Clock, **options: Any) -> tuple[Any, int]:
    """A started 2-player game in guild ``g`` made by a bot on the shared store, with the setup clock
    (hours in the past, so that its reminder and deadline are due now)."""
    d = OfflineDiscord(
        lambda: make_bot(url, map_provider=lambda: WALLS_MAP, clock=clock, seed_source=lambda: 3,
                         pictures=Pictures(width=320)),
        guild_id=g, channel_id=channel, loggers=("bot",), watched_tasks=("alx-",),
    )  # fmt: skip
    await d.start()
    game = Game(d, [d.member("alice"), d.member("bob")])
    r = await d.slash(game.users[0], "alexandros new", **options)
    lobby = r.response_message
    assert lobby is not None
    game.game_id = int(next(c for c in lobby.custom_ids if c.startswith("alx:join:")).split(":")[2])
    await d.click(game.users[1], lobby.id, f"alx:join:{game.game_id}")
    await d.click(game.users[0], lobby.id, f"alx:start:{game.game_id}")
    return game, game.game_id


@pytest.fixture
async def children() -> AsyncIterator[list[Child]]:
    made: list[Child] = []
    yield made
    for c in made:
        if c.proc.returncode is None:
            c.proc.kill()
            await c.proc.wait()


async def test_three_processes_deliver_once_by_shard_race_and_survive_a_kill(
    cluster: pg.PgCluster, tmp_path: Path, children: list[Child]
) -> None:
    started = time.monotonic()
    # The cluster: shard i on process i (process 0 also syncs); process 3 waits to replace process 2.
    # Started first: they import the bot while the database is prepared, then wait for their settings.
    names = ["p0", "p1", "p2", "p2-replacement"]
    children += [await spawn(n, (s,), tmp_path) for n, s in zip(names, (0, 1, 2, 2), strict=True)]
    p0, p1, p2, p3 = children
    url = cluster.url(cluster.create_database("cluster"))
    store = await open_postgres_store(url)

    # --- real games, made by a bot with a clock two days back: their reminders and deadlines are due ---
    clock = Clock(time.time() - 2 * 86400)
    race_guild, race_channel = guild(0), 9_000_000_000_000_000_001  # shard 0
    race, race_id = await open_real_game(url, race_guild, race_channel, clock)
    rng = random.Random(5)
    for n in range(1, 60):  # play until the player's turn may end: the End turn button is live
        st = await race.state()
        action = ai.greedy_player(st, rng)
        if isinstance(action, EndTurn):
            break
        await race.play(action, n * 3 + 1)
    else:
        raise AssertionError("the race game never reached an End turn")
    race_post = race.turn_message().json
    race_version = (await race.table()).version
    racer = race.user_of_seat(await race.table(), (await race.state()).current).name
    await race.d.close()
    timer_games: dict[int, tuple[int, str]] = {}  # game -> (guild, "remind" or "deadline")
    for i in range(SHARDS * 2):
        g, ch_id = guild(i + 1), 9_000_000_000_000_001_000 + i
        kind = "deadline" if i % 2 else "remind"
        made, gid = await open_real_game(
            url, g, ch_id, clock, **({"deadline_hours": 1} if kind == "deadline" else {})
        )
        await made.d.close()
        timer_games[gid] = (g, kind)

    # --- 10,000 notices, due now, in 200 channels of 12 guilds ---
    now = time.time()
    notice_channels = [8_000_000_000_000_000_000 + c for c in range(NOTICE_CHANNELS)]
    per_channel = NOTICES // NOTICE_CHANNELS
    notice_ids: set[int] = set()  # a delivered duty keeps no payload (issue 32): known by id
    for c, ch_id in enumerate(notice_channels):
        rec = await store.create_game(guild(c % GUILDS), ch_id, 1, {}, now)
        notice_ids |= {
            d.id
            for d in await store.add_duties(
                rec.id,
                [
                    NewDuty("post", now - 1, ch_id, payload={"text": f"notice {c}.{n}"})
                    for n in range(per_channel)
                ],
                now,
            )
        }
    conn = await asyncpg.connect(url)
    games = {r["id"]: (r["guild_id"], r["channel_id"]) for r in await conn.fetch("SELECT * FROM games")}
    guild_of_channel = {ch: g for g, ch in games.values()}
    channels = sorted(guild_of_channel)
    timer_duties = {
        r["id"]: (r["game_id"], r["kind"], r["guild_id"])
        for r in await conn.fetch(
            "SELECT * FROM duties WHERE done_at IS NULL AND kind IN ('remind', 'deadline') AND due_at <= $1",
            time.time(),
        )
    }
    assert {(g, k) for g, k, _ in timer_duties.values()} >= {(g, k) for g, (_, k) in timer_games.items()}
    setup_s = time.monotonic() - started

    # --- the cluster's settings ---
    def config(shard: int, **extra: Any) -> dict[str, Any]:
        return {
            "url": url, "shard_count": SHARDS, "shard_ids": [shard], "channels": channels,
            "guild": race_guild, "channel": race_channel, "lease": LEASE, "poll": POLL, "sync": False,
            "hang_after": None,
            **extra,
        }  # fmt: skip

    configs = [config(0, sync=True), config(1), config(2, hang_after=400), config(2)]
    for c in children:
        await c.wait_for("loaded", timeout=60)
    for c, conf in zip((p0, p1, p2), configs, strict=False):
        c.send(cmd="start", config=conf)
    owners = {c.name: (await c.wait_for("ready"))["owner"] for c in (p0, p1, p2)}

    # --- process 2 freezes mid-delivery: SIGKILL, then its replacement starts ---
    stuck = await p2.wait_for("stuck")
    held = {
        r["id"]
        for r in await conn.fetch(
            "SELECT id FROM duties WHERE lease_owner = $1 AND done_at IS NULL", owners["p2"]
        )
    }
    p2.proc.send_signal(signal.SIGKILL)
    await p2.proc.wait()
    p2.killed = True
    killed_at, killed_s = time.time(), time.monotonic()
    assert held, "the killed process held no duty: the kill was not mid-delivery"
    p3.send(cmd="start", config=configs[3])
    owners["p2-replacement"] = (await p3.wait_for("ready"))["owner"]

    # --- everything due is delivered ---
    deadline = time.monotonic() + 60
    while await conn.fetchval(DUE, time.time()):
        assert time.monotonic() < deadline, "duties left undelivered"
        await asyncio.sleep(0.2)
    delivered_s = time.monotonic() - started - setup_s
    kill_s = killed_s - started - setup_s

    # --- two processes press End turn at the same version of the same game ---
    for c in (p0, p1):
        c.send(cmd="race", message=race_post, user=racer, custom_id=f"alx:end:{race_id}:{race_version}")
    for c in (p0, p1):
        assert (await c.wait_for("committing"))["version"] == race_version
    for c in (p0, p1):
        c.send(cmd="go")
    answers = [(await c.wait_for("clicked")) for c in (p0, p1)]
    assert all(a["ephemeral"] for a in answers), answers
    refused = [a for a in answers if "out of date" in (a["content"] or "")]
    assert len(refused) == 1, f"one commit wins and the other is out of date: {answers}"
    log = await store.events(race_id, since_version=race_version)
    assert sum("TurnStarted" in json.dumps(e) for _, e in log) == 1, "the turn ended once"
    # The winner's duties (the turn post's edit, the next player's ping) go out from the owner, process 0.
    deadline = time.monotonic() + 20
    while await conn.fetchval(DUE, time.time()):
        assert time.monotonic() < deadline, "the race's duties were not delivered"
        await asyncio.sleep(0.1)

    # --- a duty another process (here the parent) commits wakes its shard's owner at once ---
    woken_s: list[float] = []
    for shard in range(SHARDS):
        ch_id = notice_channels[shard]  # a channel of guild(shard), on that shard
        (gid,) = [i for i, (_, ch) in games.items() if ch == ch_id]
        at = time.time()
        await store.add_duties(gid, [NewDuty("post", at - 1, ch_id, payload={"text": f"wake {shard}"})], at)
        t0 = time.monotonic()
        while await conn.fetchval(DUE, time.time()):
            assert time.monotonic() - t0 < 10, f"shard {shard}'s process slept through a duty for it"
            await asyncio.sleep(0.02)
        woken_s.append(time.monotonic() - t0)

    for c in (p0, p1, p3):
        c.send(cmd="quit")
    for c in (p0, p1, p3):
        bye = await c.wait_for("bye")
        assert not bye["errors"] and not bye["violations"], (c.name, bye)
        assert c.proc.stdin is not None
        c.proc.stdin.close()
        await c.proc.wait()

    # --- the checks ---
    duties = {r["id"]: r for r in await conn.fetch("SELECT * FROM duties")}
    turn_logs = {gid: await store.events(gid) for gid in timer_games}
    await conn.close()
    await store.close()

    def duty_of(nonce: str) -> int:
        assert nonce.startswith("alx-"), nonce
        return int(nonce.split("-")[1])

    made: dict[tuple[int, str], list[str]] = defaultdict(list)  # (channel, nonce) -> processes that made it
    claimed_by: dict[int, set[str]] = defaultdict(set)
    for c in children:
        served = ShardSlice(SHARDS, c.shards)
        for e in c.of("sent"):
            g = guild_of_channel[e["channel"]]
            assert served.owns(g), f"{c.name} sent to a guild of shard {shard_of(g)}: {e}"
            # A timer's duty is replaced by the next one it plans (same key), so it may be gone by now.
            d = duties.get(duty_of(e["nonce"]))
            # A done duty no longer names its channel and guild (issue 32): its game does.
            where = games.get(d["game_id"]) if d is not None else None
            assert d is None or (where is not None and where[1] == e["channel"] and served.owns(where[0])), e
            if not e["dedup"]:
                made[(e["channel"], e["nonce"])].append(c.name)
        for e in c.of("edit"):
            assert served.owns(guild_of_channel[e["channel"]]), f"{c.name} edited in another shard's guild"
        for e in c.of("claimed"):
            for duty_id, guild_id, kind in e["duties"]:
                assert served.owns(guild_id), f"{c.name} claimed {kind} {duty_id} of another shard"
                claimed_by[duty_id].add(c.name)
        assert bool(c.of("sync")) == (c is p0), f"{c.name}: only the process started with sync syncs"

    resent = {key: who for key, who in made.items() if len(who) > 1}
    for (_, nonce), who in resent.items():
        # The only second sends allowed: a duty the killed process held, made again by its replacement;
        # Discord's enforced nonce makes that the same message.
        assert sorted(who) == ["p2", "p2-replacement"] and duty_of(nonce) in held, (nonce, who)
    assert stuck["nonce"] in {n for _, n in resent}, "the frozen send was not retried with its nonce"
    messages = Counter(duty_of(n) for _, n in made)  # one Discord: a (channel, nonce) is one message
    notices = [i for i in duties if i in notice_ids]
    assert len(notices) == NOTICES
    assert all(messages[i] == 1 for i in notices), "a notice was lost or made twice"
    assert all(d["done_at"] is not None for d in duties.values() if d["due_at"] <= killed_at)
    for i in held:  # (a done duty keeps no worker's name: who claimed it, each process says)
        assert "p2-replacement" in claimed_by[i], "a held duty was not taken over"
        assert claimed_by[i] <= {"p2", "p2-replacement"}, "a held duty went elsewhere"

    # Timers that fell due were handled, by their guild's owner (the ownership checks above cover every
    # claim and every message): a reminder planned the next one after pinging, a deadline skipped the turn.
    for duty_id, (gid, kind, guild_id) in timer_duties.items():
        owner = {c.name for c in children if shard_of(guild_id) in c.shards}
        assert claimed_by[duty_id] <= owner, (gid, kind, claimed_by[duty_id])
        # A deadline game's reminder may be replaced by the one its skipped turn plans, unclaimed.
        if timer_games.get(gid, (0, ""))[1] == kind:
            assert claimed_by[duty_id], f"the {kind} of game {gid} was never claimed"
    by_channel = Counter(ch for ch, _ in made)
    for gid, (_, kind) in timer_games.items():
        channel = games[gid][1]
        assert by_channel[channel] >= 1, f"nothing was sent in game {gid}'s channel"
        pending = [d for d in duties.values() if d["game_id"] == gid and d["done_at"] is None]
        if kind == "remind":
            (again,) = [d for d in pending if d["kind"] == "remind"]
            assert "last_sent" in json.loads(again["payload"]), "the reminder was not sent"
        else:
            ended = [e for _, e in turn_logs[gid] if "TurnEnded" in json.dumps(e)]
            assert len(ended) == 1 and '"skipped": true' in json.dumps(ended[0]), (
                "the turn was not skipped",
                [e for _, e in turn_logs[gid]][-4:],
                [
                    (d["kind"], d["due_at"], d["done_at"], d["lease_owner"])
                    for d in duties.values()
                    if d["game_id"] == gid
                ],
                {c.name: [e for e in c.events if "deadline" in json.dumps(e)][:6] for c in children},
            )
    print(
        f"cluster: setup {setup_s:.1f} s, {len(duties)} duties delivered in {delivered_s:.1f} s (kill at "
        f"{kill_s:.1f} s), "
        f"{len(held)} held by the killed process, {len(resent)} re-sent with their nonce; another process's"
        f" duty delivered in {max(woken_s) * 1000:.0f} ms at most (poll {POLL:.0f} s)"
    )
