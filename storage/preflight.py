"""The check of an SQLite file before anything opens it for writing (issue 11, "bad files").

Opening a damaged or foreign file with the store would change it (switching to WAL rewrites the header, the
migrations write tables), so the store, the bot's entry point, the console and the backup CLI first look at
it read-only (``immutable=1`` when no -wal file exists) and refuse it with one sentence saying what is wrong
and what to do (`BadDatabase.kind`): unopenable, garbage (no SQLite header), truncated (shorter than its
header says), corrupt (``PRAGMA quick_check``), newer (a schema above `LATEST_VERSION`), foreign (another
program's tables). A missing or empty file passes: the store creates the database there. Whether this
process's user may write it is asked at the bot's start (bot.process.runlock.check_writable).
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Final, Literal

from .base import SchemaTooNew, StoreError
from .migrations import LATEST_VERSION

Kind = Literal["unopenable", "garbage", "truncated", "corrupt", "newer", "foreign", "missing", "unwritable"]

MAGIC: Final[bytes] = b"SQLite format 3\x00"
HEADER_SIZE: Final[int] = 100
_RESTORE: Final[str] = "restore a backup (python -m bot restore FILE) or point the bot at another file"


class BadDatabase(StoreError):
    """A database file the store refuses to open. ``kind`` says which check failed; str() is one sentence
    saying what is wrong and what to do."""

    def __init__(self, kind: Kind, path: Path, what: str, advice: str = "") -> None:
        super().__init__(f"{what}: {advice or _RESTORE}.")
        self.kind: Kind = kind
        self.path = path
        self.what = what  # the clause saying what is wrong, without advice (a restore gives its own)


class DatabaseTooNew(BadDatabase, SchemaTooNew):
    """The "newer" kind: also a SchemaTooNew, which callers of the migrations already catch."""


def inspect_database(path: str | os.PathLike[str]) -> BadDatabase | None:
    """What is wrong with the SQLite file at `path`, or None when the store may open it."""
    path = Path(path)
    if not path.exists():
        return None
    try:
        with path.open("rb") as f:
            header = f.read(HEADER_SIZE)
        size = path.stat().st_size
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        return BadDatabase(
            "unopenable",
            path,
            f"The database {path} cannot be opened ({why})",
            f"give the bot's user access to it, or {_RESTORE}",
        )
    if size == 0:
        return None  # a new, empty file: SQLite makes a database of it
    if header[: len(MAGIC)] != MAGIC[: len(header)]:
        return BadDatabase(
            "garbage",
            path,
            f"The file {path} is not an SQLite database (it does not start with SQLite's header)",
        )
    page = int.from_bytes(header[16:18], "big") if len(header) == HEADER_SIZE else 0
    page = 65536 if page == 1 else page  # the size 65536 is written as 1
    # The header's page count is reliable when its "valid for" counter matches the change counter; with
    # a -wal file beside it, a checkpoint cut short may legitimately leave the file shorter (the WAL has
    # the pages), so the length is then left to SQLite's own check.
    counted = len(header) == HEADER_SIZE and header[24:28] == header[92:96]
    pages = int.from_bytes(header[28:32], "big") if counted else 0
    has_wal = Path(f"{path}-wal").exists()
    if page < 512 or size % page or (not has_wal and size < pages * page):
        return BadDatabase(
            "truncated",
            path,
            f"The database {path} is truncated ({size} bytes, shorter than its header says)",
        )
    return _inspect_content(path, has_wal)


def _inspect_content(path: Path, has_wal: bool) -> BadDatabase | None:
    # Read-only, and immutable when there is no WAL to read: then SQLite creates no -shm/-wal beside it.
    uri = f"{path.resolve().as_uri()}?mode=ro" + ("" if has_wal else "&immutable=1")
    try:
        conn = sqlite3.connect(uri, uri=True, timeout=5.0)
        try:
            check = [str(r[0]) for r in conn.execute("PRAGMA quick_check(3)").fetchall()]
            version = int(conn.execute("PRAGMA user_version").fetchone()[0])
            tables = {str(r[0]) for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        return BadDatabase("corrupt", path, f"The database {path} is damaged (SQLite says: {exc})")
    if check != ["ok"]:
        said = " ".join(" ".join(check).split())[:200]  # one line: SQLite's report spans several
        return BadDatabase(
            "corrupt",
            path,
            f"The database {path} is damaged (SQLite's check says: {said})",
        )
    if version > LATEST_VERSION:
        return DatabaseTooNew(
            "newer",
            path,
            f"The database {path} was written by a newer version of the bot (schema {version}, this one "
            f"knows {LATEST_VERSION})",
            "upgrade the bot, or restore a backup made by this version",
        )
    if tables and "games" not in tables:
        return BadDatabase(
            "foreign",
            path,
            f"The file {path} is an SQLite database of another program (it has no games table of this bot)",
            "point the bot at another file, or restore a backup",
        )
    return None


def check_database(path: str | os.PathLike[str]) -> None:
    """Raise BadDatabase unless the store may open the file at `path` (missing and empty files pass)."""
    problem = inspect_database(path)
    if problem is not None:
        raise problem
