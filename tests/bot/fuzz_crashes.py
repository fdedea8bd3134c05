"""The bot's process dying under the fuzzer (tests/bot/fuzz.py, ``kills=``), and a host's restarts.

A kill is armed at random on one of the requests Discord may fail (fuzz_faults.TARGETS): the process dies as
that request goes out, before Discord has it or, half the time, after Discord did the work and before its
reply came back (a power cut, the kernel's OOM killer, ``docker kill``). From that moment nothing the dead
bot does reaches Discord (offline.ProcessKilled) or its database (its store's plumbing raises the same): what
it had committed stays, what it had not is lost. A new bot then starts on the same database
(``OfflineDiscord.revive``). Now and then, between steps, the host restarts the bot the ordinary way
(``restart``: closed as on SIGTERM, its actions in flight finished).

What must hold: the fuzzer's checks at every step (but a member whose interaction the kill cut off may see
no answer), and once the worker had its hour (fuzz_faults.Outage.settle): nothing due still waits, every
turn post shows its game's version, no duty made two messages (a post the dead bot made but never marked
sent is found, not made again), and no game in play waits for a computer player that nobody runs.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from bot.games.seat_rules import is_paused
from offline import OfflineDiscord
from offline.faults import Fault, ProcessKilled
from tests.bot.fuzz_faults import TARGETS

# What every operation of the store stands on (storage.core.StoreCore): a dead process runs none of it.
PLUMBING = ("_write", "_consistent", "_read", "_glance")


def _not_the_kill(record: logging.LogRecord) -> bool:
    return not (record.exc_info and isinstance(record.exc_info[1], ProcessKilled))


async def _dead(*_args: Any, **_kwargs: Any) -> Any:
    raise ProcessKilled("the process is dead")


async def let_go(bot: Any) -> None:
    """What the operating system takes back from a dead bot: its database connections and locks, and its
    child processes (render workers, computer players). Nothing is written on its behalf."""
    store = bot.store
    for name in PLUMBING:
        store.__dict__.pop(name, None)  # the real plumbing again, for closing only
    pool = getattr(store, "_pool", None)
    if pool is not None:  # PostgreSQL drops a dead client's connections, and the locks they held
        pool.terminate()
    await asyncio.to_thread(bot.pictures.close)
    await asyncio.to_thread(bot.thinkers.close)
    await store.close()


@dataclass
class Crashes:
    """Arms kills (``rate``: the chance, each step, of one, or of an ordinary restart) and checks what is
    left once the worker had its time (``settle``)."""

    d: OfflineDiscord
    rng: random.Random
    rate: float
    kills: int = 0  # kills that happened
    restarts: int = 0
    cut_off: int = 0  # interactions in which the process died
    at: Counter[str] = field(default_factory=Counter)  # the request each kill happened at
    _armed: Fault | None = None

    def __post_init__(self) -> None:
        self.d.on_kill.append(self._stop_store)
        # asyncio reports each dead task's ProcessKilled when the task is collected ("Task exception was
        # never retrieved"): that is the process's end, not news.
        logging.getLogger("asyncio").addFilter(_not_the_kill)

    def close(self) -> None:
        logging.getLogger("asyncio").removeFilter(_not_the_kill)

    def _stop_store(self) -> None:
        store = self.d.bot.store
        for name in PLUMBING:
            setattr(store, name, _dead)

    def maybe_arm(self) -> bool:
        """Arms a kill at random (one at a time); True when the host restarts the bot now instead."""
        rng = self.rng
        if rng.random() >= self.rate:
            return False
        if rng.random() < 0.25:
            self.restarts += 1
            return True
        if self._armed is not None and not self._armed.hits:
            self.d.faults.remove(self._armed)  # one kill armed at a time: the newest
        self._armed = self.d.fail(rng.choice(TARGETS), "kill", lost_reply=rng.random() < 0.5)
        return False

    async def revive(self) -> None:
        """A new bot on the same database, after the kill."""
        armed = self._armed
        if armed is not None and armed.hits:
            self.at[f"{armed.hits[0].kind}{' (done)' if armed.lost_reply else ''}"] += 1
        self.kills += 1
        await self.d.revive(let_go)

    async def waiting_on_nobody(self) -> list[str]:
        """Games in play, not paused, whose turn is a computer's that no bot is playing (a computer's turn the
        kill cut off must be taken up again by the new bot)."""
        store = self.d.bot.store
        return [
            f"after the kills: game {game.id} waits for computer seat {game.waiting_on} that nobody plays"
            for game in await store.list_games(status="playing")
            if game.waiting_on is not None and game.waiting_on < 0 and not is_paused(game.options)
        ]
