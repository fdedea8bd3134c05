"""Persistent storage of games: lobby, seats, event log, snapshots, the outbox of duties, and user settings.

Games last days, so nothing a player did may be lost to a crash, a restart or two clicks at
once. Callers use the `GameStore` protocol. Two backends pass the same contract suite
(tests/storage): SQLite (`open_store(path)`, the embedded default) and PostgreSQL
(`open_postgres_store(url)`, for several bot processes sharing one database). Each runs its own
schema migrations on open. `open_database(url_or_path)` picks the backend from the setting:
a postgresql:// URL selects PostgreSQL; a path, or sqlite:///path, SQLite. To move a whole
database from one to the other: `python -m storage move --from PATH_OR_URL --to URL_OR_PATH`
(storage/move.py).

Model
-----
A game has a `version`: the number of events in its log. Every action is one call::

    version, state = await store.load_snapshot(game_id)          # (version, dict) or None
    new_state, events = engine_apply(state, action)               # caller code, no lock held
    try:
        game = await store.append(game_id, version, events, new_state, now,
                                  waiting_on=next_user, cancel_kinds={"turn"},
                                  cancel_keys={"remind"},
                                  duties=[NewDuty("post", now, channel_id, payload={...}),
                                          NewDuty("remind", now + 86400, channel_id, next_user,
                                                  key="remind")])
    except VersionConflict:
        ...  # someone acted first (a double click): reload and decide again

`append` writes the events (versions version+1..), the snapshot, the version, and the optional
status / seats / waiting_on / duty changes in ONE transaction, or nothing at all. Events and
snapshots are opaque JSON-able dicts (the engine serializes them); the store never looks inside.
Lobby changes (join_seat, leave_seat, update_lobby) do not change the version.

All times are float Unix seconds passed in by the caller (`now`); the store reads no clock.

API (all methods are coroutines; see storage.base.GameStore for full signatures)
-------------------------------------------------------------------------------------
open_database(url_or_path) -> GameStore   # postgresql://… -> PostgreSQL; a path or sqlite:///path -> SQLite
open_store(path) -> SqliteGameStore / open_postgres_store(url) -> PostgresGameStore
create_game(guild_id, channel_id, created_by, options, now, snapshot=None, seats=()) -> GameRecord
    raises ChannelBusy: a channel has at most one game in lobby/playing (a partial UNIQUE index).
join_seat(game_id, user_id, now, seat=None) / leave_seat(game_id, user_id, now) -> GameRecord
update_lobby(game_id, now, *, options=None, seats=None) / set_seats(game_id, seats, now) -> GameRecord
    raise SeatError (seat taken, user already seated, table full, game not in the lobby).
append(game_id, expected_version, events, snapshot, now, *, status=None, waiting_on=KEEP,
       seats=None, duties=(), cancel_keys=(), meta=None, maps=()) -> GameRecord
    raises VersionConflict(game_id, expected, actual), GameClosed, GameNotFound.
    maps: (digest, name, text) rows stored once each, for lean snapshots that name their map by digest.
get_map(digest) -> (name, text) | None
abandon_game(game_id, now, duties=()) -> GameRecord
load_snapshot(game_id) -> (version, dict) | None
game_by_id(id) / game_by_channel(channel_id) -> GameRecord | None
latest_game_in_channel(channel_id) -> GameRecord | None   # any status: a game just ended still shows
get_game_meta(game_id) -> dict / set_game_meta(game_id, changes, now) -> dict   # merge; None deletes a key
games_waiting_on(user_id) / games_of_user(user_id, active_only=True) -> list[GameRecord]
list_games(status=None, guild_id=None, limit=None) -> list[GameRecord]
events(game_id, since_version=0, limit=None) -> list[(version, dict)]   # limit = the last N
The outbox (the transactional-outbox pattern): a duty is written in the same commit as the change that
causes it, and a delivery worker claims it under a lease, sends it, and finishes it (or retries it later).
add_duties(game_id, duties, now, *, cancel_keys=(), meta=None) -> list[Duty]  # outside an action
claim_duties(now, owner, lease_seconds, limit=50, shards=None) -> list[Duty]
    # due duties, in order per channel, not leased (or lease expired); shards: this process's slice
finish_duty(duty_id, owner, now, outcome="sent") -> bool   # False: the lease is no longer owner's
renew_duties(duty_ids, owner, until) -> set[int]   # extend owner's leases (never shorten); ids still held
retry_duty(duty_id, owner, not_before, error) -> bool
pending_duties(game_id) -> list[Duty] / cancel_duties(game_id, keys=None) -> int
next_duty_at(shards=None) -> float | None / purge_done_duties(done_before) -> int
async with exclusive(name) as mine: ...   # mine: the one holder of name among all processes on the
    # database (PostgreSQL advisory lock; SQLite flock on <file>.<name>.lock); released if the holder dies
get_user_settings(user_id) -> dict / set_user_settings(user_id, settings, now)
update_user_settings(user_id, changes, now) -> dict   # merge; None deletes a key
backup(dest_path)   # SQLite: a verified file copy; PostgreSQL: pg_dump --format=custom
    # written as <dest_path>.partial and renamed into place; a failed copy removes its partial file
    # (SQLite: copy_database(source, dest), also for a database file's copy)
integrity_check() -> IntegrityReport (truthy when ok)
forget_user(user_id, pseudonym, now, names=()) -> ForgetReport   # raises StillSeated; storage/privacy.py
purge_games(before, guild_id=None) -> int   # finished/abandoned games last changed before `before`
export_game(game_id) -> dict / import_game(data, *, replace=False, keep_id=True) -> GameRecord
close()

Ratings per server (bot.ratings computes them; the store keeps them, each game rated once):
rate_game(game_id, guild_id, user_ids, rate, now) -> bool   # False: already rated
ratings(guild_id, limit=None) -> list[PlayerRating] / rating_of(guild_id, user_id) -> PlayerRating | None
rated_games(guild_id) -> list[int] / replace_ratings(guild_id, ratings, game_ids, now)
"""

import os
from pathlib import Path

from .base import (
    ACTIVE_STATUSES,
    KEEP,
    MAX_SEATS,
    STATUSES,
    TERMINAL_STATUSES,
    ChannelBusy,
    DatabaseUnreachable,
    Duty,
    GameClosed,
    GameExists,
    GameNotFound,
    GameRecord,
    GameStore,
    IntegrityReport,
    InvalidGameData,
    JsonDict,
    LeaseLost,
    MapRow,
    NewDuty,
    PlayerRating,
    RateFn,
    SeatError,
    ShardSlice,
    Status,
    StoreError,
    VersionConflict,
    redact_url,
    snapshot_map,
)
from .migrations import LATEST_VERSION, SchemaTooNew
from .pg_migrations import PgSchemaTooNew
from .postgres import PostgresGameStore, check_postgres, is_postgres_url, open_postgres_store
from .preflight import BadDatabase, check_database, check_writable, inspect_database
from .privacy import ForgetReport, StillSeated, former_number
from .sqlite import SqliteGameStore, open_store
from .sqlite_transfer import copy_database


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


__all__ = [
    "ACTIVE_STATUSES",
    "BadDatabase",
    "check_database",
    "check_writable",
    "copy_database",
    "inspect_database",
    "KEEP",
    "LATEST_VERSION",
    "MAX_SEATS",
    "STATUSES",
    "TERMINAL_STATUSES",
    "ChannelBusy",
    "ForgetReport",
    "StillSeated",
    "former_number",
    "GameClosed",
    "GameExists",
    "GameNotFound",
    "GameRecord",
    "GameStore",
    "IntegrityReport",
    "InvalidGameData",
    "JsonDict",
    "MapRow",
    "LeaseLost",
    "DatabaseUnreachable",
    "redact_url",
    "Duty",
    "NewDuty",
    "PgSchemaTooNew",
    "PlayerRating",
    "PostgresGameStore",
    "RateFn",
    "SchemaTooNew",
    "SeatError",
    "ShardSlice",
    "SqliteGameStore",
    "Status",
    "StoreError",
    "VersionConflict",
    "is_postgres_url",
    "check_postgres",
    "open_database",
    "open_existing_database",
    "open_postgres_store",
    "open_store",
    "snapshot_map",
    "sqlite_path",
]
