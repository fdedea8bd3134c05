"""Who reads which language (issue 16, item 7), through the offline Discord: a private answer speaks the
asking user's client language (``interaction.locale``), a public post the server's preferred locale (kept
by the game from its creation), a DM the language its reader last used for their reminder settings, and
two users of different languages acting at once each get their own."""

from __future__ import annotations

import asyncio
import dataclasses
import functools

import pytest

from bot.games.tables import Table, names_of
from bot.texts import posts, private
from bot.words import i18n
from bot.words.words import Speaker
from tests.bot.driver import WALLS_MAP, Game, bot_factory, harness, open_game, open_lobby

pytest_plugins = ["tests.harness.fixtures"]


@pytest.fixture(autouse=True)
def _offline(no_network):
    yield


def _refusal(code: str, language: str, **details: object) -> str:
    with i18n.speaking(language):
        return Speaker().refusal(code, details)


def _in_english(table: Table) -> Table:
    """The same table, had its game been made on an English server."""
    options = {**table.record.options, "locale": "en"}
    return dataclasses.replace(table, record=dataclasses.replace(table.record, options=options))


async def _table(d, game_id: int) -> Table:
    record = await d.bot.store.game_by_id(game_id)
    assert record is not None
    return Table(record, None, names_of(record))


async def test_a_german_server_gets_german_public_posts_and_each_user_private_answers_in_their_own(tmp_path):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        d.set_guild_locale("de")
        users, msg, gid = await open_lobby(d, players=3)  # users[0] has an English client
        users[1].locale = "de"
        table = await _table(d, gid)
        assert table.locale == "de"
        english = _in_english(table)
        assert msg.content == posts.lobby_text(table) != posts.lobby_text(english)
        with i18n.speaking("en"):  # the public text ignores who is speaking: the game's language decides
            assert posts.lobby_text(table) == msg.content

        # The same refusal, each in its reader's language, and nothing of it in public.
        mine = await d.click(users[0], msg.id, f"alx:join:{gid}")
        theirs_first = await d.click(users[1], msg.id, f"alx:join:{gid}")
        assert not theirs_first.ephemeral or theirs_first.content  # joined
        theirs = await d.click(users[1], msg.id, f"alx:join:{gid}")
        assert mine.ephemeral and mine.content == _refusal("bot/already-seated", "en")
        assert theirs.ephemeral and theirs.content == _refusal("bot/already-seated", "de")
        assert theirs.content != mine.content


async def test_two_users_of_two_languages_acting_at_once_each_get_their_own(tmp_path):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        users, msg, gid = await open_lobby(d, players=2)
        german, english = d.member("Greta"), d.member("Ed")
        german.locale = "de"
        a, b = await asyncio.gather(d.slash(german, "alexandros hand"), d.slash(english, "alexandros hand"))
        assert a.content == _refusal("bot/not-started", "de")
        assert b.content == _refusal("bot/not-started", "en") != a.content


async def test_an_english_server_keeps_english_public_posts_for_a_german_creator(tmp_path):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        creator = d.member("Anna")
        creator.locale = "de"
        r = await d.slash(creator, "alexandros new")
        gid = int(r.response_message.custom_ids[0].split(":")[2])
        table = await _table(d, gid)
        assert table.locale == "en"
        with i18n.speaking("en"):
            assert r.response_message.content == posts.lobby_text(table)


async def test_the_turn_post_and_the_ping_of_a_german_game_are_german(tmp_path):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        d.set_guild_locale("de")
        users, msg, gid = await open_lobby(d, players=2)
        await d.click(users[1], msg.id, f"alx:join:{gid}")
        await d.click(users[0], msg.id, f"alx:start:{gid}")
        g = Game(d, users, game_id=gid)
        post = g.turn_message().content
        table = await d.bot.handlers.ctx.tables.load(await d.bot.store.game_by_id(gid))
        assert table.locale == "de"
        with i18n.speaking("en"):
            header = posts.turn_header(table)
        assert post.startswith(header.split("\n")[0].split(" <@")[0])
        english = _in_english(table)
        assert posts.turn_header(english).split("\n")[0] != header.split("\n")[0]


def _labels(msg) -> list[str]:
    return [str(c.get("label")) for c in msg.walk_components() if c.get("type") == 2 and c.get("label")]


def _in(language: str, make) -> str:
    with i18n.speaking(language):
        return str(make())


async def _german_game(d) -> Game:
    d.set_guild_locale("de")
    users, msg, gid = await open_lobby(d, players=2)
    await d.click(users[1], msg.id, f"alx:join:{gid}")
    await d.click(users[0], msg.id, f"alx:start:{gid}")
    return Game(d, users, game_id=gid)


async def test_the_buttons_the_delivery_worker_puts_under_a_german_turn_post_are_german(tmp_path):
    from bot.texts.components import turn_view

    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        g = await _german_game(d)
        post = g.turn_message()
        st = await g.state()

        def labels_in(language: str) -> list[str]:
            view = turn_view(g.game_id, st.version, True, locale=language)
            # a DynamicItem wraps its button
            buttons = [getattr(item, "item", item) for item in view.children]
            return [str(b.label) for b in buttons if getattr(b, "label", None)]

        assert _labels(post) == labels_in("de") != labels_in("en")


async def test_a_seat_offer_in_a_german_game_has_a_german_accept_button_whoever_offers(tmp_path):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        g = await _german_game(d)
        holder = g.users[0]  # an English client
        helper = d.member("Helga")
        r = await d.slash(holder, "alexandros game handover", to=helper)
        (label,) = _labels(r.response_message)
        assert label == _in("de", private.accept_seat) != _in("en", private.accept_seat)


async def _dm_game(d, locales: dict[str, str]) -> Game:
    """A game on an English server whose players asked for DMs, each from a client of ``locales[name]``."""
    users = [d.member(n) for n in locales]
    for u in users:
        u.locale = locales[u.name]
        await d.slash(u, "alexandros me reminders", dm=True)
    g = await open_game(d, users=users)
    assert (await g.table()).locale == "en"
    return g


def _language(user) -> str:  # noqa: ANN001
    return i18n.language_of(user.locale)


async def test_a_dm_speaks_the_language_its_reader_used_for_their_settings_not_the_games(tmp_path):
    from tests.bot.driver import CHANNEL

    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        g = await _dm_game(d, {"alice": "de", "bob": "en-US"})
        for _turn in range(2):  # each player's first turn: one German reader, one English
            await d.bot.deliveries.drain(10**10)
            table = await g.table()
            me = next(u for u in g.users if u.id == table.current_user)
            dm = d.channel_messages(d.dm_channel(me))[-1]
            dm_text = functools.partial(private.dm_turn_text, table)
            want = _in(_language(me), dm_text)
            assert dm.content.split("\n")[0] == want.split("\n")[0], dm.content
            if _language(me) == "de":
                assert want.split("\n")[0] != _in("en", dm_text).split("\n")[0]
            await _move_alexander(g)
            r = await d.slash(me, "alexandros end")
            assert r.ephemeral, r.content
        readers = {_language(u) for u in g.users if d.channel_messages(d.dm_channel(u))}
        assert readers == {"de", "en"}, "each player got a DM"
        post = next(m for m in d.channel_messages(CHANNEL) if m.content.startswith("**Turn 1 "))
        assert post.content.startswith("**Turn 1"), "the public post stays in the game's language"


async def test_a_reminder_dm_speaks_its_readers_language_and_the_channel_fallback_the_games(tmp_path):
    from tests.bot.driver import CHANNEL, Clock

    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        g = await _dm_game(d, {"alice": "de", "bob": "de"})
        await d.bot.deliveries.drain(clock.now + 3600)
        table = await g.table()
        me = next(u for u in g.users if u.id == table.current_user)
        started = table.record.turn_started_at
        clock.now = started + 24 * 3600 + 5
        for k in range(1, 7):  # the reminder falls due, then the DM duty it writes
            await d.bot.deliveries.drain(clock.now + 10 * k)
        reminder = d.channel_messages(d.dm_channel(me))[-1].content
        remind = functools.partial(private.dm_reminder_text, table, started)
        assert reminder.split("\n")[0] == _in("de", remind).split("\n")[0], reminder
        assert _in("de", remind) != _in("en", remind)

        # The next player's DMs are closed: their ping goes to the channel, a public post in the game's
        # language (English), though they read German.
        other = next(u for u in g.users if u is not me)
        other.dms_open = False
        await _move_alexander(g)
        await d.slash(me, "alexandros end")
        await d.bot.deliveries.drain(clock.now + 3600)
        table = await g.table()
        assert table.current_user == other.id
        (ping,) = [m for m in d.channel_messages(CHANNEL) if m.content.startswith(f"<@{other.id}>, ")]
        assert ping.content.startswith(f"<@{other.id}>, it is your turn in game {g.game_id}"), ping.content
        assert ping.content.split("\n")[0] == posts.dm_fallback_turn_text(table, other.id)


def test_numbers_are_written_as_the_reader_writes_them():
    assert (
        i18n.number(1.5) == "1.5"
        and i18n.number(12.0) == "12"
        and i18n.number(-3.25, 1, fixed=True) == "-3.2"
    )
    with i18n.speaking("de"):
        assert (
            i18n.number(1.5) == "1,5"
            and i18n.number(12.0) == "12"
            and i18n.number(25.0, 1, fixed=True) == "25,0"
        )


async def _move_alexander(g: Game) -> None:
    """The player on turn moves Alexander (the greedy computer's move), so the actions phase begins."""
    import random

    from bot.texts import choices as ch
    from engine import ai
    from engine.actions import Move

    st = await g.state()
    user = g.user_of_seat(await g.table(), st.current)
    move = ai.greedy_player(st, random.Random(1))
    assert isinstance(move, Move)
    card, to, path = ch.move_code(st, move)
    r = await g.d.slash(user, "alexandros move", card=card, to=to, path=path)
    assert r.ephemeral, r.content


async def test_the_answer_to_a_turn_action_speaks_the_clicking_players_language(tmp_path):
    """The answer ("You took a card.") is worded after the handler speaks the clicker's language, typed or
    picked from the Actions menu; a German player read it in English under German event lines."""
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        g = await _german_game(d)
        for u in g.users:
            u.locale = "de"
        await _move_alexander(g)
        st = await g.state()
        user = g.user_of_seat(await g.table(), st.current)
        r = await d.slash(user, "alexandros take", card="supply")
        assert r.ephemeral and r.content.startswith(_in("de", private.took_card)), r.content

        st = await g.state()
        r = await d.click(user, g.turn_message().id, f"alx:acts:{g.game_id}:{st.version}")
        r = await d.select(user, r.response_message.id, f"alxs:act:{g.game_id}:{st.version}", ["take:supply"])
        assert r.content.startswith(_in("de", private.took_card)), r.content

        st = await g.state()
        r = await d.click(user, g.turn_message().id, f"alx:acts:{g.game_id}:{st.version}")
        r = await d.select(user, r.response_message.id, f"alxs:act:{g.game_id}:{st.version}", ["end"])
        assert r.content.startswith(_in("de", private.turn_over)), r.content
        assert (await g.state()).current != st.current


async def test_a_german_province_preview_names_the_guards_spaces_with_german_articles(tmp_path):
    """The plan's spaces take their article from the catalog ("auf dem Pferdefeld"): an English "the" was
    glued in front of each German space name."""
    import random

    from bot.texts import choices as ch
    from engine import ai
    from engine.state import Phase

    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        g = await open_game(d, 2)  # an English server (Game.play checks English public posts)
        for u in g.users:
            u.locale = "de"  # the preview is private: its reader's language
        rng = random.Random(1)
        for n in range(200):  # the greedy game, until the player on turn may occupy a province
            table = await g.table()
            st = table.state
            occupy = [c.value for c in ch.action_menu(st, st.current, table.speaker)[0]]
            occupy = [v for v in occupy if v.startswith("occ:")] if st.phase is Phase.ACTIONS else []
            if occupy:
                break
            await g.play(ai.greedy_player(st, rng), n)
        user = g.user_of_seat(table, st.current)
        r = await d.click(user, g.turn_message().id, f"alx:acts:{g.game_id}:{st.version}")
        r = await d.select(user, r.response_message.id, f"alxs:act:{g.game_id}:{st.version}", [occupy[0]])
        text = d.message(r.response_message.id).content
        assert text.startswith("**Provinz") and " the " not in text, text
        assert "auf dem " in text, text
