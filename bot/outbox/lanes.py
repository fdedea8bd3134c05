"""Interaction lanes (issue 32): public posts and edits sent with an interaction's own token.

Discord counts a bot's requests to the channel routes (posts, edits, pins) against its global limit of 50
a second; an interaction's follow-ups and their edits (``/webhooks/{app}/{token}``) are not counted. So
when a player's press or command commits a change, the delivery worker may send that change's public posts
(the next turn post and its ping, the end post, a note) as public follow-ups of that interaction, and edit
such a message later with the token of the interaction that made it, while the token lives (15 minutes;
``LIFE`` keeps a margin).

A lane is lent by every handler (``Context.guard``) and settled when the handler returns: usable only if
the interaction's own answer is final and no follow-up can take its place (after a "thinking" defer the
first follow-up replaces the loading message, with the defer's ephemerality; after a public defer it
would be edited later). The worker waits a moment (``WAIT``) for the handlers still running in the duty's
channel to settle their lanes, and uses a lane only in the channel its interaction came from. Everything
a lane sends is a duty's payload, which holds public facts only (bot.outbox.duties), always as a public
message.

Nothing depends on a lane: a follow-up or webhook edit that fails (an expired token, a fault) is sent
through the channel instead, from the outbox as before. Lanes live in this process's memory only: after a
restart, or in another process, the channel routes are used.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import discord

LIFE = 14 * 60.0  # seconds an interaction's token is used for (Discord: 15 minutes from the interaction)
WAIT = 3.0  # seconds the worker waits for a handler to settle its lane before using the channel
KEEP = 5000  # lanes and messages remembered (bounded: a busy bot forgets the oldest)


@dataclass(eq=False)
class Lane:
    """One interaction's token, for public follow-ups in its channel."""

    webhook: discord.Webhook
    channel_id: int | None
    until: float  # on ``Lanes.clock``: the token is not used after this
    game_id: int | None = None
    usable: bool = False
    settled: asyncio.Event = field(default_factory=asyncio.Event)


class Lanes:
    """The lanes lent by handlers (the latest per game) and the messages they made (by message id)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, life: float = LIFE) -> None:
        self.clock = clock
        self.life = life
        self._games: collections.OrderedDict[int, Lane] = collections.OrderedDict()
        self._pending: set[Lane] = set()  # lent, not settled yet, game not yet known
        self._made: collections.OrderedDict[int, Lane] = collections.OrderedDict()

    def lend(self, interaction: discord.Interaction) -> Lane:
        lane = Lane(interaction.followup, interaction.channel_id, self.clock() + self.life)
        self._pending.add(lane)
        return lane

    def settle(self, lane: Lane, interaction: discord.Interaction) -> None:
        """The handler returned: the lane serves its game if the interaction's answer is final."""
        self._pending.discard(lane)
        game = interaction.extras.get("game")
        mode = interaction.extras.get("mode")
        lane.game_id = int(game) if isinstance(game, int) else None
        lane.usable = (
            lane.game_id is not None
            and interaction.response.is_done()
            and (
                mode in (None, "update") or (mode == "thinking" and bool(interaction.extras.get("answered")))
            )
        )
        if lane.usable and lane.game_id is not None:
            self._games[lane.game_id] = lane
            self._games.move_to_end(lane.game_id)
            while len(self._games) > KEEP:
                self._games.popitem(last=False)
        lane.settled.set()

    async def for_duty(self, game_id: int | None, channel_id: int | None) -> Lane | None:
        """A live lane of this game in this channel, waiting a moment for handlers still running."""
        if game_id is None or channel_id is None:
            return None
        # Only the handlers still running in this channel are waited for (one of them made this duty).
        waiting = [lane.settled.wait() for lane in list(self._pending) if lane.channel_id == channel_id]
        if waiting:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(WAIT):  # not wait_for (bot.process.tasks says why)
                    await asyncio.gather(*waiting)
        lane = self._games.get(game_id)
        if lane is None or not lane.usable or lane.channel_id != channel_id or self.clock() >= lane.until:
            return None
        return lane

    def serves(self, game_id: int | None, channel_id: int | None) -> bool:
        """Whether this game has a live lane in this channel now (without waiting)."""
        lane = self._games.get(game_id) if game_id is not None else None
        if lane is None or not lane.usable:
            return False
        return lane.channel_id == channel_id and self.clock() < lane.until

    def made(self, message_id: int, lane: Lane) -> None:
        self._made[message_id] = lane
        while len(self._made) > KEEP:
            self._made.popitem(last=False)

    def maker(self, message_id: int) -> Lane | None:
        """The lane that made this message, while its token lives (a webhook edit is not counted)."""
        lane = self._made.get(message_id)
        if lane is None or self.clock() >= lane.until:
            return None
        return lane

    def forget(self, lane: Lane) -> None:
        """A lane Discord refused (an expired or unknown token): not used again."""
        lane.usable = False
        lane.until = 0.0
