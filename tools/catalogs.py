"""The message catalogs (bot/locales): extract the messages with Babel, keep every language's catalog in step.

    python tools/catalogs.py update   # write bot/locales/alexandros.pot and bring every .po up to date
    python tools/catalogs.py check    # exit 1 and say what is wrong: stale template, missing translations,
                                      # placeholders that differ, command names Discord would refuse

Messages come from three places: the bot's code (``_``, ``N_``, ``ngettext``, ``Nn_``, ``pgettext`` calls,
extracted by Babel's Python extractor), the words drawn in pictures (rendering's ``words.tr``, ``words.ntr``
and ``words.ptr`` calls, listed in ``rendering.words.MESSAGES``) and the slash commands (every name,
description and choice that discord.py hands its ``Translator`` at sync, recorded by walking the command tree
the same way). Command, group, option and choice names carry the context ``command``: they are identifiers in
Discord's syntax.
"""

from __future__ import annotations

import asyncio
import re
import string
import sys
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from io import BytesIO
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.words import i18n  # noqa: E402

STAMP = datetime(2026, 11, 23, tzinfo=UTC)  # a fixed date keeps the files' headers out of every diff
TEMPLATE = i18n.LOCALES / f"{i18n.DOMAIN}.pot"
# rendering.words.Words: ``tr(message)``, ``ntr(singular, plural, n)``, ``ptr(context, message)``.
KEYWORDS = {**DEFAULT_KEYWORDS, "Nn_": (1, 2), "tr": (1,), "ntr": (1, 2), "ptr": ((1, "c"), 2)}
# Discord's rule for command and option names (lower case where a script has case), and its limits.
NAME = re.compile(r"^[-_\w]{1,32}$")
NAME_LOCATIONS = {"command_name", "group_name", "parameter_name"}
DESCRIPTION_LIMIT = 100


def _code_messages() -> Iterator[tuple[str, str | tuple[str, str], str | None, list[str]]]:
    """(where, message id or (singular, plural), context, translator comments) of every marked message."""
    method_map = [("bot/**.py", "python"), ("rendering/**.py", "python")]
    for filename, lineno, message, comments, context in extract_from_dir(
        ROOT,
        method_map=method_map,
        keywords=KEYWORDS,
        comment_tags=("TRANSLATORS:",),
        strip_comment_tags=True,
    ):
        yield f"{filename}:{lineno}", message, context, list(comments)


def command_strings() -> list[tuple[str, str, str | None]]:
    """(message, location, context) of every string the slash commands send to Discord, as ``tree.sync``
    asks them; the context is the catalog's (``i18n.command_context``) for a name, None otherwise."""
    import discord
    from discord import app_commands

    from bot.commands.cog import AdminCog, AlexandrosCog

    seen: list[tuple[str, str, str | None]] = []

    class Recorder(app_commands.Translator):
        async def translate(
            self,
            string: app_commands.locale_str,
            locale: discord.Locale,
            context: app_commands.TranslationContextTypes,
        ) -> str | None:
            location = context.location.name
            ctx = i18n.command_context(string.extras) if location in NAME_LOCATIONS else None
            if locale is discord.Locale.american_english and (string.message, location, ctx) not in seen:
                seen.append((string.message, location, ctx))
            return None

    async def walk() -> None:
        client = discord.Client(intents=discord.Intents.none())
        tree = app_commands.CommandTree(client)
        for group in (AlexandrosCog.group, AdminCog.admin):
            await group.get_translated_payload(tree, Recorder())

    asyncio.run(walk())
    return seen


def template() -> Catalog:
    """The template: every message of the code and of the commands, in a stable order."""
    cat = Catalog(
        project="alexandros", domain=i18n.DOMAIN, fuzzy=False, charset="utf-8", creation_date=STAMP,
        header_comment="# The messages of the Alexandros bot (made by tools/catalogs.py; do not edit).",
    )  # fmt: skip
    for where, message, context, comments in _code_messages():
        path, _, line = where.partition(":")
        cat.add(
            message, locations=[(Path(path).as_posix(), int(line))], context=context, auto_comments=comments
        )
    for message, location, ctx in command_strings():
        existing = cat.get(message, context=ctx)
        if existing is None:
            cat.add(message, context=ctx, auto_comments=[f"Discord: {location.replace('_', ' ')}"])
    return cat


def _po_bytes(cat: Catalog) -> bytes:
    buf = BytesIO()
    write_po(
        buf, cat, width=110, omit_header=False, sort_output=False, include_previous=False, no_location=False
    )
    return buf.getvalue()


def _read(path: Path, language: str | None = None) -> Catalog:
    with path.open("rb") as f:
        return read_po(f, locale=language, domain=i18n.DOMAIN)


def update() -> None:
    """Write the template; merge it into every language's catalog (new messages untranslated, old kept as
    obsolete comments, English filled in from the source where it has no wording of its own)."""
    tmpl = template()
    TEMPLATE.parent.mkdir(parents=True, exist_ok=True)
    TEMPLATE.write_bytes(_po_bytes(tmpl))
    for language in i18n.LANGUAGES:
        path = i18n.catalog_path(language)
        if path.exists():
            cat = _read(path, language)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            cat = Catalog(
                locale=language,
                domain=i18n.DOMAIN,
                project="alexandros",
                fuzzy=False,
                creation_date=STAMP,
                header_comment=f"# The Alexandros bot's messages in {language} (tools/catalogs.py update).",
            )
        # Babel's update shares the template's message objects: give each catalog a copy of its own.
        cat.update(read_po(BytesIO(_po_bytes(tmpl))), update_header_comment=False, no_fuzzy_matching=True)
        cat.obsolete.clear()
        if language == i18n.SOURCE:
            for msg in cat:
                if msg.id and not _translated(msg):
                    msg.string = msg.id if isinstance(msg.id, str) else tuple(msg.id)
        path.write_bytes(_po_bytes(cat))


def _translated(msg: Message) -> bool:
    strings = msg.string if isinstance(msg.string, (list, tuple)) else (msg.string,)
    return not msg.fuzzy and all(strings)


def placeholders(text: str) -> set[str]:
    """The ``str.format`` fields of a message ("{n} cards" -> {"n"}); a brace error is a placeholder too."""
    try:
        return {f"{{{name}}}" for _, name, _, _ in string.Formatter().parse(text) if name is not None}
    except ValueError as err:
        return {f"<bad braces: {err}>"}


def problems() -> list[str]:
    """Everything that keeps the catalogs from being complete and consistent (empty when all is well)."""
    out: list[str] = []
    tmpl = template()
    if not TEMPLATE.exists() or _ids(_read(TEMPLATE)) != _ids(tmpl):
        out.append("bot/locales/alexandros.pot is out of date: run `python tools/catalogs.py update`")
    for language in i18n.LANGUAGES:
        path = i18n.catalog_path(language)
        if not path.exists():
            out.append(f"{language}: no catalog at {path.relative_to(ROOT)}")
            continue
        out.extend(f"{language}: {p}" for p in catalog_problems(_read(path, language), tmpl))
    return out


def _ids(cat: Catalog) -> set[tuple[str, str | None]]:
    return {(_key(m.id), m.context) for m in cat if m.id}


def _key(mid: str | tuple[str, ...] | list[str]) -> str:
    return mid if isinstance(mid, str) else mid[0]


def catalog_problems(cat: Catalog, tmpl: Catalog) -> list[str]:
    out: list[str] = []
    for m in tmpl:
        if not m.id:
            continue
        mine = cat.get(m.id if isinstance(m.id, str) else m.id[0], context=m.context)
        label = repr(_key(m.id))[:70]
        if mine is None:
            out.append(f"missing {label}")
            continue
        if not _translated(mine):
            out.append(f"untranslated or fuzzy {label}")
            continue
        want = placeholders(_key(m.id))
        for s in _forms(mine.string):
            if placeholders(s) != want:
                out.append(f"placeholders differ in {label}: {sorted(placeholders(s))} for {sorted(want)}")
            if (m.context or "").startswith(i18n.COMMAND) and (not NAME.match(s) or s != s.lower()):
                out.append(f"{label}: {s!r} is not a name Discord accepts (lower case, 1-32, no spaces)")
    return out


def _forms(s: str | tuple[str, ...] | list[str]) -> Iterable[str]:
    return (s,) if isinstance(s, str) else tuple(s)


def main(argv: list[str]) -> int:
    if argv[:1] == ["update"]:
        update()
        print(f"updated {TEMPLATE.relative_to(ROOT)} and {', '.join(i18n.LANGUAGES)}")
        return 0
    if argv[:1] == ["check"]:
        found = problems()
        for p in found:
            print(p)
        print(f"{len(found)} problem(s)" if found else "the catalogs are complete")
        return 1 if found else 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
