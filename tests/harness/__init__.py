"""Offline Discord harness: drive the real discord.py code of a ``commands.Bot`` without Discord.

The bot under test is a real ``commands.Bot`` (its CommandTree, cogs, Views, DynamicItems, selects and
modals all run unchanged). The harness replaces the two seams through which discord.py talks to Discord
(``bot.http.request`` and ``AsyncWebhookAdapter.request``) with a fake API that answers like Discord and
records every request, and it creates interactions from raw INTERACTION_CREATE payloads. It does not depend
on pytest (the console ``python -m bot console`` reuses it); pytest fixtures live in
``tests.harness.fixtures``.

Modules:
    offline   -- :class:`OfflineDiscord` (fake Discord, bot lifecycle, interactions), seams
    records   -- :class:`Request`, :class:`InteractionResult`, :class:`StoredMessage`, :class:`HarnessError`
    limits    -- Discord limits discord.py does not check, as pure ``check_*`` functions
    payloads  -- Discord-shaped JSON builders and snowflake ids
    fixtures  -- pytest fixtures (``offline_discord`` factory, ``no_network``)

Example::

    async with OfflineDiscord(make_bot, guild_id=GUILD, channel_id=CHANNEL) as d:   # login + setup_hook
        alice, bob = d.member("alice"), d.member("bob")      # stable snowflakes derived from the names
        r = await d.slash(alice, "alexandros new", players=3)  # "a b", "a.b" or "a/b"; options as keywords
        assert r.type == 4 and not r.ephemeral and r.files[0].filename == "board.png"
        board = r.response_message                           # StoredMessage: content, components, attachments
        r2 = await d.click(bob, board.id, "alx:join:1")      # None: newest message with that custom_id
        r3 = await d.select(bob, board.id, "alx:pick", values=["a"])
        choices = await d.autocomplete(alice, "alexandros move", focused="to", value="B")
        r4 = await d.modal_submit(alice, {"alx:name": "Macedon"})   # the last modal the bot showed alice
        d.channel_messages(CHANNEL)                          # what the channel shows now (public messages)
        await d.restart()                                    # new bot object, same Discord state

Every call returns after the handler tasks discord.py started have finished, and (``strict``, the default)
raises :class:`HarnessError` if the bot logged an ERROR, broke a Discord limit, or did not answer the
interaction; ``check=False`` returns the :class:`InteractionResult` for inspection instead.
"""

from .offline import NetworkBlocked, OfflineDiscord, block_network, patched_webhook_adapter
from .payloads import FakeUser
from .records import HarnessError, InteractionResult, LoggedError, Request, SentFile, StoredMessage

__all__ = [
    "FakeUser",
    "HarnessError",
    "InteractionResult",
    "LoggedError",
    "NetworkBlocked",
    "OfflineDiscord",
    "Request",
    "SentFile",
    "StoredMessage",
    "block_network",
    "patched_webhook_adapter",
]
