"""Issue 30's stalls: the collector's long pauses came from reference cycles made per action. A message's
view and its buttons refer to each other, an interaction and its response too, and discord.py leaves a
sent picture's buffer referring to itself; the bot lets each go once done with (bot.texts.freeing), so
that what an action makes is freed at once, not by the collector."""

from __future__ import annotations

import collections
import gc
import io
import random

import discord
import pytest

from engine import ai
from tests.bot.driver import NAMES, WALLS_MAP, Game, bot_factory, harness

pytest_plugins = ["tests.harness.fixtures"]


@pytest.fixture(autouse=True)
def _offline(no_network):
    yield


async def test_an_actions_views_interactions_and_pictures_leave_no_reference_cycle(tmp_path):
    kinds = (discord.ui.View, discord.ui.Item, discord.Interaction, discord.InteractionResponse, io.BytesIO)
    async with harness(bot_factory(str(tmp_path / "games.db"), WALLS_MAP, 3)) as d:
        # Every other move through the Move flow (selects, confirmations), the others as slash commands
        # with their options autocompleted; posts, edits, pictures and the status message besides.
        g = Game(d, [d.member(n) for n in NAMES[:2]], guided_every=2)
        await g.open()
        rng = random.Random(3)
        gc.collect()
        gc.disable()
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            for n in range(12):
                await g.play(ai.greedy_player(await g.state(), rng), n)
            await d.bot.deliveries.drain(now=d.bot.pipeline.clock() + 120)
            own: list[object] = []
            own.append(own)  # a cycle of the test's own: the collector's findings are really looked at
            del own
            gc.collect()
            left = collections.Counter(type(o).__name__ for o in gc.garbage if isinstance(o, kinds))
            found_own = any(type(o) is list and len(o) == 1 and o[0] is o for o in gc.garbage)
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
            gc.enable()
        assert found_own
        assert not left, left
