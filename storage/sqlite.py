"""The SQLite implementation of `GameStore`, on aiosqlite.

Design, and why:
- One long-lived writer connection, guarded by an asyncio.Lock. Every write is an explicit
  BEGIN IMMEDIATE ... COMMIT on it: a plain BEGIN that later writes fails with "database is
  locked" despite the busy timeout, and a shared connection in implicit-transaction mode lets
  one coroutine's COMMIT save another's rolled-back row.
- One reader connection for single-statement reads. WAL lets it read beside the writer, and a
  single statement is always a consistent snapshot, so it needs no lock. Reads that need several
  statements (export) run on the writer under the lock instead, so the reader never holds a long
  read transaction that would hide a commit the caller just made.
- Each write transaction runs in its own task behind asyncio.shield: if the caller is cancelled
  (a Discord timeout, shutdown), the transaction still finishes or rolls back as a whole, and the
  writer connection is never left inside an open transaction.
- JSON is encoded before the lock is taken, so the lock covers only database work, never caller
  code.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Mapping, Sequence
from typing import Any, Final, NoReturn, TypeVar

import aiosqlite

try:
    import fcntl
except ImportError:  # Windows: exclusive() is then per process
    fcntl = None  # type: ignore[assignment]

from .base import (
    ACTIVE_STATUSES,
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
from .migrations import LATEST_VERSION, migrate
from .preflight import check_database
from .ratings import SqliteRatings
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
from .sqlite_privacy import SqlitePrivacy

T = TypeVar("T")


_GAME_COLUMNS: Final[str] = """
    g.id, g.guild_id, g.channel_id, g.status, g.options, g.version, g.created_at, g.updated_at,
    g.created_by, g.waiting_on, g.turn_started_at,
    (SELECT json_group_array(json_array(s.seat, s.user_id)) FROM seats s WHERE s.game_id = g.id)
"""
# RETURNING cannot use a table alias, so the same columns named by the table.
_RETURNING_COLUMNS: Final[str] = _GAME_COLUMNS.replace("g.", "games.")
_DUTY_COLUMNS: Final[str] = (
    "id, game_id, guild_id, channel_id, user_id, kind, key, due_at, payload, created_at, attempts,"
    " not_before, lease_owner, lease_until, done_at, outcome, last_error"
)
_ACTIVE_SQL: Final[str] = "('lobby', 'playing')"
_INSERT_DUTY: Final[str] = (
    "INSERT INTO duties (game_id, guild_id, channel_id, user_id, kind, key, due_at, payload, created_at)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


def _game_from_row(row: Sequence[Any]) -> GameRecord:
    seats = tuple(sorted((int(s), int(u)) for s, u in json.loads(row[11] or "[]")))
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
        seats=seats,
    )


async def _why_not_updated(conn: aiosqlite.Connection, game_id: int, expected_version: int) -> NoReturn:
    """A version-guarded update of a game changed no row: raise why (gone, moved on, or closed)."""
    rows = list(await conn.execute_fetchall("SELECT version, status FROM games WHERE id = ?", (game_id,)))
    if not rows:
        raise GameNotFound(game_id)
    if rows[0][0] != expected_version:
        raise VersionConflict(game_id, expected_version, rows[0][0])
    raise GameClosed(game_id, rows[0][1])


def _duty_from_row(row: Sequence[Any]) -> Duty:
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


def _shard_filter(shards: ShardSlice | None, column: str = "guild_id") -> tuple[str, list[Any]]:
    """SQL (and its parameters) keeping the rows of guilds on the given shards; DMs are shard 0."""
    if shards is None:
        return "", []
    marks = ", ".join("?" * len(shards.ids))
    return (
        f" AND (CASE WHEN {column} IS NULL THEN 0 ELSE ({column} >> 22) % ? END) IN ({marks})",
        [shards.count, *shards.ids],
    )


async def _configure(conn: aiosqlite.Connection) -> None:
    await conn.execute("PRAGMA busy_timeout = 5000")
    await _use_wal(conn)
    await conn.execute("PRAGMA synchronous = NORMAL")
    await conn.execute("PRAGMA foreign_keys = ON")


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
    return SqliteGameStore(path, writer, reader)


class SqliteGameStore(SqliteRatings, SqlitePrivacy):  # mixins: storage/ratings.py, storage/sqlite_privacy.py
    """`GameStore` on one SQLite file. Create it with `open_store`, and `close()` it when done."""

    def __init__(self, path: str, writer: aiosqlite.Connection, reader: aiosqlite.Connection) -> None:
        self.path = path
        self._held: dict[str, Any] = {}  # name -> its lock file (or None), held with exclusive()
        self._writer = writer
        self._reader = reader
        self._lock = asyncio.Lock()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._closed = False

    # ------------------------------------------------------------------ plumbing

    async def _run_tx(self, body: Callable[[aiosqlite.Connection], Awaitable[T]]) -> T:
        async with self._lock:
            conn = self._writer
            await conn.execute("BEGIN IMMEDIATE")
            try:
                result = await body(conn)
                await conn.execute("COMMIT")
            except BaseException:
                try:
                    await conn.execute("ROLLBACK")
                except sqlite3.OperationalError:
                    # "no transaction is active": SQLite already rolled back (e.g. on a full disk),
                    # or a cancelled COMMIT still ran in the worker thread.
                    pass
                raise
            return result

    async def _write(self, body: Callable[[aiosqlite.Connection], Awaitable[T]]) -> T:
        if self._closed:
            raise StoreError("store is closed")
        task = asyncio.ensure_future(self._run_tx(body))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        # Retrieve the outcome even if nobody awaits it any more (caller cancelled).
        task.add_done_callback(lambda t: t.cancelled() or t.exception())
        return await asyncio.shield(task)

    async def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        if self._closed:
            raise StoreError("store is closed")
        return list(await self._reader.execute_fetchall(sql, params))

    @staticmethod
    async def _fetch_game(conn: aiosqlite.Connection, game_id: int) -> GameRecord:
        rows = list(
            await conn.execute_fetchall(f"SELECT {_GAME_COLUMNS} FROM games g WHERE g.id = ?", (game_id,))
        )
        if not rows:
            raise GameNotFound(game_id)
        return _game_from_row(rows[0])

    @staticmethod
    async def _active_game_in(conn: aiosqlite.Connection, channel_id: int) -> int | None:
        rows = list(
            await conn.execute_fetchall(
                f"SELECT id FROM games WHERE channel_id = ? AND status IN {_ACTIVE_SQL}", (channel_id,)
            )
        )
        return int(rows[0][0]) if rows else None

    @staticmethod
    async def _insert_duties(
        conn: aiosqlite.Connection,
        game_id: int | None,
        duties: Sequence[tuple[NewDuty, str]],
        now: float,
        created: Sequence[float] = (),
    ) -> list[int]:
        """Insert duties (a keyed one replaces the game's pending duty of that key); returns their ids.
        `created` gives their creation times (an import keeps them); `now` is the default."""
        if not duties:
            return []
        guild_id: int | None = None
        if game_id is not None:
            rows = list(await conn.execute_fetchall("SELECT guild_id FROM games WHERE id = ?", (game_id,)))
            if not rows:
                raise GameNotFound(game_id)
            guild_id = rows[0][0]
        ids: list[int] = []
        for i, (duty, payload) in enumerate(duties):
            if duty.key is not None:
                await conn.execute(
                    "DELETE FROM duties WHERE game_id IS ? AND key = ? AND done_at IS NULL",
                    (game_id, duty.key),
                )
            row = await conn.execute_insert(
                _INSERT_DUTY,
                (
                    game_id,
                    guild_id,
                    duty.channel_id,
                    duty.user_id,
                    duty.kind,
                    duty.key,
                    duty.due_at,
                    payload,
                    created[i] if i < len(created) else now,
                ),
            )
            assert row is not None
            ids.append(int(row[0]))
        return ids

    @staticmethod
    async def _cancel_keys(conn: aiosqlite.Connection, game_id: int, keys: Sequence[str] | None) -> int:
        if keys is None:
            cursor = await conn.execute(
                "DELETE FROM duties WHERE game_id = ? AND done_at IS NULL", (game_id,)
            )
        elif not keys:
            return 0
        else:
            marks = ", ".join("?" * len(keys))
            cursor = await conn.execute(
                f"DELETE FROM duties WHERE game_id = ? AND done_at IS NULL AND key IN ({marks})",
                (game_id, *keys),
            )
        return int(cursor.rowcount)

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

        async def body(conn: aiosqlite.Connection) -> GameRecord:
            busy = await self._active_game_in(conn, channel_id)
            if busy is not None:
                raise ChannelBusy(channel_id, busy)
            row = await conn.execute_insert(
                "INSERT INTO games (guild_id, channel_id, status, options, version, created_by, created_at,"
                " updated_at) VALUES (?, ?, 'lobby', ?, 0, ?, ?, ?)",
                (guild_id, channel_id, options_json, created_by, now, now),
            )
            assert row is not None
            game_id = int(row[0])
            if seat_rows:
                await conn.executemany(
                    "INSERT INTO seats (game_id, seat, user_id) VALUES (?, ?, ?)",
                    [(game_id, s, u) for s, u in seat_rows],
                )
            if snapshot_json is not None:
                await conn.execute(
                    "INSERT INTO snapshots (game_id, version, body) VALUES (?, 0, ?)",
                    (game_id, snapshot_json),
                )
            return await self._fetch_game(conn, game_id)

        return await self._write(body)

    async def _lobby_change(
        self,
        game_id: int,
        now: float,
        change: Callable[[aiosqlite.Connection, GameRecord], Awaitable[None]],
    ) -> GameRecord:
        async def body(conn: aiosqlite.Connection) -> GameRecord:
            game = await self._fetch_game(conn, game_id)
            if game.status != "lobby":
                raise SeatError(f"game {game_id} is not in the lobby ({game.status})")
            await change(conn, game)
            await conn.execute("UPDATE games SET updated_at = ? WHERE id = ?", (now, game_id))
            return await self._fetch_game(conn, game_id)

        return await self._write(body)

    async def join_seat(self, game_id: int, user_id: int, now: float, seat: int | None = None) -> GameRecord:
        """Seat a user in the lobby: the given seat, or the lowest free one. Raises SeatError."""

        async def change(conn: aiosqlite.Connection, game: GameRecord) -> None:
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
                "INSERT INTO seats (game_id, seat, user_id) VALUES (?, ?, ?)", (game_id, chosen, user_id)
            )

        return await self._lobby_change(game_id, now, change)

    async def leave_seat(self, game_id: int, user_id: int, now: float) -> GameRecord:
        """Take a user out of the lobby. Raises SeatError if they are not seated or the game has begun."""

        async def change(conn: aiosqlite.Connection, game: GameRecord) -> None:
            if game.seat_of(user_id) is None:
                raise SeatError(f"user {user_id} is not seated")
            await conn.execute("DELETE FROM seats WHERE game_id = ? AND user_id = ?", (game_id, user_id))

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

        async def change(conn: aiosqlite.Connection, game: GameRecord) -> None:
            if options_json is not None:
                await conn.execute("UPDATE games SET options = ? WHERE id = ?", (options_json, game_id))
            if seat_rows is not None:
                await conn.execute("DELETE FROM seats WHERE game_id = ?", (game_id,))
                await conn.executemany(
                    "INSERT INTO seats (game_id, seat, user_id) VALUES (?, ?, ?)",
                    [(game_id, s, u) for s, u in seat_rows],
                )

        return await self._lobby_change(game_id, now, change)

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
        """Record one action atomically: its events, the new snapshot, the version, its duties (the outbox)
        and the side changes. ``maps`` are stored once each (by digest) in the same transaction, for lean
        snapshots that name their map.

        The game must be at `expected_version`, or VersionConflict is raised and nothing is written.
        The new version is expected_version + len(events). `waiting_on` (whose turn it is) restarts
        `turn_started_at` only when it names someone new. Finishing or abandoning the game clears
        `waiting_on` and deletes the game's pending keyed duties (its timers), before `duties` are added;
        its pending posts stay. Pending duties with a key in `cancel_keys` are deleted too, e.g. the last
        turn's reminder. `meta` changes are merged into the game's metadata as `set_game_meta` does.
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

        async def body(conn: aiosqlite.Connection) -> GameRecord:
            # RETURNING hands back the updated row, saving a round trip to the worker thread.
            updated = list(
                await conn.execute_fetchall(
                    "UPDATE games SET version = ?, updated_at = ?, status = COALESCE(?, status),"
                    " turn_started_at = CASE WHEN NOT ? OR waiting_on IS ? THEN turn_started_at"
                    "   WHEN ? IS NULL THEN NULL ELSE ? END,"
                    " waiting_on = CASE WHEN ? THEN ? ELSE waiting_on END"
                    f" WHERE id = ? AND version = ? AND status IN {_ACTIVE_SQL}"
                    f" RETURNING {_RETURNING_COLUMNS}",
                    (new_version, now, status, c.set_waiting, c.waiting, c.waiting, now, c.set_waiting,
                     c.waiting, game_id, expected_version),
                )
            )  # fmt: skip
            if not updated:
                await _why_not_updated(conn, game_id, expected_version)
            record = _game_from_row(updated[0])
            if map_rows:
                await conn.executemany(
                    "INSERT INTO maps (digest, name, text) VALUES (?, ?, ?) ON CONFLICT DO NOTHING", map_rows
                )
            await conn.executemany(
                "INSERT INTO events (game_id, version, body, created_at) VALUES (?, ?, ?, ?)", event_rows
            )
            await conn.execute(
                "INSERT INTO snapshots (game_id, version, body) VALUES (?, ?, ?)"
                " ON CONFLICT (game_id) DO UPDATE SET version = excluded.version, body = excluded.body",
                (game_id, new_version, snapshot_json),
            )
            if c.seats is not None:
                await conn.execute("DELETE FROM seats WHERE game_id = ?", (game_id,))
                await conn.executemany(
                    "INSERT INTO seats (game_id, seat, user_id) VALUES (?, ?, ?)",
                    [(game_id, s, u) for s, u in c.seats],
                )
            if status in TERMINAL_STATUSES:
                await conn.execute(
                    "DELETE FROM duties WHERE game_id = ? AND done_at IS NULL AND key IS NOT NULL", (game_id,)
                )
            else:
                await self._cancel_keys(conn, game_id, c.cancel_keys)
            await self._insert_duties(conn, game_id, c.duties, now)
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
        """A change with no engine event (see GameStore.amend): like `append` without events or snapshot."""
        c = ChangeRows.of(
            seats=seats, duties=duties, waiting_on=waiting_on, cancel_keys=cancel_keys, meta=meta
        )
        options_json = None if options is None else to_json(options)

        async def body(conn: aiosqlite.Connection) -> GameRecord:
            updated = list(
                await conn.execute_fetchall(
                    "UPDATE games SET updated_at = ?, options = COALESCE(?, options),"
                    " turn_started_at = CASE WHEN NOT ? OR waiting_on IS ? THEN turn_started_at"
                    "   WHEN ? IS NULL THEN NULL ELSE ? END,"
                    " waiting_on = CASE WHEN ? THEN ? ELSE waiting_on END"
                    " WHERE id = ? AND version = ? AND status = 'playing'"
                    f" RETURNING {_RETURNING_COLUMNS}",
                    (now, options_json, c.set_waiting, c.waiting, c.waiting, now, c.set_waiting, c.waiting,
                     game_id, expected_version),
                )
            )  # fmt: skip
            if not updated:
                await _why_not_updated(conn, game_id, expected_version)
            record = _game_from_row(updated[0])
            if c.seats is not None:
                await conn.execute("DELETE FROM seats WHERE game_id = ?", (game_id,))
                await conn.executemany(
                    "INSERT INTO seats (game_id, seat, user_id) VALUES (?, ?, ?)",
                    [(game_id, s, u) for s, u in c.seats],
                )
                record = dataclasses.replace(record, seats=tuple(sorted(c.seats)))
            await self._cancel_keys(conn, game_id, c.cancel_keys)
            await self._insert_duties(conn, game_id, c.duties, now)
            await _write_meta(conn, game_id, c.meta, now)
            return record

        return await self._write(body)

    async def abandon_game(self, game_id: int, now: float, duties: Sequence[NewDuty] = ()) -> GameRecord:
        """Mark an unfinished game abandoned (no event, no version change), with the duties that tells.
        Idempotent: a game already finished or abandoned is returned as it is, and no duty is added."""
        duty_rows = [(d, to_json(d.payload)) for d in duties]

        async def body(conn: aiosqlite.Connection) -> GameRecord:
            game = await self._fetch_game(conn, game_id)
            if game.status in TERMINAL_STATUSES:
                return game
            await conn.execute(
                "UPDATE games SET status = 'abandoned', waiting_on = NULL, turn_started_at = NULL,"
                " updated_at = ? WHERE id = ?",
                (now, game_id),
            )
            await conn.execute(
                "DELETE FROM duties WHERE game_id = ? AND done_at IS NULL AND key IS NOT NULL", (game_id,)
            )
            await self._insert_duties(conn, game_id, duty_rows, now)
            return await self._fetch_game(conn, game_id)

        return await self._write(body)

    # ------------------------------------------------------------------ games: reads

    async def load_snapshot(self, game_id: int) -> tuple[int, JsonDict] | None:
        """(version, snapshot) of the latest state, or None if the game has no snapshot yet.

        Pass that version to `append` as expected_version. Raises GameNotFound.
        """
        rows = await self._read(
            "SELECT g.version, s.version, s.body FROM games g LEFT JOIN snapshots s ON s.game_id = g.id"
            " WHERE g.id = ?",
            (game_id,),
        )
        if not rows:
            raise GameNotFound(game_id)
        _, version, body = rows[0]
        return None if body is None else (int(version), from_json(body))

    async def get_map(self, digest: str) -> tuple[str, str] | None:
        rows = await self._read("SELECT name, text FROM maps WHERE digest = ?", (digest,))
        return (str(rows[0][0]), str(rows[0][1])) if rows else None

    async def game_by_id(self, game_id: int) -> GameRecord | None:
        rows = await self._read(f"SELECT {_GAME_COLUMNS} FROM games g WHERE g.id = ?", (game_id,))
        return _game_from_row(rows[0]) if rows else None

    async def game_by_channel(self, channel_id: int) -> GameRecord | None:
        """The channel's game in the lobby or in play, if any (finished games are history)."""
        rows = await self._read(
            f"SELECT {_GAME_COLUMNS} FROM games g WHERE g.channel_id = ? AND g.status IN {_ACTIVE_SQL}",
            (channel_id,),
        )
        return _game_from_row(rows[0]) if rows else None

    async def latest_game_in_channel(self, channel_id: int) -> GameRecord | None:
        """The channel's newest game, whatever its status, so a game just ended can still be shown."""
        rows = await self._read(
            f"SELECT {_GAME_COLUMNS} FROM games g WHERE g.channel_id = ?"
            " ORDER BY g.created_at DESC, g.id DESC LIMIT 1",
            (channel_id,),
        )
        return _game_from_row(rows[0]) if rows else None

    async def get_game_meta(self, game_id: int) -> JsonDict:
        """The game's metadata: a JSON value per key ({} when there is none)."""
        rows = await self._read("SELECT key, body FROM game_meta WHERE game_id = ? ORDER BY key", (game_id,))
        return {key: json.loads(body) for key, body in rows}

    async def set_game_meta(self, game_id: int, changes: Mapping[str, Any], now: float) -> JsonDict:
        """Merge `changes` into the game's metadata (a None value removes the key). Returns the result.

        Raises GameNotFound. Metadata may change in any status, finished games included.
        """
        rows = metadata_rows(changes)

        async def body(conn: aiosqlite.Connection) -> JsonDict:
            await self._fetch_game(conn, game_id)
            await _write_meta(conn, game_id, rows, now)
            found = await conn.execute_fetchall(
                "SELECT key, body FROM game_meta WHERE game_id = ? ORDER BY key", (game_id,)
            )
            return {key: json.loads(text) for key, text in found}

        return await self._write(body)

    async def games_waiting_on(self, user_id: int) -> list[GameRecord]:
        """Games in play whose turn belongs to `user_id`, longest-waiting first."""
        rows = await self._read(
            f"SELECT {_GAME_COLUMNS} FROM games g WHERE g.waiting_on = ? AND g.status = 'playing'"
            " ORDER BY g.turn_started_at, g.id",
            (user_id,),
        )
        return [_game_from_row(r) for r in rows]

    async def games_of_user(self, user_id: int, active_only: bool = True) -> list[GameRecord]:
        """Games where `user_id` has a seat, newest first."""
        where = f" AND g.status IN {_ACTIVE_SQL}" if active_only else ""
        rows = await self._read(
            f"SELECT {_GAME_COLUMNS} FROM games g JOIN seats st ON st.game_id = g.id"
            f" WHERE st.user_id = ?{where} ORDER BY g.updated_at DESC, g.id DESC",
            (user_id,),
        )
        return [_game_from_row(r) for r in rows]

    async def list_games(
        self,
        status: Status | Collection[Status] | None = None,
        guild_id: int | None = None,
        limit: int | None = None,
    ) -> list[GameRecord]:
        """Games filtered by status (one or several) and guild, most recently updated first."""
        clauses: list[str] = []
        params: list[Any] = []
        if status is not None:
            wanted = [status] if isinstance(status, str) else list(status)
            for s in wanted:
                check_status(s)
            clauses.append(f"g.status IN ({', '.join('?' * len(wanted))})")
            params.extend(wanted)
        if guild_id is not None:
            clauses.append("g.guild_id = ?")
            params.append(guild_id)
        sql = f"SELECT {_GAME_COLUMNS} FROM games g"
        if clauses:
            sql += " WHERE " + " AND ".join(clauses)
        sql += " ORDER BY g.updated_at DESC, g.id DESC"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        return [_game_from_row(r) for r in await self._read(sql, params)]

    async def events(
        self, game_id: int, since_version: int = 0, limit: int | None = None
    ) -> list[tuple[int, JsonDict]]:
        """Events after `since_version`, oldest first; with `limit`, only the last `limit` of them."""
        if limit is None:
            rows = await self._read(
                "SELECT version, body FROM events WHERE game_id = ? AND version > ? ORDER BY version",
                (game_id, since_version),
            )
        else:
            rows = await self._read(
                "SELECT version, body FROM (SELECT version, body FROM events"
                " WHERE game_id = ? AND version > ? ORDER BY version DESC LIMIT ?) ORDER BY version",
                (game_id, since_version, limit),
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

        async def body(conn: aiosqlite.Connection) -> list[Duty]:
            if game_id is not None:
                await self._fetch_game(conn, game_id)
                await self._cancel_keys(conn, game_id, keys)
                await _write_meta(conn, game_id, meta_rows, now)
            ids = await self._insert_duties(conn, game_id, duty_rows, now)
            if not ids:
                return []
            marks = ", ".join("?" * len(ids))
            rows = await conn.execute_fetchall(
                f"SELECT {_DUTY_COLUMNS} FROM duties WHERE id IN ({marks}) ORDER BY id", ids
            )
            return [_duty_from_row(r) for r in rows]

        return await self._write(body)

    async def claim_duties(
        self, now: float, owner: str, lease_seconds: float, limit: int = 50, shards: ShardSlice | None = None
    ) -> list[Duty]:
        """Lease up to `limit` due duties to `owner` until now + lease_seconds, earliest first.

        A channel's duties go out in order: a duty is handed out only when no earlier due duty of its channel
        (by due time, then id) is still undone, whether leased, backing off or waiting. A duty whose lease
        ran out (its worker died) is handed out again; `attempts` counts the hand-outs.
        """
        where, params = _shard_filter(shards, "d.guild_id")

        async def body(conn: aiosqlite.Connection) -> list[Duty]:
            rows = await conn.execute_fetchall(
                f"UPDATE duties SET lease_owner = ?, lease_until = ?, attempts = attempts + 1"
                f" WHERE id IN (SELECT d.id FROM duties d"
                f"  WHERE d.done_at IS NULL AND d.due_at <= ?"
                f"   AND (d.not_before IS NULL OR d.not_before <= ?)"
                f"   AND (d.lease_until IS NULL OR d.lease_until <= ?){where}"
                f"   AND NOT EXISTS (SELECT 1 FROM duties e WHERE e.channel_id = d.channel_id"
                f"    AND e.done_at IS NULL AND e.due_at <= ? AND (e.due_at, e.id) < (d.due_at, d.id))"
                f"  ORDER BY d.due_at, d.id LIMIT ?)"
                f" RETURNING {_DUTY_COLUMNS}",
                (owner, now + lease_seconds, now, now, now, *params, now, limit),
            )
            return sorted((_duty_from_row(r) for r in rows), key=lambda d: (d.due_at, d.id))

        return await self._write(body)

    async def finish_duty(self, duty_id: int, owner: str, now: float, outcome: str = "sent") -> bool:
        """Mark a leased duty done. False (and nothing changed) when the lease is no longer `owner`'s."""

        async def body(conn: aiosqlite.Connection) -> bool:
            cursor = await conn.execute(
                "UPDATE duties SET done_at = ?, outcome = ?, lease_until = NULL"
                " WHERE id = ? AND lease_owner = ? AND done_at IS NULL",
                (now, outcome, duty_id, owner),
            )
            return cursor.rowcount == 1

        return await self._write(body)

    async def retry_duty(self, duty_id: int, owner: str, not_before: float, error: str) -> bool:
        """Give a leased duty back, to be tried again from `not_before`; False when the lease was lost."""

        async def body(conn: aiosqlite.Connection) -> bool:
            cursor = await conn.execute(
                "UPDATE duties SET lease_owner = NULL, lease_until = NULL, not_before = ?, last_error = ?"
                " WHERE id = ? AND lease_owner = ? AND done_at IS NULL",
                (not_before, error[:500], duty_id, owner),
            )
            return cursor.rowcount == 1

        return await self._write(body)

    async def pending_duties(self, game_id: int | None) -> list[Duty]:
        """Undone duties of a game (None: of no game), in delivery order."""
        rows = await self._read(
            f"SELECT {_DUTY_COLUMNS} FROM duties WHERE game_id IS ? AND done_at IS NULL ORDER BY due_at, id",
            (game_id,),
        )
        return [_duty_from_row(r) for r in rows]

    async def cancel_duties(self, game_id: int, keys: Collection[str] | None = None) -> int:
        """Delete a game's pending duties with these keys (None: all of them). Returns how many."""
        key_list = None if keys is None else list(keys)

        async def body(conn: aiosqlite.Connection) -> int:
            return await self._cancel_keys(conn, game_id, key_list)

        return await self._write(body)

    async def next_duty_at(self, shards: ShardSlice | None = None) -> float | None:
        """When a duty can next be handed out: the earliest ready time (due, back-off and lease over) of the
        first undone duty of each channel (each DM on its own), for a worker to sleep until."""
        where, params = _shard_filter(shards, "d.guild_id")
        rows = await self._read(
            "SELECT MIN(MAX(d.due_at, COALESCE(d.not_before, d.due_at), COALESCE(d.lease_until, d.due_at)))"
            f" FROM duties d WHERE d.done_at IS NULL{where}"
            "  AND NOT EXISTS (SELECT 1 FROM duties e WHERE e.channel_id = d.channel_id"
            "   AND e.done_at IS NULL AND (e.due_at, e.id) < (d.due_at, d.id))",
            params,
        )
        return None if not rows or rows[0][0] is None else float(rows[0][0])

    @contextlib.asynccontextmanager
    async def exclusive(self, name: str) -> AsyncIterator[bool]:
        """An exclusive lock on the file ``<database>.<name>.lock``, taken without waiting: the processes
        sharing this database file (a bot and a one-off ``--sync``) see each other's; the system drops it
        when the holder dies. (Without ``fcntl``, on Windows, or for an in-memory database: this process's
        holders only.)"""
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

    async def purge_done_duties(self, done_before: float) -> int:
        """Delete duties done before `done_before` (housekeeping). Undone ones are never touched."""

        async def body(conn: aiosqlite.Connection) -> int:
            cursor = await conn.execute(
                "DELETE FROM duties WHERE done_at IS NOT NULL AND done_at < ?", (done_before,)
            )
            return int(cursor.rowcount)

        return await self._write(body)

    # ------------------------------------------------------------------ user settings

    async def get_user_settings(self, user_id: int) -> JsonDict:
        rows = await self._read("SELECT body FROM user_settings WHERE user_id = ?", (user_id,))
        return from_json(rows[0][0]) if rows else {}

    async def set_user_settings(self, user_id: int, settings: Mapping[str, Any], now: float) -> None:
        """Replace all of a user's settings."""
        body_json = to_json(settings)

        async def body(conn: aiosqlite.Connection) -> None:
            await conn.execute(
                "INSERT INTO user_settings (user_id, body, updated_at) VALUES (?, ?, ?)"
                " ON CONFLICT (user_id) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at",
                (user_id, body_json, now),
            )

        await self._write(body)

    async def update_user_settings(self, user_id: int, changes: Mapping[str, Any], now: float) -> JsonDict:
        """Merge `changes` into a user's settings (a None value removes the key). Returns the result."""
        changes = dict(changes)
        to_json(changes)

        async def body(conn: aiosqlite.Connection) -> JsonDict:
            rows = list(
                await conn.execute_fetchall("SELECT body FROM user_settings WHERE user_id = ?", (user_id,))
            )
            merged = from_json(rows[0][0]) if rows else {}
            for key, value in changes.items():
                if value is None:
                    merged.pop(key, None)
                else:
                    merged[key] = value
            await conn.execute(
                "INSERT INTO user_settings (user_id, body, updated_at) VALUES (?, ?, ?)"
                " ON CONFLICT (user_id) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at",
                (user_id, to_json(merged), now),
            )
            return merged

        return await self._write(body)

    async def all_user_settings(self) -> list[tuple[int, JsonDict, float]]:
        """(user id, settings, updated_at) of every user, for moving a database (`python -m storage move`)."""
        rows = await self._read("SELECT user_id, body, updated_at FROM user_settings ORDER BY user_id")
        return [(int(u), from_json(b), float(t)) for u, b, t in rows]

    # ------------------------------------------------------------------ operations

    async def backup(self, dest_path: str | os.PathLike[str]) -> None:
        """Copy the whole database to `dest_path`, online, in one step, from a separate connection.

        pages=0 copies everything at once: an incremental backup restarts on every write and, under
        steady traffic, never finishes. The copy is written beside the target and renamed into
        place, so `dest_path` is either the old file or a complete new one.
        """
        dest = os.fspath(dest_path)
        partial = dest + ".partial"

        def run() -> None:
            for leftover in (partial, partial + "-wal", partial + "-shm"):
                if os.path.exists(leftover):
                    os.remove(leftover)
            src = sqlite3.connect(self.path, timeout=5.0)
            try:
                dst = sqlite3.connect(partial)
                try:
                    src.backup(dst, pages=0)
                    # A backup file should be a single self-contained file, not one that needs its WAL.
                    dst.execute("PRAGMA journal_mode = DELETE")
                finally:
                    dst.close()
            finally:
                src.close()
            os.replace(partial, dest)

        await asyncio.to_thread(run)

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

    async def export_game(self, game_id: int) -> JsonDict:
        """One game as a JSON-able dict: game row, seats, events, the latest snapshot, its pending duties."""

        async def body(conn: aiosqlite.Connection) -> JsonDict:
            game = await self._fetch_game(conn, game_id)
            events = list(
                await conn.execute_fetchall(
                    "SELECT version, body, created_at FROM events WHERE game_id = ? ORDER BY version",
                    (game_id,),
                )
            )
            snaps = list(
                await conn.execute_fetchall(
                    "SELECT version, body FROM snapshots WHERE game_id = ?", (game_id,)
                )
            )
            duties = list(
                await conn.execute_fetchall(
                    f"SELECT {_DUTY_COLUMNS} FROM duties WHERE game_id = ? AND done_at IS NULL ORDER BY id",
                    (game_id,),
                )
            )
            meta = list(
                await conn.execute_fetchall(
                    "SELECT key, body FROM game_meta WHERE game_id = ? ORDER BY key", (game_id,)
                )
            )
            snap_body = from_json(snaps[0][1]) if snaps else None
            digest = snapshot_map(snap_body)
            maps = (
                []
                if digest is None
                else list(
                    await conn.execute_fetchall(
                        "SELECT digest, name, text FROM maps WHERE digest = ?", (digest,)
                    )
                )
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
                "snapshot": {"version": snaps[0][0], "body": snap_body} if snaps else None,
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

        return await self._write(body)

    async def import_game(
        self, data: Mapping[str, Any], *, replace: bool = False, keep_id: bool = True
    ) -> GameRecord:
        """Load a game written by `export_game`, checking that it holds together first.

        keep_id: reuse the exported id (raises GameExists if taken, unless `replace`, which first
        deletes the stored game of that id with everything it owns). keep_id=False gives it a new id,
        e.g. to move a game into another database. Pending duties get new ids (older exports' pending
        reminders and deadlines become duties). Raises ChannelBusy if the
        game is unfinished and its channel already has another unfinished game, InvalidGameData if
        the export does not hold together; nothing is written then.
        """
        try:
            game, seat_rows, event_rows, snapshot, duty_rows = parse_export(data)
            duty_created = [float(d["created_at"]) for d in data.get("duties", [])]
            meta_rows = metadata_rows(dict(data.get("meta") or {}))
            map_rows = export_maps(data)
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, InvalidGameData):
                raise
            raise InvalidGameData(f"malformed export: {exc!r}") from exc

        async def body(conn: aiosqlite.Connection) -> GameRecord:
            old_id = int(game["id"])
            if keep_id:
                exists = list(await conn.execute_fetchall("SELECT 1 FROM games WHERE id = ?", (old_id,)))
                if exists and not replace:
                    raise GameExists(f"game {old_id} already exists")
                if exists:
                    await conn.execute("DELETE FROM games WHERE id = ?", (old_id,))
            if game["status"] in ACTIVE_STATUSES:
                busy = await self._active_game_in(conn, game["channel_id"])
                if busy is not None:
                    raise ChannelBusy(game["channel_id"], busy)
            row = await conn.execute_insert(
                "INSERT INTO games (id, guild_id, channel_id, status, options, version, created_by,"
                " created_at, updated_at, waiting_on, turn_started_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    old_id if keep_id else None,
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
                ),
            )
            assert row is not None
            new_id = int(row[0])
            await conn.executemany(
                "INSERT INTO seats (game_id, seat, user_id) VALUES (?, ?, ?)",
                [(new_id, s, u) for s, u in seat_rows],
            )
            await conn.executemany(
                "INSERT INTO events (game_id, version, body, created_at) VALUES (?, ?, ?, ?)",
                [(new_id, v, b, t) for v, b, t in event_rows],
            )
            if snapshot is not None:
                await conn.execute(
                    "INSERT INTO snapshots (game_id, version, body) VALUES (?, ?, ?)", (new_id, *snapshot)
                )
            await conn.executemany(
                "INSERT INTO maps (digest, name, text) VALUES (?, ?, ?) ON CONFLICT DO NOTHING", map_rows
            )
            await self._insert_duties(conn, new_id, duty_rows, float(game["updated_at"]), duty_created)
            await _write_meta(conn, new_id, meta_rows, float(game["updated_at"]))
            return await self._fetch_game(conn, new_id)

        return await self._write(body)

    async def close(self) -> None:
        """Let running transactions finish, then close both connections. Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        for handle in self._held.values():  # closing while an exclusive() block runs: as if the process died
            if handle is not None:
                handle.close()
        self._held.clear()
        try:
            await self._reader.close()
        finally:
            await self._writer.close()

    async def __aenter__(self) -> SqliteGameStore:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


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
        for game_id, version, count, top in await rows(
            "SELECT g.id, g.version, COUNT(e.version), COALESCE(MAX(e.version), 0)"
            " FROM games g LEFT JOIN events e ON e.game_id = g.id GROUP BY g.id"
            " HAVING COUNT(e.version) != g.version OR COALESCE(MAX(e.version), 0) != g.version"
        ):
            problems.append(f"game {game_id}: version {version} but {count} events up to {top}")
        for game_id, version, snap in await rows(
            "SELECT g.id, g.version, s.version FROM games g JOIN snapshots s ON s.game_id = g.id"
            " WHERE s.version != g.version"
        ):
            problems.append(f"game {game_id}: version {version} but snapshot at {snap}")
        for channel_id, count in await rows(
            f"SELECT channel_id, COUNT(*) FROM games WHERE status IN {_ACTIVE_SQL} GROUP BY channel_id"
            " HAVING COUNT(*) > 1"
        ):
            problems.append(f"channel {channel_id}: {count} unfinished games")
    finally:
        await conn.execute("COMMIT")
    return problems


async def _write_meta(
    conn: aiosqlite.Connection, game_id: int, rows: Sequence[tuple[str, str | None]], now: float
) -> None:
    for key, text in rows:
        if text is None:
            await conn.execute("DELETE FROM game_meta WHERE game_id = ? AND key = ?", (game_id, key))
        else:
            await conn.execute(
                "INSERT INTO game_meta (game_id, key, body, updated_at) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (game_id, key) DO UPDATE SET body = excluded.body,"
                " updated_at = excluded.updated_at",
                (game_id, key, text, now),
            )
