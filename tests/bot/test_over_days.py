"""Playing over days, through the offline Discord with a settable clock: reminders (due, sent once, never
after a move, never twice across a restart, caught up after downtime, out of quiet hours), the deadline
policies (skip, autoplay, taking the seat back), nudges, "waiting on me", and the action log."""

from __future__ import annotations

import logging
import random
import time

import pytest

from bot.client import make_bot
from bot.games.tables import Table, names_of
from bot.outbox.pipeline import Ask
from engine import ai
from engine.game import new_game
from tests.bot.driver import (
    NAMES,
    WALLS_MAP,
    Clock,
    Game,
    bot_factory,
    harness,
    open_game,
    open_with_computer,
)

pytest_plugins = ["tests.harness.fixtures"]

HOUR = 3600.0
DAY = 24 * HOUR


@pytest.fixture(autouse=True)
def _offline(no_network):
    yield


async def waiting_user(g: Game):
    table = await g.table()
    return g.user_of_seat(table, table.state.current)


async def one_action(g: Game, n: int = 0) -> None:
    st = await g.state()
    await g.play(ai.greedy_player(st, random.Random(n)), n)


async def finish_turn(g: Game) -> None:
    """The current player plays their whole turn, as a user would."""
    turn = (await g.state()).turn
    n = 0
    while (await g.state()).turn == turn and not (await g.state()).over:
        await one_action(g, n)
        n += 1


def reminders_since(d, mark: int) -> list:
    return [q for q in d.requests_since(mark) if q.public_post and "a reminder" in q.content]


async def remind(d, now: float) -> int:
    """One round of the delivery worker at ``now``; returns how many reminders it sent."""
    mark = d.mark()
    await d.bot.deliveries.drain(now)
    return len(reminders_since(d, mark))


# --- reminders ------------------------------------------------------------------------------------------


async def test_a_reminder_comes_due_is_sent_once_and_never_after_a_move(tmp_path):
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        g = await open_game(d)
        me = await waiting_user(g)
        started = (await g.table()).record.turn_started_at
        assert await remind(d, started + DAY - 60) == 0  # not due yet
        mark = d.mark()
        assert await remind(d, started + DAY + 5) == 1
        (sent,) = reminders_since(d, mark)
        assert sent.pinged_user_ids == {me.id} and "<t:" in sent.content and ":R>" in sent.content
        assert await remind(d, started + DAY + 10) == 0  # claimed once: never twice for one wait

        # The player moves (still their turn): the reminder planned for a day later is not sent then,
        # the wait counts again from the move.
        clock.now = started + DAY + 60
        await one_action(g)
        moved_at = (await g.table()).record.updated_at
        assert (await g.table()).current_user == me.id
        mark = d.mark()
        assert await remind(d, started + 2 * DAY + 30) == 0  # the old plan's time: planned again instead
        assert await remind(d, moved_at + DAY - 60) == 0
        assert await remind(d, moved_at + DAY + 5) == 1
        assert [q.pinged_user_ids for q in reminders_since(d, mark)] == [{me.id}]

        # After the turn ends, nothing more for this player's old wait; the next player has their own.
        await finish_turn(g)
        nxt = await waiting_user(g)
        assert nxt.id != me.id
        mark = d.mark()
        later = (await g.table()).record.turn_started_at + DAY + 5
        assert await remind(d, later) == 1
        assert [q.pinged_user_ids for q in reminders_since(d, mark)] == [{nxt.id}]


async def test_a_turn_ended_while_its_reminder_goes_out_keeps_the_next_players_reminders(tmp_path):
    """The worker reads the game, then sends the reminder; the player ends the turn in between. The turn's
    end plans the next player's reminder, and the reminder under way must not replace it with its own
    player's next one (same key): it used to, and the next player was never reminded that turn."""
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        g = await open_game(d)
        me = await waiting_user(g)
        started = (await g.table()).record.turn_started_at
        prefs, read = d.bot.pipeline.prefs, d.bot.pipeline.prefs.settings
        armed = [True]

        async def settings(user_id: int):  # asked after the game was read, before the reminder is sent
            if armed[0]:
                armed[0] = False
                turn = (await g.state()).turn
                for n in range(40):
                    st = await g.state()
                    if st.turn != turn:
                        break
                    action = ai.greedy_player(st, random.Random(n))
                    await d.bot.pipeline.act(Ask(me.id, game_id=g.game_id), lambda s, seat, a=action: a)
            return await read(user_id)

        prefs.settings = settings
        clock.now = started + DAY + 5
        assert await remind(d, clock.now) == 1
        assert not armed[0]
        nxt = await waiting_user(g)
        assert nxt.id != me.id
        pending = [x for x in await d.bot.store.pending_duties(g.game_id) if x.kind == "remind"]
        assert [x.user_id for x in pending] == [nxt.id]
        mark = d.mark()
        for hour in range(1, 49):
            await d.bot.deliveries.drain(clock.now + hour * HOUR)
        assert {u for q in reminders_since(d, mark) for u in q.pinged_user_ids} == {nxt.id}


async def test_no_duplicate_reminder_across_a_restart(tmp_path):
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        g = await open_game(d)
        started = (await g.table()).record.turn_started_at
        assert await remind(d, started + DAY + 5) == 1
        await d.restart()
        mark = d.mark()
        assert await remind(d, started + DAY + 6) == 0
        assert await remind(d, started + DAY + 3600) == 0
        assert reminders_since(d, mark) == []
        assert await remind(d, started + 2 * DAY + 10) == 1  # the next interval's, once


async def test_reminders_missed_while_down_are_sent_once_on_start(tmp_path):
    clock = Clock()
    db = str(tmp_path / "g.db")

    def running_bot():  # as `python -m bot` runs it: the reminder loop on, its first round at start
        return make_bot(
            db,
            map_provider=lambda: WALLS_MAP,
            clock=clock,
            seed_source=lambda: 1,
            reminders=True,
        )

    async with harness(running_bot) as d:
        await d.bot.caught_up.wait()
        g = await open_game(d)
        me = await waiting_user(g)
        await d._stop_bot()  # the bot goes down...
        clock.now += 5 * DAY  # ...for five reminder intervals
        mark = d.mark()
        await d.restart()
        await d.bot.caught_up.wait()
        sent = reminders_since(d, mark)
        assert len(sent) == 1 and sent[0].pinged_user_ids == {me.id}
        # The next one is planned a whole interval after the catch-up, not one per missed interval.
        assert await remind(d, clock.now + 60) == 0
        assert await remind(d, clock.now + DAY + 60) == 1


async def test_quiet_hours_move_a_reminder_to_their_end(tmp_path):
    clock = Clock()  # starts 2027-01-15 08:00 UTC, 09:00 in Paris
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        for name in NAMES[:2]:  # whoever starts: quiet from 08:30 to 13:00, Paris time
            r = await d.slash(
                d.member(name), "alexandros me reminders", quiet="08:30-13:00", time_zone="Europe/Paris"
            )
            assert r.ephemeral
        g = await open_game(d)
        me = await waiting_user(g)
        started = (await g.table()).record.turn_started_at
        quiet_end = 1_800_000_000 + DAY + 4 * HOUR  # the next day, 13:00 in Paris = 12:00 UTC
        assert await remind(d, started + DAY + 5) == 0  # due at 09:00 Paris: inside the quiet hours
        assert await remind(d, quiet_end - 60) == 0
        mark = d.mark()
        assert await remind(d, quiet_end + 1) == 1
        assert [q.pinged_user_ids for q in reminders_since(d, mark)] == [{me.id}]
        # The next one is due a day later, 13:00 in Paris; the bot is down from before then until 09:00
        # the morning after, inside the quiet hours again: the reminder found due then waits for their
        # end, and is sent once.
        assert await remind(d, quiet_end + DAY - 60) == 0
        next_morning = quiet_end + 2 * DAY - 4 * HOUR  # 09:00 in Paris
        assert await remind(d, next_morning) == 0
        assert await remind(d, quiet_end + 2 * DAY - 60) == 0
        assert await remind(d, quiet_end + 2 * DAY + 1) == 1
        assert await remind(d, quiet_end + 2 * DAY + 2) == 0


async def test_reminder_settings_changed_during_a_wait_apply_to_its_reminders_still_to_come(tmp_path):
    """A player who turns reminders off (hours 0) while it is their turn is not reminded on the plan made
    before; one who chooses a longer interval is reminded after the longer one."""
    for hours, first in ((0, None), (72, 3 * DAY)):
        clock = Clock()
        async with harness(bot_factory(str(tmp_path / f"g{hours}.db"), WALLS_MAP, 1, clock=clock)) as d:
            g = await open_game(d)
            me = await waiting_user(g)
            started = (await g.table()).record.turn_started_at
            assert (await d.slash(me, "alexandros me reminders", hours=hours)).ephemeral
            assert await remind(d, started + DAY + 5) == 0, hours
            assert await remind(d, started + 2 * DAY + 5) == 0, hours
            assert await remind(d, started + 3 * DAY + 5) == (0 if first is None else 1), hours
            assert await remind(d, started + 4 * DAY + 5) == 0, hours


# --- deadlines ------------------------------------------------------------------------------------------


async def test_autoplay_plays_an_overdue_turn_and_the_player_takes_their_seat_back(tmp_path):
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        g = await open_game(d, deadline_hours=2, deadline_policy="autoplay")
        assert "played by the computer <t:" in g.turn_message().content
        absent = await waiting_user(g)
        other = next(u for u in g.users if u.id != absent.id)
        before = await g.state()
        await remind(d, clock.now + HOUR)  # within the deadline: nothing happens
        assert (await g.state()).version == before.version

        mark = d.mark()
        clock.now += 2 * HOUR + 5
        await remind(d, clock.now)
        after = await g.state()
        assert after.turn == before.turn + 1 and (await g.table()).current_user == other.id
        sent = [q for q in d.requests_since(mark) if q.public_post]
        (log_line,) = [q for q in sent if "Played by the computer for" in q.content]
        assert f"<@{absent.id}>" in log_line.content and not log_line.pinged_user_ids
        assert "/alexandros back" in log_line.content
        assert [q.pinged_user_ids for q in sent if q.pinged_user_ids] == [{other.id}]
        # The absence is game metadata, written with the turn played for them (one store write).
        assert (await d.bot.store.get_game_meta(g.game_id))["absent"] == [absent.id]
        g.check_public()

        # While absent, their next turn is played as soon as it starts: its deadline is due at once, and the
        # delivery worker, woken by the commit that started it, plays it.
        turn = (await g.state()).turn
        mark = d.mark()
        await finish_turn(g)
        assert (await g.state()).turn == turn + 2 and (await g.table()).current_user == other.id
        (again,) = [q for q in d.requests_since(mark) if q.content and "Played by the computer" in q.content]
        # It was played at once, not at a deadline: the log says why (it said "the turn passed its 2-hour
        # deadline" on every turn of an absent player).
        assert "passed its" not in again.content and "away since an earlier deadline" in again.content
        assert "/alexandros back" in again.content
        assert f"<@{absent.id}>" in again.content and not again.pinged_user_ids
        # No reminder for an absent player either way.
        await remind(d, clock.now + 60)
        assert reminders_since(d, mark) == []

        # The other player cannot take a seat back that is not theirs to take.
        r = await d.slash(other, "alexandros back")
        assert r.ephemeral and "already have your seat" in r.content
        r = await d.slash(absent, "alexandros back")
        assert r.ephemeral and "Welcome back" in r.content
        assert any("is back" in q.content for q in r.sent)
        r = await d.slash(absent, "alexandros back")
        assert r.ephemeral and "already have your seat" in r.content

        # Back in their seat: their turn waits for them again, up to the table's deadline.
        await finish_turn(g)
        assert (await g.table()).current_user == absent.id
        turn = (await g.state()).turn
        await remind(d, clock.now + 60)
        await remind(d, clock.now + HOUR)
        assert (await g.state()).turn == turn
        version = (await g.state()).version
        await one_action(g)  # they play it themselves
        assert (await g.state()).version > version and (await g.table()).current_user == absent.id
        g.check_public()


async def test_p2_a_table_of_absent_people_and_a_computer_waits_for_each_deadline(tmp_path):
    """PLAYING.md: when every player still in the game is absent, turns wait for the normal deadline, so an
    abandoned table does not play itself to the end. A computer seat is no player watching: alone with an
    absent person, it used to play the whole game out within minutes of the first missed deadline."""
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 2, clock=clock)) as d:
        alice = d.member("alice")
        g = await open_with_computer(d, alice, deadline_hours=24, deadline_policy="autoplay")
        gid = g.game_id
        clock.now += 24 * HOUR + 5  # alice misses her first deadline: the computer plays it, she is absent
        for _ in range(50):
            await d.bot.deliveries.drain(clock.now)
        st = await g.state()
        assert not st.over
        assert (await d.bot.store.get_game_meta(gid))["absent"] == [alice.id]
        turn = st.turn
        assert (await g.table()).current_user == alice.id  # her next turn waits for its deadline
        for _ in range(20):
            await d.bot.deliveries.drain(clock.now + HOUR)
        assert (await g.state()).turn == turn
        clock.now += 24 * HOUR + 5
        for _ in range(20):
            await d.bot.deliveries.drain(clock.now)
        assert (await g.state()).turn > turn and not (await g.state()).over


async def test_skip_is_the_default_policy_and_a_policy_needs_a_deadline(tmp_path):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        ann = d.member("alice")
        r = await d.slash(ann, "alexandros new", deadline_policy="autoplay")
        assert r.ephemeral and "needs a deadline" in r.content
        r = await d.slash(ann, "alexandros new", deadline_hours=5)
        assert "5 hours; a turn not taken by then is skipped" in r.response_message.content
        table = await d.bot.pipeline.tables.latest_in(d.channel_id)
        assert table.record.options["deadline_policy"] == "skip"


# --- nudges and "waiting on me" -------------------------------------------------------------------------


async def test_a_nudge_pings_only_the_waiting_player_once_a_day(tmp_path):
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        g = await open_game(d, players=3)
        waiting = await waiting_user(g)
        others = [u for u in g.users if u.id != waiting.id]
        r = await d.slash(others[0], "alexandros nudge")
        assert not r.ephemeral and r.pings == {waiting.id}
        assert f"<@{waiting.id}>" in r.content and "nudges you" in r.content
        first = clock.now
        r = await d.slash(others[1], "alexandros nudge")  # once per game, whoever asks
        assert r.ephemeral and not r.pings
        assert f"<t:{int(first + DAY)}:R>" in r.content
        r = await d.slash(waiting, "alexandros nudge")
        assert r.ephemeral and "your own turn" in r.content
        r = await d.slash(d.member("eve"), "alexandros nudge")  # a spectator
        assert r.ephemeral and "not playing" in r.content
        clock.now = first + DAY + 1
        r = await d.slash(others[1], "alexandros nudge")
        assert not r.ephemeral and r.pings == {waiting.id}


async def test_waiting_lists_every_game_waiting_on_me_across_servers(tmp_path):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        g = await open_game(d)
        me = await waiting_user(g)
        other = next(u for u in g.users if u.id != me.id)
        # A second game on another server (the offline Discord holds one guild: this game is made by
        # the service, as the bot in that server would), where `me` plays first.
        seed = next(s for s in range(1, 50) if new_game(WALLS_MAP, 2, s)[0].current == 0)
        store, pipeline = d.bot.store, d.bot.pipeline
        names = {"names": {str(me.id): "me", str(other.id): "other"}}
        far = await store.create_game(999, 888, me.id, names, 1.0)
        far = await store.join_seat(far.id, me.id, 1.0)
        far = await store.join_seat(far.id, other.id, 1.0)
        state, events = new_game(WALLS_MAP, 2, seed)
        seats = [(0, me.id), (1, other.id)]
        out = await pipeline.commit(Table(far, None, names_of(far)), state, tuple(events), seats=seats)
        assert out.table.current_user == me.id

        r = await d.slash(me, "alexandros me waiting")
        assert r.ephemeral and "2 games waiting for you" in r.content
        turn_msg = g.turn_message()
        assert f"https://discord.com/channels/{d.guild_id}/{d.channel_id}/{turn_msg.id}" in r.content
        assert "https://discord.com/channels/999/888" in r.content
        assert "<t:" in r.content
        r = await d.slash(other, "alexandros me waiting")
        assert r.ephemeral and "No game is waiting for you" in r.content


# --- the log --------------------------------------------------------------------------------------------


async def test_one_log_line_per_action_with_its_ids_and_notation(tmp_path, caplog):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        g = await open_game(d)
        me = await waiting_user(g)
        with caplog.at_level(logging.INFO, logger="bot"):
            await one_action(g)
        lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("action ")]
        assert len(lines) == 1
        line = lines[0]
        assert f"game={g.game_id}" in line and f"channel={d.channel_id}" in line and f"user={me.id}" in line
        assert ": M " in line  # the move, in engine notation


# --- running for real: backups and heartbeat ------------------------------------------------------------


async def test_backups_run_while_the_bot_runs_and_stop_before_the_database_closes(tmp_path):
    import asyncio

    from bot.process.backups import list_backups

    backups = tmp_path / "backups"

    def backed_up():
        return make_bot(
            str(tmp_path / "g.db"),
            map_provider=lambda: WALLS_MAP,
            backup_dir=backups,
            backup_interval_hours=24,
            backup_keep=3,
        )

    async with harness(backed_up) as d:
        scheduler = d.bot.backups
        assert scheduler is not None and scheduler.running
        for _ in range(200):  # the first backup is due at once (there is none yet)
            if list_backups(backups):
                break
            await asyncio.sleep(0.02)
        assert len(list_backups(backups)) == 1
        bot = d.bot
    assert bot.backups is None and not scheduler.running and bot.store is None


async def test_the_heartbeat_is_written_from_the_event_loop(tmp_path):
    import asyncio

    from bot.__main__ import _heartbeat
    from bot.process.health import read_heartbeat

    task = asyncio.create_task(_heartbeat(tmp_path))
    for _ in range(100):
        if read_heartbeat(tmp_path) is not None:
            break
        await asyncio.sleep(0.01)
    task.cancel()
    beat = read_heartbeat(tmp_path)
    assert beat is not None and abs(beat - time.time()) < 60


async def test_p2_a_resume_does_not_call_an_absent_player_to_the_turn_the_computer_plays_at_once(tmp_path):
    """At an autoplay table, a game resumed on the turn of a player marked absent: the computer plays that
    turn at once, so the resume post does not tell them "it is your turn again" (nor ping them)."""
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        g = await open_game(d, players=3, deadline_hours=2, deadline_policy="autoplay")
        creator = g.users[0]
        waiting = await waiting_user(g)
        assert (await d.slash(creator, "alexandros game pause")).ephemeral
        await d.bot.store.set_game_meta(g.game_id, {"absent": [waiting.id]}, clock.now)
        turn = (await g.state()).turn
        mark = d.mark()
        r = await d.slash(creator, "alexandros game resume")
        assert r.ephemeral
        posts = [q for q in d.requests_since(mark) if q.public_post and q.content]
        (resumed,) = [q for q in posts if "resumed the game" in q.content]
        assert "your turn" not in resumed.content and waiting.id not in resumed.pinged_user_ids
        assert (await g.state()).turn == turn + 1, "the computer played the absent player's turn"
        assert any("Played by the computer" in q.content for q in posts)
        # Resumed on a present player's turn, they are called to it as before.
        mark = d.mark()
        assert (await d.slash(creator, "alexandros game pause")).ephemeral
        now_waiting = await waiting_user(g)
        assert now_waiting.id != waiting.id
        await d.slash(creator, "alexandros game resume")
        (resumed,) = [q for q in d.requests_since(mark) if q.content and "resumed the game" in q.content]
        assert "it is your turn again" in resumed.content and resumed.pinged_user_ids == {now_waiting.id}
