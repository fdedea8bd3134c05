"""The PostgreSQL store's plumbing under the shared operations (storage/operations.py): its pool, its
transactions (`_write`), its reads and its way of inserting duties. Its SQL where it differs from SQLite's:
storage/sql.py (`POSTGRES`). It behaves exactly as the SQLite store does; one contract suite runs on both.
How transactions work, and why:
- A pool of connections, one per concurrent transaction. Every write is one transaction on one pooled
  connection, at READ COMMITTED, and runs in its own task behind asyncio.shield: a cancelled caller (a
  Discord timeout, shutdown) never leaves half a transaction, as in the SQLite store.
- Appends are version-checked in the UPDATE itself (`WHERE id = $ AND version = $`): two racing writers,
  in one process or in two, queue on the game's row lock; the second then finds the version moved on and
  gets VersionConflict. Lobby changes, abandoning and keyed duties lock the game row first (FOR UPDATE),
  so they are serialized per game, as SQLite serializes everything.
- Duties are claimed with `UPDATE … WHERE id IN (SELECT … FOR UPDATE SKIP LOCKED LIMIT n) RETURNING …`
  under a lease: workers in several processes never wait on each other nor take the same duty, and a
  duty whose worker died is handed out again once its lease has run out.
- JSON is text, encoded before any connection is taken, with NaN refused (see storage.pg_migrations).
- Backups are `pg_dump` (see `backup`); the schema has its own numbered migrations (storage.pg_migrations).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any, Final, TypeAlias, TypeVar

import asyncpg

from .base import StoreError
from .core import INSERT_DUTY, StoreCore
from .sql import POSTGRES, Conn, dollars

T = TypeVar("T")
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
        if self._closed:
            raise StoreError("store is closed")
        task = asyncio.ensure_future(self._run_tx(body, isolation))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        # Retrieve the outcome even if nobody awaits it any more (caller cancelled).
        task.add_done_callback(lambda t: t.cancelled() or t.exception())
        return await asyncio.shield(task)

    async def _consistent(self, body: Callable[[PgTx], Awaitable[T]]) -> T:
        return await self._write(body, isolation="repeatable_read")

    async def _read(self, sql: str, *args: Any) -> list[Any]:
        if self._closed:
            raise StoreError("store is closed")
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
        if self._holding:
            # Closing while an exclusive() block still runs: drop the connections, as a dying process
            # would; the server releases their locks at once.
            self._holding.clear()
            self._pool.terminate()
            return
        await self._pool.close()
