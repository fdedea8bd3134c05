"""What every interaction handler shares: the pipeline, the pictures, the shutdown counter, and the common
"act and answer" step. The handlers themselves live in bot.commands.lobby, bot.commands.turns,
bot.commands.guided, bot.commands.provinces,
bot.commands.info and bot.commands.over_days, one module per kind of work.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import discord

from engine.actions import Action
from engine.state import GameState
from engine.views import redact
from storage import GameStore

from ..games.pictures import Pictures
from ..games.tables import Outcome, Table, Tables
from ..games.thinking import Thinkers
from ..outbox.lanes import Lanes
from ..outbox.pipeline import Ask, Pipeline
from ..process import outages
from ..texts import private
from ..texts.freeing import let_go
from .answers import InFlight, applied, defer_soon, guarded, interaction_kind, settle_soon, show


@dataclass
class Context:
    client: discord.Client
    pipeline: Pipeline
    pictures: Pictures
    in_flight: InFlight
    rules_url: str = ""
    thinkers: Thinkers = field(default_factory=Thinkers)  # where computers think (hints)
    lanes: Lanes | None = None

    @property
    def tables(self) -> Tables:
        return self.pipeline.tables

    @property
    def store(self) -> GameStore:
        return self.pipeline.store

    def clock(self) -> float:
        return self.pipeline.clock()

    def channel(self, channel_id: int) -> discord.PartialMessageable:
        return self.client.get_partial_messageable(channel_id)

    async def guard(self, interaction: discord.Interaction, body: Callable[[], Awaitable[None]]) -> None:
        """Run a handler (bot.commands.answers.guarded), lending its interaction's token to the delivery
        worker for the public posts its change causes, once its own answer is final (bot.outbox.lanes);
        then let the interaction go (bot.texts.freeing)."""
        lane = self.lanes.lend(interaction) if self.lanes is not None else None
        try:
            await guarded(interaction, self.in_flight, body)
        finally:
            with contextlib.suppress(*outages.ANY_FAILURE):
                await settle_soon(interaction)  # a handler that answered nothing: no defer after its end
            if lane is not None and self.lanes is not None:
                self.lanes.settle(lane, interaction)
            let_go(interaction)

    def ask(
        self,
        interaction: discord.Interaction,
        game_id: int | None = None,
        version: int | None = None,
        turn: bool = True,
    ) -> Ask:
        """Who acts, from the interaction: a component names its game and version, a command its channel."""
        if game_id is not None:
            interaction.extras["game"] = game_id
        return Ask(
            interaction.user.id, interaction.channel_id, game_id, version, turn, interaction_kind(interaction)
        )

    async def look(
        self, interaction: discord.Interaction, game_id: int | None, version: int | None
    ) -> tuple[Table, GameState, int]:
        """The pipeline's checks, then the state, for a menu or preview of the asker's own options."""
        table, state, seat = await self.pipeline.look(self.ask(interaction, game_id, version))
        interaction.extras["speaker"] = table.speaker
        return table, state, seat

    async def act(
        self,
        interaction: discord.Interaction,
        ask: Ask,
        parse: Callable[[GameState, int], Action],
        done: str | None = None,
        update: bool = False,
    ) -> Outcome:
        """Apply one action through the pipeline and tell the actor, privately, what it did: at once, or
        after a defer where the pipeline took long (``defer_soon``)."""
        defer_soon(interaction, update)
        outcome = await self.pipeline.act(ask, parse)
        applied(interaction)
        interaction.extras["game"] = outcome.table.id
        seat = outcome.table.seat_of(interaction.user.id)
        mine = outcome.table.speaker.event_lines([redact(e, seat) for e in outcome.events])
        await show(
            interaction, private.action_summary(private.done() if done is None else done, mine), view=None
        )
        return outcome
