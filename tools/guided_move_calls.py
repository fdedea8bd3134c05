"""Counts the calls between modules of the project during one guided move (Move, card, point, path,
Confirm) through the offline Discord: how often the bot layer goes back and forth with the engine.

    python tools/guided_move_calls.py

Used for the redesign's before/after note (issue 10). Prints the cross-module call count in total, per
pair of modules (top ten), and how many of those calls go from bot code into engine.rules.
"""

from __future__ import annotations

import asyncio
import collections
import random
import sys
import tempfile
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
OURS = ("engine", "bot", "rendering", "storage")


def ours(name: str) -> bool:
    # The fake Discord is not the bot, wherever it lived (it was bot.offline before the redesign).
    return name.split(".")[0] in OURS and not name.startswith("bot.offline")


async def main() -> None:
    from engine import ai
    from engine.actions import Move
    from tests.bot.driver import WALLS_MAP, Game, bot_factory, harness

    pairs: collections.Counter[tuple[str, str]] = collections.Counter()

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event != "call" or frame.f_back is None:
            return
        callee = frame.f_globals.get("__name__", "")
        caller = frame.f_back.f_globals.get("__name__", "")
        if callee != caller and ours(callee) and ours(caller):
            pairs[(caller, callee)] += 1

    with tempfile.TemporaryDirectory() as tmp:
        async with harness(bot_factory(str(Path(tmp) / "g.db"), WALLS_MAP, 1)) as d:
            g = Game(d, [d.member("alice"), d.member("bob")])
            await g.open()
            st = await g.state()
            rng = random.Random(0)
            move = ai.greedy_player(st, rng)
            while not isinstance(move, Move):
                move = ai.greedy_player(st, rng)
            table = await g.table()
            user = g.user_of_seat(table, st.current)
            sys.setprofile(profile)
            try:
                await g.move(user, st, move, guided=True)
            finally:
                sys.setprofile(None)
    total = sum(pairs.values())
    into_rules = sum(n for (a, b), n in pairs.items() if a.startswith("bot") and b == "engine.rules")
    bot_pairs = sum(n for (a, b), n in pairs.items() if a.startswith("bot") and b.startswith("bot"))
    print(f"calls between modules during one guided move: {total}")
    print(f"  from bot code into engine.rules: {into_rules}")
    print(f"  between bot modules: {bot_pairs}")
    print(f"  distinct module pairs: {len(pairs)}")
    for (a, b), n in pairs.most_common(10):
        print(f"  {n:6}  {a} -> {b}")


if __name__ == "__main__":
    asyncio.run(main())
