"""The PostgreSQL implementation of `GameStore`, on asyncpg, for several bot processes sharing one
database: the shared operations (storage/operations.py) over PostgreSQL's plumbing (`PostgresBase`: a pool,
one connection per transaction, at READ COMMITTED, each write in its own task behind asyncio.shield so that
a cancelled caller never leaves half a transaction), with what PostgreSQL does its own way
(`PostgresGameStore`): the wake-ups across processes (LISTEN/NOTIFY), the advisory lock on a name, the
backup (pg_dump) and the integrity check. Its SQL where it differs (the claim's SKIP LOCKED, row locks):
storage/sql.py (`POSTGRES`); its schema: storage/pg_migrations.py. One contract suite runs on both stores.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import secrets
import shutil
import socket
import urllib.parse
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from typing import Any, Final, TypeAlias

import asyncpg

from .base import DatabaseUnreachable, IntegrityReport, ShardSlice, StoreError, redact_url
from .core import INSERT_DUTY, StoreCore, T, invariant_problems
from .operations import Operations
from .pg_migrations import DUTY_CHANNEL, LATEST_VERSION, migrate, schema_version
from .sql import POSTGRES, Conn, dollars

# A pooled connection: every transaction of the store runs on one.
_Conn: TypeAlias = "asyncpg.pool.PoolConnectionProxy[asyncpg.Record]"
_DEADLOCK_RETRIES: Final[int] = 3


def _count(status: str) -> int:
    """Rows touched, from asyncpg's command status ("UPDATE 3", "DELETE 0", "INSERT 0 1")."""
    return int(status.rsplit(" ", 1)[-1])


class PgTx:
    """A pooled connection inside a transaction, as the shared operations use it (storage.sql.Conn): their
    `?` placeholders become `$1, $2, ...`."""

    __slots__ = ("conn",)

    def __init__(self, conn: _Conn) -> None:
        self.conn = conn

    async def fetch(self, sql: str, *args: Any) -> list[Any]:
        return list(await self.conn.fetch(dollars(sql), *args))

    async def fetchrow(self, sql: str, *args: Any) -> Any | None:
        return await self.conn.fetchrow(dollars(sql), *args)

    async def run(self, sql: str, *args: Any) -> int:
        return _count(await self.conn.execute(dollars(sql), *args))

    async def run_many(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        await self.conn.executemany(dollars(sql), rows)


class PostgresBase(StoreCore):
    """The store's pool, its transactions, and its way of inserting duties."""

    sql = POSTGRES

    def __init__(self, url: str, pool: asyncpg.Pool, writer: str = "") -> None:
        self.url = url
        self._pool = pool
        # The pool's connections carry it as their `alexandros.writer` setting: the duties this store
        # writes are announced with it (pg_migrations._V4), so that it can tell its own from others'.
        self.writer = writer
        self._tasks: set[asyncio.Future[Any]] = set()
        self._holding: set[Any] = set()  # connections holding an exclusive() lock
        self._listener: asyncio.Task[None] | None = None  # listen_for_duties (storage/postgres.py)
        self._change_listener: asyncio.Task[None] | None = None  # listen_for_changes
        self._closed = False

    # ------------------------------------------------------------------ plumbing

    async def _run_tx(self, body: Callable[[PgTx], Awaitable[T]], isolation: str) -> T:
        for attempt in range(_DEADLOCK_RETRIES):
            try:
                async with self._pool.acquire() as conn, conn.transaction(isolation=isolation):  # type: ignore[arg-type]
                    return await body(PgTx(conn))
            except asyncpg.DeadlockDetectedError:
                # PostgreSQL rolled one of the two back; the whole transaction can simply run again.
                if attempt == _DEADLOCK_RETRIES - 1:
                    raise
        raise AssertionError("unreachable")

    async def _write(self, body: Callable[[PgTx], Awaitable[T]], isolation: str = "read_committed") -> T:
        self._check_open()
        return await asyncio.shield(self._keep(asyncio.ensure_future(self._run_tx(body, isolation))))

    async def _consistent(self, body: Callable[[PgTx], Awaitable[T]]) -> T:
        return await self._write(body, isolation="repeatable_read")

    async def _read(self, sql: str, *args: Any) -> list[Any]:
        self._check_open()
        return list(await self._pool.fetch(dollars(sql), *args))

    async def _glance(self, sql: str, *args: Any) -> list[Any]:
        return await self._read(sql, *args)

    async def _insert_rows(self, conn: Conn, rows: list[tuple[Any, ...]]) -> list[int]:
        # One statement for them all (columns as arrays), one round trip however many duties.
        game_id, guild_id = rows[0][:2]
        columns = [list(column) for column in zip(*(row[2:] for row in rows), strict=True)]
        new = await conn.fetch(
            INSERT_DUTY + " SELECT $1::bigint, $2::bigint, u.channel_id, u.user_id, u.kind, u.key, u.due_at,"
            " u.payload, u.created_at FROM unnest($3::bigint[], $4::bigint[], $5::text[], $6::text[],"
            " $7::float8[], $8::text[], $9::float8[])"
            " WITH ORDINALITY AS u(channel_id, user_id, kind, key, due_at, payload, created_at, n)"
            " ORDER BY u.n RETURNING id",
            game_id,
            guild_id,
            *columns,
        )
        # Identity values are drawn in insertion order.
        return sorted(int(r[0]) for r in new)

    async def _let_go(self) -> None:
        for listener in (self._listener, self._change_listener):  # each on a connection of its own
            if listener is not None:
                listener.cancel()
                await asyncio.gather(listener, return_exceptions=True)
        self._listener = self._change_listener = None
        if self._holding:
            # Closing while an exclusive() block still runs: drop the connections, as a dying process
            # would; the server releases their locks at once.
            self._holding.clear()
            self._pool.terminate()
            return
        await self._pool.close()


log = logging.getLogger(__name__)

# How often the listening connection is checked: a connection that died without the socket saying so (a
# network cut) is found within this, and the worker's poll covers the gap meanwhile.
_LISTEN_CHECK = 30.0
_LISTEN_RETRY_MAX = 30.0


def is_postgres_url(url: str) -> bool:
    return url.startswith(("postgresql://", "postgres://"))


async def _connect(url: str) -> asyncpg.Connection[asyncpg.Record]:
    try:
        return await asyncpg.connect(url)
    except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError) as err:
        raise DatabaseUnreachable(_why_unreachable(url, err)) from err


async def check_postgres(url: str) -> None:
    """Connect once and let go: DatabaseUnreachable (one sentence) if the server does not answer or refuses
    this database or user. ``python -m bot`` asks before it talks to Discord (as it checks an SQLite file)."""
    await (await _connect(url)).close()


async def open_postgres_store(url: str, *, min_size: int = 1, max_size: int = 10) -> PostgresGameStore:
    """Connect to the PostgreSQL database at `url` (postgresql://user:password@host:port/dbname) and upgrade
    its schema to the latest. Extra query parameters are server settings, e.g. `?search_path=alexandros`
    keeps the store's tables in their own schema. `max_size` bounds the connections this process opens."""
    if not is_postgres_url(url):
        raise ValueError("a PostgreSQL URL starts with postgresql://")
    conn = await _connect(url)
    try:
        await migrate(conn)
    finally:
        await conn.close()
    writer = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
    pool = await asyncpg.create_pool(
        url, min_size=min_size, max_size=max_size, server_settings={"alexandros.writer": writer}
    )
    return PostgresGameStore(url, pool, writer)


def _why_unreachable(url: str, err: BaseException) -> str:
    """One sentence for a failed connection: the database (password hidden), what failed, what to check."""
    where = f"The PostgreSQL database {redact_url(url)}"
    if isinstance(err, asyncpg.InvalidCatalogNameError):
        return f"{where} does not exist: create it (createdb), or correct ALEXANDROS_DATABASE_URL."
    if isinstance(err, asyncpg.InvalidPasswordError | asyncpg.InvalidAuthorizationSpecificationError):
        return f"{where} refused the user name or password in ALEXANDROS_DATABASE_URL: correct them."
    if isinstance(err, OSError | TimeoutError):
        return (
            f"{where} could not be reached ({type(err).__name__}): check that the server runs and that "
            "the host and port in ALEXANDROS_DATABASE_URL are right."
        )
    return f"{where} could not be opened ({type(err).__name__}: {err})."


class PostgresGameStore(Operations, PostgresBase):
    """`GameStore` on one PostgreSQL database. Make it with `open_postgres_store`; `close()` it when done."""

    schema_version = LATEST_VERSION

    async def listen_for_duties(self, shards: ShardSlice | None, wake: Callable[[], None]) -> bool:
        # On a connection of its own, outside the pool, connected again after a loss (waiting 1, 2, 4 ...
        # 30 s). A second call replaces the first (listen_for_changes' too).
        self._listener = self._listen_anew(self._listener, shards, wake, False, "store-listen-duties")
        return True

    async def listen_for_changes(self, wake: Callable[[], None]) -> bool:
        # The web face's live pages (bot.web.live) hear this process's own commits too.
        self._change_listener = self._listen_anew(
            self._change_listener, None, wake, True, "store-listen-changes"
        )
        return True

    def _listen_anew(
        self,
        old: asyncio.Task[None] | None,
        shards: ShardSlice | None,
        wake: Callable[[], None],
        own: bool,
        name: str,
    ) -> asyncio.Task[None]:
        self._check_open()
        if old is not None:
            old.cancel()
        return asyncio.get_running_loop().create_task(self._listen(shards, wake, own), name=name)

    async def _listen(self, shards: ShardSlice | None, wake: Callable[[], None], own: bool = False) -> None:
        def heard(_conn: object, _pid: int, _channel: str, payload: object) -> None:
            guild, _, writer = str(payload).partition(" ")
            if writer == self.writer and self.writer and not own:
                return  # this process wakes its own worker when it commits
            try:
                guild_id = int(guild) if guild else None
            except ValueError:  # not a payload of ours: a needless claim costs less than a missed duty
                wake()
                return
            if shards is None or shards.owns(guild_id):
                wake()

        pause = 1.0
        while not self._closed:
            conn: asyncpg.Connection[Any] | None = None
            try:
                conn = await asyncpg.connect(self.url)
                lost = asyncio.Event()
                conn.add_termination_listener(lambda _c, lost=lost: lost.set())
                await conn.add_listener(DUTY_CHANNEL, heard)
                pause = 1.0
                wake()  # whatever was committed while nobody listened
                while not lost.is_set() and not self._closed:
                    # asyncio.timeout, not wait_for: on Python 3.11 wait_for swallows a cancel that comes
                    # just as what it waits for is done, and closing then waited for this task for ever.
                    try:
                        async with asyncio.timeout(_LISTEN_CHECK):
                            await lost.wait()
                    except TimeoutError:
                        async with asyncio.timeout(_LISTEN_CHECK):
                            await conn.execute("SELECT 1")
                log.warning("lost the connection that listens for duties; connecting again")
            except Exception:  # the worker polls meanwhile; listening must outlive any one failure
                log.warning("cannot listen for duties; again in %.0f s", pause, exc_info=True)
                await asyncio.sleep(pause)
                pause = min(pause * 2, _LISTEN_RETRY_MAX)
            finally:
                if conn is not None:
                    conn.terminate()

    @contextlib.asynccontextmanager
    async def exclusive(self, name: str) -> AsyncIterator[bool]:
        """A session advisory lock held on one pooled connection for the block: PostgreSQL releases it
        when the block ends, or when the connection drops (the holder died). Never waits."""
        self._check_open()
        key = int.from_bytes(hashlib.sha256(f"alexandros:{name}".encode()).digest()[:8], "big", signed=True)
        conn = await self._pool.acquire()
        try:
            mine = bool(await conn.fetchval("SELECT pg_try_advisory_lock($1)", key))
            if mine:
                self._holding.add(conn)
            try:
                yield mine
            finally:
                if mine and not self._closed:  # closed: the connection, and with it the lock, is gone
                    await conn.execute("SELECT pg_advisory_unlock($1)", key)
        finally:
            self._holding.discard(conn)
            if not self._closed:
                await self._pool.release(conn)

    async def backup(self, dest_path: str | os.PathLike[str]) -> None:
        """Dump the whole database to `dest_path` with `pg_dump --format=custom` (restore: `pg_restore`).

        PostgreSQL's backups are pg_dump's, not a file copy: it reads one consistent snapshot while the bot
        goes on writing. pg_dump must be on PATH and of the server's major version or newer; otherwise this
        raises StoreError saying so. The dump is written beside the target and renamed into place, so
        `dest_path` is either the old dump or a complete new one.
        """
        self._check_open()
        pg_dump = shutil.which("pg_dump")
        if pg_dump is None:
            raise StoreError(
                "PostgreSQL backups are made with pg_dump, which is not on PATH: install the PostgreSQL "
                "client (Debian: apt-get install postgresql-client) or run pg_dump yourself"
            )
        dest = os.fspath(dest_path)
        partial = dest + ".partial"
        url, env, args = _pg_dump_target(self.url)
        proc = await asyncio.create_subprocess_exec(
            pg_dump,
            "--format=custom",
            "--no-owner",
            *args,
            f"--file={partial}",
            f"--dbname={url}",
            env={**os.environ, **env},
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        _, err = await proc.communicate()
        if proc.returncode != 0:
            if os.path.exists(partial):
                os.remove(partial)
            raise StoreError(f"pg_dump failed ({proc.returncode}): {err.decode(errors='replace').strip()}")
        os.replace(partial, dest)

    async def integrity_check(self) -> IntegrityReport:
        """The store's invariants, all read in one snapshot: the schema version, events 1..version with a
        snapshot at that version, one unfinished game per channel, and id sequences ahead of the ids in use
        (imports write ids of their own)."""

        async def body(conn: PgTx) -> IntegrityReport:
            return IntegrityReport(tuple(await _check_integrity(conn)))

        return await self._consistent(body)


async def _check_integrity(tx: PgTx) -> list[str]:
    conn = tx.conn
    problems: list[str] = []
    version = await schema_version(conn)
    if version != LATEST_VERSION:
        problems.append(f"schema version {version}, this program's is {LATEST_VERSION}")
    problems += await invariant_problems(tx.fetch)
    for table in ("games", "duties"):
        row = await conn.fetchrow(
            f"SELECT (SELECT MAX(id) FROM {table}),"
            f" pg_sequence_last_value(pg_get_serial_sequence('{table}', 'id')::regclass)"
        )
        assert row is not None
        top, last = row
        if top is not None and (last is None or last < top):
            problems.append(f"table {table}: id sequence at {last} is behind the highest id {top}")
    return problems


# Query parameters of a connection URL that libpq (pg_dump) understands itself; asyncpg takes the others
# as server settings, which libpq wants in PGOPTIONS instead.
_LIBPQ_PARAMS: Final[frozenset[str]] = frozenset(
    {"host", "hostaddr", "port", "dbname", "user", "password", "passfile", "connect_timeout",
     "application_name", "sslmode", "sslcert", "sslkey", "sslrootcert", "sslpassword", "target_session_attrs"}
)  # fmt: skip


def _pg_dump_target(url: str) -> tuple[str, dict[str, str], list[str]]:
    """The URL for pg_dump, its environment and extra arguments.

    The password goes to PGPASSWORD (a command line is visible to every local user in the process list);
    server settings (`?search_path=s`) go to PGOPTIONS, and a search_path limits the dump to that schema.
    """
    parts = urllib.parse.urlsplit(url)
    env: dict[str, str] = {}
    args: list[str] = []
    netloc = parts.netloc
    if parts.password is not None:
        env["PGPASSWORD"] = urllib.parse.unquote(parts.password)
        netloc = netloc.rsplit("@", 1)[1]
        if parts.username:
            netloc = f"{parts.username}@{netloc}"
    kept: list[tuple[str, str]] = []
    options: list[str] = []
    for key, value in urllib.parse.parse_qsl(parts.query, keep_blank_values=True):
        if key in _LIBPQ_PARAMS:
            kept.append((key, value))
        else:
            options.append(f"-c {key}={value}")
            if key == "search_path":
                args.extend(f"--schema={schema.strip()}" for schema in value.split(","))
    if options:
        env["PGOPTIONS"] = " ".join(options)
    query = urllib.parse.urlencode(kept)
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc, query=query)), env, args
