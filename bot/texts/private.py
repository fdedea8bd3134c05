"""What one person reads: the private answers to their own interactions (what an action did, the steps of
a guided move, menus' prompts, reminder settings, autocomplete hints, refusals of old components, their
data, hints) and the direct messages sent to them. Each speaks the language in force: the asking user's.

Every sentence is a message of the catalogs (bot.words.i18n), a function so that it is worded in the
language speaking when it is asked for; the names shared with the public posts (a colour, a time, a link)
come from bot.texts.posts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from engine import rules
from engine.actions import Move, MoveWay, TakeBack
from engine.advice import Advice
from engine.state import Phase
from engine.symbols import Symbol, total
from storage import GameRecord

from ..games.schedule import ReminderPrefs
from ..games.tables import Table
from ..process.limits import MAX_OPTIONS
from ..process.limits import content as clip
from ..words import i18n, words
from ..words.i18n import N_, _, ngettext, pgettext
from ..words.words import cards_text, count
from .posts import can_do, jump_link, level_name, symbol_name, when


def computer_seated(level: str) -> str:
    return _(
        "A computer player ({level}) sits at the table; it plays its turns as soon as they come."
    ).format(level=level_name(level))


def hand_text(table: Table, seat: int) -> str:
    st = table.state
    assert st is not None
    hand = st.players[seat].hand
    p = st.players[seat]
    n = total(hand)
    return _("Your hand ({cards}): {hand}. Guards left to place: {guards}. Score: {score}.").format(
        cards=count(n, "card"), hand=cards_text(hand), guards=p.guards_in_supply, score=p.score
    )


# --- playing over days: reminders, deadlines, nudges, "waiting on me" ---------------------------------------


def back_text(table: Table, deadline: float | None) -> str:
    """``/alexandros back``; ``deadline`` is set when it is the player's turn now."""
    extra = (
        " "
        + _("It is your turn now; the computer plays it for you {when} if you do not.").format(
            when=when(deadline)
        )
        if deadline is not None
        else ""
    )
    return (
        _("Welcome back: the computer no longer plays for you in game {game}.").format(game=table.id) + extra
    )


def waiting_text(entries: Sequence[tuple[GameRecord, int | None]], deadline: dict[int, float]) -> str:
    """``/alexandros me waiting``: every game waiting on the asking player, across servers, with links."""
    if not entries:
        return _("No game is waiting for you. Enjoy the break!")
    n = len(entries)
    lines = [ngettext("**{n} game waiting for you**", "**{n} games waiting for you**", n).format(n=n)]
    for record, message_id in entries:
        fields = {
            "game": record.id,
            "link": jump_link(record.guild_id, record.channel_id, message_id),
            "since": when(record.turn_started_at),
        }
        if record.id in deadline:
            line = _("• Game {game}: {link} — your turn since {since}, deadline {deadline}.").format(
                **fields, deadline=when(deadline[record.id])
            )
        else:
            line = _("• Game {game}: {link} — your turn since {since}.").format(**fields)
        lines.append(line)
    return clip("\n".join(lines))


# --- private answers: the lobby, errors, leaving and ending -------------------------------------------------


def oops() -> str:
    return _("Something went wrong on my side. Your game is saved; try again, or use `/alexandros board`.")


def discord_failed() -> str:
    """Discord failed for a while (a 5xx, a timeout: bot.process.outages) before anything was saved."""
    return _("Discord did not take that just now. Try again in a moment; `/alexandros board` shows the game.")


def oops_applied() -> str:
    """After the change was committed: trying again would be refused (or would act twice), so it says so."""
    return _(
        "That went through, and the game has it; only this answer could not be shown. The channel shows "
        "the game as it is now, and `/alexandros board` shows it to you."
    )


def thread_needs_text_channel() -> str:
    return _("Threads can be made in text channels only; start it here instead.")


def joined() -> str:
    return _("You joined the table.")


def left() -> str:
    return _("You left the table.")


def started() -> str:
    return _("The game has started.")


def resign_prompt(game_id: int) -> str:
    return _(
        "**Resign from game {game}?** Your guards leave the map and your turns are skipped to the end, "
        "and this cannot be undone. Press **Resign** to confirm, or dismiss this message to play on."
    ).format(game=game_id)


def resigned() -> str:
    return _("You resigned. Your guards left the map; thanks for playing.")


def all_agreed() -> str:
    return _("Everyone agreed: the game ends now.")


def nothing_yet() -> str:
    return _("Nothing has happened yet.")


def thread_name(creator: str) -> str:
    return f"Alexandros — {creator}"


def opened_in(channel_id: int) -> str:
    return _("Your game is open in <#{channel}>.").format(channel=channel_id)


def practice_thread_name(player: str) -> str:
    return _("Alexandros practice — {player}").format(player=player)


def practice_no_thread() -> str:
    return _("No thread can be made here, so the practice game opens in this channel.")


def practice_opened(channel_id: int, note: str | None) -> str:
    opened = _(
        "Your practice game is open in <#{channel}>: it is not rated, and `/alexandros learn hint` suggests "
        "a good play whenever it is your turn."
    ).format(channel=channel_id)
    return f"{note} {opened}" if note else opened


def abandon_prompt(game_id: int, lobby: bool) -> str:
    if lobby:
        text = _(
            "**Abandon game {game}?** The table closes, and this cannot be undone. Press **Abandon the "
            "game** to confirm, or dismiss this message to keep playing."
        )
    else:
        text = _(
            "**Abandon game {game}?** The game ends now for everyone, unscored, and this cannot be undone. "
            "Press **Abandon the game** to confirm, or dismiss this message to keep playing."
        )
    return text.format(game=game_id)


def abandoned_private(game_id: int) -> str:
    return _("You abandoned game {game}. Start a new one with `/alexandros new`.").format(game=game_id)


def agree_noted(waiting: str) -> str:
    return _("Noted: you agree to end the game. Still waiting for {waiting}.").format(waiting=waiting)


def log_text(lines: Sequence[str]) -> str:
    """``/alexandros log``: the last events, one bullet each."""
    body = "\n".join(f"• {x}" for x in lines) or nothing_yet()
    n = len(lines)
    if n == 1:
        title = _("The last event")
    else:
        title = ngettext("The last {n} event", "The last {n} events", n).format(n=n)
    return clip(f"**{title}**\n{body}")


# --- private answers: what an action did --------------------------------------------------------------------


def done() -> str:
    return _("Done.")


def moved() -> str:
    return _("Alexander moved.")


def took_card() -> str:
    return _("You took a card.")


def levied() -> str:
    return _("You levied taxes.")


def took_guard_back() -> str:
    return _("You took a guard back.")


def turn_over() -> str:
    return _("Your turn is over.")


def province_taken(province: int) -> str:
    return _("Province {province} is yours.").format(province=province)


def action_summary(done: str, lines: Sequence[str]) -> str:
    """What an action did, for the one who made it: ``done`` and the first lines of its events."""
    return clip(done + ("\n" + "\n".join(f"• {x}" for x in lines[:12]) if lines else ""))


# --- guided flows: prompts and select placeholders ----------------------------------------------------------


def pick_card() -> str:
    return _("Pick a card")


def pick_point() -> str:
    return _("Pick a point")


def pick_path() -> str:
    return _("Pick a path")


def pick_action() -> str:
    return _("Pick an action")


def move_step_1() -> str:
    return _("**Move Alexander** — step 1 of 3: pick a card.")


def pick_move_card() -> str:
    return _("Pick a card to move with:")


def pick_cards(n: int) -> str:
    return ngettext("Pick {n} card", "Pick {n} cards", n).format(n=n)


def move_step_2(card: str, shown: int, total: int, ends_game: bool = False) -> str:
    more = (
        ""
        if total <= shown
        else " "
        + _("(the first {shown} of {total}; type `/alexandros move` for all)").format(
            shown=shown, total=total
        )
    )
    end = (
        "\n"
        + _(
            "**Some of these moves end the game**: those marked “ends the game” need more walls than the "
            "black walls left, so red walls are used and the game ends after your actions (R3.6)."
        )
        if ends_game
        else ""
    )
    # TRANSLATORS: {more} is empty or " (the first 25 of 40; …)"; {end} is empty or a paragraph
    return _("**Move Alexander** — step 2 of 3: {card}. Pick the point where he stops{more}.{end}").format(
        card=card, more=more, end=end
    )


def move_step_3(n: int, point: str, shown: int | None = None) -> str:
    """Step 3's prompt; ``shown``: how many of the ``n`` paths the menu holds (Discord's 25 at most)."""
    # TRANSLATORS: {paths} is "2 paths"
    text = _("**Move Alexander** — step 3 of 3: {paths} to {point} differ in their walls. Pick one.").format(
        paths=count(n, "path"), point=point
    )
    if shown is not None and shown < n:
        text += " " + _("(the first {shown} of {total}; type `/alexandros move` for all)").format(
            shown=shown, total=n
        )
    return text


def route_text(points: Sequence[str]) -> str:
    """Where a path goes, for the confirm step: "D2 via C1 B2", or "D2" for a single side."""
    if len(points) > 2:
        return _("{end} via {points}").format(end=points[-1], points=" ".join(points[1:-1]))
    return points[-1]


def move_confirm(card: str, path: str, preview: rules.MovePreview) -> str:
    """The guided move's last step: what the move will do, flagged when it ends the game (R3.6, R10.1);
    ``path`` is where it goes (``route_text``)."""
    walls = count(len(preview.black), "black wall")
    if preview.red:
        walls = _("{black} and {red}").format(black=walls, red=count(len(preview.red), "red wall"))
    cut = ""
    if preview.cuts:
        cut = " " + _("It cuts {provinces}.").format(provinces=count(len(preview.cuts), "province"))
    end = (
        " " + _("**This move ends the game**: the walls run out, so the game ends after your actions.")
        if (preview.ends_game)
        else ""
    )
    # TRANSLATORS: {cuts} and {end} are empty or whole sentences with a space before them
    return _("**Move Alexander** — {card}, to {path}: it places {walls}.{cuts}{end} Confirm?").format(
        card=card, path=path, walls=walls, cuts=cut, end=end
    )


def actions_prompt(table: Table, left_out: int = 0) -> str:
    """The Actions menu's prompt; ``left_out``: provinces open to the player that the menu had no room for.

    The menu itself lists what this player can do (from the whole state); the public line (``can_do``)
    knows only what any hand of their size allows, so here it would say less than the menu shows."""
    st = table.state
    assert st is not None
    left = rules.actions_left(st)
    if st.phase is Phase.MOVE or left == 0:
        text = _("**Actions** — {what_next}").format(what_next=can_do(table))
    else:
        text = _("**Actions** — {left} left: choose one below, or end the turn.").format(
            left=count(left, "action")
        )
    if left_out:
        text += "\n" + ngettext(
            "{n} more province to occupy or take over is not in the menu: "
            "`/alexandros occupy` and `/alexandros takeover` list them all.",
            "{n} more provinces to occupy or take over are not in the menu: "
            "`/alexandros occupy` and `/alexandros takeover` list them all.",
            left_out,
        ).format(n=left_out)
    return text


def province_prompt(
    takeover: bool,
    province: int,
    guards: Sequence[str],
    paid: str,
    guards_left: int,
    stacked: int = 1,
    scoring: tuple[str, str] | None = None,
    symbol_spaces: int = 0,
) -> str:
    """The occupy / take-over preview: the cheapest plan (``guards``: its spaces' names, none without a plan;
    ``paid``), and the choice of spaces (``symbol_spaces``: how many symbol spaces the province has; a select
    menu holds 25, the plan's first).

    ``stacked``: the plan's number of guards; two or more of one player's guards in a province score
    nothing (R7.3), so such a plan is flagged, with ``scoring`` (a space, its price) when one guard is
    affordable too."""
    if takeover:
        title = _("Take over province {province}").format(province=province)
    else:
        title = _("Occupy province {province}").format(province=province)
    warn = ""
    if stacked > 1:
        warn = "\n" + _(
            "**It scores nothing** with {guards} of yours: a province scores only for a player with exactly "
            "one guard in it (R7.3), until you take the others back."
        ).format(guards=count(stacked, "guard"))
        if scoring is not None:
            warn += " " + _("With one guard on the {space} it scores, paying {paid}.").format(
                space=scoring[0], paid=scoring[1]
            )
        else:
            warn += " " + _("No plan with one guard is affordable now.")
    # As many guards as the player has left, and no more than the province has symbol spaces (R6.2).
    most = min(guards_left, symbol_spaces) if symbol_spaces else guards_left
    if most > 1:
        choose = _("choose the guards' spaces (up to {n}; one scores, two or more do not)").format(n=most)
    else:
        choose = _("choose the guard's space")
    # The article belongs to the message: languages inflect it ("auf dem Pferdefeld").
    if not guards:
        plan = "-"
    elif len(guards) == 1:
        plan = _("a guard on the {space}").format(space=guards[0])
    else:
        # TRANSLATORS: one space of "guards on {spaces}", after "on": "the horse space (C6 D5 D7)"
        spaces = ", ".join(pgettext("guards on", "the {space}").format(space=g) for g in guards)
        plan = _("guards on {spaces}").format(spaces=spaces)
    if symbol_spaces > MAX_OPTIONS:
        menu = _("The menu holds {shown} of the province's {n} symbol spaces, the plan's first.")
        warn += "\n" + menu.format(shown=MAX_OPTIONS, n=symbol_spaces)
    # TRANSLATORS: {plan} is "a guard on A4" or "guards on A4, B5"; {choose} is "choose the guard's space"
    return clip(
        _("**{title}** — cheapest: {plan}, paying {paid}. Use it, or {choose}.{warn}").format(
            title=title, plan=plan, paid=paid, choose=choose, warn=warn
        )
    )


def compensation_prompt(province: int, paid: str, size: int, owner: str) -> str:
    # TRANSLATORS: {cards} is "2 cards"; {owner} is the province's owner
    return _(
        "**Take over province {province}** — you pay {paid}. Choose the {cards} {owner} receives."
    ).format(province=province, paid=paid, cards=count(size, "card"), owner=owner)


# Pictures' descriptions (alt text), read out by screen readers.
def alt_hand() -> str:
    return _("your hand")


def alt_move() -> str:
    return _("where Alexander can go")


def alt_paths() -> str:
    return _("the paths")


def alt_path() -> str:
    return _("the chosen path")


def alt_province() -> str:
    return _("the province")


# --- reminder settings --------------------------------------------------------------------------------------


def quiet_hours_format() -> str:
    return _("Write quiet hours as start-end, like 22:00-08:00, or off.")


def reminder_settings_text(prefs: ReminderPrefs, saved: bool) -> str:
    """``/alexandros me reminders``: the player's settings as they now stand."""
    if prefs.interval_hours is None:
        every = _("the table's interval")
    elif prefs.interval_hours == 0:
        every = _("never")
    else:
        every = _("every {hours} hours").format(hours=i18n.number(prefs.interval_hours))
    quiet = f"{prefs.quiet_start:%H:%M}-{prefs.quiet_end:%H:%M}" if prefs.has_quiet_hours else _("none")
    return (_("Saved.") + " " if saved else "") + _(
        "Your reminders: {every}; quiet hours: {quiet} ({time_zone}). They apply from your next reminder."
    ).format(every=every, quiet=quiet, time_zone=prefs.time_zone)


# --- autocomplete hints and old components ------------------------------------------------------------------


# What autocomplete shows when the engine offers nothing, so that the player learns why (by command name).
_NOTHING_TO_CHOOSE = {
    "occupy": N_("(no free province you can afford now)"),
    "takeover": N_("(no opponent's province you can afford now)"),
    "levy": N_("(no levy now: once a turn, with a card matching one of your guards)"),
    "takeback": N_("(you have no guard on the map)"),
    "take": N_("(no card left to take)"),
}


def nothing_to_choose(command: str) -> str:
    """Autocomplete's one entry when there is nothing to offer for ``command`` (its English name)."""
    why = _NOTHING_TO_CHOOSE.get(command)
    return _(why) if why is not None else nothing_now()


def nothing_now() -> str:
    return _("(nothing to choose now)")


def move_first_hint() -> str:
    return _("(move Alexander first)")


def already_moved_hint() -> str:
    return _("(you have already moved)")


def button_retired() -> str:
    return _("This button is no longer in use. Look at the latest turn message.")


def button_stale() -> str:
    return _("This button is out of date. Look at the latest turn message.")


def menu_retired() -> str:
    return _("This menu is no longer in use. Look at the latest turn message.")


def menu_stale() -> str:
    return _("This menu is out of date. Look at the latest turn message.")


def nothing_picked() -> str:
    return _("There was nothing to choose here.")


def form_retired() -> str:
    return _("This form is no longer in use. Look at the latest turn message.")


def not_your_turn_hint(current: str) -> str:
    return _("(it is {player}'s turn, not yours)").format(player=current)


def sync_busy() -> str:
    return _(
        "Another process of this bot is syncing the commands right now (only one may at a time): try again "
        "in a minute."
    )


def sync_owner_only() -> str:
    return _(
        "Only the bot's owner (or its team) can sync the commands everywhere: Discord limits how often an "
        "application may do it. `/alexandros-admin sync` without `everywhere` refreshes this server."
    )


def synced(count: int, everywhere: bool) -> str:
    if everywhere:
        return _("Synced {n} commands everywhere; Discord may take up to an hour to show them.").format(
            n=count
        )
    if count:
        return _("Synced {n} commands to this server.").format(n=count)
    return _("This server has no copies of the commands left: it shows the global ones, each once.")


# --- DM notices (bot.outbox.notices) and the dashboard (bot.commands.dashboard) -----------------------------


def dm_turn_text(table: Table) -> str:
    """A turn ping by direct message (public facts only, like the turn post it points to), in the language
    speaking now: its reader's (``notices.dm_language``), not the game's, so it is not ``public``."""
    st = table.state
    assert st is not None
    return clip(
        _("It is your turn in Alexandros game {game} (turn {turn}). {what_next}").format(
            game=table.id, turn=st.turn, what_next=can_do(table)
        )
    )


def dm_reminder_text(table: Table, started: float) -> str:
    """A reminder by direct message, in its reader's language (speaking now; as ``dm_turn_text``)."""
    st = table.state
    assert st is not None
    return clip(
        _(
            "A reminder: it is still your turn in Alexandros game {game} (turn {turn}, waiting since "
            "{since}). {what_next}"
        ).format(game=table.id, turn=st.turn, since=when(started), what_next=can_do(table))
    )


def dm_settings_line(on: bool, closed: bool) -> str:
    """The DM part of ``/alexandros me reminders``' answer."""
    if not on:
        return _("Turn pings and reminders: in the game's channel (`dm:true` sends them by direct message).")
    if closed:
        return _(
            "Turn pings and reminders: by direct message was asked, but your direct messages were closed to "
            "me, so they come in the channel. Open them and type `/alexandros me reminders dm:true` again."
        )
    return _(
        "Turn pings and reminders: by direct message, instead of a ping in the channel. If your direct "
        "messages are closed to me, I ping you in the channel and tell you once."
    )


class MyGame(NamedTuple):
    """One line of ``/alexandros me games``: a game, its players' names, its turn post and status message."""

    record: GameRecord
    names: tuple[str, ...]
    turn_post: int | None
    status_post: int | None


def mygames_text(user_id: int, games: Sequence[MyGame], total: int, limit: int = 2000) -> str:
    """``/alexandros me games``: the asker's games in this server (only to them), with jump links. As many
    whole lines as fit in one message (``limit``), then how many more there are."""
    if not games:
        return _("You are in no game in this server. Open one with `/alexandros new`, or join a table.")
    lines = [_("**Your games in this server ({total})**").format(total=total)]
    for g in games:
        line = _mygame_line(user_id, g)
        if len("\n".join([*lines, line])) > limit - 40:  # room for the "more" line
            break
        lines.append(line)
    shown = len(lines) - 1
    if total > shown:
        lines.append(_("…and {n} more.").format(n=total - shown))
    return clip("\n".join(lines))


def _mygame_line(user_id: int, g: MyGame) -> str:
    rec = g.record
    if rec.status == "lobby":
        where = jump_link(rec.guild_id, rec.channel_id, g.status_post)
        return _("• Game {game} in <#{channel}>: at the table, {seated} seated, not started. {link}").format(
            game=rec.id, channel=rec.channel_id, seated=len(rec.seats), link=where
        )
    names = dict(zip((uid for _seat, uid in sorted(rec.seats)), g.names, strict=False))
    waiting = rec.waiting_on
    if waiting == user_id:
        whose = _("**your turn**")
    else:
        whose = _("{player}'s turn").format(player=names.get(waiting or 0, _("nobody")))
    post = g.turn_post if g.turn_post is not None else g.status_post
    return _("• Game {game} in <#{channel}>: {whose} since {since} — {link}").format(
        game=rec.id,
        channel=rec.channel_id,
        whose=whose,
        since=when(rec.turn_started_at),
        link=jump_link(rec.guild_id, rec.channel_id, post),
    )


# --- Ratings, leaderboard and replays (issue 16) ------------------------------------------------------------


def recomputed_text(games: int, players: int) -> str:
    return _("Ratings recomputed from {games}: {players} rated.").format(
        games=ngettext("{n} rated game", "{n} rated games", games).format(n=games),
        players=count(players, "player"),
    )


# --- users' data (issue 11): forget-me and the admin purge (bot/commands/privacy.py) ------------------------


def forget_ask() -> str:
    return _(
        "**Forget me?** This deletes your settings (reminders, quiet hours, time zone) and removes you from "
        'the records of your finished games: there your name becomes "former player N" and your Discord id a '
        "number that leads back to nobody, so the scores still add up. Messages already posted in channels "
        "stay (delete them yourself, or ask the server's moderators). It cannot be undone. Press **Confirm** "
        "to go ahead, or ignore this message."
    )


def forget_not_yours() -> str:
    return _("This button is for the person who asked to be forgotten, not for you.")


def admin_manage_server() -> str:
    return _("Only a member with Manage Server can use the bot's admin commands in this server.")


def purge_manage_server() -> str:
    return _("Only a member with Manage Server can purge this server's old games.")


def forget_seated(channel_ids: list[int]) -> str:
    where = ", ".join(f"<#{c}>" for c in channel_ids[:10])
    if len(channel_ids) > 10:
        where = _("{channels} and {n} more").format(channels=where, n=len(channel_ids) - 10)
    return _(
        "You are still seated in a game that is not over ({channels}). Resign there with "
        "`/alexandros resign` (or leave the table before it starts), then ask again."
    ).format(channels=where)


def forgotten(games: int, settings: bool, named: int = 0) -> str:
    """The answer to a forget: ``games`` records with a former player in the user's place, ``named`` other
    records that named them (a moderator's pause, a seat offer, a post) and do no more."""
    what = _("Your settings are deleted") if settings else _("You had no settings")
    parts = []
    if games:
        parts.append(
            ngettext(
                "a former player stands in your place in {n} game record",
                "a former player stands in your place in {n} game records",
                games,
            ).format(n=games)
        )
    if named and games:
        parts.append(
            ngettext(
                "your name and id are removed from {n} more game record",
                "your name and id are removed from {n} more game records",
                named,
            ).format(n=named)
        )
    elif named:
        parts.append(
            ngettext(
                "your name and id are removed from {n} game record",
                "your name and id are removed from {n} game records",
                named,
            ).format(n=named)
        )
    records = "; ".join(parts) if parts else _("no game record named you")
    # TRANSLATORS: {settings} is "Your settings are deleted"; {records} "a former player stands in…"
    return _(
        "Done: {settings}, and {records}. The host's log files may still show your id until they are rotated."
    ).format(settings=what, records=records)


def purged(games: int, days: int) -> str:
    if not games:
        return _(
            "No finished or abandoned game of this server is older than {days} days: nothing was deleted."
        ).format(days=days)
    # TRANSLATORS: {days} is "30 days"
    return ngettext(
        "Deleted {n} finished or abandoned game of this server older than {days}, with their moves and "
        "settings. Games in play were not touched.",
        "Deleted {n} finished or abandoned games of this server older than {days}, with their moves and "
        "settings. Games in play were not touched.",
        games,
    ).format(n=games, days=count(days, "day"))


# --- seats over days: substitutes, vacations, pausing, taking back (bot.commands.seats) ---------------------


def took_back(more: bool = True) -> str:
    """P10's answer; ``more``: a step before it can be taken back too (the turn post's Undo button shows)."""
    if not more:
        return _("You took back your last step. Play on: the steps before it cannot be taken back.")
    return _(
        "You took back your last step. Play on, or take back more with Undo (or `/alexandros game undo`)."
    )


def offer_accepted() -> str:
    return _("You hold the seat now. Your hand: the My hand button on the turn post, or `/alexandros hand`.")


def accept_seat() -> str:
    return _("Accept the seat")


def paused() -> str:
    return _("The game is paused. Resume it with `/alexandros game resume`.")


def resumed(deadline: bool = True) -> str:
    """``deadline``: the table has turn deadlines (a table without one has none to start again)."""
    if not deadline:
        return _("The game is resumed.")
    return _("The game is resumed; the turn's deadline starts again from now.")


def vacation_set(until: float | None) -> str:
    if until is None:
        return _("Welcome back: your deadlines and reminders run again.")
    return _(
        "Your vacation runs until {when}. Your turn's deadline waits until then, and no reminder is sent. "
        "End it early with `/alexandros vacation days:0`."
    ).format(when=when(until))


# --- hints (issue 29, bot.commands.hints) -------------------------------------------------------------------


def hint_text(advice: Advice, speaker: words.Speaker, me: int, used: int) -> str:
    """The private answer to ``/alexandros learn hint``: the hard player's choice and why, from the asker's
    own view (engine.advice)."""
    head = _("**Hint** — what the hard computer would do here, from what you can see:")
    tail = ngettext(
        "You have used {n} hint in this game.", "You have used {n} hints in this game.", used
    ).format(n=used)
    return f"{head}\n{hint_reason(advice, speaker, me)}\n-# {tail}"


def hint_reason(advice: Advice, speaker: words.Speaker, me: int) -> str:
    """One sentence (two at most): the suggested action and the engine's facts that make it good."""
    a = advice
    if a.kind == "move":
        return _hint_move(a)
    if a.kind == "take":
        if a.symbol is None:
            return _(
                "Take the top card of the supply: cards pay for provinces and levies, and nobody sees it."
            )
        if a.free:
            province, value = a.free[0]
            return _(
                "Take the face-up card {symbol}: with it you can pay for province {province} (value {value})."
            ).format(symbol=symbol_name(a.symbol), province=province, value=value)
        return _("Take the face-up card {symbol}: one more card to pay for provinces and levies.").format(
            symbol=symbol_name(a.symbol)
        )
    if a.kind in ("occupy", "takeover"):
        guards = count(a.guards, "guard")
        if a.kind == "takeover":
            lead = _(
                "Take over {owner}'s province {province} (value {value}) with {guards}, paying {cards}"
            ).format(
                owner=speaker.seat(a.owner),
                province=a.province,
                value=a.value,
                guards=guards,
                cards=cards_text(a.cost),
            )
        else:
            lead = _("Occupy province {province} (value {value}) with {guards}, paying {cards}").format(
                province=a.province, value=a.value, guards=guards, cards=cards_text(a.cost)
            )
        if a.guards == 1:
            why = _("with one guard there it adds {points} at every levy").format(
                points=count(a.value, "point")
            )
        else:
            why = _("it is yours, though it scores only once you have a single guard there")
        return _("{lead}: {why}.").format(lead=lead, why=why)
    if a.kind == "levy":
        mine = a.gains[me] if me < len(a.gains) else 0
        others = ", ".join(
            f"{speaker.seat(seat)} {count(g, 'point')}" for seat, g in enumerate(a.gains) if seat != me
        )
        return _("Levy taxes with the card {symbol}: you score {points}, the others {others}.").format(
            symbol=symbol_name(a.symbol or Symbol.TEMPLE), points=count(mine, "point"), others=others
        )
    if a.kind == "takeback":
        assert isinstance(a.action, TakeBack)
        space = speaker.space(a.action.space)
        if a.freed:
            return _(
                "Take back your guard on the {space}: province {province} becomes free, and the guard can "
                "go where it scores more."
            ).format(space=space, province=a.province)
        return _(
            "Take back your guard on the {space}: fewer guards in province {province} means it can "
            "score again (one guard scores, two score nothing)."
        ).format(space=space, province=a.province)
    return _("End your turn: no action left is worth more to you now.")


def _hint_move(a: Advice) -> str:
    symbol = symbol_name(a.symbol or Symbol.TEMPLE)
    way = a.action.way if isinstance(a.action, Move) else MoveWay.NORMAL
    if way is MoveWay.JOKER:
        lead = _("Take the face-up card {card} as a joker and name {symbol}").format(
            card=symbol_name(a.joker or Symbol.TEMPLE), symbol=symbol
        )
    elif way is MoveWay.SPECIAL:
        lead = _("Move with the card {symbol} from your hand").format(symbol=symbol)
    else:
        lead = _("Move with the face-up card {symbol}").format(symbol=symbol)
    space, sides = words.symbol_space(a.symbol or Symbol.TEMPLE), count(a.sides, "side")
    if a.black + a.red == 0:
        detail = _("the closest {space} is {sides} away and no wall is needed").format(
            space=space, sides=sides
        )
    else:
        walls = count(a.black, "black wall")
        if a.red:
            walls = _("{black} and {red}").format(black=walls, red=count(a.red, "red wall"))
        detail = _("the closest {space} is {sides} away and the path places {walls}").format(
            space=space, sides=sides, walls=walls
        )
    out = _("{lead}: {detail}.").format(lead=lead, detail=detail)
    if a.free:
        provinces = ", ".join(_("{province} (value {value})").format(province=p, value=v) for p, v in a.free)
        out += " " + ngettext(
            "It forms free province {provinces}, which you can occupy this turn.",
            "It forms free provinces {provinces}, which you can occupy this turn.",
            len(a.free),
        ).format(provinces=provinces)
    if a.ends_game:
        out += " " + _("**This move ends the game**: the walls run out, so the game ends after your actions.")
    return out


# --- watching on the web (bot.commands.watching, /alexandros-admin web) -------------------------------------


def web_state(on: bool) -> str:
    if on:
        return _("Watching games on the web is on for this server.")
    return _("Watching games on the web is off for this server: every watch link leads nowhere now.")


def web_new_link(url: str) -> str:
    return _("The game's watch link was changed: the old one leads nowhere now. The new one: {url}").format(
        url=url
    )


def web_none() -> str:
    return _("This bot has no web face: its host has not set ALEXANDROS_WEB_PORT.")


def web_manage_server() -> str:
    return _("Only a member with Manage Server can change watching on the web.")


def web_no_game() -> str:
    return _("This channel has no game whose link could be changed.")
