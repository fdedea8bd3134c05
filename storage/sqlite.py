"""The SQLite implementation of `GameStore`, on aiosqlite: the shared operations (storage/operations.py)
over the SQLite plumbing (storage/sqlite_base.py, which also says how transactions work), with what SQLite
does its own way: storage/sqlite_outbox.py (the group commit of finishes, the file lock) and
storage/sqlite_transfer.py (backup, integrity check). Its SQL where it differs: storage/sql.py.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Collection

from .base import ForgetReport
from .migrations import LATEST_VERSION, migrate
from .operations import Operations
from .preflight import check_database
from .sqlite_base import SqliteBase, connect, glance_connection
from .sqlite_outbox import SqliteOutbox
from .sqlite_transfer import SqliteTransfer

__all__ = ["SqliteGameStore", "connect", "open_store"]


async def open_store(path: str | os.PathLike[str]) -> SqliteGameStore:
    """Open (creating if needed) the database file at `path`, and upgrade its schema to the latest."""
    path = os.fspath(path)
    if path == ":memory:" or path.startswith("file:"):
        raise ValueError("the store needs a plain file path: it opens several connections to it")
    # A garbage, damaged, truncated, newer or foreign file is refused before anything writes to it.
    await asyncio.to_thread(check_database, path)
    writer = await connect(path)
    try:
        await migrate(writer)
        reader = await connect(path)
    except BaseException:
        await writer.close()
        raise
    try:
        glance = glance_connection(path)
    except BaseException:
        await reader.close()
        await writer.close()
        raise
    return SqliteGameStore(path, writer, reader, glance)


class SqliteGameStore(SqliteOutbox, SqliteTransfer, Operations, SqliteBase):
    """`GameStore` on one SQLite file. Create it with `open_store`, and `close()` it when done."""

    schema_version = LATEST_VERSION

    async def forget_user(
        self, user_id: int, pseudonym: int, now: float, names: Collection[str] = ()
    ) -> ForgetReport:
        # Then the WAL is copied into the file and truncated: with secure_delete on every connection
        # (sqlite_base), neither the file nor its WAL keeps a copy of the old rows.
        report = await super().forget_user(user_id, pseudonym, now, names)
        await self._checkpoint()
        return report

    async def __aenter__(self) -> SqliteGameStore:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
