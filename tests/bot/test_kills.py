"""The bot's process killed at a request and a new bot started on the same database (offline's ``"kill"``
fault and ``OfflineDiscord.revive``; the fuzzer's ``kills=``, tests/bot/fuzz_crashes.py): what Discord made
before the kill is found, not made again, and what the dead process had not committed is not there."""

from __future__ import annotations

import random

import pytest

from offline.faults import ProcessKilled
from offline.records import HarnessError
from storage import GameRecord
from tests.bot.driver import CHANNEL, GUILD, WALLS_MAP, Clock, bot_factory, harness, open_lobby
from tests.bot.fuzz_crashes import Crashes
from tests.bot.fuzz_faults import Outage

pytest_plugins = ["tests.harness.fixtures"]


@pytest.fixture(autouse=True)
def _offline(no_network):
    yield


def turn_posts(d) -> list:
    return [m for m in d.channel_messages(CHANNEL) if m.content.startswith("**Turn 1 ") and m.custom_ids]


@pytest.mark.parametrize("route", ["followup", "channel_message"])
@pytest.mark.parametrize("look", [True, False])
async def test_a_turn_post_discord_made_as_the_process_died_is_found_by_the_next_bot_not_posted_again(
    tmp_path, route, look
):
    """The process dies as its turn post goes out, after Discord made it (the reply never read): the duty
    is still open. The next bot sends it again: as a follow-up (no nonce) it first looks for the message
    (bot.outbox.posting._made_before); in the channel, the nonce makes it the same message. Without the
    look, the follow-up's turn post stands twice, and the fuzzer's check says so."""
    clock = Clock()
    lanes = route == "followup"
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock, lanes=lanes)) as d:
        outage, crashes = Outage(d, random.Random(0), 0.0), Crashes(d, random.Random(0), 0.0)
        try:
            users, msg, gid = await open_lobby(d)
            await d.click(users[1], msg.id, f"alx:join:{gid}")
            d.fail(route, "kill", lost_reply=True)
            await d.click(users[0], msg.id, f"alx:start:{gid}", check=False)
            assert d.dead and len(turn_posts(d)) == 1, "Discord made the post; the process died then"
            with pytest.raises(ProcessKilled):
                await d.bot.store.game_by_id(gid)  # nothing reaches the dead process's database
            with pytest.raises(HarnessError, match="revive"):
                await d.slash(users[0], "alexandros status")
            await crashes.revive()
            outage.attach()
            if not look:

                async def never_looks(duty, text):
                    return None

                d.bot.deliveries.posting._made_before = never_looks
            problems = await outage.settle(clock)
            if look or not lanes:
                assert problems == [] and len(turn_posts(d)) == 1  # and nothing due still waits
            else:
                assert len(turn_posts(d)) == 2
                assert any("posted 2 messages" in p for p in problems), problems
        finally:
            outage.close()
            crashes.close()
        d.take_errors()


async def test_a_kill_at_the_presss_answer_leaves_its_commit_to_the_next_bot_to_deliver(tmp_path):
    """The process dies at the press's first answer, which comes after its commit: the member saw no
    answer, but the game started. The next bot posts the turn (the outbox kept it) once, and the lobby's
    Start button, which still stands (its edit never reached Discord), is refused privately."""
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        crashes = Crashes(d, random.Random(0), 0.0)
        try:
            users, msg, gid = await open_lobby(d)
            await d.click(users[1], msg.id, f"alx:join:{gid}")
            d.fail("*", "kill")
            r = await d.click(users[0], msg.id, f"alx:start:{gid}", check=False)
            assert d.dead and [q.kind for q in r.requests] == ["callback"], r.requests
            await crashes.revive()
            started = await d.bot.store.game_by_id(gid)
            assert started.status == "playing"
            clock.now += 60  # past the dead worker's lease, had it claimed the post
            await d.bot.deliveries.drain()
            assert len(turn_posts(d)) == 1
            again = await d.click(users[0], msg.id, f"alx:start:{gid}")
            assert again.ephemeral and (await d.bot.store.game_by_id(gid)).version == started.version
            await d.bot.deliveries.drain()
            assert len(turn_posts(d)) == 1
        finally:
            crashes.close()
        d.take_errors()


async def test_the_crash_check_finds_a_game_waiting_for_a_computer_nobody_plays():
    class Store:
        async def list_games(self, status=None):
            common = {"guild_id": GUILD, "channel_id": CHANNEL, "status": "playing", "version": 3,
                      "created_at": 0.0, "updated_at": 0.0, "created_by": 10, "turn_started_at": None,
                      "seats": ((0, 10), (1, -1))}  # fmt: skip
            return [
                GameRecord(id=5, options={}, waiting_on=-1, **common),  # type: ignore[arg-type]
                GameRecord(id=6, options={"paused": {"by": 10}}, waiting_on=-1, **common),  # type: ignore[arg-type]
                GameRecord(id=7, options={}, waiting_on=10, **common),  # type: ignore[arg-type]
            ]

    class Bot:
        store = Store()

    class World:
        bot = Bot()
        on_kill: list = []

    crashes = Crashes(World(), random.Random(0), 0.0)  # type: ignore[arg-type]
    try:
        assert await crashes.waiting_on_nobody() == [
            "after the kills: game 5 waits for computer seat -1 that nobody plays"
        ]
    finally:
        crashes.close()
