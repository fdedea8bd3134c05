"""bot.process.config: every mistake is one sentence, .env parsing, precedence, and the token kept out
of sight."""

from __future__ import annotations

import io
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.process.config import (
    BOT_PERMISSION_NAMES,
    Config,
    ConfigError,
    RedactingFilter,
    bot_permissions,
    invite_url,
    load_config,
    parse_dotenv,
    redact,
    setup_logging,
    variables_help,
)

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GabcDE.fake-token-for-tests_0123456789abcdef"


def one_sentence(text: str) -> bool:
    return "\n" not in text and text.endswith(".") and text[0].isupper()


def test_defaults() -> None:
    config = load_config({"DISCORD_TOKEN": TOKEN}, None)
    assert config.token == TOKEN
    assert config.data_dir == Path("data")
    assert config.db_path == Path("data/alexandros.db")
    assert config.backup_dir == Path("data/backups")
    assert config.log_level == "INFO"
    assert config.test_guild is None
    assert config.backup_interval_hours == 24 and config.backups_enabled
    assert config.backup_keep == 7
    assert config.reminder_hours == 24


def test_data_dir_moves_the_database_and_backups_unless_they_are_set() -> None:
    config = load_config({"DISCORD_TOKEN": TOKEN, "ALEXANDROS_DATA_DIR": "/data"}, None)
    assert config.db_path == Path("/data/alexandros.db") and config.backup_dir == Path("/data/backups")
    config = load_config(
        {
            "DISCORD_TOKEN": TOKEN,
            "ALEXANDROS_DATA_DIR": "/data",
            "ALEXANDROS_DB": "/x/games.db",
            "ALEXANDROS_BACKUP_DIR": "/y",
        },
        None,
    )
    assert config.db_path == Path("/x/games.db") and config.backup_dir == Path("/y")


def test_all_values() -> None:
    config = load_config(
        {
            "DISCORD_TOKEN": TOKEN,
            "ALEXANDROS_LOG_LEVEL": "debug",
            "ALEXANDROS_TEST_GUILD": "123456789012345678",
            "ALEXANDROS_BACKUP_INTERVAL_HOURS": "0",
            "ALEXANDROS_BACKUP_KEEP": "3",
            "ALEXANDROS_REMINDER_HOURS": "12.5",
        },
        None,
    )
    assert config.log_level == "DEBUG"
    assert config.test_guild == 123456789012345678
    assert config.backup_interval_hours == 0 and not config.backups_enabled
    assert config.backup_keep == 3
    assert config.reminder_hours == 12.5


def test_missing_token_is_one_sentence() -> None:
    with pytest.raises(ConfigError) as err:
        load_config({}, None)
    assert str(err.value) == (
        "DISCORD_TOKEN is not set: create a bot at https://discord.com/developers/applications, copy its "
        "token, and set DISCORD_TOKEN in the environment or in .env."
    )
    assert load_config({}, None, require_token=False).token == ""


def test_missing_token_prints_one_line_and_no_traceback(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "DISCORD_TOKEN"}
    env["PYTHONPATH"] = str(ROOT)
    run = subprocess.run(
        [
            sys.executable,
            "-c",
            "import os; from bot.process.config import load_or_exit; load_or_exit(os.environ, None)",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert run.returncode == 2
    assert "Traceback" not in run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Configuration error: DISCORD_TOKEN is not set:"), (
        run.stderr
    )


@pytest.mark.parametrize(
    ("name", "value", "words"),
    [
        ("ALEXANDROS_TEST_GUILD", "12ab", "digits only"),
        ("ALEXANDROS_TEST_GUILD", "-5", "digits only"),
        ("ALEXANDROS_LOG_LEVEL", "LOUD", "DEBUG, INFO, WARNING, ERROR"),
        ("ALEXANDROS_BACKUP_INTERVAL_HOURS", "-1", "from 0 up to"),
        ("ALEXANDROS_BACKUP_INTERVAL_HOURS", "daily", "number of hours"),
        ("ALEXANDROS_BACKUP_INTERVAL_HOURS", "nan", "number of hours"),
        ("ALEXANDROS_BACKUP_INTERVAL_HOURS", "99999", "up to 8784"),
        ("ALEXANDROS_BACKUP_KEEP", "0", "1 or more"),
        ("ALEXANDROS_BACKUP_KEEP", "2.5", "whole number"),
        ("ALEXANDROS_REMINDER_HOURS", "0", "more than 0 and up to"),
        ("ALEXANDROS_REMINDER_HOURS", "-3", "more than 0"),
        ("DISCORD_TOKEN", "not a token", "does not look like a bot token"),
        ("ALEXANDROS_DATABASE_URL", "mysql://x/y", "PostgreSQL link"),
        ("ALEXANDROS_RENDER_WORKERS", "lots", "whole number from 0 to 64"),
        ("ALEXANDROS_RENDER_SPARE", "2", "whole number from 0 to 1"),
        ("ALEXANDROS_EVENT_LOOP", "tokio", "uvloop or asyncio"),
        ("ALEXANDROS_CACHE_GAMES", "0", "1 or more"),
        ("ALEXANDROS_KEEP_SENT_DAYS", "0", "more than 0"),
        ("ALEXANDROS_SHARD_COUNT", "4", "go together"),
        ("ALEXANDROS_SHARD_IDS", "1", "go together"),
    ],
)
def test_bad_values_are_one_sentence_naming_the_variable(name: str, value: str, words: str) -> None:
    env = {"DISCORD_TOKEN": TOKEN, name: value}
    with pytest.raises(ConfigError) as err:
        load_config(env, None)
    message = str(err.value)
    assert one_sentence(message), message
    assert name in message and words in message
    if name == "DISCORD_TOKEN":
        assert value not in message  # a bad token is never echoed


def test_bot_prefix_is_dropped_from_the_token() -> None:
    assert load_config({"DISCORD_TOKEN": f"Bot {TOKEN}"}, None).token == TOKEN


def test_dotenv_syntax() -> None:
    text = """
# a comment
export DISCORD_TOKEN="abc\\"def"   # trailing comment
PLAIN = value with spaces  # comment
HASH=abc#def
SINGLE='raw \\n $x # kept'
DOUBLE="line\\nbreak"
EMPTY=
"""
    assert parse_dotenv(text) == {
        "DISCORD_TOKEN": 'abc"def',
        "PLAIN": "value with spaces",
        "HASH": "abc#def",
        "SINGLE": "raw \\n $x # kept",
        "DOUBLE": "line\nbreak",
        "EMPTY": "",
    }


@pytest.mark.parametrize("line", ["JUST_A_WORD", "1BAD=x", 'Q="unclosed', "Q='a' b"])
def test_dotenv_errors_name_the_line_and_not_the_value(line: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse_dotenv(f"OK=1\n{line}\n", "my.env")
    message = str(err.value)
    assert one_sentence(message) and "line 2 of my.env" in message.lower()


def test_environment_wins_over_dotenv(tmp_path: Path) -> None:
    dotenv = tmp_path / ".env"
    dotenv.write_text(f"DISCORD_TOKEN={TOKEN}\nALEXANDROS_LOG_LEVEL=DEBUG\nALEXANDROS_BACKUP_KEEP=3\n")
    config = load_config({"ALEXANDROS_LOG_LEVEL": "ERROR", "ALEXANDROS_BACKUP_KEEP": ""}, dotenv)
    assert config.token == TOKEN  # from .env
    assert config.log_level == "ERROR"  # the environment wins
    assert config.backup_keep == 3  # an empty environment variable does not hide .env


def test_missing_dotenv_is_fine(tmp_path: Path) -> None:
    assert load_config({"DISCORD_TOKEN": TOKEN}, tmp_path / "nothing.env").token == TOKEN


def test_token_is_masked_in_repr_and_redact() -> None:
    config = load_config({"DISCORD_TOKEN": TOKEN}, None)
    assert TOKEN not in repr(config) and TOKEN not in str(config) and TOKEN not in f"{config}"
    assert "[token hidden]" in repr(config)
    assert (
        redact(f"login with {TOKEN} failed; {TOKEN}", config)
        == "login with [token hidden] failed; [token hidden]"
    )
    empty = load_config({}, None, require_token=False)
    assert redact("nothing to hide", empty) == "nothing to hide"


def test_logs_never_show_the_token() -> None:
    config = load_config({"DISCORD_TOKEN": TOKEN}, None)
    stream = io.StringIO()
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    try:
        setup_logging(config, stream)
        log = logging.getLogger("tests.ops.config")
        log.info("as argument %s", TOKEN)
        log.warning(f"inside the message {TOKEN}")
        try:
            raise RuntimeError(f"in a traceback {TOKEN}")
        except RuntimeError:
            log.exception("boom")
    finally:
        for handler in list(root.handlers):
            root.removeHandler(handler)
        for handler in saved[0]:
            root.addHandler(handler)
        root.setLevel(saved[1])
    output = stream.getvalue()
    assert TOKEN not in output
    assert output.count("[token hidden]") == 3
    assert isinstance(RedactingFilter(config), logging.Filter)


def test_config_is_frozen() -> None:
    config = load_config({"DISCORD_TOKEN": TOKEN}, None)
    with pytest.raises(AttributeError):
        config.token = "x"  # type: ignore[misc]
    assert isinstance(config, Config)


def test_invite_url_has_exactly_the_needed_permissions() -> None:
    # The bits from Discord's documentation, independent of discord.py.
    expected = (
        (1 << 10)  # VIEW_CHANNEL
        | (1 << 11)  # SEND_MESSAGES
        | (1 << 38)  # SEND_MESSAGES_IN_THREADS
        | (1 << 35)  # CREATE_PUBLIC_THREADS
        | (1 << 14)  # EMBED_LINKS
        | (1 << 15)  # ATTACH_FILES
        | (1 << 16)  # READ_MESSAGE_HISTORY
        | (1 << 51)  # PIN_MESSAGES (the game's status message)
    )
    assert bot_permissions() == expected == 2252109051448320
    assert not bot_permissions() & (1 << 17)  # MENTION_EVERYONE is not asked for
    assert not bot_permissions() & (1 << 3)  # nor ADMINISTRATOR
    assert not bot_permissions() & (1 << 13)  # nor MANAGE_MESSAGES (pinning has its own permission)
    assert len(BOT_PERMISSION_NAMES) == 8
    url = invite_url(1234567890)
    assert url == (
        "https://discord.com/oauth2/authorize?client_id=1234567890"
        f"&permissions={expected}&scope=bot+applications.commands"
    )
    with pytest.raises(ValueError):
        invite_url(0)


def test_rules_url_is_optional_checked_and_reaches_the_rules_summary() -> None:
    from bot.words.words import rules_summary

    assert load_config({"DISCORD_TOKEN": TOKEN}).rules_url == ""
    url = "https://example.org/alexandros/docs/ALEXANDROS.md"
    assert load_config({"DISCORD_TOKEN": TOKEN, "ALEXANDROS_RULES_URL": url}).rules_url == url
    with pytest.raises(ConfigError) as err:
        load_config({"DISCORD_TOKEN": TOKEN, "ALEXANDROS_RULES_URL": "docs/rules"})
    assert str(err.value).count(".") >= 1 and "ALEXANDROS_RULES_URL" in str(err.value)
    assert f"<{url}>" in rules_summary(url)
    assert "docs/ALEXANDROS.md" in rules_summary("") and "{" not in rules_summary("")


def test_a_cluster_process_and_a_postgresql_store() -> None:
    env = {
        "DISCORD_TOKEN": TOKEN,
        "ALEXANDROS_SHARD_COUNT": "8",
        "ALEXANDROS_SHARD_IDS": "0-2, 5",
        "ALEXANDROS_DATABASE_URL": "postgresql://bot:secret@db/alexandros",
        "ALEXANDROS_RENDER_WORKERS": "0",
        "ALEXANDROS_COMPUTER_WORKERS": "3",
    }
    config = load_config(env, None)
    assert (config.shard_count, config.shard_ids) == (8, (0, 1, 2, 5))
    assert config.database == "postgresql://bot:secret@db/alexandros" and not config.backups_enabled
    assert config.render_workers == 0 and config.computer_workers == 3
    assert "secret" not in repr(config), "the database password is never shown"
    for ids in ("8", "2-x", ""):
        with pytest.raises(ConfigError) as err:
            load_config(
                {**env, "ALEXANDROS_SHARD_IDS": ids} if ids else {**env, "ALEXANDROS_SHARD_IDS": "9"}, None
            )
        assert "ALEXANDROS_SHARD_IDS" in str(err.value) and one_sentence(str(err.value))


def test_a_pair_of_quotes_around_a_whole_value_is_taken_off() -> None:
    """`docker run --env-file .env` passes `DISCORD_TOKEN="…"` on with its quotes; the token (or a folder)
    with quotes in it was refused by Discord, or made a folder named with quotes."""
    config = load_config({"DISCORD_TOKEN": f'"{TOKEN}"', "ALEXANDROS_DATA_DIR": "'/srv/alexandros'"}, None)
    assert config.token == TOKEN and config.data_dir == Path("/srv/alexandros")


def test_the_days_a_sent_message_is_kept_are_called_days() -> None:
    with pytest.raises(ConfigError) as err:
        load_config({"DISCORD_TOKEN": TOKEN, "ALEXANDROS_KEEP_SENT_DAYS": "0"}, None)
    assert "number of days" in str(err.value)


@pytest.mark.parametrize(
    ("variable", "field", "by_cores", "other", "default_said"),
    [
        # the cores this process may run on less one (kept for the bot's event loop), at least 1
        (
            "ALEXANDROS_RENDER_WORKERS",
            "render_workers",
            {1: 1, 2: 1, 4: 3, 16: 15},
            2,
            "cores − 1 (at least 1)",
        ),
        # a spare worker in the idle class draws with what the bot's core leaves over: none on one core
        ("ALEXANDROS_RENDER_SPARE", "render_spare", {1: 0, 2: 1, 16: 1}, 0, "1 on 2 cores or more"),
        # the bot's process on a core of its own, its workers on the others (bot.process.cores)
        ("ALEXANDROS_PIN_CORES", "pin_cores", {1: 0, 2: 1, 16: 1}, 0, "1 on 2 cores or more"),
    ],
)
def test_issue_32_the_render_workers_default_by_the_cores(
    monkeypatch: pytest.MonkeyPatch,
    variable: str,
    field: str,
    by_cores: dict[int, int],
    other: int,
    default_said: str,
) -> None:
    """Unset, the render workers and their spare follow the cores; --help shows the number, the hosting guide
    the rule, and a value set is taken."""
    for cores, expected in by_cores.items():
        monkeypatch.setattr(os, "sched_getaffinity", lambda _pid, n=cores: set(range(n)), raising=False)
        assert getattr(load_config({"DISCORD_TOKEN": TOKEN}), field) == expected
        assert getattr(Config(**_config_fields()), field) == expected
        line = next(line for line in variables_help() if variable in line)
        assert line.endswith(f"default {expected}"), line
    assert getattr(load_config({"DISCORD_TOKEN": TOKEN, variable: str(other)}), field) == other
    hosting = (ROOT / "docs" / "HOSTING.md").read_text(encoding="utf-8")
    assert f"| `{variable}` | {default_said} |" in hosting


def _config_fields() -> dict[str, object]:
    base = load_config({"DISCORD_TOKEN": TOKEN})
    return {
        name: getattr(base, name)
        for name in ("token", "data_dir", "db_path", "log_level", "test_guild", "backup_interval_hours")
        + ("backup_keep", "backup_dir", "reminder_hours")
    }
