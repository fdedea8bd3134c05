"""Turn pings and reminders by direct message, for players who asked (``/alexandros me reminders dm:true``).

A player's settings (storage user settings) hold ``dm_notices`` (on/off) and ``dm_closed`` (when their
direct messages were found closed; they were told then). While DM notices are on and not found closed:

- the commit that starts their turn (bot.outbox.pipeline) posts the turn in the channel *without* notifying
  them and writes a ``dm`` duty instead (``route``): DM instead of the channel ping, not as well, so nobody is
  notified twice for one turn; the turn post still names them;
- a reminder that falls due (bot.outbox.timers) becomes a ``dm`` duty, written in the same transaction as the
  next reminder (``reminder_duty``).

A ``dm`` duty has no channel (its order does not matter, it never waits behind a channel's posts). The
worker (``deliver``) opens the DM channel and sends it with the duty's nonce (exactly once). When Discord
answers 403 with code 50007 (the user's privacy settings refuse DMs from the bot), the duty falls back to
the channel ping it replaced, with a sentence telling the user why, once: ``dm_closed`` is then set, so
their next pings go to the channel at once (no request Discord would refuse again) until they turn DM
notices on again. Faults (5xx, 429, timeouts) are raised to the worker, which retries like any duty.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import discord

from storage import Duty, GameRecord, GameStore, NewDuty

from ..games.tables import Table, locale_of
from ..process import limits
from ..texts import posts, private
from ..words import i18n
from . import duties as dt
from .pipeline import META_TURN_POST, PrefsCache

log = logging.getLogger("bot.outbox.notices")

DM = "dm"
DM_ON = "dm_notices"  # user setting: True to get turn pings and reminders by DM
DM_CLOSED = "dm_closed"  # user setting: when the user's DMs were found closed (and they were told)
DMS_CLOSED_CODE = 50007  # Discord: "Cannot send messages to this user"
# A turn's DM waits a moment, so that the turn post (due at once, in the channel) is out and the DM can
# link to it; a DM whose turn post is late links to the channel instead.
DM_DELAY = 3.0


def wants_dm(settings: Mapping[str, Any]) -> bool:
    """DM notices are on for this user (their ``settings``), and their DMs were not found closed since."""
    return bool(settings.get(DM_ON)) and not settings.get(DM_CLOSED)


def dm_language(settings: Mapping[str, Any], table: Table) -> str:
    """A DM speaks its reader's language (their client's, kept by ``/alexandros me reminders``), or the
    game's when they never said."""
    return str(settings.get("locale") or table.locale)


def dm_duty(record: GameRecord, user_id: int, since: int, text: str, fallback: str, now: float) -> NewDuty:
    """A direct message to ``user_id`` about the turn ``since`` (the version of its TurnStarted event) of
    ``record``'s game; ``fallback`` is the channel ping to send instead if their DMs are closed."""
    payload = {
        "text": text,
        "fallback": fallback,
        "channel": record.channel_id,
        "guild": record.guild_id,
        "game": record.id,
        "since": since,
        "locale": locale_of(record),  # the note under a fallback ping speaks the game's language
        "started": record.turn_started_at,  # the wait it is about: a later one makes it out of date
    }
    return NewDuty(DM, now + DM_DELAY, None, user_id, payload=payload)


async def route(prefs: PrefsCache, table: Table, duties: Sequence[NewDuty], now: float) -> list[NewDuty]:
    """The duties of a commit, with each turn ping of a player who wants DMs sent by DM instead.

    A turn ping is a ``post`` that becomes the turn post (``turn_post``) and pings its player, or a note
    that calls its one pinged player to their turn (``turn_ping``: a game resumed, a seat taken on its
    turn); the post itself stays, without the notification, and a ``dm`` duty is added beside it.
    """
    out: list[NewDuty] = []
    for duty in duties:
        p = duty.payload
        ping = [int(u) for u in p.get("ping", [])]
        since = p.get("turn_post", p.get("turn_ping"))
        if duty.kind != dt.POST or since is None or len(ping) != 1:
            out.append(duty)
            continue
        (uid,) = ping
        settings = await prefs.settings(uid)
        if not wants_dm(settings):
            out.append(duty)
            continue
        out.append(
            NewDuty(duty.kind, duty.due_at, duty.channel_id, duty.user_id, {**p, "ping": []}, duty.key)
        )
        with i18n.speaking(dm_language(settings, table)):
            text = private.dm_turn_text(table)
        fallback = posts.dm_fallback_turn_text(table, uid)
        out.append(dm_duty(table.record, uid, int(since), text, fallback, now))
    return out


class Notices:
    """Routes a commit's turn pings (``route``, the pipeline's hook) and delivers ``dm`` duties for the
    worker (bot.outbox.deliveries)."""

    def __init__(
        self, client: discord.Client, store: GameStore, clock: Callable[[], float], prefs: PrefsCache
    ) -> None:
        self.client = client
        self.store = store
        self.clock = clock
        self.prefs = prefs
        self._told = asyncio.Lock()

    async def route(self, table: Table, duties: list[NewDuty], now: float) -> list[NewDuty]:
        """The pipeline's hook (``Pipeline.duty_hooks``)."""
        return await route(self.prefs, table, duties, now)

    async def deliver(self, duty: Duty, now: float) -> str:
        assert duty.user_id is not None
        p = duty.payload
        uid = duty.user_id
        if not await self._still_waiting(p, uid):
            # Held up (Discord's failures are tried again for a day) until the turn moved on: "it is your
            # turn" would be wrong by now, by DM or in the channel.
            return "dropped: the turn moved on"
        text = await self._with_link(p)
        try:
            dm = await self.client.create_dm(discord.Object(uid))
            msg = await dm.send(
                limits.content(text), allowed_mentions=discord.AllowedMentions.none(), nonce=f"alx-{duty.id}"
            )
        except discord.HTTPException as error:
            # 403 (code 50007: DMs closed, or the bot blocked) or 404 (no such user any more): the channel
            # ping instead. Server errors and rate limits go back to the worker, which retries.
            if error.status not in (403, 404) and error.code != DMS_CLOSED_CODE:
                raise
            async with self._told:  # two refused DMs at once must not tell the user twice
                return await self._fall_back(duty, uid, p)
        log.info("dm game=%s user=%s", p.get("game"), uid)
        return f"sent {msg.id} by dm"

    async def _still_waiting(self, p: dict[str, Any], uid: int) -> bool:
        """Is the game still waiting on ``uid``, in the wait the DM was written for?"""
        if p.get("game") is None or p.get("started") is None:  # written before the check: sent as it was
            return True
        record = await self.store.game_by_id(int(p["game"]))
        if record is None or record.status != "playing" or record.waiting_on != uid:
            return False
        return record.turn_started_at is not None and abs(record.turn_started_at - float(p["started"])) < 1e-3

    async def _with_link(self, p: dict[str, Any]) -> str:
        """The DM's text with a link to its turn's post when it is out by now, else to the channel."""
        message = None
        if p.get("game") is not None:
            post = (await self.store.get_game_meta(int(p["game"]))).get(META_TURN_POST)
            if isinstance(post, dict) and int(post.get("since", -1)) == int(p.get("since", -2)):
                message = int(post["message"])
        guild = None if p.get("guild") is None else int(p["guild"])
        return f"{p['text']}\n{posts.jump_link(guild, int(p['channel']), message)}"

    async def _fall_back(self, duty: Duty, uid: int, p: dict[str, Any]) -> str:
        """The user's DMs are closed: the channel ping instead, and (the first time) why."""
        settings = await self.store.get_user_settings(uid)
        told = bool(settings.get(DM_CLOSED))
        text = (
            p["fallback"]
            if told
            else f"{p['fallback']}\n{posts.dms_closed_note(str(p.get('locale') or i18n.SOURCE))}"
        )
        msg = await self.client.get_partial_messageable(int(p["channel"])).send(
            limits.content(text),
            allowed_mentions=discord.AllowedMentions(users=[discord.Object(uid)]),
            nonce=f"alx-{duty.id}-f",
        )
        if not told:  # after the send: a retry of a failed send must still tell them
            await self.store.update_user_settings(uid, {DM_CLOSED: self.clock()}, self.clock())
            self.prefs.forget(uid)
            log.info("dms closed user=%s game=%s: pinged in the channel and told once", uid, p.get("game"))
        return f"sent {msg.id} in the channel: DMs closed"
