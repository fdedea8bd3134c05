"""The render workers: processes that draw the pictures, each fed and read by the event loop itself.

A game's pictures go to one worker, chosen by a key the caller gives (the table's players and map), so that
the worker's caches hold that game's last board: its compressed bands of rows (rendering.png) and its labels
(rendering.labels), most of which the next board reuses. A worker busier than the least busy one by more
than ``SLACK`` pictures is passed over for it, so that one busy game cannot leave the others idle.
Measured (bench_bot, 10 games of 40 actions each, three alternating runs): 11.9 ms of worker CPU an action
against 12.5 ms with one shared pool, 83 against 78 actions a second.

Each worker has two pipes, requests in and pictures out, in ``multiprocessing.Connection``'s framing. The
event loop writes the requests and reads the pictures itself, without blocking (``add_reader``,
``add_writer``): no thread of the bot's process stands between. (Each ``ProcessPoolExecutor`` of one worker
had two threads, which fed the worker and read its pictures only when they got the GIL from a busy event
loop: under load the workers waited on them, and they on the loop.)

A worker that dies (killed, out of memory, a crash in a native library) is replaced by a fresh one, started
and warmed like the first, and the pictures it held are drawn again there, once. Before, one dead worker
left the bot posting placeholders until it was restarted.
"""

from __future__ import annotations

import asyncio
import io
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

log = logging.getLogger("bot.pictures")

T = TypeVar("T")

SLACK = 2  # pictures a game's own worker may have waiting beyond the least busy one's, then passed over

_SHORT = struct.Struct("!i")  # multiprocessing.Connection's frame header: the length, or -1 then a long one
_LONG = struct.Struct("!Q")


def _serve(requests: Connection, pictures: Connection, initializer: Callable[..., None], args: Any) -> None:
    """A worker's life: warm up, then draw each request in turn until the bot closes the requests' pipe."""
    initializer(*args)
    while True:
        try:
            job, fn, fn_args = pickle.loads(requests.recv_bytes())
        except EOFError:
            return
        try:
            answer = (job, True, fn(*fn_args))
        except Exception as error:  # noqa: BLE001 - the bot's await raises it, as a pool's future would
            answer = (job, False, error)
        try:
            data = pickle.dumps(answer, pickle.HIGHEST_PROTOCOL)
        except Exception as error:  # noqa: BLE001 - an exception that cannot be pickled is told in words
            data = pickle.dumps((job, False, RuntimeError(f"{type(error).__name__}: {error}")))
        try:
            pictures.send_bytes(data)
        except OSError:  # the bot closed the pool (or died): nobody reads this picture any more
            return


PIPE_BYTES = 1 << 20  # room for about ten pictures on their way back to the bot
READ_BYTES = 1 << 16  # what the event loop reads of them at a time


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
        self._inbox = bytearray(4 * READ_BYTES)  # the pictures' bytes read so far: _start to _end
        self._start = self._end = 0
        self._reader = io.FileIO(self._pictures.fileno(), "rb", closefd=False)
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
        # Into one buffer kept for the worker's life, a piece at a time: a picture (about 100 KB) read as
        # fresh byte strings and joined was copied three times into new memory, a third of a millisecond
        # of the event loop's time a picture here. And a piece at a time, whatever the pipe holds, so the
        # pictures it holds wake their deliveries over several turns of the loop, not all in one.
        buf = self._inbox
        if len(buf) - self._end < READ_BYTES:  # room at the end: move what is left to the front, or grow
            left = self._end - self._start
            buf[:left] = buf[self._start : self._end]
            self._start, self._end = 0, left
            if len(buf) - left < READ_BYTES:
                buf.extend(bytes(READ_BYTES + left - len(buf)))
        try:
            with memoryview(buf) as view:
                got = self._reader.readinto(view[self._end : self._end + READ_BYTES])
        except OSError:
            got = 0
        if got is None:  # nothing after all (the pipe is non-blocking)
            return
        if not got:
            self._died()
            return
        self._end += got
        while self._end - self._start >= _SHORT.size:
            at = self._start
            (size,) = _SHORT.unpack_from(buf, at)
            head = _SHORT.size
            if size == -1:
                if self._end - at < head + _LONG.size:
                    break
                (size,) = _LONG.unpack_from(buf, at + head)
                head += _LONG.size
            if self._end - at < head + size:
                break
            with memoryview(buf) as view:
                job, ok, value = pickle.loads(view[at + head : at + head + size])
            self._start = at + head + size
            future = self.jobs.pop(job, None)
            if future is not None and not future.done():
                if ok:
                    future.set_result(value)
                else:
                    future.set_exception(value)
        if self._start == self._end:
            self._start = self._end = 0

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
    the worker of ``key``."""

    def __init__(self, workers: int, initializer: Callable[..., None], initargs: Sequence[Any]) -> None:
        self.workers = workers
        self._initializer = initializer
        self._initargs = tuple(initargs)
        self._pool: list[_Worker] = []
        self._waiting: list[int] = []
        self._jobs = itertools.count()
        self.replaced = 0  # workers replaced after they died

    def start(self) -> None:
        """Start every worker now, and its warm-up with it, not on the first picture."""
        self._pool = [_Worker(self._initializer, self._initargs) for _ in range(self.workers)]
        self._waiting = [0] * self.workers

    def close(self) -> None:
        for worker in self._pool:
            worker.close()
        self._pool = []

    def pids(self) -> list[int]:
        """The workers' process ids (benchmarks read their CPU time)."""
        return [w.process.pid for w in self._pool if w.process.pid is not None]

    def _pick(self, key: int | None) -> int:
        least = min(range(len(self._pool)), key=self._waiting.__getitem__)
        if key is None:
            return least
        own = key % len(self._pool)
        return own if self._waiting[own] <= self._waiting[least] + SLACK else least

    async def run(self, key: int | None, fn: Callable[..., T], *args: Any, weight: int = 1) -> T:
        """``fn(*args)`` in the worker of ``key`` (None: the least busy one). ``weight`` counts how many
        pictures' time it takes: a whole replay is weighed so that other pictures go to other workers."""
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
        self._pool[i] = _Worker(self._initializer, self._initargs)
