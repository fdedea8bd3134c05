"""A game's record, written once for both backends: in the lobby (create, join, leave, change options and
seating), in play (its actions, `append`, amendments and abandonment), its metadata, the reads of games and
events, and a game's export and import (the format: storage/rows.py; backups and integrity checks differ
whole and stay with the backend). The contract: storage.base.GameStore."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from typing import Any, Final

from .base import (
    KEEP,
    TERMINAL_STATUSES,
    ChannelBusy,
    GameExists,
    GameNotFound,
    GameRecord,
    InvalidGameData,
    JsonDict,
    LeaseLost,
    MapRow,
    NewDuty,
    SeatError,
    Status,
    _Keep,
    snapshot_map,
)
from .core import DROP_TIMERS, StoreCore, insert_maps, insert_seats, why_not_updated, write_meta
from .rows import (
    ACTIVE_SQL,
    DUTY_COLUMNS,
    GAME_FIELDS,
    ChangeRows,
    check_seats,
    check_status,
    duty_from_row,
    export_document,
    export_maps,
    from_json,
    metadata_rows,
    pack,
    parse_export,
    seat_for,
    to_json,
    unpack_events,
)
from .sql import Conn

EVENT_ROWS: Final[str] = "SELECT version, body, created_at FROM events WHERE game_id = ? ORDER BY version"


async def pack_game(conn: Conn, game_id: int) -> None:
    """A game over keeps its events, and the log of its delivered duties, as one row of two compressed lists
    (rows.pack), written with its last change. Duties done later stay rows (purge_done_duties)."""
    events = await conn.fetch(EVENT_ROWS, game_id)
    done = "FROM duties WHERE game_id = ? AND done_at IS NOT NULL"
    log = await conn.fetch(
        f"SELECT id, kind, created_at, due_at, done_at, attempts, outcome {done} ORDER BY id", game_id
    )
    if events or log:
        await conn.run(
            "INSERT INTO packed (game_id, events, duties) VALUES (?, ?, ?)", game_id, pack(events), pack(log)
        )
        await conn.run("DELETE FROM events WHERE game_id = ?", game_id)
        await conn.run(f"DELETE {done}", game_id)


async def packed(read: Callable[..., Awaitable[Sequence[Any]]], game_id: int) -> list[tuple[int, str, float]]:
    """The events of a game over, (version, body text, created_at) oldest first; none if not packed."""
    found = await read("SELECT events FROM packed WHERE game_id = ?", game_id)
    return unpack_events(bytes(found[0][0])) if found else []


class Lobby(StoreCore):
    """The lobby's writes: a game's creation and its seats and options before it starts."""

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
        options_json = to_json(options)
        snapshot_json = None if snapshot is None else to_json(snapshot)
        seat_rows = check_seats(seats)

        async def body(conn: Conn) -> GameRecord:
            # The partial unique index is the arbiter: a racing create in the same channel waits for
            # this one to commit, then inserts nothing.
            row = await conn.fetchrow(
                "INSERT INTO games (guild_id, channel_id, status, options, version, created_by, created_at,"
                " updated_at) VALUES (?, ?, 'lobby', ?, 0, ?, ?, ?)"
                f" ON CONFLICT (channel_id) WHERE status IN {ACTIVE_SQL} DO NOTHING RETURNING id",
                guild_id,
                channel_id,
                options_json,
                created_by,
                now,
                now,
            )
            if row is None:
                raise ChannelBusy(channel_id, await self._active_game_in(conn, channel_id))
            game_id = int(row[0])
            await insert_seats(conn, game_id, seat_rows)
            if snapshot_json is not None:
                await conn.run(
                    "INSERT INTO snapshots (game_id, version, body) VALUES (?, 0, ?)", game_id, snapshot_json
                )
            return await self._fetch_game(conn, game_id)

        return await self._write(body)

    async def _lobby_change(
        self, game_id: int, now: float, change: Callable[[Conn, GameRecord], Awaitable[None]]
    ) -> GameRecord:
        async def body(conn: Conn) -> GameRecord:
            game = await self._fetch_game(conn, game_id, lock=True)
            if game.status != "lobby":
                raise SeatError(f"game {game_id} is not in the lobby ({game.status})")
            await change(conn, game)
            await conn.run("UPDATE games SET updated_at = ? WHERE id = ?", now, game_id)
            return await self._fetch_game(conn, game_id)

        return await self._write(body)

    async def join_seat(self, game_id: int, user_id: int, now: float, seat: int | None = None) -> GameRecord:
        async def change(conn: Conn, game: GameRecord) -> None:
            chosen = seat_for(game, user_id, seat)
            await conn.run(
                "INSERT INTO seats (game_id, seat, user_id) VALUES (?, ?, ?)", game_id, chosen, user_id
            )

        return await self._lobby_change(game_id, now, change)

    async def leave_seat(self, game_id: int, user_id: int, now: float) -> GameRecord:
        async def change(conn: Conn, game: GameRecord) -> None:
            if game.seat_of(user_id) is None:
                raise SeatError(f"user {user_id} is not seated")
            await conn.run("DELETE FROM seats WHERE game_id = ? AND user_id = ?", game_id, user_id)

        return await self._lobby_change(game_id, now, change)

    async def update_lobby(
        self,
        game_id: int,
        now: float,
        *,
        options: Mapping[str, Any] | None = None,
        seats: Sequence[tuple[int, int]] | None = None,
    ) -> GameRecord:
        options_json = None if options is None else to_json(options)
        seat_rows = None if seats is None else check_seats(seats)

        async def change(conn: Conn, game: GameRecord) -> None:
            if options_json is not None:
                await conn.run("UPDATE games SET options = ? WHERE id = ?", options_json, game_id)
            if seat_rows is not None:
                await self._replace_seats(conn, game_id, seat_rows)

        return await self._lobby_change(game_id, now, change)


class Games(StoreCore):
    """append, amend, abandon_game, game metadata, and the reads of games and events."""

    async def append(
        self,
        game_id: int,
        expected_version: int,
        events: Sequence[Mapping[str, Any]],
        snapshot: Mapping[str, Any] | str,
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
        if not events:
            raise ValueError("an action needs at least one event")
        if status is not None:
            check_status(status)
        event_rows = [(game_id, expected_version + i + 1, to_json(e), now) for i, e in enumerate(events)]
        new_version = expected_version + len(events)
        snapshot_json = snapshot if isinstance(snapshot, str) else to_json(snapshot)
        if status in TERMINAL_STATUSES:
            waiting_on = None
        c = ChangeRows.of(
            seats=seats, duties=duties, waiting_on=waiting_on, cancel_keys=cancel_keys, meta=meta
        )
        map_rows = list(maps)

        async def body(conn: Conn) -> GameRecord:
            args = (new_version, now, status, game_id, expected_version, None, "lobby")
            record = await self._advance(conn, args, c, terminal=status in TERMINAL_STATUSES)
            await insert_maps(conn, map_rows)
            await conn.run_many(
                "INSERT INTO events (game_id, version, body, created_at) VALUES (?, ?, ?, ?)", event_rows
            )
            await conn.run(
                "INSERT INTO snapshots (game_id, version, body) VALUES (?, ?, ?)"
                " ON CONFLICT (game_id) DO UPDATE SET version = excluded.version, body = excluded.body",
                game_id,
                new_version,
                snapshot_json,
            )
            if status in TERMINAL_STATUSES:
                await pack_game(conn, game_id)
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
        c = ChangeRows.of(
            seats=seats, duties=duties, waiting_on=waiting_on, cancel_keys=cancel_keys, meta=meta
        )
        options_json = None if options is None else to_json(options)

        async def body(conn: Conn) -> GameRecord:
            args = (expected_version, now, None, game_id, expected_version, options_json, "playing")
            return await self._advance(conn, args, c, terminal=False)

        return await self._write(body)

    async def _advance(
        self, conn: Conn, args: tuple[Any, ...], c: ChangeRows, *, terminal: bool
    ) -> GameRecord:
        """The version-guarded update of an append or an amend (``args``: `Dialect.advance`'s but whose turn
        it is, which ``c`` gives), and the changes beside the game's row."""
        _, now, _, game_id, expected_version, *_ = args
        # RETURNING hands back the updated row, saving a round trip.
        updated = await conn.fetchrow(self.sql.advance, *args, c.set_waiting, c.waiting)
        if updated is None:
            await why_not_updated(conn, game_id, expected_version)
        record = self.sql.game(updated)
        if c.seats is not None:
            await self._replace_seats(conn, game_id, c.seats)
            record = dataclasses.replace(record, seats=tuple(sorted(c.seats)))
        cancel = c.cancel_keys
        if terminal:  # the game's timers go; its pending posts stay
            await conn.run(DROP_TIMERS, game_id)
            cancel = []
        await self._insert_duties(conn, game_id, record.guild_id, c.duties, now, cancel=cancel)
        await write_meta(conn, game_id, c.meta, now)
        return record

    async def abandon_game(self, game_id: int, now: float, duties: Sequence[NewDuty] = ()) -> GameRecord:
        duty_rows = [(d, to_json(d.payload)) for d in duties]

        async def body(conn: Conn) -> GameRecord:
            game = await self._fetch_game(conn, game_id, lock=True)
            if game.status in TERMINAL_STATUSES:  # idempotent: as it is, and no duty added
                return game
            await conn.run(
                "UPDATE games SET status = 'abandoned', waiting_on = NULL, turn_started_at = NULL,"
                " updated_at = ? WHERE id = ?",
                now,
                game_id,
            )
            await conn.run(DROP_TIMERS, game_id)
            await pack_game(conn, game_id)
            await self._insert_duties(conn, game_id, game.guild_id, duty_rows, now)
            return await self._fetch_game(conn, game_id)

        return await self._write(body)

    # ------------------------------------------------------------------ metadata

    async def get_game_meta(self, game_id: int) -> JsonDict:
        rows = await self._glance("SELECT key, body FROM game_meta WHERE game_id = ? ORDER BY key", game_id)
        return {key: json.loads(body) for key, body in rows}

    async def set_game_meta(
        self, game_id: int, changes: Mapping[str, Any], now: float, *, leased: tuple[int, str] | None = None
    ) -> JsonDict:
        rows = metadata_rows(changes)

        async def body(conn: Conn) -> JsonDict:
            await self._fetch_game(conn, game_id, lock=True)
            # Locked (PostgreSQL): another worker's claim of the duty waits until this is committed.
            if leased is not None and not await conn.fetchrow(
                "SELECT 1 FROM duties WHERE id = ? AND lease_owner = ? AND done_at IS NULL"
                + self.sql.for_update,
                *leased,
            ):
                raise LeaseLost(*leased)
            await write_meta(conn, game_id, rows, now)
            found = await conn.fetch(
                "SELECT key, body FROM game_meta WHERE game_id = ? ORDER BY key", game_id
            )
            return {key: json.loads(text) for key, text in found}

        return await self._write(body)

    # ------------------------------------------------------------------ reads

    async def load_snapshot(self, game_id: int) -> tuple[int, JsonDict] | None:
        rows = await self._glance(
            "SELECT g.version, s.version, s.body FROM games g LEFT JOIN snapshots s ON s.game_id = g.id"
            " WHERE g.id = ?",
            game_id,
        )
        if not rows:
            raise GameNotFound(game_id)
        _, version, body = rows[0]
        return None if body is None else (int(version), from_json(body))

    async def get_map(self, digest: str) -> tuple[str, str] | None:
        rows = await self._glance("SELECT name, text FROM maps WHERE digest = ?", digest)
        return (str(rows[0][0]), str(rows[0][1])) if rows else None

    async def game_by_id(self, game_id: int) -> GameRecord | None:
        rows = await self._glance(self.sql.select_game + "g.id = ?", game_id)
        return self.sql.game(rows[0]) if rows else None

    async def game_by_channel(self, channel_id: int) -> GameRecord | None:
        rows = await self._glance(
            self.sql.select_game + f"g.channel_id = ? AND g.status IN {ACTIVE_SQL}", channel_id
        )
        return self.sql.game(rows[0]) if rows else None

    async def latest_game_in_channel(self, channel_id: int, *, started: bool = False) -> GameRecord | None:
        only = " AND g.status <> 'lobby' AND g.version > 0" if started else ""
        rows = await self._glance(
            self.sql.select_game + f"g.channel_id = ?{only} ORDER BY g.created_at DESC, g.id DESC LIMIT 1",
            channel_id,
        )
        return self.sql.game(rows[0]) if rows else None

    async def _games(self, sql: str, *args: Any) -> list[GameRecord]:
        return [
            self.sql.game(r)
            for r in await self._read(f"SELECT {self.sql.game_columns} FROM games g{sql}", *args)
        ]

    async def games_waiting_on(self, user_id: int) -> list[GameRecord]:
        return await self._games(
            " WHERE g.waiting_on = ? AND g.status = 'playing' ORDER BY g.turn_started_at, g.id", user_id
        )

    async def games_of_user(self, user_id: int, active_only: bool = True) -> list[GameRecord]:
        where = f" AND g.status IN {ACTIVE_SQL}" if active_only else ""
        return await self._games(
            f" JOIN seats st ON st.game_id = g.id WHERE st.user_id = ?{where}"
            " ORDER BY g.updated_at DESC, g.id DESC",
            user_id,
        )

    async def list_games(
        self,
        status: Status | Collection[Status] | None = None,
        guild_id: int | None = None,
        limit: int | None = None,
    ) -> list[GameRecord]:
        clauses: list[str] = []
        args: list[Any] = []
        if status is not None:
            wanted = [status] if isinstance(status, str) else list(status)
            for s in wanted:
                check_status(s)
            clauses.append(f"g.status IN ({', '.join('?' * len(wanted))})")
            args.extend(wanted)
        if guild_id is not None:
            clauses.append("g.guild_id = ?")
            args.append(guild_id)
        sql = " WHERE " + " AND ".join(clauses) if clauses else ""
        sql += " ORDER BY g.updated_at DESC, g.id DESC"
        if limit is not None:
            sql += " LIMIT ?"
            args.append(limit)
        return await self._games(sql, *args)

    async def events(
        self, game_id: int, since_version: int = 0, limit: int | None = None
    ) -> list[tuple[int, JsonDict]]:
        last = (1 << 62) if limit is None else limit  # the last `limit` of them (all: as many as can be)
        rows = await self._read(
            "SELECT version, body FROM (SELECT version, body FROM events WHERE game_id = ? AND version > ?"
            " ORDER BY version DESC LIMIT ?) AS tail ORDER BY version",
            *(game_id, since_version, last),
        )
        if not rows:  # a game over keeps them packed
            rows = [(v, b) for v, b, _ in await packed(self._glance, game_id) if v > since_version]
            rows = rows[max(0, len(rows) - last) :]
        return [(int(v), from_json(b)) for v, b in rows]


class Transfer(StoreCore):
    """export_game and import_game."""

    schema_version: int  # the backend's latest schema version, written into exports

    async def export_game(self, game_id: int) -> JsonDict:
        async def body(conn: Conn) -> JsonDict:
            game = await self._fetch_game(conn, game_id)
            events = await conn.fetch(EVENT_ROWS, game_id) or await packed(conn.fetch, game_id)
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
            if game["status"] in TERMINAL_STATUSES:
                await pack_game(conn, new_id)
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
