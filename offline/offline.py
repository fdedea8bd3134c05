"""The offline Discord: runs a real ``commands.Bot`` against a fake API and simulated interactions.

This module must not import pytest: the local console (``python -m bot console``) drives the bot through
the same code path as the tests.

How it works, in one paragraph: discord.py sends everything through two seams, ``bot.http.request`` (an
instance attribute: login, command sync, channel messages, edits, threads) and
``discord.webhook.async_.AsyncWebhookAdapter.request`` (patched on the class: interaction callbacks,
followups, ``edit_original_response``). Both are replaced by a recorder that answers like Discord and keeps
the messages it created. Interactions are raw INTERACTION_CREATE dicts fed to
``bot._connection.parse_interaction_create`` (what the gateway does); discord.py then runs the handlers in
named background tasks, which the harness awaits by name.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import socket
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import discord
from discord.webhook.async_ import AsyncWebhookAdapter

from .interactions import Interactions
from .records import (
    HarnessError,
    LoggedError,
)
from .world import AnyBot, BotFactory, _current

_active: list[OfflineDiscord] = []


_original_adapter_request: Any = None


async def _fake_adapter_request(
    self: AsyncWebhookAdapter, route: Any, session: Any = None, **kwargs: Any
) -> Any:
    token = getattr(route, "webhook_token", None)
    owner = next((d for d in reversed(_active) if token in d._by_token), None)
    if owner is None:
        if not _active:
            raise HarnessError("webhook request while no OfflineDiscord is active")
        owner = _active[-1]
    return await owner._webhook_request(route, **kwargs)


@contextlib.contextmanager
def patched_webhook_adapter(owner: OfflineDiscord) -> Iterator[None]:
    """Route ``AsyncWebhookAdapter.request`` (a class attribute) to ``owner`` while the block runs.

    Nested or concurrent harnesses share one patch; the original method is restored when the last one
    leaves. Requests are routed to the harness that issued the interaction token.
    """
    global _original_adapter_request
    if not _active:
        _original_adapter_request = AsyncWebhookAdapter.request
        AsyncWebhookAdapter.request = _fake_adapter_request  # type: ignore[method-assign]
    _active.append(owner)
    try:
        yield
    finally:
        _active.remove(owner)
        if not _active:
            AsyncWebhookAdapter.request = _original_adapter_request  # type: ignore[method-assign]
            _original_adapter_request = None


class NetworkBlocked(ConnectionError):
    """Raised by :func:`block_network` (an OSError, so code that handles network failures still works)."""


@contextlib.contextmanager
def block_network(attempts: list[str] | None = None) -> Iterator[list[str]]:
    """Make every outgoing IP connection and DNS lookup raise :class:`NetworkBlocked`.

    Attempts are also appended to the yielded list, because discord.py may swallow the exception inside a
    background task. Unix sockets (the event loop's self-pipe) stay allowed. Both socket's functions and the
    event loops' are guarded: uvloop (the bot's loop, bot.process.event_loop) connects and resolves in
    libuv, past the socket module.
    """
    seen = attempts if attempts is not None else []
    orig_connect, orig_connect_ex = socket.socket.connect, socket.socket.connect_ex
    orig_getaddrinfo, orig_create_connection = socket.getaddrinfo, socket.create_connection

    def guard(sock: Any, address: Any) -> None:
        if getattr(sock, "family", None) in (socket.AF_INET, socket.AF_INET6):
            seen.append(f"connect {address!r}")
            raise NetworkBlocked(f"network access attempted: connect {address!r}")

    def connect(sock: Any, address: Any) -> None:
        guard(sock, address)
        orig_connect(sock, address)

    def connect_ex(sock: Any, address: Any) -> int:
        guard(sock, address)
        return orig_connect_ex(sock, address)

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(f"getaddrinfo {host!r}")
        raise NetworkBlocked(f"network access attempted: DNS lookup of {host!r}")

    def create_connection(address: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(f"create_connection {address!r}")
        raise NetworkBlocked(f"network access attempted: create_connection {address!r}")

    socket.socket.connect = connect  # type: ignore[method-assign]
    socket.socket.connect_ex = connect_ex  # type: ignore[method-assign]
    socket.getaddrinfo = getaddrinfo
    socket.create_connection = create_connection
    try:
        with _loops_blocked(seen, guard):
            yield seen
    finally:
        socket.socket.connect = orig_connect  # type: ignore[method-assign]
        socket.socket.connect_ex = orig_connect_ex  # type: ignore[method-assign]
        socket.getaddrinfo = orig_getaddrinfo
        socket.create_connection = orig_create_connection


def _loop_classes() -> list[type[asyncio.AbstractEventLoop]]:
    classes: list[type[asyncio.AbstractEventLoop]] = [asyncio.BaseEventLoop]
    try:
        import uvloop
    except ImportError:  # Windows: asyncio's loop only
        return classes
    return [*classes, uvloop.Loop]


@contextlib.contextmanager
def _loops_blocked(seen: list[str], guard: Any) -> Iterator[None]:
    """The event loops' own ways out (``create_connection``, ``sock_connect``, ``getaddrinfo``) blocked as
    ``block_network`` blocks socket's; unix sockets still connect."""
    saved: list[tuple[type, str, Any]] = []

    def patch(cls: type, name: str, make: Any) -> None:
        saved.append((cls, name, cls.__dict__.get(name)))
        setattr(cls, name, make(getattr(cls, name)))

    def create_connection(original: Any) -> Any:
        async def blocked(loop: Any, factory: Any, host: Any = None, port: Any = None, **kw: Any) -> Any:
            if host is not None:
                seen.append(f"create_connection {(host, port)!r}")
                raise NetworkBlocked(f"network access attempted: create_connection {(host, port)!r}")
            if kw.get("sock") is not None:
                guard(kw["sock"], "(a socket given to create_connection)")
            return await original(loop, factory, host, port, **kw)

        return blocked

    def sock_connect(original: Any) -> Any:
        async def blocked(loop: Any, sock: Any, address: Any) -> Any:
            guard(sock, address)
            return await original(loop, sock, address)

        return blocked

    def getaddrinfo(original: Any) -> Any:
        async def blocked(loop: Any, host: Any, *args: Any, **kw: Any) -> Any:  # noqa: ARG001
            seen.append(f"getaddrinfo {host!r}")
            raise NetworkBlocked(f"network access attempted: DNS lookup of {host!r}")

        return blocked

    for cls in _loop_classes():
        patch(cls, "create_connection", create_connection)
        patch(cls, "sock_connect", sock_connect)
        patch(cls, "getaddrinfo", getaddrinfo)
    try:
        yield
    finally:
        for cls, name, original in reversed(saved):
            if original is None:
                delattr(cls, name)
            else:
                setattr(cls, name, original)


class _LogCapture(logging.Handler):
    """Collects ERROR records (discord.py reports callback exceptions only by logging them) and warnings."""

    def __init__(self, owner: OfflineDiscord) -> None:
        super().__init__(logging.WARNING)
        self.owner = owner
        self._last: logging.LogRecord | None = None

    def emit(self, record: logging.LogRecord) -> None:
        if record is self._last:  # propagated from a child of another watched logger
            return
        self._last = record
        current = _current.get()
        entry = LoggedError.from_record(record, current.result.interaction_id if current else None)
        if record.levelno >= logging.ERROR:
            self.owner._add_error(entry)
        else:
            self.owner.warnings.append(entry)


class OfflineDiscord(Interactions):
    """A fake Discord (one guild, channels, members, messages) with one real bot connected to it.

    ``bot_factory`` returns a fresh ``commands.Bot`` (sync or async); it is called again by
    :meth:`restart`, which replaces the bot while Discord's side (messages, buttons, members) persists.

    ``strict`` makes every interaction raise :class:`HarnessError` when the bot logged an error, broke a
    Discord limit or did not answer; pass ``check=False`` to a single call to inspect the result instead.
    Errors and violations nobody looked at are raised when the context exits.
    """

    async def __aenter__(self) -> OfflineDiscord:
        await self.start()
        return self

    async def __aexit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        await self.close()
        if exc_type is None and self.strict:
            self.raise_unreported()

    async def start(self) -> AnyBot:
        """Patch the seams, build the bot, log in (runs ``setup_hook``) and collect the command payload."""
        if self._stack is not None:
            raise HarnessError("OfflineDiscord already started")
        self._stack = contextlib.ExitStack()
        capture = _LogCapture(self)
        for name in self.logger_names:
            logger = logging.getLogger(name)
            logger.addHandler(capture)
            self._stack.callback(logger.removeHandler, capture)
        self._stack.enter_context(patched_webhook_adapter(self))
        self._tasks.install(asyncio.get_running_loop())
        self._stack.callback(self._tasks.uninstall)
        try:
            await self._start_bot()
        except BaseException:
            await self.close()
            raise
        return self.bot  # type: ignore[return-value]

    async def close(self) -> None:
        """Close the bot (always) and remove the patches."""
        try:
            await self._stop_bot()
        finally:
            if self._stack is not None:
                self._stack.close()
                self._stack = None

    async def restart(self, bot_factory: BotFactory | None = None) -> AnyBot:
        """Replace the bot with a brand-new object (a process restart); Discord's state is kept."""
        await self._stop_bot()
        if bot_factory is not None:
            self.bot_factory = bot_factory
        await self._start_bot()
        return self.bot  # type: ignore[return-value]

    async def revive(self, let_go: Callable[[AnyBot], Awaitable[None]] | None = None) -> AnyBot:
        """Start a brand-new bot after its process died at a request (a fault of kind ``"kill"``), Discord's
        state kept as in ``restart``. The dead bot is never closed: its tasks (every task started since the
        harness did, but the caller's) stop where they are, cancelled as the end of a process stops them,
        then ``let_go`` lets go of what the process held (its database connections and locks, its child
        processes: what the operating system takes back), and its HTTP session is closed."""
        if not self.dead or self.bot is None:
            raise HarnessError("revive() follows a kill; restart() replaces a bot that is alive")
        current = asyncio.current_task()
        left = [t for t in self._tasks.since(0) if t is not current and not t.done()]
        for task in left:
            task.cancel()
        if left:
            await asyncio.wait(left, timeout=self.settle_timeout)
        old, self.bot = self.bot, None
        if let_go is not None:
            await let_go(old)
        await old.http.close()
        self.dead = False
        await self._start_bot()
        return self.bot  # type: ignore[return-value]

    async def _start_bot(self) -> None:
        bot = self.bot_factory()
        if inspect.isawaitable(bot):
            bot = await bot
        self.bot = bot
        bot.http.request = self._http_request  # type: ignore[method-assign]
        bot.http.get_from_cdn = self._get_from_cdn  # type: ignore[method-assign]
        before = self._tasks.mark()
        await bot.login("offline-token")
        bot._connection._add_guild_from_data(self.guild_payload())  # type: ignore[arg-type]
        for gid in self.other_guilds:
            bot._connection._add_guild_from_data(self.guild_payload(gid))  # type: ignore[arg-type]
        self._collect_tree()
        if self.simulate_ready:
            # Not a real READY (no gateway): mark the client ready so wait_until_ready() returns.
            if bot._ready is not discord.utils.MISSING:
                bot._ready.set()
            bot.dispatch("ready")
        await self._settle(before)

    async def _stop_bot(self) -> None:
        bot, self.bot = self.bot, None
        if bot is not None and not bot.is_closed():
            await bot.close()
