"""The PostgreSQL implementation of `GameStore`, on asyncpg, for several bot processes sharing one database.

It behaves exactly as the SQLite store (storage.sqlite) does; the same contract suite runs on both.
Design, and why:
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
import contextlib
import dataclasses
import hashlib
import json
import os
import shutil
import urllib.parse
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Mapping, Sequence
from typing import Any, Final, NoReturn, TypeAlias, TypeVar

import asyncpg

from .base import (
    KEEP,
    MAX_SEATS,
    TERMINAL_STATUSES,
    ChannelBusy,
    Duty,
    GameClosed,
    GameExists,
    GameNotFound,
    GameRecord,
    IntegrityReport,
    InvalidGameData,
    JsonDict,
    MapRow,
    NewDuty,
    SeatError,
    ShardSlice,
    Status,
    StoreError,
    VersionConflict,
    _Keep,
    snapshot_map,
)
from .pg_migrations import LATEST_VERSION, migrate, schema_version
from .postgres_privacy import PostgresPrivacy
from .ratings import PostgresRatings
from .rows import (
    EXPORT_FORMAT,
    EXPORT_FORMAT_VERSION,
    ChangeRows,
    check_seats,
    check_status,
    export_maps,
    from_json,
    metadata_rows,
    parse_export,
    to_json,
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
_DUTY_COLUMNS: Final[str] = (
    "id, game_id, guild_id, channel_id, user_id, kind, key, due_at, payload, created_at, attempts,"
    " not_before, lease_owner, lease_until, done_at, outcome, last_error"
)
_ACTIVE_SQL: Final[str] = "('lobby', 'playing')"
_DEADLOCK_RETRIES: Final[int] = 3


def _game_from_row(row: asyncpg.Record) -> GameRecord:
    return GameRecord(
        id=row[0],
        guild_id=row[1],
        channel_id=row[2],
        status=row[3],
        options=from_json(row[4]),
        version=row[5],
        created_at=row[6],
        updated_at=row[7],
        created_by=row[8],
        waiting_on=row[9],
        turn_started_at=row[10],
        seats=tuple(zip(row[11], row[12], strict=True)),
    )


def _duty_from_row(row: asyncpg.Record) -> Duty:
    return Duty(
        id=row[0],
        game_id=row[1],
        guild_id=row[2],
        channel_id=row[3],
        user_id=row[4],
        kind=row[5],
        key=row[6],
        due_at=row[7],
        payload=from_json(row[8]),
        created_at=row[9],
        attempts=row[10],
        not_before=row[11],
        lease_owner=row[12],
        lease_until=row[13],
        done_at=row[14],
        outcome=row[15],
        last_error=row[16],
    )


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


def is_postgres_url(url: str) -> bool:
    return url.startswith(("postgresql://", "postgres://"))


async def open_postgres_store(url: str, *, min_size: int = 1, max_size: int = 10) -> PostgresGameStore:
    """Connect to the PostgreSQL database at `url` (postgresql://user:password@host:port/dbname) and upgrade
    its schema to the latest. Extra query parameters are server settings, e.g. `?search_path=alexandros`
    keeps the store's tables in their own schema. `max_size` bounds the connections this process opens."""
    if not is_postgres_url(url):
        raise ValueError("a PostgreSQL URL starts with postgresql://")
    conn = await asyncpg.connect(url)
    try:
        await migrate(conn)
    finally:
        await conn.close()
    pool = await asyncpg.create_pool(url, min_size=min_size, max_size=max_size)
    return PostgresGameStore(url, pool)


async def _why_not_updated(conn: Any, game_id: int, expected_version: int) -> NoReturn:
    """A version-guarded update of a game changed no row: raise why (gone, moved on, or closed)."""
    row = await conn.fetchrow("SELECT version, status FROM games WHERE id = $1", game_id)
    if row is None:
        raise GameNotFound(game_id)
    if row[0] != expected_version:
        raise VersionConflict(game_id, expected_version, row[0])
    raise GameClosed(game_id, row[1])


class PostgresGameStore(
    PostgresRatings, PostgresPrivacy
):  # mixins: storage/ratings.py, storage/postgres_privacy.py
    """`GameStore` on one PostgreSQL database. Make it with `open_postgres_store`; `close()` it when done."""

    def __init__(self, url: str, pool: asyncpg.Pool) -> None:
        self.url = url
        self._pool = pool
        self._tasks: set[asyncio.Task[Any]] = set()
        self._holding: set[Any] = set()  # connections holding an exclusive() lock
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
            f"SELECT id FROM games WHERE channel_id = $1 AND status IN {_ACTIVE_SQL}", channel_id
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

    # ------------------------------------------------------------------ games: lifecycle

    async def create_game(
        self,
        guild_id: int | None,
        channel_id: int,
        created_by: int,
        options: Mapping[str, Any],
        now: float,
        snapshot: Mapping[str, Any] | None = None,
        seats: Sequence[tuple[int, int]] = (),
    ) -> GameRecord:
        """A new game in the lobby at version 0. Raises ChannelBusy if the channel has an unfinished game."""
        options_json = to_json(options)
        snapshot_json = None if snapshot is None else to_json(snapshot)
        seat_rows = check_seats(seats)

        async def body(conn: _Conn) -> GameRecord:
            # The partial unique index is the arbiter: a racing create in the same channel waits for
            # this one to commit, then inserts nothing.
            game_id = await conn.fetchval(
                "INSERT INTO games (guild_id, channel_id, status, options, version, created_by, created_at,"
                " updated_at) VALUES ($1, $2, 'lobby', $3, 0, $4, $5, $5)"
                f" ON CONFLICT (channel_id) WHERE status IN {_ACTIVE_SQL} DO NOTHING RETURNING id",
                guild_id,
                channel_id,
                options_json,
                created_by,
                now,
            )
            if game_id is None:
                raise ChannelBusy(channel_id, await self._active_game_in(conn, channel_id))
            if seat_rows:
                await conn.executemany(
                    "INSERT INTO seats (game_id, seat, user_id) VALUES ($1, $2, $3)",
                    [(game_id, s, u) for s, u in seat_rows],
                )
            if snapshot_json is not None:
                await conn.execute(
                    "INSERT INTO snapshots (game_id, version, body) VALUES ($1, 0, $2)",
                    game_id,
                    snapshot_json,
                )
            return await self._fetch_game(conn, game_id)

        return await self._write(body)

    async def _lobby_change(
        self,
        game_id: int,
        now: float,
        change: Callable[[_Conn, GameRecord], Awaitable[None]],
    ) -> GameRecord:
        async def body(conn: _Conn) -> GameRecord:
            game = await self._fetch_game(conn, game_id, lock=True)
            if game.status != "lobby":
                raise SeatError(f"game {game_id} is not in the lobby ({game.status})")
            await change(conn, game)
            await conn.execute("UPDATE games SET updated_at = $1 WHERE id = $2", now, game_id)
            return await self._fetch_game(conn, game_id)

        return await self._write(body)

    async def join_seat(self, game_id: int, user_id: int, now: float, seat: int | None = None) -> GameRecord:
        """Seat a user in the lobby: the given seat, or the lowest free one. Raises SeatError."""

        async def change(conn: _Conn, game: GameRecord) -> None:
            if game.seat_of(user_id) is not None:
                raise SeatError(f"user {user_id} is already seated")
            taken = {s for s, _ in game.seats}
            if seat is None:
                free = [s for s in range(MAX_SEATS) if s not in taken]
                if not free:
                    raise SeatError("the table is full")
                chosen = free[0]
            else:
                if not 0 <= seat < MAX_SEATS:
                    raise SeatError(f"seats must be 0..{MAX_SEATS - 1}")
                if seat in taken:
                    raise SeatError(f"seat {seat} is taken")
                chosen = seat
            await conn.execute(
                "INSERT INTO seats (game_id, seat, user_id) VALUES ($1, $2, $3)", game_id, chosen, user_id
            )

        return await self._lobby_change(game_id, now, change)

    async def leave_seat(self, game_id: int, user_id: int, now: float) -> GameRecord:
        """Take a user out of the lobby. Raises SeatError if they are not seated or the game has begun."""

        async def change(conn: _Conn, game: GameRecord) -> None:
            if game.seat_of(user_id) is None:
                raise SeatError(f"user {user_id} is not seated")
            await conn.execute("DELETE FROM seats WHERE game_id = $1 AND user_id = $2", game_id, user_id)

        return await self._lobby_change(game_id, now, change)

    async def update_lobby(
        self,
        game_id: int,
        now: float,
        *,
        options: Mapping[str, Any] | None = None,
        seats: Sequence[tuple[int, int]] | None = None,
    ) -> GameRecord:
        """Replace the options and/or the seating of a game still in the lobby."""
        options_json = None if options is None else to_json(options)
        seat_rows = None if seats is None else check_seats(seats)

        async def change(conn: _Conn, game: GameRecord) -> None:
            if options_json is not None:
                await conn.execute("UPDATE games SET options = $1 WHERE id = $2", options_json, game_id)
            if seat_rows is not None:
                await self._replace_seats(conn, game_id, seat_rows)

        return await self._lobby_change(game_id, now, change)

    @staticmethod
    async def _replace_seats(conn: _Conn, game_id: int, seat_rows: list[tuple[int, int]]) -> None:
        await conn.execute("DELETE FROM seats WHERE game_id = $1", game_id)
        await conn.executemany(
            "INSERT INTO seats (game_id, seat, user_id) VALUES ($1, $2, $3)",
            [(game_id, s, u) for s, u in seat_rows],
        )

    async def set_seats(self, game_id: int, seats: Sequence[tuple[int, int]], now: float) -> GameRecord:
        return await self.update_lobby(game_id, now, seats=seats)

    async def append(
        self,
        game_id: int,
        expected_version: int,
        events: Sequence[Mapping[str, Any]],
        snapshot: Mapping[str, Any],
        now: float,
        *,
        status: Status | None = None,
        waiting_on: int | None | _Keep = KEEP,
        seats: Sequence[tuple[int, int]] | None = None,
        duties: Sequence[NewDuty] = (),
        cancel_keys: Collection[str] = (),
        meta: Mapping[str, Any] | None = None,
        maps: Sequence[MapRow] = (),
    ) -> GameRecord:
        """Record one action atomically, exactly as `SqliteGameStore.append` does (see its docstring).

        The version check is the UPDATE's own WHERE clause: a racing writer waits on the row lock, then
        sees the new version and matches nothing, so one commit wins and the other gets VersionConflict.
        """
        if not events:
            raise ValueError("an action needs at least one event")
        if status is not None:
            check_status(status)
        event_rows = [(game_id, expected_version + i + 1, to_json(e), now) for i, e in enumerate(events)]
        new_version = expected_version + len(events)
        snapshot_json = to_json(snapshot)
        if status in TERMINAL_STATUSES:
            waiting_on = None
        c = ChangeRows.of(
            seats=seats, duties=duties, waiting_on=waiting_on, cancel_keys=cancel_keys, meta=meta
        )
        map_rows = list(maps)

        async def body(conn: _Conn) -> GameRecord:
            updated = await conn.fetchrow(
                "UPDATE games g SET version = $1, updated_at = $2, status = COALESCE($3::text, g.status),"
                " turn_started_at = CASE WHEN NOT $4::boolean OR g.waiting_on IS NOT DISTINCT FROM $5::bigint"
                "   THEN g.turn_started_at WHEN $5::bigint IS NULL THEN NULL ELSE $2 END,"
                " waiting_on = CASE WHEN $4::boolean THEN $5::bigint ELSE g.waiting_on END"
                f" WHERE g.id = $6 AND g.version = $7 AND g.status IN {_ACTIVE_SQL}"
                f" RETURNING {_GAME_COLUMNS}",
                new_version, now, status, c.set_waiting, c.waiting, game_id, expected_version,
            )  # fmt: skip
            if updated is None:
                await _why_not_updated(conn, game_id, expected_version)
            record = _game_from_row(updated)
            if map_rows:
                await conn.executemany(
                    "INSERT INTO maps (digest, name, text) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
                    map_rows,
                )
            await conn.executemany(
                "INSERT INTO events (game_id, version, body, created_at) VALUES ($1, $2, $3, $4)", event_rows
            )
            await conn.execute(
                "INSERT INTO snapshots (game_id, version, body) VALUES ($1, $2, $3)"
                " ON CONFLICT (game_id) DO UPDATE SET version = excluded.version, body = excluded.body",
                game_id,
                new_version,
                snapshot_json,
            )
            if c.seats is not None:
                await self._replace_seats(conn, game_id, c.seats)
            if status in TERMINAL_STATUSES:
                await conn.execute(
                    "DELETE FROM duties WHERE game_id = $1 AND done_at IS NULL AND key IS NOT NULL", game_id
                )
                await self._insert_duties(conn, game_id, record.guild_id, c.duties, now)
            else:
                await self._insert_duties(conn, game_id, record.guild_id, c.duties, now, cancel=c.cancel_keys)
            await _write_meta(conn, game_id, c.meta, now)
            if c.seats is not None:
                record = dataclasses.replace(record, seats=tuple(sorted(c.seats)))
            return record

        return await self._write(body)

    async def amend(
        self,
        game_id: int,
        expected_version: int,
        now: float,
        *,
        waiting_on: int | None | _Keep = KEEP,
        seats: Sequence[tuple[int, int]] | None = None,
        duties: Sequence[NewDuty] = (),
        cancel_keys: Collection[str] = (),
        meta: Mapping[str, Any] | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> GameRecord:
        """A change with no engine event, exactly as `SqliteGameStore.amend` does."""
        c = ChangeRows.of(
            seats=seats, duties=duties, waiting_on=waiting_on, cancel_keys=cancel_keys, meta=meta
        )
        options_json = None if options is None else to_json(options)

        async def body(conn: _Conn) -> GameRecord:
            updated = await conn.fetchrow(
                "UPDATE games g SET updated_at = $1, options = COALESCE($6::text, g.options),"
                " turn_started_at = CASE WHEN NOT $2::boolean OR g.waiting_on IS NOT DISTINCT FROM $3::bigint"
                "   THEN g.turn_started_at WHEN $3::bigint IS NULL THEN NULL ELSE $1 END,"
                " waiting_on = CASE WHEN $2::boolean THEN $3::bigint ELSE g.waiting_on END"
                " WHERE g.id = $4 AND g.version = $5 AND g.status = 'playing'"
                f" RETURNING {_GAME_COLUMNS}",
                now, c.set_waiting, c.waiting, game_id, expected_version, options_json,
            )  # fmt: skip
            if updated is None:
                await _why_not_updated(conn, game_id, expected_version)
            record = _game_from_row(updated)
            if c.seats is not None:
                await self._replace_seats(conn, game_id, c.seats)
                record = dataclasses.replace(record, seats=tuple(sorted(c.seats)))
            await self._insert_duties(conn, game_id, record.guild_id, c.duties, now, cancel=c.cancel_keys)
            await _write_meta(conn, game_id, c.meta, now)
            return record

        return await self._write(body)

    async def abandon_game(self, game_id: int, now: float, duties: Sequence[NewDuty] = ()) -> GameRecord:
        """Mark an unfinished game abandoned (no event, no version change), with the duties that tells.
        Idempotent: a game already finished or abandoned is returned as it is, and no duty is added."""
        duty_rows = [(d, to_json(d.payload)) for d in duties]

        async def body(conn: _Conn) -> GameRecord:
            game = await self._fetch_game(conn, game_id, lock=True)
            if game.status in TERMINAL_STATUSES:
                return game
            await conn.execute(
                "UPDATE games SET status = 'abandoned', waiting_on = NULL, turn_started_at = NULL,"
                " updated_at = $1 WHERE id = $2",
                now,
                game_id,
            )
            await conn.execute(
                "DELETE FROM duties WHERE game_id = $1 AND done_at IS NULL AND key IS NOT NULL", game_id
            )
            await self._insert_duties(conn, game_id, game.guild_id, duty_rows, now)
            return await self._fetch_game(conn, game_id)

        return await self._write(body)

    # ------------------------------------------------------------------ games: reads

    async def load_snapshot(self, game_id: int) -> tuple[int, JsonDict] | None:
        """(version, snapshot) of the latest state, or None if the game has no snapshot yet.

        Pass that version to `append` as expected_version. Raises GameNotFound.
        """
        rows = await self._read(
            "SELECT g.version, s.version, s.body FROM games g LEFT JOIN snapshots s ON s.game_id = g.id"
            " WHERE g.id = $1",
            game_id,
        )
        if not rows:
            raise GameNotFound(game_id)
        _, version, body = rows[0]
        return None if body is None else (int(version), from_json(body))

    async def get_map(self, digest: str) -> tuple[str, str] | None:
        rows = await self._read("SELECT name, text FROM maps WHERE digest = $1", digest)
        return (str(rows[0][0]), str(rows[0][1])) if rows else None

    async def game_by_id(self, game_id: int) -> GameRecord | None:
        rows = await self._read(f"SELECT {_GAME_COLUMNS} FROM games g WHERE g.id = $1", game_id)
        return _game_from_row(rows[0]) if rows else None

    async def game_by_channel(self, channel_id: int) -> GameRecord | None:
        """The channel's game in the lobby or in play, if any (finished games are history)."""
        rows = await self._read(
            f"SELECT {_GAME_COLUMNS} FROM games g WHERE g.channel_id = $1 AND g.status IN {_ACTIVE_SQL}",
            channel_id,
        )
        return _game_from_row(rows[0]) if rows else None

    async def latest_game_in_channel(self, channel_id: int) -> GameRecord | None:
        """The channel's newest game, whatever its status, so a game just ended can still be shown."""
        rows = await self._read(
            f"SELECT {_GAME_COLUMNS} FROM games g WHERE g.channel_id = $1"
            " ORDER BY g.created_at DESC, g.id DESC LIMIT 1",
            channel_id,
        )
        return _game_from_row(rows[0]) if rows else None

    async def get_game_meta(self, game_id: int) -> JsonDict:
        """The game's metadata: a JSON value per key ({} when there is none)."""
        rows = await self._read("SELECT key, body FROM game_meta WHERE game_id = $1 ORDER BY key", game_id)
        return {key: json.loads(body) for key, body in rows}

    async def set_game_meta(self, game_id: int, changes: Mapping[str, Any], now: float) -> JsonDict:
        """Merge `changes` into the game's metadata (a None value removes the key). Returns the result."""
        rows = metadata_rows(changes)

        async def body(conn: _Conn) -> JsonDict:
            await self._fetch_game(conn, game_id, lock=True)
            await _write_meta(conn, game_id, rows, now)
            found = await conn.fetch(
                "SELECT key, body FROM game_meta WHERE game_id = $1 ORDER BY key", game_id
            )
            return {key: json.loads(text) for key, text in found}

        return await self._write(body)

    async def games_waiting_on(self, user_id: int) -> list[GameRecord]:
        """Games in play whose turn belongs to `user_id`, longest-waiting first."""
        rows = await self._read(
            f"SELECT {_GAME_COLUMNS} FROM games g WHERE g.waiting_on = $1 AND g.status = 'playing'"
            " ORDER BY g.turn_started_at, g.id",
            user_id,
        )
        return [_game_from_row(r) for r in rows]

    async def games_of_user(self, user_id: int, active_only: bool = True) -> list[GameRecord]:
        """Games where `user_id` has a seat, newest first."""
        where = f" AND g.status IN {_ACTIVE_SQL}" if active_only else ""
        rows = await self._read(
            f"SELECT {_GAME_COLUMNS} FROM games g JOIN seats st ON st.game_id = g.id"
            f" WHERE st.user_id = $1{where} ORDER BY g.updated_at DESC, g.id DESC",
            user_id,
        )
        return [_game_from_row(r) for r in rows]

    async def list_games(
        self,
        status: Status | Collection[Status] | None = None,
        guild_id: int | None = None,
        limit: int | None = None,
    ) -> list[GameRecord]:
        """Games filtered by status (one or several) and guild, most recently updated first."""
        p = _Params()
        clauses: list[str] = []
        if status is not None:
            wanted = [status] if isinstance(status, str) else list(status)
            for s in wanted:
                check_status(s)
            clauses.append(f"g.status = ANY({p(wanted)}::text[])")
        if guild_id is not None:
            clauses.append(f"g.guild_id = {p(guild_id)}")
        sql = f"SELECT {_GAME_COLUMNS} FROM games g"
        if clauses:
            sql += " WHERE " + " AND ".join(clauses)
        sql += " ORDER BY g.updated_at DESC, g.id DESC"
        if limit is not None:
            sql += f" LIMIT {p(limit)}"
        return [_game_from_row(r) for r in await self._read(sql, *p.values)]

    async def events(
        self, game_id: int, since_version: int = 0, limit: int | None = None
    ) -> list[tuple[int, JsonDict]]:
        """Events after `since_version`, oldest first; with `limit`, only the last `limit` of them."""
        if limit is None:
            rows = await self._read(
                "SELECT version, body FROM events WHERE game_id = $1 AND version > $2 ORDER BY version",
                game_id,
                since_version,
            )
        else:
            rows = await self._read(
                "SELECT version, body FROM (SELECT version, body FROM events"
                " WHERE game_id = $1 AND version > $2 ORDER BY version DESC LIMIT $3) last ORDER BY version",
                game_id,
                since_version,
                limit,
            )
        return [(int(v), from_json(b)) for v, b in rows]

    # ------------------------------------------------------------------ the outbox

    async def add_duties(
        self,
        game_id: int | None,
        duties: Sequence[NewDuty],
        now: float,
        *,
        cancel_keys: Collection[str] = (),
        meta: Mapping[str, Any] | None = None,
    ) -> list[Duty]:
        """Write duties (and cancel keyed ones, and merge meta) in one transaction, outside an action."""
        duty_rows = [(d, to_json(d.payload)) for d in duties]
        keys = list(cancel_keys)
        meta_rows = metadata_rows(meta or {})
        if game_id is None and (keys or meta_rows):
            raise ValueError("cancel_keys and meta need a game")

        async def body(conn: _Conn) -> list[Duty]:
            guild_id = None
            if game_id is not None:
                guild_id = (await self._fetch_game(conn, game_id, lock=True)).guild_id
                await _write_meta(conn, game_id, meta_rows, now)
            ids = await self._insert_duties(conn, game_id, guild_id, duty_rows, now, cancel=keys)
            if not ids:
                return []
            rows = await conn.fetch(
                f"SELECT {_DUTY_COLUMNS} FROM duties WHERE id = ANY($1::bigint[]) ORDER BY id", ids
            )
            return [_duty_from_row(r) for r in rows]

        return await self._write(body)

    async def claim_duties(
        self, now: float, owner: str, lease_seconds: float, limit: int = 50, shards: ShardSlice | None = None
    ) -> list[Duty]:
        """Lease up to `limit` due duties to `owner` until now + lease_seconds, earliest first.

        A channel's duties go out in order: a duty is handed out only when no earlier due duty of its
        channel is still undone (leased, backing off or waiting). FOR UPDATE SKIP LOCKED lets claimers in
        other processes pass over the rows this one is taking instead of waiting for them; a duty whose
        lease ran out (its worker died) is handed out again, and `attempts` counts the hand-outs.
        """
        p = _Params(owner, now + lease_seconds, now)
        where = _shard_filter(shards, p, "d.guild_id")
        sql = (
            "UPDATE duties SET lease_owner = $1, lease_until = $2, attempts = attempts + 1"
            " WHERE id IN (SELECT d.id FROM duties d"
            "  WHERE d.done_at IS NULL AND d.due_at <= $3"
            "   AND (d.not_before IS NULL OR d.not_before <= $3)"
            f"   AND (d.lease_until IS NULL OR d.lease_until <= $3){where}"
            # An earlier duty of the channel is due too (it is before d, and d is due), so the check needs no
            # `e.due_at <= now`: without it, duties_channel is the only index that fits, and the planner
            # never picks duties_due for it, which made claims quadratic on a table not yet analyzed.
            "   AND NOT EXISTS (SELECT 1 FROM duties e WHERE e.channel_id = d.channel_id"
            "    AND e.done_at IS NULL AND (e.due_at, e.id) < (d.due_at, d.id))"
            f"  ORDER BY d.due_at, d.id LIMIT {p(limit)} FOR UPDATE SKIP LOCKED)"
            f" RETURNING {_DUTY_COLUMNS}"
        )

        async def body(conn: _Conn) -> list[Duty]:
            rows = await conn.fetch(sql, *p.values)
            return sorted((_duty_from_row(r) for r in rows), key=lambda d: (d.due_at, d.id))

        return await self._write(body)

    async def finish_duty(self, duty_id: int, owner: str, now: float, outcome: str = "sent") -> bool:
        """Mark a leased duty done. False (and nothing changed) when the lease is no longer `owner`'s."""

        async def body(conn: _Conn) -> bool:
            status = await conn.execute(
                "UPDATE duties SET done_at = $1, outcome = $2, lease_until = NULL"
                " WHERE id = $3 AND lease_owner = $4 AND done_at IS NULL",
                now,
                outcome,
                duty_id,
                owner,
            )
            return _count(status) == 1

        return await self._write(body)

    async def retry_duty(self, duty_id: int, owner: str, not_before: float, error: str) -> bool:
        """Give a leased duty back, to be tried again from `not_before`; False when the lease was lost."""

        async def body(conn: _Conn) -> bool:
            status = await conn.execute(
                "UPDATE duties SET lease_owner = NULL, lease_until = NULL, not_before = $1, last_error = $2"
                " WHERE id = $3 AND lease_owner = $4 AND done_at IS NULL",
                not_before,
                error[:500],
                duty_id,
                owner,
            )
            return _count(status) == 1

        return await self._write(body)

    async def pending_duties(self, game_id: int | None) -> list[Duty]:
        """Undone duties of a game (None: of no game), in delivery order."""
        if game_id is None:
            rows = await self._read(
                f"SELECT {_DUTY_COLUMNS} FROM duties WHERE game_id IS NULL AND done_at IS NULL"
                " ORDER BY due_at, id"
            )
        else:
            rows = await self._read(
                f"SELECT {_DUTY_COLUMNS} FROM duties WHERE game_id = $1 AND done_at IS NULL"
                " ORDER BY due_at, id",
                game_id,
            )
        return [_duty_from_row(r) for r in rows]

    async def cancel_duties(self, game_id: int, keys: Collection[str] | None = None) -> int:
        """Delete a game's pending duties with these keys (None: all of them). Returns how many."""
        key_list = None if keys is None else list(keys)

        async def body(conn: _Conn) -> int:
            return await self._cancel_keys(conn, game_id, key_list)

        return await self._write(body)

    async def next_duty_at(self, shards: ShardSlice | None = None) -> float | None:
        """When a duty can next be handed out: the earliest ready time (due, back-off and lease over) of the
        first undone duty of each channel (each DM on its own), for a worker to sleep until."""
        p = _Params()
        where = _shard_filter(shards, p, "d.guild_id")
        rows = await self._read(
            "SELECT MIN(GREATEST(d.due_at, COALESCE(d.not_before, d.due_at),"
            " COALESCE(d.lease_until, d.due_at)))"
            f" FROM duties d WHERE d.done_at IS NULL{where}"
            "  AND NOT EXISTS (SELECT 1 FROM duties e WHERE e.channel_id = d.channel_id"
            "   AND e.done_at IS NULL AND (e.due_at, e.id) < (d.due_at, d.id))",
            *p.values,
        )
        return None if not rows or rows[0][0] is None else float(rows[0][0])

    @contextlib.asynccontextmanager
    async def exclusive(self, name: str) -> AsyncIterator[bool]:
        """A session advisory lock held on one pooled connection for the block: PostgreSQL releases it
        when the block ends, or when the connection drops (the holder died). Never waits."""
        if self._closed:
            raise StoreError("store is closed")
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

    async def purge_done_duties(self, done_before: float) -> int:
        """Delete duties done before `done_before` (housekeeping). Undone ones are never touched."""

        async def body(conn: _Conn) -> int:
            return _count(
                await conn.execute(
                    "DELETE FROM duties WHERE done_at IS NOT NULL AND done_at < $1", done_before
                )
            )

        return await self._write(body)

    # ------------------------------------------------------------------ user settings

    async def get_user_settings(self, user_id: int) -> JsonDict:
        rows = await self._read("SELECT body FROM user_settings WHERE user_id = $1", user_id)
        return from_json(rows[0][0]) if rows else {}

    async def set_user_settings(self, user_id: int, settings: Mapping[str, Any], now: float) -> None:
        """Replace all of a user's settings."""
        body_json = to_json(settings)

        async def body(conn: _Conn) -> None:
            await conn.execute(
                "INSERT INTO user_settings (user_id, body, updated_at) VALUES ($1, $2, $3)"
                " ON CONFLICT (user_id) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at",
                user_id,
                body_json,
                now,
            )

        await self._write(body)

    async def update_user_settings(self, user_id: int, changes: Mapping[str, Any], now: float) -> JsonDict:
        """Merge `changes` into a user's settings (a None value removes the key). Returns the result.
        The row is locked while merging, so two processes' updates of one user both land."""
        changes = dict(changes)
        to_json(changes)

        async def body(conn: _Conn) -> JsonDict:
            await conn.execute(
                "INSERT INTO user_settings (user_id, body, updated_at) VALUES ($1, '{}', $2)"
                " ON CONFLICT (user_id) DO NOTHING",
                user_id,
                now,
            )
            text = await conn.fetchval(
                "SELECT body FROM user_settings WHERE user_id = $1 FOR UPDATE", user_id
            )
            merged = from_json(text)
            for key, value in changes.items():
                if value is None:
                    merged.pop(key, None)
                else:
                    merged[key] = value
            await conn.execute(
                "UPDATE user_settings SET body = $2, updated_at = $3 WHERE user_id = $1",
                user_id,
                to_json(merged),
                now,
            )
            return merged

        return await self._write(body)

    async def all_user_settings(self) -> list[tuple[int, JsonDict, float]]:
        """(user id, settings, updated_at) of every user, for moving a database."""
        rows = await self._read("SELECT user_id, body, updated_at FROM user_settings ORDER BY user_id")
        return [(int(u), from_json(b), float(t)) for u, b, t in rows]

    # ------------------------------------------------------------------ operations

    async def backup(self, dest_path: str | os.PathLike[str]) -> None:
        """Dump the whole database to `dest_path` with `pg_dump --format=custom` (restore: `pg_restore`).

        PostgreSQL's backups are pg_dump's, not a file copy: it reads one consistent snapshot while the bot
        goes on writing. pg_dump must be on PATH and of the server's major version or newer; otherwise this
        raises StoreError saying so. The dump is written beside the target and renamed into place, so
        `dest_path` is either the old dump or a complete new one.
        """
        if self._closed:
            raise StoreError("store is closed")
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

        async def body(conn: _Conn) -> IntegrityReport:
            return IntegrityReport(tuple(await _check_integrity(conn)))

        return await self._write(body, isolation="repeatable_read")

    async def export_game(self, game_id: int) -> JsonDict:
        """One game as a JSON-able dict, in the same format as the SQLite store's, read in one snapshot."""

        async def body(conn: _Conn) -> JsonDict:
            game = await self._fetch_game(conn, game_id)
            events = await conn.fetch(
                "SELECT version, body, created_at FROM events WHERE game_id = $1 ORDER BY version", game_id
            )
            snap = await conn.fetchrow("SELECT version, body FROM snapshots WHERE game_id = $1", game_id)
            duties = await conn.fetch(
                f"SELECT {_DUTY_COLUMNS} FROM duties WHERE game_id = $1 AND done_at IS NULL ORDER BY id",
                game_id,
            )
            meta = await conn.fetch(
                "SELECT key, body FROM game_meta WHERE game_id = $1 ORDER BY key", game_id
            )
            snap_body = None if snap is None else from_json(snap[1])
            digest = snapshot_map(snap_body)
            maps = (
                []
                if digest is None
                else await conn.fetch("SELECT digest, name, text FROM maps WHERE digest = $1", digest)
            )
            return {
                "format": EXPORT_FORMAT,
                "format_version": EXPORT_FORMAT_VERSION,
                "schema_version": LATEST_VERSION,
                "game": {
                    "id": game.id,
                    "guild_id": game.guild_id,
                    "channel_id": game.channel_id,
                    "status": game.status,
                    "options": game.options,
                    "version": game.version,
                    "created_by": game.created_by,
                    "created_at": game.created_at,
                    "updated_at": game.updated_at,
                    "waiting_on": game.waiting_on,
                    "turn_started_at": game.turn_started_at,
                },
                "seats": [[seat, user] for seat, user in game.seats],
                "events": [{"version": v, "created_at": t, "body": from_json(b)} for v, b, t in events],
                "snapshot": None if snap is None else {"version": snap[0], "body": snap_body},
                "maps": [{"digest": d, "name": n, "text": t} for d, n, t in maps],
                "meta": {key: json.loads(text) for key, text in meta},
                "duties": [
                    {
                        "channel_id": d.channel_id,
                        "user_id": d.user_id,
                        "kind": d.kind,
                        "key": d.key,
                        "due_at": d.due_at,
                        "payload": d.payload,
                        "created_at": d.created_at,
                    }
                    for d in map(_duty_from_row, duties)
                ],
            }

        return await self._write(body, isolation="repeatable_read")

    async def import_game(
        self, data: Mapping[str, Any], *, replace: bool = False, keep_id: bool = True
    ) -> GameRecord:
        """Load a game written by `export_game` (of either backend), as `SqliteGameStore.import_game` does."""
        try:
            game, seat_rows, event_rows, snapshot, duty_rows = parse_export(data)
            duty_created = [float(d["created_at"]) for d in data.get("duties", [])]
            meta_rows = metadata_rows(dict(data.get("meta") or {}))
            map_rows = export_maps(data)
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, InvalidGameData):
                raise
            raise InvalidGameData(f"malformed export: {exc!r}") from exc

        async def body(conn: _Conn) -> GameRecord:
            old_id = int(game["id"])
            if keep_id:
                exists = await conn.fetchval("SELECT 1 FROM games WHERE id = $1 FOR UPDATE", old_id)
                if exists and not replace:
                    raise GameExists(f"game {old_id} already exists")
                if exists:
                    await conn.execute("DELETE FROM games WHERE id = $1", old_id)
            columns = (
                "guild_id, channel_id, status, options, version, created_by, created_at, updated_at,"
                " waiting_on, turn_started_at"
            )
            values = [
                game["guild_id"],
                game["channel_id"],
                game["status"],
                to_json(game["options"]),
                game["version"],
                game["created_by"],
                game["created_at"],
                game["updated_at"],
                game["waiting_on"],
                game["turn_started_at"],
            ]
            if keep_id:
                columns = "id, " + columns
                values.insert(0, old_id)
            marks = ", ".join(f"${i + 1}" for i in range(len(values)))
            new_id = await conn.fetchval(
                f"INSERT INTO games ({columns}) VALUES ({marks})"
                f" ON CONFLICT (channel_id) WHERE status IN {_ACTIVE_SQL} DO NOTHING RETURNING id",
                *values,
            )
            if new_id is None:
                raise ChannelBusy(game["channel_id"], await self._active_game_in(conn, game["channel_id"]))
            if keep_id:
                # The id did not come from the identity sequence: move the sequence past it, so that the
                # next created game does not get it. (Never backwards: another process may be creating.)
                await conn.execute(
                    "SELECT setval(pg_get_serial_sequence('games', 'id'), $1::bigint)"
                    " WHERE nextval(pg_get_serial_sequence('games', 'id')) < $1::bigint",
                    new_id,
                )
            await conn.executemany(
                "INSERT INTO seats (game_id, seat, user_id) VALUES ($1, $2, $3)",
                [(new_id, s, u) for s, u in seat_rows],
            )
            await conn.executemany(
                "INSERT INTO events (game_id, version, body, created_at) VALUES ($1, $2, $3, $4)",
                [(new_id, v, b, t) for v, b, t in event_rows],
            )
            if snapshot is not None:
                await conn.execute(
                    "INSERT INTO snapshots (game_id, version, body) VALUES ($1, $2, $3)", new_id, *snapshot
                )
            if map_rows:
                await conn.executemany(
                    "INSERT INTO maps (digest, name, text) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
                    map_rows,
                )
            await self._insert_duties(
                conn, new_id, game["guild_id"], duty_rows, float(game["updated_at"]), duty_created
            )
            await _write_meta(conn, new_id, meta_rows, float(game["updated_at"]))
            return await self._fetch_game(conn, new_id)

        return await self._write(body)

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

    async def __aenter__(self) -> PostgresGameStore:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


async def _check_integrity(conn: _Conn) -> list[str]:
    problems: list[str] = []
    version = await schema_version(conn)
    if version != LATEST_VERSION:
        problems.append(f"schema version {version}, this program's is {LATEST_VERSION}")
    for game_id, version, count, top in await conn.fetch(
        "SELECT g.id, g.version, COUNT(e.version), COALESCE(MAX(e.version), 0)"
        " FROM games g LEFT JOIN events e ON e.game_id = g.id GROUP BY g.id"
        " HAVING COUNT(e.version) != g.version OR COALESCE(MAX(e.version), 0) != g.version"
        " ORDER BY g.id"
    ):
        problems.append(f"game {game_id}: version {version} but {count} events up to {top}")
    for game_id, version, snap in await conn.fetch(
        "SELECT g.id, g.version, s.version FROM games g JOIN snapshots s ON s.game_id = g.id"
        " WHERE s.version != g.version ORDER BY g.id"
    ):
        problems.append(f"game {game_id}: version {version} but snapshot at {snap}")
    for (game_id,) in await conn.fetch(
        "SELECT g.id FROM games g WHERE g.version > 0"
        " AND NOT EXISTS (SELECT 1 FROM snapshots s WHERE s.game_id = g.id) ORDER BY g.id"
    ):
        problems.append(f"game {game_id}: has events but no snapshot")
    for channel_id, count in await conn.fetch(
        f"SELECT channel_id, COUNT(*) FROM games WHERE status IN {_ACTIVE_SQL} GROUP BY channel_id"
        " HAVING COUNT(*) > 1"
    ):
        problems.append(f"channel {channel_id}: {count} unfinished games")
    for table in ("games", "duties"):
        top, last = await _fetchrow(
            conn,
            f"SELECT (SELECT MAX(id) FROM {table}),"
            f" pg_sequence_last_value(pg_get_serial_sequence('{table}', 'id')::regclass)",
        )
        if top is not None and (last is None or last < top):
            problems.append(f"table {table}: id sequence at {last} is behind the highest id {top}")
    return problems


async def _fetchrow(conn: _Conn, sql: str) -> asyncpg.Record:
    row = await conn.fetchrow(sql)
    assert row is not None
    return row


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


__all__ = ["PostgresGameStore", "is_postgres_url", "open_postgres_store"]
