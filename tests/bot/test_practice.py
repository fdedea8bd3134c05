"""Issue 29, practice games: ``/alexandros learn practice`` opens a table in a new thread with the caller
and computer players, starts it at once, the computers play their turns, and the game is never rated."""

from __future__ import annotations

import dataclasses
import random

import pytest

from bot.games.computers import is_computer
from bot.outbox.pipeline import Ask
from bot.outbox.ratings import placements
from engine import ai
from tests.bot.driver import CHANNEL, WALLS_MAP, Clock, Game, bot_factory, harness

pytest_plugins = ["tests.harness.fixtures"]


@pytest.fixture(autouse=True)
def _offline(no_network):
    yield


async def _play_out(d, g: Game, max_actions: int = 400) -> None:
    rng = random.Random(5)
    for _ in range(max_actions):
        await d.bot.deliveries.drain()
        table = await g.table()
        if table.state.over:
            return
        assert not is_computer(table.current_user), "the computer's turn waited for nobody"
        action = ai.greedy_player(table.state, rng)
        await d.bot.pipeline.act(Ask(g.users[0].id, game_id=g.game_id), lambda s, seat, a=action: a)
    raise AssertionError("the practice game did not end")


async def test_practice_opens_a_thread_seats_computers_starts_and_is_not_rated(tmp_path):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 4, clock=Clock())) as d:
        alice = d.member("alice")
        r = await d.slash(alice, "alexandros learn practice", level="easy", players=3)
        assert r.ephemeral and "practice game is open in <#" in r.content and "not rated" in r.content
        thread_id = r.of_kind("thread")[0].channel_id
        assert thread_id != CHANNEL
        record = await d.bot.store.game_by_channel(thread_id)
        assert record is not None and record.status == "playing", "started at once"
        assert [u for _s, u in record.seats][0] == alice.id
        assert sum(is_computer(u) for _s, u in record.seats) == 2
        assert record.options["practice"] and record.options["computers"] == {"-1": "easy", "-2": "easy"}
        g = Game(d, [alice], game_id=record.id)
        await _play_out(d, g)
        await d.bot.deliveries.drain()
        end = [m for m in d.channel_messages(thread_id) if "is over" in m.content]
        assert end and "not rated" in end[-1].content
        assert "Computer (easy) 1" in end[-1].content and "Computer (easy) 2" in end[-1].content
        # A computer's turn is its own turn post, closed with its steps (issue 27: one clean post).
        played = [
            m
            for m in d.channel_messages(thread_id)
            if "Computer (easy) 1" in m.content.split("\n")[0] and "turn over" in m.content
        ]
        assert played, "the computers played their turns"
        assert await d.bot.store.ratings(d.guild_id) == [], "a practice game is not rated"
        # Had the computers been people, the same game would be rated, but not as a practice game.
        finished = await d.bot.store.game_by_id(record.id)
        people = dataclasses.replace(finished, seats=tuple((s, 1000 + s) for s, _u in finished.seats))
        state = (await g.table()).state
        assert placements(people, state, {}) == []
        unmarked = {k: v for k, v in people.options.items() if k not in ("practice", "hints")}
        assert len(placements(dataclasses.replace(people, options=unmarked), state, {})) == 3
        assert all("is over" not in m.content for m in d.channel_messages(CHANNEL)), "all in the thread"


async def test_practice_where_no_thread_can_be_made_opens_in_the_channel(tmp_path):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 4)) as d:
        alice, bob = d.member("alice"), d.member("bob")
        d.fail("thread", "403")
        r = await d.slash(alice, "alexandros learn practice")
        assert r.ephemeral and r.content.startswith("No thread can be made here"), r.content
        assert f"<#{CHANNEL}>" in r.content
        record = await d.bot.store.game_by_channel(CHANNEL)
        assert record is not None and record.status == "playing" and len(record.seats) == 2
        # Typed in a thread (no thread inside a thread): there, since it has no game.
        tid = d.add_thread("somewhere", parent_id=CHANNEL)
        r = await d.slash(bob, "alexandros learn practice", channel_id=tid)
        assert r.ephemeral and "No thread can be made here" in r.content and f"<#{tid}>" in r.content
        # In the busy channel, again without a thread: refused with a sentence, nothing opened.
        d.fail("thread", "403")
        r = await d.slash(bob, "alexandros learn practice")
        assert r.ephemeral and "already has an unfinished game" in r.content, r.content
        assert (await d.bot.store.game_by_channel(CHANNEL)).id == record.id
