"""``python -m bot console``: play the real bot in a terminal, without Discord or a token.

Named local users sit at one table. Each input line is one user's interaction, run through the SAME path
as on Discord (the offline Discord of the ``offline`` package: real discord.py, real commands, buttons and
selects). Public and private answers are printed and marked; every picture is written to a folder.

Lines::

    alice: /alexandros move card:n1 to:D7 path:2     a slash command with options (name:value)
    alice: /alexandros move card:?                   what autocomplete offers for that option
    bob: press 2            bob: press My hand       a button, by its number or its label
    alice: select 3 C7      alice: select 3 #2       a select menu: option values, or #n for the n-th
    board / help / quit
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import re
import shlex
import signal
import sqlite3
import sys
import threading
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import IO, Any

import discord
from babel import Locale, UnknownLocaleError
from babel.dates import format_date, format_time, format_timedelta

from engine.ai import LEVELS
from engine.maps import MapError, default_map, load_map
from offline import HarnessError, OfflineDiscord, StoredMessage
from offline.payloads import FakeUser
from storage import BadDatabase, StoreError

from .client import make_bot
from .commands.dashboard import STATUS_DELAY
from .console_commands import CommandBook, CommandError, Typed
from .console_commands import parse_options as parse_options  # the line syntax, also read from here
from .games.computers import is_computer, seat_level
from .process.runlock import open_checks
from .web import links as web_links
from .words import i18n
from .words.i18n import _, pgettext

# The Discord locales of the bot's languages (bot.words.i18n.LANGUAGES): en-US, en-GB, de.
SUPPORTED_LOCALES = tuple(
    loc.value for loc in discord.Locale if loc.value.split("-")[0].lower() == i18n.language_of(loc.value)
)
_PICTURE = re.compile(r"^(\d{4,})-")


class ConsoleError(Exception):
    """The console cannot start: one sentence that says why and what to do."""


class ConsoleHint(HarnessError):
    """A typed line the console cannot follow, in the reader's language (shown as it is)."""


def _last_picture_number(out: Path) -> int:
    """Pictures go on from the highest number already in the folder, so none is overwritten."""
    if not out.is_dir():
        return 0
    numbers = [int(m.group(1)) for p in out.iterdir() if (m := _PICTURE.match(p.name))]
    return max(numbers, default=0)


_TIMESTAMP = re.compile(r"<t:(-?\d+)(?::([tTdDfFR]))?>")
_CHANNEL = re.compile(r"<#(\d+)>")


def _cldr(locale: str) -> Locale:
    """Babel's locale for a Discord locale ("en-US", "de"), English for one it does not know."""
    try:
        return Locale.parse(locale, sep="-")
    except (ValueError, UnknownLocaleError):
        return Locale.parse("en_US")


def relative(seconds: float, locale: str = "en-US") -> str:
    """A span as Discord's relative timestamp reads it, in the reader's language (Babel's CLDR words):
    "in 3 hours", "5 minutes ago", "vor 5 Minuten"; "now" (the bot's catalog) under a second."""
    if abs(seconds) < 1:
        with i18n.speaking(locale):
            return pgettext("time", "now")
    return format_timedelta(timedelta(seconds=seconds), add_direction=True, locale=_cldr(locale))


def show_time(unix: int, style: str, now: float, locale: str = "en-US") -> str:
    """A Discord ``<t:unix:style>`` timestamp as a Discord client shows it, in UTC (the console has no
    reader's time zone) and the reader's language; the relative style gets the absolute time too, since a
    transcript is read later."""
    at = datetime.fromtimestamp(unix, UTC)
    cldr = _cldr(locale)
    clock = format_time(at, "HH:mm", locale=cldr)
    formats = {
        "t": f"{clock} UTC",
        "T": f"{format_time(at, 'HH:mm:ss', locale=cldr)} UTC",
        "d": format_date(at, "short", locale=cldr),
        "D": format_date(at, "long", locale=cldr),
        "f": f"{format_date(at, 'long', locale=cldr)} {clock} UTC",
        "F": f"{format_date(at, 'full', locale=cldr)} {clock} UTC",
    }
    if style in formats:
        return formats[style]
    return f"{at:%Y-%m-%d} {clock} UTC ({relative(unix - now, locale)})"


def render_markup(
    text: str,
    names: dict[int, str],
    now: float,
    channels: dict[int, str] | None = None,
    locale: str = "en-US",
) -> str:
    """Discord markup as a Discord client shows it: mentions as names, channels as #name, timestamps as
    times (in ``locale``, the reader's language)."""
    for uid, name in names.items():
        text = text.replace(f"<@{uid}>", f"@{name}").replace(f"<@!{uid}>", f"@{name}")
    text = _TIMESTAMP.sub(lambda m: show_time(int(m.group(1)), m.group(2) or "f", now, locale), text)
    return _CHANNEL.sub(lambda m: f"#{(channels or {}).get(int(m.group(1)), 'a-channel')}", text)


class Console:
    """One table of local players on an offline Discord."""

    def __init__(
        self,
        players: Sequence[str],
        db: str,
        out: Path,
        seed: int | None,
        stream: IO[str] | None = None,
        map_path: str | None = None,
        locale: str = "en-US",
        computers: Sequence[str] = (),
        verbose: bool = False,
        web_port: int | None = None,
    ) -> None:
        self.names = list(players)
        self.computers = list(computers)  # the levels of the computer seats, after the players' (issue 27)
        self.verbose = verbose  # message ids and components' custom ids, for debugging
        self.pinned_seen: dict[int, str] = {}  # each pinned message's text as last printed
        self._seen = 0  # the offline Discord's requests already shown (show_result)
        self.db, self.map_path = db, map_path
        self.out = out
        self.stream = stream or sys.stdout
        self.pictures_written = _last_picture_number(out)
        seed_source = (lambda: seed) if seed is not None else None
        game_map = load_map(map_path) if map_path else default_map()
        self.d = OfflineDiscord(
            lambda: make_bot(
                db,
                seed_source=seed_source,
                map_provider=lambda: game_map,
                web_port=web_port,
                public_url=f"http://127.0.0.1:{web_port}" if web_port is not None else "",
            ),
            strict=False,
            loggers=("bot",),
            watched_tasks=("alx-",),
        )
        self.users: dict[str, FakeUser] = {}
        self.locale = locale  # the players' clients and the server speak it (docs/PLAYING.md)
        self.now: Callable[[], float] = time.time  # the bot's clock (bot.client's default)
        self.numbered: list[tuple[StoredMessage, dict[str, Any]]] = []
        self.book = CommandBook([], locale)  # the bot's commands, once it runs

    def print(self, text: str = "") -> None:
        print(text, file=self.stream)

    async def start(self) -> None:
        """Open the table and start the game; with an existing --db, carry on with its game instead: its
        turn post is posted again (the offline Discord's messages live only as long as the console)."""
        if self.out.exists() and not self.out.is_dir():
            raise ConsoleError(f"--out {self.out} is a file; name a folder for the pictures.")
        self.out.mkdir(parents=True, exist_ok=True)
        await self.d.start()
        self.d.set_guild_locale(self.locale)
        self.users = {n: self.d.member(n) for n in self.names}
        for user in self.users.values():
            user.locale = self.locale
        bot: Any = self.d.bot
        self.book = await CommandBook.of(bot.tree, self.locale)
        record = await bot.store.game_by_channel(self.d.channel_id)
        if record is not None:
            if record.status == "playing":
                self._check_seats(record)
            mark = self.d.mark()
            if await bot.pipeline.repost_turn(record.id):
                await bot.deliveries.drain()
                with i18n.speaking(self.locale):
                    # TRANSLATORS: the console starts again on a database that holds a game
                    self.print(_("Carrying on with the game saved in this database."))
                for req in self.d.requests_since(mark):
                    if req.message_id is not None and req.kind == "channel_message":
                        self.show_message(self.d.message(req.message_id))
                await self.show_web()
                return
        await self._open_table()

    def _check_seats(self, record: Any) -> None:
        """The saved game goes on with its own players and computer levels only."""
        seated = [uid for _, uid in sorted(record.seats)]
        levels = [seat_level(record.options, u) for u in seated if is_computer(u)]
        humans = [u for u in seated if not is_computer(u)]
        if humans == [self.users[n].id for n in self.names] and levels == self.computers:
            return
        names = record.options.get("names", {})
        people = ",".join(names.get(str(u), "?") for u in humans)
        flags = f"--players {people}" + (f" --computers {','.join(levels)}" if levels else "")
        everyone = ", ".join(names.get(str(u), "?") for u in seated)
        raise ConsoleError(
            f"This database holds a game of {everyone}: start the console with {flags}, or use another --db."
        )

    async def _open_table(self) -> None:
        """``/alexandros new``, everyone joins, the computers sit down, the creator presses Start."""
        creator = self.users[self.names[0]]
        r = await self.d.slash(creator, "alexandros new")
        lobby = r.response_message
        join = next((c for c in lobby.custom_ids if c.startswith("alx:join:")), None) if lobby else None
        if lobby is None or join is None:
            self.show_result(r, creator)
            return
        # The lobby is shown once, with everyone seated: each join edits it, and the start closes it.
        self.show_result(r, creator, skip={lobby.id})
        for n in self.names[1:]:
            joined = await self.d.click(self.users[n], lobby.id, join)
            self.show_result(joined, self.users[n], skip={lobby.id})
        for level in self.computers:
            added = await self.d.slash(creator, "alexandros table add-computer", {"level": level})
            self.show_result(added, creator, skip={lobby.id})
        self.numbered = []
        self.show_message(self.d.message(lobby.id))
        start = join.replace(":join:", ":start:")
        self.show_result(await self.d.click(creator, lobby.id, start), creator, skip={lobby.id})
        await self.show_pinned()
        await self.show_web()

    async def show_web(self) -> None:
        """With --web: the address of the game's page (the web face serves it on this machine only)."""
        bot: Any = self.d.bot
        record = await bot.store.game_by_channel(self.d.channel_id)
        if bot.web is not None and record is not None:
            secret = await web_links.secret_of(bot.store, record.id, self.now())
            with i18n.speaking(self.locale):
                # TRANSLATORS: the console with --web: the address of the game's page
                said = _("Watch the game in a browser: {url}")
            self.print(said.format(url=bot.web.url_of(record.id, secret)))

    async def close(self) -> None:
        await self.d.close()

    def resume_command(self) -> str:
        """The command line that carries on with this console's game (absolute paths: from any folder)."""
        argv = ["python", "-m", "bot", "console", "--players", ",".join(self.names)]
        if self.computers:
            argv += ["--computers", ",".join(self.computers)]
        argv += ["--db", str(Path(self.db).resolve()), "--out", str(self.out.resolve())]
        if self.map_path:
            argv += ["--map", str(Path(self.map_path).resolve())]
        if self.locale != "en-US":
            argv += ["--locale", self.locale]
        return shlex.join(argv)

    async def farewell(self) -> str:
        """Where the game is saved and how to carry on: said when the console ends."""
        bot: Any = self.d.bot
        over = False
        with contextlib.suppress(Exception):  # the database went wrong: the sentence for a saved game
            record = await bot.store.game_by_channel(self.d.channel_id)
            over = record is None or record.status not in ("playing", "lobby")
        where, command = Path(self.db).resolve(), self.resume_command()
        with i18n.speaking(self.locale):
            if over:
                # TRANSLATORS: the console's last line; {where} is a file, {command} a command line
                said = _("The finished games are kept in {where}; this starts a new game there: {command}")
            else:
                # TRANSLATORS: the console's last line; {where} is a file, {command} a command line
                said = _("The game is saved in {where}. To carry on, run: {command}")
        return said.format(where=where, command=f"`{command}`")  # a code span: typed as it is

    # --- output -------------------------------------------------------------------------------------------

    def show_message(self, msg: StoredMessage, edited: bool = False) -> None:
        with i18n.speaking(self.locale):
            if msg.ephemeral:
                owner = next((n for n, u in self.users.items() if u.id == msg.ephemeral_to), "?")
                # TRANSLATORS: the console's mark of a private answer: "--- only alice"
                who = _("only {name}").format(name=owner)
            elif msg.pinned:
                # TRANSLATORS: the console's mark of the game's pinned status message, kept up to date
                who = _("pinned, edited") if edited else _("pinned")
            else:
                # TRANSLATORS: the console's mark of a message everyone in the channel sees
                who = _("public")
            self.print(f"--- [{who}]" + (f" message {msg.id}" if self.verbose else ""))
            names = {u.id: n for n, u in self.users.items()}
            channels = {cid: str(c.get("name") or "a-channel") for cid, c in self.d.channels.items()}
            self.print(render_markup(self._text(msg), names, self.now(), channels, self.locale))
            for a in msg.attachments:
                self.pictures_written += 1
                path = self.out / f"{self.pictures_written:04d}-{a.filename}"
                path.write_bytes(a.data)
                self.print("    " + _("picture saved: {path}").format(path=path))
            for c in msg.walk_components():
                if c.get("custom_id") and c.get("type") in (2, 3) and not c.get("disabled"):
                    self.numbered.append((msg, c))
                    label = c.get("label") or c.get("placeholder") or c["custom_id"]
                    kind = _("button") if c["type"] == 2 else _("menu")
                    target = f" → {c['custom_id']}" if self.verbose else ""
                    self.print(f"    [{len(self.numbered)}] {kind}: {label}{target}")
                    for k, o in enumerate(c.get("options") or [], start=1):
                        detail = f" — {o['description']}" if o.get("description") else ""
                        self.print(f"        #{k} {o.get('value')}: {o.get('label')}{detail}")

    def _text(self, msg: StoredMessage) -> str:
        """A message as a Discord client shows it: its content and embeds; the buttons and menus are listed
        after it, numbered (``show_message``), their custom ids only with --verbose."""
        if self.verbose:
            return msg.as_text()
        lines = [msg.content]
        if msg.loading:
            lines.append("…")
        for e in msg.embeds:
            lines.append("┃ " + " — ".join(x for x in (e.get("title"), e.get("description")) if x))
            lines += [f"┃ {f.get('name')}: {f.get('value')}" for f in e.get("fields") or []]
        lines += [c.get("content") or "" for c in msg.walk_components() if c.get("type") == 10]
        return "\n".join(line for line in lines if line)

    async def show_pinned(self) -> None:
        """The channel's pinned messages (the game's status message), printed when they change, as
        Discord shows them: pinned at the top of the channel, edited in place. The bot edits the status
        message ``STATUS_DELAY`` seconds after a change (bot.commands.dashboard: a burst of actions makes one
        edit); the console does not wait that long, it delivers that edit at once."""
        bot: Any = self.d.bot
        await bot.deliveries.drain(now=self.now() + STATUS_DELAY)
        for msg in self.d.pinned():
            text = msg.as_text()
            if self.pinned_seen.get(msg.id) != text:
                edited = msg.id in self.pinned_seen
                self.pinned_seen[msg.id] = text
                self.show_message(msg, edited)

    def show_result(self, r: Any, user: FakeUser, skip: set[int] | None = None) -> None:
        self.numbered = []
        ids = list(r.message_ids)
        # A public post or edit the interaction caused may go out with another interaction's token (a turn
        # post is a follow-up of the press that started the turn, and edited with its token:
        # bot.outbox.lanes), so it is recorded under that one: what the channel shows changed since the last
        # answer counts too.
        for q in self.d.requests_since(self._seen):
            shown = self.d.messages.get(q.message_id) if q.message_id is not None else None
            if shown is not None and not shown.ephemeral and shown.id not in ids:
                ids.append(shown.id)
        self._seen = len(self.d.requests)
        for mid in ids:
            msg = self.d.messages.get(mid)
            # A pinned message is shown where Discord shows it, on its own when it changes (show_pinned).
            if msg is not None and not msg.deleted and not msg.pinned and mid not in (skip or ()):
                self.show_message(msg)
        if r.choices is not None:
            if not r.choices:
                with i18n.speaking(self.locale):
                    self.print("    " + _("(no choices)"))
            for c in r.choices:
                self.print(f"    {c['value']:<12} {c['name']}")
        for problem in [*r.errors, *r.violations]:
            self.problem(str(problem))

    def problem(self, text: str) -> None:
        """What the offline Discord refused (a Discord client would not have sent it): one line in the
        reader's language; the harness's own words with --verbose."""
        with i18n.speaking(self.locale):
            if self.verbose:
                # TRANSLATORS: the console could not do what a line asked; {problem} is technical (English)
                self.print(_("(console) That did not work: {problem}").format(problem=text))
            elif "is disabled" in text:
                self.print(_("(console) That is greyed out now: Discord would not let you press it."))
            elif "is not a select" in text:
                self.print(_("(console) That is a button, not a menu: type `press` and its number."))
            elif "is not a button" in text:
                self.print(_("(console) That is a menu, not a button: type `select`, its number, a value."))
            elif "has no option" in text or "takes" in text:
                self.print(_("(console) That menu has no such value: type one it lists, or #1, #2, …"))
            else:
                self.print(_("(console) Discord would not send that; type `help`, or `--verbose` shows why."))

    # --- input --------------------------------------------------------------------------------------------

    def _component(self, ref: str, user: FakeUser) -> tuple[StoredMessage, dict[str, Any]]:
        if ref.isdigit() and 1 <= int(ref) <= len(self.numbered):
            return self.numbered[int(ref) - 1]
        low = ref.lower()
        for msg, c in reversed(self.numbered):
            if (c.get("label") or "").lower() == low:
                return msg, c
        # A button of the public turn message, by its label, even if not shown last.
        for msg in reversed(self.d.channel_messages(visible_to=user)):
            for c in msg.walk_components():
                if (c.get("label") or "").lower() == low and c.get("custom_id"):
                    return msg, c
        with i18n.speaking(self.locale):
            # TRANSLATORS: the console: a typed "press X" or "select X" names nothing on screen
            text = _("There is no button or menu “{ref}” here; type `board` to see the turn message again.")
        raise ConsoleHint(text.format(ref=ref))

    async def line(self, text: str) -> bool:
        """Run one input line; False when the user asked to quit. No line ends the console: whatever fails
        is one sentence, and the next line is read."""
        text = text.strip()
        if text in ("quit", "exit"):
            return False
        self._seen = len(self.d.requests)  # what this line causes is shown, nothing from before
        try:
            await self._line(text)
            await self.show_pinned()
        except CommandError as err:
            self.print(str(err))
        except ConsoleHint as hint:
            self.print(str(hint))
        except HarnessError as err:
            self.problem(str(err))
        except Exception as err:  # noqa: BLE001 - one sentence, and the console carries on
            with i18n.speaking(self.locale):
                # TRANSLATORS: the console: a line failed in the bot; {error} is technical (English)
                said = _("(console) That line failed ({error}); type the next one.")
            self.print(said.format(error=f"{type(err).__name__}: {err}"))
        return True

    async def _line(self, text: str) -> None:
        if not text or text.startswith("#"):
            return
        if text == "help":
            first = self.names[0]
            with i18n.speaking(self.locale):
                # TRANSLATORS: the console's help: the commands' list follows
                said = _("Commands (after a player's name, e.g. '{first}: /alexandros status'):")
                self.print(said.format(first=first))
                for row in self.book.help_lines():
                    self.print(row)
                # TRANSLATORS: the console's help: what a line may be; `…` parts are typed as they are
                lines = _(
                    "Lines: `{first}: /alexandros …` a slash command with its options (name:value; `name:?` "
                    "shows what autocomplete offers); `{first}: press 2` or `press` and a button's label; "
                    "`{first}: select 3 C7` or `select 3 #2` a select menu's option; `board`, `help`, `quit`."
                )
            self.print(lines.format(first=first))
            return
        if text == "board":
            for msg in self.d.channel_messages()[-2:]:
                self.numbered = []
                self.show_message(msg)
            return
        name, sep, rest = text.partition(":")
        user = self.users.get(name.strip())
        if not sep or user is None:
            with i18n.speaking(self.locale):
                # TRANSLATORS: the console: a line must start with a player's name
                said = _("Start a line with a player's name ({names}), e.g. '{first}: press 1'.")
            self.print(said.format(names=", ".join(self.names), first=self.names[0]))
            return
        await self._act(user, rest.strip())

    async def _act(self, user: FakeUser, rest: str) -> None:
        d = self.d
        if rest.startswith("/"):
            await self._slash(user, self.book.read(rest[1:]))
            return
        verb, _sep, arg = rest.partition(" ")
        if verb == "press":
            msg, c = self._component(arg.strip(), user)
            self.show_result(await d.click(user, msg.id, c["custom_id"]), user)
        elif verb == "select":
            ref, _sep, values = arg.strip().partition(" ")
            msg, c = self._component(ref, user)
            offered = [str(o["value"]) for o in c.get("options") or []]
            chosen = []
            for v in values.replace(",", " ").split():
                if v.startswith("#") and v[1:].isdigit() and 1 <= int(v[1:]) <= len(offered):
                    chosen.append(offered[int(v[1:]) - 1])
                else:
                    chosen.append(v)
            self.show_result(await d.select(user, msg.id, c["custom_id"], chosen), user)
        else:
            with i18n.speaking(self.locale):
                # TRANSLATORS: the console: what a line may be (the typed words stay English)
                self.print(_("Type a /command, 'press N', 'select N value' or 'help'."))

    async def _slash(self, user: FakeUser, typed: Typed) -> None:
        """A slash command, its options by their default names (a dict: an option may be named like a
        parameter of the offline Discord's calls, ``user`` or ``path``)."""
        focused = next((k for k, v in typed.options.items() if v == "?"), None)
        if focused is not None:
            others = {k: v for k, v in typed.options.items() if k != focused}
            await self.d.autocomplete(user, typed.path, focused=focused, value="", options=others)
            self.show_result(self.d.history[-1], user)
            return
        values: dict[str, Any] = {}
        for odef in typed.definitions:
            if odef["name"] in typed.options:
                values[odef["name"]] = self._value(odef, typed.options[odef["name"]])
        self.show_result(await self.d.slash(user, typed.path, values), user)

    def _value(self, odef: dict[str, Any], text: str) -> Any:
        """An option's typed text as a Discord client sends it: a number, a yes/no, a member by name."""
        name, kind = self.book.shown(odef), odef["type"]
        if kind in (4, 10):  # an integer, a number
            try:
                return int(text) if kind == 4 else float(text)
            except ValueError:
                with i18n.speaking(self.locale):
                    # TRANSLATORS: the console: an option that takes a number
                    said = _("{name}: expects a number, like {name}:3")
                raise CommandError(said.format(name=name)) from None
        if kind == 5:
            return text.lower() in ("true", "yes", "1")
        if kind in (6, 9):  # a member (or a mentionable): the console's players by name
            user = self.users.get(text.lstrip("@"))
            if user is None:
                with i18n.speaking(self.locale):
                    # TRANSLATORS: the console: an option that names a member takes a console player's name
                    said = _("{name}: name a player of this console ({players}), like {name}:{first}")
                raise CommandError(said.format(name=name, players=", ".join(self.names), first=self.names[0]))
            return user
        return text


def _seats(args: argparse.Namespace) -> tuple[list[str], list[str]] | str:
    """The players' names and the computers' levels of --players and --computers, or why they cannot sit."""
    players = [p.strip() for p in args.players.split(",") if p.strip()]
    levels = [c.strip().lower() for c in (getattr(args, "computers", None) or "").split(",") if c.strip()]
    wrong = [c for c in levels if c not in LEVELS]
    if wrong:
        return (
            f"--computers {','.join(wrong)}: the levels are {', '.join(LEVELS)} (comma separated, one a "
            "computer seat), e.g. --computers hard,normal"
        )
    if not 2 <= len(players) + len(levels) <= 4 or len(set(players)) != len(players):
        return (
            "--players and --computers seat 2 to 4 in all, the players with different names, e.g. "
            "--players alice,bob or --players alice --computers hard"
        )
    return players, levels


def supported_locale(text: str) -> str | None:
    """The Discord locale --locale names, if the bot speaks its language: "de", "en-GB"; "en" is en-US."""
    low = text.lower()
    exact = [loc for loc in SUPPORTED_LOCALES if low == loc.lower()]
    by_language = [loc for loc in SUPPORTED_LOCALES if low == i18n.language_of(loc)]
    return next(iter(exact + by_language), None)


async def run(args: argparse.Namespace, lines: IO[str] | None = None, out: IO[str] | None = None) -> int:
    seats = _seats(args)
    if isinstance(seats, str):
        print(seats, file=sys.stderr)
        return 2
    locale = supported_locale(getattr(args, "locale", None) or "en-US")
    if locale is None:
        print(
            f"--locale {args.locale}: the console speaks {', '.join(SUPPORTED_LOCALES)} (the bot's "
            "languages), e.g. --locale de",
            file=sys.stderr,
        )
        return 2
    args.locale = locale
    lines = lines or sys.stdin
    # The database is locked against a restore and checked before anything opens it (bot.process.runlock).
    held = open_checks("", Path(args.db))
    if isinstance(held, str):
        print(held, file=sys.stderr)
        return 2
    try:
        return await _session(args, seats, lines, out)
    finally:
        held.release()


async def _session(
    args: argparse.Namespace, seats: tuple[list[str], list[str]], lines: IO[str], out: IO[str] | None
) -> int:
    try:
        console = Console(
            seats[0], args.db, Path(args.out), args.seed, out, getattr(args, "map", None), args.locale,
            computers=seats[1], verbose=getattr(args, "verbose", False), web_port=getattr(args, "web", None),
        )  # fmt: skip
    except (OSError, MapError) as err:
        print(f"Cannot use that map: {err}", file=sys.stderr)
        return 2
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    # SIGTERM and SIGINT end the session the way the bot ends: the line being played finishes, the
    # database closes, the exit status is 0.
    handled: list[signal.Signals] = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, stop.set)
            handled.append(sig)
    queue: asyncio.Queue[str] = asyncio.Queue()

    def read() -> None:
        # A daemon thread, not asyncio.to_thread: a readline blocked on an idle pipe must not keep the
        # process alive after a signal (the default executor is joined at exit, a daemon thread is not).
        while True:
            text = lines.readline()
            loop.call_soon_threadsafe(queue.put_nowait, text)
            if not text:
                return

    try:
        await asyncio.wait_for(console.start(), timeout=60)
    except Exception as err:  # noqa: BLE001 - whatever stops the start, the user gets one sentence
        with contextlib.suppress(Exception):
            await asyncio.wait_for(console.close(), timeout=10)
        print(_sentence(err), file=sys.stderr)
        return 2
    try:
        interactive = lines.isatty()
        threading.Thread(target=read, name="console-input", daemon=True).start()
        while not stop.is_set():
            if interactive:
                print("> ", end="", flush=True)
            getting = asyncio.ensure_future(queue.get())
            stopping = asyncio.ensure_future(stop.wait())
            await asyncio.wait({getting, stopping}, return_when=asyncio.FIRST_COMPLETED)
            stopping.cancel()
            if not getting.done():
                getting.cancel()
                break
            text = getting.result()
            if not text:
                break
            if not interactive:
                console.print(f"> {text.rstrip()}")
            if not await console.line(text):
                break
        farewell = await console.farewell()
    finally:
        await console.close()
        for sig in handled:
            loop.remove_signal_handler(sig)
    console.print(f"Stopped. {farewell}" if stop.is_set() else farewell)
    return 0


def _sentence(err: BaseException) -> str:
    if isinstance(err, ConsoleError | BadDatabase):
        return str(err)
    if isinstance(err, TimeoutError):
        return "The console did not start within a minute; try again, or use another --db."
    if isinstance(err, StoreError | OSError | sqlite3.Error):
        return f"Cannot open the game database ({err}): use another --db, or restore a backup."
    return f"The console could not start: {err}"


def parser() -> argparse.ArgumentParser:
    """The console's command line (``python -m bot console --help``)."""
    parser = argparse.ArgumentParser(prog="python -m bot console", description="Play Alexandros locally.")
    parser.add_argument("--players", required=True, help="names, comma separated: alice[,bob[,carol[,dave]]]")
    parser.add_argument(
        "--computers",
        default="",
        help=f"computer seats by level, comma separated ({', '.join(LEVELS)}), e.g. --computers hard",
    )
    parser.add_argument("--db", default="console.db", help="the game database (default console.db)")
    parser.add_argument("--out", default="console-pictures", help="folder for the pictures")
    parser.add_argument("--seed", type=int, default=None, help="deal the cards from this seed")
    parser.add_argument("--map", default=None, help="a .map file (MAP-FORMAT.md) instead of the default map")
    parser.add_argument(
        "--locale",
        default="en-US",
        help=f"the players' and the server's language: {', '.join(SUPPORTED_LOCALES)}",
    )
    parser.add_argument("--verbose", action="store_true", help="show message ids and the buttons' custom ids")
    parser.add_argument(
        "--web", type=int, nargs="?", const=8080, default=None, metavar="PORT",
        help="serve the game's page on http://127.0.0.1:PORT (default 8080)",
    )  # fmt: skip
    return parser


def main(argv: Sequence[str]) -> int:
    return asyncio.run(run(parser().parse_args(list(argv))))
