"""Which CPU cores the bot's processes run on (issue 32): while the machine is the bot's, its own process on
one core, the render workers and the computers on the others, the spare render worker beside the bot.

Left to the kernel, the bot's threads (the event loop, the store's thread) wake on whichever core is free,
and on a busy machine that is a render worker's: the worker was preempted 5,000-12,000 times in a run of
1,711 pictures (bench_bot, 50 games, 2 cores), each time losing its caches, and this virtual machine charges
0.2-0.3 ms of CPU to a thread that wakes an idle core. Kept apart, the worker was preempted 1,600 times;
with the same deals against the old bot (3 rounds each) the bot did 4.28x its actions a second against
3.19x, at 12.7-14.1 ms of CPU an action against 16.1-18.3 (docs/MEASURED.md).

Beside other programs' work it is the other way round: a worker kept to its cores shares them with that work
and cannot take the moments another core is free (beside 3 CPU burners, 4 pairs: 67-82 actions a second
against 78-86). So the placement looks at the machine every ``LOOK_EVERY`` seconds and lets go (the system
places every process) while other programs take ``OTHERS_BUSY`` of the bot's cores, or when the loop watch
(bot.process.loop_watch) finds the machine stalling the bot; it keeps them apart again after a minute of
quiet.

Several bots on one machine would each take the lowest core: give each its own cores (a cpuset: Docker's
``--cpuset-cpus``) or turn this off (``ALEXANDROS_PIN_CORES=0``, the default where the process runs only
some of the shards: docs/HOSTING.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

from . import metrics

log = logging.getLogger("bot")

LOOK_EVERY = 5.0  # seconds between looks at what the machine's other programs take of the bot's cores
OTHERS_BUSY = 0.25  # their share of the cores since the last look, from which the system places the bot
OTHERS_QUIET = 0.125  # their share below which, for QUIET_LOOKS looks in a row, the bot keeps apart again
QUIET_LOOKS = 12

Workers = Callable[[], Sequence[tuple[int, bool]]]  # the workers' process ids, and whether each is the spare


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
                log.info("this process could not be kept to cores %s: %s", sorted(cores), error)
                return False
            kept = True
    return kept


def on_cores(cores: Collection[int], initializer: Callable[..., None], *args: Any) -> None:
    """A worker's start on ``cores``, then ``initializer(*args)`` (bot.process.render_pool's
    ``behind_the_bot`` or ``when_idle``, which set its priority)."""
    keep_process_on(cores)
    initializer(*args)


def started_on(
    cores: Collection[int] | None, initializer: Callable[..., None], *args: Any
) -> tuple[Callable[..., None], tuple[Any, ...]]:
    """A worker's start as RenderPool takes it (initializer, args): on ``cores`` where the bot keeps apart
    (``on_cores``), else ``initializer(*args)`` as it is."""
    if cores is None:
        return initializer, args
    return on_cores, (cores, initializer, *args)


class CorePlacement:
    """The bot's process and its workers kept apart (``place``) while the machine is theirs, and placed by the
    system (``release``) while other programs take a share of it (``look``, every ``LOOK_EVERY`` seconds:
    ``run``)."""

    def __init__(self, cores: Cores, workers: Workers = lambda: ()) -> None:
        self.cores = cores
        self.workers = workers
        self.placed = False
        self.releases = 0  # times it let go
        self._quiet = 0  # quiet looks in a row while released

    def place(self) -> None:
        self.placed = keep_process_on(self.cores.bot)
        metrics.CORES_APART.set(int(self.placed))
        if self.placed:
            for pid, spare in self.workers():
                _keep(pid, self.cores.bot if spare else self.cores.workers)

    def release(self) -> None:
        """Every process of the bot on all its cores again."""
        self.releases += self.placed
        self.placed = False
        metrics.CORES_APART.set(0)
        self._quiet = 0
        keep_process_on(self.cores.all)
        for pid, _spare in self.workers():
            _keep(pid, self.cores.all)

    def look(self, others: float) -> None:
        """Other programs took ``others`` of the bot's cores (a share, 1: all of them) on average since the
        last look: keep apart or let go."""
        if self.placed and others >= OTHERS_BUSY:
            log.info(
                "other programs take %.0f %% of the bot's cores: the system places its processes",
                others * 100,
            )
            self.release()
        elif not self.placed:
            self._quiet = self._quiet + 1 if others < OTHERS_QUIET else 0
            if self._quiet >= QUIET_LOOKS:
                log.info(
                    "the machine is quiet: the bot's process keeps to core %s again", listed(self.cores.bot)
                )
                self.place()
            else:  # a worker started since (replaced, or the hints') starts kept apart
                for pid, _spare in self.workers():
                    _keep(pid, self.cores.all)

    def on_stalls(self, cause: str) -> None:
        """The loop watch's warning: stalls of ``cause`` come often (bot.process.loop_watch)."""
        if cause == "machine" and self.placed:
            log.warning(
                "other programs kept the bot's core %s busy: the system places the bot's processes "
                "(docs/HOSTING.md, 'Sharing the machine')",
                listed(self.cores.bot),
            )
            self.release()

    async def run(self) -> None:
        """Look every ``LOOK_EVERY`` seconds at the CPU the machine's other programs took."""
        then, before = time.monotonic(), self._others_seconds()
        while True:
            await asyncio.sleep(LOOK_EVERY)
            now, after = time.monotonic(), self._others_seconds()
            if before is not None and after is not None and now > then:
                self.look((after - before) / (now - then) / len(self.cores.all))
            then, before = now, after

    def _others_seconds(self) -> float | None:
        """CPU seconds the bot's cores have run, less those of the bot's own processes (Linux's /proc)."""
        machine = cores_seconds(self.cores.all)
        if machine is None:
            return None
        ours = process_seconds(os.getpid()) + sum(process_seconds(pid) for pid, _ in self.workers())
        return machine - ours


def cores_seconds(cores: Collection[int]) -> float | None:
    """CPU seconds ``cores`` have run so far, neither idle nor waiting (their lines of /proc/stat); None
    where there is none."""
    names = {f"cpu{core}" for core in cores}
    try:
        with open("/proc/stat", encoding="ascii") as stat:
            lines = [line.split() for line in stat if line.startswith("cpu")]
    except OSError:
        return None
    ran = 0
    for fields in lines:
        if fields[0] in names:
            user, nice, system, _idle, _iowait, irq, softirq = (int(f) for f in fields[1:8])
            ran += user + nice + system + irq + softirq
    return ran / _TICKS


def process_seconds(pid: int) -> float:
    """CPU seconds a process has run so far (0 for one that is gone)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / _TICKS


_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _keep(pid: int, cores: Collection[int]) -> None:
    with contextlib.suppress(OSError):  # a worker that just died: its replacement starts where it should
        os.sched_setaffinity(pid, cores)


def listed(cores: Collection[int]) -> str:
    """Cores as the log says them: ``0`` or ``1,2,3``."""
    return ",".join(map(str, sorted(cores)))


def place_the_bot() -> CorePlacement | None:
    """The bot's process kept to the first of its cores, its workers to be started on the others (the
    module's docstring); None where there is nothing to keep apart. Tell it the workers (``workers``) once
    they are started, and run it (``run``) to let go while other programs take a share of the machine."""
    allowed = allowed_cores()
    cores = Cores.split(allowed) if allowed is not None else None
    if cores is None:
        return None
    placement = CorePlacement(cores)
    placement.place()
    return placement if placement.placed else None
