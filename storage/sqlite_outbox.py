"""What the SQLite store's outbox does its own way (the rest is storage/ops_outbox.py): finishes written
together (a group commit), the lock on a name (a file lock), and no listening for other processes."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

try:
    import fcntl
except ImportError:  # Windows: exclusive() is then per process
    fcntl = None  # type: ignore[assignment]

from .base import ShardSlice, StoreError
from .ops_outbox import FINISH
from .rows import plain
from .sqlite_base import SqliteBase, Tx

# A finish_duty call waiting to be written: duty id, lease owner, time, outcome, and its caller's answer.
_Finish = tuple[int, str, float, str, asyncio.Future[bool]]


class SqliteOutbox(SqliteBase):
    """The group commit of `finish_duty`, `exclusive` and the listeners."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._finishing: list[_Finish] = []  # finish_duty calls waiting for the transaction before theirs
        self._finisher: asyncio.Future[None] | None = None

    async def finish_duty(self, duty_id: int, owner: str, now: float, outcome: str = "sent") -> bool:
        """Finishes made while the one before them is being written wait for it, and are written together, in
        one transaction (a group commit): a delivery round lands several sends at once, and one transaction
        each was 1.3 of the 3.2 write transactions an action made in bench_bot. Each duty is still
        checked and answered on its own."""
        if self._closed:
            raise StoreError("store is closed")
        done: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        done.add_done_callback(lambda f: f.cancelled() or f.exception())  # a cancelled caller's outcome
        self._finishing.append((duty_id, owner, now, plain(outcome), done))
        if self._finisher is None:
            self._finisher = asyncio.ensure_future(self._write_finishes())
            self._tasks.add(self._finisher)  # close() waits for it, and for the finishes queued behind it
            self._finisher.add_done_callback(self._tasks.discard)
        return await asyncio.shield(done)

    async def _write_finishes(self) -> None:
        try:
            while self._finishing:
                batch, self._finishing = self._finishing, []

                async def body(conn: Tx, batch: list[_Finish] = batch) -> list[bool]:
                    held: list[bool] = []
                    for duty_id, owner, now, outcome, _ in batch:
                        held.append(await conn.run(FINISH, now, outcome, duty_id, owner) == 1)
                    return held

                try:
                    held = await self._write(body, closing=True)
                except BaseException as error:  # each caller sees it, as if its own write had failed
                    failed = isinstance(error, Exception)  # else this task was cancelled (shutdown)
                    for *_, done in batch:
                        if done.done():
                            continue
                        if failed:
                            done.set_exception(error)
                        else:
                            done.cancel()
                    if not failed:
                        raise
                    continue
                for (*_, done), ok in zip(batch, held, strict=True):
                    if not done.done():
                        done.set_result(ok)
        finally:
            self._finisher = None
            for *_, done in self._finishing:  # left only if this task was cancelled
                done.cancel()
            self._finishing = []

    async def listen_for_duties(self, shards: ShardSlice | None, wake: Callable[[], None]) -> bool:
        """Nothing to hear: one bot process writes a SQLite file's duties, and its commits wake its worker
        (a one-off ``--sync`` or ``storage move`` writes none that are due)."""
        del shards, wake
        return False

    async def listen_for_changes(self, wake: Callable[[], None]) -> bool:
        """Nothing to hear: one bot process writes a SQLite file, and its own commits poke its web face."""
        del wake
        return False

    @contextlib.asynccontextmanager
    async def exclusive(self, name: str) -> AsyncIterator[bool]:
        """An exclusive lock on the file ``<database>.<name>.lock``, taken without waiting: the processes
        sharing this database file (a bot and a one-off ``--sync``) see each other's; the system drops it
        when the holder dies. (Without ``fcntl``, on Windows, or for an in-memory database: this process's
        holders only.)"""
        if self._closed:
            raise StoreError("store is closed")
        if name in self._held:
            yield False
            return
        handle = None
        if fcntl is not None and self.path != ":memory:":
            handle = open(f"{self.path}.{name}.lock", "a+b")  # noqa: SIM115 - held for the whole block
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                handle.close()
                yield False
                return
        self._held[name] = handle
        try:
            yield True
        finally:
            self._held.pop(name, None)
            if handle is not None:
                handle.close()  # closing the file releases the lock
