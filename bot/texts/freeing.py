"""discord.py objects that refer to themselves, let go as soon as they are done with (issue 30).

A reference cycle is freed only by the garbage collector, and its collections hold the event loop: in
bench_web half of what each young collection looked at was such garbage (an interaction with its
response, member, user, channel and namespace; a sent picture's buffer; a view and its items), and the
collections were the loop's longest stalls. Unlinked, these objects are freed the moment they are let go,
and collections come less often and find less.
"""

from __future__ import annotations

import io

import discord


def release(view: discord.ui.View | discord.ui.LayoutView | None) -> None:
    """Let a view go once its message is sent or edited: its items unlinked from it (``clear_items``).

    A view and its items refer to each other. Safe for every view of this bot: their buttons and selects
    are DynamicItems (and links), which discord.py does not keep once the message is sent; a click makes new
    ones from the custom_id, in a view of the clicked message, let go when the click's callback returns."""
    if view is not None:
        view.clear_items()


def let_go(interaction: discord.Interaction) -> None:
    """Unlink an answered interaction from its response (and its original message's state), which point
    back at it: called once every handler of the interaction has returned (bot.commands.context).

    The response keeps its answer, so ``is_done()`` stays true; one that answered again would fail here at
    once instead of being refused by Discord."""
    response = getattr(interaction, "_cs_response", None)  # set once the response is first used
    if response is not None:
        response._parent = None
    interaction._original_response = None


def answered_anyway(interaction: discord.Interaction, kind: discord.InteractionResponseType) -> None:
    """Count the interaction as answered though Discord failed the answer (or took it without saying so):
    discord.py answers an autocomplete itself when its handler has not, which on an interaction let go
    fails, and would be refused by Discord if the first answer was taken. No public way exists to say so."""
    interaction.response._response_type = kind


class _Picture(discord.File):
    """A picture to attach. discord.py closes a file once sent by putting back its buffer's own ``close``
    as an attribute of that buffer (a buffer that refers to itself); the buffer is not ours to close, so the
    attribute goes and the buffer, with its bytes, is freed when the message is sent."""

    __slots__ = ()

    def close(self) -> None:
        super().close()
        vars(self.fp).pop("close", None)


def attachment(data: bytes, name: str, description: str | None = None) -> discord.File:
    """A file to send made of bytes (a board's PNG, a replay's GIF), named and described."""
    return _Picture(io.BytesIO(data), filename=name, description=description)
