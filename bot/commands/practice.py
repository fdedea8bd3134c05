"""Practice games (issue 29): ``/alexandros learn practice`` opens a table in a new thread with the caller
and computer players, starts it at once, and marks it unrated (``options["practice"]``; bot.outbox.ratings
leaves
it out) with hints on (bot.commands.hints).

Where no thread can be made (the command was typed in a thread, or the bot may not make threads here), the
game opens in the channel itself, if it has no game, and the answer says why.
"""

from __future__ import annotations

import logging

import discord

from engine.ai import LEVELS
from storage import ChannelBusy

from ..games.tables import Refused, Table, names_of
from ..texts import posts, private
from .answers import defer_private, display_name, say, server_language
from .context import Context
from .lobby import Lobby

log = logging.getLogger("bot")

PRACTICE = "practice"  # the table option that marks a practice game (never rated)


class Practice:
    def __init__(self, ctx: Context, lobby: Lobby) -> None:
        self.ctx = ctx
        self.lobby = lobby

    async def open(self, interaction: discord.Interaction, level: str, players: int) -> None:
        async def body() -> None:
            if level not in LEVELS:
                raise Refused("bot/bad-choice", what="level", value=level, allowed=", ".join(LEVELS))
            await defer_private(interaction)
            user = interaction.user
            options = Lobby._options(user.id, display_name(user), None, None)
            locale = server_language(interaction)
            computers = [-(n + 1) for n in range(max(1, min(players, 4) - 1))]  # 2-4 seats (the cog's range)
            names = dict(options["names"])
            for n, c in enumerate(computers, start=1):
                name = posts.computer_name(level, locale)
                names[str(c)] = f"{name} {n}" if len(computers) > 1 else name
            options.update(
                locale=locale,
                names=names,
                computers={str(c): level for c in computers},
                **{PRACTICE: True, "hints": True},
            )
            channel_id, note = await self._place(interaction)
            seats = [(0, user.id), *((n, c) for n, c in enumerate(computers, start=1))]
            store = self.ctx.store
            try:
                record = await store.create_game(
                    interaction.guild_id, channel_id, user.id, options, self.ctx.clock(), seats=seats
                )
            except ChannelBusy as busy:
                raise Refused("bot/practice-no-place", game=busy.game_id) from None
            interaction.extras["game"] = record.id
            table = Table(record, None, names_of(record))
            async with self.ctx.tables.locks.hold(record.id):
                outcome = await self.lobby.deal(table, [])
            interaction.extras["speaker"] = outcome.table.speaker
            log.info(
                "practice game started game=%s channel=%s user=%s players=%s level=%s",
                record.id, channel_id, user.id, players, level,
            )  # fmt: skip
            await say(interaction, private.practice_opened(channel_id, note))

        await self.ctx.guard(interaction, body)

    async def _place(self, interaction: discord.Interaction) -> tuple[int, str | None]:
        """Where the game goes: a new thread of this text channel; else this channel, with the reason."""
        parent = interaction.channel
        here = interaction.channel_id or 0
        if not isinstance(parent, discord.TextChannel):
            return here, private.practice_no_thread()
        try:
            made = await parent.create_thread(
                name=private.practice_thread_name(display_name(interaction.user)),
                type=discord.ChannelType.public_thread,
            )
        except discord.Forbidden:
            return here, private.practice_no_thread()
        return made.id, None
