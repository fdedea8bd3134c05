"""The replay of a game (issue 16): an animated GIF of every turn, posted when the game ends and on
``/alexandros replay``.

At the end, the commit that ends the game writes a ``replay`` duty (the outbox), so a crash never loses it;
the delivery worker hands it to ``Replays.post``, which reads the stored events, has the GIF drawn off the
event loop (bot.games.pictures: its worker processes, or a thread) and posts it with the duty's nonce, so a
second attempt after a crash is the same message. Every frame is drawn from the public view
(rendering.replay): a replay never shows a hidden hand.
"""

from __future__ import annotations

import discord

from storage import Duty, GameRecord, GameStore, NewDuty

from ..games.pictures import Pictures
from ..games.tables import Refused, Tables, locale_of, replay_names
from ..process import limits
from ..texts import posts
from ..texts.freeing import attachment

REPLAY = "replay"  # the duty kind
FILENAME = "replay.gif"


def end_duties(record: GameRecord, now: float) -> list[NewDuty]:
    """The replay's post, after the end post in the game's channel (a channel's duties go out in order)."""
    return [NewDuty(REPLAY, now, record.channel_id, payload={"game": record.id})]


def gif(data: bytes, locale: str) -> discord.File:
    """The replay as an attachment, described in the game's language."""
    return attachment(data, FILENAME, posts.alt_replay(locale))


class Replays:
    """Draws replays (off the loop) and posts the end-of-game one (the ``replay`` duty)."""

    def __init__(self, client: discord.Client, tables: Tables, pictures: Pictures) -> None:
        self.client = client
        self.tables = tables
        self.store: GameStore = tables.store
        self.pictures = pictures

    async def draw(self, record: GameRecord) -> bytes:
        """The GIF of a game that has begun, from its stored events (public frames only)."""
        if record.status == "lobby" or record.version == 0:
            raise Refused("bot/not-started")
        events = [body for _, body in await self.store.events(record.id)]
        # A replay is public: the game's language.
        return await self.pictures.replay(events, replay_names(record), language=locale_of(record))

    async def post(self, duty: Duty, now: float) -> str:
        assert duty.channel_id is not None
        record = await self.store.game_by_id(int(duty.payload["game"]))
        if record is None or record.version == 0:
            return "dropped: no such game"
        data, language = await self.draw(record), locale_of(record)
        msg = await self.client.get_partial_messageable(duty.channel_id).send(
            limits.content(posts.replay_text(record.id, True, language)),
            file=gif(data, language),
            allowed_mentions=discord.AllowedMentions.none(),
            nonce=f"alx-{duty.id}",
        )
        return f"sent {msg.id}"
