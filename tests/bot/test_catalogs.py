"""The message catalogs (issue 16, item 7): every message of the template is in every language's catalog,
translated, with the same placeholders; the template is in step with the code; the slash commands reach
Discord translated, with names Discord accepts, unique among their siblings, and every command a German
text names exists under that German name."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import discord
import pytest
from babel.messages.catalog import Catalog, Message
from discord import app_commands

from bot.commands.cog import AdminCog, AlexandrosCog
from bot.words import i18n
from bot.words.translator import CatalogTranslator
from tests.bot.driver import WALLS_MAP, bot_factory, harness

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import catalogs  # noqa: E402

pytest_plugins = ["tests.harness.fixtures"]


@pytest.fixture(scope="module")
def template() -> Catalog:
    return catalogs.template()


def _catalog(language: str) -> Catalog:
    return catalogs._read(i18n.catalog_path(language), language)


def test_the_template_is_in_step_with_the_code(template):
    shipped = catalogs._read(catalogs.TEMPLATE)
    assert catalogs._ids(shipped) == catalogs._ids(template), "run `python tools/catalogs.py update`"
    assert len(template) > 300  # every sentence of the bot, not a handful


@pytest.mark.parametrize("language", i18n.LANGUAGES)
def test_every_message_is_in_every_catalog_translated_with_the_same_placeholders(template, language):
    assert catalogs.catalog_problems(_catalog(language), template) == []


def test_the_check_finds_a_missing_message_a_wrong_placeholder_and_a_bad_command_name(template):
    broken = _catalog("de")
    some = next(m for m in broken if m.id and "{" in catalogs._key(m.id) and isinstance(m.id, str))
    some.string = "ohne Platzhalter"
    gone = next(m for m in broken if m.id and m.id != some.id and isinstance(m.id, str) and not m.context)
    del broken[gone.id]
    name = broken.get("move", context=i18n.COMMAND)
    assert name is not None
    name.string = "Zieh Jetzt"
    found = "\n".join(catalogs.catalog_problems(broken, template))
    assert "placeholders differ" in found and "missing" in found and "not a name Discord accepts" in found


def test_placeholders_are_the_format_fields():
    assert catalogs.placeholders("{n} cards for <@{user}>") == {"{n}", "{user}"}
    assert catalogs.placeholders("no braces") == set()
    assert catalogs.placeholders("{oops") != set()


# --- the commands, as discord.py sends them at sync -------------------------------------------------------


async def _payloads() -> list[dict[str, Any]]:
    client = discord.Client(intents=discord.Intents.none())
    tree = app_commands.CommandTree(client)
    t = CatalogTranslator()
    return [await g.get_translated_payload(tree, t) for g in (AlexandrosCog.group, AdminCog.admin)]


def _walk(node: dict[str, Any], path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], dict[str, Any]]]:
    out = [(path, node)]
    for child in node.get("options", []):
        out.extend(_walk(child, (*path, node["name"])))
    return out


def _paths(payloads: list[dict[str, Any]], language: str) -> set[str]:
    """Every command path a user of ``language`` types, e.g. "/alexandros ziehen"."""
    out: set[str] = set()

    def name(n: dict[str, Any]) -> str:
        return str(n.get("name_localizations", {}).get(language) or n["name"])

    def walk(n: dict[str, Any], prefix: str) -> None:
        here = f"{prefix} {name(n)}".strip()
        subs = [o for o in n.get("options", []) if o.get("type") in (1, 2)]  # subcommand, group
        out.add("/" + here)
        for s in subs:
            walk(s, here)

    for p in payloads:
        walk(p, "")
    return out


async def test_german_names_and_descriptions_go_to_discord_valid_and_unique_among_siblings():
    payloads = await _payloads()
    german = {n["name"]: n.get("name_localizations", {}).get("de") for p in payloads for _, n in _walk(p)}
    assert german["move"] == "ziehen" and german["reminders"] == "erinnerungen"
    for p in payloads:
        for path, node in _walk(p):
            for lang, text in node.get("name_localizations", {}).items():
                assert re.fullmatch(r"[-_\w]{1,32}", text) and text == text.lower(), (path, lang, text)
            for lang, text in node.get("description_localizations", {}).items():
                assert 1 <= len(text) <= 100, (path, lang, text)
            for choice in node.get("choices", []) or []:
                for lang, text in choice.get("name_localizations", {}).items():
                    assert 1 <= len(text) <= 100, (path, lang, text)
            siblings = [o for o in node.get("options", [])]
            for lang in ("de",):
                names = [o.get("name_localizations", {}).get(lang) or o["name"] for o in siblings]
                assert len(names) == len(set(names)), (path, lang, names)
    # English stays the default name: no English localisation is sent.
    assert all("en-US" not in n.get("name_localizations", {}) for p in payloads for _, n in _walk(p))


async def test_every_command_a_catalog_names_exists_in_that_language():
    payloads = await _payloads()
    mention = re.compile(r"`(/alexandros(?:-admin)?(?: [^\s`:]+)*)")
    for language in i18n.LANGUAGES:
        known = _paths(payloads, language)
        for m in _catalog(language):
            if not m.id or m.context == i18n.COMMAND:
                continue
            for text in catalogs._forms(m.string):
                for found in mention.findall(text):
                    words = found.split(" ")
                    # "`/alexandros move`" or "`/alexandros me reminders dm:true`": the longest known prefix
                    assert any(" ".join(words[:k]) in known for k in range(len(words), 1, -1)), (
                        language,
                        found,
                        catalogs._key(m.id)[:60],
                    )


def _msg(m: Message) -> str:
    return catalogs._key(m.id)


async def test_a_sync_sends_the_german_localisations(tmp_path, no_network):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        r = await d.slash(d.owner, "alexandros-admin sync", everywhere=True)
        assert r.ephemeral
        root = next(c for c in d.synced[None] if c["name"] == "alexandros")
        move = next(o for o in root["options"] if o["name"] == "move")
        assert move["name_localizations"]["de"] == "ziehen"
        assert move["description_localizations"]["de"] != move["description"]
