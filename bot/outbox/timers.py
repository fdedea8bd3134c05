"""Reminders and turn deadlines, as they fall due: does the timer still apply, and what happens then.

A timer is an outbox duty (bot.outbox.duties ``remind`` / ``deadline``) written with the commit that started
the turn, so it waits in the store while the bot is down and is handled once when it is back.

- A **reminder** pings the waiting player once, and plans the next one (bot.games.schedule decides when). It
  is dropped when the turn moved on or the player is absent (the computer plays for them); planned again from
  the player's last action when they acted since; moved to the end of their quiet hours when it falls in
  them.
- A **deadline** applies the table's policy to a turn still waiting (P2): skip it (``SkipTurn``), or let
  the computer finish it and mark the player absent (autoplay). The announcement is written in the same
  commit as the turn it describes.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import discord

from engine.actions import SkipTurn
from engine.errors import IllegalAction
from engine.game import apply
from engine.state import GameState
from storage import Duty, NewDuty, VersionConflict

from ..games import computers
from ..games.schedule import DeadlinePolicy, next_reminder, quiet_until
from ..games.seat_rules import is_paused, turn_due, vacation_until
from ..games.tables import Refused, Table
from ..games.thinking import Thinkers
from ..process import metrics
from ..texts import posts, private
from ..words import i18n
from . import duties as dt
from . import notices
from .pipeline import META_ABSENT, Pipeline, policy_of, user_ids

log = logging.getLogger("bot")


class Timers:
    """Handles the ``remind`` and ``deadline`` duties for the delivery worker."""

    def __init__(self, client: discord.Client, pipeline: Pipeline, thinkers: Thinkers | None = None) -> None:
        self.client = client
        self.pipeline = pipeline
        self.thinkers = thinkers or Thinkers()  # computers think in worker processes (bot.games.thinking)
        self.store = pipeline.store

    async def handle(self, duty: Duty, now: float) -> str:
        if duty.kind == dt.REMIND:
            return await self.remind(duty, now)
        return await self.deadline(duty, now)

    # --- reminders ---------------------------------------------------------------------------------------

    async def remind(self, duty: Duty, now: float) -> str:
        assert duty.game_id is not None and duty.user_id is not None
        uid = duty.user_id
        since = int(duty.payload.get("since", 0))
        table = await self._waiting(duty.game_id, uid, since)
        if table is None:
            return "dropped: the turn moved on"
        if uid in user_ids((await self.store.get_game_meta(table.id)).get(META_ABSENT)):
            return "dropped: the computer plays for them"
        if is_paused(table.record.options):
            return "dropped: the game is paused"
        away = vacation_until(table.record.options, uid, now)
        if away is not None:  # on vacation: no reminder until they are back
            moved = NewDuty(**{**_fields(duty), "due_at": away})
            if not await self._for_this_wait(table, since, lambda t: self._add(t, [moved], now)):
                return "dropped: the turn moved on"
            return "moved to the end of the vacation"
        planned_at = duty.payload.get("version")
        if planned_at is not None and int(planned_at) != table.version:
            # The player acted since (a move, an action): the wait starts again from that action.
            if not await self._for_this_wait(
                table, since, lambda t: self._plan(t, since, t.record.updated_at, None, now)
            ):
                return "dropped: the turn moved on"
            return "replanned: the player acted since"
        prefs = await self.pipeline.prefs.get(uid)
        quiet_end = quiet_until(now, prefs)
        if quiet_end is not None:
            moved = NewDuty(**{**_fields(duty), "due_at": quiet_end})
            if not await self._for_this_wait(table, since, lambda t: self._add(t, [moved], now)):
                return "dropped: the turn moved on"
            return "moved to the end of the quiet hours"
        started = float(duty.payload.get("started") or table.record.turn_started_at or now)
        # The player's settings as they are now, not as they were when this reminder was planned: one who
        # turned reminders off (or chose a longer interval) during the wait is not reminded on the old ones.
        sent = duty.payload.get("last_sent")
        last_sent = None if sent is None else float(sent)
        due = next_reminder(started, self.pipeline.reminder_hours, prefs, last_sent)
        if due is None or due > now:
            if not await self._for_this_wait(
                table, since, lambda t: self._plan(t, since, started, last_sent, now)
            ):
                return "dropped: the turn moved on"
            return "dropped: reminders are off" if due is None else "moved: the player's interval changed"
        if notices.wants_dm(await self.pipeline.prefs.settings(uid)):
            if not await self._for_this_wait(
                table, since, lambda t: self._remind_by_dm(t, uid, since, started, now)
            ):
                return "dropped: the turn moved on"
            return "sent as a direct message duty"
        msg = await self.client.get_partial_messageable(table.record.channel_id).send(
            posts.reminder_text(table, uid, started),
            allowed_mentions=discord.AllowedMentions(users=[discord.Object(uid)]),
            nonce=f"alx-{duty.id}",
        )
        log.info("reminder game=%s channel=%s user=%s", table.id, table.record.channel_id, uid)
        await self._for_this_wait(table, since, lambda t: self._plan(t, since, started, now, now))
        return f"sent {msg.id}"

    async def given_up(self, duty: Duty, now: float) -> None:
        """A reminder Discord would not take (a missing permission, a deleted channel, or failures past
        every retry): the wait still gets its next one, which would otherwise only be planned after a send."""
        if duty.kind != dt.REMIND or duty.game_id is None or duty.user_id is None:
            return
        since = int(duty.payload.get("since", 0))
        table = await self._waiting(duty.game_id, duty.user_id, since)
        if table is None:
            return
        started = float(duty.payload.get("started") or table.record.turn_started_at or now)
        await self._for_this_wait(table, since, lambda t: self._plan(t, since, started, now, now))

    async def _waiting(self, game_id: int, uid: int, since: int) -> Table | None:
        """The game as it is now, if it still waits on ``uid`` in the turn that began at version ``since``
        (the wait a reminder belongs to); None if it is gone, over, or moved on to another turn or player."""
        try:
            table = await self.pipeline.tables.by_id(game_id)
        except Refused:
            return None
        if table.record.status != "playing" or table.current_user != uid:
            return None
        current, _ = await self.pipeline.current_turn(table)
        return None if current is not None and current != since else table

    async def _for_this_wait(
        self, table: Table, since: int, write: Callable[[Table], Awaitable[None]]
    ) -> bool:
        """Run ``write`` (which replaces this wait's reminder: same key) only while the wait is still this
        one; False if it is not. ``write`` names the version it was planned from: a commit since then that
        moved the turn on planned the next player's reminder, which this one must not replace (a reminder
        being sent while its player ends the turn used to wipe out the next player's reminders). A commit
        of the same player within the same turn is planned from again."""
        uid = table.current_user
        assert uid is not None
        for _ in range(5):
            try:
                await write(table)
                return True
            except VersionConflict:
                fresh = await self._waiting(table.id, uid, since)
                if fresh is None:
                    return False
                table = fresh
        log.warning("game %s kept changing while its reminder was planned; left unplanned", table.id)
        return False

    async def _add(
        self, table: Table, duties: list[NewDuty], now: float, cancel_keys: Sequence[str] = ()
    ) -> None:
        await self.store.add_duties(table.id, duties, now, cancel_keys=cancel_keys, at_version=table.version)

    async def _plan(
        self, table: Table, since: int, started: float, last_sent: float | None, now: float
    ) -> None:
        """The next reminder of this wait, planned from ``table``; it replaces the one being handled (same
        key), or cancels it when there is none to come."""
        uid = table.current_user
        assert uid is not None
        due = next_reminder(
            started, self.pipeline.reminder_hours, await self.pipeline.prefs.get(uid), last_sent
        )
        if due is None:
            await self._add(table, [], now, cancel_keys=[dt.REMIND])
        else:
            await self._add(table, [dt.reminder(table, since, started, due, last_sent)], now)

    async def _remind_by_dm(self, table: Table, uid: int, since: int, started: float, now: float) -> None:
        """The reminder as a ``dm`` duty (bot.outbox.notices), written in one transaction with the next
        reminder, which replaces this one: handled again after a crash, it cannot be sent twice."""
        with i18n.speaking(notices.dm_language(await self.pipeline.prefs.settings(uid), table)):
            text = private.dm_reminder_text(table, started)
        fallback = posts.reminder_text(table, uid, started)
        due = next_reminder(started, self.pipeline.reminder_hours, await self.pipeline.prefs.get(uid), now)
        out = [notices.dm_duty(table.record, uid, since, text, fallback, now)]
        if due is not None:
            out.append(dt.reminder(table, since, started, due, now))
        await self._add(table, out, now, cancel_keys=() if due is not None else [dt.REMIND])
        log.info("reminder by dm game=%s user=%s", table.id, uid)

    # --- deadlines (P2) ------------------------------------------------------------------------------------

    async def deadline(self, duty: Duty, now: float) -> str:
        assert duty.game_id is not None
        turn = int(duty.payload.get("turn", -1))
        pipeline = self.pipeline
        async with pipeline.tables.locks.hold(duty.game_id):
            try:
                table = await pipeline.tables.by_id(duty.game_id)
                state = table.playing()
            except Refused:
                return "dropped: the game is over"
            if state.turn != turn or table.current_user != duty.user_id:
                return "dropped: the player acted in time"
            if is_paused(table.record.options):
                return "dropped: the game is paused"
            if vacation_until(table.record.options, duty.user_id, now) is not None:
                # The player went on vacation: their deadline waits until they are back (and a whole
                # deadline after that: seat_rules.turn_due).
                since = int(duty.payload.get("since", 0))
                due = turn_due(table.record.options, duty.user_id, table.record.turn_started_at)
                assert due is not None and due > now
                await self.store.add_duties(table.id, [dt.deadline(table, since, due)], now)
                return "moved to the end of the vacation"
            hours = float(table.record.options.get("deadline_hours") or 0)
            uid = table.current_user
            rng = random.Random(table.id * 1_000_003 + state.version)
            if computers.is_computer(uid):  # a computer seat: its turn is due as soon as it starts
                assert uid is not None
                level = computers.seat_level(table.record.options, uid)
                metrics.QUEUE.labels("computer").inc()
                try:
                    played = await self.thinkers.turn(state, level, rng)
                finally:
                    metrics.QUEUE.labels("computer").dec()
                if played is None:
                    return await self._skip(
                        table, state, None, posts.skipped_text(uid, hours, table.locale), now
                    )
                new_state, events, actions = played
                # No announcement of its own: the commit closes the computer's turn post with its steps
                # (bot.outbox.duties.after_change), the one post of its turn.
                await pipeline.commit(
                    table, new_state, events, actions, by_computer=True, user_id=uid, via="computer"
                )
                return f"played by the computer ({level})"
            if policy_of(table.record) is DeadlinePolicy.AUTOPLAY:
                absent = user_ids((await self.store.get_game_meta(table.id)).get(META_ABSENT))
                meta = None if uid is None or uid in absent else {META_ABSENT: sorted(absent | {uid})}
                level = computers.table_level(table.record.options)
                played = await self.thinkers.turn(state, level, rng)
                if played is not None:
                    new_state, events, actions = played
                    # Why the computer played (the steps are on the turn post, closed by this commit).
                    note = dt.say(
                        table.record.channel_id,
                        posts.autoplay_text(table, uid, hours, absent=uid in absent),
                        now=now,
                    )
                    await pipeline.commit(
                        table, new_state, events, actions, by_computer=True, meta=meta, extra=[note],
                        user_id=uid, via="computer",
                    )  # fmt: skip
                    return "played by the computer"
            else:
                meta = None
            return await self._skip(table, state, meta, posts.skipped_text(uid, hours, table.locale), now)

    async def _skip(
        self, table: Table, state: GameState, meta: dict[str, Any] | None, text: str, now: float
    ) -> str:
        """P2: the turn passes with no move and no action, with its announcement."""
        note = dt.say(table.record.channel_id, text, now=now)
        try:
            new_state, evs = apply(state, SkipTurn(state.current))
        except IllegalAction as err:
            return f"dropped: {err.code}"
        await self.pipeline.commit(
            table, new_state, tuple(evs), (SkipTurn(state.current),), meta=meta, extra=[note],
            user_id=table.current_user, via="deadline",
        )  # fmt: skip
        return "skipped"


def _fields(duty: Duty) -> dict[str, Any]:
    return {
        "kind": duty.kind,
        "due_at": duty.due_at,
        "channel_id": duty.channel_id,
        "user_id": duty.user_id,
        "payload": duty.payload,
        "key": duty.key,
    }
