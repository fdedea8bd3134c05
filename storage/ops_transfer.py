"""A game's export and import, written once for both backends (the format: storage/rows.py). Backups and
integrity checks differ whole and stay with the backend (storage/sqlite.py, storage/postgres.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import ChannelBusy, GameExists, GameRecord, InvalidGameData, JsonDict, snapshot_map
from .core import StoreCore, insert_maps, insert_seats, write_meta
from .rows import (
    ACTIVE_SQL,
    DUTY_COLUMNS,
    GAME_FIELDS,
    duty_from_row,
    export_document,
    export_maps,
    from_json,
    metadata_rows,
    parse_export,
    to_json,
)
from .sql import Conn


class Transfer(StoreCore):
    """export_game and import_game."""

    schema_version: int  # the backend's latest schema version, written into exports

    async def export_game(self, game_id: int) -> JsonDict:
        async def body(conn: Conn) -> JsonDict:
            game = await self._fetch_game(conn, game_id)
            events = await conn.fetch(
                "SELECT version, body, created_at FROM events WHERE game_id = ? ORDER BY version", game_id
            )
            snap = await conn.fetchrow("SELECT version, body FROM snapshots WHERE game_id = ?", game_id)
            duties = await conn.fetch(
                f"SELECT {DUTY_COLUMNS} FROM duties WHERE game_id = ? AND done_at IS NULL ORDER BY id",
                game_id,
            )
            meta = await conn.fetch("SELECT key, body FROM game_meta WHERE game_id = ? ORDER BY key", game_id)
            snap_body = None if snap is None else from_json(snap[1])
            digest = snapshot_map(snap_body)
            maps = (
                []
                if digest is None
                else await conn.fetch("SELECT digest, name, text FROM maps WHERE digest = ?", digest)
            )
            return export_document(
                game,
                events,
                None if snap is None else (snap[0], snap_body),
                maps,
                meta,
                map(duty_from_row, duties),
                self.schema_version,
            )

        return await self._consistent(body)

    async def import_game(
        self, data: Mapping[str, Any], *, replace: bool = False, keep_id: bool = True
    ) -> GameRecord:
        try:
            game, seat_rows, event_rows, snapshot, duty_rows = parse_export(data)
            duty_created = [float(d["created_at"]) for d in data.get("duties", [])]
            meta_rows = metadata_rows(dict(data.get("meta") or {}))
            map_rows = export_maps(data)
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, InvalidGameData):
                raise
            raise InvalidGameData(f"malformed export: {exc!r}") from exc

        async def body(conn: Conn) -> GameRecord:
            old_id = int(game["id"])
            columns = list(GAME_FIELDS[1:])
            values = [to_json(game[c]) if c == "options" else game[c] for c in columns]
            if keep_id:
                exists = await conn.fetchrow(f"SELECT 1 FROM games WHERE id = ?{self.sql.for_update}", old_id)
                if exists and not replace:
                    raise GameExists(f"game {old_id} already exists")
                if exists:
                    await conn.run("DELETE FROM games WHERE id = ?", old_id)
                columns.insert(0, "id")
                values.insert(0, old_id)
            row = await conn.fetchrow(
                f"INSERT INTO games ({', '.join(columns)}) VALUES ({', '.join('?' * len(values))})"
                f" ON CONFLICT (channel_id) WHERE status IN {ACTIVE_SQL} DO NOTHING RETURNING id",
                *values,
            )
            if row is None:
                raise ChannelBusy(game["channel_id"], await self._active_game_in(conn, game["channel_id"]))
            new_id = int(row[0])
            if keep_id and self.sql.imported_id:
                await conn.run(self.sql.imported_id, new_id)
            await insert_seats(conn, new_id, seat_rows)
            await conn.run_many(
                "INSERT INTO events (game_id, version, body, created_at) VALUES (?, ?, ?, ?)",
                [(new_id, v, b, t) for v, b, t in event_rows],
            )
            if snapshot is not None:
                await conn.run(
                    "INSERT INTO snapshots (game_id, version, body) VALUES (?, ?, ?)", new_id, *snapshot
                )
            await insert_maps(conn, map_rows)
            when = float(game["updated_at"])
            await self._insert_duties(conn, new_id, game["guild_id"], duty_rows, when, duty_created)
            await write_meta(conn, new_id, meta_rows, when)
            return await self._fetch_game(conn, new_id)

        return await self._write(body)
