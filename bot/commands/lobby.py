"""The table before the game: open it, join, leave, start; and closing a game (abandon).

Lobby changes are not game actions (no event, no version), so they go to the store directly; starting
deals the cards with the engine and is the game's first commit, through the pipeline.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

import discord

from engine.ai import LEVELS
from engine.game import MAX_PLAYERS, MIN_PLAYERS, new_game
from engine.maps import Map, packaged_map
from engine.packaged import PACKAGED_MAPS
from storage import ChannelBusy, GameRecord, NewDuty, SeatError, Status

from ..games.computers import is_computer
from ..games.schedule import DeadlinePolicy, parse_policy
from ..games.tables import Outcome, Refused, Table, names_of
from ..outbox import duties as dt
from ..outbox.pipeline import IN_PLAY_META, META_TURN_POST
from ..texts import components as ui
from ..texts import posts, private
from ..texts.freeing import release
from ..words.words import policy_choices
from .answers import applied, defer_private, display_name, say, server_language
from .context import Context
from .dashboard import closed_duty as _status_closed

log = logging.getLogger("bot")

MapProvider = Callable[[], Map]
SeedSource = Callable[[], int]


class Lobby:
    def __init__(
        self, ctx: Context, map_provider: MapProvider, seed_source: SeedSource | None = None
    ) -> None:
        self.ctx = ctx
        self.map_provider = map_provider
        self.seed_source = seed_source or (lambda: secrets.randbits(63))

    def _locked(
        self,
        interaction: discord.Interaction,
        game_id: int | None,
        body: Callable[[], Awaitable[None]],
        find: Callable[[discord.Interaction, int | None], Awaitable[Any]] | None = None,
    ) -> Callable[[], Awaitable[None]]:
        """``body`` under its game's lock. Lobby changes rewrite the seats and options from what they read,
        so they must not overlap: a Leave or a Join racing the Start dealt seats nobody was told of, two
        Joins lost a name. The game is found first (``find``: the lobby's, by default); ``body`` reads it
        again under the lock."""

        async def run() -> None:
            found = await (find or self._lobby_table)(interaction, game_id)
            async with self.ctx.tables.locks.hold(found.id):
                await body()

        return run

    async def _lobby_table(self, interaction: discord.Interaction, game_id: int | None) -> Table:
        tables = self.ctx.tables
        record = await (
            tables.record_of(game_id)
            if game_id is not None
            else tables.record_in(interaction.channel_id or 0)
        )
        interaction.extras["game"] = record.id
        table = Table(record, None, names_of(record))
        interaction.extras["speaker"] = table.speaker
        if record.status != "lobby":
            raise Refused("bot/not-in-lobby")
        return table

    # --- opening a table -----------------------------------------------------------------------------------

    async def new(
        self,
        interaction: discord.Interaction,
        thread: bool,
        deadline_hours: int | None = None,
        deadline_policy: str | None = None,
        map_name: str | None = None,
        computer: str | None = None,
        hints: bool = False,
    ) -> None:
        async def body() -> None:
            user = interaction.user
            options = self._options(user.id, display_name(user), deadline_hours, deadline_policy)
            if hints:  # issue 29: hints for everyone at the table, and the game is not rated
                options["hints"] = True
            # Public posts speak the server's language (a DM-less guild command always has one).
            options["locale"] = server_language(interaction)
            if map_name is not None:
                if map_name not in PACKAGED_MAPS:
                    raise Refused(
                        "bot/bad-choice", what="map", value=map_name, allowed=", ".join(PACKAGED_MAPS)
                    )
                options["map"] = map_name
            if computer is not None:
                if computer not in LEVELS:
                    raise Refused("bot/bad-choice", what="level", value=computer, allowed=", ".join(LEVELS))
                options["computer"] = computer
            channel_id = interaction.channel_id or 0
            if thread:
                await defer_private(interaction)
                parent = interaction.channel
                if not isinstance(parent, discord.TextChannel):
                    raise Refused(
                        "bot/bad-choice",
                        what="place",
                        value="thread",
                        allowed=private.thread_needs_text_channel(),
                    )
                made = await parent.create_thread(
                    name=private.thread_name(display_name(user)), type=discord.ChannelType.public_thread
                )
                channel_id = made.id
            store, now = self.ctx.store, self.ctx.clock()
            try:
                record = await store.create_game(
                    interaction.guild_id, channel_id, user.id, options, now, seats=[(0, user.id)]
                )
            except ChannelBusy as busy:
                raise Refused("bot/channel-busy", game=busy.game_id) from None
            table = Table(record, None, names_of(record))
            interaction.extras["game"] = table.id
            log.info(
                "game created game=%s channel=%s user=%s deadline=%s policy=%s",
                table.id, channel_id, user.id, options.get("deadline_hours"), options.get("deadline_policy"),
            )  # fmt: skip
            view = ui.lobby_view(table.id, table.locale)
            try:
                if thread:
                    msg = await self.ctx.channel(channel_id).send(posts.lobby_text(table), view=view)
                    await say(interaction, private.opened_in(channel_id))
                else:
                    await interaction.response.send_message(posts.lobby_text(table), view=view)
                    msg = await interaction.original_response()
            finally:
                release(view)
            async with self.ctx.tables.locks.hold(table.id):  # a Join may have come first: keep its name
                fresh = await self.ctx.tables.record_of(table.id)
                await store.update_lobby(
                    table.id, self.ctx.clock(), options={**fresh.options, "lobby_message": msg.id}
                )

        await self.ctx.guard(interaction, body)

    @staticmethod
    def _options(
        user_id: int, name: str, deadline_hours: float | None, deadline_policy: str | None
    ) -> dict[str, Any]:
        """The table's options. The deadline policy is chosen here, once, so every player knows it before
        joining; without a deadline it is not stored (nothing to apply)."""
        options: dict[str, Any] = {"names": {str(user_id): name}, "creator": name}
        if deadline_hours:
            options["deadline_hours"] = float(deadline_hours)
            try:
                policy = parse_policy(deadline_policy or DeadlinePolicy.SKIP.value)
            except ValueError:
                raise Refused(
                    "bot/bad-choice", what="deadline policy", value=deadline_policy, allowed=policy_choices()
                ) from None
            options["deadline_policy"] = policy.value
        elif deadline_policy:
            raise Refused("bot/policy-without-deadline")
        return options

    # --- joining and leaving -------------------------------------------------------------------------------

    async def join(self, interaction: discord.Interaction, game_id: int | None, from_button: bool) -> None:
        async def body() -> None:
            table = await self._lobby_table(interaction, game_id)
            rec, uid = table.record, interaction.user.id
            if rec.seat_of(uid) is not None:
                raise Refused("bot/already-seated")
            if len(rec.seats) >= MAX_PLAYERS:
                raise Refused("bot/table-full", max=MAX_PLAYERS)
            store, now = self.ctx.store, self.ctx.clock()
            try:
                await store.join_seat(rec.id, uid, now)
                names = {**rec.options.get("names", {}), str(uid): display_name(interaction.user)}
                record = await store.update_lobby(rec.id, now, options={**rec.options, "names": names})
            except SeatError:
                raise Refused("bot/table-full", max=MAX_PLAYERS) from None
            await self._changed(
                interaction, Table(record, None, names_of(record)), from_button, private.joined()
            )

        await self.ctx.guard(interaction, self._locked(interaction, game_id, body))

    async def leave(self, interaction: discord.Interaction, game_id: int | None, from_button: bool) -> None:
        async def body() -> None:
            table = await self._lobby_table(interaction, game_id)
            rec, uid = table.record, interaction.user.id
            if rec.seat_of(uid) is None:
                raise Refused("bot/not-seated")
            store, now = self.ctx.store, self.ctx.clock()
            if rec.created_by == uid and len(rec.seats) == 1:
                # The creator leaving an empty table closes it, so the channel is free again.
                record = await store.abandon_game(rec.id, now)
            else:
                try:
                    record = await store.leave_seat(rec.id, uid, now)
                except SeatError:
                    raise Refused("bot/not-seated") from None
            await self._changed(
                interaction, Table(record, None, names_of(record)), from_button, private.left()
            )

        await self.ctx.guard(interaction, self._locked(interaction, game_id, body))

    async def add_computer(self, interaction: discord.Interaction, level: str) -> None:
        """``/alexandros table add-computer``: the creator seats a computer player of a level (issue 14)."""

        async def body() -> None:
            table = await self._lobby_table(interaction, None)
            rec, uid = table.record, interaction.user.id
            if rec.created_by != uid:
                creator = rec.options.get("creator", "the creator")
                raise Refused("bot/not-creator", creator=creator, what="seat a computer player")
            if level not in LEVELS:
                raise Refused("bot/bad-choice", what="level", value=level, allowed=", ".join(LEVELS))
            if len(rec.seats) >= MAX_PLAYERS:
                raise Refused("bot/table-full", max=MAX_PLAYERS)
            taken = set(rec.user_ids)
            computer = next(c for c in (-1, -2, -3, -4) if c not in taken)
            store, now = self.ctx.store, self.ctx.clock()
            try:
                await store.join_seat(rec.id, computer, now)
            except SeatError:
                raise Refused("bot/table-full", max=MAX_PLAYERS) from None
            names = {**rec.options.get("names", {}), str(computer): posts.computer_name(level, table.locale)}
            levels = {**rec.options.get("computers", {}), str(computer): level}
            record = await store.update_lobby(
                rec.id, now, options={**rec.options, "names": names, "computers": levels}
            )
            await self._changed(
                interaction, Table(record, None, names_of(record)), False, private.computer_seated(level)
            )

        await self.ctx.guard(interaction, self._locked(interaction, None, body))

    async def _changed(
        self, interaction: discord.Interaction, table: Table, from_button: bool, note: str
    ) -> None:
        lobby_view = ui.lobby_view(table.id, table.locale) if table.record.status == "lobby" else None
        if from_button:
            try:
                await interaction.response.edit_message(content=posts.lobby_text(table), view=lobby_view)
            finally:
                release(lobby_view)
            return
        await say(interaction, note)
        await self.ctx.store.add_duties(table.id, dt.lobby_edit(table, self.ctx.clock()), self.ctx.clock())
        self.ctx.pipeline.wake(table.id)

    # --- starting ------------------------------------------------------------------------------------------

    async def start(self, interaction: discord.Interaction, game_id: int | None, from_button: bool) -> None:
        async def body() -> None:
            if not from_button:
                await defer_private(interaction)
            table = await self._lobby_table(interaction, game_id)
            rec, uid = table.record, interaction.user.id
            if rec.created_by != uid:
                creator = rec.options.get("creator", "the creator")
                raise Refused("bot/not-creator", creator=creator, what="start the game")
            if rec.seat_of(uid) is None:
                # A creator who left her table no longer runs it (membership at the moment of the action).
                raise Refused("bot/creator-left")
            if len(rec.seats) < MIN_PLAYERS:
                raise Refused("bot/too-few-players", min=MIN_PLAYERS, have=len(rec.seats))
            extra = [] if from_button else dt.lobby_edit(_closed(table, "playing"), self.ctx.clock())
            outcome = await self.deal(table, extra)  # read under the game's lock (_locked)
            applied(interaction)
            log.info(
                "game started game=%s channel=%s user=%s players=%s",
                rec.id, rec.channel_id, uid, len(rec.seats),
            )  # fmt: skip
            interaction.extras["speaker"] = outcome.table.speaker
            if from_button:
                await interaction.response.edit_message(content=posts.lobby_text(outcome.table), view=None)
            else:
                await say(interaction, private.started())

        await self.ctx.guard(interaction, self._locked(interaction, game_id, body))

    async def deal(self, table: Table, extra: list[NewDuty]) -> Outcome:
        """Deal the cards for the table's seats and commit the game's first state (the caller holds the
        game's lock). Starting only deals and saves (fast), so a button can answer at once."""
        rec = table.record
        people = [u for _seat, u in rec.seats if not is_computer(u)]
        if len(people) < 2 and "hints" not in rec.options:
            # One person and computers: never rated (bot.outbox.ratings), so hints are on (issue 29).
            rec = await self.ctx.store.update_lobby(
                rec.id, self.ctx.clock(), options={**rec.options, "hints": True}
            )
        seats = [(i, u) for i, (_, u) in enumerate(sorted(rec.seats))]
        named = str(rec.options.get("map", ""))
        game_map: MapProvider = self.map_provider
        if named in PACKAGED_MAPS:  # chosen at /alexandros new; else the bot's map (default, or --map)

            def game_map() -> Map:
                return packaged_map(named)

        seed = self.seed_source()
        state, events = await asyncio.to_thread(lambda: new_game(game_map(), len(seats), seed))
        started = Table(rec, None, names_of(rec))
        return await self.ctx.pipeline.commit(started, state, tuple(events), seats=seats, extra=extra)

    # --- closing -------------------------------------------------------------------------------------------

    async def abandon(self, interaction: discord.Interaction) -> None:
        """``/alexandros abandon``: who may is checked, then an ephemeral prompt asks to confirm with a
        button (abandoning cannot be undone); the button checks its presser again (``abandon_confirmed``)."""

        async def body() -> None:
            record = await self._closable(interaction, None)
            await say(
                interaction,
                private.abandon_prompt(record.id, record.status == "lobby"),
                view=ui.abandon_view(record.id),
            )

        await self.ctx.guard(interaction, body)

    async def _closable(self, interaction: discord.Interaction, game_id: int | None) -> GameRecord:
        """The game to abandon, if this presser may: its creator, or a member with Manage Channels here."""
        tables = self.ctx.tables
        if game_id is not None:
            record = await tables.record_of(game_id)
        else:
            record = await tables.record_in(interaction.channel_id or 0)
        interaction.extras["game"] = record.id
        perms = interaction.permissions
        if record.created_by != interaction.user.id and not perms.manage_channels:
            raise Refused("bot/no-permission")
        if record.status not in ("lobby", "playing"):
            raise Refused("bot/closed", status=record.status)
        return record

    async def abandon_confirmed(self, interaction: discord.Interaction, game_id: int) -> None:
        """The Abandon button: the presser is checked again (the prompt may be old, the permissions may have
        changed), the game is closed, and the channel is told by a duty written with the closing."""

        async def body() -> None:
            record = await self._closable(interaction, game_id)
            store, now = self.ctx.store, self.ctx.clock()
            table = Table(record, None, names_of(record))
            if record.status == "lobby":
                closing = dt.lobby_edit(_closed(table, "abandoned"), now)
            else:
                post = (await store.get_game_meta(record.id)).get(META_TURN_POST)
                closing = []
                if isinstance(post, dict):
                    payload = {"since": int(post["since"]), "buttons": None}
                    closing = [NewDuty(dt.EDIT, now, record.channel_id, payload=payload)]
                closing.append(_status_closed(record, now))  # the pinned status message says so
            by = display_name(interaction.user)
            closing.append(
                dt.say(record.channel_id, posts.abandoned_text(record.id, by, table.locale), now=now)
            )
            await store.abandon_game(record.id, now, duties=closing)
            await store.set_game_meta(record.id, dict.fromkeys(IN_PLAY_META), now)
            self.ctx.tables.cache.drop(record.id)
            self.ctx.pipeline.wake(record.id)
            await interaction.response.edit_message(content=private.abandoned_private(record.id), view=None)

        await self.ctx.guard(interaction, self._locked(interaction, game_id, body, self._closable))


def _closed(table: Table, status: Status) -> Table:
    """The lobby as it reads once closed (started or abandoned): no buttons."""
    record = dataclasses.replace(table.record, status=status)
    return Table(record, None, names_of(record))
