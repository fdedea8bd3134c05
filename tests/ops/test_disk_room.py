"""The room on the data disk (bot.process.disk_room): the host hears of a disk filling up before it is full,
in the log and in ``alexandros_disk_free_bytes``, and the heartbeat of a running bot looks every minute."""

from __future__ import annotations

import asyncio
import logging
import shutil
from pathlib import Path
from types import SimpleNamespace

from bot.process import metrics
from bot.process.disk_room import FLOOR, DiskRoom, size_text

NOW = 1_800_000_000.0


def free_metric() -> float | None:
    return metrics.REGISTRY.get_sample_value("alexandros_disk_free_bytes")


def disk(free: list[int]):
    """A disk whose free bytes are ``free[0]`` (changed by the test as it goes)."""
    return lambda _path: SimpleNamespace(free=free[0], total=10**12, used=0)


def warnings(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "bot" and r.levelno == logging.WARNING]


def test_a_disk_short_of_room_is_told_at_once_then_hourly_and_its_end_once(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="bot")
    free = [150_000_000]
    room = DiskRoom(tmp_path, tmp_path / "alexandros.db", usage=disk(free))
    assert room.look(NOW) == 150_000_000 and free_metric() == 150_000_000
    (said,) = warnings(caplog)
    assert "nearly full: 150 MB free, and the bot needs 200 MB" in said and str(tmp_path) in said
    assert "ALEXANDROS_BACKUP_KEEP" in said
    room.look(NOW + 60)
    room.look(NOW + 3599)
    assert len(warnings(caplog)) == 1, "once an hour while it lasts, not every minute"
    room.look(NOW + 3600)
    assert len(warnings(caplog)) == 2
    free[0] = 900_000_000
    room.look(NOW + 3660)
    room.look(NOW + 3720)
    back = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]
    assert back == [f"the disk of {tmp_path} has room again: 900 MB free"]
    assert free_metric() == 900_000_000
    free[0] = 100_000_000
    room.look(NOW + 3780)
    assert len(warnings(caplog)) == 3, "short again: told at once"


def test_the_room_needed_is_twice_the_database_with_its_wal(tmp_path, caplog):
    """A backup copies the database whole: twice it (with the WAL) is asked for, once it passes the floor.
    The files are sparse: their sizes are what counts, not the blocks they hold."""
    db = tmp_path / "alexandros.db"
    with open(db, "wb") as f:
        f.truncate(150_000_000)
    with open(tmp_path / "alexandros.db-wal", "wb") as f:
        f.truncate(10_000_000)
    free = [250_000_000]
    room = DiskRoom(tmp_path, db, usage=disk(free))
    assert room.needed() == 320_000_000
    room.look(NOW)
    (said,) = warnings(caplog)
    assert "250 MB free, and the bot needs 320 MB" in said
    on_postgres = DiskRoom(tmp_path, None, usage=disk(free))
    assert on_postgres.needed() == FLOOR  # the database is on the server's disk; the backups are here
    assert [size_text(n) for n in (812, 812_000, 143_000_000, 2_400_000_000)] == [
        "812 B", "812 KB", "143 MB", "2.4 GB",
    ]  # fmt: skip


async def test_the_heartbeat_of_a_running_bot_looks_at_the_disk(tmp_path, caplog):
    """bot.__main__'s heartbeat loop sets the metric to the disk's real free bytes at its first beat, and a
    disk it cannot read is a warning, not the end of the heartbeat."""
    from bot.__main__ import _heartbeat

    metrics.DISK_FREE.set(-1)
    task = asyncio.create_task(_heartbeat(tmp_path, tmp_path / "alexandros.db"))
    try:
        async with asyncio.timeout(10):
            while free_metric() == -1:
                await asyncio.sleep(0.01)
        assert abs(free_metric() - shutil.disk_usage(tmp_path).free) < 100_000_000
        assert (tmp_path / "heartbeat").exists()
    finally:
        task.cancel()
    (tmp_path / "a-file").write_text("")
    gone = tmp_path / "a-file" / "data"  # neither written nor read: a folder under a file
    task = asyncio.create_task(_heartbeat(gone, None))
    try:
        async with asyncio.timeout(10):
            while not any("could not read the room" in w for w in warnings(caplog)):
                await asyncio.sleep(0.01)
        assert not task.done()
    finally:
        task.cancel()


def test_the_metric_is_described_for_hosts() -> None:
    docs = Path(__file__).resolve().parents[2] / "docs"
    assert "| `alexandros_disk_free_bytes` |" in (docs / "WEB.md").read_text()  # the metrics' table
    assert "`alexandros_disk_free_bytes`" in (docs / "HOSTING.md").read_text()  # the logs' section
