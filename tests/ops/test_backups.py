"""bot.process.backups: verified online backups, rotation, the scheduler, and the offline restore."""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from bot.process.backups import (
    STALE_PARTIAL,
    BackupError,
    BackupScheduler,
    FileSource,
    RestoreError,
    backup_name,
    backup_once,
    database_in_use,
    list_backups,
    restore,
    verify_backup,
)
from bot.process.health import write_heartbeat
from storage import SqliteGameStore, open_store

NOW = 1_780_000_000.0  # 2026-05-28T20:26:40Z
DAY = 86400.0


async def new_store(path: Path) -> SqliteGameStore:
    return await open_store(path)


async def channels(path: Path) -> list[int]:
    store = await open_store(path)
    try:
        return sorted(g.channel_id for g in await store.list_games())
    finally:
        await store.close()


def test_backup_names_sort_by_utc_time() -> None:
    assert backup_name(NOW) == "alexandros-20260528T202640Z.db"
    assert backup_name(NOW + 1) > backup_name(NOW)


async def test_backup_once_writes_a_verified_copy(tmp_path: Path) -> None:
    store = await new_store(tmp_path / "live.db")
    try:
        await store.create_game(1, 100, 7, {}, NOW)
        path = await backup_once(store, tmp_path / "backups", NOW, keep=3)
    finally:
        await store.close()
    assert path == tmp_path / "backups" / backup_name(NOW)
    verify_backup(path)
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        assert conn.execute("SELECT channel_id FROM games").fetchall() == [(100,)]
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"  # one self-contained file
    finally:
        conn.close()


async def test_backup_once_keeps_only_the_newest(tmp_path: Path) -> None:
    folder = tmp_path / "backups"
    folder.mkdir()
    (folder / "notes.txt").write_text("the owner's own file")  # never touched
    store = await new_store(tmp_path / "live.db")
    try:
        made = [await backup_once(store, folder, NOW + i * DAY, keep=3) for i in range(5)]
        same_second = await backup_once(store, folder, NOW + 4 * DAY, keep=3)
    finally:
        await store.close()
    assert same_second.name == "alexandros-20260601T202640Z-1.db"
    assert list_backups(folder) == [made[3], made[4], same_second]
    assert (folder / "notes.txt").exists()


async def test_a_backup_that_fails_its_check_removes_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "backups"
    store = await new_store(tmp_path / "live.db")
    try:
        good = [await backup_once(store, folder, NOW + i, keep=2) for i in range(2)]
    finally:
        await store.close()

    class BrokenStore:
        async def backup(self, dest_path: object) -> None:
            Path(str(dest_path)).write_bytes(b"SQLite format 3\x00" + b"\xff" * 4000)

    with pytest.raises(BackupError) as err:
        await backup_once(BrokenStore(), folder, NOW + 10, keep=2)
    assert str(err.value).startswith("The backup failed its check:")
    assert list_backups(folder) == good


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if ".partial" in p.name)


@pytest.mark.parametrize("source", ["store", "file"])
@pytest.mark.parametrize(
    "failure",
    [OSError(errno.ENOSPC, "No space left on device"), sqlite3.OperationalError("database or disk is full")],
)
async def test_a_copy_that_fails_leaves_no_partial_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str, failure: Exception
) -> None:
    """A full disk fails every hourly attempt: none may leave its partial copy behind (it would be as big
    as the database), whether the bot's store or `python -m bot backup` (FileSource) copies."""
    from storage import sqlite as sqlite_store

    folder = tmp_path / "backups"
    store = await new_store(tmp_path / "live.db")
    copy = sqlite_store._copy_pages

    def copy_then_fail(src: sqlite3.Connection, dest: str) -> None:
        copy(src, dest)  # the partial file is written, with SQLite's files beside it
        for side in ("-journal", "-wal", "-shm"):
            Path(dest + side).write_bytes(b"\0" * 512)
        assert _leftovers(folder)
        raise failure

    try:
        await store.create_game(1, 100, 7, {}, NOW)
        good = await backup_once(store, folder, NOW, keep=3)
        monkeypatch.setattr(sqlite_store, "_copy_pages", copy_then_fail)
        backups = store if source == "store" else FileSource(tmp_path / "live.db")
        for hour in range(1, 4):
            with pytest.raises(type(failure)):
                await backup_once(backups, folder, NOW + hour * 3600, keep=3)
            assert _leftovers(folder) == []
    finally:
        await store.close()
    assert list_backups(folder) == [good]


async def test_backup_once_removes_the_partial_copies_killed_backups_left(tmp_path: Path) -> None:
    """A backup killed with its process leaves its partial copy (and SQLite's files beside it); the next
    backup removes those nobody has written to for STALE_PARTIAL, not a copy under way beside it."""
    folder = tmp_path / "backups"
    folder.mkdir()
    dead = [
        folder / "alexandros-20260528T192640Z.db.partial",
        folder / "alexandros-20260528T192640Z.db.partial-wal",
    ]
    live = folder / "alexandros-20260528T202630Z.db.partial"
    mine = folder / "notes.partial"  # the owner's own file: never touched
    for path in (*dead, live, mine):
        path.write_bytes(b"\0" * 4096)
        age = STALE_PARTIAL + 60 if path is not live else 10
        os.utime(path, (NOW - age, NOW - age))
    os.utime(mine, (NOW - DAY, NOW - DAY))
    store = await new_store(tmp_path / "live.db")
    try:
        made = await backup_once(store, folder, NOW, keep=3)
    finally:
        await store.close()
    assert _leftovers(folder) == sorted([live.name, mine.name])
    assert list_backups(folder) == [made]


async def test_scheduler_backs_up_on_its_interval_and_logs_one_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    folder = tmp_path / "backups"
    clock = [NOW]
    slept: list[float] = []
    stop = asyncio.Event()

    async def fake_sleep(seconds: float) -> None:
        slept.append(seconds)
        clock[0] += seconds
        if len(slept) >= 3:
            stop.set()
            await asyncio.Event().wait()  # park here until stop() cancels the task

    store = await new_store(tmp_path / "live.db")
    caplog.set_level(logging.INFO, logger="bot.process.backups")
    try:
        scheduler = BackupScheduler(store, folder, 6, 2, clock=lambda: clock[0], sleep=fake_sleep)
        scheduler.start()
        assert scheduler.running
        await asyncio.wait_for(stop.wait(), 10)
        await scheduler.stop()
        assert not scheduler.running
    finally:
        await store.close()
    # The first backup at once (the folder was empty), then one every 6 hours.
    assert slept == [6 * 3600.0] * 3
    assert [p.name for p in list_backups(folder)] == [
        backup_name(NOW + 6 * 3600),
        backup_name(NOW + 12 * 3600),
    ]
    lines = [r for r in caplog.records if r.name == "bot.process.backups"]
    assert len(lines) == 3 and all("Backup written" in r.getMessage() for r in lines)


async def test_scheduler_after_a_restart_waits_for_the_newest_backup_to_age(tmp_path: Path) -> None:
    folder = tmp_path / "backups"
    store = await new_store(tmp_path / "live.db")
    try:
        await backup_once(store, folder, NOW, keep=3)
        scheduler = BackupScheduler(store, folder, 24, 3, clock=lambda: NOW + 3600)
        assert scheduler.next_due() == NOW + 24 * 3600
        disabled = BackupScheduler(store, folder, 0, 3)
        disabled.start()
        assert not disabled.running
    finally:
        await store.close()


async def test_scheduler_logs_failures_and_retries_later(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    class FailingStore:
        async def backup(self, dest_path: object) -> None:
            raise OSError("disk full")

    scheduler = BackupScheduler(FailingStore(), tmp_path / "b", 24, 3, clock=lambda: NOW)
    caplog.set_level(logging.INFO, logger="bot.process.backups")
    assert await scheduler.run_once() is None
    assert scheduler.failures == 1
    assert scheduler.next_due() == NOW + 3600  # retried in an hour, not in a tight loop
    assert any(r.levelno == logging.ERROR and "disk full" in r.getMessage() for r in caplog.records)


async def test_restore_round_trip(tmp_path: Path) -> None:
    db = tmp_path / "data" / "alexandros.db"
    db.parent.mkdir()
    store = await new_store(db)
    try:
        await store.create_game(1, 100, 7, {}, NOW)
        backup = await backup_once(store, tmp_path / "backups", NOW, keep=3)
        await store.create_game(1, 200, 7, {}, NOW + 60)
    finally:
        await store.close()
    assert await channels(db) == [100, 200]

    result = restore(backup, db, now=NOW + 120)
    assert result.restored == db
    assert result.previous == db.with_name("alexandros.db.before-restore-20260528T202840Z")
    assert "Start the bot again" in result.sentence()
    assert not Path(f"{db}-wal").exists() and not Path(f"{db}-shm").exists()
    assert await channels(db) == [100]  # reopened through the store: migrations and all
    assert await channels(result.previous) == [100, 200]  # nothing was lost


def test_restore_moves_a_stale_wal_aside_with_the_old_database(tmp_path: Path) -> None:
    db = tmp_path / "alexandros.db"
    good = tmp_path / "good.db"
    conn = sqlite3.connect(good)
    conn.execute("CREATE TABLE games (id INTEGER)")
    conn.commit()
    conn.close()
    db.write_bytes(good.read_bytes())
    Path(f"{db}-wal").write_bytes(b"left by a crash")
    Path(f"{db}-shm").write_bytes(b"")
    result = restore(good, db, now=NOW)
    assert result.previous is not None
    assert Path(f"{result.previous}-wal").read_bytes() == b"left by a crash"
    assert not Path(f"{db}-wal").exists() and not Path(f"{db}-shm").exists()


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"", "is not an SQLite database"),
        (b"hello, this is not a database at all" * 100, "is not an SQLite database"),
        (b"SQLite format 3\x00" + b"\xff" * 4000, "failed its check"),
    ],
)
async def test_restore_refuses_a_corrupt_file_and_changes_nothing(
    tmp_path: Path, content: bytes, words: str
) -> None:
    db = tmp_path / "alexandros.db"
    store = await new_store(db)
    try:
        await store.create_game(1, 100, 7, {}, NOW)
    finally:
        await store.close()
    before = db.read_bytes()
    bad = tmp_path / "bad.db"
    bad.write_bytes(content)
    with pytest.raises(RestoreError) as err:
        restore(bad, db, now=NOW)
    message = str(err.value)
    assert words in message and "\n" not in message and message.endswith(".")
    assert db.read_bytes() == before
    # Nothing new beside them but the restore's (empty) run lock file (bot.process.runlock).
    assert sorted(p.name for p in tmp_path.iterdir()) == ["alexandros.db", "alexandros.db.lock", "bad.db"]
    assert (tmp_path / "alexandros.db.lock").read_bytes() == b""


def test_restore_refuses_a_backup_from_a_newer_bot(tmp_path: Path) -> None:
    newer = tmp_path / "newer.db"
    conn = sqlite3.connect(newer)
    conn.execute("CREATE TABLE games (id INTEGER)")
    conn.execute("PRAGMA user_version = 9999")
    conn.commit()
    conn.close()
    with pytest.raises(RestoreError, match="newer version of the bot"):
        restore(newer, tmp_path / "alexandros.db", now=NOW)


def test_restore_refuses_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(RestoreError, match="There is no file"):
        restore(tmp_path / "nope.db", tmp_path / "alexandros.db", now=NOW)


async def test_restore_refuses_while_the_bot_beats(tmp_path: Path) -> None:
    db = tmp_path / "alexandros.db"
    store = await new_store(db)
    backup = await backup_once(store, tmp_path / "backups", NOW, keep=1)
    await store.close()
    write_heartbeat(tmp_path, NOW - 30)
    with pytest.raises(RestoreError, match="stop it first"):
        restore(backup, db, now=NOW)
    write_heartbeat(tmp_path, NOW - 3600)  # stale: the bot crashed an hour ago
    assert restore(backup, db, now=NOW).previous is not None


@pytest.mark.skipif(sys.platform == "win32", reason="the lock check is POSIX only")
async def test_restore_refuses_while_another_process_has_the_database_open(tmp_path: Path) -> None:
    db = tmp_path / "alexandros.db"
    store = await new_store(db)
    backup = await backup_once(store, tmp_path / "backups", NOW, keep=1)
    await store.close()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]);"
            " c.execute('SELECT 1 FROM games').fetchall(); print('open', flush=True); sys.stdin.read()",
            str(db),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "open"
        assert database_in_use(db)
        with pytest.raises(RestoreError, match="seems to be running"):
            restore(backup, db, now=NOW)
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(10)
    assert not database_in_use(db)
    assert restore(backup, db, now=NOW).restored == db
