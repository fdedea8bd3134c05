"""Live pages in a cluster (issue 30): a change committed by another process (another store on the same
PostgreSQL database) reaches a page open on this process's web face within a second, through the store's
notifications (``listen_for_changes``), not the hub's slow poll."""

from __future__ import annotations

import asyncio
import json
import random
import time

import aiohttp
from pg_cluster import PgCluster
from test_store_postgres import fresh_schema

from bot.web import WebFace, links
from engine import ai, serialize
from engine.game import apply, new_game
from engine.maps import default_map
from engine.snapshot import dump_state
from storage import NewDuty, open_postgres_store
from storage.sqlite import SqliteGameStore

T0 = 1_800_000_000.0


async def test_a_change_another_process_commits_reaches_an_open_page_within_a_second(
    pg_cluster: PgCluster,
) -> None:
    url = await fresh_schema(pg_cluster)
    here, there = await open_postgres_store(url), await open_postgres_store(url)
    web = WebFace(here, port=0)
    game_map = default_map()
    try:
        await web.start()
        assert await here.listen_for_changes(web.poke) is True
        state, events = new_game(game_map, 2, 11)
        record = await there.create_game(
            7 << 22, 99, 1, {"names": {"1": "ann", "2": "ben"}}, T0, seats=[(0, 1), (1, 2)]
        )
        maps = [(game_map.digest, game_map.name, game_map.text)]
        duty = NewDuty("post", T0, 99, payload={"text": "x"})
        saved = await there.append(
            record.id, 0, [serialize.dump(e) for e in events], dump_state(state), T0,
            status="playing", duties=[duty], maps=maps,
        )  # fmt: skip
        path = links.path_of(record.id, await links.secret_of(here, record.id, T0))
        rng = random.Random(3)
        async with aiohttp.ClientSession() as http:
            base = f"http://127.0.0.1:{web.port}{path}"
            async with http.get(base + "/game.json") as r:
                steps = len(json.loads(await r.read())["steps"])
            async with http.get(f"{base}/live?steps={steps}") as r:
                assert r.status == 200

                async def news() -> dict:
                    name, data = "", b""
                    while True:
                        line = await r.content.readline()
                        if line.startswith(b"event: "):
                            name = line[7:].strip().decode()
                        elif line.startswith(b"data: "):
                            data = line[6:].strip()
                        elif line == b"\n" and name:
                            return dict(json.loads(data))

                await asyncio.wait_for(news(), 5)  # what the page may have missed: nothing new
                version = saved.version
                for _ in range(3):
                    state, more = apply(state, ai.greedy_player(state, rng))
                    started = time.monotonic()
                    saved = await there.append(
                        record.id, version, [serialize.dump(e) for e in more], dump_state(state), T0,
                        duties=[duty],
                    )  # fmt: skip
                    version = saved.version
                    while True:
                        got = await asyncio.wait_for(news(), 2.0)
                        if got["steps"] and got["steps"][-1]["v"] == version:
                            break
                    assert time.monotonic() - started < 1.0, "heard through the store, not the 5 s poll"
    finally:
        await web.close()
        await here.close()
        await there.close()
    assert SqliteGameStore  # SQLite hears no other process: tests/storage/test_store_postgres.py
