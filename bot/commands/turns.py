"""The simple turn actions, typed or pressed: take a card, levy, take back a guard, end the turn; and
leaving the game early: resign, agree to end it (P1, P3). Each one is a single pipeline action.
"""

from __future__ import annotations

from collections.abc import Callable

import discord

from engine.actions import Action, EndByAgreement, Resign
from engine.events import Event
from engine.game import apply
from engine.rules import active_players
from engine.state import GameState
from storage import NewDuty

from ..games.seat_rules import is_paused
from ..games.tables import Refused, Table
from ..outbox import duties as dt
from ..outbox.pipeline import META_AGREED, user_ids
from ..texts import choices as ch
from ..texts import components as ui
from ..texts import posts, private
from .answers import applied, defer_private, display_name, say
from .context import Context


class TurnActions:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    async def take(self, interaction: discord.Interaction, value: str) -> None:
        await self._simple(interaction, lambda st, s: ch.take_action(st, s, value), private.took_card)

    async def levy(self, interaction: discord.Interaction, value: str) -> None:
        await self._simple(interaction, lambda st, s: ch.levy_action(st, s, value), private.levied)

    async def takeback(self, interaction: discord.Interaction, value: str) -> None:
        await self._simple(
            interaction, lambda st, s: ch.takeback_action(st, s, value), private.took_guard_back
        )

    async def end(
        self, interaction: discord.Interaction, game_id: int | None = None, version: int | None = None
    ) -> None:
        """``/alexandros end`` or the End turn button (which names its game and version)."""
        ctx = self.ctx

        async def body() -> None:
            await ctx.act(
                interaction, ctx.ask(interaction, game_id, version), ch.end_action, private.turn_over()
            )

        await ctx.guard(interaction, body)

    async def _simple(
        self, interaction: discord.Interaction, parse: ch.Parse, done: Callable[[], str]
    ) -> None:
        """One action typed as a command; ``done`` words the answer, in the language ``ctx.guard`` sets."""
        ctx = self.ctx

        async def body() -> None:
            await ctx.act(interaction, ctx.ask(interaction), parse, done())

        await ctx.guard(interaction, body)

    # --- leaving and ending early --------------------------------------------------------------------------

    async def resign_prompt(self, interaction: discord.Interaction) -> None:
        """``/alexandros resign``: who may is checked, then an ephemeral prompt asks to confirm with a button
        (P1: resigning cannot be undone; a slip of the keyboard in a game of many days would end it)."""
        ctx = self.ctx

        async def body() -> None:
            record, _seat = await ctx.pipeline.authorise(ctx.ask(interaction, turn=False))
            if is_paused(record.options):
                raise Refused("bot/paused")
            await say(interaction, private.resign_prompt(record.id), view=ui.resign_view(record.id))

        await ctx.guard(interaction, body)

    async def resign(self, interaction: discord.Interaction, game_id: int) -> None:
        """The Resign button of the prompt: the presser resigns from ``game_id`` (P1)."""
        ctx = self.ctx

        async def body() -> None:
            await defer_private(interaction)
            ask = ctx.ask(interaction, game_id, turn=False)

            def note(table: Table, seat: int) -> list[NewDuty]:
                # In the resignation's own commit, before what it causes (the game's end, the next turn).
                text = posts.resigned_public(table.speaker.seat(seat), table.locale)
                return [dt.say(table.record.channel_id, text, now=ctx.clock())]

            outcome = await ctx.pipeline.act(ask, lambda st, seat: Resign(seat), note)
            applied(interaction)
            await say(interaction, private.resigned())
            after = outcome.table.state
            # A resignation that ended the game (one player left) has no vote left to count: asking the
            # finished table refused, and that refusal replaced the answer above.
            if after is not None and not after.over:
                await self._end_if_all_agreed(outcome.table.id)

        await ctx.guard(interaction, body)

    async def _votes(self, table: Table) -> tuple[set[int], set[int]]:
        """P3: who agreed to end the game so far, as users and as their seats."""
        agreed = user_ids((await self.ctx.store.get_game_meta(table.id)).get(META_AGREED))
        return agreed, {s for s in (table.seat_of(u) for u in agreed) if s is not None}

    async def _end_if_all_agreed(self, game_id: int) -> None:
        """P3 after a resignation: when every player left had already agreed to end, the game ends now."""
        ctx = self.ctx
        async with ctx.tables.locks.hold(game_id):
            table = await ctx.tables.by_id(game_id)
            if table.record.status != "playing" or is_paused(table.record.options):
                return
            state = table.playing()
            _, voted = await self._votes(table)
            left = active_players(state)
            if left and set(left) <= voted:
                await ctx.pipeline.commit(table, *_end_by_agreement(state, left[0]))

    async def agree(self, interaction: discord.Interaction) -> None:
        """Record the user's vote to end the game; when every active player agreed, end it (P3)."""
        ctx = self.ctx

        async def body() -> None:
            await defer_private(interaction)
            ask = ctx.ask(interaction, turn=False)
            record, seat = await ctx.pipeline.authorise(ask)
            if is_paused(record.options):  # ending by agreement waits for the game to be resumed
                raise Refused("bot/paused")
            async with ctx.tables.locks.hold(record.id):
                table, state, seat = await ctx.pipeline.look(ask)
                interaction.extras["speaker"] = table.speaker
                interaction.extras["game"] = table.id  # its note may be a follow-up of this (outbox.lanes)
                agreed, voted = await self._votes(table)
                waiting = [s for s in active_players(state) if s not in voted | {seat}]
                names = ", ".join(table.speaker.seat(s) for s in waiting)
                if seat in voted and waiting:
                    raise Refused("bot/already-voted", waiting=names)
                # Everyone left has agreed: also when the last one waited for resigned since (P3).
                if waiting:
                    note = dt.say(
                        table.record.channel_id,
                        posts.agree_proposed(
                            display_name(interaction.user), names, table.locale, seconded=bool(voted)
                        ),
                        now=ctx.clock(),
                    )
                    await ctx.store.add_duties(
                        table.id,
                        [note],
                        ctx.clock(),
                        meta={META_AGREED: sorted(agreed | {interaction.user.id})},
                    )
                    applied(interaction)
                    ctx.pipeline.wake(table.id)
                    await say(interaction, private.agree_noted(names))
                    return
                # The last vote is not stored: the game ends with it, and ending clears the votes.
                await ctx.pipeline.commit(table, *_end_by_agreement(state, seat))
                applied(interaction)
            await say(interaction, private.all_agreed())

        await ctx.guard(interaction, body)


def _end_by_agreement(state: GameState, seat: int) -> tuple[GameState, tuple[Event, ...], tuple[Action, ...]]:
    action = EndByAgreement(seat)
    new_state, events = apply(state, action)
    return new_state, tuple(events), (action,)
