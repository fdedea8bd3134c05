"""Every operation of `GameStore`, written once: the parts (storage/ops_*.py), each a mixin on
`storage.core.StoreCore`, assembled. A backend is this over its plumbing: `SqliteGameStore`
(storage/sqlite.py), `PostgresGameStore` (storage/postgres.py)."""

from __future__ import annotations

from .ops_games import Games, Lobby, Transfer
from .ops_outbox import Outbox
from .ops_users import Ratings, Settings
from .privacy import Privacy


class Operations(Lobby, Games, Outbox, Settings, Transfer, Ratings, Privacy):
    """The store's operations over a backend's plumbing (`StoreCore`)."""
