"""The backends the storage contract suite runs against.

To test another backend (PostgreSQL), add a factory to BACKENDS that returns a `Backend` for a new,
empty database; every contract test then runs against it too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from storage import GameStore, open_store


@dataclass
class Backend:
    """One empty database of one backend. `open()` connects to that same database each time."""

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


BACKENDS: dict[str, Callable[[Path], Backend]] = {
    "sqlite": lambda directory: Backend("sqlite", directory / "store.sqlite3"),
}
