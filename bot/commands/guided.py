"""Moving Alexander (R3), guided or typed.

The guided move is four ephemeral steps re-opened from the turn post's Move button: a card, a lettered
point on a preview picture, a numbered path when several differ in walls, and Confirm. Every step is a
component that names the game and the version it was made at, so each one goes through the pipeline's
checks (seat, version, turn) before the state is read; only Confirm changes the game.
``/alexandros move`` takes the same values typed, and shows the next step for any it lacks.
"""

from __future__ import annotations

from collections.abc import Sequence

import discord

from engine import rules
from engine.errors import IllegalAction
from engine.geometry import point_label
from engine.state import GameState, Phase
from engine.views import view

from ..games.pictures import point_letters
from ..games.tables import Refused, Table
from ..texts import choices as ch
from ..texts import components as ui
from ..texts import private
from .answers import defer_soon, png, say, show
from .context import Context
from .hints import hinted


class GuidedMove:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    async def start(self, interaction: discord.Interaction, game_id: int, version: int) -> None:
        """The Move button: pick a card (step 1)."""

        async def body() -> None:
            table, state, _ = await self.ctx.look(interaction, game_id, version)
            await say(interaction, private.move_step_1(), view=self._cards(table, state))

        await self.ctx.guard(interaction, body)

    @staticmethod
    def _cards(table: Table, state: GameState) -> discord.ui.View:
        if state.phase is not Phase.MOVE:
            raise Refused("turn/already-moved")
        cards = ch.card_choices(state)
        if not cards:
            raise Refused("bot/no-moves")
        menu = ui.select_view(ui.cid_select("mc", table.id, table.version), private.pick_card(), cards)
        return hinted(menu, table)

    async def card(self, interaction: discord.Interaction, game_id: int, version: int, card: str) -> None:
        """Step 2: the lettered points for the chosen card, on a preview picture."""

        async def body() -> None:
            defer_soon(interaction, update=True)
            table, state, seat = await self.ctx.look(interaction, game_id, version)
            await self._points(interaction, table, state, seat, card)

        await self.ctx.guard(interaction, body)

    async def _points(
        self, interaction: discord.Interaction, table: Table, state: GameState, seat: int, card: str
    ) -> None:
        mc = ch.parse_card(state, card)
        targets = rules.allowed_targets(state, mc.symbol)  # R3.7: the points the menu offers, no others
        dests = ch.destination_choices(state, mc, point_letters(targets))
        picture = await self.ctx.pictures.move_preview(view(state, seat), targets, mc.symbol, table.names)
        await show(
            interaction,
            private.move_step_2(
                ch.card_label(state, mc), ch.MAX_CHOICES, len(dests), ch.move_ends_game(state, mc)
            ),
            file=png(picture, "move.png", private.alt_move()),
            view=hinted(
                ui.select_view(
                    ui.cid_select("mt", table.id, table.version, ch.card_code(mc)),
                    private.pick_point(),
                    dests[: ch.MAX_CHOICES],
                ),
                table,
            ),
        )

    async def point(
        self, interaction: discord.Interaction, game_id: int, version: int, card: str, to: str
    ) -> None:
        """Step 3: the numbered paths to the chosen point (straight to Confirm when there is one)."""

        async def body() -> None:
            defer_soon(interaction, update=True)
            table, state, seat = await self.ctx.look(interaction, game_id, version)
            point = ch.parse_destination(state, ch.parse_card(state, card), to)
            paths = ch.legal_paths(state, point)
            if len(paths) == 1:
                await self._confirm(interaction, table, state, seat, card, to, "1")
                return
            await self._paths(interaction, table, state, seat, card, to, paths)

        await self.ctx.guard(interaction, body)

    async def _paths(
        self,
        interaction: discord.Interaction,
        table: Table,
        state: GameState,
        seat: int,
        card: str,
        to: str,
        paths: Sequence[rules.PathOption],
    ) -> None:
        corner = paths[0].points[-1]
        picture = await self.ctx.pictures.path_preview(view(state, seat), corner, paths, table.names)
        await show(
            interaction,
            private.move_step_3(len(paths), to.split("@")[0], min(len(paths), ch.MAX_CHOICES)),
            file=png(picture, "paths.png", private.alt_paths()),
            view=ui.select_view(
                ui.cid_select("mp", table.id, table.version, card, to),
                private.pick_path(),
                ch.path_choices(state, corner),
            ),
        )

    async def path(
        self, interaction: discord.Interaction, game_id: int, version: int, card: str, to: str, path: str
    ) -> None:
        """Step 4: the chosen path on a picture, and Confirm."""

        async def body() -> None:
            defer_soon(interaction, update=True)
            table, state, seat = await self.ctx.look(interaction, game_id, version)
            await self._confirm(interaction, table, state, seat, card, to, path)

        await self.ctx.guard(interaction, body)

    async def _confirm(
        self,
        interaction: discord.Interaction,
        table: Table,
        state: GameState,
        seat: int,
        card: str,
        to: str,
        path: str,
    ) -> None:
        mc = ch.parse_card(state, card)
        move = ch.move_action(state, seat, card, to, path)
        option = ch.parse_path(state, move.corner, path)
        try:
            preview = rules.preview_move(state, move)  # what it would do, as apply would do it
        except IllegalAction as err:
            raise Refused(err.code, **err.details) from None
        picture = await self.ctx.pictures.path_preview(
            view(state, seat), move.corner, [option], table.names, confirm=True, ends_game=preview.ends_game
        )
        await show(
            interaction,
            private.move_confirm(
                ch.card_label(state, mc), private.route_text([point_label(p) for p in option.points]), preview
            ),
            file=png(picture, "path.png", private.alt_path()),
            view=ui.confirm_view(ui.cid_button("mgo", table.id, table.version, card, to, path)),
        )

    async def go(
        self, interaction: discord.Interaction, game_id: int, version: int, card: str, to: str, path: str
    ) -> None:
        """Confirm: the move, through the pipeline (a Confirm from an earlier state is out of date)."""
        ctx = self.ctx

        async def body() -> None:
            ask = ctx.ask(interaction, game_id, version)
            await ctx.act(
                interaction,
                ask,
                lambda st, s: ch.move_action(st, s, card, to, path),
                private.moved(),
                update=True,
            )

        await ctx.guard(interaction, body)

    async def command(
        self, interaction: discord.Interaction, card: str | None, to: str | None, path: str | None
    ) -> None:
        """``/alexandros move``: with every value, move at once; with some missing, show what is allowed."""
        ctx = self.ctx

        async def body() -> None:
            table, state, seat = await self.ctx.look(interaction, None, None)
            if card is None:
                await say(interaction, private.pick_move_card(), view=self._cards(table, state))
                return
            if state.phase is not Phase.MOVE:
                raise Refused("turn/already-moved")
            mc = ch.parse_card(state, card)
            if to is None:
                defer_soon(interaction)
                await self._points(interaction, table, state, seat, card)
                return
            point = ch.parse_destination(state, mc, to)
            paths = ch.legal_paths(state, point)
            offered = point in rules.destination_points(state, mc)
            if path is None and len(paths) > 1 and offered:
                defer_soon(interaction)
                await self._paths(interaction, table, state, seat, ch.card_code(mc), to, paths)
                return
            ask = ctx.ask(interaction, table.id, table.version)
            chosen = path if (path or offered) else "1"
            await ctx.act(
                interaction, ask, lambda st, s: ch.move_action(st, s, card, to, chosen), private.moved()
            )

        await ctx.guard(interaction, body)
