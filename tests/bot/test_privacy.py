"""Users' data under their control (issue 11): /alexandros me forget asks first, refuses while the user sits
in a game not over, and leaves finished games whole with a former player in their seat; the admin purge
deletes this server's old finished games only."""

from __future__ import annotations

import json

import pytest

from bot.games.pictures import Pictures
from bot.games.tables import names_of
from bot.texts import posts
from bot.words import i18n, words
from bot.words.words import Speaker
from tests.bot.driver import WALLS_MAP, Clock, Game, bot_factory, harness

pytest_plugins = ["tests.harness.fixtures"]

MANAGE_GUILD = 1 << 5
DAY = 86400.0


@pytest.fixture(autouse=True)
def _offline(no_network):
    yield


async def finish_by_agreement(g: Game) -> None:
    for u in g.users:
        r = await g.d.slash(u, "alexandros agree")
        assert "Something went wrong" not in r.content
    assert (await g.table()).record.status == "finished"


async def test_forget_me_refuses_while_seated_then_forgets_after_the_game(tmp_path):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        alice, bob = d.member("alice"), d.member("bob")
        g = Game(d, [alice, bob])
        await g.open()
        await d.slash(alice, "alexandros me reminders", hours=5)
        store = d.bot.store
        assert await store.get_user_settings(alice.id)

        r = await d.slash(alice, "alexandros me forget")
        assert r.ephemeral and "still seated" in r.content and "/alexandros resign" in r.content
        assert not r.response_message or not r.response_message.custom_ids  # no Confirm to press
        assert await store.get_user_settings(alice.id)

        await finish_by_agreement(g)
        before = await store.game_by_id(g.game_id)
        events_before = await store.events(g.game_id)
        r = await d.slash(alice, "alexandros me forget")
        assert r.ephemeral and "Forget me?" in r.content
        confirm = f"alx:forget:{alice.id}"
        assert r.response_message is not None and confirm in r.response_message.custom_ids
        assert await store.get_user_settings(alice.id), "nothing happens before Confirm"

        r = await d.click(alice, r.response_message.id, confirm)
        assert (
            r.ephemeral
            and "Done" in r.content
            and "a former player stands in your place in 1 game record" in r.content
        )
        assert "Something went wrong" not in r.content
        after = await store.game_by_id(g.game_id)
        assert after is not None and after.version == before.version and after.status == "finished"
        assert alice.id not in after.user_ids and bob.id in after.user_ids
        (former,) = [u for u in after.user_ids if u != bob.id]
        assert former < 0
        assert after.options["names"][str(former)].startswith("former player ")
        assert str(alice.id) not in str(after.options)
        assert await store.events(g.game_id) == events_before
        assert await store.get_user_settings(alice.id) == {}
        assert await store.games_of_user(alice.id, active_only=False) == []
        # The finished game still reads well in its channel: the pseudonym is no mention, and a German
        # reader reads "former player" in German (the record keeps it in English).
        for command in ("alexandros status", "alexandros log"):
            r = await d.slash(bob, command)
            assert "Something went wrong" not in r.content and "alice" not in r.content
            assert "<@-" not in r.content
        r = await d.slash(bob, "alexandros status")
        assert "former player 1" in r.content
        with i18n.speaking("de"):
            table = await g.table()
            assert posts.who(table, former) == "**ehemaliger Spieler 1**"
            assert Speaker(names_of(after)).seat(0) == "ehemaliger Spieler 1"
            assert words.shown_name("a former player → bob") == "ein ehemaliger Spieler → bob"
            assert words.shown_name("former player 1x") == "former player 1x"
        assert posts.who(table, former) == "**former player 1**"
        # Pictures draw the names in the picture's language too.
        assert Pictures._names(("former player 1", "bob"), "de") == ("ehemaliger Spieler 1", "bob")
        # Asking again: nothing left.
        r = await d.slash(alice, "alexandros me forget")
        r = await d.click(alice, r.response_message.id, confirm)
        assert "You had no settings" in r.content and "no game record named you" in r.content
        assert not d.take_errors()


async def test_the_purge_is_for_manage_server_and_this_server_only(tmp_path):
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        alice, bob = d.member("alice"), d.member("bob")
        g = Game(d, [alice, bob])
        await g.open()
        await finish_by_agreement(g)
        store = d.bot.store
        other = await store.create_game(d.guild_id + 1, 555, alice.id, {}, clock.now)
        await store.abandon_game(other.id, clock.now)
        newest = await store.create_game(d.guild_id, 556, alice.id, {}, clock.now)

        admin = d.member("admin", permissions=MANAGE_GUILD)
        r = await d.slash(admin, "alexandros-admin purge", days=1)
        assert r.ephemeral and "nothing was deleted" in r.content
        assert await store.game_by_id(g.game_id) is not None

        clock.now += 2 * DAY
        r = await d.slash(admin, "alexandros-admin purge", days=1)
        assert r.ephemeral and "Deleted 1 finished or abandoned game of this server" in r.content
        assert await store.game_by_id(g.game_id) is None
        assert await store.game_by_id(other.id) is not None, "another server's games are not touched"
        assert await store.game_by_id(newest.id) is not None, "a game in its lobby is not touched"
        # The channel's commands answer as in a channel that never had a game.
        for command in ("alexandros status", "alexandros log", "alexandros board"):
            r = await d.slash(bob, command)
            assert r.ephemeral and "Something went wrong" not in r.content
        assert not d.take_errors()


MANAGE_CHANNELS = 1 << 4


def _traces(path: str, needles: list[bytes]) -> dict[str, int]:
    """How often each needle stands in the database file and its WAL, read as bytes from disk."""
    raw = b""
    for name in (path, path + "-wal"):
        try:
            with open(name, "rb") as f:
                raw += f.read()
        except FileNotFoundError:
            pass
    return {repr(n): raw.count(n) for n in needles if raw.count(n)}


async def test_forget_me_removes_a_moderator_from_posts_offers_and_the_raw_file(tmp_path):
    """Issue 27: a moderator who paused, resumed and replaced a seat, without holding one, is named in the
    logged posts ("⏸ Zyxmod paused the game") and in the game's seat offer. After forget-me no record names
    her, the answer says what was removed, and the SQLite file and its WAL, read from disk while the bot
    still runs, hold neither her name nor her id."""
    path = str(tmp_path / "g.db")
    async with harness(bot_factory(path, WALLS_MAP, 1)) as d:
        alice, bob, dave = d.member("alice"), d.member("bob"), d.member("dave")
        mod = d.member("Zyxmod", permissions=MANAGE_CHANNELS | (1 << 10) | (1 << 11) | (1 << 31))
        g = Game(d, [alice, bob])
        await g.open()
        for command in ("alexandros game pause", "alexandros game resume", "alexandros game pause"):
            r = await d.slash(mod, command)
            assert r.ephemeral and "Something went wrong" not in r.content
        r = await d.slash(mod, "alexandros game replace", player=bob, **{"with": dave})
        assert "Zyxmod offers bob's seat" in r.content
        await d.bot.deliveries.drain()
        store = d.bot.store
        # Her name, her id as text (JSON) and as SQLite keeps an integer of its size (8 bytes, big-endian).
        needles = [b"Zyxmod", str(mod.id).encode(), mod.id.to_bytes(8, "big")]
        assert _traces(path, needles), "the test must see her in the file before"

        r = await d.slash(mod, "alexandros me forget")
        r = await d.click(mod, r.response_message.id, f"alx:forget:{mod.id}")
        assert "no game record named you" not in r.content
        assert "your name and id are removed from 1 game record" in r.content, r.content
        # No record names her, read through the store.
        record = await store.game_by_id(g.game_id)
        assert record is not None and record.status == "playing"
        exported = json.dumps([await store.export_game(g.game_id), await store.get_game_meta(g.game_id)])
        assert "Zyxmod" not in exported and str(mod.id) not in exported
        assert await store.games_of_user(mod.id, active_only=False) == []
        # The offer she made still stands, and so does the pause: only her name and id are gone.
        offers = (await store.get_game_meta(g.game_id))["seat_offers"]
        seat = record.seat_of(bob.id)
        assert offers[str(seat)][:2] == [bob.id, dave.id] and offers[str(seat)][2] < 0
        assert record.options["paused"]["by"] < 0
        # Nor does the raw file or its WAL, read while the store is still open.
        assert _traces(path, needles) == {}
        # The game goes on: resumed by another moderator, dave takes the seat she offered.
        other = d.member("othermod", permissions=MANAGE_CHANNELS | (1 << 10) | (1 << 11) | (1 << 31))
        r = await d.slash(other, "alexandros game resume")
        assert "Something went wrong" not in r.content
        offer = d.find_message(f"alx:seatok:{g.game_id}:{seat}:{dave.id}")
        r = await d.click(dave, offer.id, f"alx:seatok:{g.game_id}:{seat}:{dave.id}")
        assert "You hold the seat now" in r.content
        assert not d.take_errors()


def test_a_forgotten_name_leaves_the_words_of_a_pending_post_but_never_its_data():
    """A name is replaced in a post's words only where it stands as a word of its own; the picture's state,
    another seat's name and longer words that contain it are data, left as they are."""
    from storage.privacy import forget_payload

    payload = {
        "text": "⏸ Ann paused the game. Anna and Annex stay; <@77> too.",
        "names": ["Ann", "bob"],
        "public": '{"Ann": 1}',
        "ping": [77],
    }
    out = forget_payload(payload, 77, -5, None, ["Ann"])
    assert out["text"] == "⏸ a former player paused the game. Anna and Annex stay; a former player too."
    assert out["names"] == ["Ann", "bob"] and out["public"] == '{"Ann": 1}' and out["ping"] == [-5]
