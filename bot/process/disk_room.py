"""Room on the bot's data disk, looked at every minute with the heartbeat (bot.__main__), so that the host
hears of a disk filling up before it is full: on a full disk no game can save a move (each is refused with
the bot's apology), and no backup can be made.

``DiskRoom.look`` reads the free bytes of the data folder's file system (``shutil.disk_usage``: one
``statvfs``, microseconds) and sets ``alexandros_disk_free_bytes``. Below the room the bot needs, twice the
SQLite database with its WAL (a backup copies it whole) and never less than 200 MB, it logs a warning, again
every hour while it lasts, and one line when there is room again. On PostgreSQL the database lives on the
server's disk: the folder still holds the backups and the heartbeat, so the same floor applies.
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import metrics

FLOOR = 200_000_000  # bytes: the least room asked for, however small the database
AGAIN_AFTER = 3600.0  # seconds: the warning again while the disk stays short

log = logging.getLogger("bot")


def size_text(n: float) -> str:
    """A size as a host reads it: 812 KB, 143 MB, 2.4 GB."""
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.1f} {unit}" if unit == "GB" else f"{n:.0f} {unit}"
        n /= 1000
    raise AssertionError("unreachable")


def database_bytes(db_path: Path | None) -> int:
    """The SQLite database's bytes with its WAL (0 on PostgreSQL, or before the file exists)."""
    if db_path is None:
        return 0
    total = 0
    for path in (db_path, db_path.with_name(db_path.name + "-wal")):
        try:
            total += path.stat().st_size
        except FileNotFoundError:
            pass
    return total


@dataclass
class DiskRoom:
    """Warns, through the log and the metric, while the data folder's disk has less room than the bot
    needs. ``db_path``: the SQLite file (None on PostgreSQL)."""

    data_dir: Path
    db_path: Path | None = None
    usage: Callable[[Path], Any] = shutil.disk_usage
    _warned_at: float | None = None

    def needed(self) -> int:
        return max(FLOOR, 2 * database_bytes(self.db_path))

    def look(self, now: float) -> int:
        """The free bytes now; a warning when short (again after an hour), a line when no longer."""
        free = int(self.usage(self.data_dir).free)
        metrics.DISK_FREE.set(free)
        need = self.needed()
        if free < need:
            if self._warned_at is None or now - self._warned_at >= AGAIN_AFTER:
                log.warning(
                    "the disk of %s is nearly full: %s free, and the bot needs %s (twice the database, "
                    "and at least %s): when it is full no game can save a move and no backup can be made. "
                    "Free some space, or keep fewer backups (ALEXANDROS_BACKUP_KEEP)",
                    self.data_dir, size_text(free), size_text(need), size_text(FLOOR),
                )  # fmt: skip
                self._warned_at = now
        elif self._warned_at is not None:
            log.info("the disk of %s has room again: %s free", self.data_dir, size_text(free))
            self._warned_at = None
        return free
