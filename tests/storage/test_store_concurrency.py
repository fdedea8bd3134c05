"""Concurrency test: many tasks read, compute and append on the same games at once.

Each task loops: load the snapshot, yield to the others (the "engine" thinks), append with the
version it read, and on VersionConflict reload and try again. Afterwards every game's log must be
contiguous, hold each task's successful actions exactly once, and fold to the stored snapshot.
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from store_backends import Backend

from storage import GameStore, NewDuty, VersionConflict

T0 = 1_700_000_000.0


def fold(events: list[dict[str, Any]]) -> dict[str, Any]:
    """The stand-in engine: the snapshot is fully determined by the event log."""
    per_task: dict[str, int] = {}
    for e in events:
        per_task[str(e["task"])] = e["seq"]
    return {"count": len(events), "sum": sum(e["n"] for e in events), "per_task": per_task}


def step(state: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, Any]:
    per_task = dict(state["per_task"])
    for e in events:
        per_task[str(e["task"])] = e["seq"]
    return {
        "count": state["count"] + len(events),
        "sum": state["sum"] + sum(e["n"] for e in events),
        "per_task": per_task,
    }


@dataclass
class Tally:
    # (game, expected version, number of events, task, seq) of every accepted append
    written: list[tuple[int, int, int, int, int]] = field(default_factory=list)
    conflicts: int = 0


async def actor(
    stores: list[GameStore], game_ids: list[int], task: int, actions: int, tally: Tally, rng: random.Random
) -> None:
    for seq in range(actions):
        while True:
            store = rng.choice(stores)
            game_id = rng.choice(game_ids)
            loaded = await store.load_snapshot(game_id)
            assert loaded is not None
            version, state = loaded
            for _ in range(rng.randrange(3)):
                await asyncio.sleep(0)
            events = [{"task": task, "seq": seq, "n": rng.randrange(100)} for _ in range(rng.randint(1, 3))]
            try:
                await store.append(game_id, version, events, step(state, events), T0 + seq)
            except VersionConflict as conflict:
                assert conflict.actual > conflict.expected == version
                tally.conflicts += 1
                continue
            tally.written.append((game_id, version, len(events), task, seq))
            break


async def check_games(store: GameStore, game_ids: list[int], tally: Tally, tasks: int, actions: int) -> None:
    seen: Counter[tuple[int, int, int]] = Counter()
    for game_id in game_ids:
        game = await store.game_by_id(game_id)
        assert game is not None
        log = await store.events(game_id)
        assert [v for v, _ in log] == list(range(1, game.version + 1)), "versions are contiguous"
        assert await store.load_snapshot(game_id) == (game.version, fold([e for _, e in log]))
        # Successful appends tile the version range: each started exactly where the previous ended.
        mine = sorted((v, n) for g, v, n, _, _ in tally.written if g == game_id)
        position = 0
        for expected, count in mine:
            assert expected == position, "a write was accepted on a stale version"
            position += count
        assert position == game.version
        seen.update((game_id, e["task"], e["seq"]) for _, e in log)
    accepted = Counter((t, s) for _, _, _, t, s in tally.written)
    assert accepted == Counter({(t, s): 1 for t in range(tasks) for s in range(actions)})
    assert seen == Counter({(g, t, s): n for g, _, n, t, s in tally.written}), (
        "an event was lost or duplicated"
    )


async def test_many_tasks_on_one_game(store: GameStore) -> None:
    game = await store.create_game(1, 1, 1, {}, T0, snapshot=fold([]))
    tally = Tally()
    tasks, actions = 24, 12
    rng = random.Random(1)
    await asyncio.gather(
        *(actor([store], [game.id], t, actions, tally, random.Random(rng.random())) for t in range(tasks))
    )
    assert tally.conflicts > tasks, "the test did not make writers collide"
    await check_games(store, [game.id], tally, tasks, actions)
    assert await store.integrity_check()


async def test_many_tasks_on_many_games_through_two_connections(backend: Backend) -> None:
    # Two stores on one database stand for two processes: conflicts must be caught across them too.
    first = await backend.open()
    second = await backend.open()
    game_ids = [(await first.create_game(1, c, 1, {}, T0, snapshot=fold([]))).id for c in range(6)]
    tally = Tally()
    tasks, actions = 30, 10
    rng = random.Random(2)
    await asyncio.gather(
        *(
            actor([first, second], game_ids, t, actions, tally, random.Random(rng.random()))
            for t in range(tasks)
        )
    )
    assert tally.conflicts > 0
    await check_games(second, game_ids, tally, tasks, actions)
    assert await first.integrity_check()


async def test_double_clicks_apply_once_over_many_rounds(store: GameStore) -> None:
    game = await store.create_game(1, 1, 1, {}, T0, snapshot=fold([]))
    for round_ in range(30):
        loaded = await store.load_snapshot(game.id)
        assert loaded is not None
        version, state = loaded
        clicks = [
            store.append(
                game.id,
                version,
                [{"task": c, "seq": round_, "n": 1}],
                step(state, [{"task": c, "seq": round_, "n": 1}]),
                T0,
            )
            for c in range(3)
        ]
        results = await asyncio.gather(*clicks, return_exceptions=True)
        assert sum(isinstance(r, VersionConflict) for r in results) == 2
        assert not any(isinstance(r, BaseException) and not isinstance(r, VersionConflict) for r in results)
    final = await store.game_by_id(game.id)
    assert final is not None and final.version == 30
    log = await store.events(game.id)
    assert await store.load_snapshot(game.id) == (30, fold([e for _, e in log]))


async def test_racing_keyed_duties_and_settings_from_two_connections(backend: Backend) -> None:
    # Two processes replace one game's reminder and merge one user's settings at the same moment: one
    # pending reminder remains (the key is one per game), and every merged setting lands.
    first = await backend.open()
    second = await backend.open()
    game = await first.create_game(1, 1, 1, {}, T0)
    stores = [first, second]
    await asyncio.gather(
        *(
            stores[i % 2].add_duties(game.id, [NewDuty("remind", T0 + i, 1, 1, {"i": i}, "remind")], T0)
            for i in range(20)
        )
    )
    pending = await second.pending_duties(game.id)
    assert len(pending) == 1 and pending[0].key == "remind"
    await asyncio.gather(*(stores[i % 2].update_user_settings(7, {f"k{i}": i}, T0) for i in range(20)))
    assert await first.get_user_settings(7) == {f"k{i}": i for i in range(20)}
