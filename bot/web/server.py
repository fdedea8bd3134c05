"""The web face's HTTP server (aiohttp, in the bot's own process and event loop).

Routes (GET and HEAD only; anything else is 405):

``/healthz``               200 when the event loop answers and the store is reachable, else 503; one line
``/metrics``               Prometheus's text format (bot.process.metrics)
``/static/<file>``         the page's script and style (package files, by exact name: no path is walked)
``/g/<id>-<secret>``       a game's page (bot.web.links): the same 404 page for every link that leads nowhere
``/g/<id>-<secret>/game.json``  the whole public history (bot.web.pages)
``/g/<id>-<secret>/live``  server-sent events: what changed (bot.web.live)

Every answer carries a Content-Security-Policy without inline script and the usual security headers. An
address may hold ``per_address`` connections at once (more are cut at once), a connection that has not
sent a whole request within ``header_timeout`` seconds is cut (slow-loris), and a game has at most
``Hub.per_game`` live pages.
"""

from __future__ import annotations

import asyncio
import hashlib
import html
import logging
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from importlib import resources
from typing import Any

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from storage import STATUSES, GameRecord, GameStore

from ..process import metrics
from . import links
from . import words as page_words
from .live import Hub, event
from .pages import Pages

log = logging.getLogger(__name__)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",  # a page's link holds its secret: never send it on
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), interest-cohort=()",
}
STATIC_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}


def _static_files() -> dict[str, tuple[bytes, str]]:
    folder = resources.files("bot.web").joinpath("static")
    out = {}
    for item in folder.iterdir():
        suffix = "." + item.name.rsplit(".", 1)[-1]
        if suffix in STATIC_TYPES:
            out[item.name] = (item.read_bytes(), STATIC_TYPES[suffix])
    return out


STATIC = _static_files()
# Each file's address carries a digest of its bytes (``?v=``): the pages (never stored) always name this
# version's script and style, so a browser that keeps a file for a year still fetches the new one the
# moment the bot is upgraded, and never runs the old script against a new page.
VERSIONS = {name: hashlib.sha256(body).hexdigest()[:12] for name, (body, _) in STATIC.items()}


def static_url(name: str) -> str:
    return f"/static/{name}?v={VERSIONS[name]}"


NOT_FOUND = (
    "<!doctype html><html lang=en><meta charset=utf-8><meta name=viewport content='width=device-width'>"
    f"<title>Not found</title><link rel=icon href='data:,'><link rel=stylesheet href={static_url('app.css')}>"
    "<main class=missing><h1>Not found</h1><p>There is nothing at this address.</p></main></html>"
)
# What a visitor reads when the page cannot be made now (the store unreachable: a restart of PostgreSQL, a
# full disk), rather than aiohttp's "Server got itself in trouble".
UNAVAILABLE = (
    "<!doctype html><html lang=en><meta charset=utf-8><meta name=viewport content='width=device-width'>"
    "<title>Not available right now</title><link rel=icon href='data:,'><link rel=stylesheet "
    f"href={static_url('app.css')}><main class=missing><h1>Not available right now</h1>"
    "<p>This page cannot be shown at the moment. Try again in a little while; the game goes on in its "
    "Discord channel.</p></main></html>"
)
LOOP_TICK = 0.5
STALLED = 5.0  # the loop is stuck when its ticker has not run for this long


class WebFace:
    """The server: its routes, limits and live hub, started and stopped with the bot."""

    def __init__(
        self,
        store: GameStore,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        public_url: str = "",
        per_address: int = 32,
        per_game: int = 200,
        header_timeout: float = 10.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.host = host
        self.port = port
        self.public_url = public_url
        self.per_address = per_address
        self.header_timeout = header_timeout
        self.clock = clock
        self.pages = Pages(store)
        self.hub = Hub(store, self.pages, per_game=per_game)
        self._runner: web.AppRunner | None = None
        self._peers: Counter[str] = Counter()
        self._conns: dict[int, _Conn] = {}  # by id(RequestHandler): aiohttp's handler takes no attributes
        self._tick = time.monotonic()
        self._ticker: asyncio.Task[None] | None = None
        self._games_at = -1e9
        self.app = self._make_app()

    # --- lifecycle -------------------------------------------------------------------------------------

    def _make_app(self) -> web.Application:
        app = web.Application(middlewares=[self._guard], client_max_size=1024)
        app.router.add_get("/healthz", self.healthz)
        app.router.add_get("/metrics", self.metrics)
        app.router.add_get("/static/{name}", self.static_file)
        app.router.add_get("/g/{token}", self.page)
        app.router.add_get("/g/{token}/game.json", self.game_json)
        app.router.add_get("/g/{token}/live", self.live)
        return app

    async def start(self) -> None:
        self._runner = web.AppRunner(
            self.app, access_log=None, keepalive_timeout=15.0, handler_cancellation=True,
            max_line_size=4096, max_field_size=4096,
        )  # fmt: skip
        await self._runner.setup()
        self._guard_connections(self._runner)
        site = web.TCPSite(self._runner, self.host, self.port, backlog=1024)
        await site.start()
        server = getattr(site, "_server", None)
        if server is not None and server.sockets:
            self.port = server.sockets[0].getsockname()[1]
        self.hub.start()
        self._ticker = asyncio.get_running_loop().create_task(self._tick_forever(), name="web-ticker")
        log.info("web face listening on %s:%s", self.host, self.port)

    async def close(self) -> None:
        await self.hub.close()
        if self._ticker is not None:
            self._ticker.cancel()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    def poke(self, game_id: int | None = None) -> None:
        """A commit happened: this process's, of ``game_id``, or another's heard through the store (None)."""
        self.hub.poke(game_id)

    def url_of(self, game_id: int, secret: str) -> str:
        return self.public_url + links.path_of(game_id, secret)

    # --- limits ----------------------------------------------------------------------------------------

    def _guard_connections(self, runner: web.AppRunner) -> None:
        """Count each address's connections (cutting those over ``per_address``) and cut a connection that
        has sent no whole request for ``header_timeout`` seconds while none is being answered."""
        server = runner.server
        assert server is not None
        made, lost = server.connection_made, server.connection_lost
        loop = asyncio.get_running_loop()

        def check(conn: _Conn, transport: asyncio.Transport, served: int) -> None:
            if transport.is_closing():
                return
            if not conn.busy and conn.served == served:
                transport.abort()  # a slow-loris: bytes, but no request
                return
            loop.call_later(self.header_timeout, check, conn, transport, conn.served)

        def on_made(handler: Any, transport: asyncio.Transport) -> None:
            made(handler, transport)
            conn = self._conns[id(handler)] = _Conn(_peer(transport))
            self._peers[conn.peer] += 1
            if self._peers[conn.peer] > self.per_address:
                transport.abort()
                return
            loop.call_later(self.header_timeout, check, conn, transport, 0)

        def on_lost(handler: Any, exc: BaseException | None) -> None:
            conn = self._conns.pop(id(handler), None)
            if conn is not None:
                self._peers[conn.peer] -= 1
                if self._peers[conn.peer] <= 0:
                    del self._peers[conn.peer]
            lost(handler, exc)

        server.connection_made = on_made  # type: ignore[method-assign]
        server.connection_lost = on_lost  # type: ignore[method-assign,assignment]

    @web.middleware
    async def _guard(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        conn = self._conns.get(id(request.protocol)) or _Conn("?")
        conn.busy = True
        try:
            if request.method not in ("GET", "HEAD"):
                response: web.StreamResponse = web.Response(
                    status=405, text="Only GET.", headers={"Allow": "GET, HEAD"}
                )
            else:
                try:
                    response = await handler(request)
                except web.HTTPNotFound:
                    response = self._not_found()
                except web.HTTPException as exc:
                    response = web.Response(status=exc.status, text=exc.reason)
                except Exception:  # noqa: BLE001 - the store down, or a bug: logged, and the visitor told
                    # The route, not the path: a game's path is its secret link.
                    route = request.match_info.route.resource
                    log.exception("the web face could not answer %s", route.canonical if route else "?")
                    response = self._unavailable()
        finally:
            conn.busy = False
            conn.served += 1
        if not response.prepared:
            response.headers.update(HEADERS)
        return response

    def _unavailable(self) -> web.Response:
        return web.Response(
            status=503, text=UNAVAILABLE, content_type="text/html", charset="utf-8",
            headers={"Cache-Control": "no-store", "Retry-After": "10"},
        )  # fmt: skip

    def _not_found(self) -> web.Response:
        return web.Response(
            status=404, text=NOT_FOUND, content_type="text/html", charset="utf-8",
            headers={"Cache-Control": "no-store"},
        )  # fmt: skip

    # --- hosts -----------------------------------------------------------------------------------------

    async def _tick_forever(self) -> None:
        while True:
            self._tick = time.monotonic()
            await asyncio.sleep(LOOP_TICK)

    async def healthz(self, request: web.Request) -> web.Response:
        late = time.monotonic() - self._tick
        if late > STALLED:
            return _health(False, f"the event loop stalled for {late:.1f} s")
        try:
            async with asyncio.timeout(3.0):
                await self.store.game_by_id(0)
        except Exception as exc:  # noqa: BLE001 - any failure of the store is the answer
            return _health(False, f"the store cannot be reached ({type(exc).__name__})")
        return _health(True, "healthy: the event loop answers and the store is reachable")

    async def metrics(self, request: web.Request) -> web.Response:
        await self._count_games()
        body = generate_latest(metrics.REGISTRY)
        return web.Response(
            body=body, headers={"Content-Type": CONTENT_TYPE_LATEST, "Cache-Control": "no-store"}
        )

    async def _count_games(self) -> None:
        # Counted at most once a minute: listing every game is the one costly read of a scrape.
        now = time.monotonic()
        if now - self._games_at < 60.0:
            return
        self._games_at = now
        for status in STATUSES:
            metrics.GAMES.labels(status).set(len(await self.store.list_games(status)))

    async def static_file(self, request: web.Request) -> web.Response:
        found = STATIC.get(request.match_info["name"])
        if found is None:
            raise web.HTTPNotFound()
        body, kind = found
        # This version's address: kept for a year. Any other (none, or an older version's): an hour.
        current = request.query.get("v") == VERSIONS[request.match_info["name"]]
        cache = "public, max-age=31536000, immutable" if current else "public, max-age=3600"
        return web.Response(body=body, headers={"Content-Type": kind, "Cache-Control": cache})

    # --- games -----------------------------------------------------------------------------------------

    async def _record(self, request: web.Request) -> GameRecord:
        record = await links.find(self.store, request.match_info["token"])
        if record is None:
            raise web.HTTPNotFound()
        return record

    async def page(self, request: web.Request) -> web.Response:
        record = await self._record(request)
        lang = page_words.language(request.headers.get("Accept-Language"))
        token = html.escape(request.match_info["token"])
        title = html.escape(page_words.labels(lang)["title"].format(game=record.id))
        body = (
            f"<!doctype html><html lang={lang}><head><meta charset=utf-8>"
            "<meta name=viewport content='width=device-width,initial-scale=1'>"
            f"<title>{title}</title><link rel=icon href='data:,'>"
            f"<link rel=stylesheet href={static_url('app.css')}>"
            f"<script src={static_url('app.js')} defer></script></head>"
            f"<body data-game='/g/{token}/game.json' data-live='/g/{token}/live'>"
            f"<h1 id=title>{title}</h1><main id=app></main></body></html>"
        )
        return web.Response(
            text=body, content_type="text/html", charset="utf-8",
            headers={"Cache-Control": "no-store", "Vary": "Accept-Language"},
        )  # fmt: skip

    async def game_json(self, request: web.Request) -> web.Response:
        record = await self._record(request)
        lang = page_words.language(request.headers.get("Accept-Language"))
        body = await self.pages.page(record, lang)
        headers = {"Content-Type": "application/json", "Cache-Control": "no-store", "Vary": "Accept-Language"}
        if "gzip" in request.headers.get("Accept-Encoding", ""):
            headers["Content-Encoding"] = "gzip"
            return web.Response(body=body, headers=headers)
        import gzip

        return web.Response(body=gzip.decompress(body), headers=headers)

    async def live(self, request: web.Request) -> web.StreamResponse:
        record = await self._record(request)
        lang = page_words.language(request.headers.get("Accept-Language"))
        try:
            known = max(0, min(int(request.query.get("steps", "0")), 1_000_000))
        except ValueError:
            known = 0
        watcher = self.hub.join(record, lang, known)
        if watcher is None:
            return web.Response(status=503, text="Too many pages watch this game now: try again later.")
        try:
            response = web.StreamResponse(
                headers={
                    **HEADERS, "Content-Type": "text/event-stream", "Cache-Control": "no-store",
                    "X-Accel-Buffering": "no",
                }
            )  # fmt: skip
            await response.prepare(request)
            # Whatever changed between the page's load and this stream (and the open step, again).
            try:
                first = await self.pages.since(record, lang, known)
            except Exception:  # noqa: BLE001 - the stream has begun: it ends, and the page's EventSource
                log.exception("the web face could not start a live stream")  # connects again by itself
                return response
            from .pages import dumps

            await response.write(event("news", dumps(first)))
            # From now on the hub writes the news and its pings to the connection itself (bot.web.live),
            # until it ends this page.
            connection = request.transport
            chunked = response.headers.get("Transfer-Encoding") == "chunked"
            if connection is not None and watcher.open(connection, chunked):
                await watcher.ended.wait()
            return response
        finally:
            self.hub.leave(watcher)


@dataclass
class _Conn:
    """One connection: its address, whether a request is being answered, and how many were."""

    peer: str
    busy: bool = False
    served: int = 0


def _peer(transport: asyncio.BaseTransport) -> str:
    peer = transport.get_extra_info("peername")
    return str(peer[0]) if isinstance(peer, tuple) and peer else "?"


def _health(ok: bool, sentence: str) -> web.Response:
    return web.Response(
        status=200 if ok else 503, text=sentence + "\n", headers={"Cache-Control": "no-store"}
    )
