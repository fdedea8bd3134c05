"""The outbox under fire: faults injected at the HTTP seam (5xx, 429 with Retry-After, timeouts, dropped
connections, answers lost after Discord did the work, 403/404), for each kind of duty, and a process that
dies between its commit and its messages. Every duty must be delivered exactly once, and reminders and
deadlines must still fire.

Tests of the channel routes' own path (a change no interaction caused: a timer, another process, a token
expired) run without interaction lanes (``lanes=False``); tests/bot/test_lanes.py covers the lanes and
their fall-back to this path."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot.outbox import duties as dt
from bot.outbox.deliveries import LEASE, RENEW_EVERY, Deliveries
from bot.outbox.pipeline import META_TURN_POST, Ask
from engine import ai
from tests.bot.driver import CHANNEL, WALLS_MAP, Clock, Game, bot_factory, harness, open_game, open_lobby

pytest_plugins = ["tests.harness.fixtures"]

ROOT = Path(__file__).resolve().parents[2]
HOUR = 3600.0
DAY = 24 * HOUR
# Each fault as the bot meets it; "lost" ones reach Discord, which does the work, but the answer is lost.
FAULTS = [
    ("503", False),
    ("502", False),
    ("429", False),
    ("timeout", False),
    ("disconnect", False),
    ("timeout", True),
    ("disconnect", True),
]


@pytest.fixture(autouse=True)
def _offline(no_network):
    yield


async def flush(d, clock: Clock, seconds: float = 3 * HOUR, rounds: int = 6) -> None:
    """Let the worker's back-offs pass (the clock is the bot's), delivering what falls due meanwhile."""
    start = clock.now
    for k in range(1, rounds + 1):
        await d.bot.deliveries.drain(start + seconds * k / rounds)


def turn_posts(d, turn: int) -> list:
    return [
        m for m in d.channel_messages(CHANNEL) if m.content.startswith(f"**Turn {turn} ") and m.custom_ids
    ]


def held_sends(worker: Deliveries, held: dict[int, asyncio.Event]) -> list[int]:
    """The worker's sends recorded, in place of Discord's: a send to a channel of ``held`` waits for its
    event first (a computer thinking, a slow picture). Returns the channels sent to, in order."""
    sent: list[int] = []

    async def send(duty, now):
        gate = held.get(duty.channel_id)
        if gate is not None:
            await gate.wait()
        sent.append(duty.channel_id)
        return "sent"

    worker._send = send
    return sent


def reminders_since(d, mark: int) -> list:
    return [q for q in d.requests_since(mark) if q.kind == "channel_message" and "a reminder" in q.content]


async def undelivered(d, game_id: int) -> list:
    now_due = [x for x in await d.bot.store.pending_duties(game_id) if x.kind not in (dt.REMIND, dt.DEADLINE)]
    return now_due


@pytest.mark.parametrize(("fault", "lost"), FAULTS)
async def test_the_turn_post_is_delivered_once_through_a_fault(tmp_path, fault, lost):
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        d.fail("channel_message", fault, times=2, lost_reply=lost)
        g = await open_game(d)
        await flush(d, clock)
        table = await g.table()
        (post,) = turn_posts(d, 1)
        assert f"<@{table.current_user}>" in post.content and post.attachments
        assert len(d.faults[0].hits) == 2
        pings = [q for q in d.requests if q.pinged_user_ids]
        assert [q.pinged_user_ids for q in pings] == [{table.current_user}], "pinged exactly once"
        assert await undelivered(d, g.game_id) == []
        if lost:
            assert any(q.deduplicated for q in d.requests), "the retry met the message Discord had made"


@pytest.mark.parametrize(("fault", "lost"), FAULTS)
async def test_the_turn_post_is_edited_once_through_a_fault(tmp_path, fault, lost):
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock, lanes=False)) as d:
        g = await open_game(d)
        (post,) = turn_posts(d, 1)
        shown = post.content  # the stored message is live: keep what it said
        d.fail("edit_message", fault, times=2, lost_reply=lost)
        st = await g.state()
        await g.play(ai.greedy_player(st, random.Random(0)), 0)  # the move: the turn post is edited with it
        await flush(d, clock)
        (after,) = turn_posts(d, 1)
        assert after.id == post.id and after.content != shown and "moved Alexander" in after.content
        assert len(d.faults[0].hits) == 2
        assert await undelivered(d, g.game_id) == []
        assert len(turn_posts(d, 1)) == 1, "edited, not posted again"


@pytest.mark.parametrize(("fault", "lost"), FAULTS)
async def test_the_lobby_is_edited_once_through_a_fault(tmp_path, fault, lost):
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        users, msg, gid = await open_lobby(d)
        d.fail("edit_message", fault, times=2, lost_reply=lost)
        r = await d.slash(users[1], "alexandros table join")
        assert r.ephemeral
        await flush(d, clock)
        assert f"<@{users[1].id}>" in d.message(msg.id).content
        assert await undelivered(d, gid) == []


@pytest.mark.parametrize(("fault", "lost"), FAULTS)
async def test_a_reminder_is_sent_once_through_a_fault(tmp_path, fault, lost):
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        g = await open_game(d)
        table = await g.table()
        started = table.record.turn_started_at
        d.fail("channel_message", fault, times=2, lost_reply=lost)
        clock.now = started + DAY + 5
        await flush(d, clock)
        reminders = [m for m in d.channel_messages(CHANNEL) if "a reminder" in m.content]
        assert len(reminders) == 1 and f"<@{table.current_user}>" in reminders[0].content
        (nxt,) = [x for x in await d.bot.store.pending_duties(g.game_id) if x.kind == dt.REMIND]
        assert nxt.due_at > started + DAY + 5, "the next reminder is planned"


@pytest.mark.parametrize(("fault", "lost"), [*FAULTS, ("403", False), ("404", False)])
async def test_a_deadline_still_fires_when_every_message_fails(tmp_path, fault, lost):
    """The measured defect: a failed turn post left a game without reminders or deadline for ever."""
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        # A 429 that never ends is tried again for a day, each time after its Retry-After: a minute here
        # (with 1 s, the tests' clock, which moves on at every read, would never let a delivery round end).
        d.fail("channel_message", fault, times=10_000, lost_reply=lost, retry_after=60.0)
        g = await open_game(d, deadline_hours=36)
        table = await g.table()
        started = table.record.turn_started_at
        for hours in range(1, 50):  # 49 simulated hours, one worker round an hour
            clock.now = started + hours * HOUR
            await d.bot.deliveries.drain()
        reminded = [
            q for q in d.requests if q.kind == "channel_message" and "a reminder" in (q.content or "")
        ]
        assert reminded, "the reminder was attempted although the turn post never went out"
        after = await g.table()
        assert after.state.turn == table.state.turn + 1, "the 36-hour deadline skipped the turn"
        assert d.bot.deliveries.failed > 0
        d.take_errors()  # the warnings about the given-up duties are expected here


async def test_a_worker_that_dies_after_sending_is_replaced_and_nothing_is_sent_twice(tmp_path):
    """Between Discord's answer and "done": the lease runs out, a new worker sends again with the same
    nonce, and Discord hands back the message the first attempt made."""
    clock = Clock()
    db = str(tmp_path / "g.db")
    async with harness(bot_factory(db, WALLS_MAP, 1, clock=clock, lanes=False)) as d:
        users, msg, gid = await open_lobby(d)
        await d.click(users[1], msg.id, f"alx:join:{gid}")
        store = d.bot.store
        real_finish = store.finish_duty
        died: list[int] = []

        async def die_once(duty_id, owner, now, outcome="sent"):
            if not died:
                died.append(duty_id)
                return False  # the process "died" here: the duty stays leased, undone
            return await real_finish(duty_id, owner, now, outcome)

        store.finish_duty = die_once  # type: ignore[method-assign]
        await d.click(users[0], msg.id, f"alx:start:{gid}")
        assert died and len(turn_posts(d, 1)) == 1
        store.finish_duty = real_finish  # type: ignore[method-assign]
        await d.restart()
        clock.now += 120  # past the lease
        await d.bot.deliveries.drain()
        assert len(turn_posts(d, 1)) == 1, "one post, although it was sent twice"
        assert any(q.deduplicated for q in d.requests)
        assert await undelivered(d, gid) == []


CHILD = """
import asyncio, os, sys
from tests.bot.driver import WALLS_MAP, Clock, bot_factory, harness, NAMES
from tests.bot.driver import open_lobby

async def main(db):
    clock = Clock()
    async with harness(bot_factory(db, WALLS_MAP, 1, clock=clock, lanes=False)) as d:
        users, msg, gid = await open_lobby(d)
        await d.click(users[1], msg.id, f"alx:join:{gid}")
        d.bot.pipeline.wake = lambda game_id: None  # commits write their duties; nobody delivers them
        await d.click(users[0], msg.id, f"alx:start:{gid}")
        print("committed", gid, flush=True)
        await asyncio.sleep(60)

asyncio.run(main(sys.argv[1]))
"""


async def test_a_process_killed_between_commit_and_delivery_loses_nothing(tmp_path):
    db = str(tmp_path / "g.db")
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, db], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        line = await asyncio.wait_for(asyncio.to_thread(proc.stdout.readline), 60)  # type: ignore[union-attr]
        assert line.startswith("committed"), proc.stderr.read() if proc.stderr else line
        gid = int(line.split()[1])
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
    clock = Clock(start=2_000_000_000.0)
    async with harness(bot_factory(db, WALLS_MAP, 1, clock=clock)) as d:
        pending = await d.bot.store.pending_duties(gid)
        assert [x.kind for x in pending][:1] == [dt.POST], "the start's turn post waited in the store"
        await d.bot.deliveries.drain()
        posts = turn_posts(d, 1)
        assert len(posts) == 1, "delivered once after the restart"
        assert await undelivered(d, gid) == []
        timers = {x.kind for x in await d.bot.store.pending_duties(gid)}
        assert dt.REMIND in timers, "the reminder hangs on the commit, not on the post"


async def test_a_turn_post_edit_waiting_behind_a_later_one_is_not_drawn_nor_sent(tmp_path):
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock, lanes=False)) as d:
        g = await open_game(d)
        (post,) = turn_posts(d, 1)
        # A backlog: the commits write their edits, nobody sends them yet.
        d.bot.pipeline.wake = lambda game_id: None
        for n in range(2):
            st = await g.state()
            action = ai.greedy_player(st, random.Random(n))
            table = await g.table()
            user = g.user_of_seat(table, st.current)
            await d.bot.pipeline.act(Ask(user.id, game_id=g.game_id), lambda s, seat, a=action: a)
        assert len([x for x in await d.bot.store.pending_duties(g.game_id) if x.kind == dt.EDIT]) == 2
        mark = d.mark()
        await d.bot.deliveries.drain()
        edits = [q for q in d.requests_since(mark) if q.kind == "edit_message"]
        assert len(edits) == 1, "one edit, with the latest board"
        assert edits[0].files, "the edit that was sent carries the picture of the latest state"
        assert not [x for x in await d.bot.store.pending_duties(g.game_id) if x.kind == dt.EDIT]


@pytest.mark.parametrize(("minutes", "delivered"), [(25, True), (25 * 60, False)])
async def test_a_turn_post_outlives_an_outage_of_discord_for_a_day(tmp_path, minutes, delivered):
    """Discord answers 503 for a while. The quick retries of a bug of ours (12, about 18 minutes) used to
    give the turn post up after 18 minutes, and with it the board and the ping, for good; Discord's own
    failures are tried again for a day from when the duty fell due, and given up only after that."""
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock, lanes=False)) as d:
        fault = d.fail("channel_message", "503", times=10**6)
        g = await open_game(d)
        end = clock.now + minutes * 60
        while clock.now < end:  # the worker's rounds during the outage, every 10 s, then every 5 minutes
            await d.bot.deliveries.drain(clock.now + (10 if minutes < 60 else 300))
        fault.times = len(fault.hits)  # Discord is back
        await flush(d, clock, seconds=HOUR, rounds=12)
        posts = turn_posts(d, 1)
        pings = [q for q in d.requests if q.kind == "channel_message" and q.pinged_user_ids and not q.fault]
        if delivered:
            assert len(posts) == 1 and pings and d.bot.deliveries.failed == 0
        else:
            assert posts == [] and d.bot.deliveries.failed > 0, "a day later, the post is given up"
            d.take_errors()
        assert len(fault.hits) > 12
        assert (await g.table()).record.status == "playing"


async def test_a_bug_of_ours_is_still_given_up_after_a_few_attempts(tmp_path):
    """What is not Discord's failure (here: the picture cannot be drawn, every time) is tried 12 times, not
    for a day: it would hold every later duty of its channel."""
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        worker = d.bot.deliveries

        async def broken(duty, now):
            raise ValueError("a bug of ours")

        worker._send = broken
        await open_game(d)
        await flush(d, clock, seconds=3 * HOUR, rounds=60)
        assert worker.failed > 0
        given_up = [x for x in await d.bot.store.pending_duties(None)]
        assert given_up == [] or all(x.kind in (dt.REMIND, dt.DEADLINE) for x in given_up)
        d.take_errors()


@pytest.mark.parametrize("fault", ["403", "503"])
async def test_a_reminder_given_up_still_plans_the_next_one(tmp_path, fault):
    """A reminder plans the next one only after it is sent: one that Discord refused (a permission taken
    away from the channel: at once; an outage past the day of retries) used to end the wait's reminders."""
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        g = await open_game(d)
        me = g.user_of_seat(await g.table(), (await g.state()).current)
        started = (await g.table()).record.turn_started_at
        await d.bot.deliveries.drain(started + 120)  # the turn post is out
        failing = d.fail("channel_message", fault, times=10**6)
        t = started + DAY + 5
        while t < started + (2 * DAY if fault == "403" else 2 * DAY + 2 * HOUR):
            await d.bot.deliveries.drain(t)
            t += 10 * 60
        assert failing.hits and d.bot.deliveries.failed > 0
        failing.times = len(failing.hits)  # the permission is back, or Discord is
        pending = [x for x in await d.bot.store.pending_duties(g.game_id) if x.kind == dt.REMIND]
        assert [x.user_id for x in pending] == [me.id], "the next reminder is planned"
        mark = d.mark()
        for hours in range(1, 3 * 24):
            await d.bot.deliveries.drain(t + hours * HOUR)
        sent = reminders_since(d, mark)
        assert sent and all(q.pinged_user_ids == {me.id} for q in sent)
        d.take_errors()


async def test_a_worker_that_stalls_past_its_lease_never_records_an_older_turn_post(tmp_path):
    """Worker A has sent turn 1's post and stalls before recording it; its lease runs out, worker B sends
    the same post (same nonce: the same message), then turn 2's post, and records it. When A resumes, its
    turn-1 record must not replace turn 2's: the next edit of turn 2 would not find its post, and would post
    turn 2 a second time, buttons and all."""
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        users, msg, gid = await open_lobby(d)
        await d.click(users[1], msg.id, f"alx:join:{gid}")
        d.bot.pipeline.wake = lambda game_id: None  # a backlog: turn 1's post, turn 2's post and an edit
        await d.click(users[0], msg.id, f"alx:start:{gid}")
        g = Game(d, users, game_id=gid)
        first, n = (await g.table()).current_user, 0
        while (await g.table()).current_user == first:
            await act(d, g, n)
            n += 1
        await act(d, g, n)
        n += 1
        store, a = d.bot.store, d.bot.deliveries
        real_set_meta, gate, calls = store.set_game_meta, asyncio.Event(), []

        async def stalling_set_meta(game_id, changes, now, **kw):
            calls.append(changes)
            if len(calls) == 1:
                await gate.wait()  # A, after Discord answered
            return await real_set_meta(game_id, changes, now, **kw)

        store.set_game_meta = stalling_set_meta
        b = Deliveries(d.bot, store, d.bot.pictures, lambda: clock.now + 61, owner="B", rate=None)
        b.timers, b.handlers = a.timers, a.handlers
        stalled = await under_way(a, calls)
        assert calls, "A recorded the turn post"
        await b.drain()  # A's lease has run out, as B sees it
        newest = (await store.get_game_meta(gid))[META_TURN_POST]
        gate.set()
        await stalled
        store.set_game_meta = real_set_meta
        assert (await store.get_game_meta(gid))[META_TURN_POST] == newest
        d.bot.pipeline.wake = lambda game_id: a.wake()
        await act(d, g, n)  # another action of turn 2: its edit
        await a.drain()
        assert len(turn_posts(d, 2)) == 1
        d.take_errors()


async def test_a_duty_still_in_flight_is_not_delivered_again_when_its_own_worker_claims_it_again(tmp_path):
    """A worker whose delivery outlives the duty's lease (its renewals late: the loop stalled) claims the duty
    again itself: the lease is its own, so the store's writes do not tell it. The delivery under way finishes
    it; a second one could post it twice, one try as a follow-up and the other in the channel (the fuzzer's
    --faults found one on PostgreSQL)."""
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        await open_game(d)
        a, store = d.bot.deliveries, d.bot.store
        real_send, gate, sent = a._send, asyncio.Event(), []

        async def slow_send(duty, now):
            sent.append(duty.id)
            await gate.wait()
            return await real_send(duty, now)

        a._send = slow_send
        await store.add_duties(None, [dt.say(CHANNEL, "hello", now=clock.now)], clock.now)
        first = await under_way(a, sent)
        assert sent, "a delivery is under way"
        clock.now += LEASE + 60  # its lease has run out
        second = asyncio.ensure_future(a.drain())
        await asyncio.sleep(0.2)
        gate.set()
        await first
        await second
        assert len(sent) == len(set(sent)), f"delivered twice: {sent}"
        assert len([m for m in d.channel_messages(CHANNEL) if m.content == "hello"]) == 1
        assert await store.pending_duties(None) == []


async def under_way(deliveries: Deliveries, seen: list) -> asyncio.Future:
    """A drain started, once it has come as far as ``seen`` tells (at most 5 s)."""
    running = asyncio.ensure_future(deliveries.drain())
    for _ in range(500):
        if seen:
            break
        await asyncio.sleep(0.01)
    return running


async def act(d, g, n: int) -> None:
    """The player on turn makes the greedy computer player's choice, through the pipeline."""
    st, table = await g.state(), await g.table()
    action = ai.greedy_player(st, random.Random(n))
    user = g.user_of_seat(table, st.current)
    await d.bot.pipeline.act(Ask(user.id, game_id=g.game_id), lambda s, seat, a=action: a)


async def test_closing_waits_for_every_send_in_flight_whichever_round_started_it(tmp_path):
    """A send started by the worker's timer round (run_forever), not by a commit's: closing used to wait
    only for the latter, so the store closed under the send, and the duty stayed leased and undone, to be
    sent again after the next start (twice, if that fell outside Discord's few minutes of nonces)."""
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        worker = d.bot.deliveries
        d.bot.pipeline.wake = lambda game_id: None  # the turn post waits in the outbox
        g = await open_game(d)
        real_send, started = worker._send, asyncio.Event()

        async def slow_send(duty, now):
            started.set()
            await asyncio.sleep(0.5)  # Discord is slow to answer
            return await real_send(duty, now)

        worker._send = slow_send
        timer_round = asyncio.ensure_future(worker.drain())  # as run_forever's rounds start it
        await asyncio.wait_for(started.wait(), 10)
        await worker.close()
        left = await d.bot.store.pending_duties(g.game_id)
        assert [x for x in left if x.lease_owner is not None] == [], "every send in flight finished"
        assert dt.POST not in {x.kind for x in left} and turn_posts(d, 1)
        # What was not claimed yet stays for the next start: closing claims nothing more.
        assert await timer_round >= 1


async def test_a_send_that_never_ends_is_cut_off_at_its_send_timeout_and_tried_again(tmp_path, caplog):
    """A send that hangs (a lost connection that never errors, a stuck picture) must not hold its duty, and
    its channel's later duties, for ever (its lease is renewed while it runs): it is cut off at the send
    timeout and tried again."""
    from storage import NewDuty

    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        g = await open_game(d)
        await flush(d, clock)
        worker = d.bot.deliveries
        worker.send_timeout = 0.2
        sends: list[int] = []

        async def stuck_once(duty, now):
            sends.append(duty.attempts)
            if len(sends) == 1:
                await asyncio.Event().wait()  # never set
            return "sent"

        worker.handlers["stuck"] = stuck_once
        await d.bot.store.add_duties(g.game_id, [NewDuty("stuck", clock.now, CHANNEL)], clock.now)
        started = asyncio.get_running_loop().time()
        await asyncio.wait_for(flush(d, clock, seconds=60), 10.0)
        assert asyncio.get_running_loop().time() - started < 3.0, "cut off at the send timeout (0.2 s)"
        assert sends == [1, 2], "tried once more, and done"
        assert [x for x in await d.bot.store.pending_duties(g.game_id) if x.kind == "stuck"] == []
        (retried,) = [r for r in caplog.records if "(stuck)" in r.getMessage()]
        assert "retrying" in retried.getMessage() and "TimeoutError" in retried.getMessage()


async def test_a_live_edit_with_a_later_edit_of_the_same_turn_post_waiting_is_not_sent(tmp_path):
    """A busy game (or a backlog) has several edits of one turn post waiting: the older ones show nothing
    the newest does not, so they are neither drawn nor sent. Edits of another turn post, or other duties,
    do not count; a closing edit (no buttons) is always sent."""
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        g = await open_game(d)
        await d.bot.deliveries.drain(clock() + 5)
        store, worker = d.bot.store, d.bot.deliveries
        since = int((await store.get_game_meta(g.game_id))[META_TURN_POST]["since"])
        live = {"since": since, "text": "x", "buttons": {"game": g.game_id, "version": 1, "moving": True}}
        first, other, later = await store.add_duties(
            g.game_id,
            [
                dt.NewDuty(dt.EDIT, clock(), CHANNEL, payload=live),
                dt.NewDuty(dt.EDIT, clock(), CHANNEL, payload={**live, "since": since - 1}),
                dt.NewDuty(dt.EDIT, clock(), CHANNEL, payload=live),
            ],
            clock(),
        )
        assert await worker.posting.superseded(first)
        assert not await worker.posting.superseded(other) and not await worker.posting.superseded(later)
        assert await worker.posting.edit_turn(first, clock()) == "superseded by a later edit"
        closing = {k: v for k, v in live.items() if k != "buttons"}
        edits = [dt.NewDuty(dt.EDIT, clock(), CHANNEL, payload=p) for p in (closing, live)]
        closed, _ = await store.add_duties(g.game_id, edits, clock())
        assert await worker.posting.superseded(closed), "a later edit waits"
        edited = await worker.posting.edit_turn(closed, clock())
        assert edited.startswith("edited "), "and it is sent all the same"


async def test_a_slow_send_holds_up_neither_the_sends_beside_it_nor_the_claims_behind_it(tmp_path):
    """The worker claims a batch and sends it side by side; once half the batch's room is free it claims
    again, whatever one slow send (a slow picture, a slow Discord) still does."""
    from storage import NewDuty

    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        await d.bot.deliveries.drain(clock() + 5)
        worker = d.bot.deliveries
        worker.batch = 4
        release = asyncio.Event()
        sent = held_sends(worker, {9000: release})
        channels = [9000, *range(9001, 9008)]
        for channel in channels:
            duty = NewDuty(dt.POST, clock(), channel, payload={"text": "x"})
            await d.bot.store.add_duties(None, [duty], clock())
        draining = asyncio.ensure_future(worker.drain())
        for _ in range(200):
            if len(sent) == len(channels) - 1:
                break
            await asyncio.sleep(0.01)
        assert sorted(sent) == channels[1:], "every other duty was claimed and sent meanwhile"
        release.set()
        assert await draining == len(channels) and sent[-1] == 9000


async def test_a_duty_committed_while_a_slow_one_runs_is_sent_without_waiting_for_it(tmp_path):
    """Issue 29: a computer's turn is a delivery that thinks for seconds (a deadline duty, waiting for the
    computer workers). The round that found nothing more to claim waited for every delivery in flight, and a
    commit meanwhile only asked for another round after it: every other channel's posts waited for the
    computers (bench_computers: 50 games of people took 122 s beside 20 computer tables, 22 s without)."""
    from storage import NewDuty

    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        await d.bot.deliveries.drain(clock() + 5)
        worker, store = d.bot.deliveries, d.bot.store
        release = asyncio.Event()
        sent = held_sends(worker, {9000: release})  # a computer thinking
        await store.add_duties(None, [NewDuty(dt.DEADLINE, clock(), 9000, payload={"turn": 3})], clock())
        worker.wake()
        await asyncio.sleep(0.05)  # the round claimed it, found nothing more, and waits for it
        try:
            await store.add_duties(None, [NewDuty(dt.POST, clock(), 9001, payload={"text": "y"})], clock())
            worker.wake()  # a commit's
            for _ in range(200):
                if sent:
                    break
                await asyncio.sleep(0.01)
            assert sent == [9001], "the later commit's post went out while the slow delivery ran"
        finally:
            release.set()
        await worker.drain()
        assert sorted(sent) == [9000, 9001]


async def test_commits_beside_a_computer_thinking_are_claimed_together_as_without_it(tmp_path):
    """Issue 29: 20 computer tables are always thinking in deadlines' deliveries. While they did, every
    commit was claimed on its own at once, beside people's posts still in flight: more claims of fewer
    duties, and people's interaction p99 1.29x that without the computers (bench_computers; 1.05x when
    commits are claimed as without them: together, once the posts in flight have landed)."""
    from storage import NewDuty

    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        await d.bot.deliveries.drain(clock() + 5)
        worker, store = d.bot.deliveries, d.bot.store
        thinking, slow, claims = asyncio.Event(), asyncio.Event(), []
        # A computer thinking, and a post still in flight (its picture, Discord).
        sent = held_sends(worker, {9000: thinking, 9001: slow})
        claim = store.claim_duties

        async def counted(*args, **kwargs):
            got = await claim(*args, **kwargs)
            claims.append(sorted(x.channel_id for x in got))
            return got

        worker.lease = 10 * HOUR  # each read of the test's clock moves it on by a second
        store.claim_duties = counted

        async def commit(channel, kind=dt.POST):
            await store.add_duties(None, [NewDuty(kind, clock(), channel, payload={"text": "y"})], clock())
            worker.wake()
            await asyncio.sleep(0.02)

        try:
            await commit(9000, dt.DEADLINE)
            await commit(9001)
            for channel in (9002, 9003, 9004):  # three commits while the post to 9001 is in flight
                await commit(channel)
            assert sent == [], "nothing landed yet"
            slow.set()
            for _ in range(200):
                if len(sent) == 4:
                    break
                await asyncio.sleep(0.01)
            assert sent[0] == 9001 and sorted(sent[1:]) == [9002, 9003, 9004], sent
            taken = [c for c in claims if c]
            assert taken == [[9000], [9001], [9002, 9003, 9004]], f"claimed one by one: {taken}"
        finally:
            thinking.set()
            slow.set()
        await worker.drain()
        assert sorted(sent) == [9000, 9001, 9002, 9003, 9004]


async def test_a_round_at_its_limit_leaves_the_computers_thinking_and_sends_what_came_since(tmp_path):
    """20 computer tables keep one round going for as long as they think. At the round's limit it waited
    for every computer still thinking, the whole queue of the computers' worker, and every commit's posts
    meanwhile waited for the next round: now the computers go on without it."""
    from storage import NewDuty

    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        await d.bot.deliveries.drain(clock() + 5)
        worker, store = d.bot.deliveries, d.bot.store
        worker.lease = 10 * HOUR  # each read of the test's clock moves it on by a second
        thinking = asyncio.Event()
        sent = held_sends(worker, {9000: thinking})  # a computer thinking
        await store.add_duties(None, [NewDuty(dt.DEADLINE, clock(), 9000, payload={"turn": 3})], clock())
        try:
            draining = asyncio.ensure_future(worker.drain(rounds=3))
            for channel in (9001, 9002, 9003):
                await asyncio.sleep(0.02)
                await store.add_duties(None, [NewDuty(dt.POST, clock(), channel, payload={"t": 1})], clock())
                worker.wake()
            await asyncio.wait_for(draining, 5)  # not behind the computer
            await worker.drain()  # the commits' own round, as wake started it
            assert sorted(sent) == [9001, 9002, 9003], sent
        finally:
            thinking.set()
        await worker.drain()
        for _ in range(200):
            if 9000 in sent:
                break
            await asyncio.sleep(0.01)
        assert sorted(sent) == [9000, 9001, 9002, 9003]


# --- a store that fails (issue 27: a full disk) --------------------------------------------------------


async def test_a_full_disk_does_not_leave_the_delivery_worker_dead(tmp_path):
    """The store refused the worker's claim ("database or disk is full"): the delivery task died with an
    unretrieved exception, and the duty waited for the next action (or the next minute's poll). The worker
    is supervised now: the failure is logged, and the round started again after a short back-off."""
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        g = await open_game(d)
        (post,) = turn_posts(d, 1)
        shown = post.content
        store = d.bot.store
        real_claim, failed = store.claim_duties, []

        async def full_disk(*args, **kwargs):
            if len(failed) < 3:
                failed.append(args)
                raise sqlite3.OperationalError("database or disk is full")
            return await real_claim(*args, **kwargs)

        store.claim_duties = full_disk  # type: ignore[method-assign]
        await act(d, g, 0)  # the move's commit writes the turn post's edit and wakes the worker
        loop = asyncio.get_running_loop()
        until = loop.time() + 15.0
        while d.message(post.id).content == shown:  # no drain here, no other action: the worker alone
            assert loop.time() < until, f"the worker never delivered again after {len(failed)} failures"
            await asyncio.sleep(0.05)
        assert len(failed) == 3 and "moved Alexander" in d.message(post.id).content
        # The edit is on Discord; the worker writes that it is done just after (a busy machine may show
        # the message before that write): it must come, from the worker alone, within the same time.
        while [x for x in await undelivered(d, g.game_id) if x.kind in (dt.POST, dt.EDIT)]:
            assert loop.time() < until, "the delivered edit was never marked done"
            await asyncio.sleep(0.05)
        logged = [str(e) for e in d.take_errors()]
        assert logged and all("database or disk is full" in e for e in logged), logged
        assert (
            d.bot.deliveries._drain is None
            or not d.bot.deliveries._drain.done()
            or (d.bot.deliveries._drain.exception() is None)
        ), "the task ended cleanly"


async def test_an_outcome_the_store_cannot_write_is_sent_again_with_its_nonce(tmp_path):
    """The send went out but "done" could not be written (a full disk): the worker goes on with the other
    duties, and the duty, still leased, goes out again when its lease has run out: the same message."""
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock, lanes=False)) as d:
        users, msg, gid = await open_lobby(d)
        await d.click(users[1], msg.id, f"alx:join:{gid}")
        store = d.bot.store
        real_finish, failed = store.finish_duty, []

        async def full_disk(duty_id, owner, now, outcome="sent"):
            if not failed:
                failed.append(duty_id)
                raise sqlite3.OperationalError("database or disk is full")
            return await real_finish(duty_id, owner, now, outcome)

        store.finish_duty = full_disk  # type: ignore[method-assign]
        r = await d.click(users[0], msg.id, f"alx:start:{gid}", check=False)
        assert failed and len(turn_posts(d, 1)) == 1
        assert [e.message for e in r.errors] == [
            f"duty {failed[0]} (post) of game {gid}: its outcome could not be written"
        ]
        waiting = await undelivered(d, gid)
        assert waiting[0].id == failed[0] and waiting[0].lease_owner, "still leased, and its channel waits"
        await flush(d, clock, seconds=120)  # past its lease
        assert len(turn_posts(d, 1)) == 1, "one post, although it was sent twice"
        assert any(q.deduplicated for q in d.requests)
        assert await undelivered(d, gid) == []
        d.take_errors()


# --- leases: short, and renewed while a delivery runs (issue 27) ------------------------------------------


async def test_a_long_delivery_keeps_its_lease_and_is_sent_once(tmp_path):
    """A delivery that takes several lease terms (a slow picture, a slow Discord): its worker renews the
    lease, so another worker never takes the duty over, and it is sent once."""
    from storage import NewDuty, open_store

    store = await open_store(tmp_path / "g.db")
    try:
        sends: list[str] = []
        workers = []
        for name in ("A", "B"):
            w = Deliveries(None, store, None, time.time, owner=name, lease=0.6, renew_every=0.2, rate=None)

            async def slow(duty, now, name=name):
                sends.append(name)
                await asyncio.sleep(2.0)  # more than three lease terms
                return "sent"

            w.handlers["slow"] = slow
            workers.append(w)
        a, b = workers
        await store.add_duties(None, [NewDuty("slow", time.time(), 9000)], time.time())
        running = asyncio.ensure_future(a.drain())
        taken = 0
        for _ in range(25):  # B looks for work every 0.1 s while A delivers
            await asyncio.sleep(0.1)
            taken += await b.drain()
        await running
        assert sends == ["A"] and taken == 0, "B never took the duty over: A renewed its lease"
        assert await store.pending_duties(None) == []
        await a.close()
        await b.close()
    finally:
        await store.close()


CRASH_CHILD = """
import asyncio, sys, time
from bot.client import make_bot
from bot.games.pictures import Pictures
from storage import NewDuty, open_store
from tests.bot.driver import WALLS_MAP, harness

async def main(db, channels, per_channel, held_for):
    store = await open_store(db)
    now = time.time()
    for c in range(channels):
        posts = [{"text": f"post {c}.{n}"} for n in range(per_channel)]
        await store.add_duties(None, [NewDuty("post", now, 9000 + c, payload=p) for p in posts], now)
    await store.close()
    pictures = Pictures(width=320)

    def factory():
        return make_bot(db, map_provider=lambda: WALLS_MAP, clock=time.time, pictures=pictures)

    async with harness(factory) as d:
        for c in range(channels):
            d.add_channel(f"c{c}", channel_id=9000 + c)
        started = asyncio.Event()

        async def hang(duty, now):
            started.set()
            await asyncio.Event().wait()  # Discord never answers; the process dies meanwhile

        d.bot.deliveries._send = hang
        d.bot.deliveries.wake()
        await started.wait()
        await asyncio.sleep(held_for)  # a renewal or two (or none) before the crash
        print("sending", flush=True)
        await asyncio.sleep(3600)

asyncio.run(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])))
"""


@pytest.mark.parametrize("held_for", [0.5, 6.0])
async def test_a_channel_goes_on_within_20_s_after_its_process_dies(tmp_path, held_for):
    """A process dies (SIGKILL) while it delivers: the first post of each of its channels is leased to it.
    Its replacement sends them, and everything behind them, within 20 s of the crash (the lease, 60 s, made
    them wait up to a minute). ``held_for``: the crash comes before the first renewal, or after one."""
    from bot.client import make_bot
    from bot.games.pictures import Pictures

    db, channels, per_channel = str(tmp_path / "g.db"), 6, 3
    proc = subprocess.Popen(
        [sys.executable, "-c", CRASH_CHILD, db, str(channels), str(per_channel), str(held_for)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        line = await asyncio.wait_for(asyncio.to_thread(proc.stdout.readline), 90)  # type: ignore[union-attr]
        assert line.startswith("sending"), proc.stderr.read() if proc.stderr else line
        os.kill(proc.pid, signal.SIGKILL)
        killed = time.monotonic()
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
    factory = lambda: make_bot(  # noqa: E731
        db, map_provider=lambda: WALLS_MAP, clock=time.time, pictures=Pictures(width=320), reminders=True,
        send_rate=None,
    )  # fmt: skip
    async with harness(factory) as d:
        for c in range(channels):
            d.add_channel(f"c{c}", channel_id=9000 + c)
        store = d.bot.store
        held = [x for x in await store.pending_duties(None) if x.lease_owner is not None]
        assert len(held) == channels, "the dead process held each channel's first post"
        while await store.pending_duties(None):
            assert time.monotonic() - killed < 20.0, "a channel was still quiet 20 s after the crash"
            await asyncio.sleep(0.1)
        resumed = time.monotonic() - killed
        for c in range(channels):
            texts = [m.content for m in d.channel_messages(9000 + c)]
            assert texts == [f"post {c}.{n}" for n in range(per_channel)], "in order, each once"
    print(
        f"channels resumed {resumed:.1f} s after the crash (lease {LEASE:.0f} s, renewal {RENEW_EVERY:.0f} s)"
    )
