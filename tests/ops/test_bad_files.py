"""Bad database files (issue 11): garbage, corrupt, truncated, newer, unopenable and foreign files are
refused with one sentence and a non-zero exit by the store, the bot (``python -m bot``, before it tries
Discord), the console and the backup/restore CLI; and nothing is ever written to a refused file."""

from __future__ import annotations

import asyncio
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.__main__ import main as bot_main
from bot.process.runlock import check_writable
from storage import LATEST_VERSION, BadDatabase, inspect_database, open_store

ROOT = Path(__file__).resolve().parents[2]
KINDS = ("garbage", "corrupt", "truncated", "newer", "unopenable", "foreign")
# Words of each kind's sentence: what is wrong, and what to do.
WORDS = {
    "garbage": ("not an SQLite database", "restore a backup"),
    "corrupt": ("damaged", "restore a backup"),
    "truncated": ("truncated", "restore a backup"),
    "newer": ("newer version of the bot", "upgrade the bot"),
    "unopenable": ("cannot be opened", "restore a backup"),
    "foreign": ("another program", "restore a backup"),
}


async def _good(path: Path, games: int = 30) -> None:
    store = await open_store(path)
    try:
        for i in range(games):
            await store.create_game(1, 100 + i, 7, {"note": "x" * 400}, 1000.0)
    finally:
        await store.close()


def good_bytes(tmp: Path) -> bytes:
    path = tmp / "good-source.db"
    asyncio.run(_good(path))
    data = path.read_bytes()
    for p in tmp.glob("good-source.db*"):
        p.unlink()
    return data


def make_bad(kind: str, path: Path, good: bytes) -> None:
    """Write a bad database file of `kind` at `path`."""
    page = int.from_bytes(good[16:18], "big")
    if kind == "garbage":
        path.write_bytes(b"these are not the pages you are looking for\n" * 200)
    elif kind == "corrupt":
        data = bytearray(good)
        data[page * 2 : page * 3] = b"\xff" * page  # a b-tree page of the games table wiped
        path.write_bytes(bytes(data))
    elif kind == "truncated":
        path.write_bytes(good[: (len(good) // 2) // page * page])  # a copy cut short (disk full, crash)
    elif kind == "newer":
        path.write_bytes(good)
        conn = sqlite3.connect(path)
        conn.execute(f"PRAGMA user_version = {LATEST_VERSION + 1}")
        conn.commit()
        conn.close()
        for side in (Path(f"{path}-wal"), Path(f"{path}-shm")):
            side.unlink(missing_ok=True)
    elif kind == "unopenable":
        path.mkdir()  # a folder where the file should be (a volume mounted wrongly)
        (path / "x").write_text("x")
    elif kind == "foreign":
        conn = sqlite3.connect(path)
        conn.execute("CREATE TABLE recipes (name TEXT)")
        conn.execute("INSERT INTO recipes VALUES ('bread')")
        conn.commit()
        conn.close()
    else:  # pragma: no cover
        raise ValueError(kind)


def fingerprint(path: Path) -> tuple[object, ...]:
    """Bytes and mtime of a file (a folder: its listing), and which -wal/-shm/-journal exist beside it."""
    if path.is_dir():
        body: object = sorted(p.name for p in path.iterdir())
    else:
        body = path.read_bytes()
    sides = tuple(Path(f"{path}{s}").exists() for s in ("-wal", "-shm", "-journal"))
    return body, path.stat().st_mtime_ns, sides


@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    return good_bytes(tmp_path_factory.mktemp("good"))


@pytest.fixture(params=KINDS)
def bad(request: pytest.FixtureRequest, tmp_path: Path, good: bytes) -> Iterator[tuple[str, Path]]:
    kind = str(request.param)
    path = tmp_path / "data" / "alexandros.db"
    path.parent.mkdir()
    make_bad(kind, path, good)
    os.utime(path, ns=(1_000_000_000_000_000_000, 1_000_000_000_000_000_000))  # an mtime any write changes
    yield kind, path


def one_sentence(text: str, kind: str) -> None:
    lines = text.strip().splitlines()
    assert len(lines) == 1, text
    assert "Traceback" not in text and "Error(" not in text
    for word in WORDS[kind]:
        assert word in lines[0], (kind, lines[0])
    assert lines[0].endswith(".")


def bare_env(**extra: str) -> dict[str, str]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/tmp")}
    env.update(PYTHONPATH=str(ROOT), **extra)
    return env


# --- the store ------------------------------------------------------------------------------------------


async def test_the_store_refuses_each_bad_file_and_writes_nothing(bad: tuple[str, Path]) -> None:
    kind, path = bad
    before = fingerprint(path)
    problem = inspect_database(path)
    assert problem is not None and problem.kind == kind
    with pytest.raises(BadDatabase) as err:
        await open_store(path)
    assert err.value.kind == kind
    one_sentence(str(err.value), kind)
    assert fingerprint(path) == before


async def test_a_good_an_empty_and_a_missing_file_open(tmp_path: Path, good: bytes) -> None:
    (tmp_path / "good.db").write_bytes(good)
    (tmp_path / "empty.db").write_bytes(b"")
    for name in ("good.db", "empty.db", "missing.db"):
        assert inspect_database(tmp_path / name) is None
        store = await open_store(tmp_path / name)
        await store.close()


# --- the bot, the console, the CLI: processes and entry points -------------------------------------------


def test_the_bot_refuses_each_bad_file_before_it_tries_discord(bad: tuple[str, Path]) -> None:
    kind, path = bad
    before = fingerprint(path)
    proc = subprocess.run(
        [sys.executable, "-m", "bot"],
        capture_output=True,
        text=True,
        cwd=path.parent.parent,
        # A dummy token: reaching Discord would end in "Discord refused the token" or "Could not reach
        # Discord", never in the database's sentence.
        env=bare_env(DISCORD_TOKEN="dummy-token-" + "x" * 40, ALEXANDROS_BACKUP_INTERVAL_HOURS="0"),
        timeout=60,
    )
    assert proc.returncode != 0
    one_sentence(proc.stderr, kind)
    assert "Discord" not in proc.stderr
    assert fingerprint(path) == before


def test_the_console_refuses_each_bad_file(bad: tuple[str, Path]) -> None:
    kind, path = bad
    before = fingerprint(path)
    proc = subprocess.run(
        [sys.executable, "-m", "bot", "console", "--players", "a,b", "--db", str(path), "--out", "pics"],
        capture_output=True,
        text=True,
        cwd=path.parent,
        env=bare_env(),
        input="",
        timeout=60,
    )
    assert proc.returncode != 0
    one_sentence(proc.stderr, kind)
    assert fingerprint(path) == before
    assert not (path.parent / "pics").exists()


def test_the_backup_cli_refuses_each_bad_database(
    bad: tuple[str, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    kind, path = bad
    before = fingerprint(path)
    monkeypatch.chdir(path.parent.parent)
    monkeypatch.setattr(os, "environ", bare_env())
    assert bot_main(["backup"]) == 1
    out = capsys.readouterr()
    assert out.out == ""
    if kind == "unopenable":
        assert "There is no database" in out.err  # a folder is not a database file
    else:
        one_sentence(out.err, kind)
    assert fingerprint(path) == before
    assert not list((path.parent / "backups").glob("*.db")) if (path.parent / "backups").exists() else True


def test_the_restore_cli_refuses_each_bad_backup_and_keeps_the_database(
    bad: tuple[str, Path],
    good: bytes,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    kind, backup = bad
    db = backup.parent.parent / "live" / "alexandros.db"
    db.parent.mkdir()
    db.write_bytes(good)
    before = fingerprint(db)
    monkeypatch.chdir(db.parent.parent)
    monkeypatch.setattr(os, "environ", bare_env(ALEXANDROS_DATA_DIR=str(db.parent)))
    assert bot_main(["restore", str(backup)]) == 1
    out = capsys.readouterr()
    lines = out.err.strip().splitlines()
    assert out.out == "" and len(lines) == 1 and lines[0].endswith("."), out
    assert "Traceback" not in out.err and "RestoreError" not in out.err
    expected = "newer version of the bot" if kind == "newer" else "failed its check"
    if kind == "unopenable":
        expected = "There is no file"  # a folder given as the backup
    assert expected in lines[0], lines[0]
    assert fingerprint(db) == before
    assert sorted(p.name for p in db.parent.iterdir()) in (
        ["alexandros.db"],
        ["alexandros.db", "alexandros.db.lock"],
    )


def test_the_bot_refuses_a_database_folder_it_cannot_create_before_it_tries_discord(tmp_path: Path) -> None:
    """ALEXANDROS_DB in a folder that cannot be made (here under a plain file): the bot logged in to
    Discord first and failed after, on the first write. It now says so in one sentence before."""
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the database's folder should be")
    proc = subprocess.run(
        [sys.executable, "-m", "bot"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=bare_env(
            DISCORD_TOKEN="dummy-token-" + "x" * 40,
            ALEXANDROS_DB=str(blocker / "alexandros.db"),
            ALEXANDROS_BACKUP_INTERVAL_HOURS="0",
        ),
        timeout=60,
    )
    assert proc.returncode != 0
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert str(blocker / "alexandros.db") in lines[0] and "ALEXANDROS_DB" in lines[0]
    assert lines[0].endswith(".") and "Discord" not in proc.stderr


# The bot started as the user it runs as: as root (these tests' user in the container), it drops to nobody
# first, since root may write a mode 0444 file and would rightly pass the check.
# What the bot loads is loaded first: the interpreter's own files are root's only here.
AS_USER = """
import os, sys, pkgutil, aiohttp, discord, uvloop
import bot.client, bot.process.config, bot.games.pictures
from bot.__main__ import main
if os.geteuid() == 0:
    os.setgroups([])
    os.setgid(65534)
    os.setuid(65534)
sys.exit(main([]))
"""


def test_the_bot_refuses_a_database_file_it_cannot_write_before_it_tries_discord(good: bytes) -> None:
    """A database file the bot's user may read but not write (mode 0444, in a folder it may write): the
    bot started, and every action failed with "Something went wrong". It now says so in one sentence."""
    folder = Path(tempfile.mkdtemp(prefix="alx-readonly-"))  # not under pytest's root-only folders
    try:
        path = folder / "alexandros.db"
        path.write_bytes(good)
        if os.geteuid() == 0:
            os.chown(folder, 65534, 65534)
            os.chown(path, 65534, 65534)
        path.chmod(0o444)
        folder.chmod(0o755)
        before = fingerprint(path)
        proc = subprocess.run(
            [sys.executable, "-c", AS_USER],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env=bare_env(
                DISCORD_TOKEN="dummy-token-" + "x" * 40,
                ALEXANDROS_DATA_DIR=str(folder),
                ALEXANDROS_BACKUP_INTERVAL_HOURS="0",
            ),
            timeout=60,
        )
        assert proc.returncode != 0
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
        assert f"The database {path} cannot be written" in lines[0], lines[0]
        assert "write access" in lines[0] and "ALEXANDROS_DB" in lines[0], lines[0]
        assert lines[0].endswith(".") and "Discord" not in proc.stderr
        assert fingerprint(path) == before
        # The same file, writable again, passes the check (as the store would create it).
        path.chmod(0o644)
        check_writable(path)
    finally:
        shutil.rmtree(folder)
