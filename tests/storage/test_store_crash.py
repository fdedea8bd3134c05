"""Crash test: a writer process is SIGKILLed at random moments, again and again, on one database.

After every kill the database must open, pass the integrity check, and hold exactly what was
committed: every transaction the child reported, plus at most one it committed but had no time
to report, and nothing half-written.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import sys
from dataclasses import dataclass, field
from pathlib import Path

from storage import GameRecord, GameStore, open_store

CHILD = Path(__file__).with_name("store_crash_child.py")
ROOT = Path(__file__).resolve().parents[2]
KILLS = 20


@dataclass
class Known:
    """What the parent knows was committed: game id -> version."""

    versions: dict[int, int] = field(default_factory=dict)


async def run_child_and_kill(db: Path, seed: int, rng: random.Random) -> list[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, str(CHILD), str(db), str(seed), stdout=asyncio.subprocess.PIPE, env=env, cwd=ROOT
    )
    assert proc.stdout is not None
    if rng.random() < 0.2:
        # Sometimes kill it while it is still opening (connecting, migrating, switching to WAL).
        await asyncio.sleep(rng.uniform(0.0, 0.25))
    else:
        first = await asyncio.wait_for(proc.stdout.readline(), timeout=20)
        assert first == b"ready\n", first
        await asyncio.sleep(rng.uniform(0.005, 0.15))
    proc.send_signal(signal.SIGKILL)
    out, _ = await proc.communicate()
    assert proc.returncode == -signal.SIGKILL, f"child ended by itself: {proc.returncode}"
    # A line cut short by the kill was not reported.
    return [line for line in out.decode().split("\n")[:-1] if line != "ready"]


async def check_game(store: GameStore, game: GameRecord) -> None:
    events = await store.events(game.id)
    assert [v for v, _ in events] == list(range(1, game.version + 1)), f"game {game.id} has a gap"
    assert all(body == {"n": v} for v, body in events), f"game {game.id} has a foreign event"
    loaded = await store.load_snapshot(game.id)
    assert loaded is not None
    version, state = loaded
    assert version == game.version
    ns = [v for v, _ in events]
    assert (state["sum"], state["count"], state["last"]) == (sum(ns), len(ns), ns[-1] if ns else 0)
    pending = await store.pending_notices(game.id)
    if game.status == "playing":
        assert [(n.kind, n.payload) for n in pending] == [("turn", {"version": game.version})]
    else:
        assert pending == [], f"{game.status} game {game.id} has pending notices"
    if game.status == "lobby":
        assert game.version == 0


async def verify(db: Path, known: Known, reported: list[str]) -> int:
    """Check the database against the child's reports; return how many commits went unreported."""
    for line in reported:
        kind, *rest = line.split()
        if kind == "game":
            known.versions[int(rest[0])] = 0
        else:
            assert kind == "v", line
            game_id, version = int(rest[0]), int(rest[1])
            assert version > known.versions[game_id], "versions only grow"
            known.versions[game_id] = version
    store = await open_store(db)
    try:
        report = await store.integrity_check()
        assert report.ok, str(report)
        games = {g.id: g for g in await store.list_games()}
        assert set(known.versions) <= set(games), "a reported game is missing"
        unreported = 0
        for game in games.values():
            await check_game(store, game)
            if game.id not in known.versions:
                unreported += 1
                assert game.version == 0, "a game is created and reported before it is played"
            elif game.version != known.versions[game.id]:
                unreported += 1
                assert 1 <= game.version - known.versions[game.id] <= 3, "one append is 1 to 3 events"
            known.versions[game.id] = game.version
        assert unreported <= 1, "more than one commit was unreported"
        return unreported
    finally:
        await store.close()


async def test_sigkill_at_random_moments_loses_only_unreported_work(tmp_path: Path) -> None:
    db = tmp_path / "crash.db"
    rng = random.Random(20251122)
    known = Known()
    unreported = 0
    for kill in range(KILLS):
        reported = await run_child_and_kill(db, seed=kill, rng=rng)
        if db.exists():
            unreported += await verify(db, known, reported)
        else:
            assert reported == []
    total = sum(known.versions.values())
    assert total > 50, f"the child wrote too little ({total} events) for the test to mean anything"
    assert len(known.versions) >= 3
