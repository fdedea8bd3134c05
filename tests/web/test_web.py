"""The web face (issue 30): /healthz, /metrics, a game's page behind its secret link, the 404 rules, the
security headers, the history as the page reads it, and live news after a move made through Discord."""

from __future__ import annotations

import asyncio
import json
import random
import re
import time
from collections.abc import Callable
from typing import Any

import pytest

from bot.process.config import ConfigError, load_config
from bot.web import links
from bot.web.history import History, diff, public_doc
from bot.web.pages import dumps
from engine.views import view
from tests.bot.driver import NAMES, Game, play_whole_game
from tests.web.helpers import Client, StoreDown, Stream, act, link, live, web_bot

TOKEN = "x" * 30


def test_the_web_is_off_until_a_host_sets_port_and_address():
    assert load_config({"DISCORD_TOKEN": TOKEN}).web_port is None
    config = load_config(
        {"DISCORD_TOKEN": TOKEN, "ALEXANDROS_WEB_PORT": "8080", "ALEXANDROS_PUBLIC_URL": "https://a.example/"}
    )
    assert (config.web_port, config.public_url, config.web_per_address) == (8080, "https://a.example", 32)
    more = {"DISCORD_TOKEN": TOKEN, "ALEXANDROS_WEB_PER_ADDRESS": "5000"}
    assert load_config(more).web_per_address == 5000
    with pytest.raises(ConfigError, match="go together"):
        load_config({"DISCORD_TOKEN": TOKEN, "ALEXANDROS_WEB_PORT": "8080"})
    with pytest.raises(ConfigError, match="whole number"):
        load_config(
            {"DISCORD_TOKEN": TOKEN, "ALEXANDROS_WEB_PORT": "80a", "ALEXANDROS_PUBLIC_URL": "https://a"}
        )


async def _game(d, actions: int = 6) -> Game:
    return await play_whole_game(d, 2, ai_seed=3, max_actions=actions, require_end=False)


async def test_healthz_answers_200_then_503_with_the_reason_when_the_store_is_gone(tmp_path):
    async with web_bot(str(tmp_path / "g.db")) as d:
        c = Client(d)
        try:
            status, headers, body = await c.get("/healthz")
            assert status == 200 and b"store is reachable" in body
            assert headers["Content-Security-Policy"].startswith("default-src 'none'")
            real = d.bot.web.store

            class Broken:
                async def game_by_id(self, game_id):
                    raise ConnectionError("down")

            d.bot.web.store = Broken()
            status, _, body = await c.get("/healthz")
            assert status == 503 and b"store cannot be reached (ConnectionError)" in body
            d.bot.web.store = real
            d.bot.web._tick = time.monotonic() - 60  # the ticker has not run for a minute: a stuck loop
            status, _, body = await c.get("/healthz")
            assert status == 503 and b"event loop stalled" in body
        finally:
            await c.close()


async def test_metrics_in_prometheus_text_format(tmp_path):
    async with web_bot(str(tmp_path / "g.db")) as d:
        await _game(d)
        await d.slash(d.member("zed"), "alexandros end")  # not seated: refused
        c = Client(d)
        try:
            status, headers, body = await c.get("/metrics")
        finally:
            await c.close()
        assert status == 200 and headers["Content-Type"].startswith("text/plain; version=")
        text = body.decode()
        actions = float(re.search(r"^alexandros_actions_total (\S+)$", text, re.M).group(1))
        assert actions >= 6
        assert re.search(r'^alexandros_refusals_total\{kind="\w+"\} [1-9]', text, re.M)
        assert 'alexandros_interaction_seconds_bucket{le="0.005",type="application_command"}' in text
        assert re.search(r'^alexandros_duties_total\{kind="\w+",outcome="sent"\} [1-9]', text, re.M)
        assert 'alexandros_games{status="playing"} 1.0' in text
        gauges = ('alexandros_queue_depth{queue="render"}', "alexandros_duties_pending", "web_watchers")
        for name in gauges:
            assert name in text


async def test_a_games_page_behind_its_secret_link_and_one_404_for_every_link_leading_nowhere(tmp_path):
    async with web_bot(str(tmp_path / "g.db")) as d:
        g = await _game(d, 3)
        path = await link(d, g.game_id)
        c = Client(d)
        try:
            status, headers, page = await c.get(path)
            assert status == 200 and b"/static/app.js" in page
            # No inline script: every script element names its file, and the policy allows no other.
            assert all(b"src=" in tag for tag in re.findall(rb"<script[^>]*>", page))
            assert "script-src 'self'" in headers["Content-Security-Policy"]
            assert "unsafe-inline" not in headers["Content-Security-Policy"]
            for name in ("X-Content-Type-Options", "X-Frame-Options", "Referrer-Policy"):
                assert name in headers
            assert headers["Referrer-Policy"] == "no-referrer"
            nowhere = [
                f"/g/{g.game_id}-{'0' * 32}",  # wrong secret
                f"/g/{g.game_id + 7}-{path.split('-')[1]}",  # no such game, a real game's secret
                "/g/nonsense",
                f"{path}x",
                "/g/" + "9" * 30 + "-" + "0" * 32,
                "/g/" + "9" * 19 + "-" + "0" * 32,  # 19 digits past the stores' 64-bit integers
                "/static/..%2f..%2fprocess%2fconfig.py",  # bot/process/config.py
                "/static/../../bot/process/config.py",
                "/static/%2e%2e/app.js",
                "/",
            ]
            bodies = set()
            for bad in nowhere:
                status, headers, body = await c.get(bad)
                assert status == 404, bad
                assert "Content-Security-Policy" in headers
                bodies.add(body)
            assert len(bodies) == 1  # the same page whatever the reason: it tells nothing
            # A changed link ends the old one.
            await links.change(d.bot.store, g.game_id, 0.0)
            assert (await c.get(path))[0] == 404
            assert (await c.get(await link(d, g.game_id)))[0] == 200
            # Only GET.
            async with c.session.post(c.base + path) as r:
                assert r.status == 405
        finally:
            await c.close()


async def test_the_pages_script_and_style_name_their_version_and_that_address_is_kept_for_a_year(tmp_path):
    """After an upgrade, no browser runs the last version's script against this version's page: the page
    (never stored) names each file with a digest of its bytes, kept for a year under that address; any
    other address of it (none, or an older version's) is kept for an hour only."""
    import hashlib

    from bot.web.server import STATIC, UNAVAILABLE

    async with web_bot(str(tmp_path / "g.db")) as d:
        g = await _game(d, 3)
        c = Client(d)
        try:
            page = (await c.get(await link(d, g.game_id)))[2]
            for name in ("app.js", "app.css"):
                body = STATIC[name][0]
                current = f"/static/{name}?v={hashlib.sha256(body).hexdigest()[:12]}"
                assert current.encode() in page
                status, headers, got = await c.get(current)
                assert status == 200 and got == body
                assert headers["Cache-Control"] == "public, max-age=31536000, immutable"
                for other in (f"/static/{name}", f"/static/{name}?v=0123456789ab"):
                    status, headers, got = await c.get(other)
                    assert status == 200 and got == body
                    assert headers["Cache-Control"] == "public, max-age=3600"
            css = f"/static/app.css?v={hashlib.sha256(STATIC['app.css'][0]).hexdigest()[:12]}"
            assert css in UNAVAILABLE and css.encode() in (await c.get("/g/nonsense"))[2]
        finally:
            await c.close()


async def test_a_page_the_store_cannot_serve_now_is_a_503_to_come_back_to_not_a_500(tmp_path):
    """The store unreachable (PostgreSQL restarting, a full disk): the visitor reads that the page is not
    available right now, with Retry-After; the host reads which route failed, never the secret link."""
    async with web_bot(str(tmp_path / "g.db")) as d:
        g = await _game(d, 3)
        path = await link(d, g.game_id)
        c = Client(d)
        real = d.bot.web.store

        try:
            d.bot.web.store = StoreDown()
            for where in (path, f"{path}/game.json"):
                status, headers, body = await c.get(where)
                assert status == 503 and b"Not available right now" in body, (where, status, body[:80])
                assert headers["Retry-After"] == "10" and "Content-Security-Policy" in headers
            logged = d.take_errors()
            assert logged and all("/g/{token}" in e.message for e in logged)
            assert not any(path.split("/")[-1] in e.message + (e.exc_text or "") for e in logged)
            d.bot.web.store = real
            assert (await c.get(path))[0] == 200
            # A live stream begun when the store fails: it ends (the page's EventSource connects again).
            pages = d.bot.web.pages
            since = pages.since

            async def down(*args: Any, **kwargs: Any) -> Any:
                raise ConnectionRefusedError(111, "Connect call failed")

            pages.since = down
            try:
                status, headers, body = await c.get(f"{path}/live")
            finally:
                pages.since = since
            assert status == 200 and headers["Content-Type"] == "text/event-stream" and body == b""
            assert [e for e in d.take_errors() if "live stream" in e.message]
        finally:
            d.bot.web.store = real
            await c.close()


async def test_the_history_holds_every_public_state_and_its_last_step_is_the_game_now(tmp_path):
    async with web_bot(str(tmp_path / "g.db")) as d:
        g = await _game(d, 14)
        path = await link(d, g.game_id)
        c = Client(d)
        try:
            data = await c.json(path + "/game.json")
        finally:
            await c.close()
        # Rebuild every step as the page does, from the differences.
        frames, prev = [], None
        for s in data["steps"]:
            f = dict(prev or {})
            for k, v in s.items():
                f[k[0] if k in ("w+", "r+") else k] = (f.get(k[0], []) + v) if k in ("w+", "r+") else v
            frames.append(f)
            prev = f
        state = await g.state()
        now = json.loads(dumps(public_doc(view(state, None), (), 0)))  # as the page reads it
        last = frames[-1]
        for key in ("score", "hand", "guards", "face", "bl", "rl", "ax", "pm", "pv", "turn", "cur"):
            assert last[key] == now[key], key
        assert sorted(last["w"]) == now["w"] and sorted(last["r"]) == now["r"]
        assert len(frames) > 14  # the deal, then a step per move, action and turn's end
        assert frames[0]["turn"] in (0, 1) and frames[0]["score"] == [0, 0]
        moves = [f for f in frames if f["mv"]]
        assert moves and all(len(f["mv"]["path"]) >= 1 for f in moves)
        assert len(data["logs"]) == len(data["steps"])
        assert any("moved Alexander" in line for lines in data["logs"] for line in lines)
        assert data["words"]["score"] == "Score"
        assert data["names"] == list(NAMES[:2])


async def test_the_page_speaks_german_to_a_german_browser(tmp_path):
    async with web_bot(str(tmp_path / "g.db")) as d:
        g = await _game(d, 4)
        path = await link(d, g.game_id)
        c = Client(d)
        try:
            data = await c.json(path + "/game.json", **{"Accept-Language": "de-DE,de;q=0.9,en;q=0.8"})
            english = await c.json(path + "/game.json", **{"Accept-Language": "fr, en;q=0.5"})
        finally:
            await c.close()
        assert data["lang"] == "de" and data["words"]["score"] == "Punkte"
        assert any("hat Alexander nach" in line for lines in data["logs"] for line in lines)
        assert english["lang"] == "en" and english["words"]["history"] == "History"


async def test_a_live_page_hears_a_move_made_through_discord_within_a_second(tmp_path):
    async with web_bot(str(tmp_path / "g.db")) as d:
        g = await _game(d, 3)
        path = await link(d, g.game_id)
        c = Client(d)
        rng = random.Random(9)
        try:
            data = await c.json(path + "/game.json")
            async with live(c, path, len(data["steps"])) as stream:
                name, first = await stream.next()
                assert name == "news" and first["from"] == len(data["steps"]) - 1
                for n in range(3):
                    before = (await g.state()).version
                    started = time.monotonic()
                    await act(g, 100 + n, rng)
                    while True:
                        name, news = await stream.next(timeout=2.0)
                        if news["steps"] and news["steps"][-1]["v"] > before:
                            break
                    assert time.monotonic() - started < 1.0 + 0.5  # the action's own handling included
                    assert news["steps"][-1]["v"] == (await d.bot.store.game_by_id(g.game_id)).version
            async with asyncio.timeout(3):  # the page left: its watcher goes with the connection
                while d.bot.web.hub.count:
                    await asyncio.sleep(0.02)
        finally:
            await c.close()


async def test_a_quiet_page_is_pinged_by_the_hub_and_a_page_that_stops_reading_is_dropped(
    tmp_path, monkeypatch
):
    from bot.web import live as live_module

    monkeypatch.setattr(live_module, "POLL", 0.05)
    monkeypatch.setattr(live_module, "PING", 0.2)
    async with web_bot(str(tmp_path / "g.db")) as d:
        g = await _game(d, 2)
        path = await link(d, g.game_id)
        c = Client(d)
        try:
            async with live(c, path, 0) as stream:
                await stream.next()
                async with asyncio.timeout(3):  # nothing changes: a ping comes all the same
                    while (line := await stream.response.content.readline()) != b": ping\n":
                        assert line, "the stream ended"
            hub = d.bot.web.hub
            async with asyncio.timeout(3):  # the page left: the next ping finds its connection closed
                while hub.count:
                    await asyncio.sleep(0.02)
            w = hub.join(await d.bot.store.game_by_id(g.game_id), "en", 0)
            assert w is not None and hub.count == 1
            # Never opened: its pings wait, then there are too many.
            async with asyncio.timeout(3 + live_module.QUEUE * 0.2):
                while hub.count:
                    await asyncio.sleep(0.05)
            assert w.ended.is_set() and w.waiting == [live_module.PING_EVENT] * live_module.QUEUE
            # A page whose connection holds too much unsent (a reader that does not keep up) is dropped too.
            slow = hub.join(await d.bot.store.game_by_id(g.game_id), "en", 0)
            assert slow is not None

            class Full:
                def __init__(self) -> None:
                    self.written: list[bytes] = []

                def write(self, data: bytes) -> None:
                    self.written.append(data)

                def is_closing(self) -> bool:
                    return False

                def get_write_buffer_size(self) -> int:
                    return live_module.BEHIND + 1 if self.written else 0

            connection = Full()
            assert slow.open(connection, chunked=True) and slow.waiting == []
            hub.ping()
            assert connection.written == [b"8\r\n: ping\n\n\r\n"] and not slow.ended.is_set()
            hub.ping()
            assert slow.ended.is_set() and hub.count == 0 and len(connection.written) == 1
        finally:
            await c.close()


def _recorded(monkeypatch: pytest.MonkeyPatch, store: Any, name: str, pick: Callable[..., Any]) -> list[Any]:
    """The calls of ``store.name`` from now on, each as ``pick`` sees its arguments."""
    calls: list[Any] = []
    real = getattr(store, name)

    async def recording(*args: Any, **kwargs: Any) -> Any:
        calls.append(pick(*args, **kwargs))
        return await real(*args, **kwargs)

    monkeypatch.setattr(store, name, recording)
    return calls


async def test_a_commit_here_makes_the_hub_read_its_own_game_only(tmp_path, monkeypatch):
    from bot.web import live as live_module

    monkeypatch.setattr(live_module, "POLL", 60.0)  # no look but the pokes' in this test
    async with web_bot(str(tmp_path / "g.db")) as d:
        g = await _game(d, 2)
        path = await link(d, g.game_id)
        c = Client(d)
        try:
            async with live(c, path, 0) as stream:
                await stream.next()
                reads = _recorded(monkeypatch, d.bot.store, "game_by_id", lambda game_id: game_id)
                for poke, read in ((g.game_id + 1, []), (g.game_id, [g.game_id]), (None, [g.game_id])):
                    await asyncio.sleep(0.3)  # the looks of the game's own last commits are over
                    reads.clear()
                    d.bot.web.poke(poke)
                    await asyncio.sleep(0.3)  # the hub looks (after COALESCE: 0.05 s)
                    assert reads == read, (poke, reads)
        finally:
            await c.close()


async def _act_and_hear(g: Game, stream: Stream, n: int, rng: random.Random) -> None:
    """Make the game's next action, then read the live page until its news reaches the new version."""
    before = (await g.state()).version
    await act(g, n, rng)
    async with asyncio.timeout(5):
        while True:
            _name, news = await stream.next(timeout=2.0)
            if news["steps"] and news["steps"][-1]["v"] > before:
                return


async def test_a_watched_games_commits_here_are_folded_without_reading_their_events_back(
    tmp_path, monkeypatch
):
    """Issue 30: the events a commit of this process saved reach the page's history from the pipeline; the
    store's events are read only when the offered ones do not follow the history (a page's first load, a
    commit of another process or of another path), and the steps are those the store's events make."""
    async with web_bot(str(tmp_path / "g.db")) as d:
        g = await _game(d, 3)
        path = await link(d, g.game_id)
        c = Client(d)
        real = d.bot.store.events
        # The version each read of the events starts after.
        reads = _recorded(
            monkeypatch, d.bot.store, "events", lambda game_id, since_version=0, limit=None: since_version
        )
        rng = random.Random(4)
        try:
            data = await c.json(path + "/game.json")
            assert reads == [0]  # the first load reads the whole game
            async with live(c, path, len(data["steps"])) as stream:
                await stream.next()
                for n in range(4):
                    await _act_and_hear(g, stream, 200 + n, rng)
                assert reads == [0], "a commit of this process was read back from the store"
                # A commit whose events were not offered (as another process's): the store is read, from
                # the history's version on; the commit after it is offered again, and follows.
                pipeline = d.bot.pipeline
                hook, pipeline.on_events = pipeline.on_events, None
                unoffered = (await g.state()).version
                for n, offered in enumerate((False, True)):
                    pipeline.on_events = hook if offered else None
                    await _act_and_hear(g, stream, 300 + n, rng)
                    assert reads == [0, unoffered], (offered, reads)
            whole = History()
            whole.extend(await real(g.game_id))
            kept = d.bot.web.pages._games[g.game_id].history
            assert [(s.version, s.doc, s.events) for s in kept.steps] == [
                (s.version, s.doc, s.events) for s in whole.steps
            ]
        finally:
            await c.close()


async def test_history_grows_by_the_new_events_only():
    from engine import ai, serialize
    from engine.game import apply, new_game
    from tests.bot.driver import WALLS_MAP

    state, events = new_game(WALLS_MAP, 2, 5)
    rows = [(i + 1, serialize.dump(e)) for i, e in enumerate(events)]
    rng = random.Random(1)
    cuts = [len(rows)]  # where each action's events end: the hub extends a history by one commit at a time
    for _ in range(30):
        if state.over:
            break
        state, more = apply(state, ai.greedy_player(state, rng))
        rows += [(len(rows) + i + 1, serialize.dump(e)) for i, e in enumerate(more)]
        cuts.append(len(rows))
    whole = History()
    whole.extend(rows)
    by_seven = [(cut, cut + 7) for cut in range(0, len(rows), 7)]
    by_one = [(cut, cut + 1) for cut in range(len(rows))]
    by_action = list(zip([0, *cuts], cuts, strict=False))
    for pieces in (by_seven, by_one, by_action):
        grown = History()
        for start, end in pieces:
            grown.extend(rows[start:end])
        assert [(s.version, s.doc, s.events) for s in grown.steps] == [
            (s.version, s.doc, s.events) for s in whole.steps
        ]
    docs = [s.doc for s in whole.steps]
    assert diff(docs[0], docs[0]) == {"v": docs[0]["v"], "mv": docs[0]["mv"]}
    assert whole.steps[-1].version == len(rows)
    await asyncio.sleep(0)


async def test_a_game_has_so_many_live_pages(tmp_path):
    async with web_bot(str(tmp_path / "g.db"), web_limits={"per_game": 2}) as d:
        g = await _game(d, 2)
        path = await link(d, g.game_id)
        c = Client(d)
        try:
            async with live(c, path, 0) as one, live(c, path, 0) as two:
                await one.next()
                await two.next()
                async with c.session.get(f"{c.base}{path}/live?steps=0") as r:
                    assert r.status == 503
                assert d.bot.web.hub.count == 2
        finally:
            await c.close()


async def test_the_docker_health_check_asks_healthz_when_the_web_face_is_on(tmp_path, monkeypatch, capsys):
    from bot.process import health

    async with web_bot(str(tmp_path / "g.db")) as d:
        port = d.bot.web.port
        ok, sentence = await asyncio.to_thread(health.check_web, port)
        assert ok and "store is reachable" in sentence
        monkeypatch.setenv("DISCORD_TOKEN", "")
        monkeypatch.setenv("ALEXANDROS_WEB_PORT", str(port))
        monkeypatch.setenv("ALEXANDROS_PUBLIC_URL", "https://watch.example")
        monkeypatch.setenv("ALEXANDROS_DATA_DIR", str(tmp_path / "nothing"))  # no heartbeat: not asked
        monkeypatch.chdir(tmp_path)
        assert await asyncio.to_thread(health.main) == 0
        d.bot.web._tick = time.monotonic() - 60
        assert await asyncio.to_thread(health.main) == 1
        assert "event loop stalled" in capsys.readouterr().out
    ok, sentence = await asyncio.to_thread(health.check_web, port)  # the bot is gone
    assert not ok and "does not answer" in sentence


async def test_the_console_serves_the_page_on_this_machine_with_web(tmp_path):
    import argparse
    import io
    import socket
    import urllib.request

    from bot.console import run

    with socket.socket() as s:  # a free port
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    fetched: list[int] = []

    class Lines(io.StringIO):
        def readline(self, *args):  # the page is asked for while the console runs
            if not fetched:
                address = re.search(r"http://127\.0\.0\.1:\d+/g/[0-9]+-[0-9a-f]+", out.getvalue()).group(0)
                with urllib.request.urlopen(address, timeout=10) as answer:
                    fetched.append(answer.status)
            return super().readline(*args)

    out = io.StringIO()
    args = argparse.Namespace(
        players="alice,bob", db=str(tmp_path / "c.db"), out=str(tmp_path / "p"), seed=3, web=port
    )
    assert await run(args, Lines("quit\n"), out) == 0
    assert f"Watch the game in a browser: http://127.0.0.1:{port}/g/1-" in out.getvalue()
    assert fetched == [200]


PSEUDONYM = {"en": "former player 1", "de": "ehemaliger Spieler 1"}


async def test_a_forgotten_player_appears_as_their_pseudonym_on_the_page(tmp_path):
    from tests.bot.test_privacy import finish_by_agreement

    async with web_bot(str(tmp_path / "g.db")) as d:
        g = await _game(d, 4)
        path = await link(d, g.game_id)
        c = Client(d)
        try:
            before = await c.json(path + "/game.json")  # read once: the page's caches hold the name now
            assert "alice" in before["names"] and any("alice" in x for lines in before["logs"] for x in lines)
            await finish_by_agreement(g)
            alice = g.users[0]
            r = await d.slash(alice, "alexandros me forget")
            await d.click(alice, r.response_message.id, f"alx:forget:{alice.id}")
            for lang in ("en", "de"):
                _, _, body = await c.get(path + "/game.json", **{"Accept-Language": lang})
                assert b"alice" not in body, lang
                data = json.loads(body)
                assert data["names"][0] == PSEUDONYM[lang], data["names"]
            _, _, page = await c.get(path)
            assert b"alice" not in page
        finally:
            await c.close()
