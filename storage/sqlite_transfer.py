"""Whole-database operations of the SQLite store: online backup and integrity check. A mixin of
`SqliteGameStore`; PostgreSQL's is storage/postgres_transfer.py (a game's export and import are shared:
storage/ops_transfer.py)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
from typing import Any

import aiosqlite

from .base import IntegrityReport, StoreError
from .core import invariant_problems
from .sqlite_base import SqliteBase, connect

PARTIAL = ".partial"  # a copy being written beside its target, renamed into place once complete
# The files SQLite may keep beside a database file (its journal, or its WAL and the WAL's index).
SIDE_FILES = ("-journal", "-wal", "-shm")


def remove_partial(partial: str | os.PathLike[str]) -> None:
    """A partial copy and SQLite's files beside it, whichever exist."""
    base = os.fspath(partial)
    for path in (base, *(base + side for side in SIDE_FILES)):
        with contextlib.suppress(FileNotFoundError):
            os.remove(path)


def _copy_pages(src: sqlite3.Connection, dest: str) -> None:
    """SQLite's online backup of `src` into the new file `dest`.

    pages=0 copies everything at once: an incremental backup restarts on every write and, under
    steady traffic, never finishes. A backup should be one self-contained file, not one that needs
    its WAL."""
    dst = sqlite3.connect(dest)
    try:
        src.backup(dst, pages=0)
        dst.execute("PRAGMA journal_mode = DELETE")
    finally:
        dst.close()


def copy_database(source: str, dest: str, *, uri: bool = False) -> None:
    """Copy the SQLite database `source` (a path, or a URI with `uri`) to `dest`, blocking.

    The copy is written beside the target (`dest.partial`) and renamed into place, so `dest` is either
    the old file or a complete new one. A copy that fails (a full disk) takes its partial file with it:
    otherwise every failed attempt would leave one, up to as big as the database."""
    partial = dest + PARTIAL
    remove_partial(partial)  # the leftover of a copy killed with its process
    try:
        src = sqlite3.connect(source, uri=uri, timeout=5.0)
        try:
            _copy_pages(src, partial)
        finally:
            src.close()
        os.replace(partial, dest)
    except BaseException:
        remove_partial(partial)
        raise


class SqliteTransfer(SqliteBase):
    """backup and integrity_check."""

    async def backup(self, dest_path: str | os.PathLike[str]) -> None:
        """Copy the whole database to `dest_path`, online, in one step, from a separate connection
        (`copy_database`: `dest_path` is either the old file or a complete new one)."""
        await asyncio.to_thread(copy_database, self.path, os.fspath(dest_path))

    async def integrity_check(self) -> IntegrityReport:
        """SQLite's own checks plus the store's invariants (events 1..version, snapshot at version)."""
        if self._closed:
            raise StoreError("store is closed")
        # A connection of its own: a full check of a big file takes a while, and the shared reader
        # must stay free for the bot's reads meanwhile.
        conn = await connect(self.path)
        try:
            return IntegrityReport(tuple(await _check_integrity(conn)))
        finally:
            await conn.close()


async def _check_integrity(conn: aiosqlite.Connection) -> list[str]:
    async def rows(sql: str) -> list[Any]:
        return list(await conn.execute_fetchall(sql))

    problems: list[str] = []
    # One read transaction, so that all the checks see the same state even while the bot writes.
    await conn.execute("BEGIN")
    try:
        checked = await rows("PRAGMA integrity_check")
        if [r[0] for r in checked] != ["ok"]:
            problems.extend(f"integrity_check: {r[0]}" for r in checked)
        for table, rowid, parent, _ in await rows("PRAGMA foreign_key_check"):
            problems.append(f"foreign key: {table} row {rowid} has no {parent}")
        problems += await invariant_problems(rows)
    finally:
        await conn.execute("COMMIT")
    return problems
