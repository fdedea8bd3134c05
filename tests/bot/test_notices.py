"""DM notices (issue 16, item 3): ``/alexandros me reminders dm:true`` sends a player's turn pings and
reminders by direct message instead of the channel ping, exactly once through faults; closed DMs (403, code
50007) fall back to the channel ping, and the player is told why once."""

from __future__ import annotations

import random

import pytest

from bot.outbox import duties as dt
from bot.outbox import notices
from engine import ai
from tests.bot import driver
from tests.bot.driver import CHANNEL, NAMES, WALLS_MAP, Clock, Game, bot_factory, harness

pytest_plugins = ["tests.harness.fixtures"]

HOUR = 3600.0
DAY = 24 * HOUR
FAULTS = [
    ("503", False),
    ("429", False),
    ("timeout", False),
    ("disconnect", False),
    ("timeout", True),
    ("disconnect", True),
]


@pytest.fixture(autouse=True)
def _offline(no_network):
    yield


async def open_game(d, players: int = 2, dm: bool = True) -> Game:
    """A started game whose players all asked for DM notices (before the start, so the first ping too)."""
    users = [d.member(n) for n in NAMES[:players]]
    for u in users:
        if dm:
            r = await d.slash(u, "alexandros me reminders", dm=True)
            assert r.ephemeral and "by direct message" in r.content
    return await driver.open_game(d, users=users)


async def flush(d, clock: Clock, seconds: float = 3 * HOUR, rounds: int = 6) -> None:
    start = clock.now
    for k in range(1, rounds + 1):
        await d.bot.deliveries.drain(start + seconds * k / rounds)


def dms(d, user) -> list:
    return d.channel_messages(d.dm_channel(user))


def user_of(g: Game, uid: int):
    return next(u for u in g.users if u.id == uid)


async def test_the_turn_ping_goes_by_dm_instead_of_the_channel(tmp_path):
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        g = await open_game(d)
        await flush(d, clock)
        table = await g.table()
        me = user_of(g, table.current_user)
        (post,) = [m for m in d.channel_messages(CHANNEL) if m.content.startswith("**Turn 1 ")]
        assert f"<@{me.id}>" in post.content, "the turn post still names the player"
        assert not [q for q in d.requests if q.pinged_user_ids], "nobody is notified in the channel"
        (dm,) = dms(d, me)
        assert "your turn in Alexandros game" in dm.content
        assert f"/{CHANNEL}/{post.id}" in dm.content, "the DM links to the turn post"
        other = next(u for u in g.users if u is not me)
        assert dms(d, other) == []
        g.check_public()
        # The duties a turn ping becomes: the post without its ping, and a DM duty with no channel.
        post_duty = dt.turn_post(table, table.version, [], clock.now)
        routed = await notices.route(d.bot.pipeline.prefs, table, [post_duty], clock.now)
        assert [(x.kind, x.channel_id, x.user_id) for x in routed] == [
            (dt.POST, CHANNEL, None),
            (notices.DM, None, me.id),
        ]
        assert routed[0].payload["ping"] == [] and routed[0].payload["text"] == post_duty.payload["text"]


async def test_a_player_without_dm_notices_is_pinged_in_the_channel(tmp_path):
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        g = await open_game(d, dm=False)
        await flush(d, clock)
        table = await g.table()
        assert [q.pinged_user_ids for q in d.requests if q.pinged_user_ids] == [{table.current_user}]
        assert not [q for q in d.requests if q.kind == "dm_channel"]


async def test_reminders_go_by_dm_and_the_next_one_is_planned(tmp_path):
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        g = await open_game(d)
        await flush(d, clock)
        table = await g.table()
        me = user_of(g, table.current_user)
        started = table.record.turn_started_at
        clock.now = started + DAY + 5
        await flush(d, clock, seconds=60)
        reminders = [m for m in dms(d, me) if "A reminder" in m.content]
        assert len(reminders) == 1
        assert not [m for m in d.channel_messages(CHANNEL) if "a reminder" in m.content]
        (nxt,) = [x for x in await d.bot.store.pending_duties(g.game_id) if x.kind == dt.REMIND]
        assert nxt.due_at > started + DAY + 5, "the next reminder is planned"
        clock.now = nxt.due_at + 5
        await flush(d, clock, seconds=60)
        assert len([m for m in dms(d, me) if "A reminder" in m.content]) == 2


@pytest.mark.parametrize(("fault", "lost"), FAULTS)
async def test_a_dm_is_sent_once_through_a_fault(tmp_path, fault, lost):
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        users = [d.member(n) for n in NAMES[:2]]
        dm_channels = {d.dm_channel(u) for u in users}
        d.fail(
            "channel_message",
            fault,
            times=2,
            lost_reply=lost,
            when=lambda q: any(f"/channels/{c}/" in q.url for c in dm_channels),
        )
        g = await open_game(d)
        await flush(d, clock)
        me = user_of(g, (await g.table()).current_user)
        assert len(d.faults[0].hits) == 2
        (dm,) = dms(d, me)
        assert "your turn" in dm.content
        assert not [q for q in d.requests if q.pinged_user_ids], "no channel fallback for a passing fault"
        assert not [x for x in await d.bot.store.pending_duties(g.game_id) if x.kind == notices.DM]
        if lost:
            assert any(q.deduplicated for q in d.requests), "the retry met the message Discord had made"


async def test_closed_dms_fall_back_to_the_channel_and_the_player_is_told_once(tmp_path):
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        for name in NAMES[:2]:
            d.member(name).dms_open = False
        g = await open_game(d)
        await flush(d, clock)
        table = await g.table()
        me = user_of(g, table.current_user)
        refused = [
            q for q in d.requests if q.kind == "channel_message" and f"/channels/{d.dm_channel(me)}/" in q.url
        ]
        assert len(refused) == 1 and dms(d, me) == []
        pings = [q for q in d.requests if q.pinged_user_ids]
        assert [q.pinged_user_ids for q in pings] == [{me.id}], "pinged once, in the channel"
        assert "your turn" in pings[0].content and "privacy settings" in pings[0].content
        assert (await d.bot.store.get_user_settings(me.id)).get(notices.DM_CLOSED)
        # Their next reminder goes straight to the channel: no DM Discord would refuse, no second note.
        mark = d.mark()
        clock.now = table.record.turn_started_at + DAY + 5
        await flush(d, clock, seconds=60)
        sent = [q for q in d.requests_since(mark) if q.kind == "channel_message"]
        reminders = [q for q in sent if "a reminder" in (q.content or "")]
        assert len(reminders) == 1 and reminders[0].pinged_user_ids == {me.id}
        assert "privacy settings" not in reminders[0].content
        assert not [q for q in sent if f"/channels/{d.dm_channel(me)}/" in q.url]
        # Asking again means the DMs may be open now: they are tried again.
        r = await d.slash(me, "alexandros me reminders", dm=True)
        assert "by direct message" in r.content
        assert not (await d.bot.store.get_user_settings(me.id)).get(notices.DM_CLOSED)
        me.dms_open = True
        (nxt,) = [x for x in await d.bot.store.pending_duties(g.game_id) if x.kind == dt.REMIND]
        clock.now = nxt.due_at + 5
        await flush(d, clock, seconds=60)
        assert [m for m in dms(d, me) if "A reminder" in m.content]


async def test_dm_false_turns_dm_notices_off(tmp_path):
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        alice = d.member("alice")
        await d.slash(alice, "alexandros me reminders", dm=True)
        r = await d.slash(alice, "alexandros me reminders", dm=False)
        assert r.ephemeral and "in the game's channel" in r.content
        assert (await d.bot.store.get_user_settings(alice.id)).get(notices.DM_ON) is False


async def test_a_resume_and_a_seat_taken_on_its_turn_call_a_dm_player_by_dm(tmp_path):
    """The notes that call a player to their turn outside a commit (a game resumed, a seat taken on its
    turn) go by DM to a player who asked for DMs, as turn pings do; they pinged in the channel."""
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        g = await open_game(d)
        await flush(d, clock)
        me = user_of(g, (await g.table()).current_user)
        creator = g.users[0]
        await d.slash(creator, "alexandros game pause")
        before = len(dms(d, me))
        mark = d.mark()
        await d.slash(creator, "alexandros game resume")
        await flush(d, clock)
        assert not [q for q in d.requests_since(mark) if q.pinged_user_ids]
        assert any("resumed" in q.content for q in d.requests_since(mark) if q.content)
        assert len(dms(d, me)) == before + 1 and "your turn" in dms(d, me)[-1].content

        carol = d.member("carol")
        r = await d.slash(carol, "alexandros me reminders", dm=True)
        assert r.ephemeral
        offer = (await d.slash(me, "alexandros game handover", to=carol)).response_message
        seat = (await g.table()).record.seat_of(me.id)
        mark = d.mark()
        await d.click(carol, offer.id, f"alx:seatok:{g.game_id}:{seat}:{carol.id}")
        await flush(d, clock)
        assert not [q for q in d.requests_since(mark) if q.pinged_user_ids]
        assert len(dms(d, carol)) == 1 and "your turn" in dms(d, carol)[-1].content


async def test_a_dm_held_up_by_discord_until_the_turn_moved_on_is_dropped(tmp_path):
    """A reminder DM that Discord's failures held up (they are tried again for a day) is not sent once the
    player has ended their turn meanwhile: "it is still your turn" would be wrong by then."""
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        g = await open_game(d)
        await flush(d, clock)
        me = user_of(g, (await g.table()).current_user)
        started = (await g.table()).record.turn_started_at
        dm_channel = d.dm_channel(me)
        d.fail("channel_message", "503", times=8, when=lambda q: f"/channels/{dm_channel}/" in q.url)
        clock.now = started + 24 * HOUR + 5
        await d.bot.deliveries.drain(clock.now)
        await d.bot.deliveries.drain(clock.now + 5)
        turn = (await g.state()).turn
        n = 0
        while (await g.state()).turn == turn:  # the player plays their whole turn meanwhile
            await g.play(ai.greedy_player(await g.state(), random.Random(n)), n)
            n += 1
        before = [m for m in dms(d, me) if "A reminder" in m.content]
        await flush(d, clock, seconds=3 * HOUR)
        assert [m for m in dms(d, me) if "A reminder" in m.content] == before
