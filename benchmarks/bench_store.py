"""Benchmark of the SQLite game store: sustained actions per second and per-action latency.

One action is what the bot does for a button click: load the game's snapshot, apply a cheap
stand-in for the engine, and append the event, the new snapshot, whose turn it is and the next
reminder (a keyed duty of the outbox) in one transaction. It runs over many active games spread over
many channels, with a snapshot of realistic size (~5 KB of JSON), at several levels of concurrency.

    python benchmarks/bench_store.py [--games 1000] [--seconds 5] [--concurrency 1,8,64] [--db PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from storage import GameStore, NewDuty, VersionConflict, open_store  # noqa: E402


def realistic_snapshot(rng: random.Random) -> dict[str, Any]:
    """About the shape and size of a mid-game Alexandros state: walls, guards, cards, scores."""
    return {
        "map": "default",
        "turn": 0,
        "phase": "actions",
        "alexander": rng.randrange(300),
        "walls_black": 40,
        "walls_red": 10,
        "walls": [[rng.randrange(400), rng.randrange(3), "b"] for _ in range(280)],
        "guards": {str(p): [rng.randrange(200) for _ in range(4)] for p in range(4)},
        "hands": {str(p): [rng.choice("TAHLS") for _ in range(6)] for p in range(4)},
        "face_up": ["T", "H"],
        "supply": [rng.choice("TAHLS") for _ in range(35)],
        "discard": [rng.choice("TAHLS") for _ in range(10)],
        "scores": [rng.randrange(60) for _ in range(4)],
        "provinces": [
            {"id": i, "spaces": [rng.randrange(300) for _ in range(4)], "owner": None} for i in range(20)
        ],
        "players": [
            {"seat": p, "user": 10_000 + p, "colour": c}
            for p, c in enumerate(["red", "yellow", "blue", "green"])
        ],
        "seed": rng.randrange(1 << 62),
    }


def engine_stand_in(state: dict[str, Any], rng: random.Random) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """A cheap transformation: one move event, one new wall, next player's turn."""
    new = dict(state)
    new["turn"] = state["turn"] + 1
    new["walls"] = state["walls"][1:] + [[rng.randrange(400), rng.randrange(3), "b"]]
    new["alexander"] = rng.randrange(300)
    event = {"type": "move", "player": state["turn"] % 4, "to": new["alexander"], "walls": new["walls"][-1:]}
    return [event], new


@dataclass
class Result:
    latencies: list[float] = field(default_factory=list)
    conflicts: int = 0


async def worker(
    store: GameStore, games: list[tuple[int, int]], deadline: float, rng: random.Random, result: Result
) -> None:
    now = time.time()
    while time.perf_counter() < deadline:
        game_id, channel_id = rng.choice(games)
        start = time.perf_counter()
        while True:
            loaded = await store.load_snapshot(game_id)
            assert loaded is not None
            version, state = loaded
            events, new_state = engine_stand_in(state, rng)
            nxt = 10_000 + new_state["turn"] % 4
            try:
                await store.append(
                    game_id,
                    version,
                    events,
                    new_state,
                    now,
                    waiting_on=nxt,
                    # The next reminder, keyed: it replaces the last turn's, as the bot's does.
                    duties=[
                        NewDuty("remind", now + 86_400, channel_id, nxt, {"since": version}, key="remind")
                    ],
                )
                break
            except VersionConflict:
                result.conflicts += 1
        result.latencies.append(time.perf_counter() - start)


async def populate(store: GameStore, games: int, rng: random.Random) -> list[tuple[int, int]]:
    """The games created, as (game id, channel id)."""
    ids = []
    now = time.time()
    for i in range(games):
        snapshot = realistic_snapshot(rng)
        game = await store.create_game(
            guild_id=1 + i % 50,
            channel_id=1_000_000 + i,
            created_by=10_000,
            options={"map": "default"},
            now=now,
            snapshot=snapshot,
            seats=[(p, 10_000 + p) for p in range(4)],
        )
        await store.append(
            game.id, 0, [{"type": "start"}], snapshot, now, status="playing", waiting_on=10_000
        )
        ids.append((game.id, game.channel_id))
    return ids


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def run(args: argparse.Namespace, directory: str) -> None:
    rng = random.Random(4)
    path = Path(args.db) if args.db else Path(directory) / "bench.db"
    store = await open_store(path)
    try:
        sample = json.dumps(realistic_snapshot(rng), separators=(",", ":"))
        print(f"database: {path}")
        print(
            f"snapshot size: {len(sample)} bytes of JSON; {args.games} active games in {args.games} channels"
        )
        t = time.perf_counter()
        game_ids = await populate(store, args.games, rng)
        print(f"created {len(game_ids)} games in {time.perf_counter() - t:.2f} s")
        print()
        header = ("tasks", "actions", "actions/s", "p50 ms", "p99 ms", "max ms", "conflicts")
        print(" ".join(f"{h:>10}" for h in header))
        for concurrency in args.concurrency:
            result = Result()
            start = time.perf_counter()
            deadline = start + args.seconds
            await asyncio.gather(
                *(
                    worker(store, game_ids, deadline, random.Random(rng.random()), result)
                    for _ in range(concurrency)
                )
            )
            elapsed = time.perf_counter() - start
            lat = result.latencies
            row = (
                f"{concurrency}",
                f"{len(lat)}",
                f"{len(lat) / elapsed:.0f}",
                f"{percentile(lat, 0.5) * 1e3:.2f}",
                f"{percentile(lat, 0.99) * 1e3:.2f}",
                f"{max(lat) * 1e3:.2f}",
                f"{result.conflicts}",
            )
            print(" ".join(f"{cell:>10}" for cell in row))
        print()
        t = time.perf_counter()
        report = await store.integrity_check()
        print(f"integrity check: {report} ({time.perf_counter() - t:.2f} s)")
        t = time.perf_counter()
        backup = Path(directory) / "backup.db"
        await store.backup(backup)
        print(f"online backup: {time.perf_counter() - t:.2f} s, {os.path.getsize(backup) / 1e6:.1f} MB")
    finally:
        await store.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=5.0, help="duration of each concurrency level")
    parser.add_argument("--concurrency", type=lambda s: [int(x) for x in s.split(",")], default=[1, 8, 64])
    parser.add_argument("--db", help="database file (default: a new temporary file)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench_store_") as directory:
        asyncio.run(run(args, directory))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
