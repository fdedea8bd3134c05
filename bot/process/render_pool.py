"""The render workers: processes that draw the pictures, each fed and read by the event loop itself.

A game's pictures go to one worker, chosen by a key the caller gives (the table's players and map), so that
the worker's caches hold that game's last board: its compressed bands of rows (rendering.png) and its labels
(rendering.labels), most of which the next board reuses. A worker busier than the least busy one by more
than ``SLACK`` pictures is passed over for it, so that one busy game cannot leave the others idle.
Measured (bench_bot, 10 games of 40 actions each, three alternating runs): 11.9 ms of worker CPU an action
against 12.5 ms with one shared pool, 83 against 78 actions a second.

Each worker has two pipes, requests in and pictures out, in ``multiprocessing.Connection``'s framing. The
event loop writes the requests and reads the pictures itself, without blocking (``add_reader``,
``add_writer``): no thread of the bot's process stands between. A picture comes back as its bytes behind a
short header (the job, and that it is a picture), read straight into the bytes object the bot sends:
anything else (an error) is pickled. (Each ``ProcessPoolExecutor`` of one worker
had two threads, which fed the worker and read its pictures only when they got the GIL from a busy event
loop: under load the workers waited on them, and they on the loop.)

A worker that dies (killed, out of memory, a crash in a native library) is replaced by a fresh one, started
and warmed like the first, and the pictures it held are drawn again there, once. Before, one dead worker
left the bot posting placeholders until it was restarted.

A spare worker (``spare``) may stand beside them in the OS's idle class: a picture goes to it when its own
worker already has ``SPARE_AFTER`` waiting and the spare has none. It gets a core only when nothing else
wants one, so it draws with the CPU the bot's own process leaves over (the core kept for the bot is often
half idle) and never takes a core from the bot or the other workers. A busy machine may starve it: a picture
it has not answered within ``HEDGE`` seconds is drawn by its own worker as well, and the spare takes nothing
more until it has answered. Measured (bench_bot, 50 games, 2 cores, one worker with and without the
spare, 9 alternating pairs): 76.5 against 71.2 actions a second (medians; ahead in 8 pairs of 9), the spare
drawing about 170 of 1,711 pictures, 4-7 of them drawn again; its caches are colder, so the pictures it
draws cost more CPU (the render CPU an action 13.1-13.7 -> 14.2-15.4 ms in the first 3 pairs), CPU that was
idle. The loop's longest stall was the same (46.8-51.6 against 30.0-60.6 ms in 3 pairs).

A caller may keep a job from the spare (``spare=False``): the bot keeps a game's boards with their own
worker, which starts each from the one before (its panel, its bands), and hands the spare only its other
pictures (previews, hands). A board the spare drew cost it about twice the CPU (bench_bot's pictures, 7 %
of them drawn apart: 6.55 against 3.29 ms, previews 1.2-1.7 times), left its own worker's next board
further to draw, and waited for an idle core, which a busy bot's may not have for up to ``HEDGE``.
Measured (bench_bot, 50 games, 12 alternating pairs, seeds 7201-7212): 167.5 against 155.1 actions a
second (medians, ahead in 8), the channel showing an action p99 436 against 516 ms (lower in 11), the
presser's answer p99 236 against 278 ms, the drawing's CPU 6.25 against 6.55 ms an action.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import multiprocessing
import os
import pickle
import struct
from collections.abc import Callable, Sequence
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.connection import Connection
from typing import Any, TypeVar

from . import collector

log = logging.getLogger("bot.games.pictures")

T = TypeVar("T")

SLACK = 2  # pictures a game's own worker may have waiting beyond the least busy one's, then passed over
SPARE_AFTER = 2  # pictures waiting at a game's own worker before a free spare draws the next one
HEDGE = 0.25  # seconds a picture waits for the spare (in the idle class) before its own worker draws it too

_SHORT = struct.Struct("!i")  # multiprocessing.Connection's frame header: the length (< 2 GB here)
_ANSWER = struct.Struct("!BQ")  # an answer's own header: what follows (RAW or PICKLED), and the job
RAW = 1  # the picture's bytes themselves
PICKLED = 2  # pickle of (True, value) or (False, exception)
_HEAD = _SHORT.size + _ANSWER.size


def _answer(job: int, fn: Callable[..., Any], args: Sequence[Any]) -> tuple[bytes, bytes]:
    """One request's answer as the worker sends it, its frame's header and its body: a picture as its bytes,
    anything else pickled."""
    try:
        value = fn(*args)
    except Exception as error:  # noqa: BLE001 - the bot's await raises it, as a pool's future would
        answer: tuple[bool, Any] = (False, error)
    else:
        if type(value) is bytes:
            return _frame(RAW, job, value), value
        answer = (True, value)
    try:
        data = pickle.dumps(answer, pickle.HIGHEST_PROTOCOL)
    except Exception as error:  # noqa: BLE001 - an exception that cannot be pickled is told in words
        data = pickle.dumps((False, RuntimeError(f"{type(error).__name__}: {error}")))
    return _frame(PICKLED, job, data), data


def _frame(kind: int, job: int, body: bytes) -> bytes:
    """The header of an answer's frame (multiprocessing.Connection's framing, the answer's own header)."""
    return _SHORT.pack(_ANSWER.size + len(body)) + _ANSWER.pack(kind, job)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _serve(requests: Connection, pictures: Connection, initializer: Callable[..., None], args: Any) -> None:
    """A worker's life: warm up, then draw each request in turn until the bot closes the requests' pipe."""
    initializer(*args)
    collector.warmed_up()  # what the warm-up built (maps, layers, fonts) lives as long as the worker
    while True:
        try:
            job, fn, fn_args = pickle.loads(requests.recv_bytes())
        except EOFError:
            return
        head, body = _answer(job, fn, fn_args)
        try:
            # The header, then the picture's own bytes: not joined into one more copy of them first.
            _write_all(pictures.fileno(), head)
            _write_all(pictures.fileno(), body)
        except OSError:  # the bot closed the pool (or died): nobody reads this picture any more
            return


def behind_the_bot(nice: int, initializer: Callable[..., None], *args: Any) -> None:
    """A worker's start at a lower OS priority than the bot (``nice`` steps), then ``initializer(*args)``: on
    a busy machine the bot's event loop gets the cores first, and a picture or a computer waits instead of a
    player's answer (issue 32: the loop's late wake-ups reached 170-410 ms with the workers beside it)."""
    with contextlib.suppress(OSError):  # a platform without nice: the same worker, at the same priority
        os.nice(nice)
    initializer(*args)


def when_idle(initializer: Callable[..., None], *args: Any) -> None:
    """A worker's start in the OS's idle class (Linux's ``SCHED_IDLE``; elsewhere only the lowest priority,
    nice 19), then ``initializer(*args)``: it gets a core only when nothing else wants it, and a core
    running it counts as free when the bot or a render worker wakes (the kernel places them there, and
    they go first at once; at nice 19 they queued behind the bot on its core instead)."""
    with contextlib.suppress(OSError):
        os.nice(19)
    with contextlib.suppress(AttributeError, OSError):  # no idle class on this system: nice 19 stays
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    initializer(*args)


PIPE_BYTES = 1 << 20  # room for about ten pictures on their way back to the bot


def _widen(fd: int) -> None:
    """Let the pipe hold ``PIPE_BYTES`` (Linux; 64 KB by default, less than one picture): a worker then hands
    over a picture and draws the next while the event loop is busy, instead of waiting for it to read.
    Measured (bench_bot, 100 games): a picture's wait in the queue p50 243 -> 65 ms, 157 -> 188 actions a
    second in alternating runs."""
    try:
        import fcntl

        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    except (ImportError, AttributeError, OSError):  # another system, or a lower limit: the default stays
        pass


class _Worker:
    """One render process and its two pipes; the event loop it is attached to writes and reads them."""

    def __init__(self, initializer: Callable[..., None], initargs: Sequence[Any]) -> None:
        self.start_with = (initializer, tuple(initargs))  # a replacement starts the same way
        ctx = multiprocessing.get_context("spawn")  # the bot's threads must not be forked
        requests_in, self._requests = ctx.Pipe(duplex=False)
        self._pictures, pictures_out = ctx.Pipe(duplex=False)
        self.process = ctx.Process(
            target=_serve,
            args=(requests_in, pictures_out, initializer, tuple(initargs)),
            name="alexandros-render",
            daemon=True,
        )
        self.process.start()
        # The worker's ends are its own now: closing these copies lets its death show as the end of its pipe.
        requests_in.close()
        pictures_out.close()
        self.jobs: dict[int, asyncio.Future[Any]] = {}
        self.dead = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._head = bytearray()  # the next answer's header, as far as it is read
        self._answer: tuple[int, int] | None = None  # (kind, job) of the answer being read
        self._left = 0  # how many of its bytes are still to read
        self._pieces: list[bytes] = []  # and those read
        self._outbox = bytearray()
        self._writing = False

    def _attach(self, loop: asyncio.AbstractEventLoop) -> None:
        if self._loop is loop:
            return
        if self._loop is not None:
            raise RuntimeError("a render worker serves one event loop")
        self._loop = loop
        os.set_blocking(self._pictures.fileno(), False)
        _widen(self._pictures.fileno())
        os.set_blocking(self._requests.fileno(), False)
        _widen(self._requests.fileno())
        loop.add_reader(self._pictures.fileno(), self._readable)

    def submit(self, job: int, fn: Callable[..., Any], args: tuple[Any, ...]) -> asyncio.Future[Any]:
        loop = asyncio.get_running_loop()
        self._attach(loop)
        future: asyncio.Future[Any] = loop.create_future()
        if self.dead:
            future.set_exception(BrokenProcessPool("the render worker died"))
            return future
        self.jobs[job] = future
        data = pickle.dumps((job, fn, args), pickle.HIGHEST_PROTOCOL)
        self._outbox += _SHORT.pack(len(data)) + data
        self._flush()
        return future

    def _flush(self) -> None:
        while self._outbox and not self.dead:
            try:
                sent = os.write(self._requests.fileno(), self._outbox)
            except BlockingIOError:
                break
            except OSError:  # the worker is gone (EPIPE): its pipe's end says so to _readable too
                self._died()
                return
            del self._outbox[:sent]
        assert self._loop is not None
        if self._outbox and not self.dead and not self._writing:
            self._loop.add_writer(self._requests.fileno(), self._flush)
            self._writing = True
        elif not self._outbox and self._writing:
            self._loop.remove_writer(self._requests.fileno())
            self._writing = False

    def _readable(self) -> None:
        # One answer a call at most (the loop calls again while the pipe holds more), so that the pictures
        # it holds wake their deliveries over several turns of the loop, not all in one. A picture's bytes
        # go from the pipe straight into the bytes object that is sent on: read into a buffer and then
        # unpickled out of it, each picture (about 115 KB) cost the event loop 90 us (bench_bot).
        fd = self._pictures.fileno()
        try:
            if self._answer is None:  # its header first: the frame's length, what follows, the job
                piece = os.read(fd, _HEAD - len(self._head))
                if not piece:
                    self._died()
                    return
                self._head += piece
                if len(self._head) < _HEAD:
                    return
                (size,) = _SHORT.unpack_from(self._head)
                self._answer = _ANSWER.unpack_from(self._head, _SHORT.size)
                self._head.clear()
                self._left = size - _ANSWER.size
                if self._left < 0:  # not a frame of ours (nor -1, a frame of 2 GB or more)
                    self._died()
                    return
            while self._left:
                piece = os.read(fd, self._left)
                if not piece:
                    self._died()
                    return
                self._pieces.append(piece)
                self._left -= len(piece)
        except BlockingIOError:  # the rest is not written yet
            return
        except OSError:
            self._died()
            return
        (kind, job), pieces = self._answer, self._pieces
        self._answer, self._pieces = None, []
        body = pieces[0] if len(pieces) == 1 else b"".join(pieces)
        future = self.jobs.pop(job, None)
        if future is None or future.done():
            return
        if kind == RAW:
            future.set_result(body)
            return
        try:
            ok, value = pickle.loads(body)
        except Exception as error:  # noqa: BLE001 - a garbled answer fails its picture, not the loop
            ok, value = False, error
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)

    def _died(self) -> None:
        if self.dead:
            return
        self.dead = True
        self._detach()
        self._fail(BrokenProcessPool("the render worker died"))

    def _fail(self, error: Exception) -> None:
        for future in self.jobs.values():
            if not future.done():
                future.set_exception(error)
        self.jobs.clear()

    def _detach(self) -> None:
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.remove_reader(self._pictures.fileno())
            if self._writing:
                loop.remove_writer(self._requests.fileno())
        self._writing = False

    def close(self, timeout: float = 10.0) -> None:
        """End the worker: closing its requests' pipe ends its loop, once the picture it draws is done."""
        self._detach()
        self.dead = True
        self._fail(RuntimeError("the render workers are closed"))
        # Both ends at once: a worker drawing now finds its picture's pipe closed, and stops there instead of
        # waiting for a reader that will not come.
        self._requests.close()
        self._pictures.close()
        self.process.join(timeout)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()


class RenderPool:
    """``workers`` processes started by ``initializer(*initargs)``; ``run(key, fn, *args)`` calls ``fn`` in
    the worker of ``key``. ``spare``: how to start one more worker (e.g. ``(when_idle, (warm, ...))``), which
    draws a picture only when its own worker is busy (the module's docstring)."""

    def __init__(
        self,
        workers: int,
        initializer: Callable[..., None],
        initargs: Sequence[Any],
        spare: tuple[Callable[..., None], Sequence[Any]] | None = None,
    ) -> None:
        self.workers = workers
        self._initializer = initializer
        self._initargs = tuple(initargs)
        self._spare = spare
        self.spared = 0  # pictures handed to the spare
        self.hedged = 0  # of those, drawn by their own worker too: the spare had not answered in HEDGE
        self._pool: list[_Worker] = []
        self._waiting: list[int] = []
        self._jobs = itertools.count()
        self.replaced = 0  # workers replaced after they died

    def start(self) -> None:
        """Start every worker now, and its warm-up with it, not on the first picture."""
        self._pool = [_Worker(self._initializer, self._initargs) for _ in range(self.workers)]
        if self._spare is not None and self.workers > 0:
            self._pool.append(_Worker(*self._spare))
        self._waiting = [0] * len(self._pool)

    def close(self) -> None:
        for worker in self._pool:
            worker.close()
        self._pool = []

    def pids(self) -> list[int]:
        """The workers' process ids (benchmarks read their CPU time)."""
        return [w.process.pid for w in self._pool if w.process.pid is not None]

    @property
    def spare_holds(self) -> int:
        """Pictures sent to the spare and not yet answered (0 without a spare)."""
        return self._waiting[-1] if len(self._waiting) > self.workers else 0

    def _pick(self, key: int | None) -> int:
        least = min(range(self.workers), key=self._waiting.__getitem__)
        if key is None:
            return least
        own = key % self.workers
        return own if self._waiting[own] <= self._waiting[least] + SLACK else least

    def _spare_free(self, i: int, weight: int) -> bool:
        """Whether the spare draws the next picture meant for worker ``i``: there is one, it holds nothing,
        and ``i`` has ``SPARE_AFTER`` waiting. A long job (``weight``) never goes there."""
        return (
            len(self._pool) > self.workers
            and weight == 1
            and self._waiting[i] >= SPARE_AFTER
            and self.spare_holds == 0
        )

    async def _on_spare(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> asyncio.Future[Any] | None:
        """``fn(*args)`` sent to the spare: its answer, or None if it has not answered within ``HEDGE`` (or
        died). Unanswered, it still counts as busy, so that a starved spare is handed nothing more."""
        s = self.workers
        spare = self._pool[s]
        if spare.dead:
            self._replace(s, spare)
            spare = self._pool[s]
        self.spared += 1
        self._waiting[s] += 1
        drawn = spare.submit(next(self._jobs), fn, args)

        def answered(done: asyncio.Future[Any]) -> None:
            if not done.cancelled():
                done.exception()  # retrieved: a late failure is not logged as never seen
            if s < len(self._waiting):
                self._waiting[s] -= 1

        drawn.add_done_callback(answered)
        await asyncio.wait((drawn,), timeout=HEDGE)  # never cancels it
        if not drawn.done() or isinstance(drawn.exception(), BrokenProcessPool):
            self.hedged += 1
            return None
        return drawn

    async def run(
        self, key: int | None, fn: Callable[..., T], *args: Any, weight: int = 1, spare: bool = True
    ) -> T:
        """``fn(*args)`` in the worker of ``key`` (None: the least busy one). ``weight`` counts how many
        pictures' time it takes: a whole replay is weighed so that other pictures go to other workers.
        ``spare=False``: never the spare's, however busy its own worker is."""
        if self._pool and spare and self._spare_free(self._pick(key), weight):
            spared = await self._on_spare(fn, args)
            if spared is not None:
                answer: T = spared.result()
                return answer
        for attempt in (1, 2):
            if not self._pool:
                raise RuntimeError("the render workers are closed")
            i = self._pick(key)
            worker = self._pool[i]
            if worker.dead:
                self._replace(i, worker)
                worker = self._pool[i]
            self._waiting[i] += weight
            try:
                result: T = await worker.submit(next(self._jobs), fn, args)
                return result
            except BrokenProcessPool:
                if attempt == 2:
                    raise
                self._replace(i, worker)
            finally:
                self._waiting[i] -= weight
        raise AssertionError("unreachable")

    def _replace(self, i: int, broken: _Worker) -> None:
        if i >= len(self._pool) or self._pool[i] is not broken:
            return  # closed, or another picture of the dead worker replaced it already
        log.warning("render worker %d died; starting a new one", i)
        self.replaced += 1
        broken.close(timeout=1.0)
        self._pool[i] = _Worker(*broken.start_with)
