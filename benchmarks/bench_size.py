"""Bytes a finished game leaves in the database (issue 32: the store grew 6x faster than the old bot's).

Plays N whole games through the store the way the bot does: each game is opened and started, then every
action of the computer player is committed through bot.outbox.pipeline (its events, snapshot, metadata and
every duty the bot writes: turn posts and edits with their pictures' public states, the status message, the
reminder and deadline, the end post, the rating and the replay), and each duty that falls due is claimed
and finished as the delivery worker does (without Discord). The clock moves 5 s between the actions of a
turn and 10 minutes between turns (the status message's 20 s delay coalesces a turn's edits into one).

    python benchmarks/bench_size.py [--games 1000] [--players 2-4] [--db PATH]

Prints the file's bytes (after a checkpoint) per finished game, and the share of each table when SQLite
has its ``dbstat`` table. Target (issue 32): at most 40 KB a finished game.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import sqlite3
import sys
import tempfile
import time
import zlib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.commands.dashboard import Dashboard  # noqa: E402
from bot.games.tables import Table, Tables  # noqa: E402
from bot.outbox.notices import route  # noqa: E402
from bot.outbox.pipeline import Pipeline  # noqa: E402
from engine import ai  # noqa: E402
from engine.game import apply, new_game  # noqa: E402
from engine.maps import default_map  # noqa: E402
from storage import open_store  # noqa: E402

GUILD = 7_000_000_000_000_000


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


async def play(path: Path, games: int, players: tuple[int, int], seed: int) -> tuple[int, float]:
    """Play and deliver ``games`` whole games; the number of actions and the seconds it took."""
    store = await open_store(path)
    clock = Clock()
    tables = Tables(store)
    pipeline = Pipeline(tables, clock, reminder_hours=24.0)
    dashboard = Dashboard(None, store, clock, tables)  # type: ignore[arg-type]  # its hook needs no client

    async def notices(table: Table, duties: list, now: float) -> list:  # type: ignore[type-arg]
        return await route(pipeline.prefs, table, duties, now)

    pipeline.duty_hooks += [notices, dashboard.after_change]
    rng = random.Random(seed)
    game_map = default_map()
    actions, started = 0, time.perf_counter()

    # As the worker writes them: its owner name, and each outcome with the message's snowflake.
    owner = f"{socket.gethostname()}:{os.getpid()}:{id(pipeline):x}"
    message = 1_575_748_545_464_500_224

    async def deliver() -> None:
        while claimed := await store.claim_duties(clock.now, owner, 30.0, 100):
            for duty in claimed:
                outcome = f"{'sent' if duty.kind == 'post' else 'edited'} {message + duty.id}"
                await store.finish_duty(duty.id, owner, clock.now, outcome)

    try:
        for n in range(games):
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
                # A turn's actions 5 s apart, the next turn 10 minutes on (a game played over a day or so)
                clock.now += 5.0 if state.turn == turn else 600.0
                await deliver()
            clock.now += 3600.0  # the end's duties (rating, replay, the status message's last edit)
            await deliver()
            assert outcome.table.record.status == "finished"
    finally:
        await store.close()
    return actions, time.perf_counter() - started


def measure(path: Path) -> tuple[int, dict[str, int]]:
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


def compressed_events(path: Path) -> int:
    """The bytes of every finished game's events compressed as one blob (a what-if, for the next step)."""
    conn = sqlite3.connect(path)
    try:
        total = 0
        for (game_id,) in conn.execute("SELECT id FROM games WHERE status = 'finished'").fetchall():
            rows = conn.execute(
                "SELECT version, body, created_at FROM events WHERE game_id = ? ORDER BY version", (game_id,)
            ).fetchall()
            total += len(zlib.compress(json.dumps(rows, separators=(",", ":")).encode(), 9))
        return total
    finally:
        conn.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--players", default="2-4", help="players a game, or a range (2-4)")
    parser.add_argument("--db", help="the database file (default: a new one in a temporary folder)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    low, _, high = args.players.partition("-")
    players = (int(low), int(high or low))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(args.db) if args.db else Path(tmp) / "size.db"
        asyncio.run(play(path, 0, players, args.seed))  # the empty database, schema and all
        empty, _ = measure(path)
        actions, seconds = asyncio.run(play(path, args.games, players, args.seed))
        size, tables = measure(path)
        per_game = (size - empty) / args.games
        print(f"{args.games} finished games ({players[0]}-{players[1]} players), {actions} actions "
              f"({actions / args.games:.1f} a game), played and delivered in {seconds:.0f} s")  # fmt: skip
        print(
            f"database: {size / 1e6:.1f} MB ({empty / 1e3:.0f} KB empty):"
            f" {per_game / 1e3:.1f} KB per finished game"
        )
        print(f"at 100,000 games (linear): {per_game * 100_000 / 1e9:.2f} GB")
        for name, used in tables.items():
            print(f"  {name:14s} {used / args.games / 1e3:8.1f} KB a game")
        packed = compressed_events(path)
        print(f"(not stored so: a finished game's events as one zlib blob of their rows' JSON would be "
              f"{packed / args.games / 1e3:.1f} KB a game)")  # fmt: skip
        if args.db is None:
            os.remove(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
