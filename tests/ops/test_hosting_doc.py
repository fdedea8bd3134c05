"""docs/HOSTING.md stays true to the code: the invite permissions, the variables and the commands."""

from __future__ import annotations

import re
from pathlib import Path

from bot.config import BOT_PERMISSION_NAMES, bot_permissions

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "HOSTING.md").read_text(encoding="utf-8")
CONFIG_SOURCE = (ROOT / "bot" / "config.py").read_text(encoding="utf-8")


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
    assert len(variables) == 21
    for name in variables:
        assert f"`{name}`" in DOC, name


def test_the_documented_commands() -> None:
    for command in (
        "pip install .",
        "python -m bot\n",
        "python -m bot --sync",
        "python -m bot restore ",
        "docker build -t alexandros .",
        "-v alexandros-data:/data -e DISCORD_TOKEN=... alexandros",
        "python -m bot.health",
    ):
        assert command in DOC, command
