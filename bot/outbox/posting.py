"""What the delivery worker sends to Discord for the bot's own duty kinds: a post (its text, its picture drawn
off the event loop, its buttons and ping; as a public follow-up on an interaction's lane when its game has
one, else in the channel, each with its nonce), the turn post's edits (skipped when a later one waits, the
turn posted again when its post is gone) and the lobby message's edit. The worker (bot.outbox.deliveries)
claims, paces, retries and finishes the duties; this says what each one is on Discord.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import discord

from engine import serialize
from engine.views import GameView
from storage import Duty, GameStore

from ..games.pictures import Pictures
from ..games.tables import MapBook, locale_of
from ..process import limits
from ..texts import posts
from ..texts.components import lobby_view, view_of_buttons, watch_url, with_watch
from ..texts.freeing import attachment, release
from ..words import i18n
from . import duties as dt
from .lanes import Lane, Lanes
from .pipeline import META_TURN_POST

log = logging.getLogger("bot.outbox.deliveries")

Clock = Callable[[], float]

META_FOLLOW_UP = "follow_up"  # the id of the duty last sent as a follow-up (no nonce): see _made_before
FOLLOW_UP_LOOK = 20  # the channel's newest messages searched for a follow-up sent before a crash


class Posting:
    """Posts and edits for the duties the worker sends itself (``kinds``); ``lanes``: interactions' tokens,
    so that public posts and their edits go out uncounted by Discord's global limit (issue 32)."""

    def __init__(
        self, client: discord.Client, store: GameStore, pictures: Pictures, clock: Clock, lanes: Lanes | None
    ) -> None:
        self.client = client
        self.store = store
        self.pictures = pictures
        self.maps = MapBook(store)
        self.clock = clock
        self.lanes = lanes
        self.kinds: dict[str, Callable[[Duty, float], Awaitable[str]]] = {
            dt.POST: self.post,
            dt.EDIT: self.edit_turn,
            dt.LOBBY: self.edit_lobby,
        }

    async def _language(self, game_id: int | None) -> str:
        """The game's public language (``Table.locale``), for a picture duty written before duties said it."""
        record = await self.store.game_by_id(game_id) if game_id is not None else None
        return locale_of(record) if record is not None else i18n.SOURCE

    async def _picture(self, duty: Duty) -> discord.File | None:
        p = duty.payload
        kind = p.get("picture")
        if kind is None:
            return None
        names = list(p.get("names", []))
        # The game's language: written into the duty since issue 16; an older duty's is looked up.
        language = str(p.get("locale") or await self._language(duty.game_id))
        end = kind == "end"
        if "public" in p:  # the public state, lean: its map by digest, stored once with the commit
            game_map = await self.maps.get(str(p["map"]))
            data = await self.pictures.public(
                "end" if end else "board", p["public"], game_map, names, language=language
            )
        else:  # a duty written before (or for a game whose map may not be stored): the view itself
            v = serialize.load(p["view"])
            assert isinstance(v, GameView) and v.viewer is None, "a public picture needs the public view"
            draw = self.pictures.end if end else self.pictures.board
            data = await draw(v, names, language=language)
        if end:
            return attachment(data, "end.png", posts.alt_end(language))
        return attachment(data, "board.png", posts.alt_board(language))

    async def _view(self, duty: Duty) -> discord.ui.View | None:
        b = duty.payload.get("buttons")
        if not b:
            return None
        return with_watch(view_of_buttons(b), await watch_url(self.client, duty.game_id, duty.guild_id))

    async def post(self, duty: Duty, now: float, nonce: str | None = None) -> str:
        p = duty.payload
        assert duty.channel_id is not None
        if p.get("buttons") and duty.game_id is not None:
            # A turn post still waiting when its game was abandoned: its buttons and its ping would call a
            # player to a closed game (the abandoning closes only the post already made).
            record = await self.store.game_by_id(duty.game_id)
            if record is None or record.status != "playing":
                return "dropped: the game is closed"
        text = limits.content(p["text"])
        fresh = nonce is None  # not a turn post made again in place of a lost one
        if fresh and duty.attempts > 1:
            made = await self._made_before(duty, text)
            if made is not None:
                return made
        kwargs: dict[str, Any] = {}
        file = await self._picture(duty)
        if file is not None:
            kwargs["file"] = file
        view = await self._view(duty)
        if view is not None:
            kwargs["view"] = view
        ping = [discord.Object(int(u)) for u in p.get("ping", [])]
        mentions = discord.AllowedMentions(users=ping) if ping else discord.AllowedMentions.none()
        channel = self.client.get_partial_messageable(duty.channel_id)
        # A retry goes to the channel, with the first try's nonce: a try Discord made though it failed
        # (a lost reply) is then the same message, where a follow-up now would be a second one. A follow-up
        # tried before is looked for first (``_made_before``).
        lane = (
            await self.lanes.for_duty(duty.game_id, duty.channel_id)
            if self.lanes and fresh and duty.attempts <= 1
            else None
        )
        try:
            msg = await self._follow_up(duty, lane, text, mentions, kwargs) if lane is not None else None
            if msg is None:
                if file is not None:
                    file.reset()
                msg = await channel.send(
                    text, allowed_mentions=mentions, nonce=nonce or f"alx-{duty.id}", **kwargs
                )
        finally:
            release(view)
        since = p.get("turn_post")
        if since is not None and duty.game_id is not None:
            # Only while this worker still holds the duty: one that stalled past its lease must not record
            # this turn's post over a later turn's, which the worker that took over may have posted since
            # (that post's edits would not find it, and would post the turn a second time).
            await self.store.set_game_meta(
                duty.game_id,
                {META_TURN_POST: {"message": msg.id, "since": int(since)}},
                self.clock(),
                leased=dt.held(duty),
            )
        return f"sent {msg.id}"

    def on_a_lane(self, duty: Duty) -> bool:
        """Whether a post or turn post edit will most likely go out on a lane (bot.outbox.lanes), not
        counted by Discord's global limit, so not paced: its game has a live lane in its channel. A guess
        (it may still fall back to the channel, unpaced: Discord's 429 is then retried as any other)."""
        if self.lanes is None or duty.kind not in (dt.POST, dt.EDIT):
            return False
        return self.lanes.serves(duty.game_id, duty.channel_id)

    async def _follow_up(
        self, duty: Duty, lane: Lane, text: str, mentions: discord.AllowedMentions, kwargs: dict[str, Any]
    ) -> discord.Message | None:
        """The post as a public follow-up of the interaction that caused it (not counted by Discord's
        global limit: bot.outbox.lanes), or None when Discord refused it (the channel is used then).

        A follow-up carries no nonce: the game notes which duty it is about to send this way, so that a
        worker sending it again after a crash first looks for it among the channel's newest messages
        (``_made_before``) instead of posting it twice."""
        assert duty.game_id is not None and self.lanes is not None
        await self.store.set_game_meta(
            duty.game_id, {META_FOLLOW_UP: duty.id}, self.clock(), leased=dt.held(duty)
        )
        try:
            msg = await lane.webhook.send(
                text, allowed_mentions=mentions, ephemeral=False, wait=True, **kwargs
            )
        except discord.DiscordServerError:
            # Discord may have made it all the same (a 5xx can come after the work): posting it in the
            # channel now could show it twice. Tried again later, after a look for it (``_made_before``).
            raise
        except (discord.HTTPException, ValueError) as error:
            log.info("follow-up refused for duty %s (%s): posting in the channel", duty.id, error)
            self.lanes.forget(lane)
            return None
        self.lanes.made(msg.id, lane)
        return msg

    async def _made_before(self, duty: Duty, text: str) -> str | None:
        """A post tried before as a follow-up (``META_FOLLOW_UP``: a crash, a lost lease, a lost answer)
        that already stands: its turn post recorded, or found among the channel's newest messages; it is
        recorded as it would have been, and not sent again. A channel post's nonce covers the rest."""
        if duty.game_id is None:
            return None
        meta = await self.store.get_game_meta(duty.game_id)
        if meta.get(META_FOLLOW_UP) != duty.id or self.client.user is None:
            return None  # never tried as a follow-up: a channel post's nonce covers its retry
        since, post = duty.payload.get("turn_post"), meta.get(META_TURN_POST)
        if since is not None and isinstance(post, dict) and int(post.get("since", -1)) == int(since):
            return f"sent {post['message']} (found after a retry)"
        assert duty.channel_id is not None
        me = self.client.user.id
        async for msg in self.client.get_partial_messageable(duty.channel_id).history(limit=FOLLOW_UP_LOOK):
            if msg.author.id == me and msg.content == text:
                if since is not None:
                    await self.store.set_game_meta(
                        duty.game_id,
                        {META_TURN_POST: {"message": msg.id, "since": int(since)}},
                        self.clock(),
                        leased=dt.held(duty),
                    )
                return f"sent {msg.id} (a follow-up found after a retry)"
        return None

    async def edit_turn(self, duty: Duty, now: float) -> str:
        p = duty.payload
        assert duty.channel_id is not None and duty.game_id is not None
        live = bool(p.get("buttons"))
        if live and await self.superseded(duty):
            # A later edit of the same live turn post is already waiting (a busy game, or a backlog): it shows
            # everything this one would, so this one is not drawn nor sent. A closing edit is always sent.
            return "superseded by a later edit"
        post = (await self.store.get_game_meta(duty.game_id)).get(META_TURN_POST)
        if not isinstance(post, dict) or int(post.get("since", -1)) != int(p["since"]):
            if live:  # the turn's post never made it: this one takes its place
                return await self._repost(duty, now)
            return "dropped: the turn has no post"
        message = self.client.get_partial_messageable(duty.channel_id).get_partial_message(
            int(post["message"])
        )
        file = await self._picture(duty)
        content = limits.content(p["text"]) if "text" in p else discord.utils.MISSING
        attachments = [file] if file is not None else discord.utils.MISSING
        view = await self._view(duty)
        try:
            lane = self.lanes.maker(message.id) if self.lanes is not None else None
            if lane is not None:  # made by a follow-up whose token lives: its edit is not counted (lanes)
                try:
                    await lane.webhook.edit_message(
                        message.id, content=content, attachments=attachments, view=view
                    )
                    return f"edited {post['message']}"
                except discord.HTTPException as error:
                    log.info("webhook edit refused for duty %s (%s): editing in the channel", duty.id, error)
                    assert self.lanes is not None
                    self.lanes.forget(lane)
                    if file is not None:
                        file.reset()
            try:
                await message.edit(content=content, attachments=attachments, view=view)
            except (discord.NotFound, discord.Forbidden) as error:
                if live:
                    return await self._repost(duty, now)
                return f"dropped: {error.status} {error.text}"
            except discord.HTTPException as error:
                if error.status < 500 and error.status != 429 and live:  # e.g. the edit cap of old messages
                    return await self._repost(duty, now)
                raise
            return f"edited {post['message']}"
        finally:
            release(view)

    async def superseded(self, duty: Duty) -> bool:
        since = duty.payload.get("since")
        return any(
            d.payload.get("since") == since
            # Only the later edits are read (and their payloads parsed), not every pending duty of the game.
            for d in await self.store.pending_duties(duty.game_id, kind=dt.EDIT, after=duty.id)
        )

    async def _repost(self, duty: Duty, now: float) -> str:
        payload = {**duty.payload, "turn_post": duty.payload["since"]}
        return await self.post(Duty(**{**duty.__dict__, "payload": payload}), now, nonce=f"alx-{duty.id}-r")

    async def edit_lobby(self, duty: Duty, now: float) -> str:
        p = duty.payload
        assert duty.channel_id is not None
        game = duty.game_id or 0
        message = self.client.get_partial_messageable(duty.channel_id).get_partial_message(int(p["message"]))
        view = lobby_view(game) if p.get("open") else None
        try:
            await message.edit(content=p["text"], view=view)
        except (discord.NotFound, discord.Forbidden) as error:
            return f"dropped: {error.status} {error.text}"
        finally:
            release(view)
        return f"edited {p['message']}"
