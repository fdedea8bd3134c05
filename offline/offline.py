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
import contextvars
import copy
import inspect
import json
import logging
import re
import secrets
import shlex
import socket
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import aiohttp
import discord
from discord.ext import commands
from discord.webhook.async_ import AsyncWebhookAdapter

from . import limits
from .payloads import (
    ALL_PERMISSIONS,
    COMPONENTS_V2,
    DM,
    EPHEMERAL,
    LOADING,
    PRIVATE_THREAD,
    PUBLIC_THREAD,
    FakeUser,
    Snowflakes,
    app_info_json,
    attachment_json,
    dm_channel_json,
    guild_json,
    message_json,
    role_json,
    stable_id,
    text_channel_json,
    thread_json,
)
from .records import (
    HarnessError,
    InteractionResult,
    LoggedError,
    Request,
    SentFile,
    StoredMessage,
    pinged_users,
)

AnyBot = commands.Bot | commands.AutoShardedBot
BotFactory = Callable[[], "AnyBot | Awaitable[AnyBot]"]

# Names of the tasks discord.py starts to run handlers (see ENGINEERING-FACTS). View timeout tasks are
# deliberately absent: they never end.
DEFAULT_WATCHED_TASKS = (
    "CommandTree-invoker",
    "discord-ui-view-dispatch",
    "discord-ui-modal",
    "discord-ui-dynamic-item",
    "discord.py: on_",
)
ADMINISTRATOR = 1 << 3
PIN_MESSAGES = 1 << 51  # since February 2026 the only permission that lets a bot pin (not Manage Messages)
_MESSAGE_FLAGS_KEPT = EPHEMERAL | (1 << 2) | (1 << 12) | (1 << 15)  # ephemeral, suppress embeds/notifs, v2
_SUBCOMMAND, _GROUP = 1, 2
_SELECT_TYPES = {3, 5, 6, 7, 8}

# Which callback types Discord accepts for which interaction type (2 command, 3 component, 4 autocomplete,
# 5 modal submit). 6 and 7 on a modal submit additionally need the modal to come from a message.
_VALID_CALLBACKS = {2: {4, 5, 9}, 3: {4, 5, 6, 7, 9}, 4: {8}, 5: {4, 5, 6, 7}}

_current: contextvars.ContextVar[_Interaction | None] = contextvars.ContextVar(
    "offline_interaction", default=None
)


class _TaskLog:
    """The tasks created on the loop while the harness runs, each until it is done: which tasks a payload
    started are those created since a mark. Walking every task of the loop instead (``asyncio.all_tasks``)
    took a sixth of the loop's time with a hundred games acting at once (benchmarks/bench_bot.py)."""

    def __init__(self) -> None:
        self._next = 0
        self._live: dict[int, asyncio.Task[Any]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._previous: Any = None

    def install(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop, self._previous = loop, loop.get_task_factory()
        loop.set_task_factory(self._factory)

    def uninstall(self) -> None:
        if self._loop is not None:
            self._loop.set_task_factory(self._previous)
            self._loop = None

    def _factory(self, loop: asyncio.AbstractEventLoop, coro: Any, **kwargs: Any) -> asyncio.Task[Any]:
        if self._previous is not None:
            task: asyncio.Task[Any] = self._previous(loop, coro, **kwargs)
        else:
            task = asyncio.Task(coro, loop=loop, **kwargs)
        seq = self._next
        self._next += 1
        self._live[seq] = task
        task.add_done_callback(lambda _task: self._live.pop(seq, None))
        return task

    def mark(self) -> int:
        return self._next

    def since(self, mark: int) -> list[asyncio.Task[Any]]:
        """The tasks created since ``mark`` that are not done yet, newest first."""
        out = []
        for seq in reversed(self._live):
            if seq < mark:
                break
            out.append(self._live[seq])
        return out


def _copy(value: Any) -> Any:
    """A deep copy of JSON-like data (dicts, lists, scalars): what ``copy.deepcopy`` gives for payloads, in a
    fraction of its time (benchmarks drive thousands of interactions through the fake)."""
    kind = type(value)
    if kind is dict:
        return {k: _copy(v) for k, v in value.items()}
    if kind is list:
        return [_copy(v) for v in value]
    if kind in (str, int, float, bool, type(None), bytes):
        return value
    return copy.deepcopy(value)


@dataclass
class _Interaction:
    """Fake-Discord-side bookkeeping of one interaction (the token's life)."""

    result: InteractionResult
    user: FakeUser
    token: str
    started: float
    message_id: int | None = None  # the message a component/modal-from-component lives on
    original_id: int | None = None  # the response message (@original)
    acknowledged: bool = False
    deferred_thinking: bool = False
    done: bool = False


@dataclass
class _PendingModal:
    data: dict[str, Any]
    channel_id: int
    message_id: int | None


def _fake_response(status: int, reason: str) -> Any:
    return SimpleNamespace(status=status, reason=reason)


def _http_error(status: int, code: int, message: str) -> discord.HTTPException:
    reasons = {400: "Bad Request", 403: "Forbidden", 404: "Not Found", 500: "Internal Server Error",
               502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout"}  # fmt: skip
    response = _fake_response(status, reasons.get(status, "Error"))
    payload = {"code": code, "message": message}
    if status == 404:
        return discord.NotFound(response, payload)
    if status == 403:
        return discord.Forbidden(response, payload)
    if status >= 500:
        return discord.DiscordServerError(response, payload)
    return discord.HTTPException(response, payload)


class GlobalLimit:
    """Discord's global rate limit of a bot (50 requests per second; interaction answers are exempt, and
    they do not pass here): a token bucket of ``rate`` tokens a second holding at most ``burst``. A request
    beyond it is answered 429 with the Retry-After of the next token (``OfflineDiscord.limit_globally``).
    """

    def __init__(self, rate: float = 50.0, burst: float | None = None) -> None:
        self.rate = rate
        self.burst = rate if burst is None else burst
        self.tokens = self.burst
        self.at: float | None = None
        self.passed = 0
        self.refused = 0

    def take(self, now: float) -> float | None:
        """None when the request may pass, else the seconds until it may."""
        if self.at is not None:
            self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            self.passed += 1
            return None
        self.refused += 1
        return max(0.001, (1.0 - self.tokens) / self.rate)


def _too_many(retry_after: float) -> discord.HTTPException:
    """A 429 as Discord sends it, with Retry-After (discord.py gives up on it when its patience is out)."""
    headers = {"Retry-After": f"{retry_after:.3f}"}
    response: Any = SimpleNamespace(status=429, reason="Too Many Requests", headers=headers)
    body = {"code": 0, "message": "You are being rate limited.", "global": True}
    return discord.HTTPException(response, body)


FAULTS = ("400", "500", "502", "503", "504", "429", "403", "404", "timeout", "disconnect")


@dataclass
class Fault:
    """A failure to inject at the HTTP seam (``OfflineDiscord.fail``), as discord.py would raise it.

    ``kind`` is a request kind (``channel_message``, ``edit_message``, …, or ``*``); ``when`` narrows it
    further. ``lost_reply``: Discord did the work, but the answer never came back (a timeout or dropped
    connection after the request arrived), so a retry meets what the first attempt made.
    """

    kind: str
    error: str
    times: int = 1
    retry_after: float = 1.0
    lost_reply: bool = False
    when: Callable[[Request], bool] | None = None
    hits: list[Request] = field(default_factory=list)
    code: int = 0  # Discord's JSON error code, e.g. 30046 (the edit cap of messages older than an hour)

    def matches(self, req: Request) -> bool:
        return (
            len(self.hits) < self.times
            and self.kind in ("*", req.kind)
            and (self.when is None or self.when(req))
        )

    def exception(self) -> BaseException:
        if self.error == "timeout":
            return TimeoutError()
        if self.error == "disconnect":
            return aiohttp.ServerDisconnectedError()
        if self.error == "429":
            # What discord.py raises when a rate limit outlasts its own patience (max_ratelimit_timeout).
            return discord.RateLimited(self.retry_after)
        status = int(self.error)
        return _http_error(status, self.code, f"injected {status}")


_ROUTE_RE_CACHE: dict[str, re.Pattern[str]] = {}


def route_params(route: Any) -> dict[str, str]:
    """The ``{placeholders}`` of a discord.py Route, read back from its formatted URL."""
    pattern = _ROUTE_RE_CACHE.get(route.path)
    if pattern is None:
        regex = re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(route.path))
        pattern = _ROUTE_RE_CACHE[route.path] = re.compile(regex + "$")
    url = route.url.split("?", 1)[0]
    base = discord.http.Route.BASE
    m = pattern.match(url[len(base) :] if url.startswith(base) else url)
    return m.groupdict() if m else {}


def parse_multipart(form: Iterable[dict[str, Any]]) -> tuple[dict[str, Any] | None, list[SentFile]]:
    """Split discord.py's multipart form into the JSON body and the uploaded files (read, then rewound)."""
    payload = None
    files: list[SentFile] = []
    for part in form:
        if part.get("name") == "payload_json":
            payload = json.loads(part["value"])
            continue
        value: Any = part.get("value")
        if hasattr(value, "read"):
            pos = value.tell() if hasattr(value, "tell") else None
            data = value.read()
            if pos is not None:
                value.seek(pos)
        else:
            data = value if isinstance(value, bytes) else str(value).encode()
        files.append(SentFile(part.get("filename") or part.get("name", ""), data))
    # Descriptions travel in payload_json's attachments (under "data" for callbacks), not in the file parts.
    body = (payload or {}).get("data") if isinstance((payload or {}).get("data"), dict) else payload
    for a in (body or {}).get("attachments") or []:
        idx = a.get("id")
        if isinstance(idx, int) and 0 <= idx < len(files):
            files[idx].description = a.get("description")
    return payload, files


# --------------------------------------------------------------------------------------------- seams


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
    background task. Unix sockets (the event loop's self-pipe) stay allowed.
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
        yield seen
    finally:
        socket.socket.connect = orig_connect  # type: ignore[method-assign]
        socket.socket.connect_ex = orig_connect_ex  # type: ignore[method-assign]
        socket.getaddrinfo = orig_getaddrinfo
        socket.create_connection = orig_create_connection


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


# ------------------------------------------------------------------------------------------ the world


class OfflineDiscord:
    """A fake Discord (one guild, channels, members, messages) with one real bot connected to it.

    ``bot_factory`` returns a fresh ``commands.Bot`` (sync or async); it is called again by
    :meth:`restart`, which replaces the bot while Discord's side (messages, buttons, members) persists.

    ``strict`` makes every interaction raise :class:`HarnessError` when the bot logged an error, broke a
    Discord limit or did not answer; pass ``check=False`` to a single call to inspect the result instead.
    Errors and violations nobody looked at are raised when the context exits.
    """

    def __init__(
        self,
        bot_factory: BotFactory,
        *,
        guild_id: int | None = None,
        channel_id: int | None = None,
        guild_name: str = "Offline guild",
        channel_name: str = "game",
        bot_name: str = "Alexandros",
        loggers: Iterable[str] = (),
        strict: bool = True,
        response_deadline: float | None = 3.0,
        settle_timeout: float = 10.0,
        watched_tasks: Iterable[str] = (),
        network_delay: float = 0.0,
        simulate_ready: bool = True,
        app_permissions: int = ALL_PERMISSIONS & ~ADMINISTRATOR,
    ) -> None:
        self.bot_factory = bot_factory
        self.ids = Snowflakes()
        self.app_id = stable_id("application", bot_name)
        self.bot_user = FakeUser(self.app_id, bot_name, bot=True)
        self.owner = FakeUser(stable_id("owner"), "owner", permissions=ALL_PERMISSIONS)
        self.guild_id = guild_id or stable_id("guild", guild_name)
        self.guild_name = guild_name
        self.channel_id = channel_id or stable_id("channel", channel_name)
        self.strict = strict
        self.response_deadline = response_deadline
        self.settle_timeout = settle_timeout
        self.watched_tasks = tuple(DEFAULT_WATCHED_TASKS) + tuple(watched_tasks)
        self.network_delay = network_delay
        self.simulate_ready = simulate_ready
        self.app_permissions = app_permissions
        self.logger_names = ("discord", *loggers)

        self.users: dict[int, FakeUser] = {self.owner.id: self.owner, self.bot_user.id: self.bot_user}
        self.roles: dict[int, dict[str, Any]] = {
            self.guild_id: role_json(self.guild_id, "@everyone"),
        }
        self.channels: dict[int, dict[str, Any]] = {}
        self.other_guilds: dict[int, str] = {}  # more guilds (add_guild): same bot, same members
        self.guild_locales: dict[int, str] = {}  # a guild's preferred locale, if not en-US (set_guild_locale)
        self.add_channel(channel_name, channel_id=self.channel_id)
        self.messages: dict[int, StoredMessage] = {}
        self._by_channel: dict[int, list[StoredMessage]] = {}  # each channel's messages, oldest first
        self.requests: list[Request] = []
        self.history: list[InteractionResult] = []
        self.errors: list[LoggedError] = []
        self.warnings: list[LoggedError] = []
        self.violations: list[str] = []  # violations outside any interaction (startup, background tasks)
        self.unhandled: list[Request] = []
        self.tree_payload: dict[int | None, list[dict[str, Any]]] = {}
        self.synced: dict[int | None, list[dict[str, Any]]] = {}
        self.cdn: dict[str, bytes] = {}
        self._interactions: dict[int, _Interaction] = {}
        self._tasks = _TaskLog()
        self._by_token: dict[str, _Interaction] = {}
        self._modals: dict[int, list[_PendingModal]] = {}
        self._unreported_errors: list[LoggedError] = []
        self._seq = 0
        self._stack: contextlib.ExitStack | None = None
        self.bot: AnyBot | None = None
        self.faults: list[Fault] = []
        self._nonces: dict[tuple[int, str], int] = {}  # (channel, enforced nonce) -> message id
        self.global_limit: GlobalLimit | None = None  # Discord's 50 requests/s per bot, when modelled

    # ------------------------------------------------------------------ lifecycle

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

    # ------------------------------------------------------------------ world building

    def member(
        self, name: str, *, roles: Iterable[int] = (), permissions: int | None = None, admin: bool = False
    ) -> FakeUser:
        """A guild member with an id derived from ``name`` (the same in every run and after restarts)."""
        uid = stable_id("user", name)
        user = self.users.get(uid)
        if user is None:
            user = FakeUser(uid, name)
            self.users[uid] = user
        if roles:
            user.roles = list(roles)
        if permissions is not None:
            user.permissions = permissions
        if admin:
            user.permissions = ALL_PERMISSIONS
        return user

    user = member

    def add_role(self, name: str, *, permissions: int = 0) -> int:
        rid = stable_id("role", name)
        self.roles[rid] = role_json(rid, name, permissions=permissions, position=len(self.roles))
        return rid

    def add_guild(self, name: str) -> int:
        """A second (third…) guild the bot is in, with its @everyone role; add channels with
        ``add_channel(..., guild_id=)``. Members are shared: a FakeUser has the same permissions in each.
        Call before the bot starts, or ``restart`` it, so that its cache knows the guild."""
        gid = stable_id("guild", name)
        self.other_guilds[gid] = name
        self.roles[gid] = role_json(gid, "@everyone")
        return gid

    def set_guild_locale(self, locale: str, guild_id: int | None = None) -> None:
        """The server's preferred locale ("de"): every interaction from it carries it as ``guild_locale``."""
        self.guild_locales[guild_id or self.guild_id] = locale

    def add_channel(self, name: str, *, channel_id: int | None = None, guild_id: int | None = None) -> int:
        cid = channel_id or stable_id("channel", name)
        gid = guild_id or self.guild_id
        self.channels[cid] = text_channel_json(cid, gid, name, position=len(self.channels))
        return cid

    def _guild_of(self, channel: dict[str, Any]) -> int | None:
        """The guild a channel belongs to (None for a DM)."""
        if channel.get("type", 0) == DM:
            return None
        return int(channel.get("guild_id") or self.guild_id)

    def add_thread(self, name: str, *, parent_id: int | None = None, private: bool = False) -> int:
        """A thread that already exists in the guild. Threads the bot creates are added to ``channels``."""
        tid = stable_id("thread", name)
        self.channels[tid] = thread_json(
            tid, self.guild_id, parent_id or self.channel_id, name, owner_id=self.owner.id, private=private
        )
        return tid

    def dm_channel(self, user: FakeUser) -> int:
        cid = stable_id("dm", user.id)
        self.channels.setdefault(cid, dm_channel_json(cid, user))
        return cid

    def guild_payload(self, guild_id: int | None = None) -> dict[str, Any]:
        gid = guild_id or self.guild_id
        mine = [c for c in self.channels.values() if c["type"] != DM and self._guild_of(c) == gid]
        guild_channels = [c for c in mine if c["type"] not in (PUBLIC_THREAD, PRIVATE_THREAD)]
        threads = [c for c in mine if c["type"] in (PUBLIC_THREAD, PRIVATE_THREAD)]
        members = [self.bot_user.member_json()]
        roles = [r for rid, r in self.roles.items() if rid == gid or rid not in self.other_guilds]
        if gid != self.guild_id:
            roles = [self.roles[gid]]
        return guild_json(
            gid,
            self.other_guilds.get(gid, self.guild_name),
            owner_id=self.owner.id,
            roles=roles,
            channels=_copy(guild_channels),
            threads=_copy(threads),
            members=members,
        )

    # ------------------------------------------------------------------ queries

    def message(self, message_id: int | StoredMessage) -> StoredMessage:
        mid = message_id.id if isinstance(message_id, StoredMessage) else int(message_id)
        try:
            return self.messages[mid]
        except KeyError:
            raise HarnessError(f"no message {mid}") from None

    def channel_messages(
        self,
        channel_id: int | None = None,
        *,
        include_ephemeral: bool = False,
        visible_to: FakeUser | None = None,
    ) -> list[StoredMessage]:
        """Current messages of a channel, oldest first: what the channel shows now.

        Ephemeral messages are left out unless ``include_ephemeral`` or they are ``visible_to`` that user.
        """
        cid = channel_id or self.channel_id
        out = []
        for m in self._by_channel.get(cid, ()):
            if m.deleted:
                continue
            if m.ephemeral and not include_ephemeral and not (visible_to and m.ephemeral_to == visible_to.id):
                continue
            out.append(m)
        return out

    def last_message(self, channel_id: int | None = None) -> StoredMessage:
        msgs = self.channel_messages(channel_id)
        if not msgs:
            raise HarnessError("the channel has no public message")
        return msgs[-1]

    def find_message(
        self, custom_id: str, *, user: FakeUser | None = None, channel_id: int | None = None
    ) -> StoredMessage:
        """The newest message (visible to ``user``) that has a component with this custom_id."""
        for m in reversed(list(self.messages.values())):
            if m.deleted or (channel_id and m.channel_id != channel_id):
                continue
            if m.ephemeral and user is not None and m.ephemeral_to != user.id:
                continue
            if m.component(custom_id) is not None:
                return m
        raise HarnessError(f"no message has a component with custom_id {custom_id!r}")

    def mark(self) -> int:
        """A position in the request log, for :meth:`requests_since` (e.g. around a background job)."""
        return len(self.requests)

    def requests_since(self, mark: int) -> list[Request]:
        return self.requests[mark:]

    async def wait_for_tasks(self, *name_prefixes: str, timeout: float | None = None) -> None:
        """Wait until no running task's name starts with one of the prefixes (the bot's own jobs)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + (self.settle_timeout if timeout is None else timeout)
        current = asyncio.current_task()
        while True:
            pending = [
                t
                for t in asyncio.all_tasks()
                if t is not current and not t.done() and t.get_name().startswith(name_prefixes)
            ]
            if not pending:
                return
            if loop.time() >= deadline:
                raise HarnessError(f"tasks still running: {sorted(t.get_name() for t in pending)}")
            await asyncio.wait(pending, timeout=deadline - loop.time())

    def take_errors(self) -> list[LoggedError]:
        """Return the logged errors not yet reported, and forget them (for tests of the error path)."""
        out, self._unreported_errors = self._unreported_errors, []
        return out

    def raise_unreported(self) -> None:
        problems = [str(e) for e in self._unreported_errors] + self.violations
        self._unreported_errors = []
        self.violations = []
        if problems:
            raise HarnessError("problems outside any checked interaction:\n" + "\n".join(problems))

    # ------------------------------------------------------------------ the command tree

    def _command_id(self, scope: int | None, name: str, ctype: int) -> int:
        return stable_id("command", scope, name, ctype)

    def refresh_tree(self) -> None:
        """Collect the command payload again (after the bot added or removed commands at runtime)."""
        self._collect_tree()

    def _collect_tree(self) -> None:
        bot = self.bot
        assert bot is not None
        tree = bot.tree
        scopes: list[int | None] = [None, *tree._guild_commands.keys()]
        scopes += [g for (_, g, _) in tree._context_menus if g is not None and g not in scopes]
        self.tree_payload = {}
        for scope in scopes:
            cmds = tree._get_all_commands(guild=None if scope is None else discord.Object(scope))
            payload = [self._with_ids(c.to_dict(tree), scope) for c in cmds]
            self.tree_payload[scope] = payload
            for v in limits.check_command_tree(payload):
                text = f"command tree ({'global' if scope is None else scope}): {v}"
                if text not in self.violations:  # a restart collects the same tree again
                    self.violations.append(text)

    def _with_ids(self, command: dict[str, Any], scope: int | None) -> dict[str, Any]:
        out = dict(command)
        out.setdefault("type", 1)
        out.setdefault("description", "")
        out.setdefault("default_member_permissions", None)
        out.setdefault("nsfw", False)
        out["id"] = str(self._command_id(scope, out["name"], out["type"]))
        out["application_id"] = str(self.app_id)
        out["version"] = str(stable_id("version", out["name"]))
        if scope is not None:
            out["guild_id"] = str(scope)
        return out

    def command_paths(self, *, channel_id: int | None = None) -> list[str]:
        """Every invocable slash command path visible in the channel, e.g. ``["demo new", "demo move"]``."""
        in_guild = self._channel(channel_id)["type"] != DM
        scopes: list[int | None] = [self._guild_of(self._channel(channel_id)), None] if in_guild else [None]
        out: list[str] = []

        def walk(prefix: str, node: dict[str, Any]) -> None:
            subs = [o for o in node.get("options") or [] if o["type"] in (_SUBCOMMAND, _GROUP)]
            if not subs:
                out.append(prefix)
            for sub in subs:
                walk(f"{prefix} {sub['name']}", sub)

        for scope in scopes:
            for c in self.tree_payload.get(scope, []):
                if c["type"] == 1:
                    walk(c["name"], c)
        return sorted(set(out))

    def command_options(self, path: str, *, channel_id: int | None = None) -> list[dict[str, Any]]:
        """The option definitions (name, type, required, choices, ...) of one command path."""
        _, leaf, _, _ = self._resolve_command(path, self._channel(channel_id))
        return list(leaf.get("options") or [])

    def command_payload(self, path: str, *, channel_id: int | None = None) -> dict[str, Any]:
        """The registered payload of the root command of ``path`` (guild commands shadow global ones)."""
        root, _, _, _ = self._resolve_command(path, self.channels[channel_id or self.channel_id])
        return root

    def _resolve_command(
        self, path: str, channel: dict[str, Any]
    ) -> tuple[dict[str, Any], dict[str, Any], list[tuple[str, int]], int | None]:
        tokens = [t for t in re.split(r"[ ./]+", path.strip()) if t]
        if not tokens:
            raise HarnessError("empty command path")
        in_guild = channel["type"] != DM
        scopes: list[int | None] = [self._guild_of(channel), None] if in_guild else [None]
        root = None
        scope = None
        for scope in scopes:
            root = next(
                (c for c in self.tree_payload.get(scope, []) if c["name"] == tokens[0] and c["type"] == 1),
                None,
            )
            if root is not None:
                break
        if root is None:
            raise HarnessError(
                f"no slash command /{tokens[0]} is registered for this channel "
                f"(known: {sorted(c['name'] for s in self.tree_payload.values() for c in s)})"
            )
        if not in_guild:
            contexts = root.get("contexts")
            if root.get("dm_permission") is False or (contexts is not None and 1 not in contexts):
                raise HarnessError(f"/{tokens[0]} is not available in DMs")
        node = root
        chain: list[tuple[str, int]] = []
        for tok in tokens[1:]:
            sub = next(
                (o for o in node.get("options") or [] if o["name"] == tok and o["type"] in (1, 2)), None
            )
            if sub is None:
                raise HarnessError(f"/{' '.join(tokens)}: no subcommand {tok!r}")
            chain.append((tok, sub["type"]))
            node = sub
        if any(o["type"] in (1, 2) for o in node.get("options") or []):
            raise HarnessError(f"/{' '.join(tokens)} is a group; name a subcommand")
        return root, node, chain, scope

    # ------------------------------------------------------------------ interactions: public API

    async def slash(
        self,
        user: FakeUser,
        command: str,
        options: dict[str, Any] | None = None,
        *,
        channel_id: int | None = None,
        check: bool | None = None,
        wait: bool = True,
        **kw_options: Any,
    ) -> InteractionResult:
        """Run a slash command, e.g. ``slash(alice, "alexandros new", players=3)``.

        ``command`` is the command path with spaces, dots or slashes. Options are given as keywords (or in
        ``options`` when a name clashes); users may be :class:`FakeUser` or ids, attachments
        ``SentFile``/``(filename, bytes)``. Values are checked the way the Discord client would
        (required options, choices, min/max) so a test cannot send what no user could.
        """
        channel = self._channel(channel_id)
        root, leaf, chain, scope = self._resolve_command(command, channel)
        self._check_can_see(user, root)
        given = {**(options or {}), **kw_options}
        resolved: dict[str, dict[str, Any]] = {}
        opts = self._build_options(leaf, given, resolved, in_guild=channel["type"] != DM, strict=True)
        data = self._command_data(root, chain, opts, scope, resolved)
        payload = self._interaction_payload(2, user, int(channel["id"]), data)
        return await self.dispatch(payload, user, check=check, wait=wait)

    def parse_command(self, text: str, *, channel_id: int | None = None) -> tuple[str, dict[str, Any]]:
        """Parse what a user would type, ``/demo new players:3 note:"two words" who:@bob``.

        Returns the command path and typed option values (integers, numbers, booleans, members by
        ``@name`` or ``<@id>``, channels by ``#name``, roles by ``@name``), ready for :meth:`slash`.
        """
        try:
            tokens = shlex.split(text.strip().lstrip("/"))
        except ValueError as exc:
            raise HarnessError(f"cannot parse {text!r}: {exc}") from None
        split = next((i for i, t in enumerate(tokens) if ":" in t), len(tokens))
        path = " ".join(tokens[:split])
        defs = {o["name"]: o for o in self.command_options(path, channel_id=channel_id)}
        options: dict[str, Any] = {}
        for token in tokens[split:]:
            name, _, raw = token.partition(":")
            if name not in defs:
                raise HarnessError(f"/{path} has no option {name!r}; options: {sorted(defs)}")
            options[name] = self._parse_value(defs[name]["type"], raw)
        return path, options

    def _parse_value(self, otype: int, raw: str) -> Any:
        try:
            if otype == 4:
                return int(raw)
            if otype == 10:
                return float(raw)
        except ValueError:
            raise HarnessError(f"{raw!r} is not a number") from None
        if otype == 5:
            return raw.lower() in ("true", "yes", "1", "on")
        if otype in (6, 8, 9):
            m = re.fullmatch(r"<@[!&]?(\d+)>", raw)
            if m:
                return int(m[1])
            name = raw.lstrip("@")
            role = next((int(r["id"]) for r in self.roles.values() if r["name"] == name), None)
            if otype != 6 and role is not None:
                return role
            return self.member(name)
        if otype == 7:
            name = raw.lstrip("#")
            found = [int(c["id"]) for c in self.channels.values() if c.get("name") == name]
            if not found:
                raise HarnessError(f"no channel named {name!r}")
            return found[0]
        return raw

    async def slash_text(self, user: FakeUser, text: str, **kwargs: Any) -> InteractionResult:
        """:meth:`slash` from a typed line (see :meth:`parse_command`), for consoles and readable tests."""
        path, options = self.parse_command(text, channel_id=kwargs.get("channel_id"))
        return await self.slash(user, path, options, **kwargs)

    async def autocomplete(
        self,
        user: FakeUser,
        command: str,
        focused: str,
        value: str = "",
        options: dict[str, Any] | None = None,
        *,
        channel_id: int | None = None,
        check: bool | None = None,
    ) -> list[dict[str, Any]]:
        """Type ``value`` into option ``focused`` of ``command``; returns the choices the bot offered.

        ``options`` holds the other options already filled in (and may hold the focused value instead of
        ``value``). The full :class:`InteractionResult` is ``self.history[-1]``.
        """
        channel = self._channel(channel_id)
        root, leaf, chain, scope = self._resolve_command(command, channel)
        self._check_can_see(user, root)
        given = dict(options or {})
        typed = str(given.pop(focused, value))
        odef = next((o for o in leaf.get("options") or [] if o["name"] == focused), None)
        if odef is None:
            raise HarnessError(f"/{command} has no option {focused!r}")
        if not odef.get("autocomplete"):
            raise HarnessError(f"option {focused!r} of /{command} has no autocomplete")
        resolved: dict[str, dict[str, Any]] = {}
        opts = self._build_options(leaf, given, resolved, in_guild=channel["type"] != DM, strict=False)
        opts.append({"name": focused, "type": odef["type"], "value": typed, "focused": True})
        data = self._command_data(root, chain, opts, scope, resolved)
        payload = self._interaction_payload(4, user, int(channel["id"]), data)
        result = await self.dispatch(payload, user, check=check)
        return result.choices or []

    async def click(
        self,
        user: FakeUser,
        message_id: int | StoredMessage | None,
        custom_id: str,
        *,
        check: bool | None = None,
        wait: bool = True,
    ) -> InteractionResult:
        """Click the button ``custom_id`` on a message (``None``: the newest message that has it)."""
        msg, comp = self._component(user, message_id, custom_id)
        if comp.get("type") != 2:
            raise HarnessError(f"{custom_id!r} is not a button (type {comp.get('type')})")
        data = {"custom_id": custom_id, "component_type": 2}
        if "id" in comp:
            data["id"] = comp["id"]
        payload = self._interaction_payload(3, user, msg.channel_id, data, message=msg)
        return await self.dispatch(payload, user, check=check, message_id=msg.id, wait=wait)

    async def select(
        self,
        user: FakeUser,
        message_id: int | StoredMessage | None,
        custom_id: str,
        values: Iterable[Any],
        *,
        check: bool | None = None,
        wait: bool = True,
    ) -> InteractionResult:
        """Submit a select menu with ``values`` (option values; users/roles/channels for entity selects)."""
        msg, comp = self._component(user, message_id, custom_id)
        ctype = comp.get("type")
        if ctype not in _SELECT_TYPES:
            raise HarnessError(f"{custom_id!r} is not a select (type {ctype})")
        vals = list(values)
        lo, hi = comp.get("min_values", 1), comp.get("max_values", 1)
        if not lo <= len(vals) <= hi:
            raise HarnessError(f"select {custom_id!r} takes {lo}..{hi} values, got {len(vals)}")
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": ctype}
        resolved: dict[str, dict[str, Any]] = {}
        if ctype == 3:
            allowed = [o["value"] for o in comp.get("options") or []]
            bad = [v for v in vals if v not in allowed]
            if bad:
                raise HarnessError(f"select {custom_id!r} has no option(s) {bad}; options are {allowed}")
            data["values"] = vals
        else:
            data["values"] = [self._resolve_entity(v, resolved, in_guild=True) for v in vals]
            data["resolved"] = resolved
        payload = self._interaction_payload(3, user, msg.channel_id, data, message=msg)
        return await self.dispatch(payload, user, check=check, message_id=msg.id, wait=wait)

    async def modal_submit(
        self,
        user: FakeUser,
        values: dict[str, Any] | None = None,
        *,
        custom_id: str | None = None,
        check: bool | None = None,
        wait: bool = True,
        **kw_values: Any,
    ) -> InteractionResult:
        """Fill in and submit the last modal the bot showed ``user`` (or the one with ``custom_id``).

        ``values`` maps text-input custom_ids to text (select custom_ids to lists of values). Inputs left
        out keep their pre-filled value; required empty inputs and lengths are checked as the client does.
        """
        shown = self._modals.get(user.id) or []
        pending = next((m for m in reversed(shown) if custom_id in (None, m.data.get("custom_id"))), None)
        if pending is None:
            raise HarnessError(
                f"no modal{'' if custom_id is None else ' ' + repr(custom_id)} is open for {user.name}"
            )
        given = {**(values or {}), **kw_values}
        unknown = set(given) - {
            c.get("custom_id") for c in limits._walk(pending.data.get("components") or [])
        }
        if unknown:
            raise HarnessError(f"modal {pending.data.get('custom_id')!r} has no input(s) {sorted(unknown)}")
        resolved: dict[str, Any] = {}
        components = self._modal_components(pending.data, given, resolved)
        shown.remove(pending)
        msg = self.messages.get(pending.message_id) if pending.message_id else None
        data: dict[str, Any] = {"custom_id": pending.data["custom_id"], "components": components}
        if resolved:
            data["resolved"] = resolved
        payload = self._interaction_payload(5, user, pending.channel_id, data, message=msg)
        return await self.dispatch(payload, user, check=check, message_id=pending.message_id, wait=wait)

    async def stale(
        self,
        user: FakeUser,
        itype: int,
        data: dict[str, Any],
        *,
        channel_id: int | None = None,
        message: StoredMessage | None = None,
        check: bool | None = None,
    ) -> InteractionResult:
        """An interaction the current bot did not offer, as Discord still delivers it: a component of a
        message an older version of the bot sent (``itype`` 3, on ``message``), or the submit of a modal
        it showed before a restart (``itype`` 5). ``data`` is sent as given (custom_id, values,
        components)."""
        cid = message.channel_id if message is not None else int(self._channel(channel_id)["id"])
        payload = self._interaction_payload(itype, user, cid, data, message=message)
        mid = message.id if message is not None else None
        return await self.dispatch(payload, user, check=check, message_id=mid)

    async def gateway_event(self, event: str, data: dict[str, Any]) -> None:
        """Feed a raw gateway event (``"MESSAGE_DELETE"``, ``"THREAD_DELETE"``…) and wait for its listeners.

        Errors the listeners log are reported when the harness closes (or with :meth:`take_errors`).
        """
        if self.bot is None:
            raise HarnessError("the bot is not running")
        parser = self.bot._connection.parsers.get(event)
        if parser is None:
            raise HarnessError(f"discord.py has no parser for gateway event {event!r}")
        before = self._tasks.mark()
        parser(data)
        await self._settle(before)

    async def delete_message(self, message_id: int | StoredMessage) -> None:
        """A user (a moderator) deletes a message: it disappears and the bot gets MESSAGE_DELETE."""
        msg = self.message(message_id)
        msg.deleted = True
        data = {"id": str(msg.id), "channel_id": str(msg.channel_id)}
        if "guild_id" in msg.json:
            data["guild_id"] = msg.json["guild_id"]
        await self.gateway_event("MESSAGE_DELETE", data)

    def open_modal(self, user: FakeUser) -> dict[str, Any] | None:
        """The modal currently shown to ``user`` (as the bot sent it), if any."""
        shown = self._modals.get(user.id) or []
        return shown[-1].data if shown else None

    # ------------------------------------------------------------------ interactions: dispatch

    async def dispatch(
        self,
        payload: dict[str, Any],
        user: FakeUser,
        *,
        check: bool | None = None,
        message_id: int | None = None,
        expect_answer: bool = True,
        wait: bool = True,
    ) -> InteractionResult:
        """Feed a raw INTERACTION_CREATE payload to the bot and wait until its handlers finish.

        ``check`` (default: the harness's ``strict``) raises :class:`HarnessError` on logged errors, limit
        violations or a missing answer. ``wait=False`` returns as soon as the interaction is answered, for
        handlers that stay suspended on purpose (``await view.wait()``); what they do later is still
        recorded in ``requests`` and in this result's ``requests``.
        """
        if check is None:
            check = self.strict
        bot = self.bot
        if bot is None:
            raise HarnessError("the bot is not running")
        iid = int(payload["id"])
        result = InteractionResult(iid, payload["type"], user.id, int(payload["channel_id"]), payload)
        inter = _Interaction(result, user, payload["token"], time.monotonic(), message_id=message_id)
        self._interactions[iid] = inter
        self._by_token[inter.token] = inter
        before = self._tasks.mark()
        reset = _current.set(inter)
        try:
            bot._connection.parse_interaction_create(payload)  # type: ignore[arg-type]
        finally:
            _current.reset(reset)
        try:
            await self._settle(before, until=None if wait else (lambda: inter.acknowledged))
        finally:
            inter.done = True
        result.duration = time.monotonic() - inter.started
        if inter.original_id is not None:
            result.response_message = self.messages.get(inter.original_id)
        result.errors = [e for e in self.errors if e.interaction_id == iid]
        self._unreported_errors = [e for e in self._unreported_errors if e.interaction_id != iid]
        result.violations += [f"#{r.seq} {r.kind}: {v}" for r in result.requests for v in r.violations]
        result.warnings = [w for w in self.warnings if w.interaction_id == iid]
        if expect_answer and not result.answered:
            result.violations.append(
                "the interaction was not answered (the user sees 'This interaction failed')"
                + self._unanswered_hint(payload)
            )
        self.history.append(result)
        if check and (result.errors or result.violations):
            problems = [str(e) for e in result.errors] + result.violations
            raise HarnessError(
                f"interaction {iid} (type {result.interaction_type}) failed:\n" + "\n".join(problems), result
            )
        return result

    def _unanswered_hint(self, payload: dict[str, Any]) -> str:
        """Why discord.py may have dropped the interaction silently (best effort, reads private state)."""
        data = payload.get("data") or {}
        try:
            store = self.bot._connection._view_store  # type: ignore[union-attr]
            if payload["type"] == 3:
                cid, key = data["custom_id"], (data["component_type"], data["custom_id"])
                if any(p.fullmatch(cid) for p in store._dynamic_items):
                    return ""
                mid = int(payload["message"]["id"]) if "message" in payload else None
                if key in store._views.get(mid, {}) or key in store._views.get(None, {}):
                    return ""
                return f"; no View or DynamicItem of the running bot handles custom_id {cid!r}"
            if payload["type"] == 5 and data["custom_id"] not in store._modals:
                return f"; the running bot has no modal {data['custom_id']!r} (shown by an earlier process?)"
        except (AttributeError, KeyError, TypeError):
            return ""
        return ""

    def _watched(self, task: asyncio.Task[Any]) -> bool:
        return task.get_name().startswith(self.watched_tasks)

    async def _settle(self, before: int, until: Callable[[], bool] | None = None) -> None:
        """Wait for the watched handler tasks started since the mark ``before`` (and those they start)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.settle_timeout
        current = asyncio.current_task()
        while True:
            pending = [
                t for t in self._tasks.since(before) if t is not current and not t.done() and self._watched(t)
            ]
            if not pending or (until is not None and until()):
                return
            remaining = deadline - loop.time()
            if remaining <= 0:
                names = sorted(t.get_name() for t in pending)
                raise HarnessError(
                    f"handlers still running after {self.settle_timeout}s: {names} "
                    "(a handler awaiting a later interaction needs wait=False)"
                )
            # With a stop condition, poll it between short waits.
            await asyncio.wait(pending, timeout=remaining if until is None else min(remaining, 0.005))

    def _add_error(self, error: LoggedError) -> None:
        self.errors.append(error)
        self._unreported_errors.append(error)

    # ------------------------------------------------------------------ payload builders

    def _channel(self, channel_id: int | None) -> dict[str, Any]:
        cid = channel_id or self.channel_id
        try:
            return self.channels[cid]
        except KeyError:
            raise HarnessError(f"unknown channel {cid}") from None

    def _check_can_see(self, user: FakeUser, root: dict[str, Any]) -> None:
        needed = root.get("default_member_permissions")
        if needed is not None and not user.permissions & ADMINISTRATOR:
            needed = int(needed)
            if user.permissions & needed != needed:
                raise HarnessError(f"{user.name} lacks the permissions to see /{root['name']}")

    def _interaction_payload(
        self,
        itype: int,
        user: FakeUser,
        channel_id: int,
        data: dict[str, Any],
        message: StoredMessage | None = None,
    ) -> dict[str, Any]:
        iid = self.ids()
        channel = self.channels[channel_id]
        payload: dict[str, Any] = {
            "id": str(iid),
            "application_id": str(self.app_id),
            "type": itype,
            "data": data,
            "token": f"offline-{iid}-{secrets.token_hex(8)}",
            "version": 1,
            "attachment_size_limit": 10 * 1024 * 1024,
            "locale": user.locale,
            "app_permissions": str(self.app_permissions),
            "entitlements": [],
            "channel_id": str(channel_id),
            "channel": {**_copy(channel), "permissions": str(user.permissions)},
        }
        if channel["type"] == DM:
            payload["user"] = user.user_json()
            payload["context"] = 1
            payload["authorizing_integration_owners"] = {"0": str(user.id)}
        else:
            gid = self._guild_of(channel)
            payload["guild_id"] = str(gid)
            assert gid is not None
            locale = self.guild_locales.get(gid, "en-US")
            payload["guild"] = {"id": str(gid), "locale": locale, "features": []}
            payload["guild_locale"] = locale
            payload["member"] = user.member_json()
            payload["context"] = 0
            payload["authorizing_integration_owners"] = {"0": str(gid)}
        if message is not None:
            payload["message"] = _copy(message.json)
        return payload

    def _command_data(
        self,
        root: dict[str, Any],
        chain: list[tuple[str, int]],
        opts: list[dict[str, Any]],
        scope: int | None,
        resolved: dict[str, Any],
    ) -> dict[str, Any]:
        for name, otype in reversed(chain):
            opts = [{"name": name, "type": otype, "options": opts}]
        data: dict[str, Any] = {"id": root["id"], "name": root["name"], "type": 1}
        if opts:
            data["options"] = opts
        if scope is not None:
            data["guild_id"] = str(scope)
        if resolved:
            data["resolved"] = resolved
        return data

    def _build_options(
        self,
        leaf: dict[str, Any],
        given: dict[str, Any],
        resolved: dict[str, Any],
        *,
        in_guild: bool,
        strict: bool,
    ) -> list[dict[str, Any]]:
        defs = {o["name"]: o for o in leaf.get("options") or []}
        unknown = set(given) - set(defs)
        if unknown:
            raise HarnessError(f"/{leaf['name']} has no option(s) {sorted(unknown)}; options: {sorted(defs)}")
        out = []
        for name, odef in defs.items():
            if name not in given:
                if strict and odef.get("required"):
                    raise HarnessError(f"option {name!r} of /{leaf['name']} is required")
                continue
            value = self._option_value(odef, given[name], resolved, in_guild=in_guild, strict=strict)
            out.append({"name": name, "type": odef["type"], "value": value})
        return out

    def _option_value(
        self, odef: dict[str, Any], value: Any, resolved: dict[str, Any], *, in_guild: bool, strict: bool
    ) -> Any:
        t, name = odef["type"], odef["name"]

        def fail(why: str) -> HarnessError:
            return HarnessError(f"option {name!r}: {why} (the Discord client would not send this)")

        if t in (3, 4, 10):
            if t == 3 and not isinstance(value, str):
                raise fail(f"expects a string, got {value!r}")
            if t == 4 and (isinstance(value, bool) or not isinstance(value, int)):
                raise fail(f"expects an integer, got {value!r}")
            if t == 10 and (isinstance(value, bool) or not isinstance(value, int | float)):
                raise fail(f"expects a number, got {value!r}")
            if strict:
                choices = odef.get("choices")
                if choices and value not in [c["value"] for c in choices]:
                    raise fail(f"{value!r} is not one of the choices {[c['value'] for c in choices]}")
                if t == 3:
                    if len(value) < odef.get("min_length", 0) or len(value) > odef.get("max_length", 6000):
                        raise fail(f"length {len(value)} is outside min_length/max_length")
                else:
                    lo, hi = odef.get("min_value"), odef.get("max_value")
                    if (lo is not None and value < lo) or (hi is not None and value > hi):
                        raise fail(f"{value} is outside {lo}..{hi}")
            return value
        if t == 5:
            if not isinstance(value, bool):
                raise fail(f"expects a boolean, got {value!r}")
            return value
        if t == 11:
            return self._attachment_option(value, resolved)
        if t == 7:
            cid = int(value) if not isinstance(value, dict) else int(value["id"])
            ch = self.channels.get(cid)
            if ch is None:
                raise fail(f"unknown channel {cid}")
            types = odef.get("channel_types")
            if strict and types and ch["type"] not in types:
                raise fail(f"channel type {ch['type']} not in {types}")
        return self._resolve_entity(value, resolved, in_guild=in_guild)

    def _resolve_entity(self, value: Any, resolved: dict[str, Any], *, in_guild: bool) -> str:
        """Put a user, role or channel into ``resolved`` (as Discord does) and return its id string."""
        if isinstance(value, FakeUser):
            user = value
        elif isinstance(value, int) and value in self.users:
            user = self.users[value]
        else:
            user = None
        if user is not None:
            resolved.setdefault("users", {})[str(user.id)] = user.user_json()
            if in_guild:
                resolved.setdefault("members", {})[str(user.id)] = user.member_json(with_user=False)
            return str(user.id)
        vid = int(value["id"]) if isinstance(value, dict) else int(value)
        if vid in self.roles:
            resolved.setdefault("roles", {})[str(vid)] = self.roles[vid]
        elif vid in self.channels:
            ch = self.channels[vid]
            entry: dict[str, Any] = {
                k: ch[k] for k in ("id", "type", "name", "parent_id", "thread_metadata") if k in ch
            }
            resolved.setdefault("channels", {})[str(vid)] = {**entry, "permissions": str(ALL_PERMISSIONS)}
        else:
            raise HarnessError(f"unknown user, role or channel {value!r}")
        return str(vid)

    def _attachment_option(self, value: Any, resolved: dict[str, Any]) -> str:
        if isinstance(value, SentFile):
            filename, data = value.filename, value.data
        else:
            filename, data = value
        aid = self.ids()
        att = attachment_json(aid, self.channel_id, filename, data, None)
        self.cdn[att["url"]] = data
        self.cdn[att["proxy_url"]] = data
        resolved.setdefault("attachments", {})[str(aid)] = att
        return str(aid)

    def _component(
        self, user: FakeUser, message_id: int | StoredMessage | None, custom_id: str
    ) -> tuple[StoredMessage, dict[str, Any]]:
        msg = self.find_message(custom_id, user=user) if message_id is None else self.message(message_id)
        if msg.deleted:
            raise HarnessError(f"message {msg.id} was deleted")
        if msg.ephemeral and msg.ephemeral_to not in (None, user.id):
            raise HarnessError(f"message {msg.id} is ephemeral and not visible to {user.name}")
        comp = msg.component(custom_id)
        if comp is None:
            raise HarnessError(f"message {msg.id} has no component {custom_id!r}; it has {msg.custom_ids}")
        if comp.get("disabled"):
            raise HarnessError(f"component {custom_id!r} is disabled")
        return msg, comp

    def _modal_components(
        self, modal: dict[str, Any], given: dict[str, Any], resolved: dict[str, Any]
    ) -> list[dict[str, Any]]:
        """The submitted components, mirroring the modal's layout (action rows or labels) like Discord."""

        def submitted(c: dict[str, Any]) -> dict[str, Any] | None:
            cid, ctype = c.get("custom_id"), c.get("type")
            if cid is None:
                return None
            if ctype == 4:
                value = given.get(cid, c.get("value") or "")
                if not isinstance(value, str):
                    raise HarnessError(f"text input {cid!r} takes a string")
                if c.get("required", True) and not value:
                    raise HarnessError(f"text input {cid!r} is required")
                if value and not c.get("min_length", 0) <= len(value) <= c.get("max_length", 4000):
                    raise HarnessError(f"text input {cid!r}: length {len(value)} outside min/max_length")
                return {"type": 4, "custom_id": cid, "value": value}
            if ctype in _SELECT_TYPES or ctype in (19, 22):
                vals = list(given.get(cid, []))
                if c.get("required", True) and c.get("min_values", 1) > len(vals):
                    raise HarnessError(f"modal input {cid!r} needs {c.get('min_values', 1)}+ value(s)")
                if ctype == 19:  # file upload: (filename, bytes) pairs become resolved attachments
                    vals = [self._attachment_option(v, resolved) for v in vals]
                elif ctype in _SELECT_TYPES and ctype != 3:
                    vals = [self._resolve_entity(v, resolved, in_guild=True) for v in vals]
                return {"type": ctype, "custom_id": cid, "values": [str(v) for v in vals]}
            if ctype == 21:  # radio group
                return {"type": ctype, "custom_id": cid, "value": given.get(cid)}
            if ctype == 23:  # checkbox
                return {"type": ctype, "custom_id": cid, "value": bool(given.get(cid, False))}
            return None

        out: list[dict[str, Any]] = []
        for top in modal.get("components") or []:
            if top.get("type") == 1:
                inner = [s for s in (submitted(c) for c in top.get("components") or []) if s]
                if inner:
                    out.append({"type": 1, "components": inner})
            elif top.get("type") == 18 and isinstance(top.get("component"), dict):
                s = submitted(top["component"])
                if s:
                    out.append({"type": 18, "component": s})
        return out

    # ------------------------------------------------------------------ the fake API

    def _record(
        self,
        seam: str,
        route: Any,
        kind: str,
        payload: Any,
        files: list[SentFile],
        params: dict[str, Any] | None,
        inter: _Interaction | None,
    ) -> Request:
        if payload is not None:
            # Round-trip through JSON like the real seams do: the record is exactly what goes on the wire,
            # and a value that cannot be serialized fails here as it would in production.
            payload = json.loads(discord.utils._to_json(payload))
        self._seq += 1
        req = Request(
            self._seq,
            seam,
            route.method,
            route.path,
            route.url,
            kind,
            payload,
            files,
            params,
            inter.result.interaction_id if inter else None,
            time.monotonic(),
        )
        self.requests.append(req)
        if inter is not None:
            inter.result.requests.append(req)
        return req

    def _finish(self, req: Request) -> None:
        """Apply the limit checks; violations outside an interaction go to ``self.violations``."""
        data = req.data
        stored = self.messages.get(req.message_id) if req.message_id is not None else None
        if stored is not None and "flags" not in data:
            # An edit without flags keeps the message's components-v2 layout, which changes the rules.
            data = {**data, "flags": stored.flags & COMPONENTS_V2}
        if req.kind == "callback":
            ctype = req.callback_type
            if ctype == 8:
                req.violations += limits.check_choices(req.data.get("choices") or [])
            elif ctype == 9:
                req.violations += limits.check_modal(req.data)
            elif ctype in (4, 7):
                req.violations += limits.check_message(data, new=ctype == 4)
        elif req.kind == "sync_commands" and isinstance(req.payload, list):
            req.violations += limits.check_command_tree(req.payload)
        elif req.is_message:
            req.violations += limits.check_message(data, new=req.kind in ("channel_message", "followup"))
        if req.interaction_id is None or req.interaction_id not in self._interactions:
            self.violations += [f"#{req.seq} {req.kind}: {v}" for v in req.violations]
        elif self._interactions[req.interaction_id].done:  # the interaction already returned: report globally
            self.violations += [f"#{req.seq} {req.kind}: {v}" for v in req.violations]

    # ------------------------------------------------------------------ faults

    def limit_globally(self, rate: float = 50.0, burst: float | None = None) -> GlobalLimit:
        """Model Discord's global limit from now on: requests beyond ``rate`` a second are answered 429."""
        self.global_limit = GlobalLimit(rate, burst)
        return self.global_limit

    def fail(
        self,
        kind: str,
        error: str,
        times: int = 1,
        *,
        retry_after: float = 1.0,
        lost_reply: bool = False,
        when: Callable[[Request], bool] | None = None,
        code: int = 0,
    ) -> Fault:
        """Make the next ``times`` HTTP requests of ``kind`` fail with ``error`` (one of ``FAULTS``);
        ``code`` is the JSON error code Discord would send with it (e.g. ``"400"`` with 30046)."""
        if error not in FAULTS:
            raise ValueError(f"unknown fault {error!r}; one of {FAULTS}")
        fault = Fault(kind, error, times, retry_after, lost_reply, when, code=code)
        self.faults.append(fault)
        return fault

    def _fault_for(self, req: Request) -> Fault | None:
        for fault in self.faults:
            if fault.matches(req):
                fault.hits.append(req)
                req.fault = fault.error
                return fault
        return None

    async def _http_request(self, route: Any, *, files: Any = None, form: Any = None, **kwargs: Any) -> Any:
        payload = kwargs.get("json")
        sent: list[SentFile] = []
        if form:
            payload, sent = parse_multipart(form)
        params = kwargs.get("params")
        args = route_params(route)
        kind, handler = _HTTP_ROUTES.get((route.method, route.path), ("other", None))
        req = self._record("http", route, kind, payload, sent, params, _current.get())
        await asyncio.sleep(self.network_delay)
        if self.global_limit is not None:
            retry = self.global_limit.take(asyncio.get_running_loop().time())
            if retry is not None:
                req.fault = "429"
                self._finish(req)
                raise _too_many(retry)
        fault = self._fault_for(req)
        if fault is not None and not fault.lost_reply:
            self._finish(req)
            raise fault.exception()
        try:
            if handler is None:
                self.unhandled.append(req)
                response = None
            else:
                response = handler(self, req, args)
            req.response = _copy(response)
        finally:
            self._finish(req)
        if fault is not None:
            raise fault.exception()
        return _copy(response)

    async def _get_from_cdn(self, url: str) -> bytes:
        try:
            return self.cdn[url]
        except KeyError:
            raise _http_error(404, 0, f"no such CDN file {url}") from None

    async def _webhook_request(
        self,
        route: Any,
        *,
        payload: Any = None,
        multipart: Any = None,
        files: Any = None,
        params: Any = None,
        **_: Any,
    ) -> Any:
        sent: list[SentFile] = []
        if multipart:
            payload, sent = parse_multipart(multipart)
        args = route_params(route)
        inter = self._by_token.get(args.get("webhook_token", ""))
        kind = _webhook_kind(route.method, route.path)
        # A webhook that is not an interaction token (a channel webhook) is recorded under the current
        # interaction, but Discord would not know it.
        req = self._record("webhook", route, kind, payload, sent, params, inter or _current.get())
        await asyncio.sleep(self.network_delay)
        if inter is None:
            self.unhandled.append(req)
            raise _http_error(404, 10015, "Unknown Webhook")
        try:
            response = self._webhook_handlers[kind](self, req, inter, args)
            req.response = _copy(response)
        finally:
            self._finish(req)
        return _copy(response)

    # -- messages

    def _new_message(
        self,
        channel_id: int,
        data: dict[str, Any],
        files: list[SentFile],
        *,
        inter: _Interaction | None = None,
        ephemeral_to: int | None = None,
        extra_flags: int = 0,
        message_id: int | None = None,
    ) -> StoredMessage:
        mid = message_id or self.ids()
        atts, blobs = self._attachments(channel_id, data, files, [], {})
        channel = self.channels.get(channel_id, {})
        guild_id = self._guild_of(channel) if channel else self.guild_id
        mentioned = {int(u) for u in re.findall(r"<@!?(\d+)>", data.get("content") or "")}
        mtype = 20 if inter is not None and inter.result.interaction_type == 2 else 0
        msg = StoredMessage(
            message_json(
                message_id=mid,
                channel_id=channel_id,
                guild_id=guild_id,
                author=self.bot_user.user_json(),
                data=data,
                attachments=atts,
                flags=((data.get("flags") or 0) & _MESSAGE_FLAGS_KEPT) | extra_flags,
                message_type=mtype,
                application_id=self.app_id if inter else None,
                webhook_id=self.app_id if inter else None,
                mentions=[self.users[u].user_json() for u in mentioned if u in self.users],
            ),
            files=blobs,
            ephemeral_to=ephemeral_to,
            interaction_id=inter.result.interaction_id if inter else None,
        )
        self.messages[mid] = msg
        self._by_channel.setdefault(msg.channel_id, []).append(msg)
        if channel:
            channel["last_message_id"] = str(mid)
        return msg

    def _attachments(
        self,
        channel_id: int,
        data: dict[str, Any],
        files: list[SentFile],
        existing: list[dict[str, Any]],
        blobs: dict[str, bytes],
    ) -> tuple[list[dict[str, Any]], dict[str, bytes]]:
        entries = data.get("attachments")
        if entries is None:
            if not files:
                return existing, blobs
            entries = [{"id": i, "filename": f.filename} for i, f in enumerate(files)]
        kept = {a["id"]: a for a in existing}
        out, new_blobs = [], {}
        for e in entries:
            eid = str(e.get("id"))
            if eid in kept:
                out.append(kept[eid])
                new_blobs[eid] = blobs.get(eid, b"")
                continue
            idx = e.get("id")
            if isinstance(idx, int) and 0 <= idx < len(files):
                f = files[idx]
                aid = self.ids()
                att = attachment_json(
                    aid, channel_id, e.get("filename") or f.filename, f.data, e.get("description")
                )
                self.cdn[att["url"]] = f.data
                self.cdn[att["proxy_url"]] = f.data
                out.append(att)
                new_blobs[att["id"]] = f.data
        return out, new_blobs

    def _edit(self, msg: StoredMessage, data: dict[str, Any], files: list[SentFile]) -> StoredMessage:
        j = msg.json
        for key in ("content", "embeds", "components"):
            if key in data:
                j[key] = data[key] if data[key] is not None else ("" if key == "content" else [])
        flags = j.get("flags", 0) & ~LOADING
        if data.get("flags") is not None:
            flags = (flags & EPHEMERAL) | (data["flags"] & _MESSAGE_FLAGS_KEPT & ~EPHEMERAL)
        j["flags"] = flags
        j["attachments"], msg.files = self._attachments(
            msg.channel_id, data, files, j.get("attachments") or [], msg.files
        )
        j["edited_timestamp"] = discord.utils.utcnow().isoformat()
        msg.edits += 1
        return msg

    def _live(self, message_id: int, channel_id: int | None = None) -> StoredMessage:
        msg = self.messages.get(message_id)
        if msg is None or msg.deleted or (channel_id is not None and msg.channel_id != channel_id):
            raise _http_error(404, 10008, "Unknown Message")
        return msg

    # -- http handlers (bot token)

    def _h_me(self, req: Request, args: dict[str, str]) -> Any:
        return {**self.bot_user.user_json(), "verified": True, "mfa_enabled": False, "flags": 0}

    def _h_app(self, req: Request, args: dict[str, str]) -> Any:
        return app_info_json(self.app_id, self.owner, self.bot_user.name)

    def _h_sync(self, req: Request, args: dict[str, str]) -> Any:
        scope = int(args["guild_id"]) if "guild_id" in args else None
        commands_sent: list[dict[str, Any]] = req.payload if isinstance(req.payload, list) else []
        out = [self._with_ids(c, scope) for c in commands_sent]
        self.synced[scope] = out
        return out

    def _h_get_commands(self, req: Request, args: dict[str, str]) -> Any:
        scope = int(args["guild_id"]) if "guild_id" in args else None
        return self.synced.get(scope, [])

    def _h_send(self, req: Request, args: dict[str, str]) -> Any:
        cid = int(args["channel_id"])
        channel = self.channels.get(cid)
        if channel is None:
            raise _http_error(404, 10003, "Unknown Channel")
        if channel.get("type") == DM:
            recipient = self.users.get(int(channel["recipients"][0]["id"]))
            if recipient is not None and not recipient.dms_open:
                raise _http_error(403, 50007, "Cannot send messages to this user")
        data = req.data
        nonce = data.get("nonce")
        if nonce is not None and data.get("enforce_nonce"):
            # Discord: "if another message was created by the same author with the same nonce, that message
            # will be returned and no new message will be created" (for a few minutes; here, always).
            earlier = self._nonces.get((cid, str(nonce)))
            if earlier is not None and earlier in self.messages:
                req.message_id, req.channel_id, req.deduplicated = earlier, cid, True
                return self.messages[earlier].json
        msg = self._new_message(cid, data, req.files)
        if nonce is not None and data.get("enforce_nonce"):
            self._nonces[(cid, str(nonce))] = msg.id
        req.message_id, req.channel_id = msg.id, cid
        req.pinged_user_ids = pinged_users(data, is_new_message=True)
        return msg.json

    def _h_edit(self, req: Request, args: dict[str, str]) -> Any:
        msg = self._live(int(args["message_id"]), int(args["channel_id"]))
        if msg.json["author"]["id"] != str(self.app_id):
            raise _http_error(403, 50005, "Cannot edit a message authored by another user")
        self._edit(msg, req.data, req.files)
        req.message_id, req.channel_id = msg.id, msg.channel_id
        return msg.json

    def _h_pin(self, req: Request, args: dict[str, str]) -> Any:
        """Pin or unpin (by the method); the bot needs Pin Messages, or Discord answers 403, code 50013."""
        if not self.app_permissions & PIN_MESSAGES:
            raise _http_error(403, 50013, "Missing Permissions")
        msg = self._live(int(args["message_id"]), int(args["channel_id"]))
        msg.pinned = req.method == "PUT"
        req.message_id, req.channel_id = msg.id, msg.channel_id
        return None

    def pinned(self, channel_id: int | None = None) -> list[StoredMessage]:
        """The channel's pinned messages, oldest first."""
        return [m for m in self.channel_messages(channel_id or self.channel_id) if m.pinned]

    def _h_delete(self, req: Request, args: dict[str, str]) -> Any:
        msg = self._live(int(args["message_id"]), int(args["channel_id"]))
        msg.deleted = True
        req.message_id, req.channel_id = msg.id, msg.channel_id
        return None

    def _h_get_message(self, req: Request, args: dict[str, str]) -> Any:
        return self._live(int(args["message_id"]), int(args["channel_id"])).json

    def _h_history(self, req: Request, args: dict[str, str]) -> Any:
        limit = int((req.params or {}).get("limit", 50))
        msgs = [m.json for m in self.channel_messages(int(args["channel_id"]))]
        return list(reversed(msgs))[:limit]

    def _h_channel(self, req: Request, args: dict[str, str]) -> Any:
        ch = self.channels.get(int(args["channel_id"]))
        if ch is None:
            raise _http_error(404, 10003, "Unknown Channel")
        return ch

    def _h_edit_channel(self, req: Request, args: dict[str, str]) -> Any:
        ch = self._h_channel(req, args)
        for key, value in (req.payload or {}).items():  # type: ignore[union-attr]
            if (
                key in ("archived", "locked", "auto_archive_duration", "invitable")
                and "thread_metadata" in ch
            ):
                ch["thread_metadata"][key] = value
            else:
                ch[key] = value
        return ch

    def _h_thread(self, req: Request, args: dict[str, str]) -> Any:
        parent = int(args["channel_id"])
        if parent not in self.channels:
            raise _http_error(404, 10003, "Unknown Channel")
        body = req.payload or {}
        if "message_id" in args:
            tid = int(args["message_id"])  # Discord gives a thread started from a message the message's id
            self._live(tid, parent)
        else:
            tid = self.ids()
        private = body.get("type") == PRIVATE_THREAD  # type: ignore[union-attr]
        ch = thread_json(
            tid,
            self._guild_of(self.channels[parent]) or self.guild_id,
            parent,
            body.get("name", "thread"),  # type: ignore[union-attr]
            owner_id=self.app_id,
            private=private,
        )
        self.channels[tid] = ch
        req.channel_id = tid
        return ch

    def _h_dm(self, req: Request, args: dict[str, str]) -> Any:
        uid = int((req.payload or {}).get("recipient_id"))  # type: ignore[union-attr, arg-type]
        user = self.users.get(uid) or FakeUser(uid, f"user{uid}")
        return self.channels.get(self.dm_channel(user))

    def _h_member(self, req: Request, args: dict[str, str]) -> Any:
        user = self.users.get(int(args["user_id"]))
        if user is None:
            raise _http_error(404, 10007, "Unknown Member")
        return user.member_json()

    def _h_user(self, req: Request, args: dict[str, str]) -> Any:
        user = self.users.get(int(args["user_id"]))
        if user is None:
            raise _http_error(404, 10013, "Unknown User")
        return user.user_json()

    def _h_guild(self, req: Request, args: dict[str, str]) -> Any:
        return self.guild_payload()

    def _h_none(self, req: Request, args: dict[str, str]) -> Any:
        return None

    # -- webhook handlers (interaction token)

    def _w_callback(self, req: Request, inter: _Interaction, args: dict[str, str]) -> Any:
        result = inter.result
        if inter.acknowledged:
            raise _http_error(400, 40060, "Interaction has already been acknowledged.")
        elapsed = time.monotonic() - inter.started
        if self.response_deadline is not None and elapsed > self.response_deadline:
            req.violations.append(f"answered after {elapsed:.2f}s (deadline {self.response_deadline}s)")
            raise _http_error(404, 10062, "Unknown interaction")
        ctype = req.callback_type
        valid = set(_VALID_CALLBACKS.get(result.interaction_type, set()))
        if result.interaction_type == 5 and inter.message_id is None:
            valid -= {6, 7}
        if ctype not in valid:
            req.violations.append(
                f"callback type {ctype} is invalid for interaction type {result.interaction_type}"
            )
            raise _http_error(400, 50035, "Invalid Form Body")
        inter.acknowledged = True
        result.latency = elapsed
        data = req.data
        channel_id = result.channel_id
        message: StoredMessage | None = None
        if ctype == 4:
            eph = bool((data.get("flags") or 0) & EPHEMERAL)
            message = self._new_message(
                channel_id, data, req.files, inter=inter, ephemeral_to=inter.user.id if eph else None
            )
            req.pinged_user_ids = pinged_users(data, is_new_message=True)
        elif ctype == 5:
            eph = bool((data.get("flags") or 0) & EPHEMERAL)
            message = self._new_message(
                channel_id,
                {},
                [],
                inter=inter,
                extra_flags=LOADING | (EPHEMERAL * eph),
                ephemeral_to=inter.user.id if eph else None,
            )
            inter.deferred_thinking = True
        elif ctype in (6, 7) and inter.message_id is not None:
            message = self._live(inter.message_id)
            if ctype == 7:
                self._edit(message, data, req.files)
        elif ctype == 9:
            self._modals.setdefault(inter.user.id, []).append(
                _PendingModal(_copy(data), channel_id, inter.message_id)
            )
        if message is not None:
            inter.original_id = message.id
            req.message_id, req.channel_id = message.id, message.channel_id
        response: dict[str, Any] = {
            "interaction": {
                "id": str(result.interaction_id),
                "type": result.interaction_type,
                "response_message_loading": ctype == 5,
                "response_message_ephemeral": bool(message and message.ephemeral),
            }
        }
        if message is not None:
            response["interaction"]["response_message_id"] = str(message.id)
            response["resource"] = {"type": ctype, "message": message.json}
        return response

    def _original(self, inter: _Interaction) -> StoredMessage:
        if inter.original_id is None:
            raise _http_error(404, 10008, "Unknown Message")
        return self._live(inter.original_id)

    def _w_edit_original(self, req: Request, inter: _Interaction, args: dict[str, str]) -> Any:
        msg = self._edit(self._original(inter), req.data, req.files)
        req.message_id, req.channel_id = msg.id, msg.channel_id
        return msg.json

    def _w_get_original(self, req: Request, inter: _Interaction, args: dict[str, str]) -> Any:
        return self._original(inter).json

    def _w_delete_original(self, req: Request, inter: _Interaction, args: dict[str, str]) -> Any:
        msg = self._original(inter)
        msg.deleted = True
        req.message_id, req.channel_id = msg.id, msg.channel_id
        return None

    def _w_followup(self, req: Request, inter: _Interaction, args: dict[str, str]) -> Any:
        if not inter.acknowledged:
            raise _http_error(404, 10015, "Unknown Webhook")
        data = req.data
        original = self.messages.get(inter.original_id) if inter.original_id else None
        if inter.deferred_thinking and original is not None and original.loading:
            # The first followup after a "thinking" defer replaces the loading message; its ephemerality
            # was fixed by the defer.
            self._edit(original, {k: v for k, v in data.items() if k != "flags"}, req.files)
            msg = original
        else:
            eph = bool((data.get("flags") or 0) & EPHEMERAL)
            msg = self._new_message(
                inter.result.channel_id,
                data,
                req.files,
                inter=inter,
                ephemeral_to=inter.user.id if eph else None,
            )
        req.message_id, req.channel_id = msg.id, msg.channel_id
        req.pinged_user_ids = pinged_users(data, is_new_message=True)
        return msg.json

    def _followup_message(self, inter: _Interaction, args: dict[str, str]) -> StoredMessage:
        msg = self._live(int(args["message_id"]))
        if msg.interaction_id != inter.result.interaction_id:
            raise _http_error(404, 10008, "Unknown Message")
        return msg

    def _w_edit_followup(self, req: Request, inter: _Interaction, args: dict[str, str]) -> Any:
        msg = self._edit(self._followup_message(inter, args), req.data, req.files)
        req.message_id, req.channel_id = msg.id, msg.channel_id
        return msg.json

    def _w_get_followup(self, req: Request, inter: _Interaction, args: dict[str, str]) -> Any:
        return self._followup_message(inter, args).json

    def _w_delete_followup(self, req: Request, inter: _Interaction, args: dict[str, str]) -> Any:
        self._followup_message(inter, args).deleted = True
        return None

    _webhook_handlers: dict[str, Callable[..., Any]] = {
        "callback": _w_callback,
        "followup": _w_followup,
        "edit_original": _w_edit_original,
        "get_original": _w_get_original,
        "delete_original": _w_delete_original,
        "edit_followup": _w_edit_followup,
        "get_followup": _w_get_followup,
        "delete_followup": _w_delete_followup,
    }


def _webhook_kind(method: str, path: str) -> str:
    if path.endswith("/callback"):
        return "callback"
    if path.endswith("/messages/@original"):
        return {"PATCH": "edit_original", "GET": "get_original", "DELETE": "delete_original"}[method]
    if "/messages/{message_id}" in path:
        return {"PATCH": "edit_followup", "GET": "get_followup", "DELETE": "delete_followup"}[method]
    return "followup"


_C, _M = "/channels/{channel_id}", "/channels/{channel_id}/messages/{message_id}"
_HTTP_ROUTES: dict[tuple[str, str], tuple[str, Callable[..., Any]]] = {
    ("GET", "/users/@me"): ("login", OfflineDiscord._h_me),
    ("GET", "/oauth2/applications/@me"): ("app_info", OfflineDiscord._h_app),
    ("PUT", "/applications/{application_id}/commands"): ("sync_commands", OfflineDiscord._h_sync),
    ("PUT", "/applications/{application_id}/guilds/{guild_id}/commands"): (
        "sync_commands",
        OfflineDiscord._h_sync,
    ),
    ("GET", "/applications/{application_id}/commands"): ("get_commands", OfflineDiscord._h_get_commands),
    ("GET", "/applications/{application_id}/guilds/{guild_id}/commands"): (
        "get_commands",
        OfflineDiscord._h_get_commands,
    ),
    ("POST", _C + "/messages"): ("channel_message", OfflineDiscord._h_send),
    ("GET", _C + "/messages"): ("history", OfflineDiscord._h_history),
    ("PATCH", _M): ("edit_message", OfflineDiscord._h_edit),
    ("DELETE", _M): ("delete_message", OfflineDiscord._h_delete),
    ("GET", _M): ("get_message", OfflineDiscord._h_get_message),
    ("GET", _C): ("get_channel", OfflineDiscord._h_channel),
    ("PATCH", _C): ("edit_channel", OfflineDiscord._h_edit_channel),
    ("POST", _C + "/threads"): ("thread", OfflineDiscord._h_thread),
    ("POST", _M + "/threads"): ("thread", OfflineDiscord._h_thread),
    ("PUT", _C + "/thread-members/@me"): ("join_thread", OfflineDiscord._h_none),
    ("PUT", _C + "/thread-members/{user_id}"): ("add_thread_member", OfflineDiscord._h_none),
    ("DELETE", _C + "/thread-members/{user_id}"): ("remove_thread_member", OfflineDiscord._h_none),
    ("POST", _C + "/typing"): ("typing", OfflineDiscord._h_none),
    ("PUT", _M + "/reactions/{emoji}/@me"): ("reaction", OfflineDiscord._h_none),
    ("PUT", _C + "/pins/{message_id}"): ("pin", OfflineDiscord._h_pin),
    ("PUT", _C + "/messages/pins/{message_id}"): ("pin", OfflineDiscord._h_pin),
    ("DELETE", _C + "/pins/{message_id}"): ("unpin", OfflineDiscord._h_pin),
    ("DELETE", _C + "/messages/pins/{message_id}"): ("unpin", OfflineDiscord._h_pin),
    ("POST", "/users/@me/channels"): ("dm_channel", OfflineDiscord._h_dm),
    ("GET", "/guilds/{guild_id}/members/{user_id}"): ("get_member", OfflineDiscord._h_member),
    ("GET", "/users/{user_id}"): ("get_user", OfflineDiscord._h_user),
    ("GET", "/guilds/{guild_id}"): ("get_guild", OfflineDiscord._h_guild),
}
