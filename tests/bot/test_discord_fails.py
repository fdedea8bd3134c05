"""Discord failing an interaction's answer for a while (a 5xx, a timeout: bot.process.outages), as the
fuzzer's ``--faults`` found it (tests/bot/fuzz_faults.py): it is logged as Discord's, a warning without a
traceback, never as an error of ours; nothing escapes to discord.py (which would log it as one); and the
member is told what happened, when Discord lets anything through."""

from __future__ import annotations

import pytest

from bot.texts import private
from offline.payloads import DEFAULT_MEMBER_PERMISSIONS
from tests.bot.driver import WALLS_MAP, bot_factory, discord_failures, harness, open_game, open_lobby

pytest_plugins = ["tests.harness.fixtures"]


@pytest.fixture(autouse=True)
def _offline(no_network):
    yield


@pytest.mark.parametrize("error", ["timeout", "disconnect", "503", "429"])
async def test_a_refusal_discord_fails_to_carry_is_a_warning_not_an_error(tmp_path, caplog, error):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        g = await open_game(d)
        stranger = d.member("stranger")
        post = g.turn_message()
        fault = d.fail("edit_original", error, times=1)  # "My hand" answers after a private defer
        # The harness is strict: an error logged, or an exception discord.py caught, fails the click.
        r = await d.click(stranger, post.id, f"alx:hand:{g.game_id}", check=False)
        assert fault.hits, "the refusal was sent, and Discord failed it"
        assert r.errors == []
        assert any("Discord failed the last answer" in w for w in discord_failures(caplog))


async def test_a_defer_discord_fails_is_apologised_for_as_discords(tmp_path, caplog):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        g = await open_game(d)
        table = await g.table()
        player = g.user_of_seat(table, table.state.current)
        fault = d.fail("callback", "503", times=1)  # the private defer of "My hand"
        r = await d.click(player, g.turn_message().id, f"alx:hand:{g.game_id}", check=False)
        assert len(fault.hits) == 1 and r.errors == []
        assert r.content == private.discord_failed() and r.ephemeral
        assert any(w.startswith("Discord failed (503") for w in discord_failures(caplog))


async def test_an_answer_discord_fails_after_the_change_says_it_went_through(tmp_path, caplog):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        users, msg, gid = await open_lobby(d)
        await d.click(users[1], msg.id, f"alx:join:{gid}")
        fault = d.fail("callback", "502", times=1)  # the lobby's edit after the deal
        r = await d.click(users[0], msg.id, f"alx:start:{gid}", check=False)
        assert len(fault.hits) == 1 and r.errors == []
        assert (await d.bot.store.game_by_id(gid)).status == "playing"
        assert r.content == private.oops_applied() and r.ephemeral
        assert any("after the change was saved" in w for w in discord_failures(caplog))


async def test_an_answer_to_a_retired_form_discord_fails_is_a_warning(tmp_path, caplog):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        user = d.member("ann")
        d.fail("callback", "timeout", times=1)
        data = {"custom_id": "alx:old:1", "components": []}
        r = await d.stale(user, 5, data, check=False)
        assert r.errors == []
        assert any("Discord failed the last answer" in w for w in discord_failures(caplog))


@pytest.mark.parametrize(
    ("error", "lost", "command", "option", "typed"),
    [
        ("503", False, "alexandros move", "card", ""),
        ("timeout", True, "alexandros move", "card", ""),
        ("502", False, "alexandros me reminders", "time_zone", "europe"),
    ],
)
async def test_an_autocomplete_answer_discord_fails_is_a_warning(
    tmp_path, caplog, error, lost, command, option, typed
):
    """And discord.py, which answers an autocomplete its handler did not, does not try again on it."""
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        g = await open_game(d)
        table = await g.table()
        player = g.user_of_seat(table, table.state.current)
        d.fail("callback", error, times=1, lost_reply=lost)
        got = await d.autocomplete(player, command, focused=option, value=typed, check=False)
        assert got and d.history[-1].errors == []  # what the bot offered; Discord failed to show it
        assert any("Discord failed an autocomplete" in w for w in discord_failures(caplog))
        assert [q.kind for q in d.history[-1].requests] == ["callback"]


@pytest.mark.parametrize("kind", ["edit_original", "callback"])
async def test_an_admin_sync_whose_answer_discord_fails_is_a_warning(tmp_path, caplog, kind):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        admin = d.member("admin", permissions=DEFAULT_MEMBER_PERMISSIONS | (1 << 5))  # Manage Server
        fault = d.fail(kind, "504", times=1)
        r = await d.slash(admin, "alexandros-admin sync", check=False)
        assert fault.hits and r.errors == []
        assert any("Discord failed" in w for w in discord_failures(caplog))


async def test_a_connection_the_database_refuses_is_not_taken_for_discords(tmp_path, caplog):
    """A network failure counts as Discord's only on the way to Discord: the database's refused connection
    (a PostgreSQL server down) is an error of the host's to see, and the member reads the plain apology."""
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        g = await open_game(d)
        store = d.bot.store

        async def refused(*args, **kwargs):
            raise ConnectionRefusedError(111, "Connect call failed ('127.0.0.1', 5432)")

        store.game_by_id = refused  # what asyncpg raises while its server is down
        r = await d.click(g.users[0], g.turn_message().id, f"alx:hand:{g.game_id}", check=False)
        assert [e for e in r.errors if "interaction failed" in e.message]
        assert r.content == private.oops()
        assert not any("Discord failed" in w for w in discord_failures(caplog))
        d.take_errors()
