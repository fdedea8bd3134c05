"""The lock a running bot holds on its SQLite database, so that a restore can tell it is running.

Why a lock file and not only the heartbeat: a heartbeat is a guess in both directions. It stays "fresh"
for three minutes after a crash (a restore is refused for nothing), and it is written only once a minute,
after the bot has started (a restore in the first seconds of a start is allowed). An advisory lock on
``<database>.lock`` is exact: the kernel holds it exactly as long as the bot process lives, and drops it
when the process ends in any way (clean stop, crash, kill -9), so nothing stale is ever left behind.

- The bot (``python -m bot``) and the console take a SHARED lock before they open the database and keep
  it until they exit: several bot processes (a sharded cluster on one file) may hold it together.
- A restore takes the EXCLUSIVE lock, without waiting, for the whole restore: it is refused with a
  sentence while any bot holds the shared one, and a bot that starts during a restore is refused too.

``flock`` locks belong to the open file, not to the process, so the lock also works between two opens in
one process (the tests rely on this). Where ``fcntl`` does not exist (Windows), or the folder refuses file
locks (some network file systems), the lock is never held and the restore falls back on the heartbeat and
the database's own locks (bot.process.backups).

API
---
lock_path(db_path) -> Path
hold(db_path, exclusive=False) -> RunLock | None     None: someone holds a conflicting lock
open_checks(database_url, db_path) -> RunLock | str  the bot's and the console's start: hold the shared
                                                     lock, then check the file and that it may be
                                                     written (storage.preflight); a
                                                     str is the one sentence why they cannot start
RunLock.release()                                    also a context manager
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from types import TracebackType

from storage import BadDatabase, check_database

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = ["RunLock", "check_writable", "hold", "lock_path", "open_checks"]


def lock_path(db_path: Path) -> Path:
    db_path = Path(db_path)
    return db_path.with_name(db_path.name + ".lock")


class RunLock:
    """A held lock; ``release()`` (or leaving the ``with`` block) lets it go. The file stays: removing
    it could let two holders lock two different files of the same name."""

    def __init__(self, fd: int | None, path: Path) -> None:
        self._fd = fd
        self.path = path

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)  # closing the file drops its flock

    def __enter__(self) -> RunLock:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()


def hold(db_path: Path, exclusive: bool = False) -> RunLock | None:
    """Take the lock beside `db_path` without waiting; None when a conflicting lock is held."""
    path = lock_path(db_path)
    if fcntl is None:
        return RunLock(None, path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB)
    except OSError as err:
        os.close(fd)
        if err.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
            return None  # held by another
        # A folder without file locks (some network file systems): no lock, as where fcntl is missing.
        return RunLock(None, path)
    return RunLock(fd, path)


def open_checks(database_url: str, db_path: Path) -> RunLock | str:
    """Before the bot (or the console) opens an SQLite database: hold its run lock, then check the file
    (storage.preflight). Returns the held lock, or the one sentence saying why it cannot start."""
    db_path = Path(db_path)
    if database_url:
        return RunLock(None, db_path)  # PostgreSQL: checked by its own migrations, and never restored here
    try:
        held = hold(db_path)
    except OSError as err:
        # No lock file there, so no database either: SQLite writes its journal beside the file.
        why = err.strerror or type(err).__name__
        return (
            f"The database {db_path} cannot be created or written ({why}): set ALEXANDROS_DB (or "
            "ALEXANDROS_DATA_DIR) to a file in a folder this user may write."
        )
    if held is None:
        return f"A restore of {db_path} is under way: wait for it to finish (or stop it), then start again."
    try:
        check_database(db_path)
        check_writable(db_path)
    except BadDatabase as err:
        held.release()
        return str(err)
    return held


def check_writable(path: str | os.PathLike[str]) -> None:
    """Raise BadDatabase ("unwritable") when the file at `path`, or its -wal or -shm file, exists and this
    process's user cannot open it for writing (a mode 0444 file, a file of another user, a read-only mount):
    SQLite opens a read-only file without complaint, and every write then fails. Asked at the start, beside
    the store's own check of the file (storage.preflight); a missing file passes (the run lock asks whether
    its folder is writable)."""
    path = Path(path)
    for file in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        if not file.is_file():
            continue
        try:
            fd = os.open(file, os.O_WRONLY)  # neither truncates nor writes: only asks for write access
        except OSError as exc:
            why = exc.strerror or type(exc).__name__
            raise BadDatabase(
                "unwritable",
                path,
                f"The database {file} cannot be written by this user ({why})",
                "give the bot's user write access to it (for example chown it to that user and chmod u+w), "
                "or point ALEXANDROS_DB at a file it may write",
            ) from None
        os.close(fd)
