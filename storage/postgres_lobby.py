"""Games in the lobby, in the PostgreSQL store: create, join, leave, change options and seating. A mixin
of `PostgresGameStore`; SQLite's is storage/sqlite_lobby.py."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from .base import (
    ChannelBusy,
    GameRecord,
    SeatError,
)
from .postgres_base import (
    PostgresBase,
    _Conn,
)
from .rows import (
    ACTIVE_SQL,
    check_seats,
    seat_for,
    to_json,
)


class PostgresLobby(PostgresBase):
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
                f" ON CONFLICT (channel_id) WHERE status IN {ACTIVE_SQL} DO NOTHING RETURNING id",
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
            chosen = seat_for(game, user_id, seat)
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

    async def set_seats(self, game_id: int, seats: Sequence[tuple[int, int]], now: float) -> GameRecord:
        return await self.update_lobby(game_id, now, seats=seats)
