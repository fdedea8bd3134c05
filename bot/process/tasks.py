"""Ending a task of the bot's own (a loop it started): cancel it, and wait until it has ended."""

from __future__ import annotations

import asyncio
from typing import Any


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
