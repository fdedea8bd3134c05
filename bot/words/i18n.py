"""The bot's languages: gettext message catalogs, and which language is speaking now. Discord-free.

Every sentence a player reads is a message of the gettext domain ``alexandros``: English source texts in
the code (bot.texts, bot.words.words, bot.texts.choices), extracted with Babel into
``bot/locales/alexandros.pot``, and one catalog per language in
``bot/locales/<language>/LC_MESSAGES/alexandros.po`` (``python tools/catalogs.py update`` keeps them in step;
a test checks that every message is in every catalog with the same placeholders). The catalogs ship as ``.po``
text and are compiled in memory with Babel on first use, so there is no compiled file to forget.

The language in force is a context variable, so concurrent interactions each speak their own: a handler
speaks the asking user's language (``interaction.locale``, bot.commands.context), and a text posted in public
speaks
the game's language (the server's preferred locale, kept in the game's options; ``bot.texts.posts.public``).
Messages use ``str.format`` placeholders (``{name}``), never f-strings, so that a translation may reorder
them; numbers that choose a noun's form go through ``ngettext``.
"""

from __future__ import annotations

import gettext
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from io import BytesIO
from pathlib import Path

DOMAIN = "alexandros"
LOCALES = Path(__file__).parents[1] / "locales"
SOURCE = "en"  # the language of the texts in the code
LANGUAGES = ("en", "de")  # every one of them complete (tests/bot/test_catalogs.py)
COMMAND = "command"  # the message context of command, group, option and choice names (Discord's syntax)


def command_context(extras: dict[str, object]) -> str:
    """The catalog context of a command or option name: ``COMMAND``, or ``command <name>`` for a name that
    one language words apart from its English twin (``locale_str("to", context="handover")``: a member,
    not the point of ``move to``)."""
    own = extras.get("context")
    return f"{COMMAND} {own}" if own else COMMAND


_speaking: ContextVar[str] = ContextVar("alexandros_language", default=SOURCE)


def language_of(locale: object) -> str:
    """The catalog for a Discord locale ("de", "en-US", a ``discord.Locale``); English when none fits."""
    code = str(getattr(locale, "value", locale) or "").replace("_", "-").lower()
    base = code.split("-")[0]
    return base if base in LANGUAGES else SOURCE


def catalog_path(language: str) -> Path:
    return LOCALES / language / "LC_MESSAGES" / f"{DOMAIN}.po"


@cache
def translations(language: str) -> gettext.NullTranslations:
    """The compiled catalog of ``language`` (fuzzy entries left out), loaded once per process."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    path = catalog_path(language)
    if not path.exists():  # pragma: no cover - the catalogs ship with the package
        return gettext.NullTranslations()
    with path.open("rb") as f:
        catalog = read_po(f, locale=language, domain=DOMAIN)
    buf = BytesIO()
    write_mo(buf, catalog, use_fuzzy=False)
    buf.seek(0)
    return gettext.GNUTranslations(buf)


def current() -> str:
    """The language speaking now."""
    return _speaking.get()


@contextmanager
def speaking(locale: object) -> Iterator[str]:
    """Speak ``locale``'s language inside the block (and in tasks started in it); yields the language."""
    token = _speaking.set(language_of(locale))
    try:
        yield _speaking.get()
    finally:
        _speaking.reset(token)


def set_language(locale: object) -> str:
    """Speak ``locale``'s language from here to the end of the current task (an interaction's handler)."""
    _speaking.set(language_of(locale))
    return _speaking.get()


def _(message: str) -> str:
    """The message in the language speaking now."""
    return translations(_speaking.get()).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of the message for the number ``n``, in the language speaking now (its own plural rule)."""
    return translations(_speaking.get()).ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """The message within ``context`` (e.g. ``COMMAND``: a command's name), in the language speaking now."""
    return translations(_speaking.get()).pgettext(context, message)


def in_language(language: str, message: str, context: str | None = None) -> str:
    """The message in a given language, whatever is speaking now (command names for Discord's sync)."""
    t = translations(language_of(language))
    return t.pgettext(context, message) if context else t.gettext(message)


def number(value: float, places: int = 2, fixed: bool = False) -> str:
    """A number as the language speaking now writes it (Babel's CLDR data): 1.5 in English, 1,5 in German;
    up to ``places`` decimals (all of them with ``fixed``), no trailing zeros otherwise."""
    from babel.numbers import format_decimal

    decimals = ("0" if fixed else "#") * places
    return str(format_decimal(value, format=f"0.{decimals}" if places else "0", locale=_speaking.get()))


def N_(message: str) -> str:
    """Marks a message for extraction; it is translated where it is used, with ``_``."""
    return message


def Nn_(singular: str, plural: str) -> tuple[str, str]:
    """Marks a noun's two forms for extraction; ``ngettext(*forms, n)`` picks one where it is used."""
    return singular, plural
