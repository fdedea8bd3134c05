"""Persistent storage of games: lobby, seats, event log, snapshots, the outbox of duties, and user settings.

Games last days, so nothing a player did may be lost to a crash, a restart or two clicks at
once. Callers use the `GameStore` protocol. Two backends pass the same contract suite
(tests/storage): SQLite (`open_store(path)`, the embedded default) and PostgreSQL
(`open_postgres_store(url)`, for several bot processes sharing one database). Each runs its own
schema migrations on open. `open_database(url_or_path)` picks the backend from the setting:
a postgresql:// URL selects PostgreSQL; a path, or sqlite:///path, SQLite. To move a whole
database from one to the other: `python -m bot move --from PATH_OR_URL --to URL_OR_PATH`
(bot/process/move.py, through this protocol).

Model
-----
A game has a `version`: the number of events in its log. Every action is one call::

    version, state = await store.load_snapshot(game_id)          # (version, dict) or None
    new_state, events = engine_apply(state, action)               # caller code, no lock held
    try:
        game = await store.append(game_id, version, events, new_state, now,
                                  waiting_on=next_user, cancel_keys={"remind"},
                                  duties=[NewDuty("post", now, channel_id, payload={...}),
                                          NewDuty("remind", now + 86400, channel_id, next_user,
                                                  key="remind")])
    except VersionConflict:
        ...  # someone acted first (a double click): reload and decide again

`append` writes the events (versions version+1..), the snapshot, the version, and the optional
status / seats / waiting_on / duty changes in ONE transaction, or nothing at all. Events and
snapshots are opaque JSON-able dicts (the engine serializes them). Lobby changes (join_seat, leave_seat,
update_lobby) do not change the version. All times are float Unix seconds passed in by the caller (`now`).

The outbox (the transactional-outbox pattern): a duty is written in the same commit as the change that
causes it, and a delivery worker claims it under a lease, sends it, and finishes it (or retries it later).

Every method, its arguments, what it returns and raises: the protocol, `storage.base.GameStore` (all
methods are coroutines but `exclusive`, an async context manager). Opening a store: `open_database` below.
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
from .base import SeatError as SeatError
from .base import ShardSlice as ShardSlice
from .base import Status as Status
from .base import StillSeated as StillSeated
from .base import StoreError as StoreError
from .base import VersionConflict as VersionConflict
from .base import redact_url as redact_url
from .migrations import LATEST_VERSION as LATEST_VERSION
from .migrations import SchemaTooNew as SchemaTooNew
from .pg_migrations import PgSchemaTooNew as PgSchemaTooNew
from .postgres import PostgresGameStore as PostgresGameStore
from .postgres import check_postgres as check_postgres
from .postgres import is_postgres_url as is_postgres_url
from .postgres import open_postgres_store as open_postgres_store
from .preflight import BadDatabase as BadDatabase
from .preflight import check_database as check_database
from .preflight import check_writable as check_writable
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
