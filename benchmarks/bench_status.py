"""Counts what the pinned status message (bot.commands.dashboard) costs in Discord requests over a whole
game, and what coalescing saves: the same greedy game through the offline Discord, three times in one run:

- baseline: without the status message (the dashboard's hook removed);
- uncoalesced: a status duty due at once after every commit (``STATUS_DELAY = 0``);
- coalesced: as shipped (``STATUS_DELAY`` seconds; a newer status duty replaces the pending one).

The tests' clock moves one second per read, so "seconds" here are clock reads, not wall time: the figure
shows the mechanism (a burst of commits makes one edit), not a user's pace.

    python benchmarks/bench_status.py [--players 3] [--seed 1]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.commands import dashboard  # noqa: E402
from bot.games.pictures import Pictures  # noqa: E402
from engine.maps import default_map  # noqa: E402
from tests.bot.driver import Clock, bot_factory, harness, play_whole_game  # noqa: E402


async def one_game(players: int, seed: int, mode: str) -> dict[str, int]:
    clock = Clock()
    with tempfile.TemporaryDirectory() as tmp:
        factory = bot_factory(
            str(Path(tmp) / "g.db"), default_map(), seed, clock=clock, pictures=Pictures(width=320)
        )
        async with harness(factory) as d:
            if mode == "baseline":
                d.bot.pipeline.duty_hooks.remove(d.bot.dashboard.after_change)
            g = await play_whole_game(d, players, ai_seed=seed)
            for k in range(1, 7):  # let what is still pending fall due
                await d.bot.deliveries.drain(clock.now + 600 * k)
            version = (await g.table()).version
            kinds = Counter(q.kind for q in d.requests if q.seam == "http")
            status = [m.id for m in d.channel_messages() if m.content.startswith("📌")]
            status_edits = sum(1 for q in d.requests if q.kind == "edit_message" and q.message_id in status)
            return {
                "events": version,
                "http requests": sum(kinds.values()),
                "channel messages": kinds["channel_message"],
                "edits": kinds["edit_message"],
                "status edits": status_edits,
                "pins": kinds["pin"],
            }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rows = {}
    shipped = dashboard.STATUS_DELAY
    for mode in ("baseline", "uncoalesced", "coalesced"):
        dashboard.STATUS_DELAY = 0.0 if mode == "uncoalesced" else shipped
        rows[mode] = await one_game(args.players, args.seed, mode)
    dashboard.STATUS_DELAY = shipped
    keys = list(rows["baseline"])
    print(f"{'':14}" + "".join(f"{k:>18}" for k in keys))
    for mode, row in rows.items():
        print(f"{mode:14}" + "".join(f"{row[k]:>18}" for k in keys))
    base, co = rows["baseline"]["http requests"], rows["coalesced"]["http requests"]
    print(f"the status message adds {co - base} requests ({(co - base) / base:.1%}) to the baseline's {base}")


if __name__ == "__main__":
    asyncio.run(main())
