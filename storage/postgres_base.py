"""What every part of the PostgreSQL store stands on: its pool, its transactions, and the rows it reads
and writes inside them. The parts (lobby, outbox, settings, transfer, ratings, privacy) are mixins of
`PostgresGameStore` (storage/postgres.py), each on this base.

It behaves exactly as the SQLite store (storage.sqlite) does; the same contract suite runs on both.
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
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Final, NoReturn, TypeAlias, TypeVar

import asyncpg

from .base import (
    GameClosed,
    GameNotFound,
    GameRecord,
    NewDuty,
    ShardSlice,
    StoreError,
    VersionConflict,
)
from .rows import (
    ACTIVE_SQL,
    game_from_row,
)

T = TypeVar("T")
# A pooled connection: every transaction of the store runs on one.
_Conn: TypeAlias = "asyncpg.pool.PoolConnectionProxy[asyncpg.Record]"

_SEATS: Final[str] = (
    "ARRAY(SELECT s.seat FROM seats s WHERE s.game_id = g.id ORDER BY s.seat),"
    " ARRAY(SELECT s.user_id FROM seats s WHERE s.game_id = g.id ORDER BY s.seat)"
)
_GAME_COLUMNS: Final[str] = (
    "g.id, g.guild_id, g.channel_id, g.status, g.options, g.version, g.created_at, g.updated_at,"
    f" g.created_by, g.waiting_on, g.turn_started_at, {_SEATS}"
)
_DEADLOCK_RETRIES: Final[int] = 3


def _game_from_row(row: asyncpg.Record) -> GameRecord:
    # The seats come as two arrays, seat numbers and user ids, in seat order.
    return game_from_row(row, zip(row[11], row[12], strict=True))


def _count(status: str) -> int:
    """Rows touched, from asyncpg's command status ("UPDATE 3", "DELETE 0", "INSERT 0 1")."""
    return int(status.rsplit(" ", 1)[-1])


class _Params:
    """Numbered placeholders ($1, $2, ...) for SQL built piece by piece."""

    def __init__(self, *values: Any) -> None:
        self.values: list[Any] = list(values)

    def __call__(self, value: Any) -> str:
        self.values.append(value)
        return f"${len(self.values)}"


def _shard_filter(shards: ShardSlice | None, p: _Params, column: str) -> str:
    """SQL keeping the rows of guilds on the given shards; direct messages (no guild) are shard 0."""
    if shards is None:
        return ""
    return (
        f" AND (CASE WHEN {column} IS NULL THEN 0 ELSE ({column} >> 22) % {p(shards.count)}::bigint END)"
        f" = ANY({p(list(shards.ids))}::bigint[])"
    )


async def _why_not_updated(conn: Any, game_id: int, expected_version: int) -> NoReturn:
    """A version-guarded update of a game changed no row: raise why (gone, moved on, or closed)."""
    row = await conn.fetchrow("SELECT version, status FROM games WHERE id = $1", game_id)
    if row is None:
        raise GameNotFound(game_id)
    if row[0] != expected_version:
        raise VersionConflict(game_id, expected_version, row[0])
    raise GameClosed(game_id, row[1])


async def _write_meta(conn: _Conn, game_id: int, rows: Sequence[tuple[str, str | None]], now: float) -> None:
    for key, text in rows:
        if text is None:
            await conn.execute("DELETE FROM game_meta WHERE game_id = $1 AND key = $2", game_id, key)
        else:
            await conn.execute(
                "INSERT INTO game_meta (game_id, key, body, updated_at) VALUES ($1, $2, $3, $4)"
                " ON CONFLICT (game_id, key) DO UPDATE SET body = excluded.body,"
                " updated_at = excluded.updated_at",
                game_id,
                key,
                text,
                now,
            )


class PostgresBase:
    """The store's pool, its transactions and the row helpers used inside them."""

    def __init__(self, url: str, pool: asyncpg.Pool, writer: str = "") -> None:
        self.url = url
        self._pool = pool
        # The pool's connections carry it as their `alexandros.writer` setting: the duties this store
        # writes are announced with it (pg_migrations._V4), so that it can tell its own from others'.
        self.writer = writer
        self._tasks: set[asyncio.Task[Any]] = set()
        self._holding: set[Any] = set()  # connections holding an exclusive() lock
        self._listener: asyncio.Task[None] | None = None  # listen_for_duties (postgres_outbox)
        self._change_listener: asyncio.Task[None] | None = None  # listen_for_changes (postgres_outbox)
        self._closed = False

    # ------------------------------------------------------------------ plumbing

    async def _run_tx(self, body: Callable[[_Conn], Awaitable[T]], isolation: str) -> T:
        for attempt in range(_DEADLOCK_RETRIES):
            try:
                async with self._pool.acquire() as conn, conn.transaction(isolation=isolation):  # type: ignore[arg-type]
                    return await body(conn)
            except asyncpg.DeadlockDetectedError:
                # PostgreSQL rolled one of the two back; the whole transaction can simply run again.
                if attempt == _DEADLOCK_RETRIES - 1:
                    raise
        raise AssertionError("unreachable")

    async def _write(self, body: Callable[[_Conn], Awaitable[T]], isolation: str = "read_committed") -> T:
        if self._closed:
            raise StoreError("store is closed")
        task = asyncio.ensure_future(self._run_tx(body, isolation))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        # Retrieve the outcome even if nobody awaits it any more (caller cancelled).
        task.add_done_callback(lambda t: t.cancelled() or t.exception())
        return await asyncio.shield(task)

    async def _read(self, sql: str, *params: Any) -> list[asyncpg.Record]:
        if self._closed:
            raise StoreError("store is closed")
        return list(await self._pool.fetch(sql, *params))

    @staticmethod
    async def _fetch_game(conn: _Conn, game_id: int, lock: bool = False) -> GameRecord:
        if lock and await conn.fetchval("SELECT 1 FROM games WHERE id = $1 FOR UPDATE", game_id) is None:
            raise GameNotFound(game_id)
        row = await conn.fetchrow(f"SELECT {_GAME_COLUMNS} FROM games g WHERE g.id = $1", game_id)
        if row is None:
            raise GameNotFound(game_id)
        return _game_from_row(row)

    @staticmethod
    async def _active_game_in(conn: _Conn, channel_id: int) -> int | None:
        found = await conn.fetchval(
            f"SELECT id FROM games WHERE channel_id = $1 AND status IN {ACTIVE_SQL}", channel_id
        )
        return None if found is None else int(found)

    @staticmethod
    async def _insert_duties(
        conn: _Conn,
        game_id: int | None,
        guild_id: int | None,
        duties: Sequence[tuple[NewDuty, str]],
        now: float,
        created: Sequence[float] = (),
        cancel: Sequence[str] = (),
    ) -> list[int]:
        """Insert duties: a keyed one replaces the game's pending duty of that key, and pending duties with
        a key in `cancel` go too. Returns the new ids. The caller holds the game's row lock (so that two
        transactions never race on one key) and gives its guild. Two round trips, however many duties."""
        keys = sorted({*cancel, *(d.key for d, _ in duties if d.key is not None)})
        if keys:
            if game_id is None:
                await conn.execute(
                    "DELETE FROM duties WHERE game_id IS NULL AND key = ANY($1::text[]) AND done_at IS NULL",
                    keys,
                )
            else:
                await conn.execute(
                    "DELETE FROM duties WHERE game_id = $1 AND key = ANY($2::text[]) AND done_at IS NULL",
                    game_id,
                    keys,
                )
        # Within one call too, a later duty with a key replaces an earlier one.
        last = {d.key: i for i, (d, _) in enumerate(duties) if d.key is not None}
        kept = [i for i, (d, _) in enumerate(duties) if d.key is None or last[d.key] == i]
        if not kept:
            return []
        rows = await conn.fetch(
            "INSERT INTO duties"
            " (game_id, guild_id, channel_id, user_id, kind, key, due_at, payload, created_at)"
            " SELECT $1::bigint, $2::bigint, u.channel_id, u.user_id, u.kind, u.key, u.due_at, u.payload,"
            " u.created_at FROM unnest($3::bigint[], $4::bigint[], $5::text[], $6::text[],"
            " $7::float8[], $8::text[], $9::float8[])"
            " WITH ORDINALITY AS u(channel_id, user_id, kind, key, due_at, payload, created_at, n)"
            " ORDER BY u.n RETURNING id",
            game_id,
            guild_id,
            [duties[i][0].channel_id for i in kept],
            [duties[i][0].user_id for i in kept],
            [duties[i][0].kind for i in kept],
            [duties[i][0].key for i in kept],
            [duties[i][0].due_at for i in kept],
            [duties[i][1] for i in kept],
            [created[i] if i < len(created) else now for i in kept],
        )
        # Identity values are drawn in insertion order.
        return sorted(int(r[0]) for r in rows)

    @staticmethod
    async def _cancel_keys(conn: _Conn, game_id: int, keys: Sequence[str] | None) -> int:
        if keys is None:
            status = await conn.execute("DELETE FROM duties WHERE game_id = $1 AND done_at IS NULL", game_id)
        elif not keys:
            return 0
        else:
            status = await conn.execute(
                "DELETE FROM duties WHERE game_id = $1 AND done_at IS NULL AND key = ANY($2::text[])",
                game_id,
                list(keys),
            )
        return _count(status)

    @staticmethod
    async def _replace_seats(conn: _Conn, game_id: int, seat_rows: list[tuple[int, int]]) -> None:
        await conn.execute("DELETE FROM seats WHERE game_id = $1", game_id)
        await conn.executemany(
            "INSERT INTO seats (game_id, seat, user_id) VALUES ($1, $2, $3)",
            [(game_id, s, u) for s, u in seat_rows],
        )

    async def close(self) -> None:
        """Let running transactions finish, then close the pool. Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._holding:
            # Closing while an exclusive() block still runs: drop the connections, as a dying process
            # would; the server releases their locks at once.
            self._holding.clear()
            self._pool.terminate()
            return
        await self._pool.close()
