"""bot.process.health: the heartbeat is fresh, stale or missing; the database must be readable."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from bot.process.health import check_health, clear_heartbeat, heartbeat_path, read_heartbeat, write_heartbeat

ROOT = Path(__file__).resolve().parents[2]
NOW = 1_780_000_000.0


def make_db(data_dir: Path) -> Path:
    db = data_dir / "alexandros.db"
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("CREATE TABLE games (id INTEGER)")
    conn.commit()
    conn.close()
    return db


def test_fresh_heartbeat_is_healthy(tmp_path: Path) -> None:
    make_db(tmp_path)
    write_heartbeat(tmp_path, NOW - 60)
    assert read_heartbeat(tmp_path) == NOW - 60
    ok, sentence = check_health(tmp_path, NOW)
    assert ok and sentence.startswith("Healthy")


def test_stale_heartbeat_is_unhealthy(tmp_path: Path) -> None:
    make_db(tmp_path)
    write_heartbeat(tmp_path, NOW - 181)
    ok, sentence = check_health(tmp_path, NOW)
    assert not ok and "181 s old" in sentence
    assert check_health(tmp_path, NOW, max_age=600)[0]


def test_missing_or_garbled_heartbeat_is_unhealthy(tmp_path: Path) -> None:
    make_db(tmp_path)
    ok, sentence = check_health(tmp_path, NOW)
    assert not ok and "No heartbeat" in sentence
    heartbeat_path(tmp_path).write_text("not a time")
    assert not check_health(tmp_path, NOW)[0]
    write_heartbeat(tmp_path, NOW)
    clear_heartbeat(tmp_path)
    clear_heartbeat(tmp_path)  # twice is fine
    assert read_heartbeat(tmp_path) is None


def test_unreadable_database_is_unhealthy(tmp_path: Path) -> None:
    write_heartbeat(tmp_path, NOW)
    ok, sentence = check_health(tmp_path, NOW)
    assert not ok and "does not exist" in sentence
    (tmp_path / "alexandros.db").write_bytes(b"garbage" * 1000)
    ok, sentence = check_health(tmp_path, NOW)
    assert not ok and "cannot be read" in sentence


def test_health_check_does_not_touch_the_database(tmp_path: Path) -> None:
    db = make_db(tmp_path)
    before = db.read_bytes()
    write_heartbeat(tmp_path, NOW)
    assert check_health(tmp_path, NOW)[0]
    assert db.read_bytes() == before


def test_module_command_exit_codes(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ALEXANDROS_", "DISCORD_"))}
    env.update(PYTHONPATH=str(ROOT), ALEXANDROS_DATA_DIR=str(tmp_path))

    def run() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "bot.process.health"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=30,
        )

    missing = run()
    assert missing.returncode == 1 and "No heartbeat" in missing.stdout
    make_db(tmp_path)
    write_heartbeat(tmp_path, time.time())
    healthy = run()
    assert healthy.returncode == 0, healthy.stdout + healthy.stderr
    assert healthy.stdout.startswith("Healthy")
