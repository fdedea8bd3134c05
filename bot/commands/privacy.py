"""Users' data under their control (issue 11): ``/alexandros me forget`` and ``/alexandros-admin purge``.

forget-me asks first (a Confirm button on the private answer), then deletes the user's settings and puts a
pseudonym in their place in every game record (storage.privacy: the records stay whole, their name becomes
"former player N"), and removes their id and names from every other record (a moderator's pause, a seat
offer, the log of posts). It is refused, with the games named, while they sit in a game that is not over.
purge deletes this server's finished and abandoned games older than N days; Manage Server only (the
command's default permission, and checked again against the channel's resolved permissions).
"""

from __future__ import annotations

import logging
import secrets

import discord

from storage import StillSeated

from ..texts import components as ui
from ..texts import private
from .answers import defer_private, defer_update, say, show
from .context import Context

log = logging.getLogger("bot")

DAY = 86400.0
FORGET = "forget"  # the Confirm button's kind: alx:forget:<user id>


def pseudonym() -> int:
    """A fresh pseudonym: negative, so that it is never a Discord id, and below the computer seats' ids
    (bot.games.computers); random, so that it tells nothing."""
    return -(secrets.randbits(52) + 100)


def names_of_user(user: discord.abc.User) -> list[str]:
    """Every name the bot may have written for the user (its posts use the display name of the moment): their
    server nickname, global display name and user name. A name they no longer use is found where a game
    record kept it (storage.privacy.stored_names)."""
    found = [user.display_name, user.name, user.global_name, getattr(user, "nick", None)]
    return sorted({n for n in found if isinstance(n, str) and n})


class Privacy:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    async def _unfinished(self, user_id: int) -> list[int]:
        return [
            g.channel_id
            for g in await self.ctx.store.games_of_user(user_id, active_only=True)
            if g.seat_of(user_id) is not None
        ]

    async def forget_me(self, interaction: discord.Interaction) -> None:
        """``/alexandros me forget``: say what will happen and ask for the Confirm press."""

        async def body() -> None:
            await defer_private(interaction)
            channels = await self._unfinished(interaction.user.id)
            if channels:
                await say(interaction, private.forget_seated(channels))
                return
            view = ui.confirm_view(ui.cid_button(FORGET, interaction.user.id))
            await say(interaction, private.forget_ask(), view=view)

        await self.ctx.guard(interaction, body)

    async def forget_confirmed(self, interaction: discord.Interaction, user_id: int) -> None:
        """The Confirm press: forget the user, if it is their own button."""

        async def body() -> None:
            if interaction.user.id != user_id:
                await say(interaction, private.forget_not_yours())
                return
            await defer_update(interaction)
            try:
                report = await self.ctx.store.forget_user(
                    user_id, pseudonym(), self.ctx.clock(), names=names_of_user(interaction.user)
                )
            except StillSeated:
                await show(interaction, private.forget_seated(await self._unfinished(user_id)), view=None)
                return
            self.ctx.pipeline.prefs.forget(user_id)
            log.info("a user asked to be forgotten: %d game record(s) pseudonymised", report.games)
            await show(interaction, private.forgotten(report.games, report.settings, report.named), view=None)

        await self.ctx.guard(interaction, body)

    async def purge(self, interaction: discord.Interaction, days: int) -> None:
        """``/alexandros-admin purge days:``: this server's finished and abandoned games older than `days`."""

        async def body() -> None:
            if interaction.guild_id is None or not interaction.permissions.manage_guild:
                await say(interaction, private.purge_manage_server())
                return
            await defer_private(interaction)
            before = self.ctx.clock() - days * DAY
            count = await self.ctx.store.purge_games(before, guild_id=interaction.guild_id)
            log.info("purge guild=%s days=%d games=%d", interaction.guild_id, days, count)
            await say(interaction, private.purged(count, days))

        await self.ctx.guard(interaction, body)
