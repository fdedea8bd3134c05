"""Looking, not acting: a player's own hand (private), and the board, status and log of the channel's
newest game (public facts only: the public view and redacted events), and the rules summary.
"""

from __future__ import annotations

import discord

from engine import serialize
from engine.views import redact, view

from ..games.tables import Refused, Table
from ..outbox import duties as dt
from ..outbox.pipeline import META_AGREED, META_TURN_POST, user_ids
from ..texts import components as ui
from ..texts import posts, private
from ..texts.freeing import release
from ..words.words import rules_summary
from .answers import defer_private, png, say
from .context import Context


class Info:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    async def _shown(self, interaction: discord.Interaction) -> Table:
        table = await self.ctx.tables.latest_in(interaction.channel_id or 0)
        interaction.extras["speaker"] = table.speaker
        interaction.extras["game"] = table.id
        return table

    async def hand(self, interaction: discord.Interaction, game_id: int | None) -> None:
        """The asker's own hand, only to them: any seated player, at any time of the game."""
        ctx = self.ctx

        async def body() -> None:
            await defer_private(interaction)
            table, state, seat = await ctx.pipeline.look(ctx.ask(interaction, game_id, turn=False))
            interaction.extras["speaker"] = table.speaker
            picture = await ctx.pictures.hand(view(state, seat), table.speaker.seat(seat))
            await say(
                interaction, private.hand_text(table, seat), file=png(picture, "hand.png", private.alt_hand())
            )

        await ctx.guard(interaction, body)

    async def board(self, interaction: discord.Interaction) -> None:
        ctx = self.ctx

        async def body() -> None:
            table = await self._shown(interaction)
            state = table.state
            if table.record.status == "lobby":
                raise Refused("bot/not-started")
            if state is None:  # a table closed in the lobby has no board; its lobby text says so
                await say(interaction, posts.status_text(table))
                return
            live = table.record.status == "playing" and not state.over
            await interaction.response.defer(thinking=True)
            interaction.extras["mode"] = "public"
            public = view(state, None)
            picture = await (
                ctx.pictures.end(public, table.names, language=table.locale)
                if state.over
                else ctx.pictures.board(public, table.names, language=table.locale)
            )
            b = dt.buttons(table) if live else None
            watch = await ui.watch_url(ctx.client, table.id, table.record.guild_id)
            buttons = ui.with_watch(ui.view_of_buttons(b, table.locale) if b else None, watch, table.locale)
            try:
                await interaction.edit_original_response(
                    content=posts.status_text(table), attachments=[png(picture)], view=buttons
                )
            finally:
                release(buttons)
            if live and (await ctx.store.get_game_meta(table.id)).get(META_TURN_POST) is None:
                # The turn message was never posted (Discord was down): this one takes its place.
                msg = await interaction.original_response()
                since, _ = await ctx.pipeline.current_turn(table)
                post = {"message": msg.id, "since": since if since is not None else table.version}
                await ctx.store.set_game_meta(table.id, {META_TURN_POST: post}, ctx.clock())

        await ctx.guard(interaction, body)

    async def status(self, interaction: discord.Interaction) -> None:
        async def body() -> None:
            table = await self._shown(interaction)
            votes: set[int] = set()
            if table.record.status == "playing":
                agreed = user_ids((await self.ctx.store.get_game_meta(table.id)).get(META_AGREED))
                votes = {s for s in (table.seat_of(u) for u in agreed) if s is not None}
            await say(interaction, posts.status_text(table, votes))

        await self.ctx.guard(interaction, body)

    async def log(self, interaction: discord.Interaction, count: int) -> None:
        async def body() -> None:
            table = await self._shown(interaction)
            seat = table.seat_of(interaction.user.id)
            rows = await self.ctx.store.events(table.id, limit=max(40, count * 6))
            events = [serialize.load(b) for _, b in rows]
            lines = table.speaker.event_lines([redact(e, seat) for e in events])[-count:]
            await say(interaction, private.log_text(lines))

        await self.ctx.guard(interaction, body)

    async def rules(self, interaction: discord.Interaction) -> None:
        await self.ctx.guard(interaction, lambda: say(interaction, rules_summary(self.ctx.rules_url)))
