"""The outbox, written once for both backends: duties written with the state, leased to delivery workers,
finished or retried, cancelled, purged when old. What differs stays with the backend: SQLite's group
commit of finishes and its file lock (storage/sqlite.py), PostgreSQL's wake-ups across processes
and advisory lock (storage/postgres.py); the claim's SQL is in storage/sql.py."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from functools import lru_cache
from typing import Any, Final

from .base import Duty, NewDuty, ShardSlice, VersionConflict
from .core import StoreCore, write_meta
from .rows import DONE_LEAN, DUTY_COLUMNS, duty_from_row, metadata_rows, plain, to_json
from .sql import Conn

# (done_at, outcome, id, owner): a leased duty marked done, only while its lease is still the owner's.
FINISH: Final[str] = (
    f"UPDATE duties SET done_at = ?, outcome = ?, {DONE_LEAN}"
    " WHERE id = ? AND lease_owner = ? AND done_at IS NULL"
)


@lru_cache(maxsize=64)
def _claim_sql(template: str, where: str) -> str:
    return template.format(where=where) + f" RETURNING {DUTY_COLUMNS}"


class Outbox(StoreCore):
    """Duties: add, claim under a lease, renew, finish, retry, cancel, purge."""

    async def add_duties(
        self,
        game_id: int | None,
        duties: Sequence[NewDuty],
        now: float,
        *,
        cancel_keys: Collection[str] = (),
        meta: Mapping[str, Any] | None = None,
        at_version: int | None = None,
    ) -> list[Duty]:
        duty_rows = [(d, to_json(d.payload)) for d in duties]
        keys = list(cancel_keys)
        meta_rows = metadata_rows(meta or {})
        if game_id is None and (keys or meta_rows):
            raise ValueError("cancel_keys and meta need a game")

        async def body(conn: Conn) -> list[Duty]:
            guild_id = None
            if game_id is not None:
                game = await self._fetch_game(conn, game_id, lock=True)
                if at_version is not None and game.version != at_version:
                    raise VersionConflict(game_id, at_version, game.version)
                guild_id = game.guild_id
                await write_meta(conn, game_id, meta_rows, now)
            ids = await self._insert_duties(conn, game_id, guild_id, duty_rows, now, cancel=keys)
            if not ids:
                return []
            which, args = self.sql.any_of("id", ids)
            rows = await conn.fetch(f"SELECT {DUTY_COLUMNS} FROM duties WHERE {which} ORDER BY id", *args)
            return [duty_from_row(r) for r in rows]

        return await self._write(body)

    async def claim_duties(
        self, now: float, owner: str, lease_seconds: float, limit: int = 50, shards: ShardSlice | None = None
    ) -> list[Duty]:
        where, args = self._shard_filter(shards, "d.guild_id", 5)
        sql = _claim_sql(self.sql.claim, where)

        async def body(conn: Conn) -> list[Duty]:
            rows = await conn.fetch(sql, owner, now + lease_seconds, now, limit, *args)
            return sorted((duty_from_row(r) for r in rows), key=lambda d: (d.due_at, d.id))

        return await self._write(body)

    async def renew_duties(self, duty_ids: Sequence[int], owner: str, until: float) -> set[int]:
        if not duty_ids:
            return set()
        which, args = self.sql.any_of("id", duty_ids)
        sql = (
            f"UPDATE duties SET lease_until = {self.sql.greatest}(COALESCE(lease_until, 0), ?)"
            f" WHERE {which} AND lease_owner = ? AND done_at IS NULL RETURNING id"
        )

        async def body(conn: Conn) -> set[int]:
            return {int(r[0]) for r in await conn.fetch(sql, until, *args, owner)}

        return await self._write(body)

    async def finish_duty(self, duty_id: int, owner: str, now: float, outcome: str = "sent") -> bool:
        return await self._run(FINISH, now, plain(outcome), duty_id, owner) == 1

    async def retry_duty(self, duty_id: int, owner: str, not_before: float, error: str) -> bool:
        touched = await self._run(
            "UPDATE duties SET lease_owner = NULL, lease_until = NULL, not_before = ?, last_error = ?"
            " WHERE id = ? AND lease_owner = ? AND done_at IS NULL",
            not_before,
            plain(error),
            duty_id,
            owner,
        )
        return touched == 1

    async def pending_duties(
        self, game_id: int | None, *, kind: str | None = None, after: int | None = None
    ) -> list[Duty]:
        # Two forms, not "IS" (or "IS NOT DISTINCT FROM"), which PostgreSQL serves with no index.
        sql = f"SELECT {DUTY_COLUMNS} FROM duties WHERE done_at IS NULL AND game_id "
        sql += "IS NULL" if game_id is None else "= ?"
        args: list[Any] = [] if game_id is None else [game_id]
        if kind is not None:
            sql += " AND kind = ?"
            args.append(kind)
        if after is not None:
            sql += " AND id > ?"
            args.append(after)
        # A game's pending duties are a few, found by an index; those of no game may be many.
        read = self._read if game_id is None else self._glance
        return [duty_from_row(r) for r in await read(sql + " ORDER BY due_at, id", *args)]

    async def cancel_duties(self, game_id: int, keys: Collection[str] | None = None) -> int:
        key_list = None if keys is None else list(keys)

        async def body(conn: Conn) -> int:
            return await self._cancel_keys(conn, game_id, key_list)

        return await self._write(body)

    async def next_duty_at(self, shards: ShardSlice | None = None) -> float | None:
        where, args = self._shard_filter(shards, "d.guild_id", 1)
        rows = await self._read(
            f"SELECT MIN({self.sql.greatest}(d.due_at, COALESCE(d.not_before, d.due_at),"
            f" COALESCE(d.lease_until, d.due_at))) FROM duties d WHERE d.done_at IS NULL{where}"
            "  AND NOT EXISTS (SELECT 1 FROM duties e WHERE e.channel_id = d.channel_id"
            "   AND e.done_at IS NULL AND (e.due_at, e.id) < (d.due_at, d.id))",
            *args,
        )
        return None if not rows or rows[0][0] is None else float(rows[0][0])

    async def purge_done_duties(self, done_before: float) -> int:
        return await self._run("DELETE FROM duties WHERE done_at IS NOT NULL AND done_at < ?", done_before)
