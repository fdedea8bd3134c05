"""Seats over days: taking back a step (P10), handing a seat to another member (who accepts with a
button), the creator replacing a player who has gone, vacations, and pausing the whole game.

A seat change, a vacation and a pause have no engine event: each is one ``store.amend`` at the game's
version, holding the new seats or options, the public note, the turn post's edit and the timers of the
turn (a reminder and deadline for whoever holds the waiting seat now, or none while paused).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import discord

from engine.actions import Undo
from engine.errors import IllegalAction
from engine.game import apply
from engine.state import COLOURS, GameState, Phase
from storage import KEEP, GameRecord, NewDuty, VersionConflict

from ..games.computers import is_computer
from ..games.seat_rules import (
    DAY,
    MAX_VACATION_DAYS,
    OPT_PAUSED,
    is_paused,
    turn_due,
    vacation_until,
    vacations,
    with_vacation,
)
from ..games.tables import OPT_FORMER, Refused, Table, names_of
from ..outbox import duties as dt
from ..outbox.pipeline import META_ABSENT, user_ids
from ..texts import posts, private
from ..texts.components import GameButton, cid_button
from ..texts.freeing import release
from ..words import i18n
from .answers import applied, defer_private, display_name, say
from .context import Context

META_OFFERS = "seat_offers"  # {seat: [holder's user id, offered to, offered by]}: one open offer per seat


def offer_view(game_id: int, seat: int, to_user: int, locale: str) -> discord.ui.View:
    """The Accept button under a public seat offer, in the game's language like the offer itself."""
    with i18n.speaking(locale):
        label = private.accept_seat()
    v = discord.ui.View(timeout=None)
    v.add_item(GameButton(cid_button("seatok", game_id, seat, to_user), label, discord.ButtonStyle.success))
    return v


class Seats:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    # --- undo (P10) ---------------------------------------------------------------------------------------

    async def undo(
        self, interaction: discord.Interaction, game_id: int | None = None, version: int | None = None
    ) -> None:
        """``/alexandros game undo`` or the turn post's Undo button (which names its game and version): the
        player on turn takes back their last step; the channel is told."""
        ctx = self.ctx

        async def body() -> None:
            await defer_private(interaction)
            ask = ctx.ask(interaction, game_id, version)
            if game_id is None:
                record = await ctx.tables.record_in(interaction.channel_id or 0)
                ask = dataclasses.replace(ask, game_id=record.id)
            assert ask.game_id is not None
            async with ctx.tables.locks.hold(ask.game_id):
                table, state, seat = await ctx.pipeline.look(ask)
                if is_paused(table.record.options):
                    raise Refused("bot/paused")
                action = Undo(seat)
                try:
                    new_state, events = apply(state, action)
                except IllegalAction as err:
                    raise Refused(err.code, **err.details) from None
                move = new_state.phase is Phase.MOVE  # back before the move: the move was taken back
                note = dt.say(
                    table.record.channel_id,
                    posts.took_back_public(table.speaker.seat(seat), table.locale, move),
                    now=ctx.clock(),
                )
                await ctx.pipeline.commit(
                    table, new_state, tuple(events), (action,), extra=[note], user_id=ask.user_id, via=ask.via
                )
                applied(interaction)
            await say(interaction, private.took_back(more=bool(new_state.undo.points)))

        await ctx.guard(interaction, body)

    # --- handing a seat over ------------------------------------------------------------------------------

    async def offer(
        self, interaction: discord.Interaction, to: discord.abc.User, player: discord.abc.User | None
    ) -> None:
        """``/alexandros handover to:`` (the asker's own seat) or ``/alexandros replace player: with:``
        (the creator or a member with Manage Channels, for a player who has gone)."""
        ctx = self.ctx

        async def body() -> None:
            found = await ctx.tables.record_in(interaction.channel_id or 0)
            interaction.extras["game"] = found.id
            # Under the game's lock: the offers are read, changed and written back whole, as Accept does.
            async with ctx.tables.locks.hold(found.id):
                await locked(await ctx.tables.record_of(found.id))

        async def locked(record: GameRecord) -> None:
            holder = player if player is not None else interaction.user
            if player is not None:
                _may_manage(record, interaction, "replace a player")
            if record.status != "playing":
                Table(record, None, names_of(record)).playing()  # the refusal that says why not
            seat = record.seat_of(holder.id)
            if seat is None:
                raise Refused("bot/not-a-player")
            if to.bot or record.seat_of(to.id) is not None or to.id == holder.id:
                raise Refused("bot/offer-bad-member", who=display_name(to))
            state = (await ctx.tables.load(record)).playing()  # read for one public fact: resigned or not
            if state.players[seat].resigned:
                raise Refused("game/resigned", Table(record, None, names_of(record)).speaker, player=seat)
            offers = dict((await ctx.store.get_game_meta(record.id)).get(META_OFFERS) or {})
            offers[str(seat)] = [holder.id, to.id, interaction.user.id]
            await ctx.store.set_game_meta(record.id, {META_OFFERS: offers}, ctx.clock())
            table = Table(record, None, names_of(record))
            text = posts.seat_offered(
                table.speaker.seat(seat), COLOURS[seat], to.id, display_name(interaction.user), table.locale
            )
            view = offer_view(record.id, seat, to.id, table.locale)
            try:
                await interaction.response.send_message(
                    text, view=view, allowed_mentions=discord.AllowedMentions(users=[discord.Object(to.id)])
                )
            finally:
                release(view)

        await ctx.guard(interaction, body)

    async def accept(self, interaction: discord.Interaction, game_id: int, seat: int, to_user: int) -> None:
        """The Accept button of a seat offer: the presser takes the seat, its hand and its turns."""
        ctx = self.ctx

        async def body() -> None:
            interaction.extras["game"] = game_id
            await defer_private(interaction)
            async with ctx.tables.locks.hold(game_id):
                record = await ctx.tables.record_of(game_id)
                # Who may take the seat, from the record and the offer alone: the state is read for the
                # taker only (nothing reads it for someone who may not act on it).
                if record.status != "playing":
                    Table(record, None, names_of(record)).playing()  # the refusal that says why not
                offers = dict((await ctx.store.get_game_meta(game_id)).get(META_OFFERS) or {})
                offer = offers.get(str(seat))
                holder = dict(record.seats).get(seat)
                if not isinstance(offer, list) or offer[1] != to_user or offer[0] != holder or holder is None:
                    raise Refused("bot/offer-stale")
                if interaction.user.id != to_user:
                    raise Refused("bot/offer-not-yours", to=f"<@{to_user}>")
                if record.seat_of(to_user) is not None:
                    raise Refused("bot/offer-stale")
                table = await ctx.tables.load(record)
                state = table.playing()
                if state.players[seat].resigned:  # resigned since the offer: a seat out of play (P1)
                    raise Refused("bot/offer-stale")
                del offers[str(seat)]
                await self._reseat(table, state, seat, holder, interaction.user, offers)
            await say(interaction, private.offer_accepted())

        await ctx.guard(interaction, body)

    async def _reseat(
        self,
        table: Table,
        state: GameState,
        seat: int,
        old: int,
        new: discord.abc.User,
        offers: dict[str, Any],
    ) -> None:
        """One amend: the seat, the newcomer's name, the old holder's vacation and absence gone, the note,
        the turn post's edit, and the waiting seat's timers for its new holder."""
        ctx, rec, now = self.ctx, table.record, self.ctx.clock()
        seats = tuple(sorted((s, new.id if s == seat else u) for s, u in rec.seats))
        names = {**dict(rec.options.get("names", {})), str(new.id): display_name(new)}
        # The replay's frames from before the hand-over show the seat's earlier holders too.
        former = dict(rec.options.get(OPT_FORMER) or {})
        former[str(seat)] = [*former.get(str(seat), []), old]
        options = with_vacation({**rec.options, "names": names, OPT_FORMER: former}, old, None)
        on_turn = state.current == seat and not state.over
        waiting: int | None = new.id if on_turn and not is_paused(options) else None
        expected = dataclasses.replace(
            rec,
            updated_at=now,
            seats=seats,
            options=options,
            waiting_on=waiting if on_turn else rec.waiting_on,
            turn_started_at=now if waiting is not None else rec.turn_started_at,
        )
        after = Table(expected, state, names_of(expected))
        old_name = table.speaker.seat(seat)
        taken = posts.seat_taken(new.id, old_name, COLOURS[seat], waiting is not None, table.locale)
        since, turn_events = await ctx.pipeline.current_turn(table)
        ping = [new.id] if waiting is not None else []
        duties: list[NewDuty] = [dt.say(rec.channel_id, taken, ping, now, turn=since if ping else None)]
        if since is not None:
            duties.append(dt.turn_edit(after, since, turn_events, now))
        cancel: list[str] = []
        if waiting is not None and since is not None:
            cancel = [dt.REMIND, dt.DEADLINE]
            duties += await ctx.pipeline.wait_timers(after, since, now)
        absent = user_ids((await ctx.store.get_game_meta(rec.id)).get(META_ABSENT))
        meta: dict[str, Any] = {META_OFFERS: offers or None}
        if old in absent:
            meta[META_ABSENT] = sorted(absent - {old})
        await self._amend(
            rec,
            now,
            after,
            waiting_on=waiting if on_turn else KEEP,
            seats=seats,
            options=options,
            duties=duties,
            cancel_keys=cancel,
            meta=meta,
        )

    async def _amend(self, rec: GameRecord, now: float, after: Table, **changes: Any) -> GameRecord:
        """One store amend of ``rec``; its duties go through the pipeline's hooks (turn pings by DM, the
        status message), ``after`` being the table as the change leaves it."""
        changes["duties"] = await self.ctx.pipeline.hooked(after, list(changes.get("duties", [])), now)
        try:
            saved = await self.ctx.store.amend(rec.id, rec.version, now, **changes)
        except VersionConflict as conflict:
            raise Refused("game/stale", expected=conflict.expected, actual=conflict.actual) from None
        self.ctx.pipeline.wake(rec.id)
        return saved

    # --- vacations ----------------------------------------------------------------------------------------

    async def vacation(self, interaction: discord.Interaction, days: float) -> None:
        """``/alexandros vacation days:``: the asker's deadlines and reminders wait (0 ends it)."""
        ctx = self.ctx

        async def body() -> None:
            await defer_private(interaction)
            record = await ctx.tables.record_in(interaction.channel_id or 0)
            interaction.extras["game"] = record.id
            async with ctx.tables.locks.hold(record.id):
                record = await ctx.tables.record_of(record.id)
                seat = record.seat_of(interaction.user.id)
                if seat is None:  # before the state is read: nothing is read for someone not seated
                    raise Refused("bot/not-a-player")
                table = await ctx.tables.load(record)
                state = table.playing()
                now = ctx.clock()
                until = now + min(days, MAX_VACATION_DAYS) * DAY if days > 0 else None
                current = _current(record.options, now, record.turn_started_at)
                uid = interaction.user.id
                # Ended early on their turn: it ends now, and stays on record for the turn, whose deadline
                # then gives the player a whole one from their return (seat_rules.turn_due), as when it
                # runs out.
                on_turn = record.waiting_on == uid
                back = now if until is None and on_turn and vacation_until(record.options, uid, now) else None
                options = with_vacation(current, uid, until or back)
                after = Table(
                    dataclasses.replace(record, options=options, updated_at=now), state, table.names
                )
                name = table.speaker.seat(seat)
                duties: list[NewDuty] = [
                    dt.say(record.channel_id, posts.vacation_public(name, until, table.locale), now=now)
                ]
                since, turn_events = await ctx.pipeline.current_turn(table)
                if since is not None:
                    duties.append(dt.turn_edit(after, since, turn_events, now))
                    if back is not None:  # back early on their turn: the wait starts again now (keyed duties)
                        duties += await ctx.pipeline.wait_timers(after, since, now)
                    elif after.current_user == uid and record.turn_started_at is not None:
                        deadline = await ctx.pipeline.deadline_for(after, since, record.turn_started_at)
                        if deadline is not None:
                            duties.append(deadline)  # keyed: it replaces the turn's deadline
                await self._amend(record, now, after, options=options, duties=duties)
            await say(interaction, private.vacation_set(until))

        await ctx.guard(interaction, body)

    # --- pausing the whole game ---------------------------------------------------------------------------

    async def pause(self, interaction: discord.Interaction, resume: bool) -> None:
        """``/alexandros pause`` and ``/alexandros resume`` (the creator or a member with Manage Channels)."""
        ctx = self.ctx

        async def body() -> None:
            await defer_private(interaction)
            record = await ctx.tables.record_in(interaction.channel_id or 0)
            interaction.extras["game"] = record.id
            _may_manage(record, interaction, "resume the game" if resume else "pause the game")
            async with ctx.tables.locks.hold(record.id):
                record = await ctx.tables.record_of(record.id)
                table = await ctx.tables.load(record)
                state = table.playing()
                if is_paused(record.options) != resume:
                    raise Refused("bot/not-paused" if resume else "bot/already-paused")
                now = ctx.clock()
                by = display_name(interaction.user)
                options = dict(record.options)
                if resume:
                    options.pop(OPT_PAUSED, None)
                else:
                    options[OPT_PAUSED] = {"by": interaction.user.id, "at": now}
                uid = table.user_of(state.current)
                expected = dataclasses.replace(
                    record,
                    updated_at=now,
                    options=options,
                    waiting_on=uid if resume else None,
                    turn_started_at=now if resume else None,
                )
                after = Table(expected, state, table.names)
                since, turn_events = await ctx.pipeline.current_turn(table)
                timers = []
                if resume and since is not None:
                    timers = await ctx.pipeline.wait_timers(after, since, now)
                # A computer is not called to its turn, nor a player marked absent at an autoplay table,
                # whose turn the computer plays at once (its deadline is due before the table's).
                due = turn_due(options, uid, now)
                at_once = due is not None and any(d.kind == dt.DEADLINE and d.due_at < due for d in timers)
                human = uid if uid is not None and not is_computer(uid) and not at_once else None
                text = (
                    posts.resumed_public(by, human, table.locale)
                    if resume
                    else posts.paused_public(by, table.locale)
                )
                ping = [human] if resume and human else []
                duties: list[NewDuty] = [
                    dt.say(record.channel_id, text, ping, now, turn=since if ping else None)
                ]
                if since is not None:
                    duties.append(dt.turn_edit(after, since, turn_events, now))
                    duties += timers
                await self._amend(
                    record,
                    now,
                    after,
                    waiting_on=uid if resume else None,
                    options=options,
                    duties=duties,
                    cancel_keys=[] if resume else [dt.REMIND, dt.DEADLINE],
                )
            deadline = bool(record.options.get("deadline_hours"))
            await say(interaction, private.resumed(deadline) if resume else private.paused())

        await ctx.guard(interaction, body)


def _current(options: dict[str, Any], now: float, turn_started: float | None) -> dict[str, Any]:
    """The options without vacations that are over (they would only clutter the options), except one
    that ended during the current turn: that turn's deadline counts from its end (seat_rules.turn_due)."""
    out = dict(options)
    for uid, until in vacations(options).items():
        if until <= now and (turn_started is None or until <= turn_started):
            out = with_vacation(out, uid, None)
    return out


def _may_manage(record: GameRecord, interaction: discord.Interaction, what: str) -> None:
    if record.created_by != interaction.user.id and not interaction.permissions.manage_channels:
        raise Refused("bot/not-creator-or-manager", what=what)
