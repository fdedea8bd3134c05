"""The render workers: processes that draw the pictures, each one a pool of its own.

A game's pictures go to one worker, chosen by a key the caller gives (the table's players and map), so that
the worker's caches hold that game's last board: its compressed bands of rows (rendering.png) and its labels
(rendering.labels), most of which the next board reuses. A worker busier than the least busy one by more
than ``SLACK`` pictures is passed over for it, so that one busy game cannot leave the others idle.
Measured (bench_bot, 10 games of 40 actions each, three alternating runs): 11.9 ms of worker CPU an action
against 12.5 ms with one shared pool, 83 against 78 actions a second.

A worker that dies (killed, out of memory, a crash in a native library) breaks only its own pool: it is
replaced by a fresh one, started and warmed like the first, and the pictures it held are drawn again there,
once. Before, one dead worker left the bot posting placeholders until it was restarted.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import multiprocessing
from collections.abc import Callable, Sequence
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

log = logging.getLogger("bot.pictures")

T = TypeVar("T")

SLACK = 2  # pictures a game's own worker may have waiting beyond the least busy one's, then passed over


class RenderPool:
    """``workers`` processes started by ``initializer(*initargs)``; ``run(key, fn, *args)`` calls ``fn`` in
    the worker of ``key``."""

    def __init__(self, workers: int, initializer: Callable[..., None], initargs: Sequence[Any]) -> None:
        self.workers = workers
        self._initializer = initializer
        self._initargs = tuple(initargs)
        self._pools: list[concurrent.futures.ProcessPoolExecutor] = []
        self._waiting: list[int] = []
        self.replaced = 0  # workers replaced after they died

    def start(self) -> None:
        """Spawn every worker now (the bot's threads must not be forked), not on the first picture."""
        self._pools = [self._spawn() for _ in range(self.workers)]
        self._waiting = [0] * self.workers

    def _spawn(self) -> concurrent.futures.ProcessPoolExecutor:
        pool = concurrent.futures.ProcessPoolExecutor(
            1,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=self._initializer,
            initargs=self._initargs,
        )
        pool.submit(int)  # start the process and its warm-up at once
        return pool

    def close(self) -> None:
        for pool in self._pools:
            pool.shutdown(wait=True, cancel_futures=True)
        self._pools = []

    def pids(self) -> list[int]:
        """The workers' process ids (benchmarks read their CPU time)."""
        return [pid for pool in self._pools for pid in (getattr(pool, "_processes", None) or {})]

    def _pick(self, key: int | None) -> int:
        least = min(range(len(self._pools)), key=self._waiting.__getitem__)
        if key is None:
            return least
        own = key % len(self._pools)
        return own if self._waiting[own] <= self._waiting[least] + SLACK else least

    async def run(self, key: int | None, fn: Callable[..., T], *args: Any, weight: int = 1) -> T:
        """``fn(*args)`` in the worker of ``key`` (None: the least busy one). ``weight`` counts how many
        pictures' time it takes: a whole replay is weighed so that other pictures go to other workers."""
        loop = asyncio.get_running_loop()
        for attempt in (1, 2):
            if not self._pools:
                raise RuntimeError("the render workers are closed")
            i = self._pick(key)
            pool = self._pools[i]
            self._waiting[i] += weight
            try:
                return await loop.run_in_executor(pool, fn, *args)
            except BrokenProcessPool:
                if attempt == 2:
                    raise
                self._replace(i, pool)
            finally:
                self._waiting[i] -= weight
        raise AssertionError("unreachable")

    def _replace(self, i: int, broken: concurrent.futures.ProcessPoolExecutor) -> None:
        if i >= len(self._pools) or self._pools[i] is not broken:
            return  # closed, or another picture of the dead worker replaced it already
        log.warning("render worker %d died; starting a new one", i)
        self.replaced += 1
        broken.shutdown(wait=False, cancel_futures=True)
        self._pools[i] = self._spawn()
