"""The live pages' task ends when the web face closes, whenever the close comes: also just as a commit pokes
it. On Python 3.11 ``asyncio.wait_for`` swallows a cancel that arrives as the awaited event is set; the task
then went on polling, and closing it waited for ever (a web test hung about one run in 20)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bot.process.tasks import end_task
from bot.web.live import Hub


async def test_the_live_task_ends_when_closed_just_as_a_poke_comes() -> None:
    # Each gap puts the cancel at another point of the poke's wake-up: the event set, the waiting task
    # woken, its waiter released. With wait_for one of them lost the cancel.
    for gap in range(6):
        store: Any = None  # never read: nobody watches game 7, so a look reads no record
        hub = Hub(store, pages=None)  # type: ignore[arg-type]
        hub.start()
        task = hub._task
        assert task is not None
        await asyncio.sleep(0)  # the task now waits for a poke
        hub.poke(7)
        for _ in range(gap):
            await asyncio.sleep(0)
        async with asyncio.timeout(2.0):
            await hub.close()
        assert task.done(), f"the live task still runs after close (cancel {gap} turns after the poke)"


async def test_a_close_under_a_time_limit_is_not_swallowed_by_the_task_it_ends() -> None:
    """end_task waits for the task's end; a cancel of the caller (here a time limit) still reaches the
    caller, where ``suppress(CancelledError)`` around the wait took it for the task's and returned."""

    async def slow_to_end() -> None:
        try:
            await asyncio.sleep(60)
        finally:
            await asyncio.sleep(5)  # its cleanup: the caller's time limit interrupts it

    task = asyncio.get_running_loop().create_task(slow_to_end())
    await asyncio.sleep(0)
    with pytest.raises(TimeoutError):
        async with asyncio.timeout(0.2):
            await end_task(task)
    assert task.done()
