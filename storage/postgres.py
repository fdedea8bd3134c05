"""The PostgreSQL implementation of `GameStore`, on asyncpg, for several bot processes sharing one
database: the store assembled from its parts, and the record of a game in play (its actions, amendments
and reads).

The parts, each a mixin on `PostgresBase` (storage/postgres_base.py, which also says how transactions
work): storage/postgres_lobby.py, postgres_outbox.py, postgres_settings.py, postgres_transfer.py,
postgres_privacy.py and ratings.py.
"""

from __future__ import annotations

import dataclasses
import json
import os
import secrets
import socket
from collections.abc import Collection, Mapping, Sequence
from typing import Any

import asyncpg

from .base import (
    KEEP,
    TERMINAL_STATUSES,
    DatabaseUnreachable,
    GameNotFound,
    GameRecord,
    JsonDict,
    LeaseLost,
    MapRow,
    NewDuty,
    Status,
    _Keep,
    redact_url,
)
from .pg_migrations import migrate
from .postgres_base import (
    _GAME_COLUMNS,
    PostgresBase,
    _Conn,
    _game_from_row,
    _Params,
    _why_not_updated,
    _write_meta,
)
from .postgres_lobby import PostgresLobby
from .postgres_outbox import PostgresOutbox
from .postgres_privacy import PostgresPrivacy
from .postgres_settings import PostgresSettings
from .postgres_transfer import PostgresTransfer
from .ratings import PostgresRatings
from .rows import (
    ACTIVE_SQL,
    ChangeRows,
    check_status,
    from_json,
    metadata_rows,
    to_json,
)

__all__ = ["PostgresGameStore", "check_postgres", "is_postgres_url", "open_postgres_store"]


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


class PostgresGameStore(
    PostgresLobby,
    PostgresOutbox,
    PostgresSettings,
    PostgresTransfer,
    PostgresRatings,
    PostgresPrivacy,
    PostgresBase,
):
    """`GameStore` on one PostgreSQL database. Make it with `open_postgres_store`; `close()` it when done."""

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
                f" WHERE g.id = $6 AND g.version = $7 AND g.status IN {ACTIVE_SQL}"
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
            f"SELECT {_GAME_COLUMNS} FROM games g WHERE g.channel_id = $1 AND g.status IN {ACTIVE_SQL}",
            channel_id,
        )
        return _game_from_row(rows[0]) if rows else None

    async def latest_game_in_channel(self, channel_id: int, *, started: bool = False) -> GameRecord | None:
        """The channel's newest game (``started``: the newest started one), whatever its status."""
        only = " AND g.status <> 'lobby' AND g.version > 0" if started else ""
        rows = await self._read(
            f"SELECT {_GAME_COLUMNS} FROM games g WHERE g.channel_id = $1{only}"
            " ORDER BY g.created_at DESC, g.id DESC LIMIT 1",
            channel_id,
        )
        return _game_from_row(rows[0]) if rows else None

    async def get_game_meta(self, game_id: int) -> JsonDict:
        """The game's metadata: a JSON value per key ({} when there is none)."""
        rows = await self._read("SELECT key, body FROM game_meta WHERE game_id = $1 ORDER BY key", game_id)
        return {key: json.loads(body) for key, body in rows}

    async def set_game_meta(
        self, game_id: int, changes: Mapping[str, Any], now: float, *, leased: tuple[int, str] | None = None
    ) -> JsonDict:
        """Merge `changes` into the game's metadata (a None value removes the key). Returns the result.
        Raises LeaseLost for a duty no longer ``leased``'s."""
        rows = metadata_rows(changes)

        async def body(conn: _Conn) -> JsonDict:
            await self._fetch_game(conn, game_id, lock=True)
            # FOR UPDATE: another worker's claim of the duty waits until this is committed.
            if leased is not None and not await conn.fetchval(
                "SELECT 1 FROM duties WHERE id = $1 AND lease_owner = $2 AND done_at IS NULL FOR UPDATE",
                *leased,
            ):
                raise LeaseLost(*leased)
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
        where = f" AND g.status IN {ACTIVE_SQL}" if active_only else ""
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

    async def __aenter__(self) -> PostgresGameStore:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
