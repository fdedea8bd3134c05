"""Users' settings (language, reminders, quiet hours), written once for both backends: one JSON body per
user."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import JsonDict
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
