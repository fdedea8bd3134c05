"""The backends the storage contract suite runs against: SQLite, and PostgreSQL on the session's
throwaway server (pg_cluster.py), each test database in a fresh schema of its own.

To test another backend, write a class that satisfies `Backend` for a new, empty database and add
its factory to BACKENDS; every contract test and the concurrency tests then run against it too.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import asyncpg
import pg_cluster

from storage import GameStore, open_postgres_store, open_store


class Backend(Protocol):
    """One empty database of one backend."""

    name: str

    async def open(self) -> GameStore:
        """A new store connected to this same database (each call: a new process, in effect)."""
        ...

    async def close_all(self) -> None:
        """Close every store `open` returned."""
        ...


@dataclass
class SqliteBackend:
    name: str
    path: Path
    opened: list[GameStore] = field(default_factory=list)

    async def open(self) -> GameStore:
        store = await open_store(self.path)
        self.opened.append(store)
        return store

    async def close_all(self) -> None:
        for store in self.opened:
            await store.close()


@dataclass
class PostgresBackend:
    """One fresh schema of the session's PostgreSQL server; every `open` is a new pool on it."""

    name: str
    cluster: pg_cluster.PgCluster
    schema: str
    opened: list[GameStore] = field(default_factory=list)
    made: bool = False

    @property
    def url(self) -> str:
        return self.cluster.url(schema=self.schema)

    async def open(self) -> GameStore:
        if not self.made:
            conn = await asyncpg.connect(self.cluster.url())
            try:
                await conn.execute(f"CREATE SCHEMA {self.schema}")
            finally:
                await conn.close()
            self.made = True
        store = await open_postgres_store(self.url)
        self.opened.append(store)
        return store

    async def close_all(self) -> None:
        for store in self.opened:
            await store.close()


def postgres_backend(directory: Path) -> PostgresBackend:
    cluster = pg_cluster.running()
    return PostgresBackend("postgres", cluster, cluster.new_name("t"))


# Each factory gets an empty directory of its own to use (or ignore).
BACKENDS: dict[str, Callable[[Path], Backend]] = {
    "sqlite": lambda directory: SqliteBackend("sqlite", directory / "store.sqlite3"),
    "postgres": postgres_backend,
}


# Before migration 8 (SQLite) and 6 (PostgreSQL): a finished game (7) with its events, two delivered duties
# and a pending one, a game in play (8) with a delivered duty, and a game abandoned in the lobby (9).
OLD_LEAN_ROWS = (
    "INSERT INTO games (id, channel_id, status, version, created_by, created_at, updated_at) VALUES"
    " (7, 1, 'finished', 3, 10, 0, 9), (8, 2, 'playing', 2, 10, 0, 9), (9, 3, 'abandoned', 0, 10, 0, 9)",
    # In no order: the packing puts them in order.
    "INSERT INTO events (game_id, version, body, created_at) VALUES (7, 2, '{\"n\": 2}', 2.5),"
    ' (8, 1, \'{"n": 1}\', 1), (7, 3, \'{"n": 3, "t": "ἀλέξανδρος"}\', 3), (7, 1, \'{"n": 1}\', 1),'
    " (8, 2, '{\"n\": 2}', 2)",
    "INSERT INTO snapshots (game_id, version, body) VALUES (7, 3, '{\"c\": 3}'), (8, 2, '{\"c\": 2}')",
    "INSERT INTO duties (id, game_id, kind, due_at, created_at, attempts, lease_owner, done_at, outcome,"
    " last_error) VALUES (41, 7, 'post', 1, 1, 1, 'w', 2, 'sent 9', NULL),"
    " (42, 7, 'edit', 3, 3, 2, 'w', 4, 'edited 9', 'a 503 first'),"
    " (43, 7, 'replay', 9, 9, 0, NULL, NULL, NULL, NULL), (44, 8, 'post', 1, 1, 1, 'w', 2, 'sent 8', NULL)",
)


def packed_list(blob: bytes) -> Any:
    """A packed list as stored: zlib of its JSON, or (PostgreSQL's migration) the JSON itself."""
    return json.loads(blob if blob[:1] == b"[" else zlib.decompress(blob))


async def reads_after_lean_migration(store: GameStore) -> None:
    """What the store reads of `OLD_LEAN_ROWS` once migrated: every event as it was, packed or not."""
    assert await store.events(7) == [(1, {"n": 1}), (2, {"n": 2}), (3, {"n": 3, "t": "ἀλέξανδρος"})]
    assert [e["created_at"] for e in (await store.export_game(7))["events"]] == [1, 2.5, 3]
    assert await store.events(8) == [(1, {"n": 1}), (2, {"n": 2})]
    assert await store.events(9) == []
    assert [d.id for d in await store.pending_duties(7)] == [43]
    assert await store.integrity_check()
