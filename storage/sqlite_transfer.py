"""Whole-database and whole-game operations in the SQLite store: online backup, integrity check, and a
game's export and import. A mixin of `SqliteGameStore`; PostgreSQL's is storage/postgres_transfer.py."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
from collections.abc import Mapping
from typing import Any

import aiosqlite

from .base import (
    ACTIVE_STATUSES,
    ChannelBusy,
    GameExists,
    GameRecord,
    IntegrityReport,
    InvalidGameData,
    JsonDict,
    StoreError,
    snapshot_map,
)
from .migrations import LATEST_VERSION
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
from .sqlite_base import (
    SqliteBase,
    Tx,
    _write_meta,
    connect,
)

PARTIAL = ".partial"  # a copy being written beside its target, renamed into place once complete
# The files SQLite may keep beside a database file (its journal, or its WAL and the WAL's index).
SIDE_FILES = ("-journal", "-wal", "-shm")


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


class SqliteTransfer(SqliteBase):
    """Backup, integrity_check, export_game and import_game."""

    async def backup(self, dest_path: str | os.PathLike[str]) -> None:
        """Copy the whole database to `dest_path`, online, in one step, from a separate connection
        (`copy_database`: `dest_path` is either the old file or a complete new one)."""
        await asyncio.to_thread(copy_database, self.path, os.fspath(dest_path))

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

        async def body(conn: Tx) -> JsonDict:
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
                    f"SELECT {DUTY_COLUMNS} FROM duties WHERE game_id = ? AND done_at IS NULL ORDER BY id",
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
            return export_document(
                game,
                events,
                (snaps[0][0], snap_body) if snaps else None,
                maps,
                meta,
                map(duty_from_row, duties),
                LATEST_VERSION,
            )

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

        async def body(conn: Tx) -> GameRecord:
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
            await self._insert_duties(
                conn, new_id, game["guild_id"], duty_rows, float(game["updated_at"]), duty_created
            )
            await _write_meta(conn, new_id, meta_rows, float(game["updated_at"]))
            return await self._fetch_game(conn, new_id)

        return await self._write(body)


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
    finally:
        await conn.execute("COMMIT")
    return problems
