"""Issue 32: public posts sent as follow-ups of the interaction that caused them (bot.outbox.lanes), and their
fall-backs. A follow-up is a public message; one Discord refuses (an expired token) is posted through the
channel from the outbox, once; a worker that dies after a follow-up does not post it twice; a token
older than its life is not used."""

from __future__ import annotations

import random

import pytest

from bot.outbox import lanes as lanes_module
from engine import ai
from tests.bot.driver import CHANNEL, WALLS_MAP, Clock, bot_factory, harness, open_game, open_lobby, resign

pytest_plugins = ["tests.harness.fixtures"]


@pytest.fixture(autouse=True)
def _offline(no_network):
    yield


def turn_posts(d, turn: int) -> list:
    return [
        m for m in d.channel_messages(CHANNEL) if m.content.startswith(f"**Turn {turn} ") and m.custom_ids
    ]


async def test_the_first_turn_post_is_a_public_follow_up_of_the_start_press_and_pings(tmp_path):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        g = await open_game(d)
        table = await g.table()
        (post,) = turn_posts(d, 1)
        assert not post.ephemeral and post.attachments and f"<@{table.current_user}>" in post.content
        (made,) = [q for q in d.requests if q.message_id == post.id and q.kind == "followup"]
        assert made.pinged_user_ids == {table.current_user}, "the follow-up pings the player on turn"
        assert not [q for q in d.requests if q.kind == "channel_message" and "**Turn 1 " in (q.content or "")]


async def test_a_follow_up_discord_refuses_is_posted_through_the_channel_once(tmp_path):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        fault = d.fail("followup", "404", times=1, code=10015)  # Unknown Webhook: the token expired
        g = await open_game(d)
        table = await g.table()
        (post,) = turn_posts(d, 1)
        assert len(fault.hits) == 1
        (sent,) = [q for q in d.requests if q.message_id == post.id and q.kind == "channel_message"]
        assert sent.pinged_user_ids == {table.current_user} and sent.payload.get("nonce")
        assert [q.pinged_user_ids for q in d.requests if q.pinged_user_ids] == [{table.current_user}]


async def test_a_webhook_edit_discord_refuses_is_made_through_the_channel(tmp_path):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        g = await open_game(d)
        (post,) = turn_posts(d, 1)
        shown = post.content
        fault = d.fail("edit_followup", "404", times=5, code=10015)
        mark = len(d.requests)
        await g.play(ai.greedy_player(await g.state(), random.Random(0)), 0)  # the turn post is edited
        (after,) = turn_posts(d, 1)
        assert fault.hits and after.id == post.id and after.content != shown
        assert [q for q in d.requests_since(mark) if q.kind == "edit_message" and q.message_id == post.id]


async def test_a_token_past_its_life_is_not_used(tmp_path, monkeypatch):
    monkeypatch.setattr(lanes_module, "LIFE", 0.0)
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        d.bot.lanes.life = 0.0
        await open_game(d)
        (post,) = turn_posts(d, 1)
        assert not [
            q for q in d.requests if q.kind == "followup" and not q.ephemeral and q.message_id == post.id
        ]
        assert [q for q in d.requests if q.kind == "channel_message" and q.message_id == post.id]


@pytest.mark.parametrize("turn_post", [True, False])
async def test_a_worker_that_dies_after_a_follow_up_does_not_post_it_twice(tmp_path, turn_post):
    """A follow-up has no nonce. The worker dies between Discord's answer and "done" (the turn post:
    after recording it; a note: before anything); after its lease, a new process finds the message and
    posts nothing again."""
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        store = d.bot.store
        real_finish = store.finish_duty
        died: list[int] = []

        async def die_once(duty_id, owner, now, outcome="sent"):
            if not died and "sent" in outcome:
                died.append(duty_id)
                return False  # the process "died" here: the duty stays leased, undone
            return await real_finish(duty_id, owner, now, outcome)

        if turn_post:
            users, msg, gid = await open_lobby(d)
            await d.click(users[1], msg.id, f"alx:join:{gid}")
            store.finish_duty = die_once  # type: ignore[method-assign]
            await d.click(users[0], msg.id, f"alx:start:{gid}")
            wanted = lambda: turn_posts(d, 1)  # noqa: E731
        else:
            g = await open_game(d, players=3)
            store.finish_duty = die_once  # type: ignore[method-assign]
            await resign(d, g.users[2])
            wanted = lambda: [m for m in d.channel_messages(CHANNEL) if m.content.endswith(" resigned.")]  # noqa: E731
        assert died and len(wanted()) == 1
        assert [q for q in d.requests if q.kind == "followup" and q.message_id == wanted()[0].id]
        store.finish_duty = real_finish  # type: ignore[method-assign]
        await d.restart()
        clock.now += 120  # past the lease
        await d.bot.deliveries.drain()
        assert len(wanted()) == 1, "posted once, although its duty was delivered twice"
        pending = [x for x in await d.bot.store.pending_duties(None) if x.kind in ("post",)]
        assert pending == []


@pytest.mark.parametrize("error", ["500", "502", "503", "504"])
async def test_a_follow_up_discord_made_but_answered_5xx_is_not_posted_twice(tmp_path, error):
    """A 5xx can come after Discord made the message. The worker must not post it in the channel at once
    (it would stand twice): the duty is tried again, and the retry finds it (found with the fuzzer's
    ``--faults``, tests/bot/fuzz_faults.py)."""
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        fault = d.fail("followup", error, times=1, lost_reply=True)
        await open_game(d)
        assert len(fault.hits) == 1
        clock.now += 60  # past the back-off
        await d.bot.deliveries.drain()
        (post,) = turn_posts(d, 1)
        made = [q.message_id for q in d.requests if q.public_post and "**Turn 1 " in (q.content or "")]
        assert made == [post.id]
        assert await d.bot.store.pending_duties(None) == []


async def test_a_follow_up_discord_answers_5xx_without_making_it_is_posted_once_on_retry(tmp_path):
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        fault = d.fail("followup", "503", times=1)
        g = await open_game(d)
        clock.now += 60
        await d.bot.deliveries.drain()
        assert len(fault.hits) == 1
        (post,) = turn_posts(d, 1)
        made = [q for q in d.requests if q.public_post and "**Turn 1 " in (q.content or "")]
        assert [q.message_id for q in made] == [post.id]
        assert made[0].pinged_user_ids == {(await g.table()).current_user}


async def test_a_channel_post_discord_made_but_lost_is_retried_in_the_channel_not_as_a_follow_up(tmp_path):
    """The retry of a channel post carries its nonce, which makes a post Discord made though the reply was
    lost the same message; a follow-up (no nonce) through a lane lent meanwhile would be a second one
    (found with the fuzzer's ``--faults``)."""
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        lanes = d.bot.lanes
        lanes.life = 0.0  # no lane for the first turn post: it goes to the channel
        lost = d.fail("channel_message", "disconnect", times=1, lost_reply=True)
        well = [False]  # then Discord fails the channel's posts until a lane is lent
        down = d.fail("channel_message", "503", times=1000, when=lambda q: not well[0])
        g = await open_game(d)
        assert len(lost.hits) == 1 and down.hits and len(turn_posts(d, 1)) == 1
        lanes.life = lanes_module.LIFE
        await d.click(g.users[1], g.turn_message().id, f"alx:hand:{g.game_id}")  # lends a lane
        assert lanes.serves(g.game_id, CHANNEL)
        well[0] = True
        for _ in range(8):
            clock.now += 400
            await d.bot.deliveries.drain()
        assert len(turn_posts(d, 1)) == 1, "posted twice"
        assert await d.bot.store.pending_duties(None) == []
