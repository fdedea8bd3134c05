"""Slash commands in the players' languages: discord.py's ``app_commands.Translator`` over our catalogs.

At sync, discord.py asks the translator for every command, group, option and choice name and every
description, once per Discord locale; what it answers goes to Discord as that locale's localisation, and
each user's client shows the names and descriptions of its own language. Names carry the catalog context
``command`` (bot.words.i18n.COMMAND): they are identifiers in Discord's syntax (lower case, no spaces), and
the German texts name the German paths ("`/alexandros ziehen`"), as a German client shows them.
"""

from __future__ import annotations

from discord import Locale, app_commands

from . import i18n

# Where discord.py asks for a name rather than a description or a choice's label.
_NAMES = {
    app_commands.TranslationContextLocation.command_name,
    app_commands.TranslationContextLocation.group_name,
    app_commands.TranslationContextLocation.parameter_name,
}


class CatalogTranslator(app_commands.Translator):
    """Answers from bot/locales; None (Discord keeps the English default) for English and other languages."""

    async def translate(
        self, string: app_commands.locale_str, locale: Locale, context: app_commands.TranslationContextTypes
    ) -> str | None:
        language = i18n.language_of(locale)
        if language == i18n.SOURCE:
            return None
        ctx = i18n.command_context(string.extras) if context.location in _NAMES else None
        text = i18n.in_language(language, string.message, ctx)
        return text
