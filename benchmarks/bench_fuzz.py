"""A longer run of the issue-11 fuzzer (tests/bot/fuzz.py) than CI's: many seeds, more steps each.

    python benchmarks/bench_fuzz.py [--seeds 10] [--steps 2000] [--map empire] [--german] [--postgres]
                                   [--faults 0.05] [--kills 0.02] [--disk 0.02]

``--map``: a packaged map (engine/maps) instead of the small test map; ``--german``: every other player, the
admin and the second server speak German; ``--postgres``: each seed on a new database of a throwaway
PostgreSQL server (tests/storage/pg_cluster.py), not an SQLite file; ``--faults P``: each step, with chance
P, Discord fails one more request (a 5xx, a 429, a timeout or a dropped connection, some after doing the
work), and once it is well again nothing is stuck, every turn post caught up and nothing was posted twice
(tests/bot/fuzz_faults.py); ``--kills P``: each step, with chance P, the bot's process is armed to die at a
request (three times in four) or is restarted by its host, checked the same way, and no game waits for a
computer nobody runs (tests/bot/fuzz_crashes.py); ``--disk P``: each step, with chance P, the store's next
1-3 writes fail as on a full disk, checked the same way (tests/bot/fuzz_disk.py).

Prints, per seed and in total, the interactions by kind, the answers (ephemeral, public, update,
autocomplete), how many changed a game, and every problem found (none expected). Exits 1 on a problem.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "storage"))

from engine.maps import Map, packaged_map, packaged_map_names  # noqa: E402
from tests.bot.driver import WALLS_MAP  # noqa: E402
from tests.bot.fuzz import run_fuzz  # noqa: E402


async def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--first-seed", type=int, default=100)
    parser.add_argument("--map", choices=packaged_map_names(), help="a packaged map, not the test map")
    parser.add_argument("--german", action="store_true", help="German-speaking members and second server")
    parser.add_argument("--postgres", action="store_true", help="a throwaway PostgreSQL server, not SQLite")
    parser.add_argument("--faults", type=float, default=0.0, help="the chance each step of a failure")
    parser.add_argument("--kills", type=float, default=0.0, help="the chance each step of a kill or restart")
    parser.add_argument("--disk", type=float, default=0.0, help="the chance each step of failing writes")
    args = parser.parse_args()
    game_map = packaged_map(args.map) if args.map else WALLS_MAP
    cluster = None
    if args.postgres:
        import pg_cluster

        cluster = pg_cluster.start_cluster()
    try:
        problems = await fuzz(args, game_map, cluster)
    finally:
        if cluster is not None:
            cluster.stop()
    return 1 if problems else 0


async def fuzz(args: argparse.Namespace, game_map: Map, cluster: Any) -> list[str]:
    """Every seed's run, printed as it ends, then the totals; the problems found."""
    kinds: Counter[str] = Counter()
    answers: Counter[str] = Counter()
    total = changed = 0
    problems: list[str] = []
    seconds = 0.0
    for seed in range(args.first_seed, args.first_seed + args.seeds):
        with tempfile.TemporaryDirectory() as tmp:
            db = cluster.url(cluster.create_database("fuzz")) if cluster else str(Path(tmp) / "fuzz.db")
            counts = await run_fuzz(
                seed,
                args.steps,
                db,
                game_map=game_map,
                german=args.german,
                faults=args.faults,
                kills=args.kills,
                disk=args.disk,
            )
        print(f"seed {seed}: {counts.summary()}", flush=True)
        kinds.update(counts.kinds)
        answers.update(counts.answers)
        total += counts.interactions
        changed += counts.changed
        seconds += counts.seconds
        problems += [f"seed {seed}: {p}" for p in counts.problems]
    print(
        f"total: {total} interactions in {seconds:.1f} s; kinds {dict(kinds)}; answers {dict(answers)}; "
        f"{changed} changed a game; {len(problems)} problems"
    )
    for p in problems[:50]:
        print(" -", p)
    return problems


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
