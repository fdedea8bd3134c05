"""The bot's own tasks (loops it started): waiting in them for an event, and ending them."""

from __future__ import annotations

import asyncio
from typing import Any


async def wait_for_event(event: asyncio.Event, seconds: float) -> bool:
    """Wait until ``event`` is set, at most ``seconds``: True if it was set, False at the time limit.

    With ``asyncio.timeout``, not ``asyncio.wait_for``: on Python 3.11 ``wait_for`` swallows a cancel that
    comes just as the event is set. A loop waiting so then went on, and whoever ended it waited for ever (a
    web test hung about one run in 20; tests/web/test_live_close.py)."""
    try:
        async with asyncio.timeout(seconds):
            await event.wait()
    except TimeoutError:
        return False
    return True


async def end_task(task: asyncio.Task[Any]) -> None:
    """Cancel ``task`` and wait until it has ended. Its own CancelledError ends the wait; a cancel of the
    caller itself still reaches the caller (``contextlib.suppress(CancelledError)`` around the wait swallowed
    it, and a close under a time limit then went on waiting)."""
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        me = asyncio.current_task()
        if me is not None and me.cancelling():
            raise
