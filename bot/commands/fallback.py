"""Answers for interactions nothing else answers (issue 11: every interaction gets an answer).

discord.py drops, without a word, a modal submit whose modal it no longer knows (one shown before a restart
or an upgrade) and a component whose custom_id matches none of the bot's items (a message from a much
older version): the user then sees "This interaction failed". This listener answers those privately. Every
component of the bot is a GameButton or GameSelect (bot.texts.components), so a custom_id outside their
templates is one nobody handles; a modal is known when discord.py's view store holds it.
"""

from __future__ import annotations

import re

import discord

from ..texts import private
from ..words import i18n
from .answers import last_word

_OURS = re.compile(r"alxs?:[a-z]+(?::[^:]*)*")


def _known_modal(interaction: discord.Interaction, custom_id: str) -> bool:
    store = getattr(interaction.client._connection, "_view_store", None)  # no public lookup exists
    return custom_id in (getattr(store, "_modals", None) or {})


async def answer_unknown(interaction: discord.Interaction) -> None:
    """``on_interaction``: answer a modal submit or component interaction no handler will see."""
    i18n.set_language(interaction.locale)  # its answer is private: the asking user's language
    data: dict[str, object] = dict(interaction.data or {})
    custom_id = str(data.get("custom_id", ""))
    if interaction.type is discord.InteractionType.modal_submit:
        if _known_modal(interaction, custom_id):
            return
        text = private.form_retired()
    elif interaction.type is discord.InteractionType.component:
        if _OURS.fullmatch(custom_id):
            return
        text = private.button_retired()
    else:
        return
    if not interaction.response.is_done():
        await last_word(interaction, text)
