"""A game's page in a real browser: Debian's Chromium, headless, driven by Playwright (never Playwright's own
download). At a phone's size and a desktop's, in English and German: the board is drawn, a province hovered
explains itself, the slider and the arrow keys step through the history, and a move made through the
offline Discord arrives on the open page without a reload. Every step is photographed: into
docs/pictures/web/ with ALEXANDROS_WEB_SCREENSHOTS=1 (the pictures committed there were made so), else into
the test's own folder (a run must not change files of the repository: the pictures differ by a pixel or a
clock reading from run to run).

Chromium missing is a failure that says how to install it, never a skip.
"""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from engine.maps import default_map
from tests.bot.driver import play_whole_game
from tests.web.helpers import act, link, web_bot

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip
PICTURES = Path(__file__).resolve().parents[2] / "docs" / "pictures" / "web"
SIZES = {"phone": {"width": 375, "height": 812}, "desktop": {"width": 1600, "height": 1000}}
WORDS = {"en": ("Province", "Score"), "de": ("Provinz", "Punkte")}


def chromium() -> str:
    if not os.path.exists(CHROMIUM):
        pytest.fail(
            f"Chromium is missing at {CHROMIUM}: install Debian's package (apt-get update && "
            "apt-get install -y chromium); the browser tests need it and are never skipped."
        )
    return CHROMIUM


@asynccontextmanager
async def following(
    tmp_path: Path, url: str, before: Callable[[Any], None] = lambda page: None
) -> AsyncIterator[Any]:
    """Debian's Chromium at a desktop's size, the game's page open at ``url`` and following it live
    (``before``: given the page before it loads, to listen to its requests)."""
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        context = await pw.chromium.launch_persistent_context(
            str(tmp_path / "profile"), executable_path=chromium(), headless=True, args=ARGS,
            viewport=SIZES["desktop"],
        )  # fmt: skip
        try:
            page = context.pages[0] if context.pages else await context.new_page()
            before(page)
            await page.goto(url)
            await page.wait_for_selector("#live.on", timeout=10_000)
            yield page
        finally:
            await context.close()


@pytest.mark.parametrize(
    ("size", "lang"), [("phone", "en"), ("desktop", "de"), ("phone", "de"), ("desktop", "en")]
)
async def test_a_games_page_in_chromium(tmp_path, size, lang):
    from playwright.async_api import async_playwright

    executable = chromium()
    pictures = PICTURES if os.environ.get("ALEXANDROS_WEB_SCREENSHOTS") == "1" else tmp_path / "pictures"
    pictures.mkdir(parents=True, exist_ok=True)
    province, score = WORDS[lang]
    async with web_bot(str(tmp_path / "g.db"), game_map=default_map()) as d:
        g = await play_whole_game(d, 3, ai_seed=3, max_actions=24, require_end=False)
        url = f"http://127.0.0.1:{d.bot.web.port}{await link(d, g.game_id)}"
        async with async_playwright() as pw:
            context = await pw.chromium.launch_persistent_context(
                str(tmp_path / "profile"), executable_path=executable, headless=True, args=ARGS,
                viewport=SIZES[size], locale="de-DE" if lang == "de" else "en-US",
                device_scale_factor=2 if size == "phone" else 1,
            )  # fmt: skip
            try:
                page = context.pages[0] if context.pages else await context.new_page()
                problems: list[str] = []
                page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
                page.on("pageerror", lambda e: problems.append(str(e)))
                sent = []
                page.on("requestfinished", lambda r: sent.append(r))
                started = time.monotonic()
                await page.goto(url)
                await page.wait_for_selector("body[data-ready='1']", timeout=10_000)
                drawn = time.monotonic() - started
                assert await page.locator("svg.board polygon.space").count() > 20
                assert await page.locator("svg.board .guard").count() >= 1
                assert await page.locator("svg.plot polyline.score-line").count() == 3
                assert score in await page.locator("table.players").inner_text()
                shot = f"{size}-{lang}"
                await page.screenshot(path=str(pictures / f"{shot}-board.png"))
                # Hover (a phone taps) a province: its value, owner and costs in words.
                space = page.locator("svg.board polygon.space").nth(40)
                if size == "phone":
                    await space.click()
                else:
                    await space.hover()
                tip = page.locator("#tip")
                await tip.wait_for(state="visible", timeout=3000)
                assert province in await tip.inner_text()
                await page.screenshot(path=str(pictures / f"{shot}-hover.png"))
                # Step back through the history with the keys and the slider, then forward again.
                last = int(await page.get_attribute("body", "data-step"))
                await page.locator("h1").click()  # the keys go to the page, not to a control
                await page.keyboard.press("ArrowLeft")
                await page.keyboard.press("ArrowLeft")
                assert int(await page.get_attribute("body", "data-step")) == last - 2
                await page.locator("#slider").fill("3")
                assert await page.get_attribute("body", "data-step") == "3"
                await page.screenshot(path=str(pictures / f"{shot}-history.png"))
                await page.locator("h1").click()
                await page.keyboard.press("ArrowRight")
                assert await page.get_attribute("body", "data-step") == "4"
                took = await page.evaluate(
                    "() => { const t = performance.now();"
                    " document.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight'}));"
                    " return performance.now() - t; }"
                )
                await page.locator("#slider").fill(str(last))
                # Live: a move made through Discord arrives without a reload.
                await page.wait_for_selector("#live.on", timeout=5000)
                version = int(await page.get_attribute("body", "data-version"))
                moved = time.monotonic()
                await act(g, 500, random.Random(5))
                # Polled from here: the page's policy forbids the eval that wait_for_function's string uses.
                async with asyncio.timeout(3):
                    while int(await page.get_attribute("body", "data-version")) <= version:
                        await asyncio.sleep(0.02)
                arrived = time.monotonic() - moved
                assert int(await page.get_attribute("body", "data-step")) > last  # it follows the news
                await page.screenshot(path=str(pictures / f"{shot}-live.png"))
                assert not problems, problems
                total = 0
                for r in sent:
                    sizes = await r.sizes()
                    total += sizes["responseBodySize"] + sizes["responseHeadersSize"]
                print(
                    f"{shot}: drawn in {drawn:.2f} s, {total} bytes, a step {took:.1f} ms, "
                    f"live {arrived:.2f} s"
                )
                assert total <= 300_000
            finally:
                await context.close()
    assert shutil.which("chromium") or os.path.exists(CHROMIUM)


async def test_a_page_whose_live_stream_was_refused_for_a_while_comes_back_by_itself(tmp_path):
    """The live stream of an open page is cut (the bot restarting, a proxy), and when the page connects
    again the store cannot serve it (PostgreSQL restarting, a full disk): the web face answers 503. A
    browser's EventSource gives up for good on any answer but 200, so the page stayed "offline" until the
    spectator reloaded it. Now it tries again by itself after about ten seconds (the 503's Retry-After),
    and catches up with the moves made meanwhile."""
    from tests.web.helpers import StoreDown, act

    async with web_bot(str(tmp_path / "g.db")) as d:
        g = await play_whole_game(d, 3, ai_seed=3, max_actions=6, require_end=False)
        url = f"http://127.0.0.1:{d.bot.web.port}{await link(d, g.game_id)}"
        web, real = d.bot.web, d.bot.web.store

        refused: list[int] = []

        def note(page: Any) -> None:
            page.on("response", lambda r: refused.append(r.status) if "/live" in r.url else None)

        async with following(tmp_path, url, note) as page:
            version = int(await page.get_attribute("body", "data-version"))
            web.store = StoreDown()
            web.hub.end(g.game_id)  # the stream is cut; the page connects again, and is refused
            async with asyncio.timeout(15):
                while 503 not in refused:
                    await asyncio.sleep(0.05)
            await page.wait_for_selector("#live.off", timeout=5000)
            await act(g, 100, random.Random(7))  # a move while the page cannot follow
            moved = (await g.table()).record.version
            assert moved > version
            web.store = real
            started = time.monotonic()
            await page.wait_for_selector("#live.on", timeout=20_000)
            async with asyncio.timeout(5):
                while int(await page.get_attribute("body", "data-version")) < moved:
                    await asyncio.sleep(0.05)
            print(f"refused {refused.count(503)} time(s); back {time.monotonic() - started:.1f} s after")
        d.take_errors()  # the web face logs the store's failure as an error, as it should


async def test_an_open_page_follows_the_game_across_a_restart_of_the_bot(tmp_path):
    """The host restarts the bot (an upgrade) while a spectator watches: the page says it is reconnecting,
    connects again by itself once the bot is back on its port, and shows the moves made since."""
    import socket

    from tests.bot.driver import harness
    from tests.web.helpers import act, web_factory

    with socket.socket() as s:  # a fixed port, as a host's is, so that the page finds the bot again
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    async with harness(web_factory(str(tmp_path / "g.db"), web_port=port)) as d:
        g = await play_whole_game(d, 3, ai_seed=3, max_actions=6, require_end=False)
        url = f"http://127.0.0.1:{port}{await link(d, g.game_id)}"
        async with following(tmp_path, url) as page:
            version = int(await page.get_attribute("body", "data-version"))
            await d.restart()
            await act(g, 100, random.Random(7))
            moved = (await g.table()).record.version
            assert moved > version
            started = time.monotonic()
            async with asyncio.timeout(25):
                while int(await page.get_attribute("body", "data-version")) < moved:
                    await asyncio.sleep(0.05)
            assert await page.locator("#live.on").count() == 1
            print(f"back {time.monotonic() - started:.1f} s after the restart")


async def test_a_page_whose_link_was_changed_says_so_and_stops_asking(tmp_path):
    """An admin gives the game a new link: the open page's stream ends, and the old link leads nowhere
    now (404). The page says so, in its reader's words, and stops asking, rather than knocking every ten
    seconds for as long as it stays open."""
    from bot.web.words import labels
    from tests.bot.fuzz import MANAGE_GUILD

    async with web_bot(str(tmp_path / "g.db")) as d:
        g = await play_whole_game(d, 2, ai_seed=3, max_actions=3, require_end=False)
        url = f"http://127.0.0.1:{d.bot.web.port}{await link(d, g.game_id)}"
        asked: list[str] = []

        def note(page: Any) -> None:
            page.on("request", lambda r: asked.append(r.method + " " + r.url) if "/g/" in r.url else None)

        async with following(tmp_path, url, note) as page:
            admin = d.member("admin", permissions=MANAGE_GUILD)
            r = await d.slash(admin, "alexandros-admin web", new_link=True)
            assert "link was changed" in r.content
            await page.wait_for_selector("#live.gone", timeout=25_000)
            assert await page.locator("#live").inner_text() == labels("en")["gone"]
            assert any(a.startswith("HEAD ") and a.endswith("/game.json") for a in asked)
            after = len(asked)
            await asyncio.sleep(13)  # longer than the page waits before asking again
            assert asked[after:] == [], asked[after:]
