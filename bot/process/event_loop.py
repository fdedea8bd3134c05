"""The event loop the bot runs on: uvloop where it is installed, else asyncio's own (issue 32).

uvloop runs the same asyncio program on libuv. Its callbacks, timers and socket reads cost less CPU than
asyncio's loop, which is written in Python, and the bot's process runs tens of callbacks an action. In
bench_bot (50 games at once) it took about a tenth off the bot process's CPU an action and shortened the
loop's longest late wake-up (docs/MEASURED.md). There is no uvloop for Windows: the bot runs on asyncio's
loop there. A host chooses with ALEXANDROS_EVENT_LOOP (bot.process.config), for example to rule the loop
out when something misbehaves. The tests run on the loop the bot runs on (tests/conftest.py).
"""

from __future__ import annotations

import asyncio
import importlib.util
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")
LOOPS = ("uvloop", "asyncio")


def have_uvloop() -> bool:
    return importlib.util.find_spec("uvloop") is not None


def default_event_loop() -> str:
    """The loop a host gets unless it says otherwise."""
    return "uvloop" if have_uvloop() else "asyncio"


def loop_factory(name: str) -> Callable[[], asyncio.AbstractEventLoop]:
    """What makes a new loop of the kind ``name`` (one of ``LOOPS``)."""
    if name == "uvloop":
        import uvloop

        return uvloop.new_event_loop
    if name == "asyncio":
        return asyncio.new_event_loop
    raise ValueError(f"no event loop named {name!r}: one of {', '.join(LOOPS)}")


def run_on(name: str, main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)`` on a loop of the kind ``name``."""
    with asyncio.Runner(loop_factory=loop_factory(name)) as runner:
        return runner.run(main)


def running_loop_name() -> str:
    """Which kind of loop runs the caller (for the log and the tests)."""
    return "uvloop" if type(asyncio.get_running_loop()).__module__.startswith("uvloop") else "asyncio"
