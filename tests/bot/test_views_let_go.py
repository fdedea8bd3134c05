"""Issue 30's stalls: the collector's long pauses came from reference cycles made per action. A message's
view and its buttons refer to each other; once the message is sent or edited the bot lets the view go
(bot.texts.components.release), so that what an action sends is freed at once, not by the collector."""

from __future__ import annotations

import collections
import gc
import random

import discord
import pytest

from engine import ai
from tests.bot.driver import NAMES, WALLS_MAP, Game, bot_factory, harness

pytest_plugins = ["tests.harness.fixtures"]


@pytest.fixture(autouse=True)
def _offline(no_network):
    yield


async def test_the_views_of_a_games_posts_and_answers_leave_no_reference_cycle(tmp_path):
    async with harness(bot_factory(str(tmp_path / "games.db"), WALLS_MAP, 3)) as d:
        g = Game(d, [d.member(n) for n in NAMES[:2]], guided_every=1)  # every move through the Move flow
        await g.open()
        rng = random.Random(3)
        gc.collect()
        gc.disable()
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            for n in range(12):  # posts, edits, guided moves' selects and confirmations, the status message
                await g.play(ai.greedy_player(await g.state(), rng), n)
            await d.bot.deliveries.drain(now=d.bot.pipeline.clock() + 120)
            gc.collect()
            views = collections.Counter(
                type(o).__name__ for o in gc.garbage if isinstance(o, discord.ui.View | discord.ui.Item)
            )
            cycles = len(gc.garbage)
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
            gc.enable()
        assert cycles > 0  # the collector found other cycles (discord.py's own): the count is real
        assert not views, views
