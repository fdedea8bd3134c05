"""Seats over days through the offline Discord: taking back a step (P10), handing a seat over (accepted
with a button, stale presses refused), the creator replacing a player who has gone, vacations (the
deadline and the reminders wait, the turn post shows it), and pausing the whole game."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest

from bot.games.tables import replay_names
from engine import ai
from engine.actions import CardSource, TakeCard
from engine.state import Phase
from tests.bot.driver import WALLS_MAP, Clock, Game, bot_factory, harness, resign
from tests.bot.test_over_days import DAY, HOUR, open_game, remind, reminders_since, waiting_user
from tests.harness import HarnessError

pytest_plugins = ["tests.harness.fixtures"]

NO_PERMISSIONS = 0


@pytest.fixture(autouse=True)
def _offline(no_network):
    yield


async def _move(g: Game) -> None:
    st = await g.state()
    await g.play(ai.random_move(st, random.Random(st.version)), 0)


def _public_since(d, mark: int) -> list[str]:
    out = d.requests_since(mark)
    return [q.content or "" for q in out if q.public_post and not q.ephemeral]


# --- undo (P10) -----------------------------------------------------------------------------------------


async def test_p10_undo_takes_back_a_face_up_card_and_the_channel_is_told(tmp_path):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        g = await open_game(d)
        me = await waiting_user(g)
        other = next(u for u in g.users if u.id != me.id)
        r = await d.slash(me, "alexandros game undo")
        assert r.ephemeral and "nothing of this turn to take back" in r.content
        await _move(g)
        moved = await g.state()
        assert moved.phase is Phase.ACTIONS
        slot = next(i for i, s in enumerate(moved.face_up) if s is not None)
        await g.play(TakeCard(moved.current, CardSource.FACE_UP, slot), 1)
        took = await g.state()
        assert took.face_up[slot] is None  # R5.2: replaced only at the end of the turn

        r = await d.slash(other, "alexandros game undo")
        assert r.ephemeral and "not your turn" in r.content.lower()
        undo_cid = f"alx:undo:{g.game_id}:{took.version}"
        assert undo_cid in g.turn_message().custom_ids  # the turn post offers Undo now
        r = await d.click(other, g.turn_message().id, undo_cid)
        assert r.ephemeral and "not your turn" in r.content.lower()
        r = await d.slash(other, "alexandros board")  # a copy of the post, with this version's buttons
        copy = r.response_message or d.find_message(undo_cid)

        mark = d.mark()
        r = await d.slash(me, "alexandros game undo")
        assert r.ephemeral and "took back your last step" in r.content
        # Whether more can be taken back: said as the turn post's Undo button shows it.
        more = "take back more with Undo" in r.content
        assert more == bool(moved.undo.points)
        assert more or "the steps before it cannot be taken back" in r.content
        back = await g.state()
        assert replace(back, version=moved.version) == moved  # the state before the card, exactly
        name = (await g.table()).speaker.seat(moved.current)
        assert f"{name} took back an action." in _public_since(d, mark)  # the card, not the move
        g.check_public()
        r = await d.click(me, copy.id, undo_cid)  # the copy's Undo is out of date now
        assert r.ephemeral and "out of date" in r.content
        assert (await g.state()).version == back.version

        # The move turned a face-up card (R3.1 a) unless nothing was left to turn: not past that.
        again = f"alx:undo:{g.game_id}:{back.version}"
        if moved.undo.points:  # a special move, or nothing left to turn: the button takes it back
            r = await d.click(me, g.turn_message().id, again)
            assert r.ephemeral and "took back your last step" in r.content
            assert (await g.state()).phase is Phase.MOVE
        else:
            assert again not in g.turn_message().custom_ids
            r = await d.slash(me, "alexandros game undo")
            assert r.ephemeral and "can no longer be taken back" in r.content
            assert (await g.state()).version == back.version


# --- handing a seat over --------------------------------------------------------------------------------


async def test_a_player_hands_their_seat_over_and_the_newcomer_takes_hand_and_turns(tmp_path):
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        g = await open_game(d)
        me = await waiting_user(g)
        other = next(u for u in g.users if u.id != me.id)
        carol = d.member("carol")
        seat = (await g.table()).seat_of(me.id)

        r = await d.slash(me, "alexandros game handover", to=other)
        assert r.ephemeral and "cannot take a seat here" in r.content
        r = await d.slash(me, "alexandros game handover", to=carol)
        offer = r.response_message
        assert offer is not None and not r.ephemeral and f"<@{carol.id}>" in offer.content
        cid = f"alx:seatok:{g.game_id}:{seat}:{carol.id}"
        assert cid in offer.custom_ids

        tables, loads = d.bot.pipeline.tables, []
        real_load = tables.load

        async def counting_load(record):
            loads.append(record.id)
            return await real_load(record)

        tables.load = counting_load
        r = await d.click(other, offer.id, cid)
        assert r.ephemeral and "not to you" in r.content
        r = await d.slash(carol, "alexandros vacation", days=2)
        assert r.ephemeral and "not playing in this game" in r.content
        assert loads == [], "the state is read for nobody who may not act on it"
        tables.load = real_load
        clock.now += HOUR
        r = await d.click(carol, offer.id, cid)
        assert r.ephemeral and "You hold the seat now" in r.content
        table = await g.table()
        assert table.user_of(seat) == carol.id and table.seat_of(me.id) is None
        assert table.record.waiting_on == carol.id and table.current_user == carol.id
        assert table.names[seat] == "carol"
        # The replay's frames from before the hand-over: the seat's holders in turn.
        assert replay_names(table.record)[seat] == f"{me.name} → carol"
        assert replay_names(table.record)[1 - seat] == other.name

        r = await d.slash(me, "alexandros hand")
        assert r.ephemeral and "not playing in this game" in r.content
        r = await d.slash(carol, "alexandros hand")
        assert r.ephemeral and "not playing" not in r.content

        # The waiting seat's reminder follows the seat: it pings carol, never alice.
        started = table.record.turn_started_at
        mark = d.mark()
        assert await remind(d, started + DAY + 5) == 1
        assert [q.pinged_user_ids for q in reminders_since(d, mark)] == [{carol.id}]

        # The old offer is out of date once taken; carol plays the seat's turn.
        r = await d.click(carol, offer.id, cid)
        assert r.ephemeral and "out of date" in r.content
        g.users = [*g.users, carol]
        g.check_public()  # the offer and the seat's note pinged carol alone, the turn posts their player
        g.users = [carol if u.id == me.id else u for u in g.users]
        await _move(g)
        assert (await g.state()).phase is Phase.ACTIONS
        g.check_public()

        # The old holder, no longer seated, asks to be forgotten: the replay names them no more.
        r = await d.slash(me, "alexandros me forget")
        r = await d.click(me, r.response_message.id, f"alx:forget:{me.id}")
        assert "Done" in r.content
        record = (await g.table()).record
        assert replay_names(record)[seat] == "a former player → carol"
        assert me.name not in json.dumps(record.options) and str(me.id) not in json.dumps(record.options)


async def test_the_creator_replaces_a_player_who_has_gone_others_may_not(tmp_path):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        alice = d.member("alice", permissions=NO_PERMISSIONS)
        bob = d.member("bob", permissions=NO_PERMISSIONS)
        dave = d.member("dave", permissions=NO_PERMISSIONS)
        g = await open_game(d)
        r = await d.slash(bob, "alexandros game replace", player=alice, **{"with": dave})
        assert r.ephemeral and "Manage Channels" in r.content
        r = await d.slash(alice, "alexandros game replace", player=bob, **{"with": dave})
        offer = r.response_message
        seat = (await g.table()).seat_of(bob.id)
        cid = f"alx:seatok:{g.game_id}:{seat}:{dave.id}"
        # A newer offer for the same seat makes the older one out of date.
        eve = d.member("eve")
        r = await d.slash(alice, "alexandros game replace", player=bob, **{"with": eve})
        r = await d.click(dave, offer.id, cid)
        assert r.ephemeral and "out of date" in r.content
        newer = r = d.find_message(f"alx:seatok:{g.game_id}:{seat}:{eve.id}")
        r = await d.click(eve, newer.id, f"alx:seatok:{g.game_id}:{seat}:{eve.id}")
        assert r.ephemeral and "You hold the seat now" in r.content
        assert (await g.table()).user_of(seat) == eve.id
        assert any("took over bob's seat" in t for t in _public_since(d, 0))


async def test_stale_presses_of_seat_offers_are_refused_and_change_nothing(tmp_path):
    """Every press of an offer's button that is no longer good (taken, replaced, game over) is answered
    privately as out of date (or the game is finished), and changes no seat."""
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        g = await open_game(d, players=2)
        alice, bob = g.users
        carol, dave = d.member("carol"), d.member("dave")
        r = await d.slash(alice, "alexandros game handover", to=carol)
        first = r.response_message
        seat = (await g.table()).seat_of(alice.id)
        await d.click(carol, first.id, f"alx:seatok:{g.game_id}:{seat}:{carol.id}")
        seats = (await g.table()).record.seats
        for user in (carol, dave, alice, bob):
            r = await d.click(user, first.id, f"alx:seatok:{g.game_id}:{seat}:{carol.id}")
            assert r.ephemeral and "out of date" in r.content
        assert (await g.table()).record.seats == seats
        r = await d.slash(carol, "alexandros game handover", to=dave)
        second = r.response_message
        r = await d.slash(d.member("eve"), "alexandros game handover", to=dave)
        assert r.ephemeral and "not playing in this game" in r.content
        await resign(d, bob)
        assert (await g.table()).record.status == "finished"
        r = await d.click(dave, second.id, f"alx:seatok:{g.game_id}:{seat}:{dave.id}")
        assert r.ephemeral and "finished" in r.content
        assert (await g.table()).record.seats == seats


async def test_p1_a_resigned_seat_cannot_be_handed_to_anyone(tmp_path):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        g = await open_game(d, players=3)
        alice, _, carol = g.users
        await resign(d, carol)
        r = await d.slash(alice, "alexandros game replace", player=carol, **{"with": d.member("dave")})
        assert r.ephemeral and "has resigned" in r.content
        assert (await g.table()).seat_of(carol.id) is not None


# --- vacations ------------------------------------------------------------------------------------------


async def test_a_vacation_moves_the_deadline_stops_reminders_and_shows_on_the_turn_post(tmp_path):
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        g = await open_game(d, deadline_hours=24)
        me = await waiting_user(g)
        turn = (await g.state()).turn
        started = (await g.table()).record.turn_started_at
        r = await d.slash(me, "alexandros vacation", days=3)
        assert r.ephemeral and "vacation runs until" in r.content
        until = clock.now + 3 * DAY
        assert abs(until - float((await g.table()).record.options["vacations"][str(me.id)])) < 60
        assert "On vacation" in g.turn_message().content

        mark = d.mark()
        await d.bot.deliveries.drain(started + 25 * HOUR)  # the table's deadline: it waits
        await d.bot.deliveries.drain(started + 2 * DAY + 5)
        assert (await g.state()).turn == turn
        assert reminders_since(d, mark) == []  # and no reminder while away

        # Back: a whole deadline from the return to play (a deadline at the return skipped the turn at once).
        until = float((await g.table()).record.options["vacations"][str(me.id)])
        assert f"skipped <t:{int(until + DAY)}:R>" in g.turn_message().content
        clock.now = until + 10
        await d.bot.deliveries.drain(clock.now)
        assert (await g.state()).turn == turn
        clock.now = until + DAY + 10
        await d.bot.deliveries.drain(clock.now)  # then the turn is skipped (the table's policy)
        assert (await g.state()).turn == turn + 1
        assert "On vacation" not in g.turn_message().content  # over: the next turn post leaves it out


async def test_a_vacation_taken_between_turns_holds_the_next_turn_s_deadline_and_the_timer_honours_it(
    tmp_path,
):
    from bot.outbox import duties as dt

    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        g = await open_game(d, deadline_hours=24)
        me = await waiting_user(g)
        away = next(u for u in g.users if u.id != me.id)
        await d.slash(away, "alexandros vacation", days=4)
        until = float((await g.table()).record.options["vacations"][str(away.id)])
        turn = (await g.state()).turn
        while (await g.state()).turn == turn:  # the turn passes to the player on vacation
            st = await g.state()
            await g.play(ai.greedy_player(st, random.Random(st.version)), st.version)
        table = await g.table()
        assert table.current_user == away.id
        (deadline,) = [x for x in await d.bot.store.pending_duties(g.game_id) if x.kind == dt.DEADLINE]
        # The pipeline planned it a whole deadline after the vacation's end, not in 24 hours.
        assert deadline.due_at == until + DAY
        assert f"skipped <t:{int(until + DAY)}:R>" in g.turn_message().content

        # A deadline that falls due during the vacation anyway (planned before it) is moved, not applied.
        since, _ = await d.bot.pipeline.current_turn(table)
        early = table.record.turn_started_at + HOUR
        await d.bot.store.add_duties(g.game_id, [dt.deadline(table, since, early)], clock.now)
        clock.now = early + 60
        await d.bot.deliveries.drain(clock.now)
        assert (await g.state()).turn == turn + 1
        (moved,) = [x for x in await d.bot.store.pending_duties(g.game_id) if x.kind == dt.DEADLINE]
        assert moved.due_at == until + DAY


async def test_a_vacation_is_at_most_14_days_and_ends_with_zero(tmp_path):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        g = await open_game(d)
        me = g.users[1]
        with pytest.raises(HarnessError):  # the Discord client refuses a value over the option's maximum
            await d.slash(me, "alexandros vacation", days=15)
        await d.slash(me, "alexandros vacation", days=14)
        assert str(me.id) in (await g.table()).record.options["vacations"]
        r = await d.slash(me, "alexandros vacation", days=0)
        assert r.ephemeral and "Welcome back" in r.content
        # On their turn, the vacation ends now and stays on record for the turn (its deadline counts from
        # the return); it is over, and the turn post no longer shows it.
        table = await g.table()
        assert table.current_user == me.id
        assert float(table.record.options["vacations"][str(me.id)]) <= d.bot.clock()
        assert "On vacation" not in g.turn_message().content
        spectator = d.member("eve")
        r = await d.slash(spectator, "alexandros vacation", days=2)
        assert r.ephemeral and "not playing in this game" in r.content


async def test_p2_a_vacation_ended_early_after_the_tables_deadline_gives_a_whole_deadline_to_play(tmp_path):
    """The player's turn waited for their vacation past the table's deadline; they end it early with
    days:0 to play: the turn is theirs for a whole deadline from then (it was skipped at once)."""
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        g = await open_game(d, deadline_hours=24)
        me = await waiting_user(g)
        await d.slash(me, "alexandros me reminders", hours=12)
        turn = (await g.state()).turn
        await d.slash(me, "alexandros vacation", days=5)
        clock.now += 2 * DAY  # past the table's 24 hours
        await d.bot.deliveries.drain(clock.now)
        assert (await g.state()).turn == turn
        r = await d.slash(me, "alexandros vacation", days=0)
        assert r.ephemeral and "Welcome back" in r.content
        back = float((await g.table()).record.options["vacations"][str(me.id)])
        await d.bot.deliveries.drain(clock.now + 60)
        assert (await g.state()).turn == turn
        assert f"skipped <t:{int(back + DAY)}:R>" in g.turn_message().content
        assert f"<t:{int(back + DAY)}:R>" in (await d.slash(me, "alexandros me waiting")).content
        mark = d.mark()
        await d.bot.deliveries.drain(back + 12 * HOUR - 60)
        assert reminders_since(d, mark) == []
        await d.bot.deliveries.drain(back + 12 * HOUR + 5)  # their reminders count from the return again
        assert [q.pinged_user_ids for q in reminders_since(d, mark)] == [{me.id}]
        await d.bot.deliveries.drain(back + DAY - 60)
        assert (await g.state()).turn == turn
        await d.bot.deliveries.drain(back + DAY + 5)
        assert (await g.state()).turn == turn + 1


# --- pausing ------------------------------------------------------------------------------------------


async def test_the_creator_pauses_and_resumes_no_action_deadline_or_reminder_in_between(tmp_path):
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        alice = d.member("alice", permissions=NO_PERMISSIONS)
        bob = d.member("bob", permissions=NO_PERMISSIONS)
        g = await open_game(d, deadline_hours=24)
        r = await d.slash(bob, "alexandros game pause")
        assert r.ephemeral and "Manage Channels" in r.content
        r = await d.slash(alice, "alexandros game resume")
        assert r.ephemeral and "not paused" in r.content
        me = await waiting_user(g)
        turn = (await g.state()).turn
        mark = d.mark()
        r = await d.slash(alice, "alexandros game pause")
        assert r.ephemeral and "paused" in r.content
        assert any("paused the game" in t for t in _public_since(d, mark))
        assert "The game is paused" in g.turn_message().content
        r = await d.slash(alice, "alexandros game pause")
        assert r.ephemeral and "already paused" in r.content

        st = await g.state()
        r = await d.slash(me, "alexandros end")
        assert r.ephemeral and "The game is paused" in r.content
        post = g.turn_message()  # Move, Actions and End are greyed while paused; My hand still shows the hand
        for kind in ("move", "acts", "end"):
            assert post.component(f"alx:{kind}:{g.game_id}:{st.version}")["disabled"]
        assert not post.component(f"alx:hand:{g.game_id}").get("disabled")
        r = await d.slash(me, "alexandros resign")
        assert r.ephemeral and "paused" in r.content
        r = await d.slash(next(u for u in g.users if u.id != me.id), "alexandros nudge")
        assert r.ephemeral and "paused" in r.content
        r = await d.slash(me, "alexandros agree")
        assert r.ephemeral and "paused" in r.content
        r = await d.slash(me, "alexandros hand")  # looking still works
        assert r.ephemeral and "paused" not in r.content
        mark = d.mark()
        await d.bot.deliveries.drain(clock.now + 10 * DAY)  # nothing runs out while paused
        assert (await g.state()).turn == turn and (await g.state()).version == st.version
        assert reminders_since(d, mark) == []

        clock.now += 10 * DAY
        mark = d.mark()
        r = await d.slash(alice, "alexandros game resume")
        assert r.ephemeral and "resumed" in r.content
        table = await g.table()
        assert table.record.waiting_on == me.id and table.record.turn_started_at > clock.now - 60
        assert any("resumed the game" in t and f"<@{me.id}>" in t for t in _public_since(d, mark))
        assert not g.turn_message().component(f"alx:move:{g.game_id}:{st.version}").get("disabled")
        await _move(g)  # playing again
        assert (await g.state()).phase is Phase.ACTIONS
        resumed_at = table.record.turn_started_at
        clock.now = resumed_at + 23 * HOUR
        await d.bot.deliveries.drain(clock.now)
        assert (await g.state()).turn == turn  # the deadline counts from the resumption
        clock.now = resumed_at + 25 * HOUR
        await d.bot.deliveries.drain(clock.now)
        assert (await g.state()).turn == turn + 1
