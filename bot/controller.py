"""What each command and button does, in Discord terms: answer, defer, call the service, then publish.

Commands (bot.cog) and components (bot.components) are thin: they parse their inputs and call one method
here. Every method answers its interaction exactly once in the end (a refusal is an ephemeral sentence),
defers before slow work, and posts to the channel only after the store has committed.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

import discord

from engine import rules
from engine.actions import Action
from engine.errors import IllegalAction
from engine.notation import format_action
from engine.state import GameState, Phase
from engine.symbols import contains, missing
from engine.views import redact, view
from storage import Notice

from . import choices as ch
from . import components as ui
from . import texts
from .pictures import Pictures, point_letters
from .schedule import ReminderPrefs
from .service import GameService, Outcome, Refused, Table
from .words import Speaker, cards_text, rules_summary

if TYPE_CHECKING:
    from discord.ext import commands

log = logging.getLogger("bot")


def png(data: bytes, name: str = "board.png", description: str | None = None) -> discord.File:
    return discord.File(io.BytesIO(data), filename=name, description=description)


def display_name(user: discord.abc.User) -> str:
    return getattr(user, "display_name", None) or user.name


def interaction_kind(interaction: discord.Interaction) -> str:
    """What the user did, for an error's log line: "command alexandros move", "component alx:end:3:41"..."""
    if interaction.command is not None:
        return f"command {interaction.command.qualified_name}"
    data: Any = interaction.data or {}
    custom_id = data.get("custom_id")
    return f"{interaction.type.name} {custom_id}" if custom_id else interaction.type.name


def log_outcome(outcome: Outcome, user_id: int | None, via: str) -> None:
    """One log line per applied action, with its game, channel and user, in engine notation."""
    rec = outcome.table.record
    for action in outcome.actions:
        log.info(
            "action game=%s channel=%s user=%s via=%s: %s",
            rec.id,
            rec.channel_id,
            user_id,
            via,
            format_action(action),
        )


class Controller:
    """The bot's behaviour; one per bot object, sharing the service and the picture adapter."""

    def __init__(
        self, bot: commands.Bot, service: GameService, pictures: Pictures, rules_url: str = ""
    ) -> None:
        self.rules_url = rules_url
        self.bot = bot
        self.service = service
        self.pictures = pictures

    # --- answering ----------------------------------------------------------------------------------------

    async def say(
        self,
        interaction: discord.Interaction,
        text: str,
        *,
        file: discord.File | None = None,
        view: discord.ui.View | None = None,
    ) -> None:
        """An ephemeral answer, whatever state the interaction is in (fresh, deferred, or deferred update)."""
        mode = interaction.extras.get("mode")
        kwargs: dict[str, Any] = {}
        if view is not None:
            kwargs["view"] = view
        if not interaction.response.is_done():
            if file is not None:
                kwargs["file"] = file
            await interaction.response.send_message(text, ephemeral=True, **kwargs)
        elif mode == "thinking":
            await interaction.edit_original_response(
                content=text, attachments=[file] if file is not None else [], **kwargs
            )
        else:
            if file is not None:
                kwargs["file"] = file
            await interaction.followup.send(text, ephemeral=True, **kwargs)

    async def show(
        self,
        interaction: discord.Interaction,
        text: str,
        *,
        file: discord.File | None = None,
        view: discord.ui.View | None = None,
    ) -> None:
        """Replace the ephemeral flow message a component lives on (after ``defer_update``)."""
        if interaction.extras.get("mode") == "update":
            await interaction.edit_original_response(
                content=text, attachments=[file] if file is not None else [], view=view
            )
        else:
            await self.say(interaction, text, file=file, view=view)

    @staticmethod
    async def defer_private(interaction: discord.Interaction) -> None:
        if not interaction.response.is_done():
            await interaction.response.defer(ephemeral=True, thinking=True)
            interaction.extras["mode"] = "thinking"

    @staticmethod
    async def defer_update(interaction: discord.Interaction) -> None:
        if not interaction.response.is_done():
            await interaction.response.defer()
            interaction.extras["mode"] = "update"

    async def guarded(
        self,
        interaction: discord.Interaction,
        body: Callable[[], Awaitable[None]],
        speaker: Speaker | None = None,
    ) -> None:
        """Run a handler; a refusal becomes an ephemeral sentence, any other error a short apology.

        The handler counts as in flight (service.in_flight) until it has answered and published, so a
        shutdown finishes it before closing the database.
        """
        try:
            async with self.service.in_flight():
                await body()
        except Refused as refused:
            sp = speaker or interaction.extras.get("speaker") or Speaker()
            await self.say(interaction, sp.refusal(refused.code, refused.details))
        except Exception:
            # Enough context to find the game and the person in a bug report, never the token.
            log.exception(
                "interaction failed: kind=%s game=%s channel=%s user=%s interaction=%s",
                interaction_kind(interaction),
                interaction.extras.get("game"),
                interaction.channel_id,
                interaction.user.id,
                interaction.id,
            )
            try:
                await self.say(interaction, texts.OOPS)
            except discord.HTTPException:
                pass

    async def table_here(self, interaction: discord.Interaction) -> Table:
        table = await self.service.table_in(interaction.channel_id or 0)
        interaction.extras["speaker"] = table.speaker
        interaction.extras["game"] = table.id
        return table

    async def table_shown_here(self, interaction: discord.Interaction) -> Table:
        """The channel's newest game, finished or abandoned included: for commands that only show it."""
        table = await self.service.latest_table_in(interaction.channel_id or 0)
        interaction.extras["speaker"] = table.speaker
        interaction.extras["game"] = table.id
        return table

    async def table_of(self, interaction: discord.Interaction, game_id: int) -> Table:
        interaction.extras["game"] = game_id
        table = await self.service.table_by_id(game_id)
        interaction.extras["speaker"] = table.speaker
        return table

    def channel(self, channel_id: int) -> discord.PartialMessageable:
        return self.bot.get_partial_messageable(channel_id)

    # --- the lobby ----------------------------------------------------------------------------------------

    async def new(
        self,
        interaction: discord.Interaction,
        thread: bool,
        deadline_hours: int | None = None,
        deadline_policy: str | None = None,
    ) -> None:
        async def body() -> None:
            user = interaction.user
            channel_id = interaction.channel_id or 0
            if thread:
                await self.defer_private(interaction)
                parent = interaction.channel
                if not isinstance(parent, discord.TextChannel):
                    raise Refused(
                        "bot/bad-choice",
                        what="place",
                        value="thread",
                        allowed=texts.THREAD_NEEDS_TEXT_CHANNEL,
                    )
                made = await parent.create_thread(
                    name=texts.thread_name(display_name(user)), type=discord.ChannelType.public_thread
                )
                channel_id = made.id
            table = await self.service.create(
                interaction.guild_id, channel_id, user.id, display_name(user), deadline_hours, deadline_policy
            )
            interaction.extras["game"] = table.id
            log.info(
                "game created game=%s channel=%s user=%s deadline=%s policy=%s",
                table.id,
                channel_id,
                user.id,
                table.record.options.get("deadline_hours"),
                table.record.options.get("deadline_policy"),
            )
            if thread:
                msg = await self.channel(channel_id).send(
                    texts.lobby_text(table), view=ui.lobby_view(table.id)
                )
                await self.service.store.update_lobby(
                    table.id, self.service.clock(), options={**table.record.options, "lobby_message": msg.id}
                )
                await self.say(interaction, texts.opened_in(channel_id))
            else:
                await interaction.response.send_message(texts.lobby_text(table), view=ui.lobby_view(table.id))
                msg = await interaction.original_response()
                await self.service.store.update_lobby(
                    table.id, self.service.clock(), options={**table.record.options, "lobby_message": msg.id}
                )

        await self.guarded(interaction, body)

    async def join(self, interaction: discord.Interaction, game_id: int | None, from_button: bool) -> None:
        async def body() -> None:
            gid = game_id if game_id is not None else (await self.table_here(interaction)).id
            table = await self.service.join(gid, interaction.user.id, display_name(interaction.user))
            await self._lobby_changed(interaction, table, from_button, texts.JOINED)

        await self.guarded(interaction, body)

    async def leave(self, interaction: discord.Interaction, game_id: int | None, from_button: bool) -> None:
        async def body() -> None:
            gid = game_id if game_id is not None else (await self.table_here(interaction)).id
            table = await self.service.leave(gid, interaction.user.id)
            await self._lobby_changed(interaction, table, from_button, texts.LEFT)

        await self.guarded(interaction, body)

    async def _lobby_changed(
        self, interaction: discord.Interaction, table: Table, from_button: bool, note: str
    ) -> None:
        lobby_view = ui.lobby_view(table.id) if table.record.status == "lobby" else None
        if from_button:
            await interaction.response.edit_message(content=texts.lobby_text(table), view=lobby_view)
            return
        await self.say(interaction, note)
        await self._edit_lobby(table, lobby_view)

    async def _edit_lobby(self, table: Table, lobby_view: discord.ui.View | None) -> None:
        mid = table.record.options.get("lobby_message")
        if not mid:
            return
        try:
            await (
                self.channel(table.record.channel_id)
                .get_partial_message(int(mid))
                .edit(content=texts.lobby_text(table), view=lobby_view)
            )
        except discord.HTTPException:
            log.warning("could not update the lobby message of game %s", table.id)

    async def start(self, interaction: discord.Interaction, game_id: int | None, from_button: bool) -> None:
        async def body() -> None:
            gid = game_id if game_id is not None else (await self.table_here(interaction)).id
            if not from_button:
                await self.defer_private(interaction)
            # Starting only deals and saves (fast), so a button can answer by editing the lobby at once;
            # a refusal then stays a fresh ephemeral answer.
            outcome = await self.service.start(gid, interaction.user.id)
            interaction.extras["speaker"] = outcome.table.speaker
            log.info(
                "game started game=%s channel=%s user=%s players=%s",
                gid,
                outcome.table.record.channel_id,
                interaction.user.id,
                len(outcome.table.record.seats),
            )
            if from_button:
                await interaction.response.edit_message(content=texts.lobby_text(outcome.table), view=None)
            else:
                await self._edit_lobby(outcome.table, None)
                await self.say(interaction, texts.STARTED)
            await self.publish(outcome)

        await self.guarded(interaction, body)

    # --- publishing ---------------------------------------------------------------------------------------

    async def publish(self, outcome: Outcome) -> None:
        """Tell the channel what happened: edit the turn message, or close it and post the next one.

        Called only after the store committed. A failure to post is logged and swallowed: the game is saved,
        and ``/alexandros board`` posts the picture again.
        """
        table = outcome.table
        state = outcome.state
        svc = self.service
        public = view(state, None)
        try:
            if state.over:
                picture = await self.pictures.end(public, table.names)
            else:
                picture = await self.pictures.board(public, table.names)
            channel = self.channel(table.record.channel_id)
            post = await svc.turn_post(table.id)
            new_turn = outcome.new_turn_version
            if post is not None:
                mid, since, pinged = post
                upto = new_turn if new_turn is not None else None
                turn_events = await svc.events_since(table.id, since)
                if upto is not None:
                    turn_events = turn_events[: max(0, upto - since)]
                closing = new_turn is not None or state.over
                header = texts.turn_header(outcome.before if closing else table, pinged)
                content = texts.turn_text(table, header, turn_events, closed=closing)
                message = channel.get_partial_message(mid)
                try:
                    if closing:
                        await message.edit(content=content, view=None)
                    else:
                        await message.edit(
                            content=content, attachments=[png(picture)], view=ui.turn_view(table)
                        )
                except discord.HTTPException:
                    log.warning("could not edit the turn message of game %s", table.id)
                    if not closing:  # post a fresh one below instead
                        new_turn = new_turn or since
            if state.over:
                await channel.send(
                    texts.end_text(table),
                    file=png(picture, "end.png", texts.ALT_END),
                    allowed_mentions=discord.AllowedMentions(
                        users=[discord.Object(u) for u in table.record.user_ids]
                    ),
                )
                return
            if new_turn is not None:
                await self._post_turn(table, new_turn, picture, outcome.events, outcome.base_version)
        except discord.HTTPException:
            log.warning("could not post to the channel of game %s", table.id, exc_info=True)

    async def _post_turn(
        self, table: Table, since: int, picture: bytes, events: Sequence[Any], base_version: int
    ) -> None:
        svc = self.service
        uid = table.current_user
        assert uid is not None
        pinged = await svc.last_pinged(table.id, uid)
        header = texts.turn_header(table, pinged)
        turn_events = [e for i, e in enumerate(events) if base_version + i + 1 >= since]
        msg = await self.channel(table.record.channel_id).send(
            texts.turn_text(table, header, turn_events),
            file=png(picture, "board.png", texts.ALT_BOARD),
            view=ui.turn_view(table),
            allowed_mentions=discord.AllowedMentions(users=[discord.Object(uid)]),
        )
        await svc.set_turn_post(table.id, msg.id, since, pinged)
        await svc.set_pinged(table.id, uid)
        started = table.record.turn_started_at or svc.clock()
        await svc.schedule_reminder(table.id, uid, since, started, version=table.version)
        await svc.schedule_deadline(table, since, started)

    async def act(
        self,
        interaction: discord.Interaction,
        game_id: int | None,
        make: Callable[[GameState, int], Action],
        expected_version: int | None = None,
        done: str = texts.DONE,
        update: bool = False,
    ) -> None:
        """Apply one action for the interaction's user, answer privately, and publish the outcome."""

        async def body() -> None:
            if update:
                await self.defer_update(interaction)
            else:
                await self.defer_private(interaction)
            gid = game_id if game_id is not None else (await self.table_here(interaction)).id
            if game_id is not None:
                await self.table_of(interaction, gid)
            outcome = await self.service.act(gid, interaction.user.id, make, expected_version)
            log_outcome(outcome, interaction.user.id, interaction_kind(interaction))
            seat = outcome.table.seat_of(interaction.user.id)
            mine = outcome.table.speaker.event_lines([redact(e, seat) for e in outcome.events])
            await self.show(interaction, texts.action_summary(done, mine), view=None)
            await self.publish(outcome)

        await self.guarded(interaction, body)

    # --- reminders ----------------------------------------------------------------------------------------

    async def remind(self, now: float) -> int:
        """One round of the clock: apply each table's policy to the turns past their deadline (skip, or the
        computer plays), then ping every player whose turn has waited past their reminder time and plan
        their next reminder. Returns how many reminders went out.

        Everything due is in the store, so the first round after a restart catches up on what came due
        while the bot was down: each overdue turn is handled once, each waiting player reminded once.
        """
        try:
            async with self.service.in_flight():
                return await self._remind(now)
        except Refused:  # shutting down: the next start catches up
            return 0

    async def _remind(self, now: float) -> int:
        for outcome in await self.service.overdue(now):
            try:
                await self._announce_overdue(outcome)
            except Exception:  # one game's failure must not hold up the others; the turn is saved
                rec = outcome.table.record
                log.exception(
                    "announcing an overdue turn failed: game=%s channel=%s user=%s",
                    rec.id,
                    rec.channel_id,
                    outcome.before.current_user,
                )
        sent = 0
        for notice, table in await self.service.due_reminders(now):
            try:
                sent += await self._send_reminder(notice, table, now)
            except Exception:
                log.exception(
                    "a reminder failed: game=%s channel=%s user=%s",
                    table.id,
                    table.record.channel_id,
                    notice.user_id,
                )
        return sent

    async def _announce_overdue(self, outcome: Outcome) -> None:
        table = outcome.table
        hours = float(table.record.options.get("deadline_hours") or 0)
        absent = outcome.before.current_user
        log_outcome(outcome, absent, "computer" if outcome.by_computer else "deadline")
        if outcome.by_computer:
            lines = table.speaker.event_lines([redact(e, None) for e in outcome.events])
            text = texts.autoplay_text(table, absent, lines, hours)
        else:
            text = texts.skipped_text(absent, hours)
        try:
            await self.channel(table.record.channel_id).send(text)
        except discord.HTTPException:
            log.warning("could not announce an overdue turn in game %s", table.id)
        await self.publish(outcome)

    async def _send_reminder(self, notice: Notice, table: Table, now: float) -> int:
        uid = table.current_user
        assert uid is not None and table.state is not None
        started = float(notice.payload.get("started") or table.record.turn_started_at or now)
        try:
            await self.channel(table.record.channel_id).send(
                texts.reminder_text(table, uid, started),
                allowed_mentions=discord.AllowedMentions(users=[discord.Object(uid)]),
            )
        except discord.HTTPException:
            log.warning("could not post a reminder in game %s", table.id)
            return 0
        log.info("reminder game=%s channel=%s user=%s", table.id, table.record.channel_id, uid)
        await self.service.set_pinged(table.id, uid)
        await self.service.schedule_reminder(
            table.id, uid, int(notice.payload.get("since", 0)), started, now, version=table.version
        )
        return 1

    async def reminder_settings(
        self, interaction: discord.Interaction, hours: float | None, quiet: str | None, time_zone: str | None
    ) -> None:
        """A player's own reminder interval, quiet hours and time zone (checked by bot.schedule)."""

        async def body() -> None:
            store = self.service.store
            uid = interaction.user.id
            current = await store.get_user_settings(uid)
            changes: dict[str, Any] = {}
            if hours is not None:
                changes["reminder_hours"] = hours
            if time_zone is not None:
                changes["time_zone"] = time_zone.strip()
            if quiet is not None:
                q = quiet.strip().lower()
                if q in ("off", "none", "-", ""):
                    changes["quiet_start"] = changes["quiet_end"] = None
                else:
                    start, sep, end = q.partition("-")
                    if not sep:
                        await self.say(interaction, texts.QUIET_HOURS_FORMAT)
                        return
                    changes["quiet_start"], changes["quiet_end"] = start.strip(), end.strip()
            merged = {**current, **changes}
            try:
                prefs = ReminderPrefs.from_settings({k: v for k, v in merged.items() if v is not None})
            except ValueError as err:
                await self.say(interaction, str(err))
                return
            if changes:
                await store.update_user_settings(uid, changes, self.service.clock())
            await self.say(interaction, texts.reminder_settings_text(prefs, saved=bool(changes)))

        await self.guarded(interaction, body)

    # --- playing over days ---------------------------------------------------------------------------------

    async def waiting(self, interaction: discord.Interaction) -> None:
        """``/alexandros waiting``: every game on any server that waits on the asking user, with links."""

        async def body() -> None:
            entries = await self.service.waiting_on(interaction.user.id)
            deadlines: dict[int, float] = {}
            for record, _ in entries:
                hours = record.options.get("deadline_hours")
                if hours and record.turn_started_at:
                    deadlines[record.id] = record.turn_started_at + float(hours) * 3600
            await self.say(interaction, texts.waiting_text(entries, deadlines))

        await self.guarded(interaction, body)

    async def nudge(self, interaction: discord.Interaction) -> None:
        """``/alexandros nudge``: a public poke that pings only the waiting player (once a day per game)."""

        async def body() -> None:
            table = await self.table_here(interaction)
            table = await self.service.nudge(table.id, interaction.user.id)
            waiting = table.current_user
            assert waiting is not None
            log.info(
                "nudge game=%s channel=%s user=%s waiting=%s",
                table.id,
                table.record.channel_id,
                interaction.user.id,
                waiting,
            )
            await interaction.response.send_message(
                texts.nudge_text(table, waiting, display_name(interaction.user)),
                allowed_mentions=discord.AllowedMentions(users=[discord.Object(waiting)]),
            )

        await self.guarded(interaction, body)

    async def back(self, interaction: discord.Interaction) -> None:
        """``/alexandros back``: the player takes their seat back from the computer."""

        async def body() -> None:
            table = await self.table_here(interaction)
            table, due = await self.service.take_seat_back(table.id, interaction.user.id)
            log.info(
                "back game=%s channel=%s user=%s", table.id, table.record.channel_id, interaction.user.id
            )
            await self.say(interaction, texts.back_text(table, due))
            try:
                await self.channel(table.record.channel_id).send(texts.back_public_text(interaction.user.id))
            except discord.HTTPException:
                log.warning("could not announce a return in game %s", table.id)

        await self.guarded(interaction, body)

    # --- information --------------------------------------------------------------------------------------

    async def hand(self, interaction: discord.Interaction, game_id: int | None) -> None:
        async def body() -> None:
            await self.defer_private(interaction)
            table = await (
                self.table_of(interaction, game_id) if game_id is not None else self.table_here(interaction)
            )
            seat = self.service.seat_for(table, interaction.user.id)
            state = self.service.playing(table)
            mine = view(state, seat)
            picture = await self.pictures.hand(mine, table.speaker.seat(seat))
            await self.say(
                interaction, texts.hand_text(table, seat), file=png(picture, "hand.png", texts.ALT_HAND)
            )

        await self.guarded(interaction, body)

    async def board(self, interaction: discord.Interaction) -> None:
        async def body() -> None:
            table = await self.table_shown_here(interaction)
            if table.record.status != "playing":
                await self._board_after_the_game(interaction, table)
                return
            state = self.service.playing(table)
            await interaction.response.defer(thinking=True)
            interaction.extras["mode"] = "public"
            picture = await self.pictures.board(view(state, None), table.names)
            await interaction.edit_original_response(
                content=texts.status_text(table), attachments=[png(picture)], view=ui.turn_view(table)
            )
            if await self.service.turn_post(table.id) is None:
                # The turn message was never posted (Discord was down): this one takes its place.
                msg = await interaction.original_response()
                await self.service.set_turn_post(table.id, msg.id, table.version, None)

        await self.guarded(interaction, body)

    async def _board_after_the_game(self, interaction: discord.Interaction, table: Table) -> None:
        """The board of a game that ended (or was abandoned): its last picture, without buttons."""
        state = table.state
        if table.record.status == "lobby":
            raise Refused("bot/not-started")
        if state is None:  # a table closed in the lobby has no board; its lobby text says so
            await self.say(interaction, texts.status_text(table))
            return
        await interaction.response.defer(thinking=True)
        interaction.extras["mode"] = "public"
        public = view(state, None)
        picture = await (
            self.pictures.end(public, table.names) if state.over else self.pictures.board(public, table.names)
        )
        await interaction.edit_original_response(
            content=texts.status_text(table), attachments=[png(picture)], view=None
        )

    async def status(self, interaction: discord.Interaction) -> None:
        async def body() -> None:
            table = await self.table_shown_here(interaction)
            votes = await self.service.votes(table) if table.record.status == "playing" else set()
            await self.say(interaction, texts.status_text(table, votes))

        await self.guarded(interaction, body)

    async def log_(self, interaction: discord.Interaction, count: int) -> None:
        async def body() -> None:
            table = await self.table_shown_here(interaction)
            seat = table.seat_of(interaction.user.id)
            events = await self.service.last_events(table.id, max(40, count * 6))
            lines = table.speaker.event_lines([redact(e, seat) for e in events])[-count:]
            await self.say(interaction, texts.log_text(lines))

        await self.guarded(interaction, body)

    async def rules_summary(self, interaction: discord.Interaction) -> None:
        await self.guarded(interaction, lambda: self.say(interaction, rules_summary(self.rules_url)))

    # --- leaving and ending -------------------------------------------------------------------------------

    async def resign(self, interaction: discord.Interaction) -> None:
        async def body() -> None:
            await self.defer_private(interaction)
            table = await self.table_here(interaction)
            outcome = await self.service.resign(table.id, interaction.user.id)
            log_outcome(outcome, interaction.user.id, "command alexandros resign")
            await self.say(interaction, texts.RESIGNED)
            await self.channel(table.record.channel_id).send(
                texts.resigned_public(table.speaker.seat(table.seat_of(interaction.user.id)))
            )
            await self.publish(outcome)

        await self.guarded(interaction, body)

    async def abandon(self, interaction: discord.Interaction) -> None:
        async def body() -> None:
            table = await self.table_here(interaction)
            perms = getattr(interaction.user, "guild_permissions", None)
            can_manage = bool(perms and perms.manage_channels)
            await self.service.abandon(table.id, interaction.user.id, can_manage)
            by = display_name(interaction.user)
            await interaction.response.send_message(texts.abandoned_text(table.id, by))
            if table.record.status == "lobby":
                await self._edit_lobby(await self.service.table_by_id(table.id), None)
            else:
                post = await self.service.turn_post(table.id)
                if post is not None:
                    try:
                        await (
                            self.channel(table.record.channel_id).get_partial_message(post[0]).edit(view=None)
                        )
                    except discord.HTTPException:
                        pass

        await self.guarded(interaction, body)

    async def agree(self, interaction: discord.Interaction) -> None:
        async def body() -> None:
            await self.defer_private(interaction)
            table = await self.table_here(interaction)
            _, waiting, outcome = await self.service.agree(table.id, interaction.user.id)
            if outcome is None:
                names = ", ".join(table.speaker.seat(s) for s in waiting)
                await self.say(interaction, texts.agree_noted(names))
                await self.channel(table.record.channel_id).send(
                    texts.agree_proposed(display_name(interaction.user), names)
                )
                return
            await self.say(interaction, texts.ALL_AGREED)
            await self.publish(outcome)

        await self.guarded(interaction, body)

    # --- guided flows (ephemeral, re-openable from the turn message) ---------------------------------------

    def _check_version(self, table: Table, version: int) -> GameState:
        state = self.service.playing(table)
        if table.version != version:
            raise Refused("game/stale", expected=version, actual=table.version)
        return state

    def _my_turn(self, table: Table, user_id: int) -> tuple[GameState, int]:
        state = self.service.playing(table)
        seat = self.service.seat_for(table, user_id)
        if state.current != seat:
            raise Refused("game/not-your-turn", player=seat, current=state.current)
        return state, seat

    async def move_start(self, interaction: discord.Interaction, game_id: int, version: int) -> None:
        """The Move button: pick a card (step 1 of the guided move)."""

        async def body() -> None:
            table = await self.table_of(interaction, game_id)
            state, seat = self._my_turn(table, interaction.user.id)
            if state.phase is not Phase.MOVE:
                raise Refused("turn/already-moved")
            cards = ch.card_choices(state)
            if not cards:
                raise Refused("bot/no-moves")
            await self.say(
                interaction,
                texts.MOVE_STEP_1,
                view=ui.select_view(ui.cid_select("mc", table.id, table.version), texts.PICK_CARD, cards),
            )

        await self.guarded(interaction, body)

    async def move_card(
        self, interaction: discord.Interaction, game_id: int, version: int, card: str
    ) -> None:
        """Step 2: the labelled points for the chosen card, on a preview picture."""

        async def body() -> None:
            await self.defer_update(interaction)
            table = await self.table_of(interaction, game_id)
            state = self._check_version(table, version)
            _, seat = self._my_turn(table, interaction.user.id)
            mc = ch.parse_card(state, card)
            targets = rules.targets(state, mc.symbol)
            dests = ch.destination_choices(state, mc, table.speaker, point_letters(targets))
            picture = await self.pictures.move_preview(view(state, seat), targets, mc.symbol, table.names)
            await self.show(
                interaction,
                texts.move_step_2(ch.card_label(state, mc), ch.MAX_CHOICES, len(dests)),
                file=png(picture, "move.png", texts.ALT_MOVE),
                view=ui.select_view(
                    ui.cid_select("mt", table.id, version, card), texts.PICK_POINT, dests[: ch.MAX_CHOICES]
                ),
            )

        await self.guarded(interaction, body)

    async def move_point(
        self, interaction: discord.Interaction, game_id: int, version: int, card: str, to: str
    ) -> None:
        """Step 3: the numbered paths to the chosen point."""

        async def body() -> None:
            table, state, seat, dest, paths = await self._move_step(interaction, game_id, version, card, to)
            if len(paths) == 1:
                await self._confirm_move(interaction, table, state, seat, card, to, "1", paths)
                return
            picture = await self.pictures.path_preview(
                view(state, seat), dest.corner.point, paths, table.names
            )
            await self.show(
                interaction,
                texts.move_step_3(len(paths), to.split("@")[0]),
                file=png(picture, "paths.png", texts.ALT_PATHS),
                view=ui.select_view(
                    ui.cid_select("mp", table.id, version, card, to),
                    texts.PICK_PATH,
                    ch.path_choices(state, dest.corner.point),
                ),
            )

        await self.guarded(interaction, body)

    async def move_path(
        self, interaction: discord.Interaction, game_id: int, version: int, card: str, to: str, path: str
    ) -> None:
        async def body() -> None:
            table, state, seat, _, paths = await self._move_step(interaction, game_id, version, card, to)
            await self._confirm_move(interaction, table, state, seat, card, to, path, paths)

        await self.guarded(interaction, body)

    async def _move_step(
        self, interaction: discord.Interaction, game_id: int, version: int, card: str, to: str
    ) -> tuple[Table, GameState, int, ch.Destination, list[rules.PathOption]]:
        """What the later steps of the guided move share: the game, the chosen card and point, the paths."""
        await self.defer_update(interaction)
        table = await self.table_of(interaction, game_id)
        state = self._check_version(table, version)
        _, seat = self._my_turn(table, interaction.user.id)
        mc = ch.parse_card(state, card)
        dest = ch.parse_destination(state, mc, to)
        return table, state, seat, dest, ch.legal_paths(state, dest.corner.point)

    async def _confirm_move(
        self,
        interaction: discord.Interaction,
        table: Table,
        state: GameState,
        seat: int,
        card: str,
        to: str,
        path: str,
        paths: Sequence[rules.PathOption],
    ) -> None:
        option = ch.parse_path(
            state, ch.parse_destination(state, ch.parse_card(state, card), to).corner.point, path
        )
        picture = await self.pictures.path_preview(
            view(state, seat), option.points[-1], [option], table.names
        )
        label = ch.path_label(int(path), option)
        await self.show(
            interaction,
            texts.move_confirm(ch.card_label(state, ch.parse_card(state, card)), label),
            file=png(picture, "path.png", texts.ALT_PATH),
            view=ui.confirm_view(ui.cid_button("mgo", table.id, table.version, card, to, path)),
        )

    async def move_go(
        self, interaction: discord.Interaction, game_id: int, version: int, card: str, to: str, path: str
    ) -> None:
        await self.act(
            interaction,
            game_id,
            lambda st, seat: ch.move_action(st, seat, card, to, path),
            expected_version=version,
            done=texts.MOVED,
            update=True,
        )

    async def move_command(
        self, interaction: discord.Interaction, card: str | None, to: str | None, path: str | None
    ) -> None:
        """``/alexandros move``: with every value, move at once; with some missing, show what is allowed."""

        async def body() -> None:
            table = await self.table_here(interaction)
            state, seat = self._my_turn(table, interaction.user.id)
            if state.phase is not Phase.MOVE:
                raise Refused("turn/already-moved")
            if card is None:
                cards = ch.card_choices(state)
                await self.say(
                    interaction,
                    texts.PICK_MOVE_CARD,
                    view=ui.select_view(ui.cid_select("mc", table.id, table.version), texts.PICK_CARD, cards),
                )
                return
            mc = ch.parse_card(state, card)
            if to is None:
                await self.defer_private(interaction)
                dests = ch.destination_choices(
                    state, mc, table.speaker, point_letters(rules.targets(state, mc.symbol))
                )
                picture = await self.pictures.move_preview(
                    view(state, seat), rules.targets(state, mc.symbol), mc.symbol, table.names
                )
                await self.say(
                    interaction,
                    texts.move_points(ch.card_label(state, mc), [c.value.split("@")[0] for c in dests]),
                    file=png(picture, "move.png", texts.ALT_MOVE),
                    view=ui.select_view(
                        ui.cid_select("mt", table.id, table.version, ch.card_code(mc)),
                        texts.PICK_POINT,
                        dests[: ch.MAX_CHOICES],
                    ),
                )
                return
            dest = ch.parse_destination(state, mc, to)
            paths = ch.legal_paths(state, dest.corner.point)
            offered = any(d.corner.point == dest.corner.point for d in ch.destinations(state, mc))
            if path is None and len(paths) > 1 and offered:
                await self.defer_private(interaction)
                picture = await self.pictures.path_preview(
                    view(state, seat), dest.corner.point, paths, table.names
                )
                await self.say(
                    interaction,
                    texts.move_paths(len(paths)),
                    file=png(picture, "paths.png", texts.ALT_PATHS),
                    view=ui.select_view(
                        ui.cid_select("mp", table.id, table.version, ch.card_code(mc), to),
                        texts.PICK_PATH,
                        ch.path_choices(state, dest.corner.point),
                    ),
                )
                return
            await self.act(
                interaction,
                table.id,
                lambda st, s: ch.move_action(st, s, card, to, path if (path or offered) else "1"),
                expected_version=table.version,
                done=texts.MOVED,
            )

        await self.guarded(interaction, body)

    async def actions_menu(self, interaction: discord.Interaction, game_id: int, version: int) -> None:
        async def body() -> None:
            table = await self.table_of(interaction, game_id)
            state, seat = self._my_turn(table, interaction.user.id)
            if state.phase is Phase.MOVE:
                raise Refused("turn/move-first")
            menu = ch.action_menu(state, seat, table.speaker)
            await self.say(
                interaction,
                texts.actions_prompt(table),
                view=ui.select_view(ui.cid_select("act", table.id, table.version), texts.PICK_ACTION, menu),
            )

        await self.guarded(interaction, body)

    async def action_picked(
        self, interaction: discord.Interaction, game_id: int, version: int, value: str
    ) -> None:
        kind, _, arg = value.partition(":")
        menu_actions: dict[str, tuple[Callable[[GameState, int, str], Action], str]] = {
            "take": (ch.take_action, texts.TOOK_CARD),
            "levy": (ch.levy_action, texts.LEVIED),
            "back": (ch.takeback_action, texts.TOOK_GUARD_BACK),
        }
        if kind in menu_actions:
            make, done = menu_actions[kind]
            await self.act(
                interaction, game_id, lambda st, s: make(st, s, arg), version, done=done, update=True
            )
        elif kind == "occ":
            await self.province(interaction, game_id, int(arg), version, update=True)
        else:
            await self.act(interaction, game_id, ch.end_action, version, done=texts.TURN_OVER, update=True)

    async def province(
        self,
        interaction: discord.Interaction,
        game_id: int | None,
        province_value: Any,
        version: int | None,
        update: bool = False,
        takeover: bool | None = None,
    ) -> None:
        """Occupy or take over: a preview of the province with the cheapest plan, then pick the guards."""

        async def body() -> None:
            if update:
                await self.defer_update(interaction)
            else:
                await self.defer_private(interaction)
            table = await (
                self.table_of(interaction, game_id) if game_id is not None else self.table_here(interaction)
            )
            state, seat = self._my_turn(table, interaction.user.id)
            if version is not None:
                self._check_version(table, version)
            pid = ch.parse_province(state, province_value)
            try:
                p = rules.check_province_action(state, seat, pid, takeover)
            except IllegalAction as refused:
                raise Refused(refused.code, **refused.details) from refused
            owner = rules.province_owner(state, p)
            plan = rules.plan_occupation(state, seat, p)
            if plan is not None and not plan.affordable:
                if owner is None:
                    raise Refused("occupy/missing-cards", missing=plan.missing, cost=plan.cost)
                raise Refused(
                    "takeover/missing-cards", missing=plan.missing, removal=plan.removal, cost=plan.cost
                )
            picture = await self.pictures.province_preview(view(state, seat), pid, plan, table.names)
            spaces = ch.guard_space_choices(state, pid, table.speaker)
            guards_left = state.players[seat].guards_in_supply
            text = texts.province_prompt(
                owner is not None,
                pid,
                table.speaker.spaces(plan.guards) if plan else "-",
                cards_text(plan.paid) if plan else "-",
                guards_left,
            )
            gview = ui.province_view(
                table.id,
                table.version,
                pid,
                spaces,
                guards_left,
                ch.spaces_code(plan.guards) if plan else None,
            )
            await self.show(
                interaction, text, file=png(picture, "province.png", texts.ALT_PROVINCE), view=gview
            )

        await self.guarded(interaction, body)

    async def guards_chosen(
        self,
        interaction: discord.Interaction,
        game_id: int,
        version: int,
        pid: int,
        guards: Sequence[str] | str,
    ) -> None:
        """Guards picked: apply at once, or ask which paid cards the loser gets (take-over, 3-4 players)."""

        async def body() -> None:
            table = await self.table_of(interaction, game_id)
            state = self._check_version(table, version)
            _, seat = self._my_turn(table, interaction.user.id)
            spaces = (
                ch.parse_spaces(guards)
                if isinstance(guards, str)
                else tuple(ch.parse_space(g) for g in guards)
            )
            size = ch.compensation_size(state, seat, pid, spaces)
            if size == 0:
                await self.act(
                    interaction,
                    game_id,
                    lambda st, s: ch.occupy_action(st, s, pid, spaces),
                    version,
                    done=texts.province_taken(pid),
                    update=True,
                )
                return
            await self.defer_update(interaction)
            paid = ch.paid_cards(state, seat, pid, spaces)
            hand = state.players[seat].hand
            if not contains(hand, paid):
                p = state.province_by_id[pid]
                raise Refused(
                    "takeover/missing-cards",
                    missing=missing(hand, paid),
                    removal=rules.removal_cost(state, p),
                    cost=rules.occupation_cost(state, p, spaces),
                )
            owner = rules.province_owner(state, state.province_by_id[pid])
            await self.show(
                interaction,
                texts.compensation_prompt(pid, cards_text(paid), size, table.speaker.seat(owner)),
                view=ui.select_view(
                    ui.cid_select("tc", table.id, version, pid, ch.spaces_code(spaces)),
                    texts.pick_cards(size),
                    ch.compensation_choices(paid),
                    size,
                    size,
                ),
            )

        await self.guarded(interaction, body)

    async def compensation_chosen(
        self,
        interaction: discord.Interaction,
        game_id: int,
        version: int,
        pid: int,
        guards: str,
        values: Sequence[str],
    ) -> None:
        spaces = ch.parse_spaces(guards)
        await self.act(
            interaction,
            game_id,
            lambda st, s: ch.occupy_action(st, s, pid, spaces, ch.parse_compensation(values)),
            version,
            done=texts.province_taken(pid),
            update=True,
        )
