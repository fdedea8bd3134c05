"""The SQLite implementation of `GameStore`, on aiosqlite: the store assembled from its parts, and the
record of a game in play (its actions, amendments and reads).

The parts, each a mixin on `SqliteBase` (storage/sqlite_base.py, which also says how transactions work):
storage/sqlite_lobby.py, sqlite_outbox.py, sqlite_settings.py, sqlite_transfer.py, sqlite_privacy.py and
ratings.py.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from .base import (
    KEEP,
    TERMINAL_STATUSES,
    GameNotFound,
    GameRecord,
    JsonDict,
    LeaseLost,
    MapRow,
    NewDuty,
    Status,
    _Keep,
)
from .migrations import migrate
from .preflight import check_database
from .ratings import SqliteRatings
from .rows import (
    ACTIVE_SQL,
    ChangeRows,
    check_status,
    from_json,
    metadata_rows,
    to_json,
)
from .sqlite_base import (
    _GAME_COLUMNS,
    _RETURNING_COLUMNS,
    SqliteBase,
    Tx,
    _game_from_row,
    _why_not_updated,
    _write_meta,
    connect,
    glance_connection,
)
from .sqlite_lobby import SqliteLobby
from .sqlite_outbox import SqliteOutbox
from .sqlite_privacy import SqlitePrivacy
from .sqlite_settings import SqliteSettings
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


class SqliteGameStore(
    SqliteLobby, SqliteOutbox, SqliteSettings, SqliteTransfer, SqliteRatings, SqlitePrivacy, SqliteBase
):
    """`GameStore` on one SQLite file. Create it with `open_store`, and `close()` it when done."""

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

        async def body(conn: Tx) -> GameRecord:
            # RETURNING hands back the updated row, saving a round trip to the worker thread.
            updated = list(
                await conn.execute_fetchall(
                    "UPDATE games SET version = ?, updated_at = ?, status = COALESCE(?, status),"
                    " turn_started_at = CASE WHEN NOT ? OR waiting_on IS ? THEN turn_started_at"
                    "   WHEN ? IS NULL THEN NULL ELSE ? END,"
                    " waiting_on = CASE WHEN ? THEN ? ELSE waiting_on END"
                    f" WHERE id = ? AND version = ? AND status IN {ACTIVE_SQL}"
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
            await self._insert_duties(conn, game_id, record.guild_id, c.duties, now)
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

        async def body(conn: Tx) -> GameRecord:
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
            await self._insert_duties(conn, game_id, record.guild_id, c.duties, now)
            await _write_meta(conn, game_id, c.meta, now)
            return record

        return await self._write(body)

    async def abandon_game(self, game_id: int, now: float, duties: Sequence[NewDuty] = ()) -> GameRecord:
        """Mark an unfinished game abandoned (no event, no version change), with the duties that tells.
        Idempotent: a game already finished or abandoned is returned as it is, and no duty is added."""
        duty_rows = [(d, to_json(d.payload)) for d in duties]

        async def body(conn: Tx) -> GameRecord:
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
            await self._insert_duties(conn, game_id, game.guild_id, duty_rows, now)
            return await self._fetch_game(conn, game_id)

        return await self._write(body)

    # ------------------------------------------------------------------ games: reads

    async def load_snapshot(self, game_id: int) -> tuple[int, JsonDict] | None:
        """(version, snapshot) of the latest state, or None if the game has no snapshot yet.

        Pass that version to `append` as expected_version. Raises GameNotFound.
        """
        rows = await self._glance(
            "SELECT g.version, s.version, s.body FROM games g LEFT JOIN snapshots s ON s.game_id = g.id"
            " WHERE g.id = ?",
            (game_id,),
        )
        if not rows:
            raise GameNotFound(game_id)
        _, version, body = rows[0]
        return None if body is None else (int(version), from_json(body))

    async def get_map(self, digest: str) -> tuple[str, str] | None:
        rows = await self._glance("SELECT name, text FROM maps WHERE digest = ?", (digest,))
        return (str(rows[0][0]), str(rows[0][1])) if rows else None

    async def game_by_id(self, game_id: int) -> GameRecord | None:
        rows = await self._glance(f"SELECT {_GAME_COLUMNS} FROM games g WHERE g.id = ?", (game_id,))
        return _game_from_row(rows[0]) if rows else None

    async def game_by_channel(self, channel_id: int) -> GameRecord | None:
        """The channel's game in the lobby or in play, if any (finished games are history)."""
        rows = await self._glance(
            f"SELECT {_GAME_COLUMNS} FROM games g WHERE g.channel_id = ? AND g.status IN {ACTIVE_SQL}",
            (channel_id,),
        )
        return _game_from_row(rows[0]) if rows else None

    async def latest_game_in_channel(self, channel_id: int, *, started: bool = False) -> GameRecord | None:
        """The channel's newest game (``started``: the newest started one), whatever its status."""
        only = " AND g.status <> 'lobby' AND g.version > 0" if started else ""
        rows = await self._glance(
            f"SELECT {_GAME_COLUMNS} FROM games g WHERE g.channel_id = ?{only}"
            " ORDER BY g.created_at DESC, g.id DESC LIMIT 1",
            (channel_id,),
        )
        return _game_from_row(rows[0]) if rows else None

    async def get_game_meta(self, game_id: int) -> JsonDict:
        """The game's metadata: a JSON value per key ({} when there is none)."""
        rows = await self._glance(
            "SELECT key, body FROM game_meta WHERE game_id = ? ORDER BY key", (game_id,)
        )
        return {key: json.loads(body) for key, body in rows}

    async def set_game_meta(
        self, game_id: int, changes: Mapping[str, Any], now: float, *, leased: tuple[int, str] | None = None
    ) -> JsonDict:
        """Merge `changes` into the game's metadata (a None value removes the key). Returns the result.

        Raises GameNotFound, and LeaseLost for a duty no longer ``leased``'s. Metadata may change in any
        status, finished games included.
        """
        rows = metadata_rows(changes)

        async def body(conn: Tx) -> JsonDict:
            await self._fetch_game(conn, game_id)
            if leased is not None and not await conn.execute_fetchall(
                "SELECT 1 FROM duties WHERE id = ? AND lease_owner = ? AND done_at IS NULL", leased
            ):
                raise LeaseLost(*leased)
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
        where = f" AND g.status IN {ACTIVE_SQL}" if active_only else ""
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

    async def __aenter__(self) -> SqliteGameStore:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
