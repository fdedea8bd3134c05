"""The Watch link button (issue 30): on the turn post, the status message and ``/alexandros board`` when the
web face is on; none when it is off or the server's admin turned watching off (``/alexandros-admin web``),
whose links then lead nowhere; a game's new link ends the old one and the pages open on it."""

from __future__ import annotations

import pytest

from bot.commands.dashboard import META_STATUS, STATUS_DELAY
from tests.bot.driver import WALLS_MAP as MAP
from tests.bot.driver import Game, bot_factory, harness, play_whole_game
from tests.web.helpers import Client, link, live, web_bot

MANAGE_GUILD = 1 << 5


def watch_urls(message) -> list[str]:
    return [
        c["url"]
        for row in message.components
        for c in row.get("components", [])
        if c.get("style") == 5 and c.get("label") in ("Watch", "Zuschauen")
    ]


async def test_the_turn_post_status_message_and_board_carry_the_watch_link(tmp_path):
    async with web_bot(str(tmp_path / "g.db")) as d:
        g = await play_whole_game(d, 2, ai_seed=3, max_actions=3, require_end=False)
        path = await link(d, g.game_id)
        url = "https://watch.example" + path
        assert watch_urls(g.turn_message()) == [url]
        # The status message is posted STATUS_DELAY seconds after a change (the tests' clock runs on reads).
        await d.bot.deliveries.drain(d.bot.clock() + STATUS_DELAY)
        meta = await d.bot.store.get_game_meta(g.game_id)
        assert watch_urls(d.message(int(meta[META_STATUS]["message"]))) == [url]
        r = await d.slash(g.users[0], "alexandros board")
        assert watch_urls(r.response_message) == [url]
        c = Client(d)
        try:
            assert (await c.get(path))[0] == 200
        finally:
            await c.close()


async def test_no_watch_button_without_a_web_face(tmp_path):
    async with harness(bot_factory(str(tmp_path / "g.db"), MAP, 3)) as d:
        g = await play_whole_game(d, 2, ai_seed=3, max_actions=2, require_end=False)
        assert watch_urls(g.turn_message()) == []
        admin = d.member("admin", permissions=MANAGE_GUILD)
        r = await d.slash(admin, "alexandros-admin web", watching=False)
        assert r.ephemeral and "no web face" in r.content


async def test_the_admin_turns_watching_off_and_on_and_changes_a_link(tmp_path):
    async with web_bot(str(tmp_path / "g.db")) as d:
        g = await play_whole_game(d, 2, ai_seed=3, max_actions=3, require_end=False)
        path = await link(d, g.game_id)
        c = Client(d)
        try:
            admin = d.member("admin", permissions=MANAGE_GUILD)
            steps = len((await c.json(path + "/game.json"))["steps"])
            async with live(c, path, steps) as stream:
                await stream.next()
                r = await d.slash(admin, "alexandros-admin web", watching=False)
                assert r.ephemeral and "off for this server" in r.content
                with pytest.raises(EOFError):  # the open page's stream ends
                    while True:
                        await stream.next(timeout=3.0)
            assert (await c.get(path))[0] == 404
            r = await d.slash(g.users[0], "alexandros board")
            assert watch_urls(r.response_message) == []
            r = await d.slash(admin, "alexandros-admin web", watching=True)
            assert "on for this server" in r.content
            assert (await c.get(path))[0] == 200
            async with live(c, path, steps) as stream:
                await stream.next()
                r = await d.slash(admin, "alexandros-admin web", new_link=True)
                assert "link was changed" in r.content
                with pytest.raises(EOFError):
                    while True:
                        await stream.next(timeout=3.0)
            assert (await c.get(path))[0] == 404
            new = await link(d, g.game_id)
            assert new != path and "https://watch.example" + new in r.content
            assert (await c.get(new))[0] == 200
            r = await d.slash(g.users[0], "alexandros board")
            assert watch_urls(r.response_message) == ["https://watch.example" + new]
        finally:
            await c.close()
    assert Game  # the driver's game, as the other web tests use it
