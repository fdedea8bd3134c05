"""The offline Discord, layer 1 of 7: its world. Guilds, channels, members, roles and messages, and
the queries on them; the state every layer above shares (made in `World.__init__`).

One layer of `OfflineDiscord` (offline/offline.py), each on the one before: world, commands, recorder,
routes, interaction_payloads, interactions; offline.py adds the bot's lifecycle and the seams.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import copy
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

from discord.ext import commands

from .faults import Fault, GlobalLimit
from .payloads import (
    ALL_PERMISSIONS,
    DM,
    PRIVATE_THREAD,
    PUBLIC_THREAD,
    FakeUser,
    Snowflakes,
    dm_channel_json,
    guild_json,
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
    StoredMessage,
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


class World:
    """Guilds, channels, members, roles and messages, and the queries on them."""

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
        # The bot's process died at a request (a "kill" fault) and was not revived yet: every request of
        # its raises ProcessKilled. ``on_kill`` runs at that moment (a harness stops the bot's store there).
        self.dead = False
        self.on_kill: list[Callable[[], None]] = []
        self._nonces: dict[tuple[int, str], int] = {}  # (channel, enforced nonce) -> message id
        self.global_limit: GlobalLimit | None = None  # Discord's 50 requests/s per bot, when modelled

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

    def pinned(self, channel_id: int | None = None) -> list[StoredMessage]:
        """The channel's pinned messages, oldest first."""
        return [m for m in self.channel_messages(channel_id or self.channel_id) if m.pinned]
