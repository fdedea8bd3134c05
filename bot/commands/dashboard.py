"""The dashboard: ``/alexandros me games`` (a player's games in this server) and each game channel's pinned
status message, kept up to date in place.

The status message is a ``status`` duty written with every commit (``Pipeline.duty_hooks``), keyed (one
pending per game: a burst of actions replaces it, so it is edited once) and due ``STATUS_DELAY`` seconds
after the first change it carries, so the actions taken within that time coalesce into one edit. The
worker words it when it sends it, from public facts of the game as it stands then (bot.texts
``status_text``: the public view), and adds the link to the turn post: a game in constant play makes one
edit in 20 seconds, and words one text, not one a commit (issue 12: 0.1 ms of the event loop's time an
action). Channel order puts it after the posts of the same commit.

The worker (``Dashboard.deliver``) posts the message the first time and pins it, then edits it. When the
message is gone, it posts a new one; when Discord refuses the edit of a message older than an hour (error
30046, the edit cap of old messages), it posts a new one, pins it and unpins the old. Pinning needs the
Pin Messages permission: without it (403) the status message is still posted and kept up to date, unpinned,
and the channel and the log are told once per game how to grant it. Faults (5xx, 429, timeouts) are
raised to the worker, which retries; a new message carries a nonce made from the duty's id (exactly once).
"""

from __future__ import annotations

import collections
import dataclasses
import logging
from collections.abc import Callable
from typing import Any

import discord

from storage import Duty, GameRecord, GameStore, NewDuty

from ..games.tables import Refused, Table, Tables, names_of
from ..outbox import duties as dt
from ..outbox.pipeline import META_TURN_POST
from ..process import limits
from ..texts import posts, private
from ..texts.components import watch_url, with_watch
from ..words import i18n
from .answers import say
from .context import Context

log = logging.getLogger("bot.commands.dashboard")

STATUS = "status"
META_STATUS = "status_post"  # {"message": id, "pinned": bool}: the game's status message
META_UNPIN = "status_unpin"  # an old status message still to unpin (replaced after the edit cap)
META_PIN_REFUSED = "pin_refused"  # when Discord refused to pin it (the channel was told then, once)
STATUS_DELAY = 20.0  # seconds: a turn's actions taken within this time make one edit
EDIT_CAP_CODE = 30046  # Discord: too many edits of messages older than an hour
MYGAMES_MAX = 20  # games listed by /alexandros me games (a message holds 2,000 characters)


def _locale(payload: dict[str, Any]) -> str:
    """The game's language, kept in a status duty (English for one written before it was)."""
    return str(payload.get("locale") or i18n.SOURCE)


def status_duty(table: Table, now: float) -> NewDuty:
    """The status message to bring up to date after a change: the worker words it (``Dashboard.deliver``)."""
    payload = {"locale": table.locale}
    return NewDuty(STATUS, now + STATUS_DELAY, table.record.channel_id, payload=payload, key=STATUS)


def _live(table: Table) -> bool:
    """Whether the game still has a turn post to link to."""
    return table.record.status == "playing" and table.state is not None and not table.state.over


def closed_duty(record: GameRecord, now: float) -> NewDuty:
    """The status message of a game closed by ``/alexandros abandon`` (only if it has one already)."""
    closed = Table(dataclasses.replace(record, status="abandoned"), None, names_of(record))
    payload = {"text": posts.lobby_text(closed), "live": False, "final": True, "locale": closed.locale}
    return NewDuty(STATUS, now, record.channel_id, payload=payload, key=STATUS)


class Dashboard:
    """The pipeline's hook that writes the status duty, and its delivery for the worker."""

    def __init__(
        self, client: discord.Client, store: GameStore, clock: Callable[[], float], tables: Tables
    ) -> None:
        self.client = client
        self.store = store
        self.clock = clock
        self.tables = tables  # the games' states, to word their status from
        # The due time of each game's pending status duty, as this process wrote it (a bounded memo, so a
        # commit needs no read to keep it; another process's duty may be replaced with a later time, which
        # only delays one edit).
        self._due: collections.OrderedDict[int, float] = collections.OrderedDict()
        # The text each status message was last given by this process: an edit to the same text is skipped
        # (a change that alters nothing public, e.g. a nudge). Only the process serving a game's shard edits
        # its status message; after a restart the first edit is always sent.
        self._shown: collections.OrderedDict[int, str] = collections.OrderedDict()

    async def after_change(self, table: Table, duties: list[NewDuty], now: float) -> list[NewDuty]:
        """``Pipeline.duty_hooks``: every change of a started game updates its status message.

        The new status duty replaces a pending one but keeps its due time, so that a game in constant
        play still sees its status message updated every ``STATUS_DELAY`` seconds, not postponed forever.
        """
        if table.state is None:
            return duties
        duty = status_duty(table, now)
        pending = self._due.get(table.id)
        if pending is not None and now < pending < duty.due_at:
            duty = dataclasses.replace(duty, due_at=pending)
        self._due[table.id] = duty.due_at
        self._due.move_to_end(table.id)
        while len(self._due) > 5000:
            self._due.popitem(last=False)
        return [*duties, duty]

    # --- delivery ------------------------------------------------------------------------------------------

    async def deliver(self, duty: Duty, now: float) -> str:
        assert duty.channel_id is not None and duty.game_id is not None
        p = await self._worded(duty)
        if p is None:
            return "dropped: the game is gone"
        meta = await self.store.get_game_meta(duty.game_id)
        text = self._text(p, meta, duty.guild_id, duty.channel_id)
        channel = self.client.get_partial_messageable(duty.channel_id)
        post = meta.get(META_STATUS)
        if not isinstance(post, dict):
            if p.get("final"):
                return "dropped: the game has no status message"
            return await self._post(duty, channel, text, None, meta)
        if self._shown.get(int(post["message"])) == text and (
            post.get("pinned") or meta.get(META_PIN_REFUSED)
        ):
            return f"unchanged {post['message']}"  # an edit that changes nothing is not sent (issue 32)
        try:
            await channel.get_partial_message(int(post["message"])).edit(content=text)
        except discord.NotFound:  # deleted by someone: a new one takes its place
            return await self._post(duty, channel, text, None, meta)
        except discord.Forbidden as error:
            return f"dropped: {error.status} {error.text}"
        except discord.HTTPException as error:
            if error.code == EDIT_CAP_CODE:
                return await self._post(duty, channel, text, post, meta)
            raise
        if not post.get("pinned") and not meta.get(META_PIN_REFUSED):
            await self._pin(duty, channel, int(post["message"]))
        if meta.get(META_UNPIN):
            await self._unpin(duty, channel, int(meta[META_UNPIN]))
        self._remember(int(post["message"]), text)
        return f"edited {post['message']}"

    def _remember(self, message_id: int, text: str) -> None:
        """What a status message shows now, as this process last sent it (bounded)."""
        self._shown[message_id] = text
        self._shown.move_to_end(message_id)
        while len(self._shown) > 5000:
            self._shown.popitem(last=False)

    async def _worded(self, duty: Duty) -> dict[str, Any] | None:
        """The duty's payload with its text: a closed game's was written with it (``closed_duty``), as was
        any duty written before the worker worded them; the others' is the game's status as it stands now,
        or None if the game is no more."""
        if "text" in duty.payload:
            return duty.payload
        assert duty.game_id is not None
        try:
            table = await self.tables.by_id(duty.game_id)
        except Refused:
            return None
        # status_text speaks the game's language itself (bot.texts.posts.public), whoever's delivery this is.
        return {"text": posts.status_text(table), "live": _live(table), "locale": table.locale}

    @staticmethod
    def _text(p: dict[str, Any], meta: dict[str, Any], guild_id: int | None, channel_id: int) -> str:
        """The commit's text, with a link to the current turn post (known once it was posted)."""
        turn = meta.get(META_TURN_POST)
        link = None
        if p.get("live") and isinstance(turn, dict):
            link = posts.jump_link(guild_id, channel_id, int(turn["message"]))
        return limits.content(posts.status_post_text(p["text"], link, _locale(p)))

    async def _post(
        self,
        duty: Duty,
        channel: discord.PartialMessageable,
        text: str,
        old: dict[str, Any] | None,
        meta: dict[str, Any],
    ) -> str:
        """A new status message (pinned if it can be), in place of ``old`` (unpinned) if there was one."""
        assert duty.game_id is not None
        watch = with_watch(None, await watch_url(self.client, duty.game_id, duty.guild_id))
        extra: dict[str, Any] = {"view": watch} if watch is not None else {}
        msg = await channel.send(
            text, allowed_mentions=discord.AllowedMentions.none(), nonce=f"alx-{duty.id}", **extra
        )
        unpin = int(old["message"]) if old is not None and old.get("pinned") else None
        changes: dict[str, Any] = {META_STATUS: {"message": msg.id, "pinned": False}}
        if unpin is not None:  # remembered, so that a retry after a fault still unpins it
            changes[META_UNPIN] = unpin
        # Only while the worker still holds the duty (as Deliveries records a turn post).
        await self.store.set_game_meta(duty.game_id, changes, self.clock(), leased=dt.held(duty))
        if not meta.get(META_PIN_REFUSED):
            await self._pin(duty, channel, msg.id)
        if unpin is not None:
            await self._unpin(duty, channel, unpin)
        self._remember(msg.id, text)
        return f"posted {msg.id}" + (" (the old one hit the edit cap)" if old is not None else "")

    async def _unpin(self, duty: Duty, channel: discord.PartialMessageable, message_id: int) -> None:
        """Unpin a replaced status message (server errors are retried with the duty)."""
        assert duty.game_id is not None
        try:
            await channel.get_partial_message(message_id).unpin(reason="Alexandros: a newer status message")
        except discord.HTTPException as error:
            if error.status >= 500 or error.status == 429:
                raise
            # Gone or not ours to unpin: the new one is in place; an old pin is only clutter.
            log.warning("could not unpin the old status message %s: %s", message_id, error)
        await self.store.set_game_meta(duty.game_id, {META_UNPIN: None}, self.clock())

    async def _pin(self, duty: Duty, channel: discord.PartialMessageable, message_id: int) -> None:
        assert duty.game_id is not None
        try:
            await channel.get_partial_message(message_id).pin(reason="Alexandros: the game's status")
        except discord.HTTPException as error:
            if error.status >= 500 or error.status == 429:
                raise
            # 403: the bot lacks Pin Messages; 400: e.g. the channel's pins are full. Either way the status
            # message goes on unpinned, and the bot stops asking for this game.
            log.warning(
                "cannot pin the status message of game %s in channel %s (%s %s, code %s)%s",
                duty.game_id, duty.channel_id, error.status, error.text, error.code,
                ": the bot needs the Pin Messages permission there" if error.status == 403 else "",
            )  # fmt: skip
            if error.status == 403:
                await channel.send(
                    posts.pin_permission_missing(_locale(duty.payload)),
                    allowed_mentions=discord.AllowedMentions.none(),
                    nonce=f"alx-{duty.id}-p",
                )
            await self.store.set_game_meta(duty.game_id, {META_PIN_REFUSED: self.clock()}, self.clock())
            return
        await self.store.set_game_meta(
            duty.game_id, {META_STATUS: {"message": message_id, "pinned": True}}, self.clock()
        )


class MyGames:
    """``/alexandros me games``: every game in this server the asker is in, lobby or playing."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    async def mygames(self, interaction: discord.Interaction) -> None:
        store = self.ctx.store

        async def body() -> None:
            uid = interaction.user.id
            records = [
                r for r in await store.games_of_user(uid) if r.guild_id == interaction.guild_id and r.active
            ]
            # Games waiting on the asker first, then the longest-waiting turns, then the lobbies.
            records.sort(
                key=lambda r: (r.waiting_on != uid, r.status != "playing", r.turn_started_at or r.updated_at)
            )
            entries = []
            for record in records[:MYGAMES_MAX]:
                meta = await store.get_game_meta(record.id)
                turn, status = meta.get(META_TURN_POST), meta.get(META_STATUS)
                entries.append(
                    private.MyGame(
                        record,
                        names_of(record),
                        int(turn["message"]) if isinstance(turn, dict) else None,
                        int(status["message"]) if isinstance(status, dict) else None,
                    )
                )
            await say(interaction, private.mygames_text(uid, entries, len(records)))

        await self.ctx.guard(interaction, body)
