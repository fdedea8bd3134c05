"""Discord failing for a while, told apart from a bug of ours: a 5xx, a rate limit that outlasts
discord.py's patience, a timeout or a dropped connection. The delivery worker tries such a send again
(bot.outbox.deliveries.classify); an interaction whose answer Discord failed is logged as Discord's, as a
warning without a traceback, and the member is told it was Discord (bot.commands.answers.guarded)."""

from __future__ import annotations

import asyncio
import os
import socket

import aiohttp
import discord

# The way to Discord failing: no answer in time, a dropped or refused connection, a name not resolved.
NETWORK: tuple[type[BaseException], ...] = (
    asyncio.TimeoutError,
    aiohttp.ClientError,
    ConnectionError,
    socket.gaierror,
)

# Everything a request to Discord may raise that is not a bug of ours: its answers (4xx, 5xx), a rate limit
# past discord.py's patience, and the network's failures.
ANY_FAILURE: tuple[type[BaseException], ...] = (discord.HTTPException, discord.RateLimited, *NETWORK)


def transient(error: BaseException) -> bool:
    """Whether ``error`` is Discord, or the way to it, failing for a while (worth trying again later). A
    network failure counts only on the way to Discord: the database's (asyncpg's refused connection) is
    not Discord's, and its host is to be told as an error."""
    if isinstance(error, discord.RateLimited):
        return True
    if isinstance(error, discord.HTTPException):
        return error.status == 429 or error.status >= 500
    return isinstance(error, NETWORK) and _through(error, _DISCORDS_WAY)


# Where a request to Discord runs: discord.py and its HTTP client, aiohttp.
_DISCORDS_WAY = (f"{os.sep}discord{os.sep}", f"{os.sep}aiohttp{os.sep}")


def _through(error: BaseException, places: tuple[str, ...]) -> bool:
    """Whether ``error`` came up through code in one of ``places`` (parts of a file's path)."""
    tb = error.__traceback__
    while tb is not None:
        if any(place in tb.tb_frame.f_code.co_filename for place in places):
            return True
        tb = tb.tb_next
    return False


def described(error: BaseException) -> str:
    """One line for the log: what failed, without the traceback a bug of ours would get."""
    if isinstance(error, discord.HTTPException):
        return f"{error.status} {error.text or type(error).__name__}"
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
