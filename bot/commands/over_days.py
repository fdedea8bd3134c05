"""Playing over days: a player's reminder settings, "which games wait for me", nudging the waiting
player, and taking one's seat back from the computer (deadline policy autoplay).
"""

from __future__ import annotations

import logging
from typing import Any

import discord

from ..games.schedule import ReminderPrefs, next_nudge_at, nudge_allowed
from ..games.seat_rules import is_paused, turn_due
from ..games.tables import Refused
from ..outbox import duties as dt
from ..outbox import notices
from ..outbox.pipeline import META_ABSENT, META_NUDGED_AT, META_TURN_POST, user_ids
from ..texts import posts, private
from ..words import i18n
from .answers import display_name, say
from .context import Context

log = logging.getLogger("bot")


class OverDays:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    async def reminder_settings(
        self,
        interaction: discord.Interaction,
        hours: float | None,
        quiet: str | None,
        time_zone: str | None,
        dm: bool | None = None,
    ) -> None:
        """A player's own reminder interval, quiet hours and time zone (checked by bot.games.schedule), and
        whether their turn pings and reminders come by DM (bot.outbox.notices)."""
        ctx = self.ctx

        async def body() -> None:
            store, uid = ctx.store, interaction.user.id
            current = await store.get_user_settings(uid)
            changes: dict[str, Any] = {}
            if hours is not None:
                changes["reminder_hours"] = hours
            if time_zone is not None:
                changes["time_zone"] = time_zone.strip()
            if quiet is not None:
                q = quiet.strip().lower()
                if q in ("off", "none", "-", ""):
                    changes["quiet_start"] = changes["quiet_end"] = None
                else:
                    start, sep, end = q.partition("-")
                    if not sep:
                        await say(interaction, private.quiet_hours_format())
                        return
                    changes["quiet_start"], changes["quiet_end"] = start.strip(), end.strip()
            if dm is not None:
                changes[notices.DM_ON] = dm
                if dm:  # asked again: their DMs may be open now, so they are tried (and told) again
                    changes[notices.DM_CLOSED] = None
            merged = {**current, **changes}
            try:
                prefs = ReminderPrefs.from_settings({k: v for k, v in merged.items() if v is not None})
            except ValueError as err:
                await say(interaction, str(err))
                return
            # Their DMs speak the language their client has now (bot.outbox.notices); not a setting they
            # "saved".
            language = {"locale": i18n.language_of(interaction.locale)}
            if changes or current.get("locale") != language["locale"]:
                await store.update_user_settings(uid, {**changes, **language}, ctx.clock())
                ctx.pipeline.prefs.forget(uid)
            dm_on, dm_closed = bool(merged.get(notices.DM_ON)), bool(merged.get(notices.DM_CLOSED))
            dm_line = private.dm_settings_line(dm_on, dm_closed)
            await say(
                interaction, private.reminder_settings_text(prefs, saved=bool(changes)) + "\n" + dm_line
            )

        await ctx.guard(interaction, body)

    async def waiting(self, interaction: discord.Interaction) -> None:
        """``/alexandros me waiting``: every game on any server that waits on the asking user, with links."""
        store = self.ctx.store

        async def body() -> None:
            entries: list[tuple[Any, int | None]] = []
            deadlines: dict[int, float] = {}
            for record in await store.games_waiting_on(interaction.user.id):
                if record.status != "playing":
                    continue
                post = (await store.get_game_meta(record.id)).get(META_TURN_POST)
                entries.append((record, int(post["message"]) if isinstance(post, dict) else None))
                due = turn_due(record.options, interaction.user.id, record.turn_started_at)
                if due is not None:
                    deadlines[record.id] = due
            entries.sort(key=lambda rm: rm[0].turn_started_at or 0.0)
            await say(interaction, private.waiting_text(entries, deadlines))

        await self.ctx.guard(interaction, body)

    async def nudge(self, interaction: discord.Interaction) -> None:
        """``/alexandros nudge``: a public poke that pings only the waiting player (once a day per game)."""
        ctx = self.ctx

        async def body() -> None:
            record, _ = await ctx.pipeline.authorise(ctx.ask(interaction, turn=False))
            if is_paused(record.options):  # nobody is waited for while the game is paused (seats)
                raise Refused("bot/paused")
            waiting = record.waiting_on
            if waiting == interaction.user.id:
                raise Refused("bot/nudge-self")
            async with ctx.tables.locks.hold(record.id):
                now = ctx.clock()
                at = (await ctx.store.get_game_meta(record.id)).get(META_NUDGED_AT)
                last = None if at is None else float(at)
                if not nudge_allowed(last, now):
                    raise Refused("bot/nudge-too-soon", at=next_nudge_at(last))
                await ctx.store.set_game_meta(record.id, {META_NUDGED_AT: now}, now)
            log.info("nudge game=%s user=%s waiting=%s", record.id, interaction.user.id, waiting)
            table = await ctx.tables.load(record)
            assert waiting is not None
            await interaction.response.send_message(
                posts.nudge_text(table, waiting, display_name(interaction.user)),
                allowed_mentions=discord.AllowedMentions(users=[discord.Object(waiting)]),
            )

        await ctx.guard(interaction, body)

    async def back(self, interaction: discord.Interaction) -> None:
        """``/alexandros back``: the player takes their seat back from the computer.

        Back during their own turn, their deadline counts again from now (the full deadline), since the
        turn was about to be played for them at once.
        """
        ctx = self.ctx

        async def body() -> None:
            record, _ = await ctx.pipeline.authorise(ctx.ask(interaction, turn=False))
            interaction.extras["game"] = record.id  # its note may be a follow-up of this (bot.outbox.lanes)
            uid = interaction.user.id
            async with ctx.tables.locks.hold(record.id):
                table = await ctx.tables.load(await ctx.tables.record_of(record.id))
                absent = user_ids((await ctx.store.get_game_meta(table.id)).get(META_ABSENT))
                if uid not in absent:
                    raise Refused("bot/not-absent")
                now = ctx.clock()
                changes = {META_ABSENT: sorted(absent - {uid})}
                duties = [dt.say(table.record.channel_id, posts.back_public_text(uid, table.locale), now=now)]
                due = None
                if table.current_user == uid:
                    since, _ = await ctx.pipeline.current_turn(table)
                    deadline = await ctx.pipeline.deadline_for(table, since or table.version, now, changes)
                    if deadline is not None:
                        duties.append(deadline)
                        due = deadline.due_at
                await ctx.store.add_duties(table.id, duties, now, meta=changes)
            ctx.pipeline.wake(table.id)
            log.info("back game=%s user=%s", table.id, uid)
            await say(interaction, private.back_text(table, due))

        await ctx.guard(interaction, body)
