"""``python -m bot``: run the bot; ``--sync`` also pushes the slash commands once; ``console`` plays
locally without Discord; ``restore FILE`` puts a backup in place of the database (bot stopped).

Configuration comes from the environment (or ``.env``), see bot.config and docs/HOSTING.md. A missing or
bad setting prints one sentence and exits non-zero; the token is never printed or logged.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

USAGE = """usage: python -m bot [--sync]
       python -m bot console --players alice,bob[,carol[,dave]] [--db PATH] [--out DIR] [--seed N]
                             [--map FILE]
       python -m bot restore BACKUP_FILE"""

log = logging.getLogger("bot")


async def _heartbeat(data_dir: Path) -> None:
    from .health import write_heartbeat

    while True:
        with contextlib.suppress(OSError):
            write_heartbeat(data_dir, time.time())
        await asyncio.sleep(60)


async def run(sync: bool) -> int:
    import aiohttp
    import discord

    from .client import make_bot
    from .config import load_or_exit, setup_logging

    config = load_or_exit(os.environ, Path(".env"))
    # The bot never joins voice; the library's warnings about voice packages would only alarm owners.
    discord.VoiceClient.warn_nacl = False
    discord.VoiceClient.warn_dave = False
    setup_logging(config)
    config.data_dir.mkdir(parents=True, exist_ok=True)
    bot = make_bot(
        str(config.db_path),
        sync=sync,
        sync_guild=config.test_guild,
        reminders=True,
        reminder_hours=config.reminder_hours,
    )
    tasks: list[asyncio.Task[None]] = []
    scheduler = None
    try:
        async with bot:
            tasks.append(asyncio.create_task(_heartbeat(config.data_dir), name="bot-heartbeat"))
            try:
                await bot.login(config.token)
            except discord.LoginFailure:
                print(
                    "Discord refused the token in DISCORD_TOKEN: copy it again from the developer portal "
                    "(Bot > Reset Token).",
                    file=sys.stderr,
                )
                return 2
            if config.backups_enabled and bot.service is not None:
                from .backups import BackupScheduler

                scheduler = BackupScheduler(
                    bot.service.store, config.backup_dir, config.backup_interval_hours, config.backup_keep
                )
                scheduler.start()
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
    finally:
        for t in tasks:
            t.cancel()
        if scheduler is not None:
            await scheduler.stop()
        with contextlib.suppress(Exception):
            from .health import clear_heartbeat

            clear_heartbeat(config.data_dir)
    return 0


def restore(argv: Sequence[str]) -> int:
    from .backups import RestoreError
    from .backups import restore as do_restore
    from .config import load_or_exit

    if len(argv) != 1:
        print(USAGE, file=sys.stderr)
        return 2
    config = load_or_exit(os.environ, Path(".env"), require_token=False)
    try:
        result = do_restore(Path(argv[0]), config.db_path, data_dir=config.data_dir)
    except RestoreError as err:
        print(str(err), file=sys.stderr)
        return 1
    print(str(result))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["console"]:
        from .console import main as console_main

        return console_main(args[1:])
    if args[:1] == ["restore"]:
        return restore(args[1:])
    if args in ([], ["--sync"]):
        try:
            return asyncio.run(run(sync=bool(args)))
        except KeyboardInterrupt:
            return 0
    print(USAGE, file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
