"""A user's settings (language, reminders, quiet hours: one JSON body per user) and the ratings per server,
written once for both backends (the contract: `GameStore.rate_game`). A game is rated once: its
``rated_games`` row is written with the ratings it changed. Two games of one server ending at once are rated
one after the other (SQLite: its one writer; PostgreSQL: an advisory lock on the server), so neither update
is lost."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .base import JsonDict, PlayerRating, RateFn, StoreError
from .core import StoreCore
from .rows import from_json, to_json
from .sql import Conn

_INSERT = "INSERT INTO user_settings (user_id, body, updated_at) VALUES (?, ?, ?) ON CONFLICT (user_id) DO "


class Settings(StoreCore):
    """Read, replace and merge a user's settings."""

    async def get_user_settings(self, user_id: int) -> JsonDict:
        rows = await self._glance("SELECT body FROM user_settings WHERE user_id = ?", user_id)
        return from_json(rows[0][0]) if rows else {}

    async def set_user_settings(self, user_id: int, settings: Mapping[str, Any], now: float) -> None:
        upsert = _INSERT + "UPDATE SET body = excluded.body, updated_at = excluded.updated_at"
        await self._run(upsert, user_id, to_json(settings), now)

    async def update_user_settings(self, user_id: int, changes: Mapping[str, Any], now: float) -> JsonDict:
        changes = dict(changes)
        to_json(changes)

        async def body(conn: Conn) -> JsonDict:
            # The row exists, then is locked while merging (PostgreSQL), so two processes' updates of one
            # user both land.
            await conn.run(_INSERT + "NOTHING", user_id, "{}", now)
            row = await conn.fetchrow(
                f"SELECT body FROM user_settings WHERE user_id = ?{self.sql.for_update}", user_id
            )
            assert row is not None
            merged = from_json(row[0])
            for key, value in changes.items():
                if value is None:
                    merged.pop(key, None)
                else:
                    merged[key] = value
            await conn.run(
                "UPDATE user_settings SET body = ?, updated_at = ? WHERE user_id = ?",
                to_json(merged),
                now,
                user_id,
            )
            return merged

        return await self._write(body)

    async def all_user_settings(self) -> list[tuple[int, JsonDict, float]]:
        rows = await self._read("SELECT user_id, body, updated_at FROM user_settings ORDER BY user_id")
        return [(int(u), from_json(b), float(t)) for u, b, t in rows]


# ------------------------------------------------------------------ ratings per server

_COLUMNS = "guild_id, user_id, mu, sigma, games, wins, updated_at"
_ORDER = "ORDER BY mu - 3.0 * sigma DESC, games DESC, user_id"
# PostgreSQL's advisory locks share one key space: ratings take the keys of (this class id, server).
_LOCK_CLASS = 0x41_4C_58_52  # "ALXR"


def _rating(row: Any) -> PlayerRating:
    return PlayerRating(
        int(row[0]), int(row[1]), float(row[2]), float(row[3]), int(row[4]), int(row[5]), float(row[6])
    )


def _checked(guild_id: int, users: Sequence[int], new: Sequence[PlayerRating]) -> list[PlayerRating]:
    out = list(new)
    if sorted(r.user_id for r in out) != sorted(users) or any(r.guild_id != guild_id for r in out):
        raise StoreError("a rating function must return one rating per user, of the same server")
    return out


class Ratings(StoreCore):
    """`GameStore`'s rating methods."""

    async def _lock_ratings(self, conn: Conn, guild_id: int) -> None:
        if self.sql.rating_lock:
            await conn.run(self.sql.rating_lock, _LOCK_CLASS, str(guild_id))

    async def rate_game(
        self, game_id: int, guild_id: int, user_ids: Sequence[int], rate: RateFn, now: float
    ) -> bool:
        users = list(dict.fromkeys(user_ids))

        async def body(conn: Conn) -> bool:
            await self._lock_ratings(conn, guild_id)
            if await conn.fetchrow("SELECT 1 FROM rated_games WHERE game_id = ?", game_id) is not None:
                return False
            which, args = self.sql.any_of("user_id", users)
            rows = await conn.fetch(
                f"SELECT {_COLUMNS} FROM ratings WHERE guild_id = ? AND {which}", guild_id, *args
            )
            current = {r.user_id: r for r in map(_rating, rows)}
            new = _checked(guild_id, users, rate({u: current.get(u) for u in users}))
            await _upsert(conn, new, now)
            await conn.run(
                "INSERT INTO rated_games (game_id, guild_id, rated_at) VALUES (?, ?, ?)",
                game_id,
                guild_id,
                now,
            )
            return True

        return await self._write(body)

    async def ratings(self, guild_id: int, limit: int | None = None) -> list[PlayerRating]:
        sql = f"SELECT {_COLUMNS} FROM ratings WHERE guild_id = ? {_ORDER}"
        rows = await (
            self._read(sql, guild_id) if limit is None else self._read(sql + " LIMIT ?", guild_id, limit)
        )
        return [_rating(r) for r in rows]

    async def rating_of(self, guild_id: int, user_id: int) -> PlayerRating | None:
        rows = await self._read(
            f"SELECT {_COLUMNS} FROM ratings WHERE guild_id = ? AND user_id = ?", guild_id, user_id
        )
        return _rating(rows[0]) if rows else None

    async def rated_games(self, guild_id: int) -> list[int]:
        rows = await self._read(
            "SELECT game_id FROM rated_games WHERE guild_id = ? ORDER BY game_id", guild_id
        )
        return [int(r[0]) for r in rows]

    async def replace_ratings(
        self, guild_id: int, ratings: Sequence[PlayerRating], game_ids: Sequence[int], now: float
    ) -> None:
        new = _checked(guild_id, [r.user_id for r in ratings], ratings)

        async def body(conn: Conn) -> None:
            await self._lock_ratings(conn, guild_id)
            await conn.run("DELETE FROM ratings WHERE guild_id = ?", guild_id)
            await conn.run("DELETE FROM rated_games WHERE guild_id = ?", guild_id)
            await _upsert(conn, new, now)
            await conn.run_many(
                "INSERT INTO rated_games (game_id, guild_id, rated_at) VALUES (?, ?, ?)"
                " ON CONFLICT (game_id) DO UPDATE"
                " SET guild_id = excluded.guild_id, rated_at = excluded.rated_at",
                [(g, guild_id, now) for g in dict.fromkeys(game_ids)],
            )

        await self._write(body)


async def _upsert(conn: Conn, new: Sequence[PlayerRating], now: float) -> None:
    await conn.run_many(
        f"INSERT INTO ratings ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (guild_id, user_id) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma,"
        " games = excluded.games, wins = excluded.wins, updated_at = excluded.updated_at",
        [(r.guild_id, r.user_id, r.mu, r.sigma, r.games, r.wins, now) for r in new],
    )
