"""Child process of the cluster test (tests/bot/test_cluster.py): one real bot process of a cluster.

Usage: python tests/bot/cluster_child.py

It imports everything, says ``loaded``, and waits for ``{"cmd": "start", "config": {...}}`` on stdin (so
that a parent can start it while it prepares the database); then it runs the real bot
(``bot.client.make_bot`` with this process's shard slice, on the shared PostgreSQL) on its own offline
Discord, with the delivery worker running, and answers commands on stdin (one JSON object a line) with
events on stdout (one JSON object a line, flushed at once, so that a parent that kills this process has
every line written before the kill):

- ``ready``   {owner, synced}            the bot is up; ``owner`` is its delivery worker's lease owner
- ``sent``    {nonce, channel, dedup}    its fake Discord created a channel message (``dedup``: the
                                         enforced nonce matched one that this fake made earlier)
- ``edit``    {channel, message}         its fake Discord edited a message
- ``claimed`` {duties: [[id, guild, kind]...]}  its delivery worker claimed these duties
- ``sync``    {path}                     the bot called a command-sync route
- ``stuck``   {nonce}                    (with ``hang_after``) the fake made a message and then froze
                                         this whole process, as a process stuck mid-delivery
- ``committing`` {game}                  (after ``race``) the pipeline is about to append: waits for ``go``
- ``clicked`` {content, ephemeral}       the answer the racing click got
- ``bye``     {errors, violations}       after ``quit``: the bot closed

Commands: ``{"cmd": "race", "message": {...}, "user": NAME, "custom_id": ID}`` (put the public message
that Discord shows in this fake, then click its button as ``user``), ``{"cmd": "go"}``, ``{"cmd": "quit"}``.

Config: url, shard_count, shard_ids, channels (every channel of the test, ids), guild and channel (the
fake's own guild and channel, for interactions), lease and poll (seconds), sync (bool), hang_after (int
or null).
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bot.client import make_bot  # noqa: E402
from bot.games.pictures import Pictures  # noqa: E402
from offline.offline import OfflineDiscord  # noqa: E402
from offline.records import Request, StoredMessage  # noqa: E402
from storage import GameStore, open_postgres_store  # noqa: E402


def say(event: str, **fields: Any) -> None:
    sys.stdout.write(json.dumps({"ev": event, **fields}) + "\n")
    sys.stdout.flush()


class ReportingDiscord(OfflineDiscord):
    """The fake Discord of this process, reporting every message it makes or edits to the parent."""

    hang_after: int | None = None
    made = 0

    def _finish(self, req: Request) -> None:
        super()._finish(req)
        if req.kind == "channel_message" and req.channel_id is not None:
            nonce = req.data.get("nonce")
            say("sent", nonce=nonce, channel=req.channel_id, dedup=req.deduplicated)
            self.made += 1
            if self.hang_after is not None and self.made > self.hang_after:
                # Discord made the message, and this process froze before hearing back (its event loop
                # blocked: no timeout of its own can fire). The parent kills it now.
                say("stuck", nonce=nonce)
                time.sleep(3600)
        elif req.kind == "edit_message" and req.channel_id is not None:
            say("edit", channel=req.channel_id, message=req.message_id)
        elif req.kind == "sync_commands":
            say("sync", path=req.path)


class RacingStore:
    """The shared store, reporting what this process claims, with a barrier before a racing append (both
    processes commit the same version)."""

    def __init__(self, store: GameStore) -> None:
        self._store = store
        self.race_game: int | None = None
        self.go = asyncio.Event()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    async def claim_duties(self, *args: Any, **kwargs: Any) -> Any:
        claimed = await self._store.claim_duties(*args, **kwargs)
        if claimed:
            say("claimed", duties=[[d.id, d.guild_id, d.kind] for d in claimed])
        return claimed

    async def append(self, game_id: int, expected_version: int, *args: Any, **kwargs: Any) -> Any:
        if game_id == self.race_game:
            self.race_game = None
            say("committing", game=game_id, version=expected_version)
            await self.go.wait()
        return await self._store.append(game_id, expected_version, *args, **kwargs)


async def commands(queue: asyncio.Queue[dict[str, Any]]) -> None:
    loop = asyncio.get_running_loop()
    while True:
        line = await loop.run_in_executor(None, sys.stdin.readline)
        if not line:
            await queue.put({"cmd": "quit"})
            return
        await queue.put(json.loads(line))


async def race(d: OfflineDiscord, store: RacingStore, cmd: Mapping[str, Any]) -> None:
    message = StoredMessage(dict(cmd["message"]))
    d.messages[message.id] = message  # the public message every process's users see in Discord
    game = int(str(cmd["custom_id"]).split(":")[2])
    store.race_game = game
    r = await d.click(d.member(str(cmd["user"])), message.id, str(cmd["custom_id"]), check=False)
    say("clicked", content=r.content, ephemeral=r.ephemeral)


async def main() -> None:
    queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    reader = asyncio.create_task(commands(queue))
    say("loaded")
    start = await queue.get()
    if start["cmd"] != "start":
        return
    config: Mapping[str, Any] = start["config"]
    store = RacingStore(await open_postgres_store(config["url"], max_size=8))
    shard_ids: Sequence[int] = tuple(config["shard_ids"])

    def factory() -> Any:
        return make_bot(
            store,  # type: ignore[arg-type]  # a GameStore with a barrier in front of append
            clock=time.time,
            pictures=Pictures(width=640),
            shard_count=int(config["shard_count"]),
            shard_ids=tuple(shard_ids),
            reminders=True,
            sync=bool(config.get("sync")),
            delivery_lease=float(config["lease"]),
            delivery_poll=float(config["poll"]),
            # Each process has a fake Discord of its own, with no global limit to keep to.
            send_rate=None,
        )

    d = ReportingDiscord(
        factory,
        guild_id=int(config["guild"]),
        channel_id=int(config["channel"]),
        loggers=("bot",),
        watched_tasks=("alx-",),
        strict=False,
        response_deadline=None,  # the barrier holds a click on purpose; Discord's 3 s is not under test
    )
    d.hang_after = config.get("hang_after")
    for cid in config["channels"]:
        if int(cid) not in d.channels:
            d.add_channel(f"c{cid}", channel_id=int(cid))
    bot = await d.start()
    say("ready", owner=bot.deliveries.owner)
    try:
        while True:
            cmd = await queue.get()
            if cmd["cmd"] == "quit":
                break
            if cmd["cmd"] == "go":
                store.go.set()
            elif cmd["cmd"] == "race":
                asyncio.create_task(race(d, store, cmd), name="cluster-race")
    finally:
        await d.close()
        await store._store.close()
        say("bye", errors=[str(e) for e in d.errors], violations=list(d.violations))
        reader.cancel()


if __name__ == "__main__":
    asyncio.run(main())
