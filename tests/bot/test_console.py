"""The local console plays the real bot through the offline Discord: commands, buttons, selects, pictures."""

from __future__ import annotations

import argparse
import io
import subprocess
import sys
from pathlib import Path

from bot.console import parse_options, run

ROOT = Path(__file__).resolve().parents[2]
pytest_plugins = ["tests.harness.fixtures"]


def test_options_are_split_on_names() -> None:
    assert parse_options("card:n1 to:D7@3.6 path:2") == {"card": "n1", "to": "D7@3.6", "path": "2"}
    assert parse_options("card:face-up 1: horse") == {"card": "face-up 1: horse"}


async def test_a_console_session(tmp_path, no_network) -> None:
    lines = io.StringIO(
        "alice: press My hand\n"
        "bob: press My hand\n"
        "bob: /alexandros status\n"
        "alice: /alexandros move card:?\n"
        "alice: press Move\n"
        "alice: select 1 #1\n"
        "alice: select 1 #1\n"
        "nobody: press 1\n"
        "alice: /alexandros end\n"
        "quit\n"
    )
    out = io.StringIO()
    args = argparse.Namespace(
        players="alice,bob", db=str(tmp_path / "c.db"), out=str(tmp_path / "pics"), seed=3
    )
    assert await run(args, lines, out) == 0
    text = out.getvalue()
    assert "[public]" in text and "[only alice]" in text and "[only bob]" in text
    assert "Your hand" in text and "Walls left" in text
    assert "n1" in text or "n2" in text  # the autocomplete answer for the card
    assert "step 2 of 3" in text  # the guided move went on to the points
    assert "Start a line with a player's name" in text
    assert "@alice" in text and "<@" not in text.split("[only bob]")[-1]
    pictures = sorted((tmp_path / "pics").glob("*.png"))
    assert any(p.name.endswith("board.png") for p in pictures) and any("hand" in p.name for p in pictures)
    assert all(p.read_bytes().startswith(b"\x89PNG") for p in pictures)


def test_python_m_bot_console_runs_from_the_command_line(tmp_path) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "bot",
            "console",
            "--players",
            "ann,ben",
            "--db",
            str(tmp_path / "x.db"),
            "--out",
            str(tmp_path / "p"),
            "--seed",
            "1",
        ],
        input="ann: /alexandros rules\nquit\n",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 0, proc.stderr
    assert "Alexandros" in proc.stdout and "Traceback" not in proc.stderr


def test_missing_token_is_one_sentence(tmp_path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "bot"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
        timeout=60,
    )
    assert proc.returncode != 0
    assert "DISCORD_TOKEN" in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
