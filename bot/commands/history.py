"""Looking back (issue 16): the server's leaderboard, a player's stats, a game's replay, and recomputing
the server's ratings. Nothing here changes a game; ratings change only through bot.outbox.ratings.
"""

from __future__ import annotations

import logging

import discord

from ..games.tables import Refused, locale_of
from ..outbox.ratings import Ratings
from ..outbox.replays import Replays, gif
from ..process import limits
from ..texts import posts, private
from .answers import defer_private, say, server_language
from .context import Context

log = logging.getLogger("bot")

LEADERBOARD_SIZE = 20


class History:
    def __init__(self, ctx: Context, ratings: Ratings, replays: Replays) -> None:
        self.ctx = ctx
        self.ratings = ratings
        self.replays = replays

    async def _public(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer(thinking=True)
        interaction.extras["mode"] = "public"

    async def leaderboard(self, interaction: discord.Interaction) -> None:
        """``/alexandros leaderboard``: this server's best ratings, for everyone to see (nobody pinged)."""
        ctx = self.ctx

        async def body() -> None:
            await self._public(interaction)
            entries = await ctx.store.ratings(interaction.guild_id or 0, LEADERBOARD_SIZE)
            await interaction.edit_original_response(
                content=limits.content(posts.leaderboard_text(entries, server_language(interaction))),
                allowed_mentions=discord.AllowedMentions.none(),
            )

        await ctx.guard(interaction, body)

    async def stats(self, interaction: discord.Interaction, user: discord.abc.User | None) -> None:
        """``/alexandros stats user:``: one player's rating, games and wins on this server."""
        ctx = self.ctx

        async def body() -> None:
            await self._public(interaction)
            guild = interaction.guild_id or 0
            uid = (user or interaction.user).id
            rating = await ctx.store.rating_of(guild, uid)
            place: int | None = None
            board = await ctx.store.ratings(guild) if rating is not None else []
            for p, r in zip(posts.places(board), board, strict=True):
                if r.user_id == uid:
                    place = p
            await interaction.edit_original_response(
                content=limits.content(
                    posts.stats_text(uid, rating, place, len(board), server_language(interaction))
                ),
                allowed_mentions=discord.AllowedMentions.none(),
            )

        await ctx.guard(interaction, body)

    async def replay(self, interaction: discord.Interaction) -> None:
        """``/alexandros replay``: the animated replay of this channel's newest started game, so far or
        whole (a table opened after it is not started yet)."""
        ctx = self.ctx

        async def body() -> None:
            channel = interaction.channel_id or 0
            record = await ctx.store.latest_game_in_channel(channel)
            if record is None:
                raise Refused("bot/no-game")
            if record.status == "lobby" or record.version == 0:
                # The next table is open already: the game before it, the one players ask to see again.
                record = await ctx.store.latest_game_in_channel(channel, started=True) or record
            interaction.extras["game"] = record.id
            if record.status == "lobby" or record.version == 0:
                raise Refused("bot/not-started")
            await self._public(interaction)
            data = await self.replays.draw(record)
            over = record.status in ("finished", "abandoned")
            language = locale_of(record)
            await interaction.edit_original_response(
                content=posts.replay_text(record.id, over, language),
                attachments=[gif(data, language)],
            )

        await ctx.guard(interaction, body)

    async def recompute(self, interaction: discord.Interaction) -> None:
        """``/alexandros-admin recompute-ratings``: this server's ratings again, from its stored games."""
        ctx = self.ctx

        async def body() -> None:
            await defer_private(interaction)
            guild = interaction.guild_id or 0
            games, players = await self.ratings.recompute(guild, ctx.clock())
            log.info("ratings recomputed guild=%s games=%s players=%s", guild, games, players)
            await say(interaction, private.recomputed_text(games, players))

        await ctx.guard(interaction, body)
