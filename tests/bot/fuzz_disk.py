"""The store failing under the fuzzer (tests/bot/fuzz.py, ``disk=``): the disk full now and then.

At random, the next 1-3 write transactions of the bot's store fail, as SQLite fails them when the disk is
full ("database or disk is full"; on PostgreSQL its DiskFullError), each rolled back whole; reads go on, as
they do on a full disk. Whatever writes meets it: a player's action, a lobby's join, the delivery worker's
claims, leases and "done", a game's notes of its turn post.

What must hold while it lasts: every interaction is still answered (the apology, where the bot could not
save: the host has something to fix), the only errors logged are the store's failures, and nobody changes
what they may not. Once the disk has room again (fuzz_faults.Outage.settle): nothing due still waits, every
turn post shows its game's version, and no duty made two messages.
"""

from __future__ import annotations

import random
import sqlite3
from dataclasses import dataclass
from typing import Any

import asyncpg

from offline import OfflineDiscord

FULL = "database or disk is full"


@dataclass
class FullDisk:
    """Arms failing writes (``rate``: the chance, each step, of 1-3 more) on the running bot's store."""

    d: OfflineDiscord
    rng: random.Random
    rate: float
    left: int = 0  # writes still to fail
    armed: int = 0
    failed: int = 0  # writes failed

    def __post_init__(self) -> None:
        self.attach()

    def attach(self) -> None:
        """Fail the running bot's writes while armed; again after a restart (a new bot has a new store)."""
        store = self.d.bot.store
        write = type(store)._write

        async def full(*args: Any, **kwargs: Any) -> Any:
            if self.left > 0:
                self.left -= 1
                self.failed += 1
                if hasattr(store, "_pool"):
                    raise asyncpg.exceptions.DiskFullError(f"could not extend file: {FULL}")
                raise sqlite3.OperationalError(FULL)
            return await write(store, *args, **kwargs)

        store._write = full

    def maybe_arm(self) -> None:
        if self.rng.random() < self.rate:
            self.left += self.rng.choice((1, 1, 2, 3))
            self.armed += 1

    def settle(self) -> None:
        """The disk has room again."""
        self.left = 0

    @staticmethod
    def its_own(error: Any) -> bool:
        """Whether a logged error is the full disk's (the bot logs a store's failure as an error)."""
        return FULL in str(error)
