"""Users' settings in the SQLite store (language, reminders, quiet hours): one JSON body per user. A
mixin of `SqliteGameStore`; PostgreSQL's is storage/postgres_settings.py."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import (
    JsonDict,
)
from .rows import (
    from_json,
    to_json,
)
from .sqlite_base import (
    SqliteBase,
    Tx,
)


class SqliteSettings(SqliteBase):
    """Read, replace and merge a user's settings."""

    async def get_user_settings(self, user_id: int) -> JsonDict:
        rows = await self._glance("SELECT body FROM user_settings WHERE user_id = ?", (user_id,))
        return from_json(rows[0][0]) if rows else {}

    async def set_user_settings(self, user_id: int, settings: Mapping[str, Any], now: float) -> None:
        """Replace all of a user's settings."""
        body_json = to_json(settings)

        async def body(conn: Tx) -> None:
            await conn.execute(
                "INSERT INTO user_settings (user_id, body, updated_at) VALUES (?, ?, ?)"
                " ON CONFLICT (user_id) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at",
                (user_id, body_json, now),
            )

        await self._write(body)

    async def update_user_settings(self, user_id: int, changes: Mapping[str, Any], now: float) -> JsonDict:
        """Merge `changes` into a user's settings (a None value removes the key). Returns the result."""
        changes = dict(changes)
        to_json(changes)

        async def body(conn: Tx) -> JsonDict:
            rows = list(
                await conn.execute_fetchall("SELECT body FROM user_settings WHERE user_id = ?", (user_id,))
            )
            merged = from_json(rows[0][0]) if rows else {}
            for key, value in changes.items():
                if value is None:
                    merged.pop(key, None)
                else:
                    merged[key] = value
            await conn.execute(
                "INSERT INTO user_settings (user_id, body, updated_at) VALUES (?, ?, ?)"
                " ON CONFLICT (user_id) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at",
                (user_id, to_json(merged), now),
            )
            return merged

        return await self._write(body)

    async def all_user_settings(self) -> list[tuple[int, JsonDict, float]]:
        """(user id, settings, updated_at) of every user, for moving a database (`python -m storage move`)."""
        rows = await self._read("SELECT user_id, body, updated_at FROM user_settings ORDER BY user_id")
        return [(int(u), from_json(b), float(t)) for u, b, t in rows]
