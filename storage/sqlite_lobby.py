"""Games in the lobby, in the SQLite store: create, join, leave, change options and seating. A mixin of
`SqliteGameStore`; PostgreSQL's is storage/postgres_lobby.py."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from .base import (
    ChannelBusy,
    GameRecord,
    SeatError,
)
from .rows import (
    check_seats,
    seat_for,
    to_json,
)
from .sqlite_base import (
    SqliteBase,
    Tx,
)


class SqliteLobby(SqliteBase):
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

        async def body(conn: Tx) -> GameRecord:
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
        change: Callable[[Tx, GameRecord], Awaitable[None]],
    ) -> GameRecord:
        async def body(conn: Tx) -> GameRecord:
            game = await self._fetch_game(conn, game_id)
            if game.status != "lobby":
                raise SeatError(f"game {game_id} is not in the lobby ({game.status})")
            await change(conn, game)
            await conn.execute("UPDATE games SET updated_at = ? WHERE id = ?", (now, game_id))
            return await self._fetch_game(conn, game_id)

        return await self._write(body)

    async def join_seat(self, game_id: int, user_id: int, now: float, seat: int | None = None) -> GameRecord:
        """Seat a user in the lobby: the given seat, or the lowest free one. Raises SeatError."""

        async def change(conn: Tx, game: GameRecord) -> None:
            chosen = seat_for(game, user_id, seat)
            await conn.execute(
                "INSERT INTO seats (game_id, seat, user_id) VALUES (?, ?, ?)", (game_id, chosen, user_id)
            )

        return await self._lobby_change(game_id, now, change)

    async def leave_seat(self, game_id: int, user_id: int, now: float) -> GameRecord:
        """Take a user out of the lobby. Raises SeatError if they are not seated or the game has begun."""

        async def change(conn: Tx, game: GameRecord) -> None:
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

        async def change(conn: Tx, game: GameRecord) -> None:
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
