"""Restores (issue 11): aside files never overwritten, a running bot detected by its run lock, every
result and error of the backup/restore CLI a sentence; round trips through real files and processes."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot.__main__ import main as bot_main
from bot.process.backups import RestoreError, backup_once, restore
from bot.process.runlock import hold, lock_path
from storage import open_store

ROOT = Path(__file__).resolve().parents[2]
NOW = 1_780_000_000.0  # 2026-05-28T20:26:40Z


async def channels(path: Path) -> list[int]:
    store = await open_store(path)
    try:
        return sorted(g.channel_id for g in await store.list_games())
    finally:
        await store.close()


async def db_with(path: Path, *channel_ids: int) -> None:
    store = await open_store(path)
    try:
        for c in channel_ids:
            await store.create_game(1, c, 7, {}, NOW)
    finally:
        await store.close()


async def test_two_restores_in_one_second_keep_the_original(tmp_path: Path) -> None:
    db = tmp_path / "data" / "alexandros.db"
    db.parent.mkdir()
    await db_with(db, 100)
    store = await open_store(db)
    backup = await backup_once(store, tmp_path / "backups", NOW, keep=3)
    await store.create_game(1, 200, 7, {}, NOW + 1)  # the original: newer than the backup
    await store.close()

    first = restore(backup, db, now=NOW + 60)
    second = restore(backup, db, now=NOW + 60.5)  # the same second
    assert first.previous is not None and second.previous is not None
    assert first.previous != second.previous
    assert second.previous.name.endswith("-2")
    assert await channels(first.previous) == [100, 200]  # the original survives the second restore
    assert await channels(second.previous) == [100]
    assert await channels(db) == [100]
    third = restore(backup, db, now=NOW + 60.9)
    assert third.previous is not None and third.previous.name.endswith("-3")
    assert await channels(first.previous) == [100, 200]


async def test_an_aside_name_with_a_wal_beside_it_is_not_reused(tmp_path: Path) -> None:
    db = tmp_path / "alexandros.db"
    await db_with(db, 100)
    store = await open_store(db)
    backup = await backup_once(store, tmp_path / "backups", NOW, keep=3)
    await store.close()
    taken = Path(f"{db}.before-restore-20260528T202740Z-wal")
    taken.write_bytes(b"someone's WAL")
    result = restore(backup, db, now=NOW + 60)
    assert result.previous == db.with_name("alexandros.db.before-restore-20260528T202740Z-2")
    assert taken.read_bytes() == b"someone's WAL"


async def test_a_restore_is_refused_while_the_bot_holds_its_run_lock(tmp_path: Path) -> None:
    db = tmp_path / "alexandros.db"
    await db_with(db, 100)
    store = await open_store(db)
    backup = await backup_once(store, tmp_path / "backups", NOW, keep=3)
    await store.close()
    before = db.read_bytes()
    running = hold(db)  # what `python -m bot` and the console hold while they run
    assert running is not None
    with running, pytest.raises(RestoreError) as err:
        restore(backup, db, now=NOW)
    assert "The bot is running" in str(err.value) and "stop it first" in str(err.value)
    assert db.read_bytes() == before
    assert restore(backup, db, now=NOW).previous is not None  # released: the restore goes ahead


def test_a_bot_cannot_start_during_a_restore(tmp_path: Path) -> None:
    db = tmp_path / "alexandros.db"
    restoring = hold(db, exclusive=True)
    assert restoring is not None and lock_path(db).exists()
    with restoring:
        assert hold(db) is None
    again = hold(db)
    assert again is not None
    again.release()


def test_a_folder_without_file_locks_is_not_read_as_a_restore_under_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Some network folders refuse flock itself (ENOLCK, EOPNOTSUPP): the bot refused to start with "A
    restore of ... is under way". Only a lock held by another is a conflict; without file locks the bot
    runs unlocked, as where fcntl does not exist (the restore then relies on the heartbeat)."""
    import errno

    from bot.process import runlock

    def no_locks(fd: int, op: int) -> None:
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(runlock.fcntl, "flock", no_locks)
    held = hold(tmp_path / "alexandros.db")
    assert held is not None
    held.release()
    assert not isinstance(runlock.open_checks("", tmp_path / "alexandros.db"), str)


def bare_env(**extra: str) -> dict[str, str]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/tmp")}
    env.update(PYTHONPATH=str(ROOT), **extra)
    return env


async def test_the_restore_cli_round_trip_and_a_running_bot_as_a_process(tmp_path: Path) -> None:
    """Backup, restore, restore again within the second, and a refusal while another process holds the run
    lock: every outcome one sentence, never a repr."""
    data = tmp_path / "data"
    data.mkdir()
    db = data / "alexandros.db"
    await db_with(db, 100)

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "bot", *args],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env=bare_env(),
            timeout=60,
        )

    made = cli("backup")
    assert made.returncode == 0 and made.stderr == "", made
    assert made.stdout.startswith("Backup written and verified:") and made.stdout.count("\n") == 1
    (backup,) = (data / "backups").glob("alexandros-*.db")
    await db_with(db, 200)

    outs = [cli("restore", str(backup)), cli("restore", str(backup))]
    for out in outs:
        assert out.returncode == 0 and out.stderr == "", out
        assert "RestoreResult" not in out.stdout and out.stdout.count("\n") == 1
        assert out.stdout.startswith("Restored data/alexandros.db from the backup.")
        assert "Start the bot again" in out.stdout
    asides = sorted(data.glob("alexandros.db.before-restore-*"))
    assert len(asides) == 2, asides
    assert sorted([await channels(a) for a in asides]) == [[100], [100, 200]]

    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from pathlib import Path; from bot.process.runlock import hold;"
            " h = hold(Path(sys.argv[1])); print('held' if h else 'no', flush=True); sys.stdin.read()",
            str(db),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        refused = cli("restore", str(backup))
        assert refused.returncode == 1 and refused.stdout == ""
        lines = refused.stderr.strip().splitlines()
        assert len(lines) == 1 and "The bot is running" in lines[0] and lines[0].endswith("."), lines
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(10)
    assert len(sorted(data.glob("alexandros.db.before-restore-*"))) == 2

    missing = cli("restore", str(tmp_path / "nope.db"))
    assert missing.returncode == 1 and missing.stderr.startswith("There is no file")
    usage = cli("restore")
    assert usage.returncode == 2 and "usage" in usage.stderr


def test_the_backup_cli_without_a_database_is_a_sentence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(os, "environ", bare_env())
    assert bot_main(["backup"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("There is no database at") and err.count("\n") == 1


async def test_a_restore_into_a_folder_that_cannot_be_written_is_a_sentence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "alexandros.db"
    await db_with(db, 100)
    store = await open_store(db)
    backup = await backup_once(store, tmp_path / "backups", NOW, keep=3)
    await store.close()
    before = db.read_bytes()

    def full_disk(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("bot.process.backups.shutil.copyfile", full_disk)
    with pytest.raises(RestoreError) as err:
        restore(backup, db, now=time.time())
    message = str(err.value)
    assert "No space left on device" in message and "was left as it was" in message
    assert message.endswith(".") and "\n" not in message
    assert db.read_bytes() == before
    assert not db.with_name("alexandros.db.restoring").exists()


async def _purge_fixture(db: Path, now: float) -> tuple[int, int, int]:
    store = await open_store(db)
    try:
        old = await store.create_game(1, 100, 7, {}, now - 40 * 86400)
        await store.abandon_game(old.id, now - 40 * 86400)
        other = await store.create_game(2, 200, 7, {}, now - 40 * 86400)
        await store.abandon_game(other.id, now - 40 * 86400)
        live = await store.create_game(1, 300, 7, {}, now - 40 * 86400)
        return old.id, other.id, live.id
    finally:
        await store.close()


def test_the_purge_cli_deletes_old_finished_games_of_every_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import asyncio

    db = tmp_path / "data" / "alexandros.db"
    db.parent.mkdir()
    old, other, live = asyncio.run(_purge_fixture(db, time.time()))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(os, "environ", bare_env())
    assert bot_main(["purge", "nope"]) == 2
    assert bot_main(["purge", "30"]) == 0
    out = capsys.readouterr().out
    assert out == "Deleted 2 finished or abandoned game(s) older than 30 days, on every server.\n"

    async def left() -> list[int]:
        store = await open_store(db)
        try:
            return [g.id for g in await store.list_games()]
        finally:
            await store.close()

    assert asyncio.run(left()) == [live]
    db.write_bytes(b"garbage" * 100)
    assert bot_main(["purge", "30"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("The purge failed, nothing was deleted:") and err.count("\n") == 1


def test_purge_and_ratings_refuse_a_folder_without_a_database_in_one_sentence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Run from the wrong folder, they used to create an empty database there and report "Deleted 0" (exit
    0), or print a traceback; each now says there is no database there, and creates nothing."""
    (tmp_path / "data").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(os, "environ", bare_env())
    assert bot_main(["purge", "30"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("The purge failed, nothing was deleted: There is no database at")
    assert err.count("\n") == 1
    assert bot_main(["ratings", "--recompute"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("The ratings were not recomputed: There is no database at") and err.count("\n") == 1
    assert list((tmp_path / "data").iterdir()) == [], "nothing was created"
    (tmp_path / "data" / "alexandros.db").write_bytes(b"garbage" * 100)
    assert bot_main(["ratings", "--recompute"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("The ratings were not recomputed:") and "Traceback" not in err
    assert err.count("\n") == 1


def test_the_bot_says_in_one_sentence_that_its_postgresql_server_cannot_be_reached(tmp_path: Path) -> None:
    """Before anything talks to Discord (as with a bad SQLite file): it used to blame the network's way to
    Discord, or print a traceback; the password is never shown."""
    for url, why in [
        ("postgresql://alex:s3cret@127.0.0.1:1/alex", "could not be reached"),
        ("postgresql://alex:s3cret@/alex?host=/nonexistent-socket-dir", "could not be reached"),
    ]:
        proc = subprocess.run(
            [sys.executable, "-m", "bot"],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env=bare_env(DISCORD_TOKEN="dummy-token-" + "x" * 40, ALEXANDROS_DATABASE_URL=url),
            timeout=60,
        )
        lines = proc.stderr.strip().splitlines()
        assert proc.returncode == 1 and len(lines) == 1 and why in lines[0], proc.stderr
        assert "s3cret" not in proc.stderr and "Discord" not in proc.stderr
