"""Persistent storage of games: lobby, seats, event log, snapshots, the outbox of duties, and user settings.

Games last days, so nothing a player did may be lost to a crash, a restart or two clicks at once. Callers
use the `GameStore` protocol (storage.base: every method, its contract and errors). Two backends pass the
same contract suite (tests/storage): SQLite (`open_store(path)`, the embedded default) and PostgreSQL
(`open_postgres_store(url)`, for several bot processes sharing one database); `open_database` picks one
from the setting. Each runs its own schema migrations on open. An action is one call::

    version, state = await store.load_snapshot(game_id)
    new_state, events = engine_apply(state, action)                 # the caller's, no lock held
    game = await store.append(game_id, version, events, new_state, now,
                              duties=[NewDuty("post", now, channel_id, payload={...})])
                              # VersionConflict: someone acted first (a double click): reload, decide again

The duties are the transactional outbox: written in the same commit as the change that causes them, then
claimed by a delivery worker under a lease, sent, and finished (or retried later). Moving a whole database
to the other backend: `python -m bot move` (bot/process/move.py, through this protocol).
"""

import os
from pathlib import Path

# The package's names: each re-exported as itself (PEP 484), so that this list is the only one.
from .base import KEEP as KEEP
from .base import STATUSES as STATUSES
from .base import ChannelBusy as ChannelBusy
from .base import DatabaseUnreachable as DatabaseUnreachable
from .base import Duty as Duty
from .base import ForgetReport as ForgetReport
from .base import GameClosed as GameClosed
from .base import GameExists as GameExists
from .base import GameNotFound as GameNotFound
from .base import GameRecord as GameRecord
from .base import GameStore as GameStore
from .base import IntegrityReport as IntegrityReport
from .base import InvalidGameData as InvalidGameData
from .base import JsonDict as JsonDict
from .base import LeaseLost as LeaseLost
from .base import MapRow as MapRow
from .base import NewDuty as NewDuty
from .base import PlayerRating as PlayerRating
from .base import RateFn as RateFn
from .base import SchemaTooNew as SchemaTooNew
from .base import SeatError as SeatError
from .base import ShardSlice as ShardSlice
from .base import Status as Status
from .base import StillSeated as StillSeated
from .base import StoreError as StoreError
from .base import VersionConflict as VersionConflict
from .base import redact_url as redact_url
from .migrations import LATEST_VERSION as LATEST_VERSION
from .postgres import PostgresGameStore as PostgresGameStore
from .postgres import check_postgres as check_postgres
from .postgres import is_postgres_url as is_postgres_url
from .postgres import open_postgres_store as open_postgres_store
from .preflight import BadDatabase as BadDatabase
from .preflight import check_database as check_database
from .preflight import inspect_database as inspect_database
from .privacy import former_number as former_number
from .sqlite import SqliteGameStore as SqliteGameStore
from .sqlite import copy_database as copy_database
from .sqlite import open_store as open_store


def sqlite_path(url_or_path: str) -> str | None:
    """The file path of an SQLite setting (a plain path or sqlite:///path), or None for a PostgreSQL URL."""
    if is_postgres_url(url_or_path):
        return None
    if url_or_path.startswith("sqlite:///"):
        return url_or_path[len("sqlite:///") :]
    if "://" in url_or_path:
        raise ValueError(
            f"unknown database URL {url_or_path.split('://')[0]}://: use postgresql://user:password@host/db,"
            " sqlite:///path or a plain file path"
        )
    return url_or_path


async def open_database(url_or_path: str | os.PathLike[str]) -> GameStore:
    """Open the store a setting names: `postgresql://…` (or `postgres://…`) selects PostgreSQL; a file path,
    or `sqlite:///path` (sqlite:////abs/path for an absolute one), selects SQLite. Runs the migrations."""
    text = os.fspath(url_or_path)
    path = sqlite_path(text)
    if path is None:
        return await open_postgres_store(text)
    return await open_store(path)


async def open_existing_database(url_or_path: str | os.PathLike[str]) -> GameStore:
    """`open_database` for the tools that read or move stored games (purge, ratings, a move's source): an
    SQLite file must already be there and pass the checks (storage.preflight); a missing one is refused
    (BadDatabase, kind "missing") instead of created empty, which would report an empty success."""
    text = os.fspath(url_or_path)
    path = sqlite_path(text)
    if path is not None:
        if not os.path.isfile(path):
            raise BadDatabase(
                "missing",
                Path(path),
                f"There is no database at {path}",
                "check the path (ALEXANDROS_DATA_DIR, ALEXANDROS_DATABASE_URL or the one given), and run "
                "the command from the bot's folder",
            )
        check_database(path)
    return await open_database(text)
