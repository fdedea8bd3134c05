"""Whole-database and whole-game operations in the PostgreSQL store: backup with pg_dump, integrity
check, and a game's export and import. A mixin of `PostgresGameStore`; SQLite's is
storage/sqlite_transfer.py."""

from __future__ import annotations

import asyncio
import os
import shutil
import urllib.parse
from collections.abc import Mapping
from typing import Any, Final

import asyncpg

from .base import (
    ChannelBusy,
    GameExists,
    GameRecord,
    IntegrityReport,
    InvalidGameData,
    JsonDict,
    StoreError,
    snapshot_map,
)
from .pg_migrations import LATEST_VERSION, schema_version
from .postgres_base import (
    PostgresBase,
    _Conn,
    _write_meta,
)
from .rows import (
    ACTIVE_SQL,
    DUTY_COLUMNS,
    duty_from_row,
    export_document,
    export_maps,
    from_json,
    metadata_rows,
    parse_export,
    to_json,
)


class PostgresTransfer(PostgresBase):
    """Backup, integrity_check, export_game and import_game."""

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
                f"SELECT {DUTY_COLUMNS} FROM duties WHERE game_id = $1 AND done_at IS NULL ORDER BY id",
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
            return export_document(
                game,
                events,
                None if snap is None else (snap[0], snap_body),
                maps,
                meta,
                map(duty_from_row, duties),
                LATEST_VERSION,
            )

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
                f" ON CONFLICT (channel_id) WHERE status IN {ACTIVE_SQL} DO NOTHING RETURNING id",
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
        f"SELECT channel_id, COUNT(*) FROM games WHERE status IN {ACTIVE_SQL} GROUP BY channel_id"
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
