"""Bytes a finished game leaves in the database (issue 32: the store grew 6x faster than the old bot's).

Plays N whole games through the store the way the bot does: each game is opened and started, then every
action of the computer player is committed through bot.outbox.pipeline (its events, snapshot, metadata and
every duty the bot writes: turn posts and edits with their pictures' public states, the status message, the
reminder and deadline, the end post, the rating and the replay), and each duty that falls due is claimed
and finished as the delivery worker does (without Discord). The clock moves 5 s between the actions of a
turn and 10 minutes between turns (the status message's 20 s delay coalesces a turn's edits into one).
Nothing is purged: every delivered duty's row counts (the worker deletes them after 30 days).

    python benchmarks/bench_size.py [--games 1000] [--parts 4] [--players 2-4] [--backends sqlite,postgres]

SQLite: the file's pages in use after a checkpoint, and each table's share (its ``dbstat`` table).
PostgreSQL (a throwaway server, tests/storage/pg_cluster.py, unless --url names an empty database): the
tables' bytes with their indexes and TOAST (``pg_total_relation_size``), as written and after
``VACUUM FULL`` (the live rows only). Each figure is printed after each of ``--parts`` equal parts of the
run too, so that a figure growing with the database shows. Target (issue 32): at most 40 KB a game.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "storage"))

from bot.commands.dashboard import Dashboard  # noqa: E402
from bot.games.tables import Table, Tables  # noqa: E402
from bot.outbox.notices import route  # noqa: E402
from bot.outbox.pipeline import Pipeline  # noqa: E402
from engine import ai  # noqa: E402
from engine.game import apply, new_game  # noqa: E402
from engine.maps import default_map  # noqa: E402
from storage import open_database  # noqa: E402

GUILD = 7_000_000_000_000_000


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


async def play(url: str, first: int, games: int, players: tuple[int, int], seed: int) -> tuple[int, float]:
    """Play and deliver the whole games ``first`` .. ``first + games - 1``; the number of actions and the
    seconds it took."""
    store = await open_database(url)
    clock = Clock()
    tables = Tables(store)
    pipeline = Pipeline(tables, clock, reminder_hours=24.0)
    dashboard = Dashboard(None, store, clock, tables)  # type: ignore[arg-type]  # its hook needs no client

    async def notices(table: Table, duties: list, now: float) -> list:  # type: ignore[type-arg]
        return await route(pipeline.prefs, table, duties, now)

    pipeline.duty_hooks += [notices, dashboard.after_change]
    rng = random.Random(seed * 1_000_003 + first)
    game_map = default_map()
    actions, started = 0, time.perf_counter()

    # As the worker writes them: its owner name, and each outcome with the message's snowflake (its time in
    # ms since 2015 over 22 bits that differ from message to message).
    owner = f"{socket.gethostname()}:{os.getpid()}:{id(pipeline):x}"

    async def deliver() -> None:
        while claimed := await store.claim_duties(clock.now, owner, 30.0, 100):
            for duty in claimed:
                message = (int(clock.now * 1000) - 1_420_070_400_000) << 22 | rng.getrandbits(22)
                outcome = f"{'sent' if duty.kind == 'post' else 'edited'} {message}"
                await store.finish_duty(duty.id, owner, clock.now, outcome)

    try:
        for n in range(first, first + games):
            count = rng.randint(*players)
            users = [10_000 + n * 10 + i for i in range(count)]
            channel = 1_000_000 + n
            record = await store.create_game(
                GUILD, channel, users[0], {"creator": "bench"}, clock.now, seats=list(enumerate(users))
            )
            state, events = new_game(game_map, count, rng.randrange(1 << 30))
            outcome = await pipeline.commit(
                Table(record, None, tuple(f"p{u}" for u in users)), state, tuple(events),
                seats=list(enumerate(users)),
            )  # fmt: skip
            play_rng = random.Random(n)
            while not state.over:
                table = await tables.by_id(record.id)
                state = table.playing()
                action = ai.greedy_player(state, play_rng)
                state, events = apply(state, action)
                turn = state.turn
                outcome = await pipeline.commit(table, state, tuple(events), (action,))
                actions += 1
                # A turn's actions 5 s apart, the next turn 10 minutes on (a game played over a day or so),
                # each time with a fraction of a second as the bot's clock (time.time()) has
                clock.now += (5.0 if state.turn == turn else 600.0) + play_rng.random()
                await deliver()
            clock.now += 3600.0  # the end's duties (rating, replay, the status message's last edit)
            await deliver()
            assert outcome.table.record.status == "finished"
    finally:
        await store.close()
    return actions, time.perf_counter() - started


def sqlite_bytes(path: Path) -> tuple[int, dict[str, int]]:
    """The database's bytes after a checkpoint (its pages in use), and each table's (with its indexes)."""
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page = conn.execute("PRAGMA page_size").fetchone()[0]
        pages = (
            conn.execute("PRAGMA page_count").fetchone()[0]
            - conn.execute("PRAGMA freelist_count").fetchone()[0]
        )
        tables: dict[str, int] = {}
        try:
            rows = conn.execute(
                "SELECT COALESCE(m.tbl_name, s.name), SUM(s.pgsize) FROM dbstat s"
                " LEFT JOIN sqlite_master m ON m.name = s.name GROUP BY 1 ORDER BY 2 DESC"
            ).fetchall()
            tables = {str(name): int(size) for name, size in rows}
        except sqlite3.OperationalError:  # no dbstat in this build
            pass
        return pages * page, tables
    finally:
        conn.close()


async def postgres_bytes(url: str, full: bool) -> tuple[int, dict[str, int]]:
    """The store's tables' bytes (with their indexes and TOAST), and each table's; ``full``: after VACUUM FULL
    (the live rows only), else as written."""
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        if full:
            await conn.execute("VACUUM FULL")
        rows = await conn.fetch(
            "SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c"
            " JOIN pg_namespace n ON n.oid = c.relnamespace"
            " WHERE c.relkind = 'r' AND n.nspname = current_schema() ORDER BY 2 DESC"
        )
        tables = {str(name): int(size) for name, size in rows}
        return sum(tables.values()), tables
    finally:
        await conn.close()


def measure(url: str, full: bool = False) -> tuple[int, dict[str, int]]:
    if url.startswith("postgres"):
        return asyncio.run(postgres_bytes(url, full))
    return sqlite_bytes(Path(url))


def run(name: str, url: str, games: int, parts: int, players: tuple[int, int], seed: int) -> float:
    """Fill one database in ``parts`` parts, printing the bytes a game after each; the last figure."""
    asyncio.run(play(url, 0, 0, players, seed))  # the empty database, schema and all
    pg = url.startswith("postgres")
    empty = {full: measure(url, full) for full in ((False, True) if pg else (False,))}
    done = actions = 0
    seconds = 0.0
    per_game = 0.0
    print(f"{name}: {games} whole games ({players[0]}-{players[1]} players) in {parts} parts")
    for part in range(parts):
        count = games // parts + (part < games % parts)
        played, took = asyncio.run(play(url, done, count, players, seed))
        done, actions, seconds = done + count, actions + played, seconds + took
        sizes = {full: measure(url, full) for full in empty}
        per_game = (sizes[pg][0] - empty[pg][0]) / done
        shown = f"{per_game / 1e3:.1f} KB a game"
        if pg:
            shown = f"{(sizes[False][0] - empty[False][0]) / done / 1e3:.1f} KB a game as written, " + shown
            shown += " after VACUUM FULL"
        print(f"  after {done:5d} games ({actions / done:.1f} actions a game, {seconds:.0f} s): {shown}")
    for table, used in sizes[pg][1].items():
        grown = used - empty[pg][1].get(table, 0)
        if grown >= 100 * done:
            print(f"    {table:16s} {grown / done / 1e3:8.1f} KB a game")
    print(f"  at 100,000 such games (linear): {per_game * 100_000 / 1e9:.2f} GB")
    return per_game


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--parts", type=int, default=4, help="print the figure after each part of the run")
    parser.add_argument("--players", default="2-4", help="players a game, or a range (2-4)")
    parser.add_argument("--backends", default="sqlite,postgres")
    parser.add_argument("--db", help="the SQLite file (default: a new one in a temporary folder)")
    parser.add_argument("--url", help="an empty PostgreSQL database (default: a throwaway server)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    low, _, high = args.players.partition("-")
    players = (int(low), int(high or low))
    parts = max(1, min(args.parts, args.games))
    backends = args.backends.split(",")
    uptime = os.getloadavg()
    print(f"load average {uptime[0]:.2f} {uptime[1]:.2f} {uptime[2]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        if "sqlite" in backends:
            path = Path(args.db) if args.db else Path(tmp) / "size.db"
            run("SQLite", str(path), args.games, parts, players, args.seed)
        if "postgres" in backends:
            cluster = None
            url = args.url
            if url is None:
                import pg_cluster

                cluster = pg_cluster.start_cluster()
                url = cluster.url(cluster.create_database("size"))
            try:
                run("PostgreSQL", url, args.games, parts, players, args.seed)
            finally:
                if cluster is not None:
                    cluster.stop()
    print(f"load average {os.getloadavg()[0]:.2f}; target (issue 32): at most 40 KB a finished game")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
