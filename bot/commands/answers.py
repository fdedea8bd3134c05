"""Answering an interaction: private sentences, deferring, and turning refusals into words.

Every handler runs inside ``guarded``: a ``Refused`` becomes an ephemeral sentence (bot.words.words), any
other error a short apology and a log line with the game, channel and user. The answer helpers work whatever
state the interaction is in (fresh, deferred, or deferred as an update of an ephemeral flow message).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import discord

from ..games.tables import Refused
from ..process import limits, metrics, outages
from ..texts import private
from ..texts.freeing import attachment, release
from ..words import i18n
from ..words.words import Speaker

log = logging.getLogger("bot")


def png(data: bytes, name: str = "board.png", description: str | None = None) -> discord.File:
    return attachment(data, name, description)


def display_name(user: discord.abc.User) -> str:
    return getattr(user, "display_name", None) or user.name


def interaction_kind(interaction: discord.Interaction) -> str:
    """What the user did, for an error's log line: "command alexandros move", "component alx:end:3:41"..."""
    if interaction.command is not None:
        return f"command {interaction.command.qualified_name}"
    data: Any = interaction.data or {}
    custom_id = data.get("custom_id")
    return f"{interaction.type.name} {custom_id}" if custom_id else interaction.type.name


async def say(
    interaction: discord.Interaction,
    text: str,
    *,
    file: discord.File | None = None,
    view: discord.ui.View | None = None,
) -> None:
    """An ephemeral answer, whatever state the interaction is in (fresh, deferred, or deferred update).
    Not after a public defer (``mode`` "public"): Discord then makes the first followup public. The view
    is let go once sent (``freeing.release``)."""
    await settle_soon(interaction)
    text = limits.content(text)
    mode = interaction.extras.get("mode")
    kwargs: dict[str, Any] = {}
    if view is not None:
        kwargs["view"] = view
    try:
        if not interaction.response.is_done():
            if file is not None:
                kwargs["file"] = file
            await interaction.response.send_message(text, ephemeral=True, **kwargs)
        elif mode == "thinking":
            await interaction.edit_original_response(
                content=text, attachments=[file] if file is not None else [], **kwargs
            )
            interaction.extras["answered"] = (
                True  # a follow-up is a message of its own now (bot.outbox.lanes)
            )
        else:
            if file is not None:
                kwargs["file"] = file
            await interaction.followup.send(text, ephemeral=True, **kwargs)
    finally:
        release(view)


async def show(
    interaction: discord.Interaction,
    text: str,
    *,
    file: discord.File | None = None,
    view: discord.ui.View | None = None,
) -> None:
    """Replace the ephemeral flow message a component lives on (after ``defer_update``, or at once where
    ``defer_soon`` did not defer it), else ``say``; the view is let go once sent."""
    await settle_soon(interaction)
    text = limits.content(text)
    replace = interaction.extras.get("replaces") and not interaction.response.is_done()
    if interaction.extras.get("mode") == "update" or replace:
        attachments = [file] if file is not None else []
        try:
            if replace:
                await interaction.response.edit_message(content=text, attachments=attachments, view=view)
            else:
                await interaction.edit_original_response(content=text, attachments=attachments, view=view)
        finally:
            release(view)
    else:
        await say(interaction, text, file=file, view=view)


def applied(interaction: discord.Interaction) -> None:
    """Notes that the handler's change is committed: an error after this (the answer Discord failed) is
    apologised for without "try again", which would be refused as stale, or would act a second time."""
    interaction.extras["applied"] = True


async def defer_private(interaction: discord.Interaction) -> None:
    if not interaction.response.is_done():
        await interaction.response.defer(ephemeral=True, thinking=True)
        interaction.extras["mode"] = "thinking"


async def defer_update(interaction: discord.Interaction) -> None:
    if not interaction.response.is_done():
        await interaction.response.defer()
        interaction.extras["mode"] = "update"


# Seconds a handler's work may take before its interaction is deferred. Discord fails an interaction not
# answered within 3 s of the press (ENGINEERING-FACTS), but a player wants to see something sooner: the
# first answer's target is p99 <= 500 ms (bench_bot). At 1.0 s, with 3 CPU burners beside the bot, the
# first answer's p99 was 395-628 ms; an answer ready sooner comes whole, a slower one after "thinking".
DEFER_AFTER = 0.3


class _Soon:
    """A defer held back: the loop's timer starts it only if no answer came within its seconds."""

    def __init__(self, interaction: discord.Interaction, update: bool, after: float) -> None:
        self.interaction = interaction
        self.update = update
        self.deferring: asyncio.Task[None] | None = None
        self.timer = asyncio.get_running_loop().call_later(after, self._defer)

    def _defer(self) -> None:
        defer = defer_update if self.update else defer_private
        self.deferring = asyncio.ensure_future(defer(self.interaction))

    async def settle(self) -> None:
        self.timer.cancel()
        if self.deferring is not None:
            await self.deferring  # its error (too late: 404) is the answer's, as an awaited defer's was


def defer_soon(interaction: discord.Interaction, update: bool = False, after: float | None = None) -> None:
    """``defer_private`` (or ``defer_update``, for a component on an ephemeral flow message), only if the
    handler has not answered within ``after`` seconds (``DEFER_AFTER``): an answer in time is the
    interaction's one response.

    The presser sees it, and the public posts it causes can follow (bot.outbox.lanes), a round trip to
    Discord sooner than after a defer and the defer's edit (about a tenth of a second each from a host;
    the fake Discord answers at once), with one request fewer. Every answer (``say``, ``show``) and the
    handler's end (``Context.guard``) first settle it (``settle_soon``): a defer on its way is waited for."""
    if interaction.response.is_done() or "soon" in interaction.extras:
        return
    if update:
        interaction.extras["replaces"] = True
    interaction.extras["soon"] = _Soon(interaction, update, DEFER_AFTER if after is None else after)


async def settle_soon(interaction: discord.Interaction) -> None:
    """No defer after this (``defer_soon``); one the timer already started is waited for."""
    soon: _Soon | None = interaction.extras.pop("soon", None)
    if soon is not None:
        await soon.settle()


class InFlight:
    """Counts the handlers running, so that shutdown finishes them before closing the database."""

    def __init__(self) -> None:
        self._tasks: dict[asyncio.Task[Any], int] = {}
        self.closing = False

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        if self.closing:
            raise Refused("bot/shutting-down")
        task = asyncio.current_task()
        if task is None:
            yield
            return
        # A handler may call another: count the depth, so the inner one finishing does not look like all.
        self._tasks[task] = self._tasks.get(task, 0) + 1
        try:
            yield
        finally:
            depth = self._tasks.pop(task) - 1
            if depth:
                self._tasks[task] = depth

    async def drain(self, timeout: float = 10.0) -> int:
        """Refuse new handlers; wait (at most ``timeout`` s) for those running; return how many are left."""
        self.closing = True
        me = asyncio.current_task()
        pending = {t for t in self._tasks if t is not me and not t.done()}
        if not pending:
            return 0
        _, still = await asyncio.wait(pending, timeout=timeout)
        return len(still)


async def last_word(interaction: discord.Interaction, text: str) -> None:
    """A handler's refusal or apology, its last answer: when Discord fails this one too, nothing is left to
    tell the member (Discord shows them "This interaction failed"), and the failure is only logged."""
    try:
        await say(interaction, text)
    except outages.ANY_FAILURE as error:
        log.warning(
            "Discord failed the last answer (%s): interaction=%s", outages.described(error), interaction.id
        )


def server_language(interaction: discord.Interaction) -> str:
    """What a post for the whole server speaks: its preferred locale (the user's where there is none)."""
    return i18n.language_of(interaction.guild_locale or interaction.locale)


async def guarded(
    interaction: discord.Interaction, in_flight: InFlight, body: Callable[[], Awaitable[None]]
) -> None:
    """Run a handler in the asking user's language (their Discord client's, ``interaction.locale``); a
    refusal becomes an ephemeral sentence, any other error a short apology. Public texts the handler makes
    speak the game's language instead (bot.texts.posts.public). Discord failing the answer for a while
    (bot.process.outages) is logged as Discord's, and the apology says so."""
    i18n.set_language(interaction.locale)  # this interaction's task only: each runs in a task of its own
    started = time.perf_counter()
    try:
        async with in_flight.running():
            await body()
    except Refused as refused:
        metrics.REFUSALS.labels(metrics.refusal_kind(refused.code)).inc()
        if interaction.extras.get("mode") == "public":
            # After a public defer, Discord makes the first followup replace the public "thinking" message,
            # whatever its ephemeral flag: a refusal must come before such a defer. One that comes after
            # is a bug of ours, and its words (which may name the asker's cards) never go public.
            log.error("refusal %s after a public defer: %s", refused.code, interaction_kind(interaction))
            await last_word(interaction, private.oops())
            return
        speaker: Speaker = refused.speaker or interaction.extras.get("speaker") or Speaker()
        await last_word(interaction, speaker.refusal(refused.code, refused.details))
    except Exception as error:
        applied = bool(interaction.extras.get("applied"))
        if outages.transient(error):
            log.warning(
                "Discord failed (%s): kind=%s game=%s interaction=%s%s",
                outages.described(error),
                interaction_kind(interaction),
                interaction.extras.get("game"),
                interaction.id,
                ", after the change was saved" if applied else "",
            )
            await last_word(interaction, private.oops_applied() if applied else private.discord_failed())
            return
        # Enough context to find the game and the person in a bug report, never the token.
        log.exception(
            "interaction failed: kind=%s game=%s channel=%s user=%s interaction=%s",
            interaction_kind(interaction),
            interaction.extras.get("game"),
            interaction.channel_id,
            interaction.user.id,
            interaction.id,
        )
        await last_word(interaction, private.oops_applied() if applied else private.oops())
    finally:
        metrics.INTERACTION_SECONDS.labels(interaction.type.name).observe(time.perf_counter() - started)
