"""The dashboard (issue 16, item 6): ``/alexandros me games`` and the pinned status message of each game
channel, updated in place (coalesced), posted afresh past Discord's edit cap of old messages (30046), kept
up to date unpinned when the bot may not pin (and the channel told once), and exactly once through faults."""

from __future__ import annotations

import random

import pytest

from bot.commands import dashboard as db
from engine import ai
from offline.payloads import ALL_PERMISSIONS
from offline.world import PIN_MESSAGES
from storage import Duty
from tests.bot.driver import CHANNEL, GUILD, NAMES, WALLS_MAP, Clock, Game, abandon, bot_factory, harness
from tests.harness import OfflineDiscord

pytest_plugins = ["tests.harness.fixtures"]

HOUR = 3600.0
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


async def open_game(d, players: int = 2, channel_id: int | None = None) -> Game:
    users = [d.member(n) for n in NAMES[:players]]
    r = await d.slash(users[0], "alexandros new", channel_id=channel_id)
    msg = r.response_message
    gid = int(msg.custom_ids[0].split(":")[2])
    for u in users[1:]:
        await d.click(u, msg.id, f"alx:join:{gid}")
    await d.click(users[0], msg.id, f"alx:start:{gid}")
    return Game(d, users, game_id=gid)


async def flush(d, clock: Clock, seconds: float = HOUR, rounds: int = 6) -> None:
    start = clock.now
    for k in range(1, rounds + 1):
        await d.bot.deliveries.drain(start + seconds * k / rounds)


def statuses(d, channel_id: int = CHANNEL) -> list:
    return [m for m in d.channel_messages(channel_id) if m.content.startswith("📌")]


async def play_turn(g: Game, rng: random.Random) -> int:
    """The current player's whole turn (the move, the actions, the end), action by action (one commit
    each); returns how many."""
    turn = (await g.state()).turn
    n = 0
    while not (st := await g.state()).over and st.turn == turn:
        await g.play(ai.greedy_player(st, rng), n)
        n += 1
    return n


async def test_the_status_message_is_posted_pinned_once_and_edited_in_place(tmp_path):
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        g = await open_game(d)
        await flush(d, clock)
        (status,) = statuses(d)
        assert status.pinned and d.pinned() == [status]
        turn_post = g.turn_message()
        assert "Turn 1:" in status.content and f"/{CHANNEL}/{turn_post.id}" in status.content
        assert "<t:" in status.content, "since when, as a Discord timestamp"
        mark = d.mark()
        rng = random.Random(0)
        actions = await play_turn(g, rng) + await play_turn(g, rng)
        await flush(d, clock)
        (after,) = statuses(d)
        assert after.id == status.id and "Turn 3:" in after.content
        assert f"/{CHANNEL}/{g.turn_message().id}" in after.content, "the link follows the turn post"
        edits = [q for q in d.requests_since(mark) if q.kind == "edit_message" and q.message_id == status.id]
        assert 1 <= len(edits) < actions, f"coalesced: {len(edits)} edits for {actions} actions"
        assert d.pinned() == [status]
        g.check_public()


@pytest.mark.parametrize("unpin_fault", [None, "503", "timeout"])
async def test_past_the_edit_cap_a_new_status_message_is_posted_pinned_and_the_old_unpinned(
    tmp_path, unpin_fault
):
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        g = await open_game(d)
        await flush(d, clock)
        (old,) = statuses(d)
        d.fail("edit_message", "400", code=db.EDIT_CAP_CODE, times=1, when=lambda q: f"/{old.id}" in q.url)
        if unpin_fault is not None:  # the unpin fails once: the retry still unpins the old one
            d.fail("unpin", unpin_fault, times=1)
        await play_turn(g, random.Random(0))
        await flush(d, clock)
        assert [len(f.hits) for f in d.faults] == [f.times for f in d.faults], "every fault was met"
        new = statuses(d)[-1]
        assert new.id != old.id and "Turn 2:" in new.content
        assert d.pinned() == [new] and not d.message(old.id).pinned
        meta = await d.bot.store.get_game_meta(g.game_id)
        assert meta[db.META_STATUS] == {"message": new.id, "pinned": True}
        assert db.META_UNPIN not in meta
        assert len(statuses(d)) == 2, "one new message, even when the unpin was retried"


async def test_without_pin_messages_the_status_is_kept_unpinned_and_the_channel_told_once(tmp_path):
    clock = Clock()
    factory = bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)
    d = OfflineDiscord(
        factory,
        guild_id=GUILD,
        channel_id=CHANNEL,
        loggers=("bot",),
        watched_tasks=("alx-",),
        app_permissions=ALL_PERMISSIONS & ~(1 << 3) & ~PIN_MESSAGES,
    )
    async with d:
        g = await open_game(d)
        await flush(d, clock)
        (status,) = statuses(d)
        assert not status.pinned and d.pinned() == []
        told = [m for m in d.channel_messages(CHANNEL) if "Pin Messages" in m.content]
        assert len(told) == 1 and not told[0].json["mentions"]
        assert any("Pin Messages permission" in w.message for w in d.warnings), "a log line for the host"
        await play_turn(g, random.Random(0))
        await flush(d, clock)
        (after,) = statuses(d)
        assert after.id == status.id and "Turn 2:" in after.content, "still kept up to date"
        assert len([m for m in d.channel_messages(CHANNEL) if "Pin Messages" in m.content]) == 1, "told once"
        assert len([q for q in d.requests if q.kind == "pin"]) == 1, "not asked again"


@pytest.mark.parametrize(("fault", "lost"), FAULTS)
async def test_the_status_message_is_posted_and_edited_once_through_a_fault(tmp_path, fault, lost):
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        d.fail("channel_message", fault, times=2, lost_reply=lost, when=lambda q: "📌" in (q.content or ""))
        d.fail("pin", fault, times=1, lost_reply=lost)
        g = await open_game(d)
        await flush(d, clock)
        (status,) = statuses(d)
        assert status.pinned
        d.fail("edit_message", fault, times=2, lost_reply=lost, when=lambda q: f"/{status.id}" in q.url)
        await play_turn(g, random.Random(0))
        await flush(d, clock)
        (after,) = statuses(d)
        assert after.id == status.id and "Turn 2:" in after.content
        assert [len(f.hits) for f in d.faults] == [2, 1, 2]
        assert [x for x in await d.bot.store.pending_duties(g.game_id) if x.kind == db.STATUS] == []


async def test_abandon_says_so_in_the_status_message(tmp_path):
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        g = await open_game(d)
        await flush(d, clock)
        (status,) = statuses(d)
        r = await abandon(d, g.users[0])  # the command, then its confirmation button (issue 15)
        assert "You abandoned" in r.content
        await flush(d, clock)
        assert "was closed" in d.message(status.id).content


async def test_mygames_lists_the_users_games_in_this_server_with_links(tmp_path):
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        alice, bob = d.member("alice"), d.member("bob")
        r = await d.slash(alice, "alexandros me games")
        assert r.ephemeral and "no game" in r.content
        g = await open_game(d)
        other = d.add_channel("lobby-table")
        await d.slash(alice, "alexandros new", channel_id=other)
        store = d.bot.store
        elsewhere = await store.create_game(GUILD + 1, 99, alice.id, {}, clock())
        await store.join_seat(elsewhere.id, alice.id, clock())
        await flush(d, clock)
        table = await g.table()
        waiting = table.current_user
        r = await d.slash(alice, "alexandros me games")
        assert r.ephemeral and not r.pings
        lines = r.content.split("\n")
        assert lines[0] == "**Your games in this server (2)**", r.content
        playing = next(line for line in lines if f"Game {g.game_id} " in line)
        turn_post = g.turn_message()
        assert f"/{GUILD}/{CHANNEL}/{turn_post.id}" in playing and "since <t:" in playing
        assert ("**your turn**" in playing) == (waiting == alice.id)
        if waiting != alice.id:
            assert "bob's turn" in playing
        assert any("not started" in line and f"<#{other}>" in line for line in lines)
        assert f"Game {elsewhere.id} " not in r.content, "only this server's games"
        r = await d.slash(bob, "alexandros me games")
        assert "(1)" in r.content.split("\n")[0]


async def test_a_deleted_status_message_is_posted_again_and_the_end_is_shown(tmp_path):
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        g = await open_game(d)
        await flush(d, clock)
        (old,) = statuses(d)
        await d.delete_message(old.id)
        await play_turn(g, random.Random(0))
        await flush(d, clock)
        (new,) = statuses(d)
        assert new.id != old.id and new.pinned and "Turn 2:" in new.content
        for u in g.users:  # everyone agrees: the game ends now (P3)
            await d.slash(u, "alexandros agree")
        assert (await g.state()).over
        await flush(d, clock)
        (end,) = statuses(d)
        assert end.id == new.id and "(finished)" in end.content and "Scores:" in end.content
        assert "The current turn" not in end.content, "no link to a turn that is over"
        g.check_public()


async def test_mygames_stays_within_discords_limits_with_many_games(tmp_path):
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        alice = d.member("alice")
        for i in range(db.MYGAMES_MAX + 5):
            await d.bot.store.create_game(GUILD, 1000 + i, alice.id, {}, clock(), seats=[(0, alice.id)])
        r = await d.slash(alice, "alexandros me games")
        assert r.ephemeral and len(r.content) <= 2000
        lines = r.content.split("\n")
        assert lines[0] == f"**Your games in this server ({db.MYGAMES_MAX + 5})**"
        shown = len([line for line in lines if line.startswith("• Game ")])
        assert 10 <= shown <= db.MYGAMES_MAX, "as many whole lines as fit"
        assert lines[-1] == f"…and {db.MYGAMES_MAX + 5 - shown} more."


async def test_a_burst_of_changes_keeps_the_first_due_time_of_the_status_update(tmp_path):
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        g = await open_game(d)
        (first,) = [x for x in await d.bot.store.pending_duties(g.game_id) if x.kind == db.STATUS]
        st = await g.state()
        await g.play(ai.greedy_player(st, random.Random(0)), 0)
        assert (await g.state()).version > st.version
        (second,) = [x for x in await d.bot.store.pending_duties(g.game_id) if x.kind == db.STATUS]
        assert second.id != first.id, "the newer status replaced the pending one"
        assert second.due_at == first.due_at, "and kept its due time: not postponed by every action"
        assert "text" not in second.payload, "the worker words it when it sends it (issue 12)"
        await flush(d, clock)
        (status,) = statuses(d)
        assert "moving Alexander" not in status.content, "it says the newest status"
        assert f"Turn {(await g.state()).turn}:" in status.content


async def test_a_status_duty_written_with_its_text_is_sent_as_written_and_one_of_a_game_gone_is_dropped(
    tmp_path,
):
    """Duties written before the worker worded the status (their payload held the text) are sent as they
    were; a status duty whose game is no more is dropped, not retried."""
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        g = await open_game(d)
        await flush(d, clock)
        store = d.bot.store
        old = {"text": "**Alexandros — game 1** (an older worker's words)", "live": False, "locale": "en"}
        status = db.NewDuty(db.STATUS, clock(), CHANNEL, payload=old, key=db.STATUS)
        await store.add_duties(g.game_id, [status], clock())
        await flush(d, clock)
        (shown,) = statuses(d)
        assert "an older worker's words" in shown.content
        # A duty claimed just before its game was purged (the purge deletes a game's duties with it).
        payload = {"locale": "en"}
        gone = Duty(10**6, 999_999, GUILD, CHANNEL, None, db.STATUS, db.STATUS, clock(), payload, clock())
        assert await d.bot.dashboard.deliver(gone, clock()) == "dropped: the game is gone"
        assert len(statuses(d)) == 1


async def test_the_status_message_follows_a_seat_handed_over_a_pause_and_a_resume(tmp_path):
    """Changes with no engine event (bot.commands.seats) update the status message too: it named the old
    holder of the seat and never said that the game was paused."""
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        g = await open_game(d)
        await flush(d, clock)
        table = await g.table()
        me = g.users[0] if g.users[0].id == table.current_user else g.users[1]
        carol = d.member("carol")
        offer = (await d.slash(me, "alexandros game handover", to=carol)).response_message
        seat = table.record.seat_of(me.id)
        await d.click(carol, offer.id, f"alx:seatok:{g.game_id}:{seat}:{carol.id}")
        await flush(d, clock)
        (status,) = statuses(d)
        assert "carol" in status.content and me.name not in status.content.split("\n")[1]
        await d.slash(g.users[0], "alexandros game pause")
        await flush(d, clock)
        (status,) = statuses(d)
        assert "paused" in status.content and "since" not in status.content.split("\n")[1]
        await d.slash(g.users[0], "alexandros game resume")
        await flush(d, clock)
        (status,) = statuses(d)
        assert "paused" not in status.content and "since <t:" in status.content.split("\n")[1]


async def test_the_status_message_speaks_the_games_language_whoever_acted_last(tmp_path):
    """The worker words the status message when it sends it: in the game's language (a German server's
    game), not in the language of the player whose action it follows (an English client), nor in the
    worker's own."""
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        d.set_guild_locale("de")
        g = await open_game(d)  # joined and started by players whose clients speak English
        assert (await g.table()).locale == "de" and all(u.locale != "de" for u in g.users)
        await flush(d, clock)
        (status,) = statuses(d)
        assert "Spiel" in status.content and "Game" not in status.content, status.content
