"""Two interactions on one table at once, through the offline Discord: what each person is told must be
what happened. Lobby changes (join, leave, add a computer, start, the lobby message) rewrite the seats and
the options from what they read, so they take the game's lock; an abandoned game posts no turn that was
still on its way."""

from __future__ import annotations

import asyncio
import random

import pytest

from bot.games.tables import names_of
from engine import ai
from tests.bot.driver import CHANNEL, WALLS_MAP, Clock, bot_factory, harness, open_game, open_lobby, resign

pytest_plugins = ["tests.harness.fixtures"]


@pytest.fixture(autouse=True)
def _offline(no_network):
    yield


async def test_a_leave_racing_the_start_is_either_before_it_or_refused(tmp_path):
    """Carol leaves while Alice starts: she used to be told "left" and then dealt into the game anyway."""
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        users, msg, gid = await open_lobby(d, 3)
        alice, bob, carol = users
        for u in (bob, carol):
            await d.click(u, msg.id, f"alx:join:{gid}")
        started, left = await asyncio.gather(
            d.click(alice, msg.id, f"alx:start:{gid}", check=False),
            d.click(carol, msg.id, f"alx:leave:{gid}", check=False),
        )
        record = (await d.bot.pipeline.tables.by_id(gid)).record
        assert record.status == "playing"
        # What Carol's click showed: the lobby without her (she left before the start), or the started game.
        shown = [q.content for q in left.requests if q.content]
        told_left = any("Seated (2/" in c for c in shown)
        assert told_left or any("already started" in c or "has started" in c for c in shown), shown
        assert (record.seat_of(carol.id) is None) == told_left, (shown, record.seats)
        assert len(record.seats) == len((await d.bot.pipeline.tables.by_id(gid)).state.players)


async def test_a_join_racing_the_start_is_either_dealt_in_or_refused(tmp_path):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        users, msg, gid = await open_lobby(d, 3)
        alice, bob, carol = users
        await d.click(bob, msg.id, f"alx:join:{gid}")
        started, joined = await asyncio.gather(
            d.click(alice, msg.id, f"alx:start:{gid}", check=False),
            d.click(carol, msg.id, f"alx:join:{gid}", check=False),
        )
        table = await d.bot.pipeline.tables.by_id(gid)
        shown = [q.content for q in joined.requests if q.content]
        told_seated = any("Seated (3/" in c for c in shown)
        assert told_seated or any("already started" in c or "has started" in c for c in shown), shown
        assert (table.record.seat_of(carol.id) is not None) == told_seated, (shown, table.record.seats)
        assert len(table.record.seats) == len(table.state.players)


async def test_joins_at_once_keep_every_name_and_the_lobby_message(tmp_path):
    """Three Joins at once used to keep one name of three (the others read "player 2") and could lose the
    lobby message's id, so the lobby was never closed."""
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        users, msg, gid = await open_lobby(d, 4)
        await asyncio.gather(*(d.click(u, msg.id, f"alx:join:{gid}") for u in users[1:]))
        record = (await d.bot.pipeline.tables.by_id(gid)).record
        assert len(record.seats) == 4
        assert sorted(names_of(record)) == sorted(u.name for u in users)
        assert record.options.get("lobby_message") == msg.id


async def test_an_abandoned_game_posts_no_turn_still_on_its_way(tmp_path):
    """The next turn's post is held back (Discord answered 429) when the game is abandoned: it used to be
    posted afterwards, pinging a player to a closed game with live buttons."""
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        g = await open_game(d, 2)
        alice = g.users[0]
        await g.play(ai.random_move(await g.state(), random.Random(1)), 0)
        st = await g.state()
        player = g.user_of_seat(await g.table(), st.current)
        d.fail("channel_message", "429", times=1, retry_after=600)
        await d.slash(player, "alexandros end", check=False)
        r = await d.slash(alice, "alexandros abandon")
        button = next(c for c in r.response_message.custom_ids if c.startswith("alx:abandon:"))
        mark = d.mark()
        await d.click(alice, r.response_message.id, button)
        await d.bot.deliveries.drain(clock.now + 3600)
        posted = [q for q in d.requests_since(mark) if q.kind == "channel_message"]
        assert not [q for q in posted if q.content and q.content.startswith("**Turn")], "no turn post"
        assert not [q for q in posted if q.pinged_user_ids], "nobody is called to a closed game"
        live = [m for m in d.channel_messages(CHANNEL) if any(c.startswith("alx:end:") for c in m.custom_ids)]
        assert live == [], "no live button is left"
        d.take_errors()


async def test_a_seat_offer_written_while_another_is_accepted_is_kept(tmp_path):
    """Dave accepts Carol's seat while Alice replaces Bob with Frank (over an earlier offer to Eve). The
    offers are one list, read and written back whole: the accept used to write back the list it had read,
    and Frank's newer offer was lost, so Eve, whose offer had been replaced, took Bob's seat."""
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        g = await open_game(d, 3)
        alice, bob, carol = g.users
        dave, eve, frank = d.member("dave"), d.member("eve"), d.member("frank")
        table = await g.table()
        bob_seat, carol_seat = table.seat_of(bob.id), table.seat_of(carol.id)
        to_dave = (await d.slash(carol, "alexandros game handover", to=dave)).response_message
        r = await d.slash(alice, "alexandros game replace", player=bob, **{"with": eve})
        to_eve = r.response_message
        await asyncio.gather(
            d.click(dave, to_dave.id, f"alx:seatok:{g.game_id}:{carol_seat}:{dave.id}", check=False),
            d.slash(alice, "alexandros game replace", player=bob, **{"with": frank}, check=False),
        )
        r = await d.click(eve, to_eve.id, f"alx:seatok:{g.game_id}:{bob_seat}:{eve.id}", check=False)
        assert "out of date" in r.content.lower(), r.content
        to_frank = d.find_message(f"alx:seatok:{g.game_id}:{bob_seat}:{frank.id}")
        r = await d.click(frank, to_frank.id, f"alx:seatok:{g.game_id}:{bob_seat}:{frank.id}")
        table = await g.table()
        assert table.user_of(bob_seat) == frank.id and table.user_of(carol_seat) == dave.id


async def test_p1_a_seat_offered_and_then_resigned_cannot_be_accepted(tmp_path):
    """P1: a resigned seat is out of play. Handing it over is refused; an offer made before the resignation
    is out of date once the seat resigned (it used to seat the taker in a resigned seat, rated last)."""
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        g = await open_game(d, 3)
        carol, dave = g.users[2], d.member("dave")
        seat = (await g.table()).seat_of(carol.id)
        offer = (await d.slash(carol, "alexandros game handover", to=dave)).response_message
        await resign(d, carol)
        r = await d.click(dave, offer.id, f"alx:seatok:{g.game_id}:{seat}:{dave.id}")
        assert r.ephemeral and "out of date" in r.content.lower(), r.content
        assert (await g.table()).user_of(seat) == carol.id
