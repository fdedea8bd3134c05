"""Health check of a running bot: a heartbeat file it touches every minute, and a readable database.

A process can be alive and stuck (a dead event loop, a lost gateway the library never resumes),
so the Docker HEALTHCHECK asks for proof of life: the bot writes the current time to
`<data dir>/heartbeat` every minute from its event loop, and the check, run in a separate process,
fails when that time is older than `max_age` seconds or when the database cannot be opened and
read (read-only, so the check can never change or lock it).

API
---
write_heartbeat(data_dir, now) -> None      the bot calls this every 60 s from its event loop
clear_heartbeat(data_dir) -> None           the bot calls this on a clean shutdown, so that
                                            `restore` does not have to wait for it to go stale
read_heartbeat(data_dir) -> float | None
check_health(data_dir, now, max_age=180, db_path=None) -> (ok, sentence)
check_web(port, timeout=5) -> (ok, sentence) asks the running bot's own /healthz (bot.web): its event loop
                                            answers and its store is reachable
main(argv=None) -> int                      `python -m bot.process.health` (the Dockerfile's HEALTHCHECK and
                                            compose's): /healthz when the web face is on
                                            (ALEXANDROS_WEB_PORT), else the heartbeat; prints the
                                            sentence, exits 0 when healthy, else 1

With the web face on, the bot answers the check itself (``/healthz``: its event loop answers and its store,
SQLite or PostgreSQL, is reachable), which a stuck loop cannot fake either.

Nothing here imports discord.py, and the check functions take paths, not a Config, so they stay
fast (the check runs every minute) and usable from any command.
"""

from __future__ import annotations

import math
import os
import sqlite3
import sys
import time
from collections.abc import Sequence
from pathlib import Path

__all__ = [
    "HEARTBEAT_EVERY",
    "HEARTBEAT_NAME",
    "MAX_AGE",
    "check_health",
    "clear_heartbeat",
    "heartbeat_path",
    "main",
    "read_heartbeat",
    "write_heartbeat",
]

HEARTBEAT_NAME = "heartbeat"
HEARTBEAT_EVERY = 60.0  # seconds between two writes by the bot
MAX_AGE = 180.0  # three missed beats: one late beat on a busy loop must not mark the bot unhealthy


def heartbeat_path(data_dir: Path) -> Path:
    return Path(data_dir) / HEARTBEAT_NAME


def write_heartbeat(data_dir: Path, now: float) -> None:
    """Record `now` as the latest sign of life. Atomic: a reader sees the old or the new time."""
    path = heartbeat_path(data_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    # The time is written into the file rather than read from its mtime so that tests (and the
    # check) use the caller's clock, and a volume with odd mtimes cannot fool the check.
    partial.write_text(f"{now:.3f}\n", encoding="ascii")
    os.replace(partial, path)


def clear_heartbeat(data_dir: Path) -> None:
    heartbeat_path(data_dir).unlink(missing_ok=True)


def read_heartbeat(data_dir: Path) -> float | None:
    """The time in the heartbeat file, or None when there is no readable heartbeat."""
    try:
        value = float(heartbeat_path(data_dir).read_text(encoding="ascii").strip())
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    return value if math.isfinite(value) else None


def _database_readable(db_path: Path) -> str | None:
    """None when the database opens read-only and answers a query; else what went wrong."""
    if not db_path.is_file():
        return f"the database {db_path} does not exist"
    try:
        conn = sqlite3.connect(f"{db_path.resolve().as_uri()}?mode=ro", uri=True, timeout=5.0)
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        finally:
            conn.close()
    except sqlite3.Error as exc:
        return f"the database {db_path} cannot be read ({exc})"
    return None


def check_health(
    data_dir: Path,
    now: float,
    max_age: float = MAX_AGE,
    db_path: Path | None = None,
    check_database: bool = True,
) -> tuple[bool, str]:
    """(healthy?, one sentence saying why). `db_path` defaults to `<data_dir>/alexandros.db`; a bot on
    PostgreSQL passes ``check_database=False`` (its database has a health check of its own)."""
    data_dir = Path(data_dir)
    beat = read_heartbeat(data_dir)
    if beat is None:
        return (
            False,
            f"No heartbeat in {heartbeat_path(data_dir)}: the bot is not running or has not started yet.",
        )
    age = now - beat
    if age > max_age:
        return (
            False,
            f"The last heartbeat is {age:.0f} s old (limit {max_age:.0f} s): the bot is stuck or stopped.",
        )
    if not check_database:
        return True, f"Healthy: last heartbeat {max(age, 0.0):.0f} s ago."
    problem = _database_readable(Path(db_path) if db_path is not None else data_dir / "alexandros.db")
    if problem is not None:
        return False, f"The bot is beating but {problem}."
    return True, f"Healthy: last heartbeat {max(age, 0.0):.0f} s ago, database readable."


def check_web(port: int, timeout: float = 5.0) -> tuple[bool, str]:
    """(healthy?, sentence) from the bot's ``/healthz`` on this machine (200: healthy; 503 says why)."""
    import urllib.error
    import urllib.request

    url = f"http://127.0.0.1:{port}/healthz"
    try:
        with urllib.request.urlopen(url, timeout=timeout) as answer:  # noqa: S310 - a fixed local address
            return True, answer.read(500).decode("utf-8", "replace").strip()
    except urllib.error.HTTPError as error:
        return False, f"Unhealthy: {error.read(500).decode('utf-8', 'replace').strip()}"
    except (OSError, ValueError) as error:
        why = type(error).__name__
        return False, f"Unhealthy: {url} does not answer ({why}): the bot is stopped or stuck."


def main(argv: Sequence[str] | None = None) -> int:
    """Check the bot configured by the environment (and .env); print one line; 0 = healthy."""
    from .config import ConfigError, load_config  # the config module does not import discord.py

    del argv  # no options: the paths come from the same variables the bot reads
    try:
        config = load_config(os.environ, Path(".env"), require_token=False)
    except ConfigError as exc:
        print(f"Unhealthy: {exc}")
        return 1
    if config.web_port is not None:
        ok, sentence = check_web(config.web_port)
        print(sentence)
        return 0 if ok else 1
    # A PostgreSQL store is watched by its own server's health check (compose.yaml): the heartbeat here.
    db = None if config.database_url else config.db_path
    ok, sentence = check_health(config.data_dir, time.time(), db_path=db, check_database=db is not None)
    print(sentence)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
