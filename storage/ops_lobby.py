"""Games in the lobby, written once for both backends: create, join, leave, change options and seating."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from .base import ChannelBusy, GameRecord, SeatError
from .core import StoreCore, insert_seats
from .rows import ACTIVE_SQL, check_seats, seat_for, to_json
from .sql import Conn


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
