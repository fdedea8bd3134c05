"""SQLite-specific tests: migrations, pragmas, the schema's own guards, backup, cancellation."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from store_backends import OLD_LEAN_ROWS, packed_list, reads_after_lean_migration

from storage import LATEST_VERSION, GameNotFound, NewDuty, SchemaTooNew, VersionConflict, open_store
from storage import migrations as migrations_module
from storage.migrations import MIGRATIONS, migrate, schema_version
from storage.sqlite import Tx, connect

T0 = 1_700_000_000.0


def tables(path: Path) -> set[str]:
    with sqlite3.connect(path) as conn:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def user_version(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute("PRAGMA user_version").fetchone()[0])
    finally:
        conn.close()


async def make_v1_database(path: Path) -> None:
    """A database exactly as the first release left it, with a game in play written by raw SQL."""
    conn = await connect(path)
    try:
        assert await migrate(conn, target=1) == 1
        for sql, params in [
            (
                "INSERT INTO games (id, guild_id, channel_id, status, options, version, created_by,"
                " created_at, updated_at, waiting_on, turn_started_at)"
                " VALUES (7, 1, 2, 'playing', '{\"map\":\"default\"}', 2, 10, ?, ?, 11, ?)",
                (T0, T0 + 2, T0 + 2),
            ),
            ("INSERT INTO seats VALUES (7, 0, 10)", ()),
            ("INSERT INTO seats VALUES (7, 1, 11)", ()),
            ("INSERT INTO events VALUES (7, 1, '{\"n\":1}', ?)", (T0 + 1,)),
            ("INSERT INTO events VALUES (7, 2, '{\"n\":2}', ?)", (T0 + 2,)),
            ('INSERT INTO snapshots VALUES (7, 2, \'{"sum":3,"count":2}\')', ()),
            ('INSERT INTO user_settings VALUES (10, \'{"tz":"UTC"}\', ?)', (T0,)),
        ]:
            await conn.execute(sql, params)
    finally:
        await conn.close()


async def test_there_is_more_than_one_migration() -> None:
    assert LATEST_VERSION == len(MIGRATIONS) >= 2


async def test_fresh_database_gets_the_latest_schema_and_pragmas(tmp_path: Path) -> None:
    path = tmp_path / "fresh.db"
    store = await open_store(path)
    try:
        assert user_version(path) == LATEST_VERSION
        assert {"games", "seats", "events", "snapshots", "user_settings", "duties"} <= tables(path)
        assert "notices" not in tables(path), "V4 turned notices into duties"
        for conn in (store._writer, store._reader):
            assert list(await conn.execute_fetchall("PRAGMA journal_mode")) == [("wal",)]
            assert list(await conn.execute_fetchall("PRAGMA foreign_keys")) == [(1,)]
            assert list(await conn.execute_fetchall("PRAGMA synchronous")) == [(1,)]  # NORMAL
            assert list(await conn.execute_fetchall("PRAGMA busy_timeout")) == [(5000,)]
            assert conn.isolation_level is None
    finally:
        await store.close()


async def test_a_first_schema_database_is_upgraded_on_open_with_its_data_intact(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    await make_v1_database(path)
    assert user_version(path) == 1
    assert "notices" not in tables(path)

    store = await open_store(path)
    try:
        assert user_version(path) == LATEST_VERSION
        game = await store.game_by_id(7)
        assert game is not None
        assert (game.status, game.version, game.options, game.seats) == (
            "playing",
            2,
            {"map": "default"},
            ((0, 10), (1, 11)),
        )
        assert (game.waiting_on, game.turn_started_at) == (11, T0 + 2)
        assert await store.game_by_channel(2) == game
        assert await store.games_waiting_on(11) == [game]
        assert await store.events(7) == [(1, {"n": 1}), (2, {"n": 2})]
        assert await store.load_snapshot(7) == (2, {"sum": 3, "count": 2})
        assert await store.get_user_settings(10) == {"tz": "UTC"}
        # The new table works, and the old game goes on.
        [duty] = await store.add_duties(7, [NewDuty("remind", T0 + 50, 2, 11, key="remind")], T0)
        assert await store.claim_duties(T0 + 60, "w", 30.0) == [
            dataclasses.replace(duty, attempts=1, lease_owner="w", lease_until=T0 + 90)
        ]
        after = await store.append(7, 2, [{"n": 3}], {"sum": 6, "count": 3}, T0 + 3, cancel_keys={"remind"})
        assert after.version == 3
        assert await store.pending_duties(7) == []
        assert await store.integrity_check()
    finally:
        await store.close()
    again = await open_store(path)
    try:
        assert user_version(path) == LATEST_VERSION
        assert (await again.events(7))[-1] == (3, {"n": 3})
    finally:
        await again.close()


async def test_a_failing_migration_leaves_neither_ddl_nor_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "old.db"
    await make_v1_database(path)
    broken = (*MIGRATIONS[1], "CREATE TABLE oops (")
    monkeypatch.setattr(migrations_module, "MIGRATIONS", (MIGRATIONS[0], broken))
    conn = await connect(path)
    try:
        with pytest.raises(sqlite3.OperationalError):
            await migrate(conn, target=2)
        assert not conn.in_transaction
        assert await schema_version(conn) == 1
    finally:
        await conn.close()
    assert "notices" not in tables(path)
    monkeypatch.undo()
    store = await open_store(path)
    try:
        assert user_version(path) == LATEST_VERSION
        assert await store.integrity_check()
    finally:
        await store.close()


async def test_a_database_from_a_newer_program_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    await (await open_store(path)).close()
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {LATEST_VERSION + 1}")
    conn.close()
    with pytest.raises(SchemaTooNew):
        await open_store(path)


async def test_memory_databases_are_refused() -> None:
    with pytest.raises(ValueError):
        await open_store(":memory:")


async def test_the_schema_itself_allows_one_unfinished_game_per_channel(tmp_path: Path) -> None:
    path = tmp_path / "g.db"
    store = await open_store(path)
    await store.close()
    conn = sqlite3.connect(path)
    insert = (
        "INSERT INTO games (channel_id, status, created_by, created_at, updated_at) VALUES (5, ?, 1, 0, 0)"
    )
    try:
        conn.execute(insert, ("finished",))
        conn.execute(insert, ("finished",))
        conn.execute(insert, ("lobby",))
        with pytest.raises(sqlite3.IntegrityError):
            conn.execute(insert, ("playing",))
        with pytest.raises(sqlite3.IntegrityError):
            conn.execute(insert, ("lobby",))
    finally:
        conn.close()


async def test_backup_under_writes_is_a_complete_standalone_copy(tmp_path: Path) -> None:
    store = await open_store(tmp_path / "live.db")
    try:
        games = [await store.create_game(1, c, 1, {}, T0, snapshot={"pad": "x" * 4000}) for c in range(40)]
        stop = asyncio.Event()

        async def writer() -> None:
            i = 0
            while not stop.is_set():
                g = games[i % len(games)]
                version, _ = await store.load_snapshot(g.id) or (0, {})
                await store.append(g.id, version, [{"n": i}], {"pad": "y" * 4000, "i": i}, T0 + i)
                i += 1

        task = asyncio.create_task(writer())
        await asyncio.sleep(0.05)
        dest = tmp_path / "backup.db"
        await store.backup(dest)
        await store.backup(dest)  # overwrites an older backup in place
        stop.set()
        await task
    finally:
        await store.close()
    assert not (tmp_path / "backup.db-wal").exists()
    assert not (tmp_path / "backup.db.partial").exists()
    copy = await open_store(dest)
    try:
        assert await copy.integrity_check()
        assert len(await copy.list_games()) == 40
        assert any(g.version > 0 for g in await copy.list_games())
    finally:
        await copy.close()


async def test_a_cancelled_caller_leaves_a_whole_transaction_and_a_usable_store(tmp_path: Path) -> None:
    store = await open_store(tmp_path / "c.db")
    try:
        game = await store.create_game(1, 1, 1, {}, T0, snapshot={"count": 0})
        outcomes = []
        for i in range(30):
            version, _ = await store.load_snapshot(game.id) or (0, {})
            task = asyncio.create_task(
                store.append(game.id, version, [{"n": 1}, {"n": 2}], {"count": version + 2}, T0 + i)
            )
            # Cancel at varying points: before, during and after the transaction's steps.
            for _ in range(i % 6):
                await asyncio.sleep(0)
            task.cancel()
            try:
                await task
                outcomes.append("done")
            except asyncio.CancelledError:
                outcomes.append("cancelled")
            except VersionConflict:
                # The cancelled caller before this one returned at once, but its transaction ran on behind
                # the shield and may have committed after this loop read the version: the store rightly
                # refuses the stale one.
                outcomes.append("stale")
        # Every append that started runs to completion behind the shield: versions stay whole.
        await asyncio.sleep(0.05)
        final = await store.game_by_id(game.id)
        assert final is not None and final.version % 2 == 0
        assert await store.load_snapshot(game.id) == (final.version, {"count": final.version})
        assert len(await store.events(game.id)) == final.version
        assert await store.integrity_check()
        assert "cancelled" in outcomes
        after = await store.append(game.id, final.version, [{"n": 1}], {"count": final.version + 1}, T0 + 99)
        assert after.version == final.version + 1
    finally:
        await store.close()


async def test_integrity_check_reports_broken_invariants(tmp_path: Path) -> None:
    path = tmp_path / "broken.db"
    store = await open_store(path)
    try:
        game = await store.create_game(1, 1, 1, {}, T0, snapshot={"c": 0})
        for v in range(3):
            game = await store.append(game.id, v, [{"n": v + 1}], {"c": v + 1}, T0)
        assert await store.integrity_check()
        conn = sqlite3.connect(path)
        conn.execute("DELETE FROM events WHERE game_id = ? AND version = 2", (game.id,))
        conn.execute("UPDATE snapshots SET version = 2 WHERE game_id = ?", (game.id,))
        conn.commit()
        conn.close()
        report = await store.integrity_check()
        assert not report
        text = str(report)
        assert f"game {game.id}: version 3 but 2 events up to 3" in text
        assert f"game {game.id}: version 3 but snapshot at 2" in text
    finally:
        await store.close()


async def test_a_failed_transaction_rolls_back_and_the_store_goes_on(tmp_path: Path) -> None:
    store = await open_store(tmp_path / "f.db")
    try:
        game = await store.create_game(1, 1, 1, {}, T0)

        async def half_then_fail(conn: Tx) -> None:
            await conn.run("UPDATE games SET version = 99 WHERE id = ?", game.id)
            await conn.run("INSERT INTO no_such_table VALUES (1)")

        with pytest.raises(sqlite3.OperationalError):
            await store._write(half_then_fail)
        assert not store._writer.in_transaction
        assert await store.game_by_id(game.id) == game
        with pytest.raises(GameNotFound):
            await store.add_duties(12345, [NewDuty("remind", T0)], T0)
        after = await store.append(game.id, 0, [{"n": 1}], {"c": 1}, T0 + 1)
        assert after.version == 1
    finally:
        await store.close()


async def test_the_integrity_check_finds_a_game_whose_snapshot_is_gone(tmp_path: Path) -> None:
    """As PostgreSQL's does: a game with events and no snapshot cannot be loaded."""
    path = tmp_path / "g.db"
    store = await open_store(path)
    try:
        game = await store.create_game(1, 2, 3, {}, 10.0)
        await store.append(game.id, 0, [{"n": 1}], {"n": 1}, 11.0)
    finally:
        await store.close()
    with sqlite3.connect(path) as conn:
        conn.execute("DELETE FROM snapshots WHERE game_id = ?", (game.id,))
    store = await open_store(path)
    try:
        report = await store.integrity_check()
        assert not report and f"game {game.id}: has events but no snapshot" in str(report)
    finally:
        await store.close()


@contextlib.contextmanager
def writer_trips(store: Any) -> Iterator[list[int]]:
    """Counts the calls queued to the writer's thread meanwhile (each write transaction is one): the
    list's one item, when the block ends."""
    queue = store._writer._tx  # what the writer's thread takes its calls from
    counted = [0]

    class Counted:
        def put_nowait(self, item: object) -> None:
            counted[0] += 1
            queue.put_nowait(item)

    store._writer._tx = Counted()
    try:
        yield counted
    finally:
        store._writer._tx = queue


async def test_a_write_transaction_is_one_trip_to_the_writers_thread(tmp_path: Path) -> None:
    """BEGIN, the body's statements and COMMIT run in the writer's thread as one function: an action's
    append made about ten trips to the thread and back (each about 35 us of the event loop's CPU)."""
    store = await open_store(tmp_path / "t.db")
    try:
        game = await store.create_game(1, 5, 1, {}, T0, snapshot={"count": 0})
        duties = [NewDuty("post", T0, 5, payload={"n": 1}), NewDuty("remind", T0 + 60, 5, key="remind")]
        events = [{"n": 1}, {"n": 2}]
        with writer_trips(store) as trips:
            after = await store.append(game.id, 0, events, {"count": 2}, T0, duties=duties, meta={"a": 1})
        assert trips == [1]
        assert after.version == 2 and len(await store.pending_duties(game.id)) == 2
        assert await store.get_game_meta(game.id) == {"a": 1}
    finally:
        await store.close()


async def test_write_transactions_queue_in_the_writers_thread_without_waiting_for_the_event_loop(
    tmp_path: Path,
) -> None:
    """Writes made at once go to the writer's thread at once and run there back to back: none waits for
    the event loop to have seen the one before it end (under load a busy loop held every write back by a
    turn of its own, and the writer sat idle between them)."""
    import time

    path = tmp_path / "q.db"
    store = await open_store(path)
    try:
        games = [await store.create_game(1, 10 + i, 1, {}, T0) for i in range(8)]
        writes = [asyncio.ensure_future(store.set_game_meta(g.id, {"n": 1}, T0)) for g in games]
        await asyncio.sleep(0)  # each write starts, up to its first wait
        await asyncio.sleep(0)
        time.sleep(0.5)  # the event loop is busy: it sees no write end meanwhile
        with sqlite3.connect(path) as conn:
            done = conn.execute("SELECT COUNT(*) FROM game_meta WHERE key = 'n'").fetchone()[0]
        assert done == len(games), f"{done} of {len(games)} writes ran while the loop was busy"
        await asyncio.gather(*writes)
    finally:
        await store.close()


async def test_a_transaction_body_awaiting_anything_else_is_refused_and_rolled_back(tmp_path: Path) -> None:
    """A body runs to its end in one step in the writer's thread; one that awaits something other than
    its connection (it would suspend there) is a programming error: nothing of it is written."""
    store = await open_store(tmp_path / "r.db")
    try:
        game = await store.create_game(1, 1, 1, {}, T0)

        async def waits(conn: Tx) -> None:
            await conn.run("UPDATE games SET version = 99 WHERE id = ?", game.id)
            await asyncio.sleep(0)

        with pytest.raises(RuntimeError, match="awaited something other than its connection"):
            await store._write(waits)
        assert await store.game_by_id(game.id) == game
        assert not store._writer.in_transaction
    finally:
        await store.close()


async def test_point_reads_run_on_the_event_loop_without_a_trip_to_the_readers_thread(tmp_path: Path) -> None:
    """A game by id or channel, its snapshot, metadata and pending duties, and a user's settings are read
    at once on the loop's own connection (about 6 us) instead of in the reader's thread (about 90 us), and
    see what a write just committed. Larger reads (a game's events) still go to the reader's thread."""
    store = await open_store(tmp_path / "g.db")
    trips: list[str] = []
    real = store._reader.execute_fetchall

    async def counted(sql: str, params: Any = ()) -> Any:
        trips.append(sql)
        return await real(sql, params)

    try:
        game = await store.create_game(1, 5, 1, {}, T0, snapshot={"count": 0})
        setattr(store._reader, "execute_fetchall", counted)  # noqa: B010 - a method, replaced for the count
        after = await store.append(
            game.id, 0, [{"n": 1}], {"count": 1}, T0, duties=[NewDuty("post", T0, 5)], meta={"a": 1}
        )
        assert await store.game_by_id(game.id) == after
        assert await store.game_by_channel(5) == after
        assert await store.latest_game_in_channel(5) == after
        assert await store.load_snapshot(game.id) == (1, {"count": 1})
        assert await store.get_game_meta(game.id) == {"a": 1}
        assert [d.kind for d in await store.pending_duties(game.id)] == ["post"]
        assert await store.get_user_settings(1) == {}
        assert trips == []
        assert len(await store.events(game.id)) == 1
        assert len(trips) == 1
    finally:
        await store.close()


async def test_a_busy_point_read_goes_to_the_readers_thread_and_other_errors_are_raised(
    tmp_path: Path,
) -> None:
    """SQLite may answer a WAL read "locked" or "busy" (a WAL being recovered, another process's exclusive
    moment): the loop's connection never waits for a lock, so the read is made by the reader's thread, which
    waits with the busy timeout. Any other error is the caller's to see."""
    store = await open_store(tmp_path / "b.db")
    real = store._glance_conn
    assert real is not None

    class Failing:
        def __init__(self, message: str) -> None:
            self.message, self.calls = message, 0

        def execute(self, sql: str, params: Any = ()) -> Any:
            self.calls += 1
            raise sqlite3.OperationalError(self.message)

    try:
        game = await store.create_game(1, 5, 1, {}, T0, snapshot={"count": 0})
        for message in ("database is locked", "database is busy"):
            failing = Failing(message)
            store._glance_conn = failing  # type: ignore[assignment]
            assert await store.game_by_id(game.id) == game
            assert failing.calls == 1
        store._glance_conn = Failing("no such table: games")  # type: ignore[assignment]
        with pytest.raises(sqlite3.OperationalError, match="no such table"):
            await store.game_by_id(game.id)
    finally:
        store._glance_conn = real
        await store.close()


async def test_a_point_read_from_another_thread_goes_to_the_readers_thread(tmp_path: Path) -> None:
    """The loop's connection belongs to the thread that opened the store: a store used from another thread
    (another event loop) reads through the reader's thread, never on that connection."""
    store = await open_store(tmp_path / "o.db")
    real = store._glance_conn

    class Untouchable:
        def execute(self, sql: str, params: Any = ()) -> Any:
            raise AssertionError("read on the loop's connection from another thread")

    try:
        game = await store.create_game(1, 5, 1, {}, T0)
        store._glance_thread = -1  # as if this thread were not the one that opened the store
        store._glance_conn = Untouchable()  # type: ignore[assignment]
        assert await store.game_by_id(game.id) == game
    finally:
        store._glance_conn = real
        await store.close()


async def test_finishes_made_together_are_written_in_one_transaction_each_answered_on_its_own(
    tmp_path: Path,
) -> None:
    """A delivery round lands several sends at once: finishes made together (or while the write before
    them runs) go in one transaction, a group commit. Each is still checked against its own lease."""
    store = await open_store(tmp_path / "f.db")
    try:
        await store.add_duties(None, [NewDuty("post", T0, 100 + i) for i in range(6)], T0)
        claimed = await store.claim_duties(T0, "me", 60)
        assert len(claimed) == 6
        owners = ["me", "me", "someone else", "me", "me", "me"]
        with writer_trips(store) as trips:
            answers = await asyncio.gather(
                *(store.finish_duty(d.id, who, T0 + 1) for d, who in zip(claimed, owners, strict=True))
            )
        assert answers == [True, True, False, True, True, True]
        assert trips == [1], "six finishes, one transaction"
        assert [d.id for d in await store.pending_duties(None)] == [claimed[2].id]
        assert await store.finish_duty(claimed[2].id, "me", T0 + 2) is True
        assert await store.pending_duties(None) == []
    finally:
        await store.close()


async def test_close_writes_the_finishes_queued_before_it(tmp_path: Path) -> None:
    """Finishes made while the transaction before them runs wait for it; a close that comes meanwhile
    still writes them (the delivery worker's last finishes are not lost to a shutdown)."""
    path = tmp_path / "c.db"
    store = await open_store(path)
    await store.add_duties(None, [NewDuty("post", T0, 100 + i) for i in range(8)], T0)
    claimed = await store.claim_duties(T0, "me", 60)
    first = [asyncio.ensure_future(store.finish_duty(d.id, "me", T0 + 1)) for d in claimed[:5]]
    await asyncio.sleep(0)
    await asyncio.sleep(0)  # the five are in one transaction, under way in the writer's thread
    second = [asyncio.ensure_future(store.finish_duty(d.id, "me", T0 + 1)) for d in claimed[5:]]
    await asyncio.sleep(0)  # the three are queued behind it
    await store.close()
    assert [f.result() for f in first + second] == [True] * 8
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT COUNT(*) FROM duties WHERE done_at IS NOT NULL").fetchone()[0] == 8


async def test_a_failed_finish_transaction_fails_each_of_its_callers_and_the_store_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = await open_store(tmp_path / "e.db")
    try:
        await store.add_duties(None, [NewDuty("post", T0, 100 + i) for i in range(3)], T0)
        claimed = await store.claim_duties(T0, "me", 60)
        real = store._write
        failures = iter([sqlite3.OperationalError("disk I/O error")])

        async def failing_once(body: Any, **kwargs: Any) -> Any:
            for error in failures:
                raise error
            return await real(body, **kwargs)

        monkeypatch.setattr(store, "_write", failing_once)
        answers = await asyncio.gather(
            *(store.finish_duty(d.id, "me", T0 + 1) for d in claimed), return_exceptions=True
        )
        assert all(isinstance(a, sqlite3.OperationalError) for a in answers), "each caller sees the failure"
        assert len(await store.pending_duties(None)) == 3, "and nothing of it was written"
        again = await asyncio.gather(*(store.finish_duty(d.id, "me", T0 + 2) for d in claimed))
        assert again == [True, True, True], "the next finishes are written"
        assert await store.pending_duties(None) == []
    finally:
        await store.close()


async def test_the_lean_outbox_migration_drops_the_payloads_of_done_duties_only(tmp_path: Path) -> None:
    """Issue 32: an existing database's delivered duties lose their payloads on upgrade (the bulk of its
    size); pending ones keep theirs."""
    path = tmp_path / "old.db"
    conn = await connect(path)
    try:
        assert await migrate(conn, target=6) == 6
        for done_at, owner in ((T0 + 5, "w1"), (None, None)):
            await conn.execute(
                "INSERT INTO duties (kind, due_at, payload, created_at, lease_owner, done_at, outcome)"
                " VALUES ('post', ?, ?, ?, ?, ?, ?)",
                (T0, '{"text":"' + "x" * 3000 + '"}', T0, owner, done_at, "sent 9" if done_at else None),
            )
        await conn.commit()
    finally:
        await conn.close()
    store = await open_store(path)
    try:
        [pending] = await store.pending_duties(None)
        assert pending.payload == {"text": "x" * 3000}
    finally:
        await store.close()
    with contextlib.closing(sqlite3.connect(path)) as db:
        rows = db.execute("SELECT payload, lease_owner, done_at, outcome FROM duties ORDER BY id").fetchall()
    assert rows[0] == ("{}", None, T0 + 5, "sent 9"), "and (migration 8) its worker's name"
    assert rows[1][0] == '{"text":"' + "x" * 3000 + '"}'


async def test_migration_8_packs_the_games_over_and_drops_the_worker_of_done_duties(tmp_path: Path) -> None:
    """Issue 32: a database of schema 7 opens with its finished and abandoned games packed (their events and
    their delivered duties' log, each one compressed row), every event read back the same, and the worker's
    name and last error of the done duties left gone; a game in play keeps its rows."""
    path = tmp_path / "old.db"
    conn = await connect(path)
    try:
        assert await migrate(conn, target=7) == 7
        for statement in OLD_LEAN_ROWS:
            await conn.execute(statement)
    finally:
        await conn.close()
    store = await open_store(path)
    try:
        await reads_after_lean_migration(store)
    finally:
        await store.close()
    with contextlib.closing(sqlite3.connect(path)) as db:
        assert db.execute("SELECT DISTINCT game_id FROM events").fetchall() == [(8,)]
        assert db.execute("SELECT id, lease_owner, last_error FROM duties ORDER BY id").fetchall() == [
            (43, None, None),
            (44, None, None),
        ]
        [(log,)] = db.execute("SELECT duties FROM packed WHERE game_id = 7").fetchall()
    assert packed_list(log) == [
        [41, "post", 1.0, 1.0, 2.0, 1, "sent 9"],
        [42, "edit", 3.0, 3.0, 4.0, 2, "edited 9"],
    ]
