"""Where the computer players think (issue 29): worker processes of their own, never the bot's process.

The hard player's search is pure Python and runs for up to its time budget: in a thread of the bot's process
it held the GIL, and every interaction of the process waited behind it. A request here is a picklable call
(a state or a player's view, a level, a random generator) answered in a worker process by what was decided:
a turn's actions, or a hint's advice. The bot applies a turn's actions itself (``engine.game.apply``), so
the state it commits is always worked out in its own process.

The computers' turns are thought in the OS's idle class (``render_pool.when_idle``; nice 19 where there is
none): on a busy machine the bot's event loop and the render workers come first, and the kernel hands them
a core the computers hold at once (at nice 19 a computer still took most of a core, and people's
interactions waited twice as long beside 20 computer tables; in the idle class 1.29x, and 1.05x once
the deliveries stopped claiming each commit on its own beside them: bench_computers).
A hint, which a person waits for, is thought in a worker of its own at nice 10, started with the first
hint: in the idle class a saturated machine gave it 0.6 % of a core.
With ``workers`` = 0 the computers think in a thread (the tests and the console, where one process is
simpler). The process pool is bot.process.render_pool's: warm processes fed and read by the event loop, a
dead one replaced.

Requests wait in the bot, not in a worker's pipe: each worker has one at a time. A request given up while it
waits (a computer's turn cut off with its delivery, after 30 s behind 20 tables of computers on one worker)
is never sent, where it was once thought through for nobody before the turns behind it; a person's hint
(``urgent``) waits behind no computer's turn.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections import deque
from collections.abc import Callable
from typing import Any, TypeVar

from engine.actions import Action
from engine.events import Event
from engine.game import apply
from engine.state import GameState

from ..process.cores import Cores, started_on
from ..process.render_pool import RenderPool, behind_the_bot, when_idle
from . import computers

T = TypeVar("T")

HINT_NICE = 10  # how much lower than the bot the hints' worker runs (the computers' turns: idle class)


def _warm_thinker() -> None:
    """A worker's start: load the players before the first request."""
    import engine.ai  # noqa: F401 - imported once here, not on the first computer's turn


def turn_actions(state: GameState, level: str, rng: random.Random) -> tuple[Action, ...] | None:
    """The actions of the current seat's whole turn at ``level`` (in a worker; None: the player failed)."""
    played = computers.play_turn(state, level, rng)
    return None if played is None else played[2]


def replay(
    state: GameState, actions: tuple[Action, ...]
) -> tuple[GameState, tuple[Event, ...], tuple[Action, ...]]:
    """The turn a worker chose, applied in the bot's own process: the new state, its events, the actions."""
    events: list[Event] = []
    for action in actions:
        state, evs = apply(state, action)
        events.extend(evs)
    return state, tuple(events), actions


class Thinkers:
    """The computer players' processes: ``turn`` plays a computer's turn, ``run`` another decision."""

    def __init__(self, workers: int = 0, turns_nice: int | None = None, cores: Cores | None = None) -> None:
        self.workers = workers
        self.turns_nice = turns_nice  # None: the computers' turns in the idle class; else at this nice
        self.cores = cores  # thought on the workers' cores, not the bot's (bot.process.cores)
        self.pool: RenderPool | None = None  # the computers' turns
        self.hints: RenderPool | None = None  # one worker for the hints, started with the first
        self.waiting = 0  # decisions asked for and not yet answered (the metrics' queue depth)
        self.decided_in_workers = 0  # decisions a worker process answered
        self._idle = workers  # workers with no request
        self._queue: deque[asyncio.Future[None]] = deque()
        self._loop: asyncio.AbstractEventLoop | None = None  # the loop the waiting requests' futures are of

    def start(self) -> None:
        if self.workers > 0 and self.pool is None:
            if self.turns_nice is None:
                self.pool = RenderPool(self.workers, *started_on(self._cores(), when_idle, _warm_thinker))
            else:
                self.pool = RenderPool(
                    self.workers, *started_on(self._cores(), behind_the_bot, self.turns_nice, _warm_thinker)
                )
            self.pool.start()

    def close(self) -> None:
        # No pool first: a request handed a worker while the pool closes (from a thread) is told so, instead
        # of sending to a worker whose pipes are being closed.
        pool, self.pool = self.pool, None
        hints, self.hints = self.hints, None
        for closing in (pool, hints):
            if closing is not None:
                closing.close()
        # The requests waiting for a worker fail with those the workers held (the bot closes this from a
        # thread: on the loop's own thread, as the futures ask).
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._fail_waiting)

    def _fail_waiting(self) -> None:
        while self._queue:
            turn = self._queue.popleft()
            if not turn.done():
                turn.set_exception(RuntimeError("the computer workers are closed"))

    async def run(self, fn: Callable[..., T], *args: Any, urgent: bool = False) -> T:
        """``fn(*args)`` in a worker process (in a thread without workers); ``urgent``: a person waits for
        it (a hint), so it goes to the hints' worker, behind no computer's turn."""
        self.waiting += 1
        try:
            if urgent and self.pool is not None:
                answer = await self._hint_pool().run(None, fn, *args)
                self.decided_in_workers += 1
                return answer
            if self.pool is not None:
                await self._worker_free()
                try:
                    if self.pool is None:  # closed while this one waited
                        raise RuntimeError("the computer workers are closed")
                    answer = await self.pool.run(None, fn, *args)
                finally:
                    self._hand_on()
                self.decided_in_workers += 1
                return answer
            return await asyncio.to_thread(fn, *args)
        finally:
            self.waiting -= 1

    def _hint_pool(self) -> RenderPool:
        """The hints' worker, at nice 10: started with the first hint (a process many bots never need)."""
        if self.hints is None:
            self.hints = RenderPool(1, *started_on(self._cores(), behind_the_bot, HINT_NICE, _warm_thinker))
            self.hints.start()
        return self.hints

    def worker_pids(self) -> list[tuple[int, bool]]:
        """The workers' process ids, none of them a spare (bot.process.cores places them)."""
        return [(pid, False) for pool in (self.pool, self.hints) if pool is not None for pid in pool.pids()]

    def _cores(self) -> frozenset[int] | None:
        """The workers' cores where the bot keeps its own (bot.process.cores), else None."""
        return self.cores.workers if self.cores is not None else None

    async def _worker_free(self) -> None:
        """Until a worker has no request: then it is this one's."""
        queue = self._queue
        if self._idle > 0 and not queue:
            self._idle -= 1
            return
        self._loop = asyncio.get_running_loop()
        turn: asyncio.Future[None] = self._loop.create_future()
        queue.append(turn)
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self._hand_on()  # handed a worker as it was given up: the next one's
            else:
                with contextlib.suppress(ValueError):  # unless a free worker passed it over already
                    queue.remove(turn)
            raise

    def _hand_on(self) -> None:
        """A worker is free: to the first request waiting."""
        while self._queue:
            turn = self._queue.popleft()
            if not turn.done():
                turn.set_result(None)
                return
        self._idle += 1

    async def turn(
        self, state: GameState, level: str, rng: random.Random
    ) -> tuple[GameState, tuple[Event, ...], tuple[Action, ...]] | None:
        """The current seat's whole turn played by the computer at ``level`` (None: it failed or looped)."""
        actions = await self.run(turn_actions, state, level, rng)
        return None if actions is None else replay(state, actions)
