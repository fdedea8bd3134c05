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
import signal
import sqlite3
import sys
import threading
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import IO, Any

from babel import Locale, UnknownLocaleError
from babel.dates import format_date, format_time, format_timedelta

from engine.maps import MapError, default_map, load_map
from offline import HarnessError, OfflineDiscord, StoredMessage
from offline.payloads import FakeUser
from storage import BadDatabase, StoreError

from . import i18n
from .client import make_bot
from .i18n import pgettext
from .runlock import open_checks
from .web import links as web_links

HELP = __doc__.split("Lines::", 1)[1] if __doc__ else ""
_PICTURE = re.compile(r"^(\d{4,})-")


class ConsoleError(Exception):
    """The console cannot start: one sentence that says why and what to do."""


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


_OPTION = re.compile(r"([a-z][a-z_]*):")


def parse_options(text: str) -> dict[str, str]:
    """``card:n1 to:D7 path:2`` -> {"card": "n1", ...}; a value runs until the next ``name:``."""
    out: dict[str, str] = {}
    marks = [m for m in _OPTION.finditer(text) if m.start() == 0 or text[m.start() - 1] == " "]
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        out[m.group(1)] = text[m.end() : end].strip()
    return out


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
        web_port: int | None = None,
    ) -> None:
        self.names = list(players)
        self.out = out
        self.stream = stream or sys.stdout
        self.pictures_written = _last_picture_number(out)
        seed_source = (lambda: seed) if seed is not None else None
        game_map = load_map(map_path) if map_path else default_map()
        self.d = OfflineDiscord(
            lambda: make_bot(
                db, seed_source=seed_source, map_provider=lambda: game_map, web_port=web_port,
                public_url=f"http://127.0.0.1:{web_port}" if web_port is not None else "",
            ),
            strict=False,
            loggers=("bot",),
            watched_tasks=("alx-",),
        )
        self.users: dict[str, FakeUser] = {}
        self.locale = locale  # the players' clients and the server speak it (the bot's languages: README)
        self.now: Callable[[], float] = time.time  # the bot's clock (bot.client's default)
        self.numbered: list[tuple[StoredMessage, dict[str, Any]]] = []

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
        record = await bot.store.game_by_channel(self.d.channel_id)
        if record is not None:
            seated = [uid for _, uid in sorted(record.seats)]
            if record.status == "playing" and seated != [self.users[n].id for n in self.names]:
                names = ", ".join(record.options.get("names", {}).get(str(u), "?") for u in seated)
                raise ConsoleError(
                    f"This database holds a game of {names}: start the console with "
                    f"--players {names.replace(', ', ',')}, or use another --db."
                )
            mark = self.d.mark()
            if await bot.pipeline.repost_turn(record.id):
                await bot.deliveries.drain()
                self.print("Carrying on with the game saved in this database.")
                for req in self.d.requests_since(mark):
                    if req.message_id is not None and req.kind == "channel_message":
                        self.show_message(self.d.message(req.message_id))
                await self.show_web()
                return
        creator = self.users[self.names[0]]
        r = await self.d.slash(creator, "alexandros new")
        self.show_result(r, creator)
        lobby = r.response_message
        if lobby is None:
            return
        join = next((c for c in lobby.custom_ids if c.startswith("alx:join:")), None)
        if join is None:
            return
        for n in self.names[1:]:
            self.show_result(await self.d.click(self.users[n], lobby.id, join), self.users[n])
        start = join.replace(":join:", ":start:")
        self.show_result(await self.d.click(creator, lobby.id, start), creator)
        await self.show_web()

    async def show_web(self) -> None:
        """With --web: the address of the game's page (the web face serves it on this machine only)."""
        bot: Any = self.d.bot
        record = await bot.store.game_by_channel(self.d.channel_id)
        if bot.web is not None and record is not None:
            secret = await web_links.secret_of(bot.store, record.id, self.now())
            self.print(f"Watch the game in a browser: {bot.web.url_of(record.id, secret)}")

    async def close(self) -> None:
        await self.d.close()

    # --- output -------------------------------------------------------------------------------------------

    def show_message(self, msg: StoredMessage) -> None:
        who = "public"
        if msg.ephemeral:
            owner = next((n for n, u in self.users.items() if u.id == msg.ephemeral_to), "?")
            who = f"only {owner}"
        self.print(f"--- [{who}] message {msg.id}")
        names = {u.id: n for n, u in self.users.items()}
        channels = {cid: str(c.get("name") or "a-channel") for cid, c in self.d.channels.items()}
        self.print(render_markup(msg.as_text(), names, self.now(), channels, self.locale))
        for a in msg.attachments:
            self.pictures_written += 1
            path = self.out / f"{self.pictures_written:04d}-{a.filename}"
            path.write_bytes(a.data)
            self.print(f"    picture saved: {path}")
        for c in msg.walk_components():
            if c.get("custom_id") and c.get("type") in (2, 3) and not c.get("disabled"):
                self.numbered.append((msg, c))
                label = c.get("label") or c.get("placeholder") or c["custom_id"]
                kind = "button" if c["type"] == 2 else "select"
                self.print(f"    [{len(self.numbered)}] {kind}: {label}")

    def show_result(self, r: Any, user: FakeUser) -> None:
        self.numbered = []
        for mid in r.message_ids:
            msg = self.d.messages.get(mid)
            if msg is not None and not msg.deleted:
                self.show_message(msg)
        if r.choices is not None:
            if not r.choices:
                self.print("    (no choices)")
            for c in r.choices:
                self.print(f"    {c['value']:<12} {c['name']}")
        for problem in [*r.errors, *r.violations]:
            self.print(f"!!! {problem}")

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
        raise HarnessError(f"no button or menu {ref!r} here; type 'board' to see the turn message again")

    async def line(self, text: str) -> bool:
        """Run one input line; False when the user asked to quit."""
        text = text.strip()
        if not text or text.startswith("#"):
            return True
        if text in ("quit", "exit"):
            return False
        if text == "help":
            self.print(HELP)
            return True
        if text == "board":
            for msg in self.d.channel_messages()[-2:]:
                self.numbered = []
                self.show_message(msg)
            return True
        name, sep, rest = text.partition(":")
        user = self.users.get(name.strip())
        if not sep or user is None:
            self.print(
                f"Start a line with a player's name ({', '.join(self.names)}), e.g. 'alice: press Move'."
            )
            return True
        rest = rest.strip()
        try:
            await self._act(user, rest)
        except HarnessError as err:
            self.print(f"!!! {err}")
        return True

    async def _act(self, user: FakeUser, rest: str) -> None:
        d = self.d
        if rest.startswith("/"):
            words = rest[1:].split()
            names = [w for w in words[:3] if ":" not in w]
            # The longest command path the words name: "alexandros me waiting" has three, a group's
            # name alone ("alexandros me") is no command.
            path = " ".join(names[:2])
            for n in range(len(names), 0, -1):
                try:
                    d.command_options(" ".join(names[:n]))
                except HarnessError:
                    continue
                path = " ".join(names[:n])
                break
            options = parse_options(rest[1 + len(path) :].strip())
            focused = next((k for k, v in options.items() if v == "?"), None)
            if focused is not None:
                others = {k: v for k, v in options.items() if k != focused}
                await d.autocomplete(user, path, focused=focused, value="", options=others)
                self.show_result(d.history[-1], user)
                return
            typed: dict[str, Any] = {}
            for opt in d.command_options(path):
                if opt["name"] in options:
                    v: Any = options[opt["name"]]
                    if opt["type"] in (4, 10):  # an integer, a number
                        try:
                            v = int(v) if opt["type"] == 4 else float(v)
                        except ValueError:
                            self.print(f"{opt['name']}: expects a number, like {opt['name']}:3")
                            return
                    elif opt["type"] == 5:
                        v = v.lower() in ("true", "yes", "1")
                    typed[opt["name"]] = v
            self.show_result(await d.slash(user, path, **typed), user)
            return
        verb, _, arg = rest.partition(" ")
        if verb == "press":
            msg, c = self._component(arg.strip(), user)
            self.show_result(await d.click(user, msg.id, c["custom_id"]), user)
        elif verb == "select":
            ref, _, values = arg.strip().partition(" ")
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
            self.print("Type a /command, 'press N', 'select N value' or 'help'.")


async def run(args: argparse.Namespace, lines: IO[str] | None = None, out: IO[str] | None = None) -> int:
    players = [p.strip() for p in args.players.split(",") if p.strip()]
    if not 2 <= len(players) <= 4 or len(set(players)) != len(players):
        print("--players needs 2 to 4 different names, e.g. --players alice,bob", file=sys.stderr)
        return 2
    lines = lines or sys.stdin
    # The database is locked against a restore and checked before anything opens it (bot.runlock).
    held = open_checks("", Path(args.db))
    if isinstance(held, str):
        print(held, file=sys.stderr)
        return 2
    try:
        return await _session(args, players, lines, out)
    finally:
        held.release()


async def _session(args: argparse.Namespace, players: list[str], lines: IO[str], out: IO[str] | None) -> int:
    try:
        console = Console(
            players, args.db, Path(args.out), args.seed, out, getattr(args, "map", None),
            getattr(args, "locale", "en-US"), getattr(args, "web", None),
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
    finally:
        await console.close()
        for sig in handled:
            loop.remove_signal_handler(sig)
    if stop.is_set():
        console.print("Stopped: the game is saved.")
    return 0


def _sentence(err: BaseException) -> str:
    if isinstance(err, ConsoleError | BadDatabase):
        return str(err)
    if isinstance(err, TimeoutError):
        return "The console did not start within a minute; try again, or use another --db."
    if isinstance(err, StoreError | OSError | sqlite3.Error):
        return f"Cannot open the game database ({err}): use another --db, or restore a backup."
    return f"The console could not start: {err}"


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot console", description="Play Alexandros locally.")
    parser.add_argument("--players", required=True, help="names, comma separated: alice,bob[,carol[,dave]]")
    parser.add_argument("--db", default="console.db", help="the game database (default console.db)")
    parser.add_argument("--out", default="console-pictures", help="folder for the pictures")
    parser.add_argument("--seed", type=int, default=None, help="deal the cards from this seed")
    parser.add_argument("--map", default=None, help="a .map file (MAP-FORMAT.md) instead of the default map")
    parser.add_argument("--locale", default="en-US", help="the players' and the server's language: en-US, de")
    parser.add_argument(
        "--web", type=int, nargs="?", const=8080, default=None, metavar="PORT",
        help="serve the game's page on http://127.0.0.1:PORT (default 8080)",
    )  # fmt: skip
    args = parser.parse_args(list(argv))
    return asyncio.run(run(args))
