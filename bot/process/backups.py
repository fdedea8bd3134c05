"""Backups of the game database while the bot runs, and the offline restore of one.

Games last days; a disk failure or a bad upgrade must not cost a server its games. The bot copies
the database on a schedule with SQLite's online backup API (storage `backup()`, in one step from a
separate connection, so players never wait), checks every copy by opening it read-only and running
SQLite's integrity check, and keeps the newest N. A copy that fails its check is deleted and no old
backup is removed in that round, so a failing disk can never rotate the good backups away.

API
---
backup_once(store, backup_dir, now, keep) -> Path                         (coroutine)
    One verified backup named `alexandros-YYYYMMDDTHHMMSSZ.db` (UTC), then the oldest beyond `keep`
    are deleted. Raises BackupError (one sentence) when the copy fails its check. A copy that fails
    leaves no partial file; the partial files of backups killed earlier (untouched for 15 minutes) are
    removed first.
BackupScheduler(store, backup_dir, interval_hours, keep, *, clock=time.time, sleep=asyncio.sleep)
    .start() / await .stop(); await .run_once() -> Path | None. The first backup is due one interval
    after the newest backup already in the folder (at once if there is none), so restarting the bot
    neither skips backups nor makes extra ones. One log line per backup; failures are logged and
    retried after min(interval, 1 h). interval_hours == 0: start() does nothing.
list_backups(backup_dir) -> list[Path]                                    oldest first
verify_backup(path) -> None                                               raises BackupError
database_in_use(db_path) -> bool
    True while another process has the database open (POSIX: the WAL shared-memory lock SQLite
    holds for every open connection). Always False where that cannot be checked (Windows).
restore(backup_file, db_path, *, data_dir=None, now=None) -> RestoreResult
    Offline restore, for `python -m bot restore FILE`: refuses (RestoreError, one sentence) while
    the bot runs, when the backup fails its check (storage.preflight: garbage, truncated, damaged,
    foreign), or when it was written by a newer version of the bot. Otherwise it moves the current
    database and its -wal/-shm aside to `<db>.before-restore-<UTC time>` (`-2`, `-3`… when that
    name is taken: an aside file is never overwritten) and copies the backup into place. Nothing is
    ever deleted: the old database stays beside it.
    The running bot is detected by its run lock (bot.process.runlock: a shared flock on `<db>.lock` the bot
    holds while it runs; the restore holds the exclusive one throughout, so a bot cannot start
    mid-restore), and, for a bot without that lock (an older version, another tool), by the
    database being open (SQLite's WAL lock) or a fresh heartbeat in `data_dir`.
FileSource(db_path)
    A database file as a backup source for `backup_once`, read-only (`python -m bot backup`).
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import shutil
import sqlite3
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

from storage import LATEST_VERSION, copy_database, inspect_database

from .health import MAX_AGE, read_heartbeat
from .runlock import hold
from .tasks import end_task

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: only the heartbeat guards a restore there
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "BackupError",
    "BackupScheduler",
    "FileSource",
    "RestoreError",
    "RestoreResult",
    "backup_name",
    "backup_once",
    "database_in_use",
    "list_backups",
    "restore",
    "verify_backup",
]

log = logging.getLogger(__name__)

PREFIX = "alexandros-"
_NAME = re.compile(r"alexandros-(\d{8}T\d{6}Z)(?:-(\d+))?\.db")
_SQLITE_MAGIC = b"SQLite format 3\x00"
# SQLite's WAL-index holds one "DMS" byte at offset 120 + 8 of the -shm file; every connection
# keeps a shared lock on it while open (see SQLite's os_unix.c, unixOpenSharedMemory).
_SHM_DMS_OFFSET = 128
RETRY_AFTER = 3600.0
# A partial copy nobody wrote to for this long was left by a backup killed with its process; a copy under
# way (another backup beside this one) writes its file all along, so it is never this old.
STALE_PARTIAL = 15 * 60.0
_PARTIAL = re.compile(r"alexandros-.*\.partial(?:-journal|-wal|-shm)?")


class BackupError(RuntimeError):
    """A backup could not be made or failed its check. str() is one sentence."""


class RestoreError(RuntimeError):
    """A restore was refused or failed. str() is one sentence telling the owner what to do."""


class SupportsBackup(Protocol):
    async def backup(self, dest_path: str | os.PathLike[str]) -> None: ...


def _stamp(now: float) -> str:
    return datetime.fromtimestamp(now, UTC).strftime("%Y%m%dT%H%M%SZ")


def backup_name(now: float) -> str:
    return f"{PREFIX}{_stamp(now)}.db"


def _sort_key(path: Path) -> tuple[str, int]:
    match = _NAME.fullmatch(path.name)
    assert match is not None
    return match.group(1), int(match.group(2) or 0)


def list_backups(backup_dir: Path) -> list[Path]:
    """The backups in `backup_dir`, oldest first. Other files there are never touched."""
    backup_dir = Path(backup_dir)
    if not backup_dir.is_dir():
        return []
    found = [p for p in backup_dir.iterdir() if p.is_file() and _NAME.fullmatch(p.name)]
    return sorted(found, key=_sort_key)


def _backup_time(path: Path) -> float:
    stamp, _ = _sort_key(path)
    return datetime.strptime(stamp, "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC).timestamp()


def _uri(path: Path) -> str:
    return f"{Path(path).resolve().as_uri()}?mode=ro"


def _check_file(path: Path) -> tuple[list[str], int]:
    """(problems, schema version) of an SQLite file, opened read-only."""
    path = Path(path)
    try:
        with path.open("rb") as f:
            head = f.read(len(_SQLITE_MAGIC))
    except OSError as exc:
        return [f"{path} cannot be read ({exc.strerror or exc})"], 0
    if head != _SQLITE_MAGIC:
        return [f"{path} is not an SQLite database"], 0
    try:
        conn = sqlite3.connect(_uri(path), uri=True)
        try:
            rows = conn.execute("PRAGMA integrity_check").fetchall()
            version = int(conn.execute("PRAGMA user_version").fetchone()[0])
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        finally:
            conn.close()
    except sqlite3.Error as exc:
        return [f"{path} cannot be opened ({exc})"], 0
    problems = [f"{path}: {r[0]}" for r in rows if r[0] != "ok"]
    if not problems and "games" not in tables:
        problems.append(f"{path} holds no games table, so it is not a backup of this bot")
    return problems, version


def verify_backup(path: Path) -> None:
    """Raise BackupError unless `path` is a sound SQLite database of this bot."""
    problems, _ = _check_file(path)
    if problems:
        raise BackupError(f"The backup failed its check: {problems[0]}.")


def _remove_stale_partials(backup_dir: Path, now: float) -> None:
    """Remove the partial copies (and SQLite's files beside them) that killed backups left behind: each as
    big as the database was when it died. Only files older than STALE_PARTIAL: a copy may be under way."""
    for path in backup_dir.iterdir():
        if not _PARTIAL.fullmatch(path.name):
            continue
        try:
            if path.stat().st_mtime < now - STALE_PARTIAL:
                path.unlink(missing_ok=True)
                log.info("Removed the partial copy of an earlier backup: %s", path)
        except OSError as exc:  # it is in the way of nothing: the backup goes on
            log.warning("Could not remove the partial copy %s: %s", path, exc)


async def backup_once(store: SupportsBackup, backup_dir: Path, now: float, keep: int) -> Path:
    """Write one verified backup and delete the oldest beyond `keep`. Returns the new file."""
    if keep < 1:
        raise ValueError("keep must be 1 or more")
    backup_dir = Path(backup_dir)
    backup_dir.mkdir(parents=True, exist_ok=True)
    _remove_stale_partials(backup_dir, now)
    dest = backup_dir / backup_name(now)
    n = 0
    while dest.exists():  # two backups in one second (a manual one beside the scheduled one)
        n += 1
        dest = backup_dir / f"{PREFIX}{_stamp(now)}-{n}.db"
    await store.backup(dest)
    try:
        await asyncio.to_thread(verify_backup, dest)
    except BackupError:
        dest.unlink(missing_ok=True)
        raise  # and keep every older backup: they may be the only good ones
    for old in list_backups(backup_dir)[:-keep]:
        old.unlink(missing_ok=True)
    return dest


class BackupScheduler:
    """Backs the database up every `interval_hours` while the bot runs."""

    def __init__(
        self,
        store: SupportsBackup,
        backup_dir: Path,
        interval_hours: float,
        keep: int,
        *,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        if interval_hours < 0 or keep < 1:
            raise ValueError("interval_hours must be 0 or more and keep 1 or more")
        self.store = store
        self.backup_dir = Path(backup_dir)
        self.interval = interval_hours * 3600.0
        self.keep = keep
        self._clock = clock
        self._sleep = sleep
        self._task: asyncio.Task[None] | None = None
        self._failed_at: float | None = None
        self.last_backup: Path | None = None
        self.failures = 0

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def next_due(self) -> float:
        """When the next backup is due: one interval after the newest, or now if there is none."""
        now = self._clock()
        existing = list_backups(self.backup_dir)
        due = _backup_time(existing[-1]) + self.interval if existing else now
        if self._failed_at is not None:
            due = max(due, self._failed_at + min(self.interval, RETRY_AFTER))
        return due

    def start(self) -> None:
        """Start the loop in the running event loop (no-op when disabled or already running)."""
        if self.interval <= 0 or self.running:
            return
        self._task = asyncio.get_running_loop().create_task(self._loop(), name="alexandros-backups")

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is None:
            return
        await end_task(task)

    async def _loop(self) -> None:
        while True:
            delay = self.next_due() - self._clock()
            if delay > 0:
                await self._sleep(delay)
            await self.run_once()

    async def run_once(self) -> Path | None:
        """One backup now; logs one line either way and never raises (the loop must go on)."""
        now = self._clock()
        try:
            path = await backup_once(self.store, self.backup_dir, now, self.keep)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - any failure is logged, then retried later
            self._failed_at = now
            self.failures += 1
            log.error("Backup failed, next try in %.0f min: %s", min(self.interval, RETRY_AFTER) / 60, exc)
            return None
        self._failed_at = None
        self.last_backup = path
        size = path.stat().st_size
        log.info(
            "Backup written: %s (%.1f KiB, verified; keeping the newest %d)", path, size / 1024, self.keep
        )
        return path


def database_in_use(db_path: Path) -> bool:
    """Does another process have the database open? (POSIX only; False where it cannot tell.)

    Caution: POSIX locks belong to the process, so this cannot see connections of the calling
    process itself, and must not run in a process that has the database open (closing our file
    would drop that process's SQLite locks). `restore` runs in its own short-lived command.
    """
    shm = Path(f"{db_path}-shm")
    if fcntl is None or not shm.exists():
        return False  # no -shm: no connection in WAL mode is open
    try:
        with shm.open("r+b") as f:
            try:
                fcntl.lockf(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB, 1, _SHM_DMS_OFFSET, os.SEEK_SET)
            except OSError:
                return True
            fcntl.lockf(f.fileno(), fcntl.LOCK_UN, 1, _SHM_DMS_OFFSET, os.SEEK_SET)
    except OSError:
        return False
    return False


@dataclass(frozen=True)
class RestoreResult:
    restored: Path  # the database file, now a copy of the backup
    previous: Path | None  # where the database that was there before went (None: there was none)

    def sentence(self) -> str:
        before = f" The previous database was kept as {self.previous}." if self.previous else ""
        return f"Restored {self.restored} from the backup.{before} Start the bot again."


def restore(
    backup_file: Path, db_path: Path, *, data_dir: Path | None = None, now: float | None = None
) -> RestoreResult:
    """Put `backup_file` in place of the database at `db_path`, with the bot stopped.

    `data_dir` is where the bot writes its heartbeat (default: the database's folder).
    """
    backup_file, db_path = Path(backup_file), Path(db_path)
    data_dir = Path(data_dir) if data_dir is not None else db_path.parent
    now = time.time() if now is None else now
    if not backup_file.is_file():
        raise RestoreError(f"There is no file {backup_file}: pick one from the backup folder (ls it).")
    if backup_file.resolve() == db_path.resolve():
        raise RestoreError(
            "The backup file is the database itself: give the path of a file in the backup folder."
        )

    try:
        lock = hold(db_path, exclusive=True)
    except OSError as exc:
        raise RestoreError(
            f"Cannot lock {db_path} for the restore ({exc.strerror or exc}): check that the folder "
            f"{db_path.parent} exists and is writable, then run the restore again."
        ) from None
    if lock is None:
        raise RestoreError(
            f"The bot is running on {db_path} (it holds {db_path.name}.lock): stop it first "
            "(docker stop alexandros, or Ctrl+C), then run the restore again."
        )
    with lock:
        beat = read_heartbeat(data_dir)
        if database_in_use(db_path) or (beat is not None and now - beat < MAX_AGE):
            raise RestoreError(
                "The bot seems to be running (its database is open or its heartbeat is fresh): stop it "
                "first (docker stop alexandros, or Ctrl+C), then run the restore again."
            )
        _check_backup(backup_file)
        try:
            return _put_in_place(backup_file, db_path, now)
        except OSError as exc:
            raise RestoreError(
                f"The restore failed ({exc.strerror or exc}"
                f"{f': {exc.filename}' if exc.filename else ''}), and {db_path} was left as it was: "
                "free some disk space or fix the folder's permissions, then run the restore again."
            ) from None


def _check_backup(backup_file: Path) -> None:
    problem = inspect_database(backup_file)
    if problem is not None and problem.kind != "newer":
        raise RestoreError(f"The backup failed its check, so nothing was changed: {problem.what}.")
    problems, version = _check_file(backup_file)
    if problems:
        raise RestoreError(f"The backup failed its check, so nothing was changed: {problems[0]}.")
    if version > LATEST_VERSION:
        raise RestoreError(
            f"The backup was written by a newer version of the bot (schema {version}, this one knows "
            f"{LATEST_VERSION}): upgrade the bot first, then restore."
        )


def aside_name(db_path: Path, now: float) -> Path:
    """A name for the database moved aside that nothing uses yet, nor its -wal/-shm/-journal: two
    restores in one second must both keep what they moved aside."""
    base = f"{db_path.name}.before-restore-{_stamp(now)}"
    n = 1
    while True:
        name = db_path.with_name(base if n == 1 else f"{base}-{n}")
        if not any(Path(f"{name}{suffix}").exists() for suffix in ("", "-wal", "-shm", "-journal")):
            return name
        n += 1


def _put_in_place(backup_file: Path, db_path: Path, now: float) -> RestoreResult:
    db_path.parent.mkdir(parents=True, exist_ok=True)
    # Copy first, beside the target, so a full disk fails here with the old database untouched.
    partial = db_path.with_name(db_path.name + ".restoring")
    try:
        shutil.copyfile(backup_file, partial)
        with partial.open("rb+") as f:
            os.fsync(f.fileno())
    except OSError:
        partial.unlink(missing_ok=True)
        raise

    previous: Path | None = None
    if db_path.exists():
        previous = aside_name(db_path, now)
        os.rename(db_path, previous)  # the name is free (checked under the exclusive lock)
    # The -wal and -shm belong to the old database (a crash may have left committed pages in the
    # WAL): they go aside with it, under the names SQLite pairs with the moved file, so the old
    # database can still be opened complete, and the restored one does not pick up a stale WAL.
    for suffix in ("-wal", "-shm", "-journal"):
        side = Path(f"{db_path}{suffix}")
        if side.exists():
            if previous is not None:
                os.rename(side, Path(f"{previous}{suffix}"))
            else:
                side.unlink()
    os.replace(partial, db_path)
    return RestoreResult(restored=db_path, previous=previous)


class FileSource:
    """A database file as the source of `backup_once`, opened read-only (the backup CLI): SQLite's online
    backup reads a consistent copy even while the bot writes to it."""

    def __init__(self, db_path: Path) -> None:
        self.db_path = Path(db_path)

    async def backup(self, dest_path: str | os.PathLike[str]) -> None:
        await asyncio.to_thread(copy_database, _uri(self.db_path), os.fspath(dest_path), uri=True)
