"""The one path every action takes: find the game -> seat and version -> parse -> apply -> one commit.

Every slash command, button, select and timer that changes a game goes through ``Pipeline.act`` (or
``Pipeline.commit`` for a change the bot itself decided, such as a deadline). The order is the point:

1. **Find** the game's record (its row: status, seats, version, whose turn). No state is read yet.
2. **Authorise** from the record alone: the presser must hold a seat; a component made at an older
   version is refused as out of date; someone not on turn is refused as such. Nothing about the current
   state (its cards, its options) is read for someone who may not act on it, so no refusal can leak it.
3. **Parse** the input against the current state, for the seat on turn only.
4. **Apply** it with the engine (``engine.apply``: legal, or ``IllegalAction`` with a stable code).
5. **Commit** once: events, snapshot, version, metadata and every duty the change causes (posts, pings,
   edits, the next reminder and deadline; bot.outbox.duties) in one store transaction. A writer that lost a
   race (another process) is refused as out of date.
6. **Deliver**: the worker (bot.outbox.deliveries) is woken; the interaction's own answer is the caller's.

Reminders and deadlines hang on the commit, never on whether a post succeeded.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from engine import serialize
from engine.actions import Action
from engine.errors import IllegalAction
from engine.events import Event, TurnStarted
from engine.game import apply
from engine.notation import format_action
from engine.rules import active_players
from engine.snapshot import dumps_state
from engine.state import GameState
from storage import GameClosed, GameNotFound, GameRecord, GameStore, NewDuty, VersionConflict

from ..games.computers import is_computer
from ..games.schedule import DeadlinePolicy, ReminderPrefs, next_reminder, parse_policy
from ..games.seat_rules import hint_counts, hints_allowed, is_paused, turn_due
from ..games.tables import Outcome, Refused, Table, Tables, Turn, names_of
from ..process import metrics
from ..words.words import Speaker
from . import duties as dt
from . import ratings, replays

log = logging.getLogger("bot")

Clock = Callable[[], float]

# Per-game metadata keys (JSON values) the bot keeps beside a game's events.
META_TURN_POST = "turn_post"  # {"message": id, "since": version of its TurnStarted}
META_AGREED = "agreed"  # [user ids] who agreed to end the game now (P3)
META_ABSENT = "absent"  # [user ids] the computer plays for (deadline policy autoplay), until they are back
META_NUDGED_AT = "nudged_at"  # when another player last nudged the waiting one (once per 24 hours)
# What only matters while the game is in play: cleared when it ends.
IN_PLAY_META = (META_AGREED, META_ABSENT, META_NUDGED_AT, "pinged")


def user_ids(value: Any) -> set[int]:
    return {int(u) for u in value} if isinstance(value, list) else set()


def policy_of(record: GameRecord) -> DeadlinePolicy:
    try:
        return parse_policy(str(record.options.get("deadline_policy") or "skip"))
    except ValueError:
        return DeadlinePolicy.SKIP


@dataclass(frozen=True)
class Ask:
    """Who asks to act, on which game, against which version.

    A component names its game and the version it was made at; a typed command names its channel and acts
    on the current version. ``turn``: only the player on turn may do this (False: any seated player).
    """

    user_id: int
    channel_id: int | None = None
    game_id: int | None = None
    version: int | None = None
    turn: bool = True
    via: str = ""  # what the user did, for the log: "command alexandros move", "component alx:end:3:41"


class PrefsCache:
    """Users' settings, read once and kept a while: a commit that starts a turn needs the next player's
    reminder interval and whether they want DMs, and must not read the store for it every time. The bot's
    own writes call ``forget``; a change made by another process is seen within ``ttl`` seconds."""

    def __init__(self, store: GameStore, size: int = 5000, ttl: float = 300.0) -> None:
        self.store, self.size, self.ttl = store, size, ttl
        self._items: dict[int, tuple[float, dict[str, Any]]] = {}

    async def settings(self, user_id: int) -> dict[str, Any]:
        now = time.monotonic()
        hit = self._items.get(user_id)
        if hit is not None and now - hit[0] < self.ttl:
            return hit[1]
        settings = dict(await self.store.get_user_settings(user_id))
        if len(self._items) >= self.size:
            self._items.clear()
        self._items[user_id] = (now, settings)
        return settings

    async def get(self, user_id: int) -> ReminderPrefs:
        try:
            return ReminderPrefs.from_settings(await self.settings(user_id))
        except ValueError:  # a bad stored setting must not stop the game: use the table's interval
            return ReminderPrefs()

    def forget(self, user_id: int) -> None:
        self._items.pop(user_id, None)


class Pipeline:
    """Checks, applies and commits actions; see the module docstring for the order of the steps."""

    def __init__(
        self,
        tables: Tables,
        clock: Clock,
        reminder_hours: float,
        wake: Callable[[int], None] = lambda game_id: None,
    ) -> None:
        self.tables = tables
        self.store = tables.store
        self.clock = clock
        self.reminder_hours = reminder_hours
        self.prefs = PrefsCache(tables.store)
        self._wake = wake
        # Told the events of each commit of this process (the web's live pages, when the web is on), so that
        # they need not read back from the store what was just written: (game, version before, events).
        self.on_events: Callable[[int, int, tuple[Event, ...]], None] | None = None
        # Hooks on the duties of every change, in order (bot.outbox.notices: turn pings by DM;
        # bot.commands.dashboard: the pinned status message). Each gets the table as it will be after the
        # change (``hooked``).
        self.duty_hooks: list[Callable[[Table, list[NewDuty], float], Awaitable[list[NewDuty]]]] = []

    # --- steps 1 and 2: find and authorise, from the record alone -------------------------------------

    async def authorise(self, ask: Ask) -> tuple[GameRecord, int]:
        if ask.game_id is not None:
            record = await self.tables.record_of(ask.game_id)
        else:
            record = await self.tables.record_in(ask.channel_id or 0)
        if record.status == "lobby":
            raise Refused("bot/not-started")
        if record.status != "playing":
            raise Refused("bot/closed", status=record.status)
        seat = record.seat_of(ask.user_id)
        if seat is None:
            raise Refused("bot/not-a-player")
        if ask.version is not None and ask.version != record.version:
            raise Refused("game/stale", expected=ask.version, actual=record.version)
        if ask.turn and is_paused(record.options):  # while paused no turn waits on anyone (commands.seats)
            raise Refused("bot/paused")
        if ask.turn and record.waiting_on != ask.user_id:
            current = record.seat_of(record.waiting_on) if record.waiting_on is not None else None
            raise Refused("game/not-your-turn", Speaker(names_of(record)), player=seat, current=current)
        return record, seat

    async def look(self, ask: Ask) -> tuple[Table, GameState, int]:
        """Authorise, then load the state: for menus and previews that show the asker's own options."""
        record, seat = await self.authorise(ask)
        table = await self.tables.load(record)
        if table.version != record.version:
            raise Refused("game/stale", expected=record.version, actual=table.version)
        return table, table.playing(), seat

    # --- steps 3 to 6 ------------------------------------------------------------------------------------

    async def act(
        self,
        ask: Ask,
        parse: Callable[[GameState, int], Action],
        extra: Callable[[Table, int], Sequence[NewDuty]] | None = None,
    ) -> Outcome:
        """One action for the asker's seat: authorise, parse, apply, commit (under the game's lock).
        ``extra``: duties of the asker's own making (the table and their seat), in the same commit, first."""
        game_id = (
            ask.game_id if ask.game_id is not None else (await self.tables.record_in(ask.channel_id or 0)).id
        )
        async with self.tables.locks.hold(game_id):
            table, state, seat = await self.look(dataclasses.replace(ask, game_id=game_id))
            if is_paused(table.record.options):  # resigning too waits for the game to be resumed
                raise Refused("bot/paused")
            action = parse(state, seat)
            try:
                new_state, events = apply(state, action)
            except IllegalAction as err:
                raise Refused(err.code, **err.details) from None
            # The store's point reads do not leave the loop's thread (storage.sqlite._glance): without
            # a turn of the loop here and before the commit's write, 50 handlers woken together ran their
            # checks, apply and commit in one pass each, and held the loop 40-60 ms (bench_bot, 50 games).
            await asyncio.sleep(0)
            return await self.commit(
                table,
                new_state,
                tuple(events),
                (action,),
                extra=extra(table, seat) if extra is not None else (),
                user_id=ask.user_id,
                via=ask.via,
            )

    async def commit(
        self,
        before: Table,
        new_state: GameState,
        events: tuple[Event, ...],
        actions: tuple[Action, ...] = (),
        *,
        by_computer: bool = False,
        meta: dict[str, Any] | None = None,
        extra: Sequence[NewDuty] = (),
        seats: Sequence[tuple[int, int]] | None = None,
        user_id: int | None = None,
        via: str = "bot",
    ) -> Outcome:
        """Save what the engine decided in one transaction: events, snapshot, metadata and every duty."""
        rec = before.record
        now = self.clock()
        changes = dict(meta or {})
        after_seats = tuple(sorted(seats)) if seats is not None else rec.seats
        waiting: int | None = None
        end_duties: list[NewDuty] = []
        hints: dict[int, int] | None = None
        if new_state.over:
            # Ratings and the replay (issue 16): who the computer played for at the end is kept for good
            # (bot.outbox.ratings leaves them out), and the duties that rate the game and post its replay are
            # written with the commit that ends it, so a crash loses neither.
            absent = changes[META_ABSENT] if META_ABSENT in changes else None
            stored = (
                await self.store.get_game_meta(rec.id) if absent is None or hints_allowed(rec.options) else {}
            )
            if absent is None:
                absent = stored.get(META_ABSENT)
            hints = hint_counts(stored)  # the end post says how many hints each player used (issue 29)
            changes.update(dict.fromkeys(IN_PLAY_META))
            changes[ratings.META_COMPUTER] = sorted(user_ids(absent))
            end_duties = [*ratings.end_duties(rec, now), *replays.end_duties(rec, now)]
        else:
            waiting = dict(after_seats).get(new_state.current)
        expected = dataclasses.replace(
            rec,
            status="finished" if new_state.over else "playing",
            version=rec.version + len(events),
            updated_at=now,
            waiting_on=waiting,
            turn_started_at=(rec.turn_started_at if waiting == rec.waiting_on else now) if waiting else None,
            seats=after_seats,
        )
        outcome = Outcome(
            before, Table(expected, new_state, names_of(expected)), events, rec.version, actions, by_computer
        )
        since, turn_events = await self.current_turn(before)
        duties = [*extra, *dt.after_change(outcome, since, turn_events, now, hints)]
        duties += await self.timers_for(outcome, changes)
        duties += end_duties
        duties = await self.hooked(outcome.table, duties, now)
        await asyncio.sleep(0)  # a turn of the loop between the duties and the write's JSON: see act
        try:
            saved = await self.store.append(
                rec.id,
                rec.version,
                [serialize.dump(e) for e in events],
                dumps_state(new_state),  # lean, as JSON text: the map by its digest, stored once (MapBook)
                now,
                status="finished" if new_state.over else ("playing" if rec.status == "lobby" else None),
                waiting_on=waiting,
                seats=seats,
                duties=duties,
                meta=changes or None,
                maps=self.tables.maps.rows_to_store(new_state.map),
            )
        except VersionConflict as conflict:
            self.tables.cache.drop(rec.id)
            raise Refused("game/stale", expected=conflict.expected, actual=conflict.actual) from None
        except GameClosed as closed:
            raise Refused("bot/closed", status=closed.status) from None
        except GameNotFound:
            raise Refused("bot/unknown-game", game=rec.id) from None
        self.tables.maps.stored(new_state.map.digest)
        # The turn's events go into the cache with the state: the next commit needs no read for them.
        new_turn = outcome.new_turn_version
        if new_turn is not None:
            turn: Turn = (new_turn, events[new_turn - rec.version - 1 :])
        else:
            turn = (since, (*turn_events, *events))
        self.tables.cache.put(rec.id, saved.version, new_state, turn)
        for action in actions:  # one log line per action, with its ids, in engine notation
            log.info(
                "action game=%s channel=%s user=%s via=%s: %s",
                rec.id,
                rec.channel_id,
                user_id,
                via,
                format_action(action),
            )
        metrics.ACTIONS.inc(max(len(actions), 1))
        if self.on_events is not None:
            self.on_events(rec.id, rec.version, events)
        self.wake(rec.id)
        return dataclasses.replace(outcome, table=Table(saved, new_state, names_of(saved)))

    def wake(self, game_id: int) -> None:
        """This game changed (a commit): its duties are delivered at once, its live pages told."""
        self._wake(game_id)

    async def hooked(self, table: Table, duties: list[NewDuty], now: float) -> list[NewDuty]:
        """``duties`` as the hooks make them (turn pings by DM, the status message), ``table`` as it will be
        after the change: for every commit, and for the changes with no engine event (bot.commands.seats: a
        seat handed over, a pause, a vacation), which left the status message stale and pinged in the channel
        a player who asked for DMs."""
        for hook in self.duty_hooks:
            duties = await hook(table, duties, now)
        return duties

    async def repost_turn(self, game_id: int) -> bool:
        """Post the current turn again as its turn post (its message was lost); False if none is in play."""
        async with self.tables.locks.hold(game_id):
            table = await self.tables.by_id(game_id)
            if table.record.status != "playing" or table.state is None or table.state.over:
                return False
            since, turn_events = await self.current_turn(table)
            now = self.clock()
            # A game whose snapshot is still an old one may have no stored map yet: then the picture
            # carries its map (the duty cannot count on the maps table).
            lean = await self.tables.maps.is_stored(table.state.map)
            await self.store.add_duties(
                game_id, [dt.turn_post(table, since or table.version, turn_events, now, lean=lean)], now
            )
        self.wake(game_id)
        return True

    async def current_turn(self, table: Table) -> tuple[int | None, list[Event]]:
        """The version of the current turn's TurnStarted event and the turn's events (from the state cache,
        kept there by the last commit; else one read)."""
        if table.state is None or table.version == 0:
            return None, []
        cached = self.tables.cache.turn(table.id, table.version)
        if cached is not None:
            return cached[0], list(cached[1])
        for limit in (40, None):
            rows = await self.store.events(table.id, limit=limit)
            for i in range(len(rows) - 1, -1, -1):
                event = serialize.load(rows[i][1])
                if isinstance(event, TurnStarted):
                    return rows[i][0], [event, *(serialize.load(b) for _, b in rows[i + 1 :])]
        return None, []

    # --- the timers a new turn needs ----------------------------------------------------------------------

    async def timers_for(self, outcome: Outcome, meta_changes: dict[str, Any]) -> list[NewDuty]:
        """The reminder and the deadline of a turn that starts with this change (none when it goes on)."""
        table = outcome.table
        since = outcome.new_turn_version
        if since is None or table.current_user is None or table.state is None:
            return []
        started = table.record.turn_started_at or self.clock()
        return await self.wait_timers(table, since, started, meta_changes)

    async def wait_timers(
        self, table: Table, since: int, started: float, meta_changes: dict[str, Any] | None = None
    ) -> list[NewDuty]:
        """The waiting seat's reminder and deadline, its wait counted from ``started`` (a turn's start, or
        a game resumed, or a seat taken over)."""
        uid = table.current_user
        assert uid is not None
        if is_computer(uid):  # a computer seat plays at once (bot.outbox.timers), and is never reminded
            return [dt.deadline(table, since, self.clock())]
        out: list[NewDuty] = []
        due = next_reminder(started, self.reminder_hours, await self.prefs.get(uid), None)
        if due is not None:
            out.append(dt.reminder(table, since, started, due))
        deadline = await self.deadline_for(table, since, started, meta_changes)
        if deadline is not None:
            out.append(deadline)
        return out

    async def deadline_for(
        self, table: Table, since: int, started: float, meta_changes: dict[str, Any] | None = None
    ) -> NewDuty | None:
        """At a table with a deadline, the end of this turn's time.

        At an autoplay table, the turn of a player marked absent is due at once: the computer plays it
        on the next round instead of making the others wait a whole deadline again. Not when every player
        still in the game is absent: then the table's deadline paces the game, so a table nobody watches
        does not play itself to the end in minutes. Computer seats do not count as players here: a table of
        absent people and a computer is a table nobody watches.
        """
        uid = table.current_user
        # A player on vacation: the deadline waits for their return, and gives them a whole one then.
        due = turn_due(table.record.options, uid, started)
        if due is None or table.state is None or uid is None:
            return None
        if policy_of(table.record) is DeadlinePolicy.AUTOPLAY:
            if meta_changes is not None and META_ABSENT in meta_changes:
                absent = user_ids(meta_changes[META_ABSENT])
            else:
                absent = user_ids((await self.store.get_game_meta(table.id)).get(META_ABSENT))
            people = {table.user_of(s) for s in active_players(table.state)}
            playing = {u for u in people if not is_computer(u)}
            if uid in absent and not playing <= absent:
                due = min(due, self.clock())
        return dt.deadline(table, since, due)
