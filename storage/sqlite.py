"""The SQLite implementation of `GameStore`, on aiosqlite: the shared operations (storage/operations.py)
over the SQLite plumbing (storage/sqlite_base.py, which also says how transactions work), with what SQLite
does its own way: finishes written together (a group commit), the lock on a name (a file lock), no
listening for other processes, the backup (a file copy) and SQLite's own integrity checks. Its SQL where
it differs: storage/sql.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
from collections.abc import AsyncIterator, Callable, Collection
from typing import Any

try:
    import fcntl
except ImportError:  # Windows: exclusive() is then per process
    fcntl = None  # type: ignore[assignment]

import aiosqlite

from .base import ForgetReport, IntegrityReport, ShardSlice, StoreError
from .core import invariant_problems
from .migrations import LATEST_VERSION, migrate
from .operations import Operations
from .ops_outbox import FINISH
from .preflight import check_database
from .rows import plain
from .sqlite_base import Finish, SqliteBase, Tx, connect, glance_connection

PARTIAL = ".partial"  # a copy being written beside its target, renamed into place once complete
# The files SQLite may keep beside a database file (its journal, or its WAL and the WAL's index).
SIDE_FILES = ("-journal", "-wal", "-shm")


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


class SqliteGameStore(Operations, SqliteBase):
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

    async def finish_duty(self, duty_id: int, owner: str, now: float, outcome: str = "sent") -> bool:
        """Finishes made while the one before them is being written wait for it, and are written together, in
        one transaction (a group commit): a delivery round lands several sends at once, and one transaction
        each was 1.3 of the 3.2 write transactions an action made in bench_bot. Each duty is still
        checked and answered on its own."""
        if self._closed:
            raise StoreError("store is closed")
        done: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        done.add_done_callback(lambda f: f.cancelled() or f.exception())  # a cancelled caller's outcome
        self._finishing.append((duty_id, owner, now, plain(outcome), done))
        if self._finisher is None:
            self._finisher = asyncio.ensure_future(self._write_finishes())
            self._tasks.add(self._finisher)  # close() waits for it, and for the finishes queued behind it
            self._finisher.add_done_callback(self._tasks.discard)
        return await asyncio.shield(done)

    async def _write_finishes(self) -> None:
        try:
            while self._finishing:
                batch, self._finishing = self._finishing, []

                async def body(conn: Tx, batch: list[Finish] = batch) -> list[bool]:
                    held: list[bool] = []
                    for duty_id, owner, now, outcome, _ in batch:
                        held.append(await conn.run(FINISH, now, outcome, duty_id, owner) == 1)
                    return held

                try:
                    held = await self._write(body, closing=True)
                except BaseException as error:  # each caller sees it, as if its own write had failed
                    failed = isinstance(error, Exception)  # else this task was cancelled (shutdown)
                    for *_, done in batch:
                        if done.done():
                            continue
                        if failed:
                            done.set_exception(error)
                        else:
                            done.cancel()
                    if not failed:
                        raise
                    continue
                for (*_, done), ok in zip(batch, held, strict=True):
                    if not done.done():
                        done.set_result(ok)
        finally:
            self._finisher = None
            for *_, done in self._finishing:  # left only if this task was cancelled
                done.cancel()
            self._finishing = []

    async def listen_for_duties(self, shards: ShardSlice | None, wake: Callable[[], None]) -> bool:
        # Nothing to hear: one bot process writes a SQLite file's duties, and its commits wake its worker
        # (a one-off ``--sync`` or ``storage move`` writes none that are due).
        del shards, wake
        return False

    async def listen_for_changes(self, wake: Callable[[], None]) -> bool:
        del wake  # nothing to hear: one bot process writes a SQLite file, and pokes its own web face
        return False

    @contextlib.asynccontextmanager
    async def exclusive(self, name: str) -> AsyncIterator[bool]:
        """A lock on the file ``<database>.<name>.lock``, taken without waiting: the processes sharing this
        database file (a bot and a one-off ``--sync``) see each other's. (Without ``fcntl``, on Windows, or
        for an in-memory database: this process's holders only.)"""
        if self._closed:
            raise StoreError("store is closed")
        if name in self._held:
            yield False
            return
        handle = None
        if fcntl is not None and self.path != ":memory:":
            handle = open(f"{self.path}.{name}.lock", "a+b")  # noqa: SIM115 - held for the whole block
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                handle.close()
                yield False
                return
        self._held[name] = handle
        try:
            yield True
        finally:
            self._held.pop(name, None)
            if handle is not None:
                handle.close()  # closing the file releases the lock

    async def backup(self, dest_path: str | os.PathLike[str]) -> None:
        # Online, in one step, from a separate connection.
        await asyncio.to_thread(copy_database, self.path, os.fspath(dest_path))

    async def integrity_check(self) -> IntegrityReport:
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
