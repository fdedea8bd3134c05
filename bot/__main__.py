"""``python -m bot``: run the bot; ``--sync`` also pushes the slash commands once; ``console`` plays
locally without Discord; ``restore FILE`` puts a backup in place of the database (bot stopped);
``ratings --recompute`` rates every server's finished games again from the stored games (issue 16);
``backup [FOLDER]`` writes one verified backup now (the bot may run); ``purge DAYS`` deletes finished
games older than DAYS days on every server; ``move --to URL`` copies the database to another (PostgreSQL);
``health`` checks a running bot (heartbeat and database, as the Docker health check does).

Configuration comes from the environment (or ``.env``), see bot.process.config and docs/HOSTING.md. A missing
or bad setting prints one sentence and exits non-zero; the token is never printed or logged (logging goes
through bot.process.config's masking handler only: discord.py is never allowed to install its own).

While running: a heartbeat every minute (bot.process.health), a watch on the event loop's late wake-ups
(bot.process.loop_watch), backups (bot.process.backups, started in setup_hook), and SIGTERM or SIGINT shut
down cleanly: the actions in flight finish, the database closes, the exit status is 0.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sqlite3
import sys
import time
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .process.runlock import open_checks

if TYPE_CHECKING:
    from .process.config import Config

# What each subcommand is (main dispatches on the same names: SUBCOMMANDS is the list ``--help`` prints).
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "console": (
        "console --players alice[,bob,...] [--computers hard[,normal]] [--db PATH] [--out DIR] [--seed N] "
        "[--map FILE] [--locale LANG] [--verbose] [--web [PORT]]",
        "play in this terminal, without Discord or a token (python -m bot console --help)",
    ),
    "backup": ("backup [FOLDER]", "write one verified backup of the database now (the bot may run)"),
    "restore": ("restore BACKUP_FILE", "put a backup in place of the database (stop the bot first)"),
    "ratings": (
        "ratings --recompute [--db PATH_OR_URL] [--guild ID]",
        "rate every server's finished games again (or one server's)",
    ),
    "purge": ("purge DAYS", "delete finished and abandoned games older than DAYS days, on every server"),
    "move": (
        "move [--from PATH_OR_URL] --to URL_OR_PATH [--replace]",
        "copy every game and setting to another database (e.g. PostgreSQL) and verify it (bot stopped)",
    ),
    "health": ("health", "check a running bot (its heartbeat and database), as the Docker health check does"),
}
USAGE = (
    "\n".join(
        ["usage: python -m bot [--sync]"]
        + [f"       python -m bot {usage}" for usage, _ in SUBCOMMANDS.values()]
    )
    + "\n(python -m bot --help says what each does, and the settings)"
)


def help_text() -> str:
    """``python -m bot --help``: what the bot does, how to run it, every subcommand and every setting with
    its default (from bot.process.config, so the list is the one the bot reads)."""
    from .process.config import variables_help

    lines = [
        "python -m bot: Alexandros as a Discord bot. It plays whole games of the board game Alexandros",
        "(2 to 4 players) in your server's channels: slash commands (/alexandros ...), buttons and select",
        "menus, board pictures, turn reminders, deadlines and computer players. Every game is kept in a",
        "database (an SQLite file, or PostgreSQL).",
        "",
        "usage:",
        "  python -m bot",
        "      run the bot (needs DISCORD_TOKEN); SIGTERM or Ctrl+C stops it cleanly",
        "  python -m bot --sync",
        "      push the slash commands to Discord once, then exit: after installing, and after an update",
        "      that changes the commands (with ALEXANDROS_TEST_GUILD set: to that server only, at once)",
    ]
    for usage, what in SUBCOMMANDS.values():
        lines += [f"  python -m bot {usage}", f"      {what}"]
    lines += [
        "  python -m bot --help",
        "      this help",
        "",
        "settings: environment variables, or KEY=VALUE lines in a .env file in the working folder (the",
        "environment wins); a missing or bad one stops the bot with one sentence:",
        *variables_help(),
        "",
        "docs/HOSTING.md explains hosting, backups, restores and PostgreSQL.",
    ]
    return "\n".join(lines)


log = logging.getLogger("bot")


async def _heartbeat(data_dir: Path, db_path: Path | None = None) -> None:
    from .process.disk_room import DiskRoom
    from .process.health import HEARTBEAT_EVERY, write_heartbeat

    room = DiskRoom(data_dir, db_path)
    # From the event loop itself: a stuck loop stops the beats, which is what the health check detects.
    while True:
        try:
            write_heartbeat(data_dir, time.time())
        except OSError as err:
            log.warning("could not write the heartbeat: %s", err)
        try:
            room.look(time.time())
        except OSError as err:
            log.warning("could not read the room on the disk of %s: %s", data_dir, err)
        await asyncio.sleep(HEARTBEAT_EVERY)


def install_shutdown(close: Callable[[], Coroutine[Any, Any, None]]) -> list[signal.Signals]:
    """SIGTERM (docker stop, systemd) and SIGINT (Ctrl+C) start one clean close; returns the signals
    handled (none on platforms without loop signal handlers, where Ctrl+C stays KeyboardInterrupt)."""
    loop = asyncio.get_running_loop()
    closing: list[asyncio.Task[None]] = []

    def on_signal(sig: signal.Signals) -> None:
        if closing:  # a second signal while closing changes nothing: the close is already on its way
            return
        log.info("%s received: finishing the actions in flight, then closing", sig.name)
        closing.append(loop.create_task(close(), name="bot-shutdown"))

    done: list[signal.Signals] = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        try:
            loop.add_signal_handler(sig, on_signal, sig)
        except (NotImplementedError, RuntimeError):
            continue
        done.append(sig)
    return done


async def run(config: Config, sync: bool) -> int:
    import discord

    from .process.config import setup_logging

    # The bot never joins voice; the library's warnings about voice packages would only alarm owners.
    discord.VoiceClient.warn_nacl = False
    discord.VoiceClient.warn_dave = False
    setup_logging(config)
    config.data_dir.mkdir(parents=True, exist_ok=True)
    # The database is checked (and locked against a restore) before anything talks to Discord.
    held = open_checks(config.database_url, config.db_path)
    if isinstance(held, str):
        print(held, file=sys.stderr)
        return 1
    try:
        return await _run(config, sync)
    finally:
        held.release()


async def _run(config: Config, sync: bool) -> int:
    import aiohttp
    import discord

    from storage import BadDatabase, DatabaseUnreachable, SchemaTooNew, check_postgres

    from .client import make_bot
    from .games.pictures import Pictures
    from .games.thinking import Thinkers
    from .process.config import invite_url
    from .process.cores import place_the_bot
    from .process.event_loop import running_loop_name
    from .process.loop_watch import LoopWatch

    placement = place_the_bot() if config.pin_cores else None
    cores = placement.cores if placement is not None else None
    pictures = Pictures(workers=config.render_workers, spare=bool(config.render_spare), cores=cores)
    thinkers = Thinkers(workers=config.computer_workers, cores=cores)
    if placement is not None:
        placement.workers = lambda: [*pictures.worker_pids(), *thinkers.worker_pids()]
    bot = make_bot(
        config.database,
        pictures=pictures,
        thinkers=thinkers,
        cache_size=config.cache_games,
        keep_sent_days=config.keep_sent_days,
        shard_count=config.shard_count,
        shard_ids=config.shard_ids,
        send_rate=config.send_rate,
        sync=sync,
        sync_guild=config.test_guild,
        reminders=not sync,
        reminder_hours=config.reminder_hours,
        backup_dir=config.backup_dir if config.backups_enabled and not sync else None,
        backup_interval_hours=config.backup_interval_hours,
        backup_keep=config.backup_keep,
        rules_url=config.rules_url,
        web_port=None if sync else config.web_port,
        web_host=config.web_host,
        public_url=config.public_url,
        web_limits={"per_address": config.web_per_address},
    )
    tasks: list[asyncio.Task[None]] = []
    install_shutdown(bot.close)
    try:
        # Not bot.run()/bot.start(): login and connect by hand, so that discord.py installs no log handler
        # of its own (the one of setup_logging masks the token) - the same as run(log_handler=None).
        if config.database_url:  # before Discord, as the SQLite file is checked (the store opens at login)
            await check_postgres(config.database)
        async with bot:
            sqlite = None if config.database_url else config.db_path
            tasks.append(asyncio.create_task(_heartbeat(config.data_dir, sqlite), name="bot-heartbeat"))
            tasks.append(
                asyncio.create_task(
                    LoopWatch(on_warning=placement.on_stalls if placement else None).run(),
                    name="bot-loop-watch",
                )
            )
            if placement is not None:
                tasks.append(asyncio.create_task(placement.run(), name="bot-cores"))
            try:
                await bot.login(config.token)
            except discord.LoginFailure:
                print(
                    "Discord refused the token in DISCORD_TOKEN: copy it again from the developer portal "
                    "(Bot > Reset Token).",
                    file=sys.stderr,
                )
                return 2
            log.info("event loop: %s", running_loop_name())
            if bot.application_id is not None:
                log.info("invite link (exactly the permissions it needs): %s", invite_url(bot.application_id))
            if sync and bot.sync_refused:
                print(
                    "Another process of this bot is syncing the commands right now (only one may at a "
                    "time): try again in a minute.",
                    file=sys.stderr,
                )
                return 1
            if sync:
                log.info("commands synced%s", f" to server {config.test_guild}" if config.test_guild else "")
                return 0
            await bot.connect()
    except (aiohttp.ClientError, OSError) as err:
        print(
            f"Could not reach Discord ({type(err).__name__}): check this machine's network connection, "
            "then start the bot again.",
            file=sys.stderr,
        )
        return 1
    except discord.PrivilegedIntentsRequired:
        print(
            "Discord refused an intent the bot did not ask for: update the bot and start it again.",
            file=sys.stderr,
        )
        return 1
    except (BadDatabase, DatabaseUnreachable) as err:  # a file changed since its check; PostgreSQL
        print(str(err), file=sys.stderr)
        return 1
    except SchemaTooNew as err:  # PostgreSQL: its schema is read when the store opens
        print(
            f"The database was written by a newer version of the bot ({err}): upgrade the bot, or restore a "
            "backup made by this version.",
            file=sys.stderr,
        )
        return 1
    finally:
        for t in tasks:
            t.cancel()
        with contextlib.suppress(Exception):
            from .process.health import clear_heartbeat

            clear_heartbeat(config.data_dir)
    log.info("stopped cleanly")
    return 0


def restore(argv: Sequence[str]) -> int:
    """``python -m bot restore FILE``: every outcome is one sentence (stdout on success, else stderr)."""
    from .process.backups import RestoreError
    from .process.backups import restore as do_restore
    from .process.config import load_or_exit

    if len(argv) != 1:
        print(USAGE, file=sys.stderr)
        return 2
    config = load_or_exit(os.environ, Path(".env"), require_token=False)
    if config.database_url:
        print(
            "The bot uses PostgreSQL (ALEXANDROS_DATABASE_URL): restore with pg_restore (docs/HOSTING.md).",
            file=sys.stderr,
        )
        return 1
    try:
        result = do_restore(Path(argv[0]), config.db_path, data_dir=config.data_dir)
    except RestoreError as err:
        print(str(err), file=sys.stderr)
        return 1
    print(result.sentence())
    return 0


def backup(argv: Sequence[str]) -> int:
    """``python -m bot backup [DIR]``: one verified backup now, while the bot runs or not (one sentence)."""
    from storage import BadDatabase, check_database

    from .process.backups import BackupError, FileSource, backup_once
    from .process.config import load_or_exit

    if len(argv) > 1:
        print(USAGE, file=sys.stderr)
        return 2
    config = load_or_exit(os.environ, Path(".env"), require_token=False)
    if config.database_url:
        print(
            "The bot uses PostgreSQL (ALEXANDROS_DATABASE_URL): back it up with pg_dump (docs/HOSTING.md).",
            file=sys.stderr,
        )
        return 1
    folder = Path(argv[0]) if argv else config.backup_dir
    if not config.db_path.is_file():
        print(f"There is no database at {config.db_path}: nothing to back up.", file=sys.stderr)
        return 1
    try:
        check_database(config.db_path)
        path = asyncio.run(backup_once(FileSource(config.db_path), folder, time.time(), config.backup_keep))
    except (BadDatabase, BackupError) as err:
        print(str(err), file=sys.stderr)
        return 1
    except (OSError, sqlite3.Error) as err:
        why = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        print(
            f"The backup into {folder} failed ({why}): check that the folder is writable and has space.",
            file=sys.stderr,
        )
        return 1
    print(f"Backup written and verified: {path} (keeping the newest {config.backup_keep}).")
    return 0


def purge(argv: Sequence[str]) -> int:
    """``python -m bot purge DAYS``: the host deletes finished and abandoned games of every server older
    than DAYS days (one sentence). Safe while the bot runs: one transaction, like the bot's own writes."""
    from storage import BadDatabase, SchemaTooNew, StoreError, open_existing_database

    from .process.config import load_or_exit

    if len(argv) != 1 or not argv[0].isdigit() or int(argv[0]) < 1:
        print("usage: python -m bot purge DAYS   (DAYS: a whole number of days, 1 or more)", file=sys.stderr)
        return 2
    days = int(argv[0])
    config = load_or_exit(os.environ, Path(".env"), require_token=False)

    async def go() -> int:
        store = await open_existing_database(config.database)
        try:
            return await store.purge_games(time.time() - days * 86400.0)
        finally:
            await store.close()

    try:
        count = asyncio.run(go())
    except (BadDatabase, StoreError, OSError, sqlite3.Error, SchemaTooNew) as err:
        print(f"The purge failed, nothing was deleted: {err}", file=sys.stderr)
        return 1
    print(f"Deleted {count} finished or abandoned game(s) older than {days} days, on every server.")
    return 0


def ratings(argv: Sequence[str]) -> int:
    """``ratings --recompute [--db PATH_OR_URL] [--guild ID]``: the ratings again, from the stored games.

    Safe while the bot runs: each server's ratings are replaced in one transaction, and a game that ends
    meanwhile is rated once, by the bot or by the recomputation (bot.outbox.ratings.Ratings.recompute)."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m bot ratings")
    parser.add_argument("--recompute", action="store_true", required=True)
    parser.add_argument("--db", help="the database (default: the configured one)")
    parser.add_argument("--guild", type=int, help="one server only (default: every server)")
    try:
        args = parser.parse_args(list(argv))
    except SystemExit as exit_:
        return int(exit_.code or 0)
    if args.db:
        database = str(args.db)
    else:
        from .process.config import load_or_exit

        database = load_or_exit(os.environ, Path(".env"), require_token=False).database
    from storage import SchemaTooNew, StoreError

    try:
        return asyncio.run(_recompute(database, args.guild))
    except (StoreError, OSError, sqlite3.Error, SchemaTooNew, ValueError) as err:
        print(f"The ratings were not recomputed: {err}", file=sys.stderr)
        return 1


async def _recompute(database: str, guild: int | None) -> int:
    from storage import open_existing_database

    from .games.tables import Tables
    from .outbox.ratings import Ratings

    store = await open_existing_database(database)
    try:
        rater = Ratings(Tables(store, 64))
        servers = [guild] if guild is not None else await rater.servers()
        if not servers:  # a fresh database: say so, not nothing (the owner cannot tell it from a failure)
            print("No server has a finished game yet: there is nothing to rate.")
        for g in servers:
            games, players = await rater.recompute(g, time.time())
            print(f"server {g}: {games} rated games, {players} players")
    finally:
        await store.close()
    return 0


def _console(argv: Sequence[str]) -> int:
    from .console import main as console_main

    return console_main(argv)


def _move(argv: Sequence[str]) -> int:
    from .process.move import main as move_main

    return move_main(argv)


def _health(argv: Sequence[str]) -> int:
    from .process.health import main as health_main

    if argv:
        print(USAGE, file=sys.stderr)
        return 2
    return health_main()


_RUN: dict[str, Callable[[Sequence[str]], int]] = {
    "console": _console,
    "backup": backup,
    "restore": restore,
    "ratings": ratings,
    "purge": purge,
    "move": _move,
    "health": _health,
}


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in _RUN:
        return _RUN[args[0]](args[1:])
    if args in (["--help"], ["-h"], ["help"]):
        print(help_text())
        return 0
    if args in ([], ["--sync"]):
        from .process.config import load_or_exit
        from .process.event_loop import run_on

        # Read before the loop starts: ALEXANDROS_EVENT_LOOP chooses it.
        config = load_or_exit(os.environ, Path(".env"))
        try:
            return run_on(config.event_loop, run(config, sync=bool(args)))
        except KeyboardInterrupt:
            return 0
    print(USAGE, file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
