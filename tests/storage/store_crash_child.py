"""Child process of the crash test: writes to the store as fast as it can until it is SIGKILLed.

Usage: python store_crash_child.py DB SEED      (DB: an SQLite path or a postgresql:// URL)

It prints one line per committed transaction, AFTER the store call has returned, and flushes:
    ready                 the store is open
    game <id>             a game was created (lobby, version 0, no snapshot events)
    v <id> <version>      an append committed; the game is now at <version>
Several children may write to one database at once; a lost race is skipped, not reported.
Each append writes 1 to 3 events {"n": <their version>}, a snapshot that folds them, and replaces
the game's pending reminder duty by one whose payload names the new version, all in one call.
"""

from __future__ import annotations

import asyncio
import random
import sys
from typing import Any

from storage import GameClosed, NewDuty, VersionConflict, open_database

PAD = "x" * 2000  # keeps each transaction a few pages long, so kills land inside the writes


def snapshot_after(state: dict[str, Any], ns: list[int]) -> dict[str, Any]:
    return {"sum": state["sum"] + sum(ns), "count": state["count"] + len(ns), "last": ns[-1], "pad": PAD}


async def main(path: str, seed: int) -> None:
    rng = random.Random(seed)
    store = await open_database(path)
    print("ready", flush=True)
    now = 1_700_000_000.0
    games = [g.id for g in await store.list_games(status=("lobby", "playing"))]
    while True:
        now += 1
        if len(games) < 3 or rng.random() < 0.03:
            game = await store.create_game(
                1, rng.randrange(1 << 40), 1, {"seed": seed}, now, snapshot={"sum": 0, "count": 0, "last": 0}
            )
            print(f"game {game.id}", flush=True)
            games.append(game.id)
            continue
        game_id = rng.choice(games)
        loaded = await store.load_snapshot(game_id)
        assert loaded is not None
        version, state = loaded
        ns = [version + i + 1 for i in range(rng.randint(1, 3))]
        finish = version > 40 and rng.random() < 0.2
        try:
            record = await store.append(
                game_id,
                version,
                [{"n": n} for n in ns],
                snapshot_after(state, ns),
                now,
                status="finished" if finish else "playing",
                waiting_on=rng.randrange(1, 5),
                cancel_keys={"remind"},
                duties=[]
                if finish
                else [NewDuty("remind", now + 3600, None, 1, {"version": ns[-1]}, "remind")],
            )
        except VersionConflict:
            continue  # another writer process got there first
        except GameClosed:
            games.remove(game_id)
            continue
        print(f"v {game_id} {record.version}", flush=True)
        if finish:
            games.remove(game_id)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2])))
