"""Builds the bot: a ``commands.Bot`` with the store, the action pipeline, the delivery worker, the
handlers, the cogs and the dynamic items, wired in ``setup_hook``.

Everything the bot depends on is injected (store or its path, map, clock, seed source, picture adapter),
so that tests and the console run the same bot deterministically.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from pathlib import Path
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from engine.game import new_game
from engine.maps import default_map
from engine.views import view
from storage import GameStore, ShardSlice, open_database

from .commands.answers import InFlight
from .commands.cog import SYNC_LOCK, AdminCog, AlexandrosCog
from .commands.context import Context
from .commands.dashboard import STATUS, Dashboard
from .commands.fallback import answer_unknown
from .commands.lobby import MapProvider, SeedSource
from .commands.router import Handlers
from .games.pictures import Pictures, words_for
from .games.tables import Tables
from .games.thinking import Thinkers
from .outbox.deliveries import LEASE, Deliveries
from .outbox.lanes import Lanes
from .outbox.notices import DM, Notices
from .outbox.pipeline import Clock, Pipeline
from .outbox.ratings import RATE
from .outbox.replays import REPLAY
from .outbox.timers import Timers
from .process import collector, metrics
from .process.backups import BackupScheduler
from .texts.components import GameButton, GameSelect
from .web import WebFace
from .web import links as web_links
from .words import i18n
from .words.translator import CatalogTranslator

_MAY_GO_UNANSWERED = (discord.InteractionType.component, discord.InteractionType.modal_submit)


class AlexandrosBot(commands.AutoShardedBot):
    """The bot on a store (or a SQLite path opened in setup_hook), with everything it depends on injected.

    ``sync`` pushes the commands once at start (to ``sync_guild`` only, if given), under the store's lock
    shared by every process on the database (``sync_refused`` when another one held it); ``reminders``
    runs the delivery worker's clock loop (timers and retries; the first round as soon as the bot is
    ready), while the duties a commit writes are always delivered at once; ``backup_dir`` with a positive
    ``backup_interval_hours`` runs bot.process.backups.BackupScheduler while the bot runs. ``shard_count`` and
    ``shard_ids`` make it one process of a cluster; ``delivery_lease`` and ``delivery_poll`` (seconds) are
    how long a claimed duty stays this process's unless renewed (bot.outbox.deliveries) and the worker's
    longest sleep.
    """

    def __init__(
        self,
        store: GameStore | str,
        *,
        map_provider: MapProvider = default_map,
        clock: Clock = time.time,
        seed_source: SeedSource | None = None,
        pictures: Pictures | None = None,
        thinkers: Thinkers | None = None,
        sync: bool = False,
        sync_guild: int | None = None,
        reminders: bool = False,
        reminder_hours: float = 24.0,
        backup_dir: Path | None = None,
        backup_interval_hours: float = 0.0,
        backup_keep: int = 7,
        rules_url: str = "",
        drain_timeout: float = 10.0,
        cache_size: int = 2000,
        keep_sent_days: float = 30.0,
        shard_count: int | None = None,
        shard_ids: tuple[int, ...] | None = None,
        delivery_lease: float = LEASE,
        delivery_poll: float = 60.0,
        send_rate: float | None = 45.0,
        web_port: int | None = None,
        web_host: str = "127.0.0.1",
        public_url: str = "",
        web_limits: dict[str, Any] | None = None,
        lanes: bool = True,
        **kwargs: Any,
    ) -> None:
        if shard_ids is not None:
            kwargs["shard_ids"] = list(shard_ids)
        super().__init__(
            command_prefix=commands.when_mentioned,
            # Guilds only (servers, channels, threads, roles: what interactions and posts refer to). The bot
            # reads nothing but interactions, which need no intent; the default intents also sent it, and it
            # parsed, every message, edit, typing and reaction in every channel of every server it is in.
            intents=discord.Intents(guilds=True),
            allowed_mentions=discord.AllowedMentions.none(),  # a ping is always an explicit choice
            # Installed in servers only, used in server channels only: a game needs a channel to post in,
            # so a user install or a DM would make games that can never post.
            allowed_contexts=app_commands.AppCommandContext(
                guild=True, dm_channel=False, private_channel=False
            ),
            allowed_installs=app_commands.AppInstallationType(guild=True, user=False),
            # A slice of the shards, for a cluster of processes (docs/SCALING.md); without one,
            # discord.py asks Discord how many shards the bot needs and runs them all here.
            shard_count=shard_count,
            **kwargs,
        )
        self.shards_served = ShardSlice(shard_count, shard_ids) if shard_count and shard_ids else None
        # How long a claimed duty stays this process's: a process that dies holding it leaves it to the
        # others (or its replacement) that much later. Tests of a cluster shorten it.
        self.delivery_lease = delivery_lease
        # The longest the worker sleeps between rounds: what another process of the cluster wrote for this
        # process's shards (a game changed during a shard's handover) is found at the latest then.
        self.delivery_poll = delivery_poll
        self.send_rate = send_rate
        self.keep_sent_days = keep_sent_days
        self._store_spec = store
        self._owns_store = isinstance(store, str)
        self.map_provider = map_provider
        self.clock = clock
        self.seed_source = seed_source or (lambda: secrets.randbits(63))
        self.pictures = pictures or Pictures()
        self.thinkers = thinkers or Thinkers()
        self.sync_on_start = sync
        self.sync_refused = False  # set when --sync found another process syncing (the store's lock)
        self.reminders = reminders
        self.reminder_hours = reminder_hours
        self._reminder_task: asyncio.Task[None] | None = None
        self.sync_guild = sync_guild
        self.cache_size = cache_size
        self.store: GameStore | None = None
        self.pipeline: Pipeline | None = None
        self.deliveries: Deliveries | None = None
        self.handlers: Handlers | None = None
        self.in_flight = InFlight()
        # Interactions' tokens, for public posts not counted by Discord's global limit (issue 32,
        # bot.outbox.lanes); without them (``lanes=False``) every post and edit goes through the channel
        # routes.
        self.lanes = Lanes() if lanes else None
        self._warm: asyncio.Task[None] | None = None
        self.backup_dir = backup_dir
        self.backup_interval_hours = backup_interval_hours
        self.backup_keep = backup_keep
        self.rules_url = rules_url
        self.backups: BackupScheduler | None = None
        self.drain_timeout = drain_timeout
        # Set after the first reminder round: what came due while the bot was down has been handled.
        self.caught_up = asyncio.Event()
        # The web face (bot.web): a page per game, /healthz and /metrics; off without a port.
        self.web_port = web_port
        self.web_host = web_host
        self.public_url = public_url
        self.web_limits = dict(web_limits or {})
        self.web: WebFace | None = None

    async def watch_url(self, game_id: int, guild_id: int | None) -> str | None:
        """The link of a game's page, or None when there is none to give (no web face, or watching turned
        off on the server)."""
        if self.web is None or self.store is None or await web_links.watching_off(self.store, guild_id):
            return None
        return self.web.url_of(game_id, await web_links.secret_of(self.store, game_id, self.clock()))

    def _changed(self, game_id: int) -> None:
        """A commit of this game wrote duties: deliver them, and let its live pages look."""
        assert self.deliveries is not None
        self.deliveries.wake()
        if self.web is not None:
            self.web.poke(game_id)

    async def setup_hook(self) -> None:
        spec = self._store_spec
        store = await open_database(spec) if isinstance(spec, str) else spec
        self.store = store
        self.pictures.start()
        self.thinkers.start()
        self.deliveries = Deliveries(
            self,
            store,
            self.pictures,
            self.clock,
            shards=self.shards_served,
            lease=self.delivery_lease,
            rate=self.send_rate,
            keep_done_days=self.keep_sent_days,
            lanes=self.lanes,
        )
        tables = Tables(store, self.cache_size)
        self.pipeline = Pipeline(tables, self.clock, self.reminder_hours, self._changed)
        self.deliveries.timers = Timers(self, self.pipeline, self.thinkers)
        # Turn pings and reminders by DM (bot.outbox.notices) and the pinned status message
        # (bot.commands.dashboard).
        self.notices = Notices(self, store, self.clock, self.pipeline.prefs)
        self.dashboard = Dashboard(self, store, self.clock, self.pipeline.tables)
        self.pipeline.duty_hooks += [self.notices.route, self.dashboard.after_change]
        self.deliveries.handlers.update({DM: self.notices.deliver, STATUS: self.dashboard.deliver})
        ctx = Context(
            self, self.pipeline, self.pictures, self.in_flight, self.rules_url, self.thinkers, self.lanes
        )
        self.handlers = Handlers(ctx, self.map_provider, self.seed_source)
        self.deliveries.handlers[RATE] = self.handlers.ratings.handle
        self.deliveries.handlers[REPLAY] = self.handlers.replays.post
        # Command names and descriptions in every catalog's language, sent to Discord at the next sync.
        await self.tree.set_translator(CatalogTranslator())
        await self.add_cog(AlexandrosCog(self, self.handlers))
        await self.add_cog(AdminCog(self, self.sync_guild, self.handlers))
        self.add_dynamic_items(GameButton, GameSelect)
        if self.backup_dir is not None and self.backup_interval_hours > 0:
            self.backups = BackupScheduler(
                store, self.backup_dir, self.backup_interval_hours, self.backup_keep
            )
            self.backups.start()
        if self.reminders:
            self._reminder_task = asyncio.create_task(self._deliver_forever(), name="bot-deliveries")
        pictures = self.pictures
        metrics.QUEUE.labels("render").set_function(lambda: pictures.waiting)
        deliveries = self.deliveries
        metrics.DUTIES_PENDING.set_function(lambda: deliveries.in_flight)
        if self.web_port is not None:
            self.web = WebFace(
                store, host=self.web_host, port=self.web_port, public_url=self.public_url, clock=self.clock,
                **self.web_limits,
            )  # fmt: skip
            await self.web.start()
            await store.listen_for_changes(self.web.poke)  # other processes' commits (PostgreSQL)
            self.pipeline.on_events = self.web.pages.offer  # this process's: the pages need not read them
        # Parse the map and draw one board now, in a thread: the first game would otherwise pay for the
        # map's distance tables and the renderer's cached map layer while players wait.
        self._warm = asyncio.create_task(self._warm_then_freeze(), name="bot-warm-up")
        if self.sync_on_start:
            # Only when asked (--sync): Discord limits how often commands may be synced. And one process
            # of a cluster at a time: the store's lock is shared by every process on the database.
            async with store.exclusive(SYNC_LOCK) as mine:
                self.sync_refused = not mine
                if mine and self.sync_guild is not None:
                    guild = discord.Object(self.sync_guild)
                    self.tree.copy_global_to(guild=guild)
                    await self.tree.sync(guild=guild)
                elif mine:
                    await self.tree.sync()
            if self.sync_refused:
                logging.getLogger("bot").warning("commands not synced: another process is syncing them")

    def dispatch(self, event: str, /, *args: Any, **kwargs: Any) -> None:
        super().dispatch(event, *args, **kwargs)
        # What no handler answers (bot.commands.fallback): only a component or a modal submit can go
        # unanswered. As a listener of every interaction it cost a task for each slash command and
        # autocomplete too (about three an action), which it only returned from.
        if event == "interaction" and args[0].type in _MAY_GO_UNANSWERED:
            self._schedule_event(answer_unknown, "on_interaction", *args)

    @property
    def router(self) -> Handlers:
        """Where components send their clicks (bot.texts.components)."""
        assert self.handlers is not None
        return self.handlers

    async def _deliver_forever(self) -> None:
        # The first round runs as soon as the bot is ready: duties that came due (or were left undelivered)
        # while the bot was down are handled then, once each (they wait in the store).
        await self.wait_until_ready()
        assert self.deliveries is not None
        try:
            await self.deliveries.drain()
        except Exception:
            logging.getLogger("bot").exception("the first delivery round failed")
        self.caught_up.set()
        await self.deliveries.run_forever(self.delivery_poll)

    async def warmed(self) -> None:
        """Wait for the start-up warm-up (benchmarks measure a warmed bot, as players meet it)."""
        if self._warm is not None:
            await self._warm

    async def _warm_then_freeze(self) -> None:
        await asyncio.to_thread(self._warm_up)
        collector.warmed_up()

    def _warm_up(self) -> None:
        # Every language's catalog, compiled now (tens of ms each) rather than on the loop at its first text.
        for language in i18n.LANGUAGES:
            i18n.translations(language)
            words_for(language)
        try:
            state, _ = new_game(self.map_provider(), 2, 0)
            self.pictures.warm(view(state, None))
        except Exception:  # a failed warm-up only means a slower first picture
            logging.getLogger("bot").warning("warm-up failed", exc_info=True)

    async def close(self) -> None:
        """Finish the actions in flight (up to ``drain_timeout`` s), then disconnect, stop the backups and
        close the database, in that order: an action's answer and post need the connection, a backup and
        every write need the database."""
        log = logging.getLogger("bot")
        if not self.in_flight.closing:
            left = await self.in_flight.drain(self.drain_timeout)
            if left:
                log.warning(
                    "shutting down with %d action(s) still running after %.0f s",
                    left,
                    self.drain_timeout,
                )
        if self.web is not None:
            await self.web.close()
            self.web = None
        if self.deliveries is not None:
            await self.deliveries.close()
        if self._reminder_task is not None:
            self._reminder_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reminder_task
            self._reminder_task = None
        try:
            await super().close()
        finally:
            if self.backups is not None:
                await self.backups.stop()
                self.backups = None
            await asyncio.to_thread(self.pictures.close)
            await asyncio.to_thread(self.thinkers.close)
            if self._owns_store and self.store is not None:
                await self.store.close()
                self.store = None
                log.info("database closed")


# The factory callers (entry point, console, tests) use: the bot itself, so its options are stated once.
make_bot = AlexandrosBot
