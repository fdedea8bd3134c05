"""Hints (issue 29): ``/alexandros learn hint`` and the guided move's Hint button answer the player on turn,
privately, with the hard player's choice for the decision in front of them, a sentence why and the preview
picture of that choice.

The choice and its facts come from the engine, from the player's own view only (engine.advice: the hard
player never sees a hidden card); the bot words them (bot.texts.private.hint_text). A game allows hints
when its options say so (``hints``: on for practice games, ``/alexandros new hints:True`` for others);
such a game is not rated (bot.games.seat_rules.is_rated_table). Each hint is counted in the game's
metadata (``hints``: {user id: count}) and the end post says how many each player used.
"""

from __future__ import annotations

import random
import time

import discord

from engine import advice as engine_advice
from engine.advice import Advice
from engine.views import GameView, view

from ..games.computers import THINKING_SECONDS
from ..games.seat_rules import META_HINTS, hint_counts, hints_allowed
from ..games.tables import Refused, Table
from ..texts import components as ui
from ..texts import private
from .answers import defer_private, png, say
from .context import Context


def _think(v: GameView, seed: str, seconds: float | None) -> Advice:
    """The suggestion and its facts (in a worker thread: the hard player searches for up to ``seconds``)."""
    rng = random.Random(seed)
    until = time.monotonic() + seconds if seconds is not None else None
    action = engine_advice.suggest(v, rng, (lambda: time.monotonic() > until) if until is not None else None)
    return engine_advice.advise(v, action, rng)


class Hints:
    def __init__(self, ctx: Context, seconds: float | None = THINKING_SECONDS) -> None:
        self.ctx = ctx
        self.seconds = seconds

    async def hint(self, interaction: discord.Interaction, game_id: int | None, version: int | None) -> None:
        async def body() -> None:
            await defer_private(interaction)
            table, state, seat = await self.ctx.look(interaction, game_id, version)
            if not hints_allowed(table.record.options):
                raise Refused("bot/hints-off")
            v = view(state, seat)  # the player's own view: nothing hidden goes further
            seed = f"{table.id}:{table.version}:{seat}"
            advice = await self.ctx.thinkers.run(_think, v, seed, self.seconds, urgent=True)
            used = await self._count(table, interaction.user.id)
            picture = await self._picture(table, v, advice)
            text = private.hint_text(advice, table.speaker, seat, used)
            await say(interaction, text, file=picture)

        await self.ctx.guard(interaction, body)

    async def _count(self, table: Table, user_id: int) -> int:
        """One more hint for ``user_id`` in the game's metadata (under the game's lock); the new count."""
        store = self.ctx.store
        async with self.ctx.tables.locks.hold(table.id):
            counts = hint_counts(await store.get_game_meta(table.id))
            counts[user_id] = counts.get(user_id, 0) + 1
            await store.set_game_meta(
                table.id, {META_HINTS: {str(u): n for u, n in counts.items()}}, self.ctx.clock()
            )
        return counts[user_id]

    async def _picture(self, table: Table, v: GameView, advice: Advice) -> discord.File | None:
        """The guided move's preview of the suggestion: the path, or the province with the guards."""
        pictures = self.ctx.pictures
        if advice.path is not None:
            corner = advice.path.points[-1]
            data = await pictures.path_preview(
                v, corner, [advice.path], table.names, confirm=True, ends_game=advice.ends_game
            )
            return png(data, "hint.png", private.alt_path())
        if advice.plan is not None and advice.province is not None:
            data = await pictures.province_preview(v, advice.province, advice.plan, table.names)
            return png(data, "hint.png", private.alt_province())
        return None


def hinted(v: discord.ui.View, table: Table) -> discord.ui.View:
    """A menu of the guided move or the Actions, with a Hint button where the game allows hints."""
    return ui.with_hint(v, table.id, table.version) if hints_allowed(table.record.options) else v
