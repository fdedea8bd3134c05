"""The event loop watched from inside, so that a host hears why players find the buttons slow (issue 32).

Every ``PERIOD`` a task of the loop wakes and notes how late it woke: ``alexandros_loop_late_seconds``. A
wake-up ``STALL`` late or more is a stall, and the loop thread's own accounts say what the gap was made of
(Linux keeps them for each thread in ``/proc/self/task/<id>/schedstat``: the time it ran, and the time it
was ready to run but waited for a core):

- ``machine``: the loop was ready, but other programs had the cores. Beside the whole test suite on this
  2-core machine its wake-ups were 52-176 ms late; with a larger share of the CPU, 24-29 ms
  (docs/MEASURED.md). The host's remedy: a larger share (docs/HOSTING.md, "Sharing the machine").
- ``bot``: the bot's own work held the loop, a stall's length of CPU or more: more games than one process
  keeps up with (docs/SCALING.md), or a bug.
- ``blocked``: the thread waited in the kernel, neither running nor ready (a slow disk, a machine that
  swaps).
- ``waiting``: where the accounts give only the time run (not Linux), machine and blocked together.

Stalls are counted by cause (``alexandros_loop_stalls``). The log warns when a cause's stalls come often
(``OFTEN`` within ``WINDOW``) or one lasts ``LONG``, at most once an hour per cause.

Watching costs ten wake-ups a second. The note and its reading of the accounts take 3 us; the wake-up
itself is what costs, on this machine, a virtual machine whose idle core is charged 0.2-0.3 ms to the
thread that wakes it (a bare ``asyncio.sleep`` loop costs the same, in schedstat as in ``thread_time``): 0.3 %
of a core while the bot is idle, and less while it is busy and its cores awake anyway.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from . import metrics

PERIOD = 0.1  # seconds between the watch's wake-ups
STALL = 0.1  # seconds late: a stall
OFTEN = 10  # stalls of one cause within WINDOW that make a warning
WINDOW = 600.0
LONG = 1.0  # seconds late: a warning at once
AGAIN_AFTER = 3600.0  # seconds before a cause's warning is logged again

log = logging.getLogger("bot")


@dataclass(frozen=True)
class Accounts:
    """What a thread has done so far, in seconds: run, and waited ready for a core (None: not known)."""

    ran: float
    waited: float | None


class ThreadAccounts:
    """The calling thread's accounts, read from Linux's schedstat (a file kept open: some 3 us a read), or
    only its CPU time where there is none."""

    def __init__(self) -> None:
        self._fd: int | None = None
        try:
            self._fd = os.open(f"/proc/self/task/{threading.get_native_id()}/schedstat", os.O_RDONLY)
        except OSError:
            pass

    def read(self) -> Accounts:
        if self._fd is not None:
            ran, waited = os.pread(self._fd, 128, 0).split()[:2]
            return Accounts(int(ran) / 1e9, int(waited) / 1e9)
        return Accounts(time.thread_time(), None)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def cause(elapsed: float, ran: float, waited: float | None) -> str:
    """What a gap of ``elapsed`` seconds between two wake-ups was made of, from what the loop's thread did
    meanwhile: the bot's own work when it ran ``STALL`` or more (that alone is a stall, however long it
    also waited for a core); else the longer of waiting for a core and waiting in the kernel (the time left
    beyond the ``PERIOD`` the loop was meant to sleep)."""
    if ran >= STALL:
        return "bot"
    if waited is None:
        return "waiting"
    blocked = elapsed - PERIOD - ran - waited
    return "machine" if waited >= blocked else "blocked"


def _less(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a - b


ADVICE = {
    "machine": "It was ready, but other programs on this machine had the CPU cores. Give the bot a larger "
    "share of the CPU (docs/HOSTING.md, 'Sharing the machine')",
    "bot": "The bot's own work held it: more than one process keeps up with (several can share the games: "
    "docs/SCALING.md), or, if the bot was not busy, a bug: please report it with this line",
    "blocked": "Its thread waited in the operating system, not for a core: a slow or busy disk, or a machine "
    "short of memory that swaps. Check the disk and the memory",
    "waiting": "It waited for a CPU core or in the operating system: other programs on this machine, a slow "
    "disk or swapping (docs/HOSTING.md, 'Sharing the machine')",
}


@dataclass
class LoopWatch:
    """Notes each wake-up (``tick``) and warns of stalls; ``run`` is the task that wakes. ``on_warning`` hears
    each warning's cause (bot.process.cores lets the bot off its core when the machine crowds it)."""

    clock: Callable[[], float] = time.monotonic
    on_warning: Callable[[str], None] | None = None
    _stalls: dict[str, deque[float]] = field(default_factory=dict)
    _warned_at: dict[str, float] = field(default_factory=dict)

    def tick(self, now: float, elapsed: float, ran: float, waited: float | None) -> str | None:
        """One wake-up ``elapsed`` seconds after the last, during which the loop's thread ran ``ran`` seconds
        and waited ``waited`` for a core. Returns the stall's cause, or None when it was on time."""
        late = max(elapsed - PERIOD, 0.0)
        metrics.LOOP_LATE.observe(late)
        if late < STALL:
            return None
        why = cause(elapsed, ran, waited)
        metrics.LOOP_STALLS.labels(why).inc()
        seen = self._stalls.setdefault(why, deque())
        seen.append(now)
        while seen and seen[0] <= now - WINDOW:
            seen.popleft()
        last = self._warned_at.get(why)
        if (len(seen) >= OFTEN or late >= LONG) and (last is None or now - last >= AGAIN_AFTER):
            self._warned_at[why] = now
            log.warning(
                "the event loop woke up %.0f ms late (%d stalls like it in the last %d minutes): players "
                "feel this as slow buttons. %s",
                late * 1000, len(seen), WINDOW // 60, ADVICE[why],
            )  # fmt: skip
            if self.on_warning is not None:
                self.on_warning(why)
        return why

    async def run(self) -> None:
        accounts = ThreadAccounts()  # the loop's own thread: this task runs on it
        try:
            then, before = self.clock(), accounts.read()
            while True:
                await asyncio.sleep(PERIOD)
                now, after = self.clock(), accounts.read()
                waited = _less(after.waited, before.waited)
                self.tick(now, now - then, after.ran - before.ran, waited)
                then, before = now, after
        finally:
            accounts.close()
