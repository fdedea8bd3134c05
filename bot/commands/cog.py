"""The slash commands: one group ``/alexandros`` with a subcommand per turn action and per question, and
``/alexandros-admin sync``. Options are autocompleted from the engine's answers (bot.texts.choices);
autocomplete cannot be deferred, so it reads the cached state and answers at once.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from engine import rules
from engine.packaged import PACKAGED_MAPS
from engine.state import GameState, Phase

from ..games.pictures import point_letters
from ..games.schedule import time_zones
from ..games.tables import Refused, Table, names_of
from ..process import limits, outages
from ..texts import choices as ch
from ..texts import private
from ..texts.freeing import answered_anyway, let_go
from ..words import i18n
from ..words.words import Speaker
from .answers import InFlight, guarded, last_word

if TYPE_CHECKING:
    from .router import Handlers

log = logging.getLogger("bot")

Choices = list[app_commands.Choice[str]]


LEVEL_CHOICES = [
    app_commands.Choice(name="easy (random)", value="easy"),
    app_commands.Choice(name="normal (greedy)", value="normal"),
    app_commands.Choice(name="hard (searches)", value="hard"),
]

# Autocomplete stays empty for these: nothing the asker could pick, and nothing to explain in a list.
_SILENT = {"bot/no-game", "bot/game-over", "bot/not-a-player", "bot/not-started", "bot/closed"}


def _out(items: list[ch.Choice], typed: str) -> Choices:
    return [app_commands.Choice(name=c.line, value=c.value[:100]) for c in ch.filtered(items, typed)]


class AlexandrosCog(commands.Cog):
    """``/alexandros …``: everything a player or spectator does."""

    group = app_commands.Group(
        name="alexandros", description="Play Alexandros in this channel", guild_only=True
    )

    def __init__(self, bot: commands.AutoShardedBot, handlers: Handlers) -> None:
        self.bot = bot
        self.h = handlers

    # --- autocomplete helpers -------------------------------------------------------------------------------

    async def _suggest(
        self,
        interaction: discord.Interaction,
        typed: str,
        make: Callable[[Table, GameState, int], list[ch.Choice]],
        need_phase: Phase | None,
    ) -> Choices:
        return await self._offer(interaction, await self._choices(interaction, typed, make, need_phase))

    async def _offer(self, interaction: discord.Interaction, choices: Choices) -> Choices:
        """Answer an autocomplete here rather than by discord.py once the handler returns (it answers only
        an interaction not yet answered), so that the interaction is let go once answered (bot.texts.freeing).
        """
        try:
            await interaction.response.autocomplete(choices)
        except outages.ANY_FAILURE as error:
            # Discord's failure, or the member typed on (Discord takes only the newest list): a warning,
            # not an error of ours (bot.process.outages). The next keystroke asks again.
            log.warning("Discord failed an autocomplete's answer (%s)", outages.described(error))
            answered_anyway(interaction, discord.InteractionResponseType.autocomplete_result)
        finally:
            let_go(interaction)
        return choices

    async def _choices(
        self,
        interaction: discord.Interaction,
        typed: str,
        make: Callable[[Table, GameState, int], list[ch.Choice]],
        need_phase: Phase | None,
    ) -> Choices:
        i18n.set_language(interaction.locale)  # the asking user's language, as ``answers.guarded`` does
        try:
            # Seat and turn from the game's record first: nobody but the player on turn sees the options.
            ask = self.h.ctx.ask(interaction, turn=False)
            record, seat = await self.h.ctx.pipeline.authorise(ask)
            if record.waiting_on != interaction.user.id:
                current = record.seat_of(record.waiting_on) if record.waiting_on is not None else None
                hint = private.not_your_turn_hint(Speaker(names_of(record)).seat(current))
                return [app_commands.Choice(name=hint, value="-")]
            table = await self.h.ctx.tables.load(record)
            if table.version != record.version:
                # A commit landed after the record was read (the turn may have ended): the state loaded is
                # newer, and its options may be the next player's hand. As Pipeline.look refuses.
                raise Refused("game/stale", expected=record.version, actual=table.version)
            state = table.playing()
            if need_phase is not None and state.phase is not need_phase:
                hint = (
                    private.move_first_hint() if need_phase is Phase.ACTIONS else private.already_moved_hint()
                )
                return [app_commands.Choice(name=hint, value="-")]
            items = make(table, state, seat)
            if not items:
                return [
                    app_commands.Choice(
                        name=private.nothing_to_choose(
                            interaction.command.name if interaction.command else ""
                        ),
                        value="-",
                    )
                ]
            return _out(items, typed)
        except Refused as refused:
            if refused.code in _SILENT:
                return []
            # An earlier option is missing or wrong (e.g. no card yet for "to"): say so in the list itself.
            text = Speaker().refusal(refused.code, refused.details)
            return [app_commands.Choice(name=limits.label(text), value="-")]
        except Exception:  # an autocomplete error must not show as a failure; the command itself will say why
            log.exception("autocomplete failed")
            return []

    # --- the lobby ------------------------------------------------------------------------------------------

    @group.command(name="new", description="Open a table for a new game in this channel (or a new thread)")
    @app_commands.describe(
        thread="Start the game in a new thread of this channel",
        deadline_hours="Hours a player has for a turn (no deadline if left out)",
        deadline_policy="After a deadline: skip the turn (default), or let the computer play it",
        map="The map (default: Alexander's Empire)",
        computer="How well the computer plays for a player absent past the deadline (default: normal)",
        hints="Players may ask for hints (/alexandros learn hint); the game is then not rated",
    )
    @app_commands.choices(
        deadline_policy=[
            app_commands.Choice(name="skip the turn", value="skip"),
            app_commands.Choice(name="the computer plays it", value="autoplay"),
        ],
        map=[app_commands.Choice(name=limits.label(f"{k}: {v}"), value=k) for k, v in PACKAGED_MAPS.items()],
        computer=LEVEL_CHOICES,
    )
    async def new(
        self,
        interaction: discord.Interaction,
        thread: bool = False,
        deadline_hours: app_commands.Range[int, 1, 720] | None = None,
        deadline_policy: str | None = None,
        map: str | None = None,  # noqa: A002 - the option's name, as players see it
        computer: str | None = None,
        hints: bool = False,
    ) -> None:
        await self.h.lobby.new(interaction, thread, deadline_hours, deadline_policy, map, computer, hints)

    # Discord allows 25 subcommands or subgroups in a group: the table's own commands (their buttons are
    # the usual way) and a player's personal ones live in subgroups, /alexandros table … and /alexandros me ….
    table = app_commands.Group(name="table", description="This channel's table before the game", parent=group)
    me = app_commands.Group(
        name="me", description="Yours: reminders, games waiting for you, your games", parent=group
    )

    @table.command(name="join", description="Sit down at this channel's table")
    async def join(self, interaction: discord.Interaction) -> None:
        await self.h.lobby.join(interaction, None, from_button=False)

    @table.command(name="add-computer", description="Seat a computer player (the table's creator)")
    @app_commands.describe(level="How well it plays: easy (random), normal (greedy) or hard")
    @app_commands.choices(level=LEVEL_CHOICES)
    async def add_computer(self, interaction: discord.Interaction, level: str = "normal") -> None:
        await self.h.lobby.add_computer(interaction, level)

    @table.command(name="leave", description="Leave this channel's table before the game starts")
    async def leave(self, interaction: discord.Interaction) -> None:
        await self.h.lobby.leave(interaction, None, from_button=False)

    @table.command(name="start", description="Start the game (the creator, with 2 to 4 players seated)")
    async def start(self, interaction: discord.Interaction) -> None:
        await self.h.lobby.start(interaction, None, from_button=False)

    # --- the turn -------------------------------------------------------------------------------------------

    @group.command(name="move", description="Move Alexander: pick a card, a point and a path")
    @app_commands.describe(
        card="The card: a face-up card, a hand card (special) or a joker",
        to="The point where Alexander stops, e.g. D7",
        path="Which shortest path (they differ in new walls)",
    )
    async def move(
        self, interaction: discord.Interaction, card: str, to: str | None = None, path: str | None = None
    ) -> None:
        await self.h.guided.command(interaction, card, to, path)

    @move.autocomplete("card")
    async def move_card_ac(self, interaction: discord.Interaction, current: str) -> Choices:
        return await self._suggest(interaction, current, lambda t, st, s: ch.card_choices(st), Phase.MOVE)

    @move.autocomplete("to")
    async def move_to_ac(self, interaction: discord.Interaction, current: str) -> Choices:
        card = interaction.namespace.card

        def make(t: Table, st: GameState, s: int) -> list[ch.Choice]:
            mc = ch.parse_card(st, card)
            return ch.destination_choices(st, mc, point_letters(rules.allowed_targets(st, mc.symbol)))

        return await self._suggest(interaction, current, make, Phase.MOVE)

    @move.autocomplete("path")
    async def move_path_ac(self, interaction: discord.Interaction, current: str) -> Choices:
        card, to = interaction.namespace.card, interaction.namespace.to

        def make(t: Table, st: GameState, s: int) -> list[ch.Choice]:
            return ch.path_choices(st, ch.parse_destination(st, ch.parse_card(st, card), to))

        return await self._suggest(interaction, current, make, Phase.MOVE)

    @group.command(name="take", description="Action: take a face-up card or the top card of the supply")
    @app_commands.describe(card="Face-up 1, face-up 2, or the supply")
    async def take(self, interaction: discord.Interaction, card: str) -> None:
        await self.h.turns.take(interaction, card)

    @take.autocomplete("card")
    async def take_ac(self, interaction: discord.Interaction, current: str) -> Choices:
        return await self._suggest(interaction, current, lambda t, st, s: ch.take_choices(st), Phase.ACTIONS)

    @group.command(name="occupy", description="Action: occupy a free province (then choose the guards)")
    @app_commands.describe(province="A free province you can afford, with its value and cost")
    async def occupy(self, interaction: discord.Interaction, province: str) -> None:
        await self.h.provinces.province(interaction, None, province, None, takeover=False)

    @occupy.autocomplete("province")
    async def occupy_ac(self, interaction: discord.Interaction, current: str) -> Choices:
        return await self._suggest(
            interaction, current, lambda t, st, s: ch.province_choices(st, s, False, t.speaker), Phase.ACTIONS
        )

    @group.command(
        name="takeover", description="Action: take over an opponent's province (then choose guards)"
    )
    @app_commands.describe(province="An opponent's province you can afford, with its value and cost")
    async def takeover(self, interaction: discord.Interaction, province: str) -> None:
        await self.h.provinces.province(interaction, None, province, None, takeover=True)

    @takeover.autocomplete("province")
    async def takeover_ac(self, interaction: discord.Interaction, current: str) -> Choices:
        return await self._suggest(
            interaction, current, lambda t, st, s: ch.province_choices(st, s, True, t.speaker), Phase.ACTIONS
        )

    @group.command(
        name="levy", description="Action: levy taxes, paying a card that matches one of your guards"
    )
    @app_commands.describe(card="A hand card matching the space under one of your guards")
    async def levy(self, interaction: discord.Interaction, card: str) -> None:
        await self.h.turns.levy(interaction, card)

    @levy.autocomplete("card")
    async def levy_ac(self, interaction: discord.Interaction, current: str) -> Choices:
        return await self._suggest(
            interaction, current, lambda t, st, s: ch.levy_choices(st, s, t.speaker), Phase.ACTIONS
        )

    @group.command(name="takeback", description="Action: take one of your guards back into your supply")
    @app_commands.describe(guard="One of your guards on the map")
    async def takeback(self, interaction: discord.Interaction, guard: str) -> None:
        await self.h.turns.takeback(interaction, guard)

    @takeback.autocomplete("guard")
    async def takeback_ac(self, interaction: discord.Interaction, current: str) -> Choices:
        return await self._suggest(
            interaction, current, lambda t, st, s: ch.guard_choices(st, s, t.speaker), Phase.ACTIONS
        )

    @group.command(name="end", description="End your turn (after moving and up to two actions)")
    async def end(self, interaction: discord.Interaction) -> None:
        await self.h.turns.end(interaction)

    # --- information ----------------------------------------------------------------------------------------

    @group.command(name="hand", description="See your hand (only you)")
    async def hand(self, interaction: discord.Interaction) -> None:
        await self.h.info.hand(interaction, None)

    @group.command(name="board", description="Post the current board picture again")
    async def board(self, interaction: discord.Interaction) -> None:
        await self.h.info.board(interaction)

    @group.command(name="status", description="Whose turn, actions and walls left, scores")
    async def status(self, interaction: discord.Interaction) -> None:
        await self.h.info.status(interaction)

    @group.command(name="log", description="The last events of this game")
    @app_commands.describe(count="How many events (1-30)")
    async def log(self, interaction: discord.Interaction, count: app_commands.Range[int, 1, 30] = 10) -> None:
        await self.h.info.log(interaction, count)

    @group.command(name="rules", description="A short summary of the rules")
    async def rules(self, interaction: discord.Interaction) -> None:
        await self.h.info.rules(interaction)

    @me.command(name="reminders", description="Your own reminder interval, quiet hours and time zone")
    @app_commands.describe(
        hours="Hours between reminders while your turn waits (0: no reminders)",
        quiet="Quiet hours in your time, like 22:00-08:00, or off",
        time_zone="Your time zone, like Europe/Paris or America/New_York",
        dm="Get your turn pings and reminders by direct message instead of in the channel",
    )
    async def reminders(
        self,
        interaction: discord.Interaction,
        hours: app_commands.Range[int, 0, 168] | None = None,
        quiet: str | None = None,
        time_zone: str | None = None,
        dm: bool | None = None,
    ) -> None:
        await self.h.over_days.reminder_settings(interaction, hours, quiet, time_zone, dm)

    @reminders.autocomplete("time_zone")
    async def time_zone_ac(self, interaction: discord.Interaction, current: str) -> Choices:
        """Autocomplete cannot be deferred: the zone list is read once and filtered in memory."""
        typed = current.strip().lower().replace(" ", "_")
        zones = sorted(z for z in time_zones() if typed in z.lower())
        zones.sort(key=lambda z: (not z.lower().startswith(typed), len(z)))
        return await self._offer(
            interaction, [app_commands.Choice(name=z, value=z) for z in limits.options(zones)]
        )

    # --- playing over days ---------------------------------------------------------------------------------

    @me.command(name="waiting", description="Every game, on any server, waiting for your turn (only you)")
    async def waiting(self, interaction: discord.Interaction) -> None:
        await self.h.over_days.waiting(interaction)

    @group.command(name="nudge", description="Remind the waiting player of this game (once a day per game)")
    async def nudge(self, interaction: discord.Interaction) -> None:
        await self.h.over_days.nudge(interaction)

    @group.command(name="back", description="Take your seat back: the computer stops playing your turns")
    async def back(self, interaction: discord.Interaction) -> None:
        await self.h.over_days.back(interaction)

    # --- the dashboard (bot.commands.dashboard)
    # ---------------------------------------------------------------------

    @me.command(name="games", description="Your games in this server: whose turn, since when, links")
    async def mygames(self, interaction: discord.Interaction) -> None:
        await self.h.dashboard.mygames(interaction)

    # --- leaving and ending ---------------------------------------------------------------------------------

    @group.command(
        name="resign", description="Leave the game: your guards leave the map, your seat is skipped"
    )
    async def resign(self, interaction: discord.Interaction) -> None:
        await self.h.turns.resign_prompt(interaction)

    @group.command(name="abandon", description="Close this channel's game (creator or Manage Channels)")
    async def abandon(self, interaction: discord.Interaction) -> None:
        await self.h.lobby.abandon(interaction)

    @group.command(name="agree", description="Agree to end the game now, scored as it stands")
    async def agree(self, interaction: discord.Interaction) -> None:
        await self.h.turns.agree(interaction)

    # --- ratings, leaderboard and replays (issue 16) -------------------------------------------------------
    # The two rating commands share one subgroup: /alexandros ratings leaderboard and … stats.

    ratings = app_commands.Group(
        name="ratings", description="Ratings of this server's players (openskill)", parent=group
    )

    @ratings.command(name="leaderboard", description="This server's best ratings (finished games only)")
    async def leaderboard(self, interaction: discord.Interaction) -> None:
        await self.h.history.leaderboard(interaction)

    @ratings.command(name="stats", description="A player's rating, games and wins on this server")
    @app_commands.describe(user="Whose stats (default: yours)")
    async def stats(self, interaction: discord.Interaction, user: discord.User | None = None) -> None:
        await self.h.history.stats(interaction, user)

    @group.command(name="replay", description="An animated replay of this channel's newest game")
    async def replay(self, interaction: discord.Interaction) -> None:
        await self.h.history.replay(interaction)

    @me.command(
        name="forget", description="Delete your settings and your name from finished games (asks first)"
    )
    async def forget_me(self, interaction: discord.Interaction) -> None:
        await self.h.privacy.forget_me(interaction)

    # --- seats over days: undo, substitutes, vacations, pausing (bot.commands.seats)
    # ---------------------------

    @group.command(
        name="vacation", description="Pause your deadlines and reminders for up to 14 days (0: back)"
    )
    @app_commands.describe(days="How many days (up to 14; 0 ends your vacation)")
    async def vacation(
        self, interaction: discord.Interaction, days: app_commands.Range[float, 0, 14]
    ) -> None:
        await self.h.seats.vacation(interaction, days)

    # Discord allows 25 subcommands in a group (this one is full now): the rest share a subgroup.
    game = app_commands.Group(
        name="game",
        description="Take back a step, hand over or replace a seat, pause or resume",
        parent=group,
    )

    @game.command(name="undo", description="Take back your last step of this turn (not past a revealed card)")
    async def undo(self, interaction: discord.Interaction) -> None:
        await self.h.seats.undo(interaction)

    @game.command(
        name="handover", description="Offer your seat to another member (they accept with a button)"
    )
    @app_commands.describe(to="The member who takes over your seat")
    # A member, not the point of ``move to``: a catalog context of its own ("an" in German, not "ziel").
    @app_commands.rename(to=app_commands.locale_str("to", context="handover"))
    async def handover(self, interaction: discord.Interaction, to: discord.Member) -> None:
        await self.h.seats.offer(interaction, to, None)

    @game.command(
        name="replace",
        description="Offer a gone player's seat to another member (creator or Manage Channels)",
    )
    @app_commands.describe(player="The player who has gone", with_="The member who takes over the seat")
    @app_commands.rename(with_="with")
    async def replace(
        self, interaction: discord.Interaction, player: discord.Member, with_: discord.Member
    ) -> None:
        await self.h.seats.offer(interaction, with_, player)

    @game.command(name="pause", description="Pause the whole game (creator or Manage Channels)")
    async def pause(self, interaction: discord.Interaction) -> None:
        await self.h.seats.pause(interaction, resume=False)

    @game.command(name="resume", description="Resume a paused game (creator or Manage Channels)")
    async def resume(self, interaction: discord.Interaction) -> None:
        await self.h.seats.pause(interaction, resume=True)

    # --- learning the game (issue 29) ----------------------------------------------------------------------
    # The group above had room for one more subcommand: the three ways to learn share it.

    learn = app_commands.Group(
        name="learn", description="Learn the game: a tutorial, a practice game, a hint", parent=group
    )

    @learn.command(name="practice", description="Play a practice game against computers in a new thread")
    @app_commands.describe(
        level="How well the computers play: easy (random), normal (greedy) or hard",
        players="Seats at the table, you included (2-4, default 2)",
    )
    @app_commands.choices(level=LEVEL_CHOICES)
    async def practice(
        self,
        interaction: discord.Interaction,
        level: str = "normal",
        players: app_commands.Range[int, 2, 4] = 2,
    ) -> None:
        await self.h.practice.open(interaction, level, players)

    @learn.command(
        name="hint", description="A good play for your turn and why (only you; not in rated games)"
    )
    async def hint(self, interaction: discord.Interaction) -> None:
        await self.h.hints.hint(interaction, None, None)

    @learn.command(
        name="tutorial", description="A private lesson of the rules in ten steps (about ten minutes)"
    )
    async def tutorial(self, interaction: discord.Interaction) -> None:
        await self.h.tutorial.start(interaction)


SYNC_LOCK = "command-sync"  # the store's exclusive() name: one process of a cluster syncs at a time


class AdminCog(commands.Cog):
    """``/alexandros-admin sync``: push the command list to Discord (never done on every start).

    Global commands are the application's, rate-limited per application: only its owner (or a member of
    its team) may sync them. A server's sync replaces that server's own copies: none normally (the global
    commands show there already; a copy would show every command twice), or the global commands in the
    bot's test server (``ALEXANDROS_TEST_GUILD``), where a copy is the point.

    Every command checks Manage Server itself (``_refused``): the group's default permissions only hide it
    in Discord's menus, and a server's Integrations settings may open it to anyone.
    """

    admin = app_commands.Group(
        name="alexandros-admin",
        description="Bot administration",
        default_permissions=discord.Permissions(manage_guild=True),
        guild_only=True,
    )

    def __init__(
        self, bot: commands.AutoShardedBot, test_guild: int | None = None, handlers: Handlers | None = None
    ) -> None:
        self.bot = bot
        self.test_guild = test_guild
        self.h = handlers

    async def _refused(self, interaction: discord.Interaction) -> bool:
        """Refuse (an ephemeral sentence) a member without Manage Server, or an interaction outside a server:
        whatever Discord's default permissions or the server's Integrations settings let through."""
        if interaction.guild_id is not None and interaction.permissions.manage_guild:
            return False
        i18n.set_language(interaction.locale)
        log.info("admin command refused: user=%s guild=%s", interaction.user.id, interaction.guild_id)
        await last_word(interaction, private.admin_manage_server())
        return True

    async def _guarded(self, interaction: discord.Interaction, body: Callable[[], Awaitable[None]]) -> None:
        """Run an admin command's own body as every handler runs (bot.commands.answers.guarded)."""
        if self.h is not None:
            await self.h.ctx.guard(interaction, body)
        else:
            await guarded(interaction, InFlight(), body)

    @admin.command(name="purge", description="Delete this server's finished games older than some days")
    @app_commands.describe(days="Finished and abandoned games last changed more than this many days ago")
    async def purge(self, interaction: discord.Interaction, days: app_commands.Range[int, 1, 3650]) -> None:
        assert self.h is not None
        if await self._refused(interaction):
            return
        await self.h.privacy.purge(interaction, days)

    @admin.command(name="web", description="Watching this server's games on the web: on, off, a new link")
    @app_commands.describe(
        watching="Let anyone with a game's link watch it on the web (on) or nobody (off)",
        new_link="Give this channel's game a new watch link (the old one stops working)",
    )
    async def web(
        self, interaction: discord.Interaction, watching: bool | None = None, new_link: bool = False
    ) -> None:
        assert self.h is not None
        await self.h.watching.admin(interaction, watching, new_link)

    @admin.command(
        name="sync", description="Sync the slash commands (this server, or everywhere: owner only)"
    )
    @app_commands.describe(everywhere="Sync the global commands (the bot's owner only)")
    async def sync(self, interaction: discord.Interaction, everywhere: bool = False) -> None:
        if await self._refused(interaction):
            return

        async def body() -> None:
            await interaction.response.defer(ephemeral=True, thinking=True)
            if everywhere and not await self.bot.is_owner(interaction.user):
                await interaction.edit_original_response(content=private.sync_owner_only())
                return
            # One process of a cluster at a time (the store's lock, shared by every process on the database).
            store = getattr(self.bot, "store", None)
            lock = store.exclusive(SYNC_LOCK) if store is not None else contextlib.nullcontext(True)
            async with lock as mine:
                if not mine:
                    await interaction.edit_original_response(content=private.sync_busy())
                    return
                done = await self._sync(interaction, everywhere)
            text = private.synced(len(done), everywhere=everywhere)
            await interaction.edit_original_response(content=text)

        await self._guarded(interaction, body)

    async def _sync(
        self, interaction: discord.Interaction, everywhere: bool
    ) -> list[app_commands.AppCommand]:
        tree = self.bot.tree
        if everywhere:
            return await tree.sync()
        guild = discord.Object(interaction.guild_id or 0)
        tree.clear_commands(guild=guild)
        if guild.id == self.test_guild:
            tree.copy_global_to(guild=guild)
        try:
            return await tree.sync(guild=guild)
        finally:
            tree.clear_commands(guild=guild)  # the copies live in Discord, not in this process's tree

    # --- ratings (issue 16) --------------------------------------------------------------------------------

    @admin.command(
        name="recompute-ratings", description="Recompute this server's ratings from its finished games"
    )
    async def recompute_ratings(self, interaction: discord.Interaction) -> None:
        assert self.h is not None, "the admin commands of ratings need the handlers"
        if await self._refused(interaction):
            return
        await self.h.history.recompute(interaction)
