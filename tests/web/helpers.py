"""What the web tests share: a bot with its web face on a free port, driven through the offline Discord, an
HTTP client that records every byte the server sent, and a reader of server-sent events."""

from __future__ import annotations

import asyncio
import gzip
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import aiohttp

from bot.client import make_bot
from bot.games.pictures import Pictures
from bot.web import links
from engine.maps import Map
from tests.bot.driver import WALLS_MAP, Clock, Game, harness
from tests.harness import OfflineDiscord


def web_factory(db: str, game_map: Map = WALLS_MAP, seed: int = 3, web_port: int = 0, **web: Any) -> Any:
    """A bot with its web face on a free port of 127.0.0.1, or on ``web_port`` (``web``: more of make_bot's
    options)."""
    clock = Clock()
    pictures = Pictures(width=480)

    def factory() -> Any:
        return make_bot(
            db, map_provider=lambda: game_map, clock=clock, seed_source=lambda: seed, pictures=pictures,
            web_port=web_port, public_url="https://watch.example", **web,
        )  # fmt: skip

    return factory


@asynccontextmanager
async def web_bot(db: str, **kwargs: Any) -> AsyncIterator[OfflineDiscord]:
    async with harness(web_factory(db, **kwargs)) as d:
        yield d


class StoreDown:
    """A store that refuses every call, as one does while PostgreSQL restarts (the web face's, swapped in)."""

    def __getattr__(self, name: str) -> Any:
        async def refused(*args: Any, **kwargs: Any) -> Any:
            raise ConnectionRefusedError(111, "Connect call failed")

        return refused


class Client:
    """An HTTP client of the bot's web face that keeps every byte it received (headers and bodies)."""

    def __init__(self, d: OfflineDiscord) -> None:
        self.d = d
        self.base = f"http://127.0.0.1:{d.bot.web.port}"
        self.received: list[bytes] = []
        self.session = aiohttp.ClientSession(auto_decompress=False)

    async def close(self) -> None:
        await self.session.close()

    async def get(self, path: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
        async with self.session.get(self.base + path, headers=headers) as r:
            raw = await r.read()
            self.received.append(str(r.raw_headers).encode())
            self.received.append(raw)
            body = gzip.decompress(raw) if r.headers.get("Content-Encoding") == "gzip" else raw
            self.received.append(body)
            return r.status, dict(r.headers), body

    async def json(self, path: str, **headers: str) -> Any:
        status, _, body = await self.get(path, **{"Accept-Encoding": "gzip", **headers})
        assert status == 200, (status, body[:200])
        return json.loads(body)


async def link(d: OfflineDiscord, game_id: int) -> str:
    return links.path_of(game_id, await links.secret_of(d.bot.store, game_id, 0.0))


class Stream:
    """A live page's event stream, read event by event (each with a time limit: never hangs)."""

    def __init__(self, response: aiohttp.ClientResponse, received: list[bytes]) -> None:
        self.response = response
        self.received = received

    async def next(self, timeout: float = 5.0) -> tuple[str, Any]:
        name, data = "", b""
        async with asyncio.timeout(timeout):
            while True:
                line = await self.response.content.readline()
                self.received.append(line)
                if not line:
                    raise EOFError("the stream ended")
                if line.startswith(b"event: "):
                    name = line[7:].strip().decode()
                elif line.startswith(b"data: "):
                    data = line[6:].strip()
                elif line == b"\n" and name:
                    return name, json.loads(data)


@asynccontextmanager
async def live(client: Client, path: str, steps: int, **headers: str) -> AsyncIterator[Stream]:
    async with client.session.get(f"{client.base}{path}/live?steps={steps}", headers=headers) as r:
        assert r.status == 200, r.status
        assert r.headers["Content-Type"].startswith("text/event-stream")
        yield Stream(r, client.received)


async def act(g: Game, n: int, rng: Any) -> None:
    """One more action of the game, chosen by the computer player, made through the offline Discord."""
    from engine import ai

    st = await g.state()
    await g.play(ai.greedy_player(st, rng), n)
