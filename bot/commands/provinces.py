"""The Actions menu and the province actions: occupy a free province (R6.1-R6.2) or take one over
(R6.3-R6.4), with a preview of the cheapest plan, the choice of guards and, in a take-over of three or
four players, the cards the loser gets. Every step checks seat, version and turn through the pipeline.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import discord

from engine import rules
from engine.errors import IllegalAction
from engine.state import Phase
from engine.symbols import contains, missing
from engine.views import view

from ..games.tables import Refused
from ..texts import choices as ch
from ..texts import components as ui
from ..texts import private
from ..words.words import cards_text
from .answers import defer_soon, png, say, show
from .context import Context
from .hints import hinted


class ProvinceActions:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    # --- the Actions menu --------------------------------------------------------------------------------

    async def menu(self, interaction: discord.Interaction, game_id: int, version: int) -> None:
        async def body() -> None:
            table, state, seat = await self.ctx.look(interaction, game_id, version)
            if state.phase is Phase.MOVE:
                raise Refused("turn/move-first")
            menu, left_out = ch.action_menu(state, seat, table.speaker)
            await say(
                interaction,
                private.actions_prompt(table, left_out),
                view=hinted(
                    ui.select_view(
                        ui.cid_select("act", table.id, table.version), private.pick_action(), menu
                    ),
                    table,
                ),
            )

        await self.ctx.guard(interaction, body)

    async def picked(self, interaction: discord.Interaction, game_id: int, version: int, value: str) -> None:
        ctx = self.ctx
        kind, _, arg = value.partition(":")
        # The answers are worded inside body(), once ctx.guard speaks the clicker's language.
        simple: dict[str, tuple[Any, Callable[[], str]]] = {
            "take": (ch.take_action, private.took_card),
            "levy": (ch.levy_action, private.levied),
            "back": (ch.takeback_action, private.took_guard_back),
            "end": (lambda st, s, _: ch.end_action(st, s), private.turn_over),
        }
        if kind == "occ":
            await self.province(interaction, game_id, arg, version, update=True)
            return
        make, done = simple.get(kind, simple["end"])

        async def body() -> None:
            ask = ctx.ask(interaction, game_id, version)
            await ctx.act(interaction, ask, lambda st, s: make(st, s, arg), done(), update=True)

        await ctx.guard(interaction, body)

    # --- occupy and take over ----------------------------------------------------------------------------

    async def province(
        self,
        interaction: discord.Interaction,
        game_id: int | None,
        value: Any,
        version: int | None,
        update: bool = False,
        takeover: bool | None = None,
    ) -> None:
        """A preview of the province with the cheapest plan, then pick the guards."""

        async def body() -> None:
            defer_soon(interaction, update=update)
            table, state, seat = await self.ctx.look(interaction, game_id, version)
            pid = ch.parse_province(state, value, takeover)
            try:
                p = rules.check_province_action(state, seat, pid, takeover)
            except IllegalAction as refused:
                raise Refused(refused.code, **refused.details) from refused
            owner = rules.province_owner(state, p)
            plan = rules.plan_occupation(state, seat, p)
            if plan is not None and not plan.affordable:
                if owner is None:
                    raise Refused("occupy/missing-cards", missing=plan.missing, cost=plan.cost)
                raise Refused(
                    "takeover/missing-cards", missing=plan.missing, removal=plan.removal, cost=plan.cost
                )
            picture = await self.ctx.pictures.province_preview(view(state, seat), pid, plan, table.names)
            spaces = ch.guard_space_choices(state, pid, table.speaker, plan.guards if plan else ())
            guards_left = state.players[seat].guards_in_supply
            stacked = len(plan.guards) if plan else 1
            alone = ch.scoring_plan(state, seat, pid) if stacked > 1 else None
            text = private.province_prompt(
                owner is not None,
                pid,
                [table.speaker.space(g) for g in plan.guards] if plan else [],
                cards_text(plan.paid) if plan else "-",
                guards_left,
                stacked,
                (table.speaker.space(alone[0]), cards_text(alone[1])) if alone else None,
                len(spaces),
            )
            suggested = ch.spaces_code(plan.guards) if plan else None
            gview = ui.province_view(table.id, table.version, pid, spaces, guards_left, suggested)
            await show(
                interaction, text, file=png(picture, "province.png", private.alt_province()), view=gview
            )

        await self.ctx.guard(interaction, body)

    async def guards(
        self,
        interaction: discord.Interaction,
        game_id: int,
        version: int,
        pid: int,
        guards: Sequence[str] | str,
    ) -> None:
        """Guards picked: apply at once, or ask which paid cards the loser gets (take-over, 3-4 players)."""
        ctx = self.ctx

        async def body() -> None:
            table, state, seat = await self.ctx.look(interaction, game_id, version)
            spaces = (
                ch.parse_spaces(guards)
                if isinstance(guards, str)
                else tuple(ch.parse_space(g) for g in guards)
            )
            size = ch.compensation_size(state, seat, pid, spaces)
            if size == 0:
                ask = ctx.ask(interaction, game_id, version)
                done = private.province_taken(pid)
                await ctx.act(
                    interaction, ask, lambda st, s: ch.occupy_action(st, s, pid, spaces), done, update=True
                )
                return
            defer_soon(interaction, update=True)
            paid = ch.paid_cards(state, seat, pid, spaces)
            hand = state.players[seat].hand
            if not contains(hand, paid):
                p = state.province_by_id[pid]
                raise Refused(
                    "takeover/missing-cards",
                    missing=missing(hand, paid),
                    removal=rules.removal_cost(state, p),
                    cost=rules.occupation_cost(state, p, spaces),
                )
            owner = rules.province_owner(state, state.province_by_id[pid])
            await show(
                interaction,
                private.compensation_prompt(pid, cards_text(paid), size, table.speaker.seat(owner)),
                view=ui.select_view(
                    ui.cid_select("tc", table.id, version, pid, ch.spaces_code(spaces)),
                    private.pick_cards(size),
                    ch.compensation_choices(paid),
                    size,
                    size,
                ),
            )

        await ctx.guard(interaction, body)

    async def compensation(
        self,
        interaction: discord.Interaction,
        game_id: int,
        version: int,
        pid: int,
        guards: str,
        values: Sequence[str],
    ) -> None:
        ctx = self.ctx

        async def body() -> None:
            spaces = ch.parse_spaces(guards)
            ask = ctx.ask(interaction, game_id, version)
            await ctx.act(
                interaction,
                ask,
                lambda st, s: ch.occupy_action(st, s, pid, spaces, ch.parse_compensation(values)),
                private.province_taken(pid),
                update=True,
            )

        await ctx.guard(interaction, body)
