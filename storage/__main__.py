"""Command line of the store: `python -m storage move --from SOURCE --to TARGET [--replace]`.

SOURCE and TARGET are what ALEXANDROS_DATABASE_URL takes: a postgresql:// URL, a file path or sqlite:///path.
Stop the bot before moving. Exit codes: 0 moved and verified, 1 failed, 2 refused (non-empty target).
"""

from __future__ import annotations

import argparse
import asyncio
import sys

import asyncpg

from . import open_database, open_existing_database
from .base import StoreError, redact_url
from .migrations import SchemaTooNew
from .move import MoveRefused, move_database
from .pg_migrations import PgSchemaTooNew


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m storage", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    move = commands.add_parser(
        "move",
        help="copy every game and user setting to another database, then verify the copy",
        description="Copy every game (ids kept) and every user's settings from one database to another, "
        "e.g. from SQLite to PostgreSQL, then compare them game by game. Stop the bot first.",
    )
    move.add_argument("--from", dest="source", required=True, help="the database to copy (path or URL)")
    move.add_argument("--to", dest="target", required=True, help="the new database (URL or path)")
    move.add_argument(
        "--replace",
        action="store_true",
        help="allow a target that already holds data; games of the same ids are replaced",
    )
    args = parser.parse_args(argv)
    try:
        return asyncio.run(_move(args.source, args.target, args.replace))
    except MoveRefused as exc:
        print(f"refused: {exc}", file=sys.stderr)
        return 2
    except (StoreError, OSError, ValueError, asyncpg.PostgresError, SchemaTooNew, PgSchemaTooNew) as exc:
        print(f"the move failed: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
