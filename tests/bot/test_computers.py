"""Issue 14 in the bot: a map chosen when the table opens, computer seats of a level that play their turns
as soon as they come (off the event loop, through the pipeline, never pinged or reminded or rated), and
the table's level for absent players."""

from __future__ import annotations

import asyncio
import random
import re

import pytest

from bot.games.computers import is_computer, play_turn
from bot.outbox.pipeline import Ask
from bot.words import i18n
from engine import ai
from engine.game import new_game
from engine.maps import packaged_map
from tests.bot.driver import CHANNEL, WALLS_MAP, Clock, Game, bot_factory, harness, open_with_computer

pytest_plugins = ["tests.harness.fixtures"]


@pytest.fixture(autouse=True)
def _offline(no_network):
    yield


async def test_a_map_chosen_at_creation_and_the_computers_level(tmp_path):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        alice, bob = d.member("alice"), d.member("bob")
        r = await d.slash(alice, "alexandros new", map="aegean", computer="hard")
        lobby = r.response_message
        gid = int(lobby.custom_ids[0].split(":")[2])
        await d.click(bob, lobby.id, f"alx:join:{gid}")
        await d.click(alice, lobby.id, f"alx:start:{gid}")
        table = await d.bot.pipeline.tables.by_id(gid)
        assert table.state.map.name == packaged_map("aegean").name
        assert table.record.options["computer"] == "hard"


async def test_a_computer_seat_plays_its_turns_at_once_and_is_never_pinged(tmp_path):
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 2, clock=clock)) as d:
        alice = d.member("alice")
        r = await d.slash(alice, "alexandros new")
        lobby = r.response_message
        gid = int(lobby.custom_ids[0].split(":")[2])
        r = await d.slash(d.member("bob"), "alexandros table add-computer", level="easy")
        assert r.ephemeral and "Only alice" in r.content, "the creator seats computers"
        r = await d.slash(alice, "alexandros table add-computer", level="normal")
        assert r.ephemeral and "computer player (normal)" in r.content
        await d.bot.deliveries.drain()
        assert "**Computer (normal)**" in d.message(lobby.id).content
        await d.click(alice, lobby.id, f"alx:start:{gid}")
        await d.bot.deliveries.drain()
        g = Game(d, [alice], game_id=gid)
        rng = random.Random(2)
        played = 0
        for n in range(60):
            table = await g.table()
            st = table.state
            if st.over:
                break
            assert not is_computer(table.current_user), "the computer's turn waited for nobody"
            await g.play(ai.greedy_player(st, rng), n)
            await d.bot.deliveries.drain()
            played += 1
        posts = [m for m in d.channel_messages(CHANNEL) if "— Computer (normal) (" in m.content]
        assert posts and played > 3
        assert all("— turn over." in m.content for m in posts), "each computer turn closed on its turn post"
        assert all(u > 0 for q in d.requests for u in q.pinged_user_ids), "a computer is never pinged"
        duties = await d.bot.store.pending_duties(gid)
        assert not [x for x in duties if x.kind == "remind" and is_computer(x.user_id)]


def test_the_hard_level_keeps_to_its_time_and_plays_legal_turns():
    import time

    state, _ = new_game(WALLS_MAP, 2, 3)
    started = time.monotonic()
    played = play_turn(state, "hard", random.Random(1))
    assert played is not None and played[0].current != state.current or played[0].over
    assert time.monotonic() - started < 3 * 3 + 1  # at most a move and two actions, 2.5 s each


def test_a_failing_computer_player_falls_back_to_a_legal_action(monkeypatch):
    from engine import ai as engine_ai

    def broken(state, rng):
        raise AssertionError("no move found")

    monkeypatch.setitem(engine_ai.LEVELS, "normal", broken)
    state, _ = new_game(WALLS_MAP, 2, 3)
    played = play_turn(state, "normal", random.Random(1))
    assert played is not None and played[2], "the easy player took over"


async def test_a_game_paused_on_the_computers_turn_and_resumed_lets_the_computer_play(tmp_path):
    """The pause drops the computer's turn (its deadline, due at once); the resume used to plan a person's
    timers for it instead (a reminder for the computer, no deadline at a table without one), and it never
    played again. It plays at once after the resume, and is not pinged."""
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 2, clock=clock)) as d:
        alice = d.member("alice")
        g = await open_with_computer(d, alice)
        gid = g.game_id
        if is_computer((await g.table()).current_user):
            await d.bot.deliveries.drain()
        rng, turn = random.Random(3), (await g.state()).turn
        # The computer's turn waits.
        worker_wake, d.bot.pipeline.wake = d.bot.pipeline.wake, lambda game_id: None
        for _ in range(10):
            st = await g.state()
            if st.turn != turn:
                break
            action = ai.greedy_player(st, rng)
            await d.bot.pipeline.act(Ask(alice.id, game_id=gid), lambda s, seat, a=action: a)
        table = await g.table()
        assert is_computer(table.current_user)
        await d.slash(alice, "alexandros game pause")
        d.bot.pipeline.wake = worker_wake
        await d.bot.deliveries.drain()
        assert (await g.state()).turn == turn + 1, "paused: the computer waits"
        mark = d.mark()
        await d.slash(alice, "alexandros game resume")
        await d.bot.deliveries.drain()
        after = await g.table()
        assert after.state.turn >= turn + 2 and after.current_user == alice.id, "the computer played"
        assert all(u > 0 for q in d.requests_since(mark) for u in q.pinged_user_ids), "nor pinged"
        duties = await d.bot.store.pending_duties(gid)
        assert not [x for x in duties if x.kind == "remind" and is_computer(x.user_id)]


@pytest.mark.parametrize("locale", ["en", "de"])
async def test_a_computer_turn_is_one_clean_post_naming_the_player_once(tmp_path, locale):
    """Issue 27: a computer's turn was posted twice and garbled: a turn post calling the computer to play
    ("**Turn 1 — Computer (hard) (yellow)** **Computer (hard)**, it is your turn.", closed as "… it is your
    turn. — turn over."), then a second message of its steps joined with "; " ("took the face-up amphora.;
    … (slot 2)..") . Each computer turn is now one public post, its turn post, whose title names the
    computer once, closed with its steps as sentences, in the game's language."""
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 2, clock=clock)) as d:
        d.set_guild_locale(locale)
        alice = d.member("alice")
        alice.locale = locale
        g = await open_with_computer(d, alice, level="easy")
        table = await g.table()
        assert table.locale == locale
        computer = next(u for u in table.record.user_ids if is_computer(u))
        name = table.speaker.seat(table.seat_of(computer))
        with i18n.speaking(locale):
            over = i18n._("{title} — turn over.").format(title="")
        rng, turns = random.Random(5), 0
        mark = 0
        for _ in range(60):
            st = await g.state()
            if st.over or turns >= 3:
                break
            action = ai.greedy_player(st, rng)  # alice's step, as a command would make it
            await d.bot.pipeline.act(Ask(alice.id, game_id=g.game_id), lambda s, seat, a=action: a)
            await d.bot.deliveries.drain()
            posts = [
                q for q in d.requests_since(mark)
                if q.public_post and not q.ephemeral and name in (q.content or "")
                and not q.content.startswith("\N{PUSHPIN}")  # the status board, edited, never re-posted
            ]  # fmt: skip
            mark = len(d.requests)
            for post in posts:
                turns += 1
                first = post.content.split("\n")[0]
                assert first.count(name) == 1, first
                assert re.match(rf"\*\*\w+ \d+ — {re.escape(name)} \(\w+\)\*\* ", first), first
                assert "<@" not in post.content and not post.pinged_user_ids
                shown = d.message(post.message_id).content
                assert shown.split("\n")[0].endswith(over), shown
                assert shown.split("\n")[0].count(name) == 1, shown
                steps = shown.split("\n")[1:]
                assert steps and all(s.startswith("• ") and s.endswith(".") for s in steps), shown
                for bad in (".;", "..", ";;", ". .", "; ."):
                    assert bad not in shown, shown
            # Nothing else was posted about the computer's turn: its turn post was its one post.
            assert len(posts) <= 1
        assert turns >= 3
        assert not d.take_errors()


async def test_issue_29_computers_think_in_worker_processes_behind_the_bot() -> None:
    """A computer's search held the GIL in a thread of the bot's process (asyncio.to_thread): now it runs in
    a worker process of its own, in the OS's idle class (a hint, which a person waits for, in a worker of its
    own at nice 10), and the bot applies the actions it chose."""
    import os

    from bot.games.thinking import HINT_NICE, Thinkers

    thinkers = Thinkers(workers=1)
    thinkers.start()
    try:
        assert await thinkers.run(os.getpid) != os.getpid()
        assert await thinkers.run(os.sched_getscheduler, 0) == os.SCHED_IDLE, "the computers' turns"
        own = os.nice(0)
        assert await thinkers.run(os.sched_getscheduler, 0, urgent=True) == os.SCHED_OTHER, "a hint"
        assert await thinkers.run(os.nice, 0, urgent=True) == min(19, own + HINT_NICE)
        assert await thinkers.run(os.getpid, urgent=True) != await thinkers.run(os.getpid)
        state, _ = new_game(WALLS_MAP, 3, 11)
        turn = await thinkers.turn(state, "normal", random.Random(4))
        assert turn == play_turn(state, "normal", random.Random(4)), "the same turn as thought in-process"
        assert thinkers.decided_in_workers == 7 and thinkers.waiting == 0
    finally:
        thinkers.close()


async def test_issue_29_a_bot_with_computer_workers_plays_the_computers_turns_there(tmp_path) -> None:
    from bot.games.thinking import Thinkers

    thinkers = Thinkers(workers=1)
    factory = bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 2, thinkers=thinkers)
    async with harness(factory) as d:
        alice = d.member("alice")
        lobby = (await d.slash(alice, "alexandros new")).response_message
        gid = int(lobby.custom_ids[0].split(":")[2])
        await d.slash(alice, "alexandros table add-computer", level="normal")
        await d.click(alice, lobby.id, f"alx:start:{gid}")
        await d.bot.deliveries.drain()
        g = Game(d, [alice], game_id=gid)
        rng = random.Random(2)
        for n in range(4):
            table = await g.table()
            if table.state.over:
                break
            await g.play(ai.greedy_player(table.state, rng), n)
            await d.bot.deliveries.drain()
        assert thinkers.pool is not None and thinkers.decided_in_workers >= 1
        posts = [m for m in d.channel_messages(CHANNEL) if "— Computer (normal) (" in m.content]
        assert posts and all("— turn over." in m.content for m in posts)
    assert thinkers.pool is None, "the bot's close ends its computer workers"


async def test_issue_29_a_decision_given_up_before_its_worker_took_it_costs_the_worker_nothing(tmp_path):
    """A computer's turn is cut off when its delivery times out (30 s: 20 computer tables queue behind one
    worker, longer on a busy machine where the worker runs behind the bot). Its request used to wait in the
    worker's pipe and was thought through all the same, for nobody, before the turns behind it: requests
    now wait in the bot, one at a time per worker, and one given up before its turn is never sent."""
    import os
    import time

    from bot.games.thinking import Thinkers

    thinkers = Thinkers(workers=1)
    thinkers.start()
    try:
        busy = asyncio.ensure_future(thinkers.run(time.sleep, 0.5))  # the worker thinks for someone
        await asyncio.sleep(0.05)
        given_up = asyncio.ensure_future(thinkers.run(os.mkdir, str(tmp_path / "thought for nobody")))
        await asyncio.sleep(0.05)
        given_up.cancel()
        await busy
        await thinkers.run(time.sleep, 0)  # behind the one given up, had it been sent
        assert not (tmp_path / "thought for nobody").exists()
        assert thinkers.waiting == 0
    finally:
        thinkers.close()


async def test_issue_29_a_hint_a_person_waits_for_goes_before_the_computers_turns() -> None:
    """Hints and computer turns shared the workers: a person's hint waited behind every computer turn asked
    for before it (20 computer tables: about 20 turns). Now a hint has a worker of its own: it is answered
    while a computer's turn still holds the computers' worker and others wait for it."""
    import time

    from bot.games.thinking import Thinkers

    thinkers = Thinkers(workers=1)
    thinkers.start()
    try:
        busy = asyncio.ensure_future(thinkers.run(time.sleep, 1.0))
        await asyncio.sleep(0.05)
        turns = [asyncio.ensure_future(thinkers.run(time.monotonic)) for _ in range(3)]
        await asyncio.sleep(0.05)
        hint = await asyncio.wait_for(thinkers.run(time.monotonic, urgent=True), 30)
        assert not busy.done(), "answered while the computers' worker was still busy"
        await busy
        assert all(hint < t for t in await asyncio.gather(*turns)), "the hint went first"
    finally:
        thinkers.close()


async def test_issue_29_closing_the_computer_workers_fails_the_requests_waiting_for_them() -> None:
    """The bot closes its computer workers at shutdown: the turns waiting in the bot for a worker fail then,
    with the one a worker held, as the requests in a worker's pipe did (not one by one, later, on a pool that
    is gone, after the store had closed)."""
    import time

    from bot.games.thinking import Thinkers

    thinkers = Thinkers(workers=1)
    thinkers.start()
    busy = asyncio.ensure_future(thinkers.run(time.sleep, 5))
    await asyncio.sleep(0.05)
    waiting = [asyncio.ensure_future(thinkers.run(time.monotonic)) for _ in range(3)]
    await asyncio.sleep(0.05)
    await asyncio.to_thread(thinkers.close)  # as the bot's close does
    outcomes = await asyncio.wait_for(asyncio.gather(busy, *waiting, return_exceptions=True), 5)
    assert all(isinstance(o, RuntimeError) and "closed" in str(o) for o in outcomes), outcomes
    assert thinkers.waiting == 0
