"""Which CPU cores the bot's processes run on (issue 32): the bot's own process on one core, the render
workers and the computers on the others, the spare render worker beside the bot.

Left to the kernel, the bot's threads (the event loop, the store's thread) wake on whichever core is free,
and on a busy machine that is a render worker's: the worker was preempted 5,000-12,000 times in a run of
1,711 pictures (bench_bot, 50 games, 2 cores), each time losing its caches, and this virtual machine charges
0.2-0.3 ms of CPU to a thread that wakes an idle core. Kept apart, the worker was preempted 1,600 times, and
in 3 alternating pairs (the spare as in production) the bot's process took 4.9-6.0 ms of CPU an action
against 7.1-8.1, the workers 7.1-8.9 against 7.8-10.1, and the bot acted 120-151 times a second against
99-122. Beside 3 CPU burners (2 pairs) the same actions a second (54-57 against 52-57), the loop's longest
stall 18-22 ms against 49-76 (docs/MEASURED.md).

A core kept for one process is a core the kernel cannot move it from. When other programs crowd the bot's
core, the loop watch (bot.process.loop_watch) finds its stalls caused by the machine, and ``release`` lets
the bot's process run on any of its cores again. Several bots on one machine each take the lowest core:
give each its own cores (a cpuset: Docker's ``--cpuset-cpus``) or turn this off (``ALEXANDROS_PIN_CORES=0``,
the default where the process runs only some of the shards: docs/HOSTING.md).
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

log = logging.getLogger("bot")


@dataclass(frozen=True)
class Cores:
    """The cores of the bot's own process and those of its workers, which share none."""

    bot: frozenset[int]
    workers: frozenset[int]

    @property
    def all(self) -> frozenset[int]:
        return self.bot | self.workers

    @classmethod
    def split(cls, allowed: Collection[int]) -> Cores | None:
        """The lowest of the ``allowed`` cores for the bot, the rest for the workers; None with fewer than 2
        (nothing to keep apart)."""
        if len(allowed) < 2:
            return None
        first = min(allowed)
        return cls(frozenset({first}), frozenset(allowed) - {first})


def allowed_cores() -> frozenset[int] | None:
    """The cores this process may run on, or None where the system cannot keep a process to cores (only
    Linux can: ``os.sched_setaffinity``)."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    return frozenset(os.sched_getaffinity(0))


def keep_process_on(cores: Collection[int]) -> bool:
    """Keep every thread of this process to ``cores`` (a thread started later takes its starter's cores);
    False if the system refused (a container's cpuset that does not hold them)."""
    try:
        threads = [int(tid) for tid in os.listdir("/proc/self/task")]
    except OSError:
        threads = [0]
    kept = False
    for tid in threads:
        # A thread may end between the listing and its turn; a refusal for one is a refusal for all.
        with contextlib.suppress(ProcessLookupError):
            try:
                os.sched_setaffinity(tid, cores)
            except OSError as error:
                log.info("the bot's process could not be kept to cores %s: %s", sorted(cores), error)
                return False
            kept = True
    return kept


def on_cores(cores: Collection[int], initializer: Callable[..., None], *args: Any) -> None:
    """A worker's start on ``cores``, then ``initializer(*args)`` (bot.process.render_pool's
    ``behind_the_bot`` or ``when_idle``, which set its priority)."""
    keep_process_on(cores)
    initializer(*args)


class CorePlacement:
    """The bot's process kept to its core (``place``) until the machine crowds it there (``release``)."""

    def __init__(self, cores: Cores) -> None:
        self.cores = cores
        self.placed = False

    def place(self) -> None:
        self.placed = keep_process_on(self.cores.bot)

    def release(self) -> None:
        """Let the bot's process run on all its cores again, once: the loop watch found other programs
        holding its core."""
        if not self.placed:
            return
        self.placed = False
        if keep_process_on(self.cores.all):
            log.warning(
                "other programs kept the bot's core %s busy: the bot's process now runs on any of its "
                "cores %s (docs/HOSTING.md, 'Sharing the machine')",
                ",".join(map(str, sorted(self.cores.bot))), ",".join(map(str, sorted(self.cores.all))),
            )  # fmt: skip

    def on_stalls(self, cause: str) -> None:
        """The loop watch's warning: stalls of ``cause`` come often (bot.process.loop_watch)."""
        if cause == "machine":
            self.release()


def place_the_bot() -> CorePlacement | None:
    """The bot's process kept to the first of its cores, its workers to be started on the others (the
    module's docstring); None where there is nothing to keep apart."""
    allowed = allowed_cores()
    cores = Cores.split(allowed) if allowed is not None else None
    if cores is None:
        return None
    placement = CorePlacement(cores)
    placement.place()
    return placement if placement.placed else None
