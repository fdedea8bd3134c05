"""``/alexandros-admin web``: a server's admin turns watching games on the web off (or on again) for the
server, and gives the channel's game a new link, which ends the old one (bot.web.links)."""

from __future__ import annotations

import logging

import discord

from ..texts import private
from ..web import links
from .answers import defer_private, say
from .context import Context

log = logging.getLogger(__name__)


class Watching:
    """The admin's switch and a game's new link."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    async def admin(self, interaction: discord.Interaction, watching: bool | None, new_link: bool) -> None:
        async def body() -> None:
            web = getattr(self.ctx.client, "web", None)
            if interaction.guild_id is None or not interaction.permissions.manage_guild:
                await say(interaction, private.web_manage_server())
                return
            if web is None:
                await say(interaction, private.web_none())
                return
            await defer_private(interaction)
            store, now, guild = self.ctx.store, self.ctx.clock(), interaction.guild_id
            lines = []
            if watching is not None:
                await links.set_watching(store, guild, watching, now)
                log.info("web guild=%s watching=%s", guild, watching)
                if not watching:
                    web.hub.end()  # the open pages of this server's games close at the next look
            lines.append(private.web_state(not await links.watching_off(store, guild)))
            if new_link:
                record = await store.latest_game_in_channel(interaction.channel_id or 0)
                if record is None or record.guild_id != guild:
                    lines.append(private.web_no_game())
                else:
                    secret = await links.change(store, record.id, now)
                    web.hub.end(record.id)
                    lines.append(private.web_new_link(web.url_of(record.id, secret)))
            await say(interaction, "\n".join(lines))

        await self.ctx.guard(interaction, body)
