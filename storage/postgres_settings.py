"""Users' settings in the PostgreSQL store (language, reminders, quiet hours): one JSON body per user. A
mixin of `PostgresGameStore`; SQLite's is storage/sqlite_settings.py."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import (
    JsonDict,
)
from .postgres_base import (
    PostgresBase,
    _Conn,
)
from .rows import (
    from_json,
    to_json,
)


class PostgresSettings(PostgresBase):
    """Read, replace and merge a user's settings."""

    async def get_user_settings(self, user_id: int) -> JsonDict:
        rows = await self._read("SELECT body FROM user_settings WHERE user_id = $1", user_id)
        return from_json(rows[0][0]) if rows else {}

    async def set_user_settings(self, user_id: int, settings: Mapping[str, Any], now: float) -> None:
        """Replace all of a user's settings."""
        body_json = to_json(settings)

        async def body(conn: _Conn) -> None:
            await conn.execute(
                "INSERT INTO user_settings (user_id, body, updated_at) VALUES ($1, $2, $3)"
                " ON CONFLICT (user_id) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at",
                user_id,
                body_json,
                now,
            )

        await self._write(body)

    async def update_user_settings(self, user_id: int, changes: Mapping[str, Any], now: float) -> JsonDict:
        """Merge `changes` into a user's settings (a None value removes the key). Returns the result.
        The row is locked while merging, so two processes' updates of one user both land."""
        changes = dict(changes)
        to_json(changes)

        async def body(conn: _Conn) -> JsonDict:
            await conn.execute(
                "INSERT INTO user_settings (user_id, body, updated_at) VALUES ($1, '{}', $2)"
                " ON CONFLICT (user_id) DO NOTHING",
                user_id,
                now,
            )
            text = await conn.fetchval(
                "SELECT body FROM user_settings WHERE user_id = $1 FOR UPDATE", user_id
            )
            merged = from_json(text)
            for key, value in changes.items():
                if value is None:
                    merged.pop(key, None)
                else:
                    merged[key] = value
            await conn.execute(
                "UPDATE user_settings SET body = $2, updated_at = $3 WHERE user_id = $1",
                user_id,
                to_json(merged),
                now,
            )
            return merged

        return await self._write(body)

    async def all_user_settings(self) -> list[tuple[int, JsonDict, float]]:
        """(user id, settings, updated_at) of every user, for moving a database."""
        rows = await self._read("SELECT user_id, body, updated_at FROM user_settings ORDER BY user_id")
        return [(int(u), from_json(b), float(t)) for u, b, t in rows]
