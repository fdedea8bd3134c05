"""Benchmark: store actions per second with 1, 2 and 4 processes on one PostgreSQL, beside SQLite on one.

One action is what the bot does for a button click: load the game's snapshot (~5 KB of JSON), apply a
cheap stand-in for the engine, and append the event, the new snapshot, whose turn it is, a post duty and
the next reminder (a keyed duty that replaces the last one), in one transaction. Each process serves its
own slice of the games, as a shard cluster serves its own guilds, with several concurrent tasks; a
VersionConflict (two tasks on one game) is counted and the action is retried.

The baseline in the same run is the SQLite store in one process (SQLite cannot be shared across
machines; one process is its use). PostgreSQL is a throwaway server started here (tests/storage/
pg_cluster.py, durability off like in the tests) unless --url names one. All processes share this
machine's cores with the server, so the figures say how the store scales on one box, not on many.

    python benchmarks/bench_postgres.py [--games 1000] [--seconds 5] [--tasks 8] [--processes 1,2,4]
                                        [--url postgresql://...]
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import json
import multiprocessing
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "storage"))

from storage import GameStore, NewDuty, VersionConflict, open_database  # noqa: E402


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


async def act(store: GameStore, game_id: int, rng: random.Random) -> int:
    """One action on one game; returns how many VersionConflicts it met first."""
    conflicts = 0
    while True:
        loaded = await store.load_snapshot(game_id)
        assert loaded is not None
        version, state = loaded
        events, new_state = engine_stand_in(state, rng)
        nxt = 10_000 + new_state["turn"] % 4
        now = time.time()
        try:
            await store.append(
                game_id,
                version,
                events,
                new_state,
                now,
                waiting_on=nxt,
                cancel_keys={"remind"},
                duties=[
                    NewDuty("post", now, 1_000_000 + game_id, payload={"turn": new_state["turn"]}),
                    NewDuty("remind", now + 86_400, 1_000_000 + game_id, nxt, {"game": game_id}, "remind"),
                ],
            )
            return conflicts
        except VersionConflict:
            conflicts += 1


async def run_process(
    url: str, game_ids: list[int], tasks: int, start_at: float, seconds: float, seed: int
) -> tuple[list[float], int, float]:
    store = await open_database(url)
    latencies: list[float] = []
    conflicts = 0
    try:
        await asyncio.sleep(max(0.0, start_at - time.time()))
        deadline = time.perf_counter() + seconds
        cpu = time.process_time()

        async def task(rng: random.Random) -> None:
            nonlocal conflicts
            while time.perf_counter() < deadline:
                start = time.perf_counter()
                conflicts += await act(store, rng.choice(game_ids), rng)
                latencies.append(time.perf_counter() - start)

        rng = random.Random(seed)
        await asyncio.gather(*(task(random.Random(rng.random())) for _ in range(tasks)))
        cpu = time.process_time() - cpu
    finally:
        await store.close()
    return latencies, conflicts, cpu


def process_entry(
    url: str, game_ids: list[int], tasks: int, start_at: float, seconds: float, seed: int
) -> tuple[list[float], int, float]:
    return asyncio.run(run_process(url, game_ids, tasks, start_at, seconds, seed))


async def populate(url: str, games: int, rng: random.Random) -> list[int]:
    store = await open_database(url)
    ids = []
    now = time.time()
    try:
        for i in range(games):
            snapshot = realistic_snapshot(rng)
            seats = [(p, 10_000 + p) for p in range(4)]
            game = await store.create_game(
                1 + i % 50, 1_000_000 + i, 10_000, {"map": "default"}, now, snapshot, seats
            )
            await store.append(
                game.id, 0, [{"type": "start"}], snapshot, now, status="playing", waiting_on=10_000
            )
            ids.append(game.id)
    finally:
        await store.close()
    return ids


def measure(url: str, game_ids: list[int], processes: int, tasks: int, seconds: float) -> dict[str, float]:
    start_at = time.time() + 1.5  # every process opens its store first, then all start together
    spawn = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(processes, mp_context=spawn) as pool:
        futures = [
            pool.submit(process_entry, url, game_ids[k::processes], tasks, start_at, seconds, 100 + k)
            for k in range(processes)
        ]
        results = [f.result() for f in futures]
    latencies = sorted(x for lat, _, _ in results for x in lat)
    return {
        "actions": len(latencies),
        "per_second": len(latencies) / seconds,
        "p50": latencies[len(latencies) // 2] * 1000,
        "p99": latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))] * 1000,
        "conflicts": sum(c for _, c, _ in results),
        # CPU time of the bot processes themselves per action (the server's is not counted).
        "cpu_ms": sum(cpu for _, _, cpu in results) * 1000 / max(1, len(latencies)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--tasks", type=int, default=8, help="concurrent tasks per process")
    parser.add_argument("--processes", default="1,2,4")
    parser.add_argument("--url", help="an existing, empty PostgreSQL database (default: a throwaway server)")
    args = parser.parse_args()
    counts = [int(p) for p in args.processes.split(",")]
    cluster = None
    if args.url:
        pg_url = args.url
    else:
        import pg_cluster

        cluster = pg_cluster.start_cluster()
        pg_url = cluster.url(cluster.create_database("bench"))
    try:
        with tempfile.TemporaryDirectory() as directory:
            sqlite_url = str(Path(directory) / "bench.db")
            size = len(json.dumps(realistic_snapshot(random.Random(4)), separators=(",", ":")))
            print(f"{args.games} games in play in {args.games} channels, snapshots of {size} bytes of JSON;")
            print(
                f"{args.tasks} concurrent tasks per process, {args.seconds:g} s per row;"
                " each process serves its own games"
            )
            rows: list[tuple[str, int, dict[str, float]]] = []
            for name, url in (("sqlite", sqlite_url), ("postgres", pg_url)):
                t = time.perf_counter()
                ids = asyncio.run(populate(url, args.games, random.Random(4)))
                print(f"  {name}: populated in {time.perf_counter() - t:.1f} s")
                for processes in [1] if name == "sqlite" else counts:
                    rows.append((name, processes, measure(url, ids, processes, args.tasks, args.seconds)))
            base = rows[0][2]["per_second"]
            print()
            head = (
                "backend",
                "processes",
                "actions/s",
                "vs SQLite",
                "p50 ms",
                "p99 ms",
                "conflicts",
                "CPU ms/act",
            )
            print("{:<10} {:>9} {:>10} {:>10} {:>8} {:>8} {:>9} {:>10}".format(*head))
            for name, processes, r in rows:
                print(
                    f"{name:<10} {processes:>9} {r['per_second']:>10.0f} {r['per_second'] / base:>9.2f}x"
                    f" {r['p50']:>8.1f} {r['p99']:>8.1f} {int(r['conflicts']):>9} {r['cpu_ms']:>10.2f}"
                )
    finally:
        if cluster is not None:
            cluster.stop()


if __name__ == "__main__":
    main()
