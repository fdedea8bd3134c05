"""What can go wrong at the offline Discord's HTTP seam, raised as discord.py raises it: injected faults
(`Fault`, `OfflineDiscord.fail`), Discord's global rate limit (`GlobalLimit`), and its error answers."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import aiohttp
import discord

from .records import (
    Request,
)


def _fake_response(status: int, reason: str) -> Any:
    return SimpleNamespace(status=status, reason=reason)


def _http_error(status: int, code: int, message: str) -> discord.HTTPException:
    reasons = {400: "Bad Request", 403: "Forbidden", 404: "Not Found", 500: "Internal Server Error",
               502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout"}  # fmt: skip
    response = _fake_response(status, reasons.get(status, "Error"))
    payload = {"code": code, "message": message}
    if status == 404:
        return discord.NotFound(response, payload)
    if status == 403:
        return discord.Forbidden(response, payload)
    if status >= 500:
        return discord.DiscordServerError(response, payload)
    return discord.HTTPException(response, payload)


class GlobalLimit:
    """Discord's global rate limit of a bot (50 requests per second; interaction answers are exempt, and
    they do not pass here): a token bucket of ``rate`` tokens a second holding at most ``burst``. A request
    beyond it is answered 429 with the Retry-After of the next token (``OfflineDiscord.limit_globally``).
    """

    def __init__(self, rate: float = 50.0, burst: float | None = None) -> None:
        self.rate = rate
        self.burst = rate if burst is None else burst
        self.tokens = self.burst
        self.at: float | None = None
        self.passed = 0
        self.refused = 0

    def take(self, now: float) -> float | None:
        """None when the request may pass, else the seconds until it may."""
        if self.at is not None:
            self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            self.passed += 1
            return None
        self.refused += 1
        return max(0.001, (1.0 - self.tokens) / self.rate)


def _too_many(retry_after: float) -> discord.HTTPException:
    """A 429 as Discord sends it, with Retry-After (discord.py gives up on it when its patience is out)."""
    headers = {"Retry-After": f"{retry_after:.3f}"}
    response: Any = SimpleNamespace(status=429, reason="Too Many Requests", headers=headers)
    body = {"code": 0, "message": "You are being rate limited.", "global": True}
    return discord.HTTPException(response, body)


FAULTS = ("400", "500", "502", "503", "504", "429", "403", "404", "timeout", "disconnect", "kill")


class ProcessKilled(BaseException):  # noqa: N818 - named for what happened, as KeyboardInterrupt is
    """The bot's process died at this request (a fault of kind ``"kill"``): from then on nothing it does
    reaches Discord (every request raises this), and the harness that armed the kill stops its store too
    (``OfflineDiscord.on_kill``). A BaseException, as the end of a process is: no ``except Exception`` in
    the bot goes on as if it were a failure it could handle."""


@dataclass
class Fault:
    """A failure to inject at the HTTP seam (``OfflineDiscord.fail``), as discord.py would raise it.

    ``kind`` is a request kind (``channel_message``, ``edit_message``, …, or ``*``); ``when`` narrows it
    further. ``lost_reply``: Discord did the work, but the answer never came back (a timeout or dropped
    connection after the request arrived), so a retry meets what the first attempt made. ``"kill"`` is the
    bot's process dying at that request (before it reached Discord, or with ``lost_reply`` after Discord
    did the work): see ``OfflineDiscord.revive``.
    """

    kind: str
    error: str
    times: int = 1
    retry_after: float = 1.0
    lost_reply: bool = False
    when: Callable[[Request], bool] | None = None
    hits: list[Request] = field(default_factory=list)
    code: int = 0  # Discord's JSON error code, e.g. 30046 (the edit cap of messages older than an hour)

    def matches(self, req: Request) -> bool:
        return (
            len(self.hits) < self.times
            and self.kind in ("*", req.kind)
            and (self.when is None or self.when(req))
        )

    def exception(self) -> BaseException:
        if self.error == "kill":
            return ProcessKilled(f"killed at a {self.kind} request")
        if self.error == "timeout":
            return TimeoutError()
        if self.error == "disconnect":
            return aiohttp.ServerDisconnectedError()
        if self.error == "429":
            # What discord.py raises when a rate limit outlasts its own patience (max_ratelimit_timeout).
            return discord.RateLimited(self.retry_after)
        status = int(self.error)
        return _http_error(status, self.code, f"injected {status}")
