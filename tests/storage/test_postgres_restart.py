"""A server owner restarts PostgreSQL (an upgrade, a maintenance window) while games are being played: every
connection of the bot is cut. The bot goes on by itself, on the same game: no action lost, no error logged,
the turn posts still delivered (issue 32's clusters; a real server, restarted with pg_ctl)."""

from __future__ import annotations

import asyncio
import random

import pg_cluster as pg

from engine import ai
from tests.bot.driver import WALLS_MAP, Clock, bot_factory, harness, open_game

# Discord is the offline one; the network this test uses is the local PostgreSQL server's (asyncpg reaches
# it over TCP on 127.0.0.1), so the no_network fixture is not used here.


async def test_the_bot_goes_on_after_its_postgresql_server_restarts():
    cluster = pg.start_cluster()  # its own server: the session's is shared by the other tests
    try:
        clock = Clock()
        async with harness(
            bot_factory(cluster.url(cluster.create_database("restart")), WALLS_MAP, 1, clock=clock)
        ) as d:
            g = await open_game(d)
            for n in range(3):
                await g.play(ai.greedy_player(await g.state(), random.Random(n)), n)
            before = (await g.table()).version
            await asyncio.to_thread(cluster.restart)
            # The harness is strict: an error logged fails the interaction. Every action goes through, and
            # its turn post follows it (Game.play checks both).
            for n in range(3, 12):
                await g.play(ai.greedy_player(await g.state(), random.Random(n)), n)
            assert (await g.table()).version > before
            assert await d.bot.store.pending_duties(None) == []
    finally:
        cluster.stop()
