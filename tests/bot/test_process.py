"""``python -m bot`` as a process: configuration errors are one sentence, ``health`` answers, and SIGTERM
finishes the action in flight, closes the database and exits 0 with the game intact."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from engine import ai
from engine.maps import default_map
from engine.snapshot import load_state, maps_by_digest
from engine.state import Phase
from storage import open_store

ROOT = Path(__file__).resolve().parents[2]


def bare_env(**extra: str) -> dict[str, str]:
    """An environment with nothing of the developer's: no token, no settings. The checkout's own packages
    come first, so the child runs the code under test whether or not the project is installed."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.environ.get("HOME", "/tmp"),
        "PYTHONPATH": str(ROOT),
    }
    env.update(extra)
    return env


def test_no_token_is_one_sentence_and_a_failure(tmp_path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "bot"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=bare_env(),
        timeout=60,
    )
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "DISCORD_TOKEN is not set" in lines[0], proc.stderr


def test_health_subcommand_reports_a_stopped_bot(tmp_path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "bot", "health"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=bare_env(),
        timeout=60,
    )
    assert proc.returncode == 1 and "No heartbeat" in proc.stdout and "Traceback" not in proc.stderr
    from bot.process.health import write_heartbeat

    write_heartbeat(tmp_path / "data", time.time())
    (tmp_path / "data" / "alexandros.db").touch()
    proc = subprocess.run(
        [sys.executable, "-m", "bot", "health"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=bare_env(),
        timeout=60,
    )
    assert proc.returncode == 0 and proc.stdout.startswith("Healthy"), proc.stdout


class Console:
    """``python -m bot console`` reading its lines from a pipe."""

    def __init__(self, tmp_path: Path) -> None:
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "bot",
                "console",
                "--players",
                "a,b",
                "--db",
                str(tmp_path / "c.db"),
                "--out",
                str(tmp_path / "pics"),
                "--seed",
                "3",
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=tmp_path,
            env=bare_env(PYTHONUNBUFFERED="1", PYTHONPATH=str(ROOT)),
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)

    def send(self, text: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()

    def wait_for(self, marker: str, timeout: float = 30.0) -> None:
        end = time.monotonic() + timeout
        while not any(marker in s for s in self.seen):
            left = end - time.monotonic()
            assert left > 0, self._never_came(marker)
            try:
                self.seen.append(self.lines.get(timeout=left))
            except queue.Empty:
                continue

    def _never_came(self, marker: str) -> str:
        """What the console printed, and (it is stopped first) what it said on stderr: why it was silent."""
        self.proc.kill()
        assert self.proc.stderr is not None
        err = self.proc.stderr.read()
        return f"{marker!r} never came; output:\n{''.join(self.seen)[-3000:]}\nstderr:\n{err[-3000:]}"

    def finish(self, timeout: float = 30.0) -> tuple[int, str]:
        rc = self.proc.wait(timeout=timeout)
        assert self.proc.stderr is not None
        return rc, self.proc.stderr.read()


async def saved_game(db: Path) -> tuple[int, dict]:
    store = await open_store(db)
    try:
        (record,) = await store.list_games()
        snap = await store.load_snapshot(record.id)
        assert snap is not None and snap[0] == record.version and record.status == "playing"
        return record.version, snap[1]
    finally:
        await store.close()


async def test_sigterm_finishes_the_action_in_flight_and_keeps_the_game(tmp_path) -> None:
    import random

    from bot.texts import choices as ch
    from engine.game import new_game

    state, _ = new_game(default_map(), 2, 3)  # the console's game: seed 3, a sits first, b second
    move = ai.greedy_player(state, random.Random(0))
    card, to, path = ch.move_code(state, move)
    mover = "ab"[state.current]

    first = Console(tmp_path)
    first.wait_for("it is your turn")
    first.send(f"{mover}: /alexandros move card:{card} to:{to} path:{path}")
    first.wait_for("> " + mover)  # the line is being played now...
    first.proc.send_signal(signal.SIGTERM)  # ...when the stop comes
    rc, err = first.finish()
    assert rc == 0 and "Traceback" not in err, err
    version, snapshot = await saved_game(tmp_path / "c.db")
    moved = load_state(snapshot, maps_by_digest(default_map()))  # lean: the map by its digest
    assert moved.phase is Phase.ACTIONS and moved.current == state.current  # the move was finished

    second = Console(tmp_path)  # the same database: the game goes on where it was
    second.send("b: /alexandros status")
    second.wait_for("Walls left")
    second.proc.send_signal(signal.SIGTERM)
    rc, err = second.finish()
    assert rc == 0 and "Traceback" not in err, err
    assert f"Turn {moved.turn}:" in "".join(second.seen) and "(playing)" in "".join(second.seen)
    assert await saved_game(tmp_path / "c.db") == (version, snapshot)
