"""docs/HOSTING.md stays true to the code: the invite permissions, the variables and the commands."""

from __future__ import annotations

import re
from pathlib import Path

from bot.process.config import BOT_PERMISSION_NAMES, bot_permissions

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "HOSTING.md").read_text(encoding="utf-8")
CONFIG_SOURCE = (ROOT / "bot" / "process" / "config.py").read_text(encoding="utf-8")


def test_invite_link_in_the_doc_has_the_bots_permissions() -> None:
    numbers = set(re.findall(r"permissions=(\d+)", DOC))
    assert numbers == {str(bot_permissions())}
    # One table row per permission asked for, named as Discord's settings name it.
    labels = {
        "view_channel": "View Channels",
        "send_messages": "Send Messages",
        "send_messages_in_threads": "Send Messages in Threads",
        "create_public_threads": "Create Public Threads",
        "embed_links": "Embed Links",
        "attach_files": "Attach Files",
        "read_message_history": "Read Message History",
        "pin_messages": "Pin Messages",
    }
    assert set(labels) == set(BOT_PERMISSION_NAMES)
    for label in labels.values():
        assert f"| {label} |" in DOC, label


def test_every_variable_is_documented() -> None:
    variables = set(re.findall(r"\b(?:DISCORD_TOKEN|ALEXANDROS_[A-Z_]+)\b", CONFIG_SOURCE))
    assert len(variables) == 25  # ALEXANDROS_PIN_CORES the newest
    for name in variables:
        assert f"`{name}`" in DOC, name


def test_the_documented_commands() -> None:
    for command in (
        "pip install --require-hashes -r requirements/run.lock && pip install --no-deps .",
        "python -m bot\n",
        "python -m bot --sync",
        "python -m bot restore ",
        "docker build -t alexandros .",
        "-v alexandros-data:/data -e DISCORD_TOKEN=... alexandros",
        "python -m bot.process.health",
    ):
        assert command in DOC, command


README = (ROOT / "README.md").read_text(encoding="utf-8")


def _section(text: str, start: str, end: str) -> str:
    """The text from the line holding `start` to the next line holding `end`."""
    head = text.index(start)
    return text[head : text.index(end, head + len(start))]


def test_readmes_docker_steps_sync_the_commands() -> None:
    """A Docker owner following only the README got no commands: its Docker step had no --sync."""
    docker = _section(README, "**Or run it in Docker:**", "**First game:**")
    sync = docker.index("alexandros python -m bot --sync")
    assert "docker run --rm -v alexandros-data:/data" in docker[:sync]
    assert sync < docker.index("docker run -d --name alexandros"), "synced before the bot runs"


def test_the_clone_line_names_an_address_the_owner_fills_in() -> None:
    assert "<this repository>" not in DOC
    line = "git clone https://github.com/YOUR-ACCOUNT/alexandros-bot alexandros && cd alexandros"
    assert line in DOC
    after = DOC[DOC.index(line) :]
    explained = after[: after.index("Create a file named `.env`")]
    assert "placeholder" in explained and "`YOUR-ACCOUNT`" in explained, "the placeholder is explained"


def test_the_doc_says_a_test_servers_copies_show_twice_and_how_to_remove_them() -> None:
    part = _section(DOC, "From a test server to every server", "### Languages")
    assert "every command twice" in part
    for step in ("Remove `ALEXANDROS_TEST_GUILD`", "python -m bot --sync", "`/alexandros-admin sync`"):
        assert step in part, step
    # The order that works: the setting gone from the running bot before the sync in that server.
    assert part.index("Remove `ALEXANDROS_TEST_GUILD`") < part.index("`/alexandros-admin sync`")
