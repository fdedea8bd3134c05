"""The SQLite implementation of `GameStore`, on aiosqlite: the shared operations (storage/operations.py)
over SQLite's plumbing (`SqliteBase`: a writer, a reader and the event loop's own connection for point
reads), with what SQLite does its own way (`SqliteGameStore`): finishes written together (a group commit),
the lock on a name (a file lock), no listening for other processes, the backup (a file copy) and SQLite's
own integrity checks. Its SQL where it differs: storage/sql.py (`SQLITE`). How its transactions run and
why: docs/ARCHITECTURE.md (storage). Every write is an explicit BEGIN IMMEDIATE ... COMMIT on the one writer:
a plain BEGIN that later writes fails with "database is locked" despite the busy timeout, and a connection
shared in implicit-transaction mode lets one coroutine's COMMIT save another's rolled-back row.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sqlite3
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Iterable, Sequence
from functools import partial
from typing import Any, Final

import aiosqlite

from .base import ForgetReport, IntegrityReport, ShardSlice, StoreError
from .core import INSERT_DUTY, StoreCore, T, invariant_problems
from .migrations import LATEST_VERSION, migrate
from .operations import Operations
from .ops_outbox import FINISH
from .preflight import check_database
from .rows import plain
from .sql import SQLITE, Conn

try:
    import fcntl
except ImportError:  # Windows: exclusive() is then per process
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger(__name__)
_INSERT_DUTY: Final[str] = INSERT_DUTY + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
# A finish_duty call waiting to be written: duty id, lease owner, time, outcome, and its caller's answer.
Finish = tuple[int, str, float, str, asyncio.Future[bool]]


async def _configure(conn: aiosqlite.Connection) -> None:
    await conn.execute("PRAGMA busy_timeout = 5000")
    await _use_wal(conn)
    await conn.execute("PRAGMA synchronous = NORMAL")
    await conn.execute("PRAGMA foreign_keys = ON")
    # Deleted and rewritten rows are overwritten with zeros, not left in the file's free space: a user who
    # asked to be forgotten (storage/privacy.py) leaves no copy of their old rows behind.
    await conn.execute("PRAGMA secure_delete = ON")


async def _use_wal(conn: aiosqlite.Connection, attempts: int = 100, pause: float = 0.05) -> None:
    """Switch the file to WAL. The mode persists in the file, so this is a no-op after the first open.

    SQLite does not apply busy_timeout to every lock that changing the journal mode takes: two processes
    opening a new file at once can get "database is locked" at once, so the switch is retried here.
    """
    for attempt in range(attempts):
        try:
            rows = list(await conn.execute_fetchall("PRAGMA journal_mode"))
            if rows and str(rows[0][0]).lower() == "wal":
                return
            await conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc) or attempt == attempts - 1:
                raise
            await asyncio.sleep(pause)


async def connect(path: str | os.PathLike[str]) -> aiosqlite.Connection:
    """An autocommit connection with the project's pragmas. No migrations are run."""
    conn = aiosqlite.connect(os.fspath(path), isolation_level=None)
    try:
        await conn
    except BaseException:
        # aiosqlite stops its worker thread without waiting for it: wait here, so that the thread's last
        # callback does not meet an event loop that has closed meanwhile (a traceback at exit).
        thread = getattr(conn, "_thread", None)
        if thread is not None and thread.is_alive():
            await asyncio.to_thread(thread.join, 5)
        raise
    try:
        await _configure(conn)
    except BaseException:
        await conn.close()
        raise
    return conn


def glance_connection(path: str | os.PathLike[str]) -> sqlite3.Connection:
    """The connection of ``SqliteBase._glance``: read-only, and never waiting for a lock (busy_timeout 0:
    a busy read goes to the reader's thread instead)."""
    conn = sqlite3.connect(os.fspath(path), isolation_level=None, check_same_thread=False)
    try:
        conn.execute("PRAGMA query_only = ON")
        conn.execute("PRAGMA busy_timeout = 0")
    except BaseException:
        conn.close()
        raise
    return conn


class Tx:
    """The writer's connection as a transaction body sees it: a body runs whole in the writer's thread
    (``_whole_transaction``), so these calls, awaited as aiosqlite's are, run at once on the connection."""

    __slots__ = ("_conn",)

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    # aiosqlite's names, for the benchmarks that fill a database through the store's writer.
    async def execute(self, sql: str, parameters: Iterable[Any] = ()) -> sqlite3.Cursor:
        return self._conn.execute(sql, tuple(parameters))

    async def executemany(self, sql: str, parameters: Iterable[Sequence[Any]]) -> sqlite3.Cursor:
        return self._conn.executemany(sql, parameters)

    # The shared operations' seam (storage.sql.Conn).
    async def fetch(self, sql: str, *args: Any) -> list[Any]:
        return self._conn.execute(sql, args).fetchall()

    async def fetchrow(self, sql: str, *args: Any) -> Any | None:
        found = self._conn.execute(sql, args).fetchall()
        return found[0] if found else None

    async def run(self, sql: str, *args: Any) -> int:
        return self._conn.execute(sql, args).rowcount

    async def run_many(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        self._conn.executemany(sql, rows)


def _whole_transaction(conn: sqlite3.Connection, body: Callable[[Tx], Awaitable[T]]) -> T:
    """BEGIN IMMEDIATE, the body, COMMIT (or ROLLBACK), in the writer's thread. The body is a coroutine
    that awaits only its ``Tx``, which never suspends: it runs to its end in one step."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        step = body(Tx(conn)).__await__()
        try:
            next(step)
        except StopIteration as done:
            result: T = done.value
        else:
            step.close()
            raise RuntimeError("a transaction body awaited something other than its connection")
        conn.execute("COMMIT")
    except BaseException:
        try:
            conn.execute("ROLLBACK")
        except sqlite3.OperationalError:
            pass  # "no transaction is active": SQLite already rolled back (e.g. on a full disk)
        raise
    return result


class SqliteBase(StoreCore):
    """The store's three connections (writer, reader, and the loop's own for point reads), its one-writer
    transactions, and its way of inserting duties."""

    sql = SQLITE

    def __init__(
        self,
        path: str,
        writer: aiosqlite.Connection,
        reader: aiosqlite.Connection,
        glance: sqlite3.Connection,
    ) -> None:
        self.path = path
        self._held: dict[str, Any] = {}  # name -> its lock file (or None), held with exclusive()
        self._writer = writer
        self._reader = reader
        # Point reads on the thread that opened the store (its event loop's): see _glance.
        self._glance_conn = glance
        self._glance_thread = threading.get_ident()
        self._tasks: set[asyncio.Future[Any]] = set()  # writes queued and not yet done
        self._closed = False
        self._finishing: list[Finish] = []  # finish_duty calls waiting for the transaction before theirs
        self._finisher: asyncio.Future[None] | None = None

    # ------------------------------------------------------------------ plumbing

    async def _write(self, body: Callable[[Tx], Awaitable[T]], *, closing: bool = False) -> T:
        """Run ``body`` as one write transaction. ``closing``: also while ``close`` waits for the writes
        before it (a write that a queued one started: see SqliteGameStore.finish_duty)."""
        if self._closed and not closing:
            raise StoreError("store is closed")
        # One trip to the thread (see the module's docstring), where each statement, the BEGIN and the COMMIT
        # were one (an action's append made about ten). Queued at once: an asyncio lock held it back until
        # the loop had seen the last one end, so under load every write also waited for a turn of a busy
        # loop, and the writer sat idle between. Without a task around it: one task fewer a write, three
        # writes an action. Queued before this returns, it runs to its end even if the caller is cancelled.
        writer = self._writer
        if not writer._running or writer._connection is None:
            raise StoreError("store is closed")
        done: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        writer._tx.put_nowait((done, partial(_whole_transaction, writer._conn, body)))
        return await asyncio.shield(self._keep(done))

    async def _consistent(self, body: Callable[[Tx], Awaitable[T]]) -> T:
        return await self._write(body)  # on the writer (the module's docstring says why)

    async def _read(self, sql: str, *params: Any) -> list[Any]:
        self._check_open()
        return list(await self._reader.execute_fetchall(sql, params))

    async def _glance(self, sql: str, *params: Any) -> list[Any]:
        """A read of a few rows found by an index (a game by id or channel, its metadata, its pending
        duties, a snapshot), run at once on the event loop's own connection.

        Such a read takes about 6 us of CPU; the same read sent to the reader's thread took about 90 us
        (a future, a queue, two thread switches and a wake-up of the loop), and an action made six of them.
        WAL lets it read beside the writer without waiting. When SQLite says busy all the same (a WAL being
        recovered after a crash, another process's exclusive moment), the read goes to the reader's thread,
        which waits for it with the busy timeout: the loop itself never waits for a lock. Larger reads (a
        game's events, lists of games, exports) always go to the reader's thread."""
        if threading.get_ident() != self._glance_thread:
            return await self._read(sql, *params)
        # Let the loop turn first, as a read in the reader's thread did: a handler that ran all its reads at
        # once held the loop for its whole length, and 50 handlers woken together held it some 60 ms.
        await asyncio.sleep(0)
        self._check_open()
        try:
            return self._glance_conn.execute(sql, params).fetchall()
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc):
                raise
        return await self._read(sql, *params)

    async def _checkpoint(self, attempts: int = 5) -> bool:
        """Copy the WAL into the file and truncate the WAL to nothing (``wal_checkpoint(TRUNCATE)``): until
        then it holds the pages of earlier transactions, old rows among them. It waits for readers (the
        busy timeout) and is tried again a few times; False (logged) when a reader kept it from finishing."""
        for attempt in range(attempts):
            rows = list(await self._writer.execute_fetchall("PRAGMA wal_checkpoint(TRUNCATE)"))
            if rows and rows[0][0] == 0:
                return True
            await asyncio.sleep(0.05 * (attempt + 1))
        log.warning("the WAL checkpoint did not finish: %s still holds pages of earlier writes", self.path)
        return False

    async def _insert_rows(self, conn: Conn, rows: list[tuple[Any, ...]]) -> list[int]:
        # One statement a duty: each runs at once in the writer's thread, with no trip between them.
        ids = []
        for row in rows:
            await conn.run(_INSERT_DUTY, *row)
            new = await conn.fetchrow("SELECT last_insert_rowid()")
            assert new is not None
            ids.append(int(new[0]))
        return ids

    async def _let_go(self) -> None:
        for handle in self._held.values():  # closing while an exclusive() block runs: as if the process died
            if handle is not None:
                handle.close()
        self._held.clear()
        self._glance_conn.close()
        try:
            await self._reader.close()
        finally:
            await self._writer.close()


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
        # (SqliteBase), neither the file nor its WAL keeps a copy of the old rows.
        report = await super().forget_user(user_id, pseudonym, now, names)
        await self._checkpoint()
        return report

    async def finish_duty(self, duty_id: int, owner: str, now: float, outcome: str = "sent") -> bool:
        """Finishes made while the one before them is being written wait for it, and are written together, in
        one transaction (a group commit): a delivery round lands several sends at once, and one transaction
        each was 1.3 of the 3.2 write transactions an action made in bench_bot. Each duty is still
        checked and answered on its own."""
        self._check_open()
        done: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        done.add_done_callback(lambda f: f.cancelled() or f.exception())  # a cancelled caller's outcome
        self._finishing.append((duty_id, owner, now, plain(outcome), done))
        if self._finisher is None:
            # close() waits for it, and for the finishes queued behind it.
            self._finisher = self._keep(asyncio.ensure_future(self._write_finishes()))
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
        # (a one-off ``--sync`` or ``bot move`` writes none that are due).
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
        self._check_open()
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
        self._check_open()
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
