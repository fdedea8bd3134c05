"""The game service: loads a game, asks the engine to apply an action, saves it, and says what to announce.

No Discord here. Every method takes plain ids and returns plain values (``Table``, ``Outcome``), or raises
``Refused`` with a stable code that ``bot.words`` turns into a sentence. It holds no rules: legality is
the engine's (``engine.apply``), persistence and "one game per channel" are the store's.

Bot-side bookkeeping that must survive a restart lives in the store's per-game metadata (``META_*`` keys:
which message is the turn message, when each player was last pinged, who agreed to end, who is absent,
when the game was last nudged); a change that belongs to an action is written in the same ``append`` as
the action. Timed work (reminders, turn deadlines) is a notice: it waits in the store while the bot is
down and is claimed exactly once (``mark_notice_sent``) when it is back. Games saved before metadata
existed keep that bookkeeping as notices due in 2100; ``_adopt_legacy`` moves them into metadata.

Playing over days: a table's deadline policy (``skip`` or ``autoplay``) is chosen at creation. Under
autoplay, an overdue turn is finished by the engine's greedy player (one store write for the whole turn)
and the player is marked absent; an absent player's later turns are due at once (unless every player left
is absent), until ``take_seat_back``. Shutdown: every handler runs inside ``in_flight()``; ``drain()``
refuses new ones and waits for those running.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import random
import secrets
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from engine import serialize
from engine.actions import Action, EndByAgreement, Resign, SkipTurn
from engine.ai import greedy_player
from engine.errors import IllegalAction
from engine.events import Event, TurnEnded, TurnStarted
from engine.game import MAX_PLAYERS, MIN_PLAYERS, apply, new_game
from engine.maps import Map, default_map
from engine.rules import active_players
from engine.state import GameState
from storage import (
    ChannelBusy,
    GameClosed,
    GameNotFound,
    GameRecord,
    GameStore,
    Notice,
    SeatError,
    VersionConflict,
)

from .schedule import (
    DeadlinePolicy,
    ReminderPrefs,
    next_nudge_at,
    next_reminder,
    nudge_allowed,
    parse_policy,
    quiet_until,
    turn_deadline,
)
from .words import POLICY_CHOICES, Speaker

Clock = Callable[[], float]
SeedSource = Callable[[], int]
MapProvider = Callable[[], Map]

REMIND = "turn"  # the reminder of a waiting player (storage's documented example kind)
DEADLINE = "deadline"  # the end of a turn's time at a table with a deadline (P2)
AUTOPLAY_CAP = 40  # a turn is a move and at most two actions; the cap only guards against a looping player

# Per-game metadata keys (JSON values).
META_TURN_POST = "turn_post"  # {"message": id, "since": version of its TurnStarted, "pinged": ts | None}
META_PINGED = "pinged"  # {"<user id>": when the bot last mentioned them about their turn}
META_AGREED = "agreed"  # [user ids] who agreed to end the game now (P3)
META_ABSENT = "absent"  # [user ids] the computer plays for (deadline policy autoplay), until they are back
META_NUDGED_AT = "nudged_at"  # when another player last nudged the waiting one (once per 24 hours)
# What only matters while the game is in play: cleared when it ends. The turn post stays, so that the last
# turn's message can still be closed (and its buttons removed) after a restart.
IN_PLAY_META = (META_PINGED, META_AGREED, META_ABSENT, META_NUDGED_AT)

# The kinds of the never-due notices that held this bookkeeping before per-game metadata (see _adopt_legacy).
LEGACY_TURN_POST = "turn-post"
LEGACY_AGREE = "agree"
LEGACY_NUDGE = "nudge"
LEGACY_PINGED = "pinged:"  # + user id
LEGACY_ABSENT = "absent:"  # + user id


def _is_legacy_kind(kind: str) -> bool:
    return kind in (LEGACY_TURN_POST, LEGACY_AGREE, LEGACY_NUDGE) or kind.startswith(
        (LEGACY_PINGED, LEGACY_ABSENT)
    )


def _user_ids(value: Any) -> set[int]:
    return {int(u) for u in value} if isinstance(value, list) else set()


class Refused(Exception):
    """An action or request the bot turns down; ``code`` is an engine or ``bot/`` code of bot.words."""

    def __init__(self, code: str, **details: Any) -> None:
        super().__init__(code)
        self.code = code
        self.details = details


@dataclass(frozen=True)
class Table:
    """One game as the service sees it: its record, its state (None in the lobby) and its names."""

    record: GameRecord
    state: GameState | None
    names: tuple[str, ...]

    @property
    def id(self) -> int:
        return self.record.id

    @property
    def version(self) -> int:
        return self.record.version

    @property
    def speaker(self) -> Speaker:
        return Speaker(self.names, self.state.map if self.state is not None else None)

    def seat_of(self, user_id: int) -> int | None:
        return self.record.seat_of(user_id)

    def user_of(self, seat: int) -> int | None:
        for s, uid in self.record.seats:
            if s == seat:
                return uid
        return None

    @property
    def current_user(self) -> int | None:
        if self.state is None or self.state.over:
            return None
        return self.user_of(self.state.current)


@dataclass(frozen=True)
class Outcome:
    """What one applied action changed, and what the channel should be told."""

    before: Table
    table: Table
    events: tuple[Event, ...]
    base_version: int  # the store version before these events; event i has version base_version + i + 1
    actions: tuple[Action, ...] = ()  # what was applied (for the log: one line per action)
    by_computer: bool = False  # played by the computer for an absent player (deadline policy autoplay)

    @property
    def state(self) -> GameState:
        assert self.table.state is not None
        return self.table.state

    @property
    def turn_ended(self) -> bool:
        return any(isinstance(e, TurnEnded) for e in self.events)

    @property
    def new_turn_version(self) -> int | None:
        """The version of the TurnStarted event of a turn that began with this action, if any."""
        for i, e in enumerate(self.events):
            if isinstance(e, TurnStarted):
                return self.base_version + i + 1
        return None

    @property
    def finished(self) -> bool:
        return self.state.over

    @property
    def ping(self) -> int | None:
        """Whose turn starts now (the next player to mention), if a turn started."""
        return self.table.current_user if self.new_turn_version is not None else None


@dataclass
class _Cached:
    version: int
    state: GameState


@dataclass
class GameService:
    """Create, join, start and play games; every change goes engine -> store, never the other way."""

    store: GameStore
    map_provider: MapProvider = default_map
    clock: Clock = time.time
    seed_source: SeedSource = field(default=lambda: secrets.randbits(63))
    reminder_hours: float = 24.0  # the table's interval; each player may set their own (bot.schedule)
    _cache: dict[int, _Cached] = field(default_factory=dict)
    _locks: dict[int, asyncio.Lock] = field(default_factory=dict)
    _turn_posts: dict[int, tuple[int, int, float | None]] = field(default_factory=dict)
    _meta_locks: dict[int, asyncio.Lock] = field(default_factory=dict)
    _adopted: set[int] = field(default_factory=set)  # games whose legacy notices were looked for
    _in_flight: dict[asyncio.Task[Any], int] = field(default_factory=dict)  # task -> nesting depth
    closing: bool = False

    # --- shutdown: finish what was started --------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def in_flight(self) -> AsyncIterator[None]:
        """Count a user's action (or a reminder round) as running, so that shutdown waits for it.

        Once shutdown began, new actions are refused: their answer would race the closing connection.
        """
        if self.closing:
            raise Refused("bot/shutting-down")
        task = asyncio.current_task()
        if task is None:
            yield
            return
        # A handler may call another (a command that ends in an action): count the depth, so the inner
        # one finishing does not make the outer one look done.
        self._in_flight[task] = self._in_flight.get(task, 0) + 1
        try:
            yield
        finally:
            depth = self._in_flight.pop(task) - 1
            if depth:
                self._in_flight[task] = depth

    async def drain(self, timeout: float = 10.0) -> int:
        """Stop taking actions and wait (at most ``timeout`` s) for those running; returns how many were
        still running when the time ran out (0: everything finished)."""
        self.closing = True
        me = asyncio.current_task()
        pending = {t for t in self._in_flight if t is not me and not t.done()}
        if not pending:
            return 0
        _, still = await asyncio.wait(pending, timeout=timeout)
        return len(still)

    # --- finding games ----------------------------------------------------------------------------------

    def lock(self, game_id: int) -> asyncio.Lock:
        # One action at a time per game in this process: a double click then meets a newer version and is
        # refused as stale instead of racing to the store (which would refuse it too, as a conflict).
        lk = self._locks.get(game_id)
        if lk is None:
            lk = self._locks[game_id] = asyncio.Lock()
        return lk

    async def _table(self, record: GameRecord) -> Table:
        state: GameState | None = None
        if record.status != "lobby":
            cached = self._cache.get(record.id)
            if cached is not None and cached.version == record.version:
                state = cached.state
            else:
                snap = await self.store.load_snapshot(record.id)
                if snap is not None:
                    version, body = snap
                    # Off the loop: the first load of a game in this process parses its map (tens of ms).
                    loaded: GameState = await asyncio.to_thread(serialize.load, body)
                    state = loaded
                    self._cache[record.id] = _Cached(version, loaded)
                    if version != record.version:
                        # A write slipped in between the two reads: the record must name the version of
                        # the state it goes with, so that saving after it is checked against the right one.
                        record = dataclasses.replace(record, version=version)
        return Table(record, state, self._names(record))

    @staticmethod
    def _names(record: GameRecord) -> tuple[str, ...]:
        names: dict[str, str] = record.options.get("names", {})
        out: list[str] = []
        for _, uid in sorted(record.seats):
            out.append(names.get(str(uid), f"player {len(out) + 1}"))
        return tuple(out)

    async def table_in(self, channel_id: int) -> Table:
        record = await self.store.game_by_channel(channel_id)
        if record is None:
            raise Refused("bot/no-game")
        return await self._table(record)

    async def latest_table_in(self, channel_id: int) -> Table:
        """The channel's newest game whatever its status, so a game that just ended can still be shown
        (board, log, status); turn commands use ``table_in``, which knows only a game in the lobby or in play.
        """
        record = await self.store.latest_game_in_channel(channel_id)
        if record is None:
            raise Refused("bot/no-game")
        return await self._table(record)

    async def table_by_id(self, game_id: int) -> Table:
        record = await self.store.game_by_id(game_id)
        if record is None:
            raise Refused("bot/unknown-game", game=game_id)
        return await self._table(record)

    # --- the lobby --------------------------------------------------------------------------------------

    async def create(
        self,
        guild_id: int | None,
        channel_id: int,
        user_id: int,
        name: str,
        deadline_hours: float | None = None,
        deadline_policy: str | None = None,
    ) -> Table:
        """A new game in the lobby with its creator seated; ChannelBusy becomes a refusal.

        The deadline policy (skip or autoplay) is chosen here, once, so every player knows it before
        joining; without a deadline it is not stored (nothing to apply).
        """
        options: dict[str, Any] = {"names": {str(user_id): name}, "creator": name}
        if deadline_hours:
            options["deadline_hours"] = float(deadline_hours)
            try:
                policy = parse_policy(deadline_policy or DeadlinePolicy.SKIP.value)
            except ValueError:
                raise Refused(
                    "bot/bad-choice",
                    what="deadline policy",
                    value=deadline_policy,
                    allowed=POLICY_CHOICES,
                ) from None
            options["deadline_policy"] = policy.value
        elif deadline_policy:
            raise Refused("bot/policy-without-deadline")
        try:
            record = await self.store.create_game(
                guild_id, channel_id, user_id, options, self.clock(), seats=[(0, user_id)]
            )
        except ChannelBusy as busy:
            raise Refused("bot/channel-busy", game=busy.game_id) from None
        return await self._table(record)

    async def join(self, game_id: int, user_id: int, name: str) -> Table:
        table = await self.table_by_id(game_id)
        rec = table.record
        if rec.status != "lobby":
            raise Refused("bot/not-in-lobby")
        if rec.seat_of(user_id) is not None:
            raise Refused("bot/already-seated")
        if len(rec.seats) >= MAX_PLAYERS:
            raise Refused("bot/table-full", max=MAX_PLAYERS)
        now = self.clock()
        try:
            await self.store.join_seat(game_id, user_id, now)
            names = dict(rec.options.get("names", {}))
            names[str(user_id)] = name
            record = await self.store.update_lobby(game_id, now, options={**rec.options, "names": names})
        except SeatError:
            raise Refused("bot/table-full", max=MAX_PLAYERS) from None
        return await self._table(record)

    async def leave(self, game_id: int, user_id: int) -> Table:
        table = await self.table_by_id(game_id)
        rec = table.record
        if rec.status != "lobby":
            raise Refused("bot/not-in-lobby")
        if rec.seat_of(user_id) is None:
            raise Refused("bot/not-seated")
        now = self.clock()
        if rec.created_by == user_id and len(rec.seats) == 1:
            # The creator leaving an empty table closes it, so the channel is free again.
            record = await self.store.abandon_game(game_id, now)
            return await self._table(record)
        try:
            record = await self.store.leave_seat(game_id, user_id, now)
        except SeatError:
            raise Refused("bot/not-seated") from None
        return await self._table(record)

    async def start(self, game_id: int, user_id: int) -> Outcome:
        """Seat the players in joining order, deal (seeded at this edge), and save the first state."""
        async with self.lock(game_id):
            before = await self.table_by_id(game_id)
            rec = before.record
            if rec.status != "lobby":
                raise Refused("bot/not-in-lobby")
            if rec.created_by != user_id:
                raise Refused(
                    "bot/not-creator",
                    creator=rec.options.get("creator", "the creator"),
                    what="start the game",
                )
            if len(rec.seats) < MIN_PLAYERS:
                raise Refused("bot/too-few-players", min=MIN_PLAYERS, have=len(rec.seats))
            seats = [(i, uid) for i, (_, uid) in enumerate(sorted(rec.seats))]
            game_map, seed = self.map_provider, self.seed_source()
            state, events = await asyncio.to_thread(lambda: new_game(game_map(), len(seats), seed))
            waiting = dict(seats)[state.current]
            try:
                record = await self.store.append(
                    game_id,
                    rec.version,
                    [serialize.dump(e) for e in events],
                    serialize.dump(state),
                    self.clock(),
                    status="playing",
                    waiting_on=waiting,
                    seats=seats,
                )
            except VersionConflict:
                raise Refused("bot/conflict") from None
            except GameClosed as closed:
                raise Refused("bot/closed", status=closed.status) from None
            self._cache[game_id] = _Cached(record.version, state)
            self._adopted.add(game_id)  # started by this version: no legacy notices to look for
            table = Table(record, state, self._names(record))
            return Outcome(before, table, tuple(events), rec.version)

    # --- playing ----------------------------------------------------------------------------------------

    def seat_for(self, table: Table, user_id: int) -> int:
        seat = table.seat_of(user_id)
        if seat is None:
            raise Refused("bot/not-a-player")
        return seat

    @staticmethod
    def playing(table: Table) -> GameState:
        status = table.record.status
        if status == "lobby":
            raise Refused("bot/not-started")
        if status != "playing" or table.state is None:
            raise Refused("bot/closed", status=status)
        return table.state

    async def act(
        self,
        game_id: int,
        user_id: int,
        make: Callable[[GameState, int], Action],
        expected_version: int | None = None,
    ) -> Outcome:
        """Build an action for the user's seat from the current state, apply it and save it.

        ``expected_version`` is the store version the user saw (a button's version): an older one is the
        engine's ``game/stale``. A write by another process in between is ``bot/conflict``.
        """
        async with self.lock(game_id):
            before = await self.table_by_id(game_id)
            seat = self.seat_for(before, user_id)
            state = self.playing(before)
            action = make(state, seat)
            return await self._apply(before, state, action, expected_version)

    async def _apply(
        self,
        before: Table,
        state: GameState,
        action: Action,
        expected_version: int | None,
        meta: dict[str, Any] | None = None,
    ) -> Outcome:
        try:
            new_state, events = apply(state, action, expected_version)
        except IllegalAction as err:
            raise Refused(err.code, **err.details) from None
        return await self._save(before, new_state, tuple(events), (action,), meta=meta)

    async def _save(
        self,
        before: Table,
        new_state: GameState,
        events: tuple[Event, ...],
        actions: tuple[Action, ...],
        by_computer: bool = False,
        meta: dict[str, Any] | None = None,
    ) -> Outcome:
        """Save what the engine decided, in one store transaction (all events of the actions, or none),
        with the metadata changes that go with it (``meta``; a game that ends drops its in-play keys)."""
        record = before.record
        waiting = None
        changes = dict(meta or {})
        if new_state.over:
            changes.update(dict.fromkeys(IN_PLAY_META))
        else:
            waiting = before.user_of(new_state.current)
        try:
            saved = await self.store.append(
                record.id,
                record.version,
                [serialize.dump(e) for e in events],
                serialize.dump(new_state),
                self.clock(),
                status="finished" if new_state.over else None,
                waiting_on=waiting,
                meta=changes or None,
            )
        except VersionConflict:
            self._cache.pop(record.id, None)
            raise Refused("bot/conflict") from None
        except GameClosed as closed:
            raise Refused("bot/closed", status=closed.status) from None
        except GameNotFound:
            raise Refused("bot/unknown-game", game=record.id) from None
        self._cache[record.id] = _Cached(saved.version, new_state)
        return Outcome(
            before, Table(saved, new_state, before.names), events, record.version, actions, by_computer
        )

    async def resign(self, game_id: int, user_id: int) -> Outcome:
        return await self.act(game_id, user_id, lambda st, seat: Resign(seat))

    async def abandon(self, game_id: int, user_id: int, can_manage: bool) -> Table:
        table = await self.table_by_id(game_id)
        if table.record.created_by != user_id and not can_manage:
            raise Refused("bot/no-permission")
        if not table.record.active:
            raise Refused("bot/closed", status=table.record.status)
        # Move legacy notices into metadata first: abandoning deletes notices, the turn post with them.
        await self._meta(game_id)
        record = await self.store.abandon_game(game_id, self.clock())
        await self.store.set_game_meta(game_id, dict.fromkeys(IN_PLAY_META), self.clock())
        self._turn_posts.pop(game_id, None)
        return await self._table(record)

    async def agree(self, game_id: int, user_id: int) -> tuple[Table, list[int], Outcome | None]:
        """Record the user's vote to end the game; when every active player agreed, end it (P3).

        Returns the table, the seats still to agree, and the outcome if the game ended.
        """
        async with self.lock(game_id):
            table = await self.table_by_id(game_id)
            seat = self.seat_for(table, user_id)
            state = self.playing(table)
            agreed = _user_ids((await self._meta(game_id)).get(META_AGREED))
            voted = self._seats(table, agreed)
            if seat in voted:
                waiting = [s for s in active_players(state) if s not in voted]
                raise Refused("bot/already-voted", waiting=", ".join(table.speaker.seat(s) for s in waiting))
            voted.add(seat)
            waiting = [s for s in active_players(state) if s not in voted]
            if waiting:
                votes = {META_AGREED: sorted(agreed | {user_id})}
                await self.store.set_game_meta(game_id, votes, self.clock())
                return table, waiting, None
            # The last vote is not stored: the game ends with it, and ending clears the votes (_save).
            outcome = await self._apply(table, state, EndByAgreement(seat), None)
            return outcome.table, [], outcome

    async def votes(self, table: Table) -> set[int]:
        """The seats of the players who agreed to end the game (P3)."""
        return self._seats(table, _user_ids((await self._meta(table.id)).get(META_AGREED)))

    @staticmethod
    def _seats(table: Table, user_ids: set[int]) -> set[int]:
        return {s for s in (table.seat_of(u) for u in user_ids) if s is not None}

    # --- bot bookkeeping kept in the store's per-game metadata -------------------------------------------

    def _meta_lock(self, game_id: int) -> asyncio.Lock:
        # Separate from the game's action lock: bookkeeping is written while an action holds that one.
        lk = self._meta_locks.get(game_id)
        if lk is None:
            lk = self._meta_locks[game_id] = asyncio.Lock()
        return lk

    async def _meta(self, game_id: int) -> dict[str, Any]:
        """The game's metadata, after moving any legacy bookkeeping notices into it (once per process)."""
        if game_id not in self._adopted:
            async with self._meta_lock(game_id):
                if game_id not in self._adopted:
                    await self._adopt_legacy(game_id)
                    self._adopted.add(game_id)
        return await self.store.get_game_meta(game_id)

    async def _adopt_legacy(self, game_id: int) -> None:
        """Compatibility: a database written before per-game metadata keeps the bot's bookkeeping as
        notices due in 2100 (kinds ``turn-post``, ``pinged:<uid>``, ``agree``, ``absent:<uid>``, ``nudge``).

        So that a game in play carries on after the upgrade, each one whose metadata key is missing is
        copied into the metadata, then the old notices are deleted: a key removed later (a player back
        from absence) must not come back from them. Remove once no such database is left.
        """
        old = [n for n in await self.store.pending_notices(game_id) if _is_legacy_kind(n.kind)]
        if not old:
            return
        meta = await self.store.get_game_meta(game_id)
        changes: dict[str, Any] = {}
        pinged: dict[str, float] = {}
        agreed: set[int] = set()
        absent: set[int] = set()
        nudged: list[float] = []
        for n in old:
            if n.kind == LEGACY_TURN_POST:
                p = n.payload
                changes[META_TURN_POST] = {
                    "message": int(p["message_id"]),
                    "since": int(p["since"]),
                    "pinged": None if p.get("pinged") is None else float(p["pinged"]),
                }
            elif n.kind.startswith(LEGACY_PINGED):
                uid = n.kind.removeprefix(LEGACY_PINGED)
                pinged[uid] = max(pinged.get(uid, 0.0), float(n.payload["at"]))
            elif n.kind == LEGACY_AGREE and n.user_id is not None:
                agreed.add(n.user_id)
            elif n.kind.startswith(LEGACY_ABSENT):
                absent.add(int(n.kind.removeprefix(LEGACY_ABSENT)))
            elif n.kind == LEGACY_NUDGE:
                nudged.append(float(n.payload.get("at", 0.0)))
        if pinged:
            changes[META_PINGED] = pinged
        if agreed:
            changes[META_AGREED] = sorted(agreed)
        if absent:
            changes[META_ABSENT] = sorted(absent)
        if nudged:
            changes[META_NUDGED_AT] = max(nudged)
        changes = {k: v for k, v in changes.items() if k not in meta}
        try:
            if changes:
                await self.store.set_game_meta(game_id, changes, self.clock())
            await self.store.cancel_notices(game_id, sorted({n.kind for n in old}))
        except GameNotFound:
            pass

    async def turn_post(self, game_id: int) -> tuple[int, int, float | None] | None:
        """(message id, version of its TurnStarted event, when its player was pinged before) of the current
        turn's public message."""
        known = self._turn_posts.get(game_id)
        if known is not None:
            return known
        post = (await self._meta(game_id)).get(META_TURN_POST)
        if not isinstance(post, dict):
            return None
        pinged = post.get("pinged")
        known = (int(post["message"]), int(post["since"]), None if pinged is None else float(pinged))
        self._turn_posts[game_id] = known
        return known

    async def set_turn_post(self, game_id: int, message_id: int, since: int, pinged: float | None) -> None:
        self._turn_posts[game_id] = (message_id, since, pinged)
        try:
            await self._meta(game_id)  # a legacy turn-post notice must not outlive this one
            await self.store.set_game_meta(
                game_id,
                {META_TURN_POST: {"message": message_id, "since": since, "pinged": pinged}},
                self.clock(),
            )
        except GameNotFound:
            pass

    async def last_pinged(self, game_id: int, user_id: int) -> float | None:
        pinged = (await self._meta(game_id)).get(META_PINGED)
        at = pinged.get(str(user_id)) if isinstance(pinged, dict) else None
        return None if at is None else float(at)

    async def set_pinged(self, game_id: int, user_id: int) -> None:
        await self._meta(game_id)
        async with self._meta_lock(game_id):  # read, change, write: two pings at once must both count
            pinged = (await self.store.get_game_meta(game_id)).get(META_PINGED)
            pinged = dict(pinged) if isinstance(pinged, dict) else {}
            now = self.clock()
            pinged[str(user_id)] = now
            await self.store.set_game_meta(game_id, {META_PINGED: pinged}, now)

    async def _prefs(self, user_id: int) -> ReminderPrefs:
        try:
            return ReminderPrefs.from_settings(await self.store.get_user_settings(user_id))
        except ValueError:  # a bad stored setting must not stop the game: use the table's interval
            return ReminderPrefs()

    async def schedule_reminder(
        self,
        game_id: int,
        user_id: int,
        since: int,
        turn_started_at: float,
        last_sent: float | None = None,
        version: int | None = None,
    ) -> float | None:
        """Plan the next reminder of a waiting player (bot.schedule decides when); returns its time.

        The notice lives in the store, so a reminder planned before a restart is still there after it;
        there is one per game (the previous one is cancelled), so a wait is never reminded twice at once.
        ``version`` is the game's version the wait began at: a reminder found due at a later version
        comes after the player acted, and is planned again from that action instead of being sent.
        """
        prefs = await self._prefs(user_id)
        due = next_reminder(turn_started_at, self.reminder_hours, prefs, last_sent)
        await self.store.cancel_notices(game_id, [REMIND])
        if due is not None:
            payload: dict[str, Any] = {"since": since, "started": turn_started_at}
            if version is not None:
                payload["version"] = version
            if last_sent is not None:
                payload["last_sent"] = last_sent
            await self.store.schedule_notice(
                game_id, REMIND, due, self.clock(), user_id=user_id, payload=payload
            )
        return due

    async def due_reminders(self, now: float) -> list[tuple[Notice, Table]]:
        """Reminders to send now: each claimed once (at most once beats a double ping) and still relevant.

        A reminder that was due while the bot was down is found here once when it is back (its notice
        waited in the store); it is sent once, and the next is planned from then. One that falls in the
        player's quiet hours (e.g. found after downtime) is moved to their end; one for a player who acted
        since it was planned is planned again from that action; one for a wait that is over is dropped.
        """
        out: list[tuple[Notice, Table]] = []
        for n in await self.store.due_notices(now):
            if n.kind != REMIND or n.game_id is None or n.user_id is None:
                continue
            if not await self.store.mark_notice_sent(n.id, now):
                continue
            try:
                table = await self.table_by_id(n.game_id)
            except Refused:
                continue
            post = await self.turn_post(n.game_id)
            if table.record.status != "playing" or table.current_user != n.user_id:
                continue
            since = int(n.payload.get("since", 0))
            if post is not None and post[1] != since:
                continue  # the turn has moved on since this reminder was planned
            if await self.is_absent(n.game_id, n.user_id):
                continue  # the computer plays for them: a ping would only be noise
            planned_at = n.payload.get("version")
            if planned_at is not None and int(planned_at) != table.version:
                # The player acted since (a move, an action): the wait starts again from that action.
                await self.schedule_reminder(
                    n.game_id, n.user_id, since, table.record.updated_at, None, table.version
                )
                continue
            quiet_end = quiet_until(now, await self._prefs(n.user_id))
            if quiet_end is not None:
                await self.store.schedule_notice(
                    n.game_id, REMIND, quiet_end, now, user_id=n.user_id, payload=n.payload
                )
                continue
            out.append((n, table))
        return out

    # --- deadlines (P2) and the computer player -----------------------------------------------------------

    @staticmethod
    def policy(table: Table) -> DeadlinePolicy:
        try:
            return parse_policy(str(table.record.options.get("deadline_policy") or "skip"))
        except ValueError:
            return DeadlinePolicy.SKIP

    async def absent_users(self, game_id: int) -> set[int]:
        """The players the computer plays for (deadline policy autoplay), until they take their seat back."""
        return _user_ids((await self._meta(game_id)).get(META_ABSENT))

    async def is_absent(self, game_id: int, user_id: int) -> bool:
        return user_id in await self.absent_users(game_id)

    async def schedule_deadline(self, table: Table, since: int, turn_started_at: float) -> float | None:
        """At a table with a deadline, plan the end of this turn's time (bot.schedule decides when).

        At an autoplay table, the turn of a player marked absent is due at once: the computer plays it
        on the next round (within a minute) instead of making the others wait a whole deadline again.
        Not when every player still in the game is absent: then the table's deadline paces the game, so
        a table nobody watches does not play itself to the end in minutes.
        """
        due = turn_deadline(turn_started_at, table.record.options.get("deadline_hours"))
        await self.store.cancel_notices(table.id, [DEADLINE])
        uid = table.current_user
        if due is None or table.state is None or uid is None:
            return None
        if self.policy(table) is DeadlinePolicy.AUTOPLAY:
            absent = await self.absent_users(table.id)
            playing = {table.user_of(s) for s in active_players(table.state)}
            if uid in absent and not playing <= absent:
                due = min(due, self.clock())
        await self.store.schedule_notice(
            table.id,
            DEADLINE,
            due,
            self.clock(),
            user_id=uid,
            payload={"since": since, "turn": table.state.turn},
        )
        return due

    async def overdue(self, now: float) -> list[Outcome]:
        """Apply the table's policy to every turn past its deadline: skip it (P2, SkipTurn: no move, no
        action), or let the computer play it (autoplay) and mark the player absent."""
        out: list[Outcome] = []
        for n in await self.store.due_notices(now):
            if n.kind != DEADLINE or n.game_id is None or not await self.store.mark_notice_sent(n.id, now):
                continue
            turn = int(n.payload.get("turn", -1))
            async with self.lock(n.game_id):
                try:
                    table = await self.table_by_id(n.game_id)
                    state = self.playing(table)
                except Refused:
                    continue
                if state.turn != turn or table.current_user != n.user_id:
                    continue  # the player acted in time
                try:
                    if self.policy(table) is DeadlinePolicy.AUTOPLAY:
                        # The player is absent from this turn on: saved with the turn played for them.
                        absent = await self.absent_users(table.id)
                        uid = table.current_user
                        meta = None if uid is None or uid in absent else {META_ABSENT: sorted(absent | {uid})}
                        outcome = await self._autoplay(table, state, meta)
                    else:
                        outcome = await self._apply(table, state, SkipTurn(state.current), table.version)
                except Refused:
                    continue
                out.append(outcome)
        return out

    async def _autoplay(self, table: Table, state: GameState, meta: dict[str, Any] | None = None) -> Outcome:
        """The engine's greedy player finishes the current turn; saved as one change (all or nothing)."""
        seat, turn = state.current, state.turn
        # Seeded from the game and its version: the same game at the same point plays the same way.
        rng = random.Random(table.id * 1_000_003 + state.version)

        def play() -> tuple[GameState, list[Event], list[Action]] | None:
            cur, events, actions = state, [], []
            for _ in range(AUTOPLAY_CAP):
                action = greedy_player(cur, rng)
                try:
                    cur, evs = apply(cur, action)
                except IllegalAction:
                    return None
                events.extend(evs)
                actions.append(action)
                if cur.over or cur.turn != turn or cur.current != seat:
                    return cur, events, actions
            return None

        played = await asyncio.to_thread(play)
        if played is None:  # the computer player failed or looped: the deadline's plain rule instead
            return await self._apply(table, state, SkipTurn(seat), table.version, meta)
        new_state, events, actions = played
        return await self._save(table, new_state, tuple(events), tuple(actions), by_computer=True, meta=meta)

    async def take_seat_back(self, game_id: int, user_id: int) -> tuple[Table, float | None]:
        """Clear the player's absent flag: the computer no longer plays for them.

        Back during their own turn, their deadline counts again from now (the full deadline), since the
        turn was about to be played for them at once.
        """
        async with self.lock(game_id):
            table = await self.table_by_id(game_id)
            self.seat_for(table, user_id)
            self.playing(table)
            absent = await self.absent_users(game_id)
            if user_id not in absent:
                raise Refused("bot/not-absent")
            await self.store.set_game_meta(game_id, {META_ABSENT: sorted(absent - {user_id})}, self.clock())
            due = None
            if table.current_user == user_id:
                post = await self.turn_post(game_id)
                since = post[1] if post is not None else table.version
                due = await self.schedule_deadline(table, since, self.clock())
            return table, due

    # --- players asking about and nudging each other ------------------------------------------------------

    async def waiting_on(self, user_id: int) -> list[tuple[GameRecord, int | None]]:
        """Every game in play, on any server, whose current turn is this user's, with its turn message id."""
        out: list[tuple[GameRecord, int | None]] = []
        for record in await self.store.games_waiting_on(user_id):
            if record.status != "playing":
                continue
            post = await self.turn_post(record.id)
            out.append((record, post[0] if post is not None else None))
        out.sort(key=lambda rm: rm[0].turn_started_at or 0.0)
        return out

    async def nudge(self, game_id: int, user_id: int) -> Table:
        """Another seated player nudges the waiting one: once per 24 hours per game (bot.schedule)."""
        async with self.lock(game_id):
            table = await self.table_by_id(game_id)
            self.seat_for(table, user_id)
            self.playing(table)
            waiting = table.current_user
            if waiting == user_id:
                raise Refused("bot/nudge-self")
            now = self.clock()
            at = (await self._meta(game_id)).get(META_NUDGED_AT)
            last = None if at is None else float(at)
            if not nudge_allowed(last, now):
                raise Refused("bot/nudge-too-soon", at=next_nudge_at(last))
            await self.store.set_game_meta(game_id, {META_NUDGED_AT: now}, now)
            return table

    async def events_since(self, game_id: int, since_version: int) -> list[Event]:
        """Events with a version >= ``since_version`` (the whole current turn, for its message)."""
        rows = await self.store.events(game_id, since_version=max(0, since_version - 1))
        return [serialize.load(body) for _, body in rows]

    async def last_events(self, game_id: int, limit: int) -> list[Event]:
        rows = await self.store.events(game_id, limit=limit)
        return [serialize.load(body) for _, body in rows]
