"""Moving a whole database from one store to another, e.g. from SQLite to PostgreSQL when scaling out.

Every game goes across with `export_game`/`import_game`, keeping its id: its seats, its whole event log,
its latest snapshot, its metadata and its pending duties (reminders, deadlines, posts not yet delivered).
Then every user's settings. Duties already delivered are history and stay behind. Afterwards the two
stores are compared game by game, and the target's integrity is checked.

Stop the bot first: a game changed during the move would be copied as it was before the change.
Run it as `python -m bot move --to postgresql://user:pw@host/db` (from the configured database, or
`--from PATH_OR_URL`). It lives with the bot's other commands for hosts (backup, restore, purge) and, like
them, reads the store only through its protocol. Exit codes: 0 moved and verified, 1 failed, 2 refused (a
target holding data, without ``--replace``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sqlite3
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncpg

from storage import (
    GameStore,
    JsonDict,
    SchemaTooNew,
    StoreError,
    open_database,
    open_existing_database,
    redact_url,
)


class MoveRefused(StoreError):
    """The target already holds data, and the caller did not say to write over it."""


@dataclass(frozen=True)
class MoveReport:
    games: int
    events: int
    pending_duties: int
    users: int
    statuses: dict[str, int]

    def __str__(self) -> str:
        by_status = ", ".join(f"{n} {s}" for s, n in sorted(self.statuses.items()))
        return (
            f"moved {self.games} games ({by_status or 'none'}), {self.events} events,"
            f" {self.pending_duties} pending duties and the settings of {self.users} users; verified"
        )


def _comparable(export: JsonDict) -> JsonDict:
    # The schema version numbers each backend's own migrations, so it differs between backends.
    return {k: v for k, v in export.items() if k != "schema_version"}


async def move_database(
    source: GameStore,
    target: GameStore,
    *,
    replace: bool = False,
    progress: Callable[[str], Any] | None = None,
) -> MoveReport:
    """Copy every game and every user's settings from `source` to `target`, then verify the copy.

    Raises MoveRefused if the target already has games or settings, unless `replace` (then games of the
    same ids are replaced, others are kept). Raises StoreError if the verification finds a difference.
    """
    say = progress or (lambda _: None)
    users = await source.all_user_settings()
    if not replace:
        if await target.list_games(limit=1) or await target.all_user_settings():
            raise MoveRefused(
                "the target database already holds games or settings: move into an empty database, "
                "or pass --replace to write over games of the same ids"
            )
    games = await source.list_games()
    say(f"{len(games)} games and {len(users)} users to move")
    statuses: Counter[str] = Counter()
    events = duties = 0
    # Oldest first, so that a channel's finished games are in before its unfinished one.
    for n, game in enumerate(sorted(games, key=lambda g: (g.updated_at, g.id)), start=1):
        data = await source.export_game(game.id)
        await target.import_game(data, replace=replace, keep_id=True)
        statuses[game.status] += 1
        events += len(data["events"])
        duties += len(data["duties"])
        if n % 500 == 0:
            say(f"{n} games moved")
    for user_id, settings, updated_at in users:
        await target.set_user_settings(user_id, settings, updated_at)

    # Verify: the same games, each exporting exactly as it did from the source, the same settings.
    for game in games:
        before = _comparable(await source.export_game(game.id))
        after = _comparable(await target.export_game(game.id))
        if before != after:
            raise StoreError(f"game {game.id} differs after the move")
    if not replace and len(await target.list_games()) != len(games):
        raise StoreError("the target holds a different number of games than the source")
    for user_id, settings, _ in users:
        if await target.get_user_settings(user_id) != settings:
            raise StoreError(f"user {user_id}'s settings differ after the move")
    report = await target.integrity_check()
    if not report:
        raise StoreError(f"the target fails its integrity check:\n{report}")
    return MoveReport(len(games), events, duties, len(users), dict(statuses))


def main(argv: Sequence[str]) -> int:
    """``python -m bot move [--from SOURCE] --to TARGET [--replace]``: one sentence at the end."""
    parser = argparse.ArgumentParser(
        prog="python -m bot move",
        description="Copy every game (ids kept) and every user's settings from one database to another, "
        "e.g. from SQLite to PostgreSQL, then compare them game by game. Stop the bot first.",
    )
    parser.add_argument("--from", dest="source", help="the database to copy (default: the configured one)")
    parser.add_argument("--to", dest="target", required=True, help="the new database (URL or path)")
    parser.add_argument(
        "--replace", action="store_true", help="write over a target holding data (games of the same ids)"
    )
    try:
        args = parser.parse_args(list(argv))
    except SystemExit as exit_:
        return int(exit_.code or 0)
    source = args.source
    if source is None:
        from .config import load_or_exit

        source = load_or_exit(os.environ, Path(".env"), require_token=False).database
    try:
        return asyncio.run(_move(source, args.target, args.replace))
    except MoveRefused as exc:
        print(f"refused: {exc}", file=sys.stderr)
        return 2
    except (StoreError, OSError, ValueError, sqlite3.Error, asyncpg.PostgresError, SchemaTooNew) as exc:
        print(f"the move failed: {exc}", file=sys.stderr)
        return 1


async def _move(source_url: str, target_url: str, replace: bool) -> int:
    source = await open_existing_database(source_url)  # a mistyped source must not move "0 games"
    try:
        target = await open_database(target_url)
        try:
            print(f"moving {redact_url(source_url)} -> {redact_url(target_url)}", flush=True)
            report = await move_database(source, target, replace=replace, progress=print)
        finally:
            await target.close()
    finally:
        await source.close()
    print(report)
    return 0
