"""The backends the storage contract suite runs against: SQLite, and PostgreSQL on the session's
throwaway server (pg_cluster.py), each test database in a fresh schema of its own.

To test another backend, write a class that satisfies `Backend` for a new, empty database and add
its factory to BACKENDS; every contract test and the concurrency tests then run against it too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

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
