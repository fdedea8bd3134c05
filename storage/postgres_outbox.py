"""The outbox in the PostgreSQL store: duties written with the state, leased to delivery workers (SKIP
LOCKED, so workers of several processes never wait on each other), finished or retried, purged when old;
the advisory lock on a name; and the wake-ups across processes (`listen_for_duties`). A mixin of
`PostgresGameStore`; SQLite's is storage/sqlite_outbox.py."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
from collections.abc import AsyncIterator, Callable, Collection, Mapping, Sequence
from typing import Any

import asyncpg

from .base import (
    Duty,
    NewDuty,
    ShardSlice,
    StoreError,
    VersionConflict,
)
from .pg_migrations import DUTY_CHANNEL
from .postgres_base import (
    PostgresBase,
    _Conn,
    _count,
    _Params,
    _shard_filter,
    _write_meta,
)
from .rows import (
    DONE_LEAN,
    DUTY_COLUMNS,
    duty_from_row,
    metadata_rows,
    plain,
    to_json,
)

log = logging.getLogger(__name__)

# How often the listening connection is checked: a connection that died without the socket saying so (a
# network cut) is found within this, and the worker's poll covers the gap meanwhile.
_LISTEN_CHECK = 30.0
_LISTEN_RETRY_MAX = 30.0


class PostgresOutbox(PostgresBase):
    """Duties: add, claim under a lease, finish, retry, cancel, purge; `exclusive` locks; wake-ups."""

    async def listen_for_duties(self, shards: ShardSlice | None, wake: Callable[[], None]) -> bool:
        """Call `wake()` whenever another process commits a duty for a guild on `shards` (None: any), and
        each time listening (re)starts, for what was committed while nobody listened. Listens on a
        connection of its own, outside the pool, connected again after a loss (waiting 1, 2, 4 ... 30 s).
        A second call replaces the first. True: this backend hears other processes."""
        if self._closed:
            raise StoreError("store is closed")
        if self._listener is not None:
            self._listener.cancel()
        self._listener = asyncio.get_running_loop().create_task(
            self._listen(shards, wake), name="store-listen-duties"
        )
        return True

    async def listen_for_changes(self, wake: Callable[[], None]) -> bool:
        """Call ``wake()`` whenever any process commits a duty (every change to a game writes one), and each
        time listening (re)starts: the web face's live pages (bot.web.live). On a connection of its own, as
        ``listen_for_duties``; a second call replaces the first. True: this backend hears other processes."""
        if self._closed:
            raise StoreError("store is closed")
        if self._change_listener is not None:
            self._change_listener.cancel()
        self._change_listener = asyncio.get_running_loop().create_task(
            self._listen(None, wake, own=True), name="store-listen-changes"
        )
        return True

    async def _listen(self, shards: ShardSlice | None, wake: Callable[[], None], own: bool = False) -> None:
        def heard(_conn: object, _pid: int, _channel: str, payload: object) -> None:
            guild, _, writer = str(payload).partition(" ")
            if writer == self.writer and self.writer and not own:
                return  # this process wakes its own worker when it commits
            try:
                guild_id = int(guild) if guild else None
            except ValueError:  # not a payload of ours: a needless claim costs less than a missed duty
                wake()
                return
            if shards is None or shards.owns(guild_id):
                wake()

        pause = 1.0
        while not self._closed:
            conn: asyncpg.Connection[Any] | None = None
            try:
                conn = await asyncpg.connect(self.url)
                lost = asyncio.Event()
                conn.add_termination_listener(lambda _c, lost=lost: lost.set())
                await conn.add_listener(DUTY_CHANNEL, heard)
                pause = 1.0
                wake()  # whatever was committed while nobody listened
                while not lost.is_set() and not self._closed:
                    try:
                        await asyncio.wait_for(lost.wait(), _LISTEN_CHECK)
                    except TimeoutError:
                        await asyncio.wait_for(conn.execute("SELECT 1"), _LISTEN_CHECK)
                log.warning("lost the connection that listens for duties; connecting again")
            except Exception:  # the worker polls meanwhile; listening must outlive any one failure
                log.warning("cannot listen for duties; again in %.0f s", pause, exc_info=True)
                await asyncio.sleep(pause)
                pause = min(pause * 2, _LISTEN_RETRY_MAX)
            finally:
                if conn is not None:
                    conn.terminate()

    async def close(self) -> None:
        try:
            await super().close()
        finally:
            for listener in (self._listener, self._change_listener):
                if listener is not None:
                    listener.cancel()
                    await asyncio.gather(listener, return_exceptions=True)
            self._listener = self._change_listener = None

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
        """Write duties (and cancel keyed ones, and merge meta) in one transaction, outside an action; with
        ``at_version``, only while the game is still at that version."""
        duty_rows = [(d, to_json(d.payload)) for d in duties]
        keys = list(cancel_keys)
        meta_rows = metadata_rows(meta or {})
        if game_id is None and (keys or meta_rows):
            raise ValueError("cancel_keys and meta need a game")

        async def body(conn: _Conn) -> list[Duty]:
            guild_id = None
            if game_id is not None:
                game = await self._fetch_game(conn, game_id, lock=True)
                if at_version is not None and game.version != at_version:
                    raise VersionConflict(game_id, at_version, game.version)
                guild_id = game.guild_id
                await _write_meta(conn, game_id, meta_rows, now)
            ids = await self._insert_duties(conn, game_id, guild_id, duty_rows, now, cancel=keys)
            if not ids:
                return []
            rows = await conn.fetch(
                f"SELECT {DUTY_COLUMNS} FROM duties WHERE id = ANY($1::bigint[]) ORDER BY id", ids
            )
            return [duty_from_row(r) for r in rows]

        return await self._write(body)

    async def claim_duties(
        self, now: float, owner: str, lease_seconds: float, limit: int = 50, shards: ShardSlice | None = None
    ) -> list[Duty]:
        """Lease up to `limit` due duties to `owner` until now + lease_seconds, earliest first.

        A channel's duties go out in order: a duty is handed out only when no earlier due duty of its
        channel is still undone (leased, backing off or waiting). FOR UPDATE SKIP LOCKED lets claimers in
        other processes pass over the rows this one is taking instead of waiting for them; a duty whose
        lease ran out (its worker died) is handed out again, and `attempts` counts the hand-outs.
        """
        p = _Params(owner, now + lease_seconds, now)
        where = _shard_filter(shards, p, "d.guild_id")
        sql = (
            "UPDATE duties SET lease_owner = $1, lease_until = $2, attempts = attempts + 1"
            " WHERE id IN (SELECT d.id FROM duties d"
            "  WHERE d.done_at IS NULL AND d.due_at <= $3"
            "   AND (d.not_before IS NULL OR d.not_before <= $3)"
            f"   AND (d.lease_until IS NULL OR d.lease_until <= $3){where}"
            # An earlier duty of the channel is due too (it is before d, and d is due), so the check needs no
            # `e.due_at <= now`: without it, duties_channel is the only index that fits, and the planner
            # never picks duties_due for it, which made claims quadratic on a table not yet analyzed.
            "   AND NOT EXISTS (SELECT 1 FROM duties e WHERE e.channel_id = d.channel_id"
            "    AND e.done_at IS NULL AND (e.due_at, e.id) < (d.due_at, d.id))"
            f"  ORDER BY d.due_at, d.id LIMIT {p(limit)} FOR UPDATE SKIP LOCKED)"
            f" RETURNING {DUTY_COLUMNS}"
        )

        async def body(conn: _Conn) -> list[Duty]:
            rows = await conn.fetch(sql, *p.values)
            return sorted((duty_from_row(r) for r in rows), key=lambda d: (d.due_at, d.id))

        return await self._write(body)

    async def renew_duties(self, duty_ids: Sequence[int], owner: str, until: float) -> set[int]:
        """Extend `owner`'s leases of these undone duties to `until` (never shorter); the ids still held."""
        ids = list(duty_ids)
        if not ids:
            return set()

        async def body(conn: _Conn) -> set[int]:
            rows = await conn.fetch(
                "UPDATE duties SET lease_until = GREATEST(lease_until, $1)"
                " WHERE id = ANY($2::bigint[]) AND lease_owner = $3 AND done_at IS NULL RETURNING id",
                until,
                ids,
                owner,
            )
            return {int(r["id"]) for r in rows}

        return await self._write(body)

    async def finish_duty(self, duty_id: int, owner: str, now: float, outcome: str = "sent") -> bool:
        """Mark a leased duty done. False (and nothing changed) when the lease is no longer `owner`'s."""

        async def body(conn: _Conn) -> bool:
            status = await conn.execute(
                f"UPDATE duties SET done_at = $1, outcome = $2, {DONE_LEAN}"
                " WHERE id = $3 AND lease_owner = $4 AND done_at IS NULL",
                now,
                plain(outcome),
                duty_id,
                owner,
            )
            return _count(status) == 1

        return await self._write(body)

    async def retry_duty(self, duty_id: int, owner: str, not_before: float, error: str) -> bool:
        """Give a leased duty back, to be tried again from `not_before`; False when the lease was lost."""

        async def body(conn: _Conn) -> bool:
            status = await conn.execute(
                "UPDATE duties SET lease_owner = NULL, lease_until = NULL, not_before = $1, last_error = $2"
                " WHERE id = $3 AND lease_owner = $4 AND done_at IS NULL",
                not_before,
                plain(error),
                duty_id,
                owner,
            )
            return _count(status) == 1

        return await self._write(body)

    async def pending_duties(
        self, game_id: int | None, *, kind: str | None = None, after: int | None = None
    ) -> list[Duty]:
        """Undone duties of a game (None: of no game), in delivery order (of ``kind``, after ``after``)."""
        # Two forms, not "IS NOT DISTINCT FROM", which no index serves.
        which = "game_id IS NULL AND $1::bigint IS NULL" if game_id is None else "game_id = $1"
        rows = await self._read(
            f"SELECT {DUTY_COLUMNS} FROM duties WHERE {which} AND done_at IS NULL"
            " AND ($2::text IS NULL OR kind = $2) AND ($3::bigint IS NULL OR id > $3) ORDER BY due_at, id",
            game_id,
            kind,
            after,
        )
        return [duty_from_row(r) for r in rows]

    async def cancel_duties(self, game_id: int, keys: Collection[str] | None = None) -> int:
        """Delete a game's pending duties with these keys (None: all of them). Returns how many."""
        key_list = None if keys is None else list(keys)

        async def body(conn: _Conn) -> int:
            return await self._cancel_keys(conn, game_id, key_list)

        return await self._write(body)

    async def next_duty_at(self, shards: ShardSlice | None = None) -> float | None:
        """When a duty can next be handed out: the earliest ready time (due, back-off and lease over) of the
        first undone duty of each channel (each DM on its own), for a worker to sleep until."""
        p = _Params()
        where = _shard_filter(shards, p, "d.guild_id")
        rows = await self._read(
            "SELECT MIN(GREATEST(d.due_at, COALESCE(d.not_before, d.due_at),"
            " COALESCE(d.lease_until, d.due_at)))"
            f" FROM duties d WHERE d.done_at IS NULL{where}"
            "  AND NOT EXISTS (SELECT 1 FROM duties e WHERE e.channel_id = d.channel_id"
            "   AND e.done_at IS NULL AND (e.due_at, e.id) < (d.due_at, d.id))",
            *p.values,
        )
        return None if not rows or rows[0][0] is None else float(rows[0][0])

    @contextlib.asynccontextmanager
    async def exclusive(self, name: str) -> AsyncIterator[bool]:
        """A session advisory lock held on one pooled connection for the block: PostgreSQL releases it
        when the block ends, or when the connection drops (the holder died). Never waits."""
        if self._closed:
            raise StoreError("store is closed")
        key = int.from_bytes(hashlib.sha256(f"alexandros:{name}".encode()).digest()[:8], "big", signed=True)
        conn = await self._pool.acquire()
        try:
            mine = bool(await conn.fetchval("SELECT pg_try_advisory_lock($1)", key))
            if mine:
                self._holding.add(conn)
            try:
                yield mine
            finally:
                if mine and not self._closed:  # closed: the connection, and with it the lock, is gone
                    await conn.execute("SELECT pg_advisory_unlock($1)", key)
        finally:
            self._holding.discard(conn)
            if not self._closed:
                await self._pool.release(conn)

    async def purge_done_duties(self, done_before: float) -> int:
        """Delete duties done before `done_before` (housekeeping). Undone ones are never touched."""

        async def body(conn: _Conn) -> int:
            return _count(
                await conn.execute(
                    "DELETE FROM duties WHERE done_at IS NOT NULL AND done_at < $1", done_before
                )
            )

        return await self._write(body)
