"""The bot's event loop (issue 32, bot.process.event_loop): uvloop unless a host says otherwise or has none,
chosen before the loop starts, and the loop the whole suite runs on."""

from __future__ import annotations

from pathlib import Path

import pytest

import bot.__main__ as bot_main
from bot.process import config as config_module
from bot.process.config import Config, ConfigError, load_config
from bot.process.event_loop import default_event_loop, have_uvloop, running_loop_name

TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GabcDE.fake-token-for-tests_0123456789abcdef"


def test_uvloop_is_installed_where_the_lock_installs_it() -> None:
    """The locks install uvloop on every system but Windows: on this one, the bot's default is uvloop."""
    assert have_uvloop()
    assert default_event_loop() == "uvloop"
    assert load_config({"DISCORD_TOKEN": TOKEN}).event_loop == "uvloop"


async def test_the_suite_runs_on_the_loop_the_bot_runs_on() -> None:
    assert running_loop_name() == default_event_loop() == "uvloop"


@pytest.mark.parametrize("chosen, expected", [(None, "uvloop"), ("asyncio", "asyncio"), ("UVLOOP", "uvloop")])
def test_python_m_bot_runs_on_the_loop_chosen_before_it_starts(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, chosen: str | None, expected: str
) -> None:
    """``main`` reads the settings first (the .env too), then runs the bot on the loop they name."""
    seen: list[tuple[str, str]] = []

    async def run(config: Config, sync: bool) -> int:
        seen.append((config.event_loop, running_loop_name()))
        return 0

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ALEXANDROS_EVENT_LOOP", raising=False)
    monkeypatch.setenv("DISCORD_TOKEN", TOKEN)
    if chosen is not None:
        (tmp_path / ".env").write_text(f"ALEXANDROS_EVENT_LOOP={chosen}\n", encoding="utf-8")
    monkeypatch.setattr(bot_main, "run", run)
    assert bot_main.main([]) == 0
    assert seen == [(expected, expected)]


def test_a_system_without_uvloop_runs_on_asyncio_and_says_why_it_cannot_choose_uvloop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(config_module, "have_uvloop", lambda: False)
    monkeypatch.setattr("bot.process.event_loop.have_uvloop", lambda: False)
    assert load_config({"DISCORD_TOKEN": TOKEN}).event_loop == "asyncio"
    with pytest.raises(ConfigError) as err:
        load_config({"DISCORD_TOKEN": TOKEN, "ALEXANDROS_EVENT_LOOP": "uvloop"})
    message = str(err.value)
    assert message.count(". ") == 0 and message.endswith(".") and "set it to asyncio" in message
