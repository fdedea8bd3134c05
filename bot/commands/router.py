"""Routes a component's click to its handler: the kind in the custom_id names the step, the arguments
carry the game, the version it was made at, and the choices made so far (bot.texts.components)."""

from __future__ import annotations

import discord

from ..outbox.ratings import Ratings
from ..outbox.replays import Replays
from ..texts import private
from .answers import last_word
from .context import Context
from .dashboard import MyGames
from .guided import GuidedMove
from .hints import Hints
from .history import History
from .info import Info
from .lobby import Lobby, MapProvider, SeedSource
from .over_days import OverDays
from .practice import Practice
from .privacy import Privacy
from .provinces import ProvinceActions
from .seats import Seats
from .turns import TurnActions
from .tutorial import Tutorial
from .watching import Watching


class Handlers:
    """Every interaction handler, by kind of work; slash commands (cog) and
    components call these."""

    def __init__(
        self, ctx: Context, map_provider: MapProvider, seed_source: SeedSource | None = None
    ) -> None:
        self.ctx = ctx
        self.lobby = Lobby(ctx, map_provider, seed_source)
        self.turns = TurnActions(ctx)
        self.guided = GuidedMove(ctx)
        self.provinces = ProvinceActions(ctx)
        self.info = Info(ctx)
        self.over_days = OverDays(ctx)
        self.dashboard = MyGames(ctx)
        # Ratings and replays (issue 16): their duties are handed to these by the delivery worker.
        self.ratings = Ratings(ctx.tables)
        self.replays = Replays(ctx.client, ctx.tables, ctx.pictures)
        self.history = History(ctx, self.ratings, self.replays)
        self.privacy = Privacy(ctx)
        self.watching = Watching(ctx)
        self.seats = Seats(ctx)
        self.practice = Practice(ctx, self.lobby)
        self.hints = Hints(ctx)
        self.tutorial = Tutorial(ctx, self.practice)

    async def clicked(self, interaction: discord.Interaction, kind: str, args: list[str]) -> None:
        """A button pressed (bot.texts.components.GameButton): its handler, or why there is none."""
        try:
            handled = await self.button(interaction, kind, args)
        except (IndexError, ValueError):
            await last_word(interaction, private.button_stale())
            return
        if not handled:
            await last_word(interaction, private.button_retired())

    async def picked(
        self, interaction: discord.Interaction, kind: str, args: list[str], values: list[str]
    ) -> None:
        """A select's choice (bot.texts.components.GameSelect): its handler, or why there is none."""
        if not values or values == ["-"]:
            await last_word(interaction, private.nothing_picked())
            return
        try:
            handled = await self.select(interaction, kind, args, values)
        except (IndexError, ValueError):
            await last_word(interaction, private.menu_stale())
            return
        if not handled:
            await last_word(interaction, private.menu_retired())

    async def button(self, interaction: discord.Interaction, kind: str, a: list[str]) -> bool:
        """Handle a button; False when the kind is unknown (retired by an upgrade)."""
        g = int(a[0])
        if kind == "join":
            await self.lobby.join(interaction, g, from_button=True)
        elif kind == "leave":
            await self.lobby.leave(interaction, g, from_button=True)
        elif kind == "start":
            await self.lobby.start(interaction, g, from_button=True)
        elif kind == "hand":
            await self.info.hand(interaction, g)
        elif kind == "move":
            await self.guided.start(interaction, g, int(a[1]))
        elif kind == "acts":
            await self.provinces.menu(interaction, g, int(a[1]))
        elif kind == "end":
            await self.turns.end(interaction, g, int(a[1]))
        elif kind == "mgo":
            await self.guided.go(interaction, g, int(a[1]), a[2], a[3], a[4])
        elif kind == "resign":  # the confirmation of /alexandros resign (bot.commands.turns)
            await self.turns.resign(interaction, g)
        elif kind == "abandon":
            await self.lobby.abandon_confirmed(interaction, g)
        elif kind == "oc":
            await self.provinces.guards(interaction, g, int(a[1]), int(a[2]), a[3])
        elif kind == "forget":  # g is the user id here (bot.commands.privacy)
            await self.privacy.forget_confirmed(interaction, g)
        elif kind == "undo":  # the turn post's Undo (P10, bot.commands.seats)
            await self.seats.undo(interaction, g, int(a[1]))
        elif kind == "hint":  # the guided move's and the Actions menu's Hint (bot.commands.hints)
            await self.hints.hint(interaction, g, int(a[1]))
        elif kind == "tut":  # the tutorial (bot.commands.tutorial): g is the step here, not a game
            await self.tutorial.answer(interaction, g, a[1])
        elif kind == "tutgo":
            await self.tutorial.go(interaction, g)
        elif kind == "tutplay":
            await self.tutorial.play(interaction)
        elif kind == "seatok":  # a seat offer's Accept (bot.commands.seats)
            await self.seats.accept(interaction, g, int(a[1]), int(a[2]))
        else:
            return False
        return True

    async def select(
        self, interaction: discord.Interaction, kind: str, a: list[str], values: list[str]
    ) -> bool:
        """Handle a select menu; False when the kind is unknown."""
        g, ver = int(a[0]), int(a[1])
        if kind == "mc":
            await self.guided.card(interaction, g, ver, values[0])
        elif kind == "mt":
            await self.guided.point(interaction, g, ver, a[2], values[0])
        elif kind == "mp":
            await self.guided.path(interaction, g, ver, a[2], a[3], values[0])
        elif kind == "act":
            await self.provinces.picked(interaction, g, ver, values[0])
        elif kind == "og":
            await self.provinces.guards(interaction, g, ver, int(a[2]), values)
        elif kind == "tc":
            await self.provinces.compensation(interaction, g, ver, int(a[2]), a[3], values)
        else:
            return False
        return True
