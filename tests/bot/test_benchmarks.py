"""The benchmark scripts still run (on a tiny size: their figures mean nothing here; run them by hand)."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


def bench(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_bench_bot_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench("bench_bot").main(games=2, stall_games=0, actions=1, baseline=False) == 0
    out = capsys.readouterr().out
    assert "act/s" in out and "chan/act" in out
    assert "2 distinct deals and 2 distinct games of 2, 2 actions seen shown, event loop uvloop" in out


@pytest.mark.parametrize("session", ["own", "shared"])
def test_bench_bots_burners_spin_in_their_session_and_stop(session: str) -> None:
    """``--busy 2``: two spinning processes in one process group, in a session of their own (another
    program's scheduling group) or in the benchmark's; none left after ``stop``."""
    burners = bench("bench_bot").Burners(2, session)
    burners.start()
    try:
        group = burners._proc.pid
        # A loaded machine may start them slowly: up to 20 s for the fork (one spin in a tenth of a second).
        members = _waited(lambda: [int(p) for p in _pgrep(group)], lambda found: len(found) >= 2)
        assert len(members) == 2, members
        for pid in members:
            assert (os.getsid(pid) != os.getsid(0)) == (session == "own")
            assert _field(Path(f"/proc/{pid}"), 2) == "R"  # spinning
    finally:
        burners.stop()
    assert _waited(lambda: _pgrep(group), lambda found: not found) == []  # the orphan reaped by init


def _waited(look: Callable[[], list[Any]], done: Callable[[list[Any]], bool]) -> list[Any]:
    deadline = time.monotonic() + 20
    found = look()
    while not done(found) and time.monotonic() < deadline:
        time.sleep(0.05)
        found = look()
    return found


def _pgrep(group: int) -> list[str]:
    return [
        d.name
        for d in Path("/proc").iterdir()
        if d.name.isdigit() and _field(d, 4) == str(group) and _field(d, 2) != "Z"
    ]


def _field(proc: Path, n: int) -> str:
    """Field ``n`` of /proc/PID/stat, counted from 0 at the pid (2 is the state, 4 the process group)."""
    try:
        return (proc / "stat").read_text().rsplit(")", 1)[1].split()[n - 2]
    except (OSError, IndexError):
        return ""


def test_bench_bot_says_what_ran_in_the_loops_longest_gap(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stall probe's run names what held the loop in its longest gap, with each one's steps and CPU: on
    asyncio's loop (``--loop asyncio``), whose callbacks it times (uvloop's are its own)."""
    monkeypatch.setenv("ALX_BENCH_EVENT_LOOP", "asyncio")
    assert bench("bench_bot").main(games=2, stall_games=2, actions=2, baseline=False) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if "stall probe: in the longest gap" in x)
    assert re.search(r"\S+ x\d+ \d+\.\d ms", line), line


def test_bench_bot_records_its_pictures_and_bench_pictures_replays_them(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """bench_bot --record-pictures writes every picture its bot asked for; bench_pictures replays them in
    fresh processes, this tree against another (here this tree again), and compares the files."""
    recorded = tmp_path / "pictures.pkl"
    bot = bench("bench_bot")
    monkeypatch.setenv(bot.RECORD, str(recorded))
    assert bot.main(games=2, stall_games=0, actions=3, baseline=False) == 0
    assert recorded.stat().st_size > 0
    capsys.readouterr()
    here = Path(__file__).resolve().parents[2]
    argv = [str(recorded), "--against", str(here), "--rounds", "1", "--actions", "6"]
    assert bench("bench_pictures").main(argv) == 0
    out = capsys.readouterr().out
    assert "files this tree's" in out and "files the same" in out and "board " in out, out
    assert re.search(r"\d+ pictures, [\d.]+ s CPU, [\d.]+ ms an action", out), out


def test_bench_web_runs_rounds_with_and_without_watchers(capsys: pytest.CaptureFixture[str]) -> None:
    argv = "--games 2 --watched 2 --watchers 4 --actions 1 --repeat 2".split()
    assert bench("bench_web").main(argv) == 0
    out = capsys.readouterr().out
    assert out.count("round 1, ") == 2 and out.count("round 2, ") == 2
    assert "missed 0" in out and "interaction p99 over all rounds' 4 interactions each" in out


def test_bench_web_lets_the_fakes_old_records_go_and_the_bot_never_asks_for_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The fake Discord's old messages and tokens leave the bot's process (a real Discord keeps them on its
    servers), and the bot never asks for one of them again: no 404 for a message or a token."""
    argv = "--games 2 --watched 2 --watchers 2 --actions 14 --repeat 1".split()
    assert bench("bench_web").main(argv) == 0
    runs = [
        json.loads(line[line.index("{") :])
        for line in capsys.readouterr().out.splitlines()
        if line.startswith("round 1,")
    ]
    assert len(runs) == 2
    for run in runs:
        assert run["records let go"] > 0 and run["forgotten used"] == 0, run


def test_bench_memory_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench("bench_memory").main(games=40, baseline=0, cache=10) == 0
    assert "RSS" in capsys.readouterr().out


def test_a_finished_game_leaves_at_most_40_kb_in_either_database(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 32: twelve whole games through the store as the bot plays and delivers them, on SQLite and on
    PostgreSQL (its live rows, after VACUUM FULL), leave at most 40 KB each (the target). Before the lean
    outbox a finished game left about 600 KB here (every delivered post and edit kept its picture's state),
    before the packing about 94 KB on SQLite and 122 KB on PostgreSQL (an event's row each, 60 KB a game,
    and a delivered duty's row each, 216 a game). So few games round each table's pages up by a few KB a
    game (the long runs: docs/MEASURED.md)."""
    assert bench("bench_size").main(["--games", "12", "--players", "2", "--parts", "1"]) == 0
    out = capsys.readouterr().out
    sqlite, postgres = [line for line in out.splitlines() if "after    12 games" in line]
    per_game = float(sqlite.split(" KB a game")[0].rsplit(" ", 1)[1])
    live = float(postgres.split(" KB a game after VACUUM FULL")[0].rsplit(" ", 1)[1])
    assert 0 < per_game <= 40 and 0 < live <= 40, out


def test_bench_notices_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert asyncio.run(bench("bench_notices").main(games=5, baseline=3)) == 0
    out = capsys.readouterr().out
    assert "exactly once" in out and " NO" not in out


def test_bench_wakeups_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert asyncio.run(bench("bench_wakeups").main(samples=3, poll=0.2, poll_samples=2)) == 0
    assert "LISTEN/NOTIFY" in capsys.readouterr().out


def test_bench_wakeups_survives_a_claim_made_before_add_duties_returns(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race that hung a loaded machine for ever: the owner, woken by NOTIFY, claims a duty before the
    writer's add_duties has returned. The writer's add_duties is held back here until the claim is surely
    made; before the fix the owner's loop died on a KeyError and the run never ended."""
    from storage.postgres import PostgresGameStore

    real = PostgresGameStore.add_duties

    async def late(self: PostgresGameStore, *args: object, **kwargs: object) -> object:
        added = await real(self, *args, **kwargs)  # type: ignore[arg-type]
        await asyncio.sleep(1.0)
        return added

    monkeypatch.setattr(PostgresGameStore, "add_duties", late)

    async def run() -> int:
        wakeups = bench("bench_wakeups").main(samples=3, poll=0.2, poll_samples=1)
        return int(await asyncio.wait_for(wakeups, 60))

    assert asyncio.run(run()) == 0
    assert "LISTEN/NOTIFY" in capsys.readouterr().out


def test_bench_store_runs(capsys: pytest.CaptureFixture[str]) -> None:
    """It had not run since the outbox replaced notices (it imported NewNotice)."""
    assert bench("bench_store").main(["--games", "5", "--seconds", "0.2", "--concurrency", "1,2"]) == 0
    out = capsys.readouterr().out
    assert "actions/s" in out and "integrity check: ok" in out


def test_bench_store_ab_runs_both_trees_on_both_backends(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        bench("bench_store_ab").main(["--before", "HEAD", "--rounds", "1", "--batch", "5", "--warm", "2"])
        == 0
    )
    out = capsys.readouterr().out
    for backend, tree in (
        ("sqlite", "before"),
        ("sqlite", "now"),
        ("postgres", "before"),
        ("postgres", "now"),
    ):
        assert re.search(rf"^{backend} +{tree} +[0-9.]+ +[0-9.]+ ", out, re.M), out


def test_bench_labels_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench("bench_labels").main(games=1, every=40, runs=1, baseline=False) == 0
    assert "ms CPU a board" in capsys.readouterr().out


def test_bench_computers_runs_rounds_with_and_without_computer_tables(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 29, item 2: people's games beside tables of computers playing by themselves (tiny sizes, the
    easy level: the figures mean nothing here; the computers at nice 10, not in the idle class, so that they
    play in the short clock on a loaded machine too)."""
    argv = "--games 2 --computers 2 --actions 12 --repeat 2 --level easy --workers 1 --turns-nice 10".split()
    assert bench("bench_computers").main(argv) == 0
    out = capsys.readouterr().out
    for k in (1, 2):
        assert f"round {k}, without computers: " in out and f"round {k}, with 2 computer tables: " in out
    assert "interaction p99 over all rounds' " in out and "each round's: " in out
    assert "the computers played during the clock: met" in out, out
