"""The backends the storage contract suite runs against.

To test another backend (PostgreSQL), write a class that satisfies `Backend` for a new, empty
database (a fresh schema, say) and add its factory to BACKENDS; every contract test and the
concurrency tests then run against it too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from storage import GameStore, open_store


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


# Each factory gets an empty directory of its own to use (or ignore).
BACKENDS: dict[str, Callable[[Path], Backend]] = {
    "sqlite": lambda directory: SqliteBackend("sqlite", directory / "store.sqlite3"),
}
