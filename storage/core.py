"""What every operation of the store stands on, written once for both backends: the plumbing a backend
gives (`_write`, `_read`, `_glance`, `_consistent`, `_insert_rows`) and the row helpers used inside a
transaction. The operations themselves are mixins on `StoreCore` (storage/ops_*.py, assembled in
storage/operations.py); a backend (storage/sqlite.py, storage/postgres.py) implements the
plumbing and names its SQL (storage/sql.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, ClassVar, Final, NoReturn, Self, TypeVar

from .base import GameClosed, GameNotFound, GameRecord, NewDuty, ShardSlice, StoreError, VersionConflict
from .rows import ACTIVE_SQL
from .sql import Conn, Dialect

T = TypeVar("T")
INSERT_DUTY: Final[str] = (
    "INSERT INTO duties (game_id, guild_id, channel_id, user_id, kind, key, due_at, payload, created_at)"
)
# A game finished or abandoned: its timers (keyed pending duties) go; its pending posts stay.
DROP_TIMERS: Final[str] = "DELETE FROM duties WHERE game_id = ? AND done_at IS NULL AND key IS NOT NULL"


class StoreCore:
    """A backend's plumbing, as the operations see it, and the helpers they share."""

    sql: ClassVar[Dialect]
    _closed: bool
    _tasks: set[asyncio.Future[Any]]  # writes under way, which close() lets finish

    async def close(self) -> None:
        """Let running transactions finish, then let go of the connections. Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        await self._let_go()

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError("store is closed")

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def _keep(self, running: asyncio.Future[T]) -> asyncio.Future[T]:
        """A write under way, which close() lets finish; its outcome is retrieved even if nobody awaits it
        any more (a cancelled caller). Await it shielded: a cancelled caller never stops it halfway."""
        self._tasks.add(running)
        running.add_done_callback(self._tasks.discard)
        running.add_done_callback(lambda f: f.cancelled() or f.exception())
        return running

    async def _let_go(self) -> None:
        """Close the backend's connections (no transaction runs any more)."""
        raise NotImplementedError

    async def _write(self, body: Callable[[Conn], Awaitable[T]]) -> T:
        """Run ``body`` as one write transaction, whole even if the caller is cancelled."""
        raise NotImplementedError

    async def _consistent(self, body: Callable[[Conn], Awaitable[T]]) -> T:
        """Run ``body``'s reads in one transaction that sees one state of the database (an export)."""
        raise NotImplementedError

    async def _read(self, sql: str, *args: Any) -> list[Any]:
        """One read statement outside any transaction (lists, events: larger reads)."""
        raise NotImplementedError

    async def _glance(self, sql: str, *args: Any) -> list[Any]:
        """A read of a few rows found by an index (a game by id, its metadata): the backend's fastest."""
        raise NotImplementedError

    async def _insert_rows(self, conn: Conn, rows: list[tuple[Any, ...]]) -> list[int]:
        """Insert these duty rows (the columns of `INSERT_DUTY`); their new ids, in order."""
        raise NotImplementedError

    async def _run(self, sql: str, *args: Any) -> int:
        """One statement as a write transaction of its own; the number of rows it touched."""

        async def body(conn: Conn) -> int:
            return await conn.run(sql, *args)

        return await self._write(body)

    # ------------------------------------------------------------------ helpers inside a transaction

    async def _insert_duties(
        self,
        conn: Conn,
        game_id: int | None,
        guild_id: int | None,
        duties: Sequence[tuple[NewDuty, str]],
        now: float,
        created: Sequence[float] = (),
        cancel: Sequence[str] = (),
    ) -> list[int]:
        """Insert duties of a game (and its guild, which the caller has read and, on PostgreSQL, locked, so
        that two transactions never race on one key) or of none: a keyed one replaces the pending duty of
        that key, and pending duties with a key in `cancel` go too. Returns the new ids. `created` gives
        their creation times (an import keeps them); `now` is the default."""
        await self._cancel_keys(
            conn, game_id, sorted({*cancel, *(d.key for d, _ in duties if d.key is not None)})
        )
        # Within one call too, a later duty with a key replaces an earlier one.
        last = {d.key: i for i, (d, _) in enumerate(duties) if d.key is not None}
        rows = [
            (
                game_id,
                guild_id,
                d.channel_id,
                d.user_id,
                d.kind,
                d.key,
                d.due_at,
                payload,
                created[i] if i < len(created) else now,
            )
            for i, (d, payload) in enumerate(duties)
            if d.key is None or last[d.key] == i
        ]
        return await self._insert_rows(conn, rows) if rows else []

    async def _fetch_game(self, conn: Conn, game_id: int, lock: bool = False) -> GameRecord:
        """The game's row; ``lock``: locked until the transaction ends (where the backend locks rows)."""
        if lock and self.sql.lock_game and await conn.fetchrow(self.sql.lock_game, game_id) is None:
            raise GameNotFound(game_id)
        row = await conn.fetchrow(self.sql.select_game + "g.id = ?", game_id)
        if row is None:
            raise GameNotFound(game_id)
        return self.sql.game(row)

    @staticmethod
    async def _active_game_in(conn: Conn, channel_id: int) -> int | None:
        row = await conn.fetchrow(
            f"SELECT id FROM games WHERE channel_id = ? AND status IN {ACTIVE_SQL}", channel_id
        )
        return None if row is None else int(row[0])

    async def _cancel_keys(self, conn: Conn, game_id: int | None, keys: Sequence[str] | None) -> int:
        """Delete the pending duties of a game (None: of no game) with these keys (None: all); how many."""
        if keys is not None and not keys:
            return 0
        where, args = ("game_id IS NULL", []) if game_id is None else ("game_id = ?", [game_id])
        if keys is not None:
            which, key_args = self.sql.any_of("key", keys)
            where, args = f"{where} AND {which}", args + key_args
        return await conn.run(f"DELETE FROM duties WHERE {where} AND done_at IS NULL", *args)

    @staticmethod
    async def _replace_seats(conn: Conn, game_id: int, seat_rows: Sequence[tuple[int, int]]) -> None:
        await conn.run("DELETE FROM seats WHERE game_id = ?", game_id)
        await insert_seats(conn, game_id, seat_rows)

    def _shard_filter(self, shards: ShardSlice | None, column: str, first: int) -> tuple[str, list[Any]]:
        """SQL keeping the rows of guilds on the given shards (direct messages are shard 0), with its
        arguments, numbered from ``first``."""
        if shards is None:
            return "", []
        marks = ", ".join(f"?{first + 1 + i}" for i in range(len(shards.ids)))
        return (
            f" AND (CASE WHEN {column} IS NULL THEN 0 ELSE ({column} >> 22) % ?{first} END) IN ({marks})",
            [shards.count, *shards.ids],
        )


async def insert_seats(conn: Conn, game_id: int, seat_rows: Sequence[tuple[int, int]]) -> None:
    if seat_rows:
        await conn.run_many(
            "INSERT INTO seats (game_id, seat, user_id) VALUES (?, ?, ?)",
            [(game_id, s, u) for s, u in seat_rows],
        )


async def why_not_updated(conn: Conn, game_id: int, expected_version: int) -> NoReturn:
    """A version-guarded update of a game changed no row: raise why (gone, moved on, or closed)."""
    row = await conn.fetchrow("SELECT version, status FROM games WHERE id = ?", game_id)
    if row is None:
        raise GameNotFound(game_id)
    if row[0] != expected_version:
        raise VersionConflict(game_id, expected_version, row[0])
    raise GameClosed(game_id, row[1])


async def write_meta(conn: Conn, game_id: int, rows: Sequence[tuple[str, str | None]], now: float) -> None:
    for key, text in rows:
        if text is None:
            await conn.run("DELETE FROM game_meta WHERE game_id = ? AND key = ?", game_id, key)
        else:
            await conn.run(
                "INSERT INTO game_meta (game_id, key, body, updated_at) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (game_id, key) DO UPDATE SET body = excluded.body,"
                " updated_at = excluded.updated_at",
                game_id,
                key,
                text,
                now,
            )


async def insert_maps(conn: Conn, map_rows: Sequence[tuple[str, str, str]]) -> None:
    if map_rows:
        await conn.run_many(
            "INSERT INTO maps (digest, name, text) VALUES (?, ?, ?) ON CONFLICT DO NOTHING", map_rows
        )


async def invariant_problems(rows: Callable[[str], Awaitable[Sequence[Any]]]) -> list[str]:
    """The store's invariants, checked by both backends' integrity_check: events 1..version (as rows, or
    packed: a game over), a snapshot at that version, one unfinished game per channel."""
    problems: list[str] = []
    for game_id, version, count, top in await rows(
        "SELECT g.id, g.version, COUNT(e.version), COALESCE(MAX(e.version), 0)"
        " FROM games g LEFT JOIN events e ON e.game_id = g.id"
        " WHERE g.id NOT IN (SELECT game_id FROM packed) GROUP BY g.id"
        " HAVING COUNT(e.version) != g.version OR COALESCE(MAX(e.version), 0) != g.version ORDER BY g.id"
    ):
        problems.append(f"game {game_id}: version {version} but {count} events up to {top}")
    for game_id, version, snap in await rows(
        "SELECT g.id, g.version, s.version FROM games g JOIN snapshots s ON s.game_id = g.id"
        " WHERE s.version != g.version ORDER BY g.id"
    ):
        problems.append(f"game {game_id}: version {version} but snapshot at {snap}")
    for (game_id,) in await rows(
        "SELECT g.id FROM games g WHERE g.version > 0"
        " AND NOT EXISTS (SELECT 1 FROM snapshots s WHERE s.game_id = g.id) ORDER BY g.id"
    ):
        problems.append(f"game {game_id}: has events but no snapshot")
    for channel_id, count in await rows(
        f"SELECT channel_id, COUNT(*) FROM games WHERE status IN {ACTIVE_SQL} GROUP BY channel_id"
        " HAVING COUNT(*) > 1"
    ):
        problems.append(f"channel {channel_id}: {count} unfinished games")
    return problems
