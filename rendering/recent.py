"""A bounded memory of recent results by key, the least recently used forgotten first: what the renderer keeps
from one picture for the next (compressed bands of rows, label placements, boards)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Recent(Generic[K, V]):
    """At most ``size`` entries, or with ``weigh`` (an entry's weight, e.g. its bytes) entries weighing at
    most ``size`` together. Safe to share between threads (tests and the console draw in threads)."""

    def __init__(self, size: int, weigh: Callable[[V], int] | None = None) -> None:
        self.size = size
        self.hits = 0
        self.misses = 0
        self.weight = 0  # the entries' weight together (their number without ``weigh``)
        self._weigh = weigh
        self._entries: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        with self._lock:
            found = self._entries.get(key)
            if found is None:
                self.misses += 1
            else:
                self.hits += 1
                self._entries.move_to_end(key)
            return found

    def put(self, key: K, value: V) -> None:
        with self._lock:
            before = self._entries.get(key)
            if before is not None:
                self.weight -= self._weight_of(before)
            self._entries[key] = value
            self._entries.move_to_end(key)
            self.weight += self._weight_of(value)
            while self.weight > self.size and self._entries:
                _, gone = self._entries.popitem(last=False)
                self.weight -= self._weight_of(gone)

    def _weight_of(self, value: V) -> int:
        return 1 if self._weigh is None else self._weigh(value)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.hits = self.misses = self.weight = 0

    def __len__(self) -> int:
        return len(self._entries)
