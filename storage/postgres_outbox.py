"""What the PostgreSQL store's outbox does its own way (the rest is storage/ops_outbox.py, the claim's
SKIP LOCKED in storage/sql.py): the wake-ups across processes (`listen_for_duties`, LISTEN/NOTIFY) and the
advisory lock on a name. SQLite's is storage/sqlite_outbox.py."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

import asyncpg

from .base import ShardSlice, StoreError
from .pg_migrations import DUTY_CHANNEL
from .postgres_base import PostgresBase

log = logging.getLogger(__name__)

# How often the listening connection is checked: a connection that died without the socket saying so (a
# network cut) is found within this, and the worker's poll covers the gap meanwhile.
_LISTEN_CHECK = 30.0
_LISTEN_RETRY_MAX = 30.0


class PostgresOutbox(PostgresBase):
    """Wake-ups across processes and `exclusive` locks."""

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
