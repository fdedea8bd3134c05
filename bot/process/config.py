"""The bot's configuration: environment variables, or an optional `.env` file beside the bot.

Server owners configure the bot with a handful of variables (see docs/HOSTING.md). Every mistake
they can make (a missing token, a guild id with a typo, a negative interval) must end in ONE
sentence that says what to do, never in a traceback; and the token must never reach a log, a
repr or an error message.

API
---
load_config(environ, dotenv_path=None, *, require_token=True) -> Config
    Reads the variables below. Real environment variables win over the `.env` file; an empty
    environment variable counts as unset (so `docker run -e DISCORD_TOKEN=` does not hide `.env`).
    Raises ConfigError (its str() is one sentence) for every missing or bad value. Commands that
    need no Discord connection (restore, health) pass require_token=False.
load_or_exit(environ, dotenv_path=None, *, require_token=True) -> Config
    The same, but prints the ConfigError sentence to stderr and exits with status 2: for __main__.
parse_dotenv(text, source=".env") -> dict[str, str]
    The `.env` syntax: KEY=VALUE lines, `export KEY=VALUE`, `#` comments (whole-line, or after a
    space in an unquoted value), 'single quotes' (literal), "double quotes" (\\n \\t \\" \\\\ escapes).
redact(text, config) -> str
    `text` with the token replaced by "[token hidden]".
RedactingFilter(config)
    A logging.Filter for handlers: it rewrites every record so the token never reaches the output.
setup_logging(config, stream=None) -> None
    Root logging at config.log_level, one line per record, through a RedactingFilter. (Then run
    discord.py with `client.run(token, log_handler=None)` or `await client.start(token)`, so that
    discord.py does not install its own handler.)
invite_url(application_id) -> str, BOT_PERMISSION_NAMES, bot_permissions() -> int
    The OAuth2 invite link with exactly the permissions the bot needs (scopes bot and
    applications.commands).

Variables
---------
VARIABLES names every variable, the Config field it sets and what it means; `python -m bot --help` prints
them with the defaults load_config gives when none is set (variables_help), so neither can drift.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, NoReturn

from .event_loop import LOOPS, default_event_loop, have_uvloop

__all__ = [
    "BOT_PERMISSION_NAMES",
    "VARIABLES",
    "LOG_LEVELS",
    "Config",
    "ConfigError",
    "RedactingFilter",
    "bot_permissions",
    "invite_url",
    "load_config",
    "load_or_exit",
    "parse_dotenv",
    "redact",
    "setup_logging",
    "variables_help",
]

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
TOKEN_MASK = "[token hidden]"
DEVELOPER_PORTAL = "https://discord.com/developers/applications"

# Exactly what the bot does in a channel, and nothing more (docs/HOSTING.md explains each one):
# read the channel and its history (to edit its own turn posts), post and edit messages with board
# pictures and embeds, open a thread per game when the channel wants one, and pin each game's status
# message (bot.commands.dashboard; since February 2026 pinning needs Pin Messages, Manage Messages no longer
# does). It never pings @everyone and never manages anything, so it asks for no such permission.
BOT_PERMISSION_NAMES = (
    "view_channel",
    "send_messages",
    "send_messages_in_threads",
    "create_public_threads",
    "embed_links",
    "attach_files",
    "read_message_history",
    "pin_messages",
)
INVITE_SCOPES = ("bot", "applications.commands")

# Every setting (variable, the Config field it sets, what it means); the defaults are load_config's own.
VARIABLES: tuple[tuple[str, str, str], ...] = (
    ("DISCORD_TOKEN", "token", "the bot token, required to run the bot (never printed)"),
    ("ALEXANDROS_DATA_DIR", "data_dir", "data folder, relative to the working folder"),
    ("ALEXANDROS_DB", "db_path", "SQLite database file (in the data folder unless set)"),
    ("ALEXANDROS_LOG_LEVEL", "log_level", f"{', '.join(LOG_LEVELS)}"),
    ("ALEXANDROS_TEST_GUILD", "test_guild", "a server id: sync the commands there only, instantly"),
    (
        "ALEXANDROS_BACKUP_INTERVAL_HOURS",
        "backup_interval_hours",
        "hours between backups; 0 turns backups off",
    ),
    ("ALEXANDROS_BACKUP_KEEP", "backup_keep", "how many backups to keep"),
    ("ALEXANDROS_BACKUP_DIR", "backup_dir", "backup folder (in the data folder unless set)"),
    ("ALEXANDROS_REMINDER_HOURS", "reminder_hours", "a table's default hours between turn reminders"),
    ("ALEXANDROS_RULES_URL", "rules_url", "an http(s) link to the full rules, shown by /alexandros rules"),
    (
        "ALEXANDROS_DATABASE_URL",
        "database_url",
        "postgresql://user:password@host/db: a PostgreSQL store instead of the SQLite file (several "
        "processes can share it)",
    ),
    (
        "ALEXANDROS_RENDER_WORKERS",
        "render_workers",
        "processes that draw the pictures (unset: the cores less one, at least 1); 0 draws in a thread",
    ),
    (
        "ALEXANDROS_RENDER_SPARE",
        "render_spare",
        "1: one more render process in the OS's idle class, drawing with the CPU the bot leaves over when "
        "the others are busy (unset: 1 on 2 cores or more); 0: none",
    ),
    (
        "ALEXANDROS_PIN_CORES",
        "pin_cores",
        "1: the bot's own process on one core, its workers on the others, while other programs take less "
        "than a quarter of the cores (Linux, 2 cores or more; unset: 1 unless the process runs only some of "
        "the shards); 0: the system places them",
    ),
    (
        "ALEXANDROS_EVENT_LOOP",
        "event_loop",
        "uvloop or asyncio: the event loop of the bot's process (unset: uvloop where it is installed; "
        "there is none for Windows)",
    ),
    (
        "ALEXANDROS_COMPUTER_WORKERS",
        "computer_workers",
        "processes where computer players and hints think, at a lower priority; 0 thinks in a thread",
    ),
    ("ALEXANDROS_CACHE_GAMES", "cache_games", "game states kept in memory, most recently used"),
    ("ALEXANDROS_KEEP_SENT_DAYS", "keep_sent_days", "days a delivered message stays in the outbox's log"),
    (
        "ALEXANDROS_SHARD_COUNT",
        "shard_count",
        "shards of the whole bot (unset: as many as Discord recommends, in one process)",
    ),
    (
        "ALEXANDROS_SHARD_IDS",
        "shard_ids",
        "this process's shards, like 0-3 or 4,5 (with ALEXANDROS_SHARD_COUNT)",
    ),
    (
        "ALEXANDROS_WEB_PORT",
        "web_port",
        "the port of the web face (a page per game, /healthz, /metrics); unset: no web server. Needs "
        "ALEXANDROS_PUBLIC_URL",
    ),
    ("ALEXANDROS_PUBLIC_URL", "public_url", "the https:// address players reach that port at (Watch links)"),
    ("ALEXANDROS_WEB_HOST", "web_host", "the address the web server listens on"),
    (
        "ALEXANDROS_WEB_PER_ADDRESS",
        "web_per_address",
        "connections one address may hold at once (behind a proxy every page comes from the proxy's address: "
        "raise it, and let the proxy limit)",
    ),
    (
        "ALEXANDROS_SEND_RATE",
        "send_rate",
        "messages a second this process sends at most (Discord allows a bot 50 in all: in a cluster, divide "
        "them among the processes)",
    ),
)

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "$": "$"}


def default_render_workers() -> int:
    """The render workers a host gets unless it says otherwise: the cores this process may run on less
    one, kept for the bot's own process (its event loop), and at least 1 (issue 32)."""
    return max(1, _cores() - 1)


def default_render_spare() -> int:
    """1 (a spare render worker in the idle class) where there is a core beside the bot's to leave over."""
    return 1 if _cores() >= 2 else 0


def default_pin_cores(some_shards: bool = False) -> int:
    """1 (the bot's process kept to a core of its own: bot.process.cores) where the system can and there
    are 2 cores or more, unless this process runs only some of the shards: several bot processes on one
    machine would all take the same core."""
    return 1 if hasattr(os, "sched_setaffinity") and _cores() >= 2 and not some_shards else 0


def _cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # no sched_getaffinity (macOS, Windows)
        return os.cpu_count() or 1


class ConfigError(ValueError):
    """A missing or bad setting. str(error) is one sentence meant for the server owner."""


@dataclass(frozen=True)
class Config:
    """Validated settings. Paths are as given (relative ones are relative to the working folder)."""

    token: str
    data_dir: Path
    db_path: Path
    log_level: str
    test_guild: int | None
    backup_interval_hours: float
    backup_keep: int
    backup_dir: Path
    reminder_hours: float
    rules_url: str = ""
    database_url: str = ""  # postgresql://…: never shown (it may hold a password)
    render_workers: int = dataclasses.field(default_factory=lambda: default_render_workers())
    render_spare: int = dataclasses.field(default_factory=lambda: default_render_spare())
    pin_cores: int = dataclasses.field(default_factory=lambda: default_pin_cores())
    event_loop: str = dataclasses.field(default_factory=lambda: default_event_loop())
    computer_workers: int = 1
    cache_games: int = 2000
    keep_sent_days: float = 30.0
    shard_count: int | None = None
    shard_ids: tuple[int, ...] | None = None
    send_rate: float = 45.0
    web_port: int | None = None
    public_url: str = ""
    web_host: str = "0.0.0.0"
    web_per_address: int = 32

    def __repr__(self) -> str:
        # Written by hand, not by the dataclass, so that the token can never be printed: a repr
        # ends up in tracebacks, debug logs and bug reports.
        shown = TOKEN_MASK if self.token else "''"
        return (
            f"Config(token={shown}, data_dir={str(self.data_dir)!r}, db_path={str(self.db_path)!r}, "
            f"log_level={self.log_level!r}, test_guild={self.test_guild!r}, "
            f"backup_interval_hours={self.backup_interval_hours!r}, backup_keep={self.backup_keep!r}, "
            f"backup_dir={str(self.backup_dir)!r}, reminder_hours={self.reminder_hours!r}, "
            f"rules_url={self.rules_url!r}, database_url={'[hidden]' if self.database_url else ''!r}, "
            f"render_workers={self.render_workers!r}, render_spare={self.render_spare!r}, "
            f"pin_cores={self.pin_cores!r}, "
            f"event_loop={self.event_loop!r}, "
            f"computer_workers={self.computer_workers!r}, "
            f"cache_games={self.cache_games!r}, "
            f"keep_sent_days={self.keep_sent_days!r}, shard_count={self.shard_count!r}, "
            f"shard_ids={self.shard_ids!r}, send_rate={self.send_rate!r}, web_port={self.web_port!r}, "
            f"public_url={self.public_url!r}, web_host={self.web_host!r}, "
            f"web_per_address={self.web_per_address!r})"
        )

    __str__ = __repr__

    @property
    def backups_enabled(self) -> bool:
        # PostgreSQL is backed up with pg_dump (docs/SCALING.md), not by the bot.
        return self.backup_interval_hours > 0 and not self.database_url

    @property
    def database(self) -> str:
        """What storage.open_database opens: the PostgreSQL URL, or the SQLite file."""
        return self.database_url or str(self.db_path)


def parse_dotenv(text: str, source: str = ".env") -> dict[str, str]:
    """The variables of a `.env` file. Raises ConfigError naming the line (never the value: it may be
    the token)."""
    values: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("export ") or line.startswith("export\t"):
            line = line[len("export") :].lstrip()
        key, sep, rest = line.partition("=")
        key = key.strip()
        if not sep or not _KEY.fullmatch(key):
            raise ConfigError(
                f"Line {number} of {source} is not a KEY=VALUE line: write it like DISCORD_TOKEN=abc123, "
                "or start it with # to make it a comment."
            )
        values[key] = _dotenv_value(rest.strip(), key, number, source)
    return values


def _dotenv_value(rest: str, key: str, number: int, source: str) -> str:
    if rest[:1] in ("'", '"'):
        quote = rest[0]
        out: list[str] = []
        i = 1
        while i < len(rest):
            ch = rest[i]
            if quote == '"' and ch == "\\" and i + 1 < len(rest):
                out.append(_ESCAPES.get(rest[i + 1], "\\" + rest[i + 1]))
                i += 2
                continue
            if ch == quote:
                after = rest[i + 1 :].strip()
                if after and not after.startswith("#"):
                    break  # text after the closing quote: reported below
                return "".join(out)
            out.append(ch)
            i += 1
        raise ConfigError(
            f"The value of {key} on line {number} of {source} has an unclosed quote or text after its "
            "closing quote: put the whole value between one pair of quotes."
        )
    # Unquoted: a # starts a comment only after whitespace, so a value like abc#def stays whole.
    match = re.search(r"\s#", rest)
    if match:
        rest = rest[: match.start()]
    return rest.strip()


def _read_dotenv(path: Path | None) -> dict[str, str]:
    if path is None or not path.is_file():
        return {}  # .env is optional
    try:
        text = path.read_text(encoding="utf-8-sig")  # -sig: editors on Windows may add a BOM
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(
            f"{path} cannot be read ({type(exc).__name__}): check its permissions and that it "
            "is a UTF-8 text file."
        ) from None
    return parse_dotenv(text, str(path))


def load_config(
    environ: Mapping[str, str], dotenv_path: Path | None = None, *, require_token: bool = True
) -> Config:
    """Validated settings from `environ` over the optional `.env` at `dotenv_path`."""
    merged = _read_dotenv(dotenv_path)
    merged.update({k: v for k, v in environ.items() if v.strip() != ""})

    def get(name: str) -> str | None:
        value = merged.get(name, "").strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            # Quotes kept as part of the value: `docker run --env-file .env` passes them on, while this
            # program's own .env reader takes them off. No setting's value starts and ends with one.
            value = value[1:-1].strip()
        return value or None

    token = _token(get("DISCORD_TOKEN"), require_token)
    data_dir = Path(get("ALEXANDROS_DATA_DIR") or "data")
    db_path = Path(get("ALEXANDROS_DB") or data_dir / "alexandros.db")
    backup_dir = Path(get("ALEXANDROS_BACKUP_DIR") or data_dir / "backups")

    level = (get("ALEXANDROS_LOG_LEVEL") or "INFO").upper()
    if level == "WARN":
        level = "WARNING"
    if level not in LOG_LEVELS:
        raise ConfigError(
            f"ALEXANDROS_LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}: INFO is the usual choice."
        )

    guild_text = get("ALEXANDROS_TEST_GUILD")
    test_guild: int | None = None
    if guild_text is not None:
        if not guild_text.isdigit() or int(guild_text) <= 0:
            raise ConfigError(
                "ALEXANDROS_TEST_GUILD must be a server id made of digits only: in Discord turn on "
                "Developer Mode (User Settings > Advanced), right-click the server and choose Copy Server ID."
            )
        test_guild = int(guild_text)

    shards = _shards(get("ALEXANDROS_SHARD_COUNT"), get("ALEXANDROS_SHARD_IDS"))
    web_port, public_url = _web(get("ALEXANDROS_WEB_PORT"), get("ALEXANDROS_PUBLIC_URL"))
    return Config(
        token=token,
        data_dir=data_dir,
        db_path=db_path,
        log_level=level,
        test_guild=test_guild,
        backup_interval_hours=_hours(
            get("ALEXANDROS_BACKUP_INTERVAL_HOURS"),
            "ALEXANDROS_BACKUP_INTERVAL_HOURS",
            24.0,
            allow_zero=True,
            zero_means="turns backups off",
        ),
        backup_keep=_count(get("ALEXANDROS_BACKUP_KEEP"), "ALEXANDROS_BACKUP_KEEP", 7),
        backup_dir=backup_dir,
        reminder_hours=_hours(
            get("ALEXANDROS_REMINDER_HOURS"),
            "ALEXANDROS_REMINDER_HOURS",
            24.0,
            allow_zero=False,
            zero_means="",
        ),
        rules_url=_url(get("ALEXANDROS_RULES_URL"), "ALEXANDROS_RULES_URL"),
        database_url=_database_url(get("ALEXANDROS_DATABASE_URL")),
        render_workers=_whole(
            get("ALEXANDROS_RENDER_WORKERS"), "ALEXANDROS_RENDER_WORKERS", default_render_workers(), 0, 64
        ),
        render_spare=_whole(
            get("ALEXANDROS_RENDER_SPARE"), "ALEXANDROS_RENDER_SPARE", default_render_spare(), 0, 1
        ),
        pin_cores=_whole(
            get("ALEXANDROS_PIN_CORES"), "ALEXANDROS_PIN_CORES", default_pin_cores(_some_shards(shards)), 0, 1
        ),
        event_loop=_event_loop(get("ALEXANDROS_EVENT_LOOP")),
        computer_workers=_whole(get("ALEXANDROS_COMPUTER_WORKERS"), "ALEXANDROS_COMPUTER_WORKERS", 1, 0, 16),
        cache_games=_count(get("ALEXANDROS_CACHE_GAMES"), "ALEXANDROS_CACHE_GAMES", 2000),
        keep_sent_days=_hours(
            get("ALEXANDROS_KEEP_SENT_DAYS"),
            "ALEXANDROS_KEEP_SENT_DAYS",
            30.0,
            allow_zero=False,
            zero_means="",
            unit="days",
        ),
        send_rate=float(_whole(get("ALEXANDROS_SEND_RATE"), "ALEXANDROS_SEND_RATE", 45, 1, 1000)),
        shard_count=shards[0] if shards else None,
        shard_ids=shards[1] if shards else None,
        web_port=web_port,
        public_url=public_url,
        web_host=get("ALEXANDROS_WEB_HOST") or "0.0.0.0",
        web_per_address=_whole(
            get("ALEXANDROS_WEB_PER_ADDRESS"), "ALEXANDROS_WEB_PER_ADDRESS", 32, 1, 1_000_000
        ),
    )


def _event_loop(value: str | None) -> str:
    if value is None:
        return default_event_loop()
    name = value.lower()
    if name not in LOOPS:
        raise ConfigError(
            f"ALEXANDROS_EVENT_LOOP must be {' or '.join(LOOPS)}: leave it unset for uvloop where it is "
            "installed."
        )
    if name == "uvloop" and not have_uvloop():
        raise ConfigError(
            "ALEXANDROS_EVENT_LOOP is uvloop, which is not installed here (there is none for Windows): leave "
            "it unset, or set it to asyncio."
        )
    return name


def _web(port_text: str | None, url_text: str | None) -> tuple[int | None, str]:
    """The web face: off until a host sets both its port and the address players reach it at."""
    if port_text is None and url_text is None:
        return None, ""
    if port_text is None or url_text is None:
        raise ConfigError(
            "ALEXANDROS_WEB_PORT and ALEXANDROS_PUBLIC_URL go together: for example WEB_PORT=8080 and "
            "PUBLIC_URL=https://alexandros.example.org (the address players open, which reaches that port)."
        )
    port = _whole(port_text, "ALEXANDROS_WEB_PORT", 8080, 1, 65535)
    return port, _url(url_text, "ALEXANDROS_PUBLIC_URL").rstrip("/")


def _database_url(value: str | None) -> str:
    if value is None:
        return ""
    if not re.match(r"postgres(ql)?://", value):
        raise ConfigError(
            "ALEXANDROS_DATABASE_URL must be a PostgreSQL link like "
            "postgresql://user:password@host/alexandros (leave it unset to use the SQLite file)."
        )
    return value


def _whole(value: str | None, name: str, default: int, low: int, high: int) -> int:
    if value is None:
        return default
    if not value.isdigit() or not low <= int(value) <= high:
        raise ConfigError(f"{name} must be a whole number from {low} to {high} (for example {default}).")
    return int(value)


def _shards(count_text: str | None, ids_text: str | None) -> tuple[int, tuple[int, ...]] | None:
    """This process's slice of the shards: ALEXANDROS_SHARD_COUNT and ALEXANDROS_SHARD_IDS go together."""
    if count_text is None and ids_text is None:
        return None
    example = "for example SHARD_COUNT=4 and SHARD_IDS=0-1 on one process, 2-3 on another"
    if count_text is None or ids_text is None:
        raise ConfigError(f"ALEXANDROS_SHARD_COUNT and ALEXANDROS_SHARD_IDS go together: {example}.")
    count = _whole(count_text, "ALEXANDROS_SHARD_COUNT", 1, 1, 100_000)
    ids: set[int] = set()
    for part in ids_text.replace(" ", "").split(","):
        lo, sep, hi = part.partition("-")
        if not lo.isdigit() or (sep and not hi.isdigit()):
            raise ConfigError(f"ALEXANDROS_SHARD_IDS must list shard numbers like 0-3 or 4,5: {example}.")
        ids.update(range(int(lo), int(hi or lo) + 1))
    if not ids or max(ids) >= count:
        raise ConfigError(f"ALEXANDROS_SHARD_IDS must be shards from 0 to {count - 1}: {example}.")
    return count, tuple(sorted(ids))


def _some_shards(shards: tuple[int, tuple[int, ...]] | None) -> bool:
    """Whether this process runs only some of the bot's shards (others run elsewhere, maybe beside it)."""
    return shards is not None and len(shards[1]) < shards[0]


def _url(value: str | None, name: str) -> str:
    if value is None:
        return ""
    if not re.fullmatch(r"https?://\S+", value):
        raise ConfigError(f"{name} must be a web link starting with https:// or http://.")
    return value


def _token(value: str | None, required: bool) -> str:
    if value is None:
        if required:
            raise ConfigError(
                f"DISCORD_TOKEN is not set: create a bot at {DEVELOPER_PORTAL}, copy its token, and set "
                "DISCORD_TOKEN in the environment or in .env."
            )
        return ""
    if value.lower().startswith("bot "):
        value = value[4:].strip()  # people paste the HTTP header form; discord.py adds "Bot " itself
    if any(ch.isspace() for ch in value) or len(value) < 20:
        # Never echo the value: it may be a real token with a stray character.
        raise ConfigError(
            f"DISCORD_TOKEN does not look like a bot token: copy it again from the Bot page at "
            f"{DEVELOPER_PORTAL} (Reset Token), without spaces or quotes around it."
        )
    return value


def _hours(
    value: str | None, name: str, default: float, *, allow_zero: bool, zero_means: str, unit: str = "hours"
) -> float:
    if value is None:
        return default
    try:
        hours = float(value)
    except ValueError:
        hours = math.nan
    low = "from 0" if allow_zero else "more than 0 and"
    if not math.isfinite(hours) or hours < 0 or (hours == 0 and not allow_zero) or hours > 24 * 366:
        extra = f", and 0 {zero_means}" if allow_zero else ""
        raise ConfigError(
            f"{name} must be a number of {unit} {low} up to 8784 (for example {default:g}){extra}."
        )
    return hours


def _count(value: str | None, name: str, default: int) -> int:
    if value is None:
        return default
    if not value.isdigit() or int(value) < 1:
        raise ConfigError(f"{name} must be a whole number of 1 or more (for example {default}).")
    return int(value)


def variables_help() -> list[str]:
    """One line a variable: its name, what it means, and its default (what load_config gives unset)."""
    defaults = load_config({}, None, require_token=False)
    width = max(len(name) for name, _, _ in VARIABLES)
    lines = []
    for name, field, meaning in VARIABLES:
        value = getattr(defaults, field)
        shown = "unset" if value in (None, "") else f"{value:g}" if isinstance(value, float) else str(value)
        lines.append(f"  {name:<{width}}  {meaning}; default {shown}")
    return lines


def load_or_exit(
    environ: Mapping[str, str], dotenv_path: Path | None = None, *, require_token: bool = True
) -> Config:
    """`load_config`, but a ConfigError prints its sentence to stderr and exits with status 2."""
    try:
        return load_config(environ, dotenv_path, require_token=require_token)
    except ConfigError as exc:
        _exit(str(exc))


def _exit(sentence: str) -> NoReturn:
    print(f"Configuration error: {sentence}", file=sys.stderr)
    raise SystemExit(2)


def redact(text: str, config: Config) -> str:
    """`text` with every occurrence of the token replaced by a mask."""
    if not config.token:
        return text
    return text.replace(config.token, TOKEN_MASK)


class RedactingFilter(logging.Filter):
    """Masks the token in every record that passes through the handler it is attached to.

    It formats the record's message once and drops the args, so a token passed as an argument
    (logger.info("token %s", token)) is masked as well as one inside the message or a traceback.
    """

    def __init__(self, config: Config) -> None:
        super().__init__()
        self._config = config

    def filter(self, record: logging.LogRecord) -> bool:
        if not self._config.token:
            return True
        message = record.getMessage()
        record.msg = redact(message, self._config)
        record.args = None
        if record.exc_info:
            # Render the traceback now, masked, and keep the text in the cache the Formatter uses.
            record.exc_text = redact(logging.Formatter().formatException(record.exc_info), self._config)
            record.exc_info = None
        elif record.exc_text:
            record.exc_text = redact(record.exc_text, self._config)
        return True


def setup_logging(config: Config, stream: IO[str] | None = None) -> None:
    """Root logging at the configured level, one line per record, with the token masked."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RedactingFilter(config))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(config.log_level)


def bot_permissions() -> int:
    """The permissions integer of the invite link, computed from discord.py's own flags."""
    import discord  # here, not at the top: restore and health load the config without discord.py

    return discord.Permissions(**dict.fromkeys(BOT_PERMISSION_NAMES, True)).value


def invite_url(application_id: int) -> str:
    """The link that adds the bot to a server with exactly the permissions it needs."""
    if application_id <= 0:
        raise ValueError("application_id must be the application's positive numeric id")
    scopes = "+".join(INVITE_SCOPES)
    return (
        f"https://discord.com/oauth2/authorize?client_id={application_id}"
        f"&permissions={bot_permissions()}&scope={scopes}"
    )
