"""The docs stay true to the code (issue 31): every slash command, command-line subcommand and setting the
code has is documented, everything the docs name exists, and no page grows past what a newcomer reads."""

from __future__ import annotations

import re
from pathlib import Path

from discord import app_commands

from bot.__main__ import SUBCOMMANDS
from bot.commands.cog import AdminCog, AlexandrosCog
from bot.process.config import VARIABLES

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
PAGES = {p.name: p.read_text(encoding="utf-8") for p in (ROOT / "docs").glob("*.md")}
ALL = README + "\n".join(PAGES.values())


def command_paths() -> set[str]:
    """Every slash command's path under its top-level command, as Discord shows it ("table join")."""

    def walk(group: app_commands.Group, prefix: str) -> set[str]:
        found: set[str] = set()
        for command in group.commands:
            path = f"{prefix}{command.name}"
            found |= walk(command, f"{path} ") if isinstance(command, app_commands.Group) else {path}
        return found

    return walk(AlexandrosCog.group, "") | {f"-admin {p}" for p in walk(AdminCog.admin, "")}


def readme_table_commands() -> set[str]:
    """The commands the README's table names (its first column: `new`, `table join` / `table leave`, ...)."""
    table = README.split("## Commands", 1)[1].split("\n## ", 1)[0]
    first = [row.split("|")[1] for row in table.splitlines() if row.startswith("| `")]
    return {name for cell in first for name in re.findall(r"`([^`]+)`", cell)}


def test_every_slash_command_is_in_the_readme_and_every_one_there_exists() -> None:
    paths = command_paths()
    players = {p for p in paths if not p.startswith("-admin")}
    assert readme_table_commands() == players, "README's command table and the command tree differ"
    for admin in paths - players:
        assert f"/alexandros{admin}" in README, f"/alexandros{admin} is not in the README"
    named_admin = set(re.findall(r"/alexandros-admin ([a-z-]+)", ALL))
    assert {f"-admin {n}" for n in named_admin} <= paths, "the docs name an admin command that does not exist"


def test_every_setting_is_documented_once_and_every_one_documented_exists() -> None:
    code = {name for name, _, _ in VARIABLES}
    assert "DISCORD_TOKEN" in code and len(code) == len(VARIABLES)
    named = set(re.findall(r"\b(?:DISCORD_TOKEN|ALEXANDROS_[A-Z_]+)\b", ALL))
    assert named == code, f"documented only: {named - code}; in the code only: {code - named}"
    for name in code:
        rows = re.findall(rf"^\| `{name}` \|", PAGES["HOSTING.md"], flags=re.M)
        assert len(rows) == 1, f"{name} has {len(rows)} rows in HOSTING.md's settings table"


def test_every_command_line_subcommand_is_documented() -> None:
    for name in SUBCOMMANDS:
        assert f"python -m bot {name}" in ALL, name
    named = set(re.findall(r"python -m bot ([a-z]+)\b", ALL))
    assert named <= set(SUBCOMMANDS) | {"help"}, f"the docs name {named - set(SUBCOMMANDS)}"


def test_the_readme_is_short_and_no_page_is_long() -> None:
    assert README.count("\n") <= 250
    for name, text in PAGES.items():
        assert text.count("\n") <= 400, f"docs/{name} has {text.count(chr(10))} lines"


def test_every_link_between_the_pages_leads_somewhere() -> None:
    for name, text in [("README.md", README), *((f"docs/{n}", t) for n, t in PAGES.items())]:
        base = ROOT if name == "README.md" else ROOT / "docs"
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
            if target.startswith(("http://", "https://", "mailto:")):
                continue
            assert (base / target).exists(), f"{name} links to {target}, which does not exist"
