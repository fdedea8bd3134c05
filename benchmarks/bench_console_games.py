"""More whole games through the console than CI plays (issue 15): every packaged map, 2-4 players, many
seeds; each transcript is checked against the wrong forms (tests/bot/wrong_forms.py) and every refusal for
a way forward. Prints, per map and player count, the games, lines read, problems found and seconds.

    nice python benchmarks/bench_console_games.py [--seeds 5] [--players 2,3,4]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.bot.console_games import Recorder, packaged_maps, play  # noqa: E402
from tests.bot.wrong_forms import no_way_forward, wrong_forms  # noqa: E402


async def main(seeds: int, counts: list[int]) -> int:
    bad = 0
    for name, text in packaged_maps().items():
        for players in counts:
            started, lines, problems = time.perf_counter(), 0, []
            for seed in range(1, seeds + 1):
                with tempfile.TemporaryDirectory() as folder, Recorder() as recorded:
                    transcript, _ = await play(text, players, seed, Path(folder))
                lines += len(transcript.splitlines())
                problems += wrong_forms(transcript)
                problems += [f"no way forward: {s}" for s in recorded.refusals if no_way_forward(s)]
            bad += len(problems)
            took = time.perf_counter() - started
            found = len(problems)
            print(f"{name:>10} {players}p: {seeds} games, {lines} lines, {found} problems, {took:.1f} s")
            for p in problems[:10]:
                print("    " + p)
    return 1 if bad else 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--players", default="2,3,4")
    args = parser.parse_args()
    sys.exit(asyncio.run(main(args.seeds, [int(p) for p in args.players.split(",")])))
