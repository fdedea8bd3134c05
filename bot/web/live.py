"""Live pages: every open page of a game hears of its changes within a second (server-sent events).

Whenever something may have changed (``poke``), the hub looks: it reads the record of each watched game
that may have changed (a point read) and, for each whose version, status or update time moved, builds the
news once per language and hands the same bytes to every watcher of that game. A commit of this process
names its game, so only that game is read; another process's commit, heard through the store
(``listen_for_changes``), names none, and every watched game is read (as every few seconds, ``POLL``,
which covers a lost notification and the changes that poke nobody). A watcher that does not keep up (its
connection holding ``BEHIND`` bytes unsent) is dropped: its page reconnects and catches up from the steps
it has.

The hub also pings every page now and then (a comment line: proxies cut a stream that stays silent), all
at once from its own task. A timeout of each page's own around every wait made a task, a timer and a
dozen objects more per page for every message, alive until the next: with 1,000 pages open they were
most of what the collector's young collections looked at (issue 30's loop stall). For the same reason the
hub writes each message to the pages' connections itself (``Watcher.send``): a page's task waiting on a
queue made a future, a wake-up and a write's coroutine per page per message.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Protocol

from storage import GameRecord, GameStore

from ..process import metrics
from ..process.tasks import end_task, wait_for_event
from .links import watching_off
from .pages import Pages, dumps

log = logging.getLogger(__name__)

POLL = 5.0  # seconds: the longest a change waits when no notification came
COALESCE = 0.05  # seconds between two looks: a burst of commits makes one look
QUEUE = 16  # messages kept for a page whose stream is not open yet: beyond, it is dropped
BEHIND = 256 * 1024  # bytes a page's connection may hold unsent (a reader that does not keep up): dropped
BATCH = 25  # pages told in one turn of the loop
PING = 15.0  # seconds between two pings of every page
PING_EVENT = b": ping\n\n"


class Connection(Protocol):
    """What a watcher writes to: the page's connection (``asyncio.WriteTransport``'s few methods)."""

    def write(self, data: bytes) -> None: ...

    def is_closing(self) -> bool: ...

    def get_write_buffer_size(self) -> int: ...


@dataclass(eq=False)
class Watcher:
    """One open page of a game: what it is told is written straight to its connection once its stream is
    open (``open``); until then (its first news being built) up to ``QUEUE`` messages wait."""

    game_id: int
    lang: str
    ended: asyncio.Event = field(default_factory=asyncio.Event)  # set when the hub ends the page
    waiting: list[bytes] = field(default_factory=list)
    _connection: Connection | None = None
    _chunked: bool = True

    def open(self, connection: Connection, chunked: bool) -> bool:
        """The stream is open on ``connection`` (its body ``chunked``, as HTTP/1.1 sends a body of no set
        length): the messages that waited go out; False if the page cannot take them."""
        self._connection, self._chunked = connection, chunked
        waiting, self.waiting = self.waiting, []
        return all(self.send(message) for message in waiting)

    def send(self, message: bytes) -> bool:
        """Write ``message`` to the page; False if the page fell behind or went (then drop it)."""
        connection = self._connection
        if connection is None:
            if len(self.waiting) >= QUEUE:
                return False
            self.waiting.append(message)
            return True
        if connection.is_closing() or connection.get_write_buffer_size() > BEHIND:
            return False
        # One chunk of the chunked body, as aiohttp framed the stream's first write.
        connection.write(b"%x\r\n%b\r\n" % (len(message), message) if self._chunked else message)
        return True

    def drop(self) -> None:
        """End this watcher's page (its stream's handler returns, and the response ends)."""
        self.ended.set()


def event(name: str, data: bytes) -> bytes:
    """One server-sent event (its data one line: JSON has no raw newline)."""
    return b"event: " + name.encode() + b"\ndata: " + data + b"\n\n"


class Hub:
    """The watchers of every game, and the task that tells them what changed."""

    def __init__(self, store: GameStore, pages: Pages, per_game: int = 200, total: int = 10_000) -> None:
        self.store = store
        self.pages = pages
        self.per_game = per_game
        self.total = total
        self._watchers: dict[int, set[Watcher]] = {}
        self._seen: dict[int, tuple[int, float, str]] = {}
        self._known: dict[int, int] = {}  # steps last sent to a game's watchers
        self._poked = asyncio.Event()
        self._named: set[int] = set()  # games poked by name since the last look
        self._unnamed = False  # a poke that named no game since the last look
        self._pinged = 0.0  # the loop's time of the last ping
        self._task: asyncio.Task[None] | None = None
        self.count = 0

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="web-live")

    async def close(self) -> None:
        for watchers in list(self._watchers.values()):
            for w in list(watchers):
                w.drop()
        task, self._task = self._task, None
        if task is not None:
            await end_task(task)

    def poke(self, game_id: int | None = None) -> None:
        """This game (None: any game) may have changed: look soon."""
        if game_id is None:
            self._unnamed = True
        else:
            self._named.add(game_id)
        self._poked.set()

    def join(self, record: GameRecord, lang: str, known: int) -> Watcher | None:
        """A new watcher of ``record``'s game, or None when the game (or the process) has enough."""
        watchers = self._watchers.setdefault(record.id, set())
        if len(watchers) >= self.per_game or self.count >= self.total:
            return None
        w = Watcher(record.id, lang)
        watchers.add(w)
        self.count += 1
        metrics.WATCHERS.set(self.count)
        self._seen.setdefault(record.id, (record.version, record.updated_at, record.status))
        self._known.setdefault(record.id, self.pages.steps(record.id) or known)
        return w

    def leave(self, w: Watcher) -> None:
        watchers = self._watchers.get(w.game_id)
        if watchers is None or w not in watchers:
            return
        watchers.discard(w)
        self.count -= 1
        metrics.WATCHERS.set(self.count)
        if not watchers:
            del self._watchers[w.game_id]
            self._seen.pop(w.game_id, None)
            self._known.pop(w.game_id, None)

    def end(self, game_id: int | None = None) -> None:
        """Close the pages of one game (its link changed), or of every game whose link no longer leads to it
        (None: watching was turned off on a server; the next look finds which)."""
        if game_id is None:
            self._seen.clear()  # every watched game is read again, and its server's switch with it
            self.poke()
            return
        for w in list(self._watchers.get(game_id, ())):
            self._drop(w)

    def _drop(self, w: Watcher) -> None:
        """End a watcher's page (it fell behind, or its game's link changed): its page reconnects or ends."""
        self.leave(w)
        w.drop()

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        self._pinged = loop.time()
        while True:
            everything = not await wait_for_event(self._poked, POLL)
            self._poked.clear()
            if loop.time() - self._pinged >= PING:
                self._pinged = loop.time()
                self.ping()
            try:
                await self.look(everything)
            except Exception:  # one failed look must not end live pages: the next poke or poll tries again
                log.warning("the live pages' look failed", exc_info=True)
            await asyncio.sleep(COALESCE)

    def ping(self) -> None:
        """A comment to every page (pages that fell behind are dropped, as by ``publish``)."""
        for watchers in list(self._watchers.values()):
            for w in list(watchers):
                if not w.send(PING_EVENT):
                    self._drop(w)

    async def look(self, everything: bool = True) -> int:
        """Tell the watchers of every game that changed (``everything``: every watched game is read, else
        only the games poked by name, or all after a poke that named none); returns how many games
        changed. The records (and each server's switch) are read all at once, and the changed games told at
        once: one by one, each read waited for a turn of a busy loop (50 games acting: 4 s to go round 100
        watched games); reading every watched game on every commit read 100 records for each."""
        if everything or self._unnamed:
            ids = list(self._watchers)
        else:
            ids = [g for g in self._named if g in self._watchers]
        self._named.clear()  # pokes that come while these are read are kept for the next look
        self._unnamed = False
        records = await asyncio.gather(*(self.store.game_by_id(g) for g in ids))
        guilds = sorted({r.guild_id for r in records if r is not None and r.guild_id is not None})
        switches = await asyncio.gather(*(watching_off(self.store, g) for g in guilds))
        off: dict[int | None, bool] = dict(zip(guilds, switches, strict=True))
        changed = []
        for game_id, record in zip(ids, records, strict=True):
            if record is None or off.get(record.guild_id, False):
                self.end(game_id)
                continue
            seen = (record.version, record.updated_at, record.status)
            if self._seen.get(game_id) != seen:
                self._seen[game_id] = seen
                changed.append(record)
        await asyncio.gather(*(self.publish(r) for r in changed))
        return len(changed)

    async def publish(self, record: GameRecord) -> None:
        watchers = self._watchers.get(record.id)
        if not watchers:
            return
        known = self._known.get(record.id, 0)
        messages: dict[str, bytes] = {}
        for lang in sorted({w.lang for w in watchers}):
            news = await self.pages.since(record, lang, known)
            messages[lang] = event("news", dumps(news))
        self._known[record.id] = self.pages.steps(record.id)
        for n, w in enumerate(list(self._watchers.get(record.id, ()))):
            if not w.send(messages[w.lang]):
                self._drop(w)
            if n % BATCH == BATCH - 1:
                # Each send is a write to that page's socket: a batch at a time, so that a game watched by
                # hundreds does not hold the loop for all their writes in one turn.
                await asyncio.sleep(0)
