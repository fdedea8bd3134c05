"""The outbox in the SQLite store: duties written with the state, leased to delivery workers, finished
or retried, purged when old; and the cross-process lock on a name. A mixin of `SqliteGameStore`;
PostgreSQL's is storage/postgres_outbox.py."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Collection, Mapping, Sequence
from typing import Any

try:
    import fcntl
except ImportError:  # Windows: exclusive() is then per process
    fcntl = None  # type: ignore[assignment]

from .base import (
    Duty,
    NewDuty,
    ShardSlice,
    StoreError,
    VersionConflict,
)
from .rows import (
    DONE_LEAN,
    DUTY_COLUMNS,
    duty_from_row,
    metadata_rows,
    plain,
    to_json,
)
from .sqlite_base import (
    SqliteBase,
    Tx,
    _shard_filter,
    _write_meta,
)

# A finish_duty call waiting to be written: duty id, lease owner, time, outcome, and its caller's answer.
_Finish = tuple[int, str, float, str, asyncio.Future[bool]]


class SqliteOutbox(SqliteBase):
    """Duties: add, claim under a lease, finish, retry, cancel, purge; `exclusive` locks."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._finishing: list[_Finish] = []  # finish_duty calls waiting for the transaction before theirs
        self._finisher: asyncio.Future[None] | None = None

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

        async def body(conn: Tx) -> list[Duty]:
            guild_id = None
            if game_id is not None:
                game = await self._fetch_game(conn, game_id)
                if at_version is not None and game.version != at_version:
                    raise VersionConflict(game_id, at_version, game.version)
                guild_id = game.guild_id
                await self._cancel_keys(conn, game_id, keys)
                await _write_meta(conn, game_id, meta_rows, now)
            ids = await self._insert_duties(conn, game_id, guild_id, duty_rows, now)
            if not ids:
                return []
            marks = ", ".join("?" * len(ids))
            rows = await conn.execute_fetchall(
                f"SELECT {DUTY_COLUMNS} FROM duties WHERE id IN ({marks}) ORDER BY id", ids
            )
            return [duty_from_row(r) for r in rows]

        return await self._write(body)

    async def claim_duties(
        self, now: float, owner: str, lease_seconds: float, limit: int = 50, shards: ShardSlice | None = None
    ) -> list[Duty]:
        """Lease up to `limit` due duties to `owner` until now + lease_seconds, earliest first.

        A channel's duties go out in order: a duty is handed out only when no earlier due duty of its channel
        (by due time, then id) is still undone, whether leased, backing off or waiting. A duty whose lease
        ran out (its worker died) is handed out again; `attempts` counts the hand-outs.
        """
        where, params = _shard_filter(shards, "d.guild_id")

        async def body(conn: Tx) -> list[Duty]:
            rows = await conn.execute_fetchall(
                f"UPDATE duties SET lease_owner = ?, lease_until = ?, attempts = attempts + 1"
                f" WHERE id IN (SELECT d.id FROM duties d"
                f"  WHERE d.done_at IS NULL AND d.due_at <= ?"
                f"   AND (d.not_before IS NULL OR d.not_before <= ?)"
                f"   AND (d.lease_until IS NULL OR d.lease_until <= ?){where}"
                f"   AND NOT EXISTS (SELECT 1 FROM duties e WHERE e.channel_id = d.channel_id"
                f"    AND e.done_at IS NULL AND e.due_at <= ? AND (e.due_at, e.id) < (d.due_at, d.id))"
                f"  ORDER BY d.due_at, d.id LIMIT ?)"
                f" RETURNING {DUTY_COLUMNS}",
                (owner, now + lease_seconds, now, now, now, *params, now, limit),
            )
            return sorted((duty_from_row(r) for r in rows), key=lambda d: (d.due_at, d.id))

        return await self._write(body)

    async def renew_duties(self, duty_ids: Sequence[int], owner: str, until: float) -> set[int]:
        """Extend `owner`'s leases of these undone duties to `until` (never shorter); the ids still held."""
        ids = list(duty_ids)
        if not ids:
            return set()
        marks = ", ".join("?" * len(ids))

        async def body(conn: Tx) -> set[int]:
            rows = await conn.execute_fetchall(
                "UPDATE duties SET lease_until = MAX(COALESCE(lease_until, 0), ?)"
                f" WHERE id IN ({marks}) AND lease_owner = ? AND done_at IS NULL RETURNING id",
                (until, *ids, owner),
            )
            return {int(r[0]) for r in rows}

        return await self._write(body)

    async def finish_duty(self, duty_id: int, owner: str, now: float, outcome: str = "sent") -> bool:
        """Mark a leased duty done. False (and nothing changed) when the lease is no longer `owner`'s.

        Finishes made while the one before them is being written wait for it, and are written together, in
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
                        cursor = await conn.execute(
                            f"UPDATE duties SET done_at = ?, outcome = ?, {DONE_LEAN}"
                            " WHERE id = ? AND lease_owner = ? AND done_at IS NULL",
                            (now, outcome, duty_id, owner),
                        )
                        held.append(cursor.rowcount == 1)
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

    async def retry_duty(self, duty_id: int, owner: str, not_before: float, error: str) -> bool:
        """Give a leased duty back, to be tried again from `not_before`; False when the lease was lost."""

        async def body(conn: Tx) -> bool:
            cursor = await conn.execute(
                "UPDATE duties SET lease_owner = NULL, lease_until = NULL, not_before = ?, last_error = ?"
                " WHERE id = ? AND lease_owner = ? AND done_at IS NULL",
                (not_before, plain(error), duty_id, owner),
            )
            return cursor.rowcount == 1

        return await self._write(body)

    async def pending_duties(
        self, game_id: int | None, *, kind: str | None = None, after: int | None = None
    ) -> list[Duty]:
        """Undone duties of a game (None: of no game), in delivery order (of ``kind``, after ``after``)."""
        # A game's pending duties are a few, found by an index; those of no game may be many.
        read = self._read if game_id is None else self._glance
        rows = await read(
            f"SELECT {DUTY_COLUMNS} FROM duties WHERE game_id IS ? AND done_at IS NULL"
            " AND (? IS NULL OR kind = ?) AND (? IS NULL OR id > ?) ORDER BY due_at, id",
            (game_id, kind, kind, after, after),
        )
        return [duty_from_row(r) for r in rows]

    async def cancel_duties(self, game_id: int, keys: Collection[str] | None = None) -> int:
        """Delete a game's pending duties with these keys (None: all of them). Returns how many."""
        key_list = None if keys is None else list(keys)

        async def body(conn: Tx) -> int:
            return await self._cancel_keys(conn, game_id, key_list)

        return await self._write(body)

    async def next_duty_at(self, shards: ShardSlice | None = None) -> float | None:
        """When a duty can next be handed out: the earliest ready time (due, back-off and lease over) of the
        first undone duty of each channel (each DM on its own), for a worker to sleep until."""
        where, params = _shard_filter(shards, "d.guild_id")
        rows = await self._read(
            "SELECT MIN(MAX(d.due_at, COALESCE(d.not_before, d.due_at), COALESCE(d.lease_until, d.due_at)))"
            f" FROM duties d WHERE d.done_at IS NULL{where}"
            "  AND NOT EXISTS (SELECT 1 FROM duties e WHERE e.channel_id = d.channel_id"
            "   AND e.done_at IS NULL AND (e.due_at, e.id) < (d.due_at, d.id))",
            params,
        )
        return None if not rows or rows[0][0] is None else float(rows[0][0])

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

    async def purge_done_duties(self, done_before: float) -> int:
        """Delete duties done before `done_before` (housekeeping). Undone ones are never touched."""

        async def body(conn: Tx) -> int:
            cursor = await conn.execute(
                "DELETE FROM duties WHERE done_at IS NOT NULL AND done_at < ?", (done_before,)
            )
            return int(cursor.rowcount)

        return await self._write(body)
