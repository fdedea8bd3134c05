"""Offline Discord: a fake of Discord's HTTP API for discord.py, used by the console and the tests.

It is a package of its own, beside ``bot``: it imports discord.py (it stands in for Discord itself) and
nothing of the game. Drive the real discord.py code of a ``commands.Bot`` without Discord.

The bot under test is a real ``commands.Bot``: its CommandTree, cogs, Views, DynamicItems, selects and
modals run unchanged. The harness replaces the seams through which discord.py talks to Discord
(``bot.http.request`` and ``bot.http.get_from_cdn`` per bot, ``AsyncWebhookAdapter.request`` on the class)
with a fake API that answers like Discord and records every request, and it creates interactions from raw
INTERACTION_CREATE payloads fed to ``bot._connection.parse_interaction_create``. The core does not import
pytest, so ``python -m bot console`` can reuse it; pytest fixtures live in ``tests.harness.fixtures``.

Modules:
    offline   -- :class:`OfflineDiscord`: the bot's lifecycle, the seams, the network block; built in layers,
                 each on the one before:
      world                 -- guilds, channels, members, roles, messages and the queries on them
      commands              -- the synced command tree, with ids
      recorder              -- requests recorded and checked, injected faults, messages made and edited
      routes                -- the fake REST API (bot-token and interaction-webhook routes)
      interaction_payloads  -- INTERACTION_CREATE payloads, checked as the Discord client checks them
      interactions          -- slash, autocomplete, click, select, modal submit, dispatched and settled
    faults    -- :class:`Fault`, :class:`GlobalLimit` and Discord's error answers, as discord.py raises them
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
        r5 = await d.slash_text(alice, "/alexandros move to:B3")     # a typed line, as in the console
        d.channel_messages(CHANNEL)                          # what the channel shows now (public messages)
        await d.restart()                                    # new bot object, same Discord state

What a call gives back: an :class:`InteractionResult` once every handler task discord.py started for the
interaction has finished (``CommandTree-invoker``, ``discord-ui-view-dispatch…``, ``discord-ui-modal…``,
``discord-ui-dynamic-item…``, ``discord.py: on_…``; add the bot's own with ``watched_tasks=``). It holds
``type`` (4 message, 5 deferred, 6 deferred update, 7 update, 8 autocomplete, 9 modal, None unanswered),
``ephemeral``, ``content``/``embeds``/``components``/``flags`` of the response message in its final state,
``files`` uploaded, ``followups``, ``sent`` (channel messages), ``pings``, ``choices``, ``modal``,
``latency`` (to the first answer), ``errors`` and ``violations``, and ``requests``: every
:class:`Request` (seam, method, route path, kind, JSON payload, files, response) the interaction caused.

Failures: with ``strict=True`` (default) a call raises :class:`HarnessError` when the bot logged an ERROR
(discord.py only logs exceptions in commands, views, modals and dynamic items), broke a Discord limit
(:mod:`.limits`), answered too late (``response_deadline``, 3 s, answered with 404 Unknown interaction as
Discord does) or not at all. ``check=False`` returns the result instead. Problems outside interactions
(startup, command tree, background jobs) are raised when the context exits.

Modelled Discord behaviour: message ids and ``response_message_id`` in callback answers; ``@original``
keeps the response message's id (the component's message for types 6/7); the first followup after a
"thinking" defer replaces the loading message; ephemeral messages are visible to one user; a thread
started from a message has the message's id; attachments get CDN urls whose bytes ``Attachment.read()``
returns; the Discord client's own checks (required options, choices, min/max, disabled components, select
values, modal required inputs) raise :class:`HarnessError` so a test cannot send what no user could.
Not modelled: rate limits, token expiry after 15 minutes, the 1-hour edit cap, several guilds, gateway
events other than those fed with :meth:`OfflineDiscord.gateway_event`. Routes the fake does not know are
answered with ``None`` and listed in ``OfflineDiscord.unhandled``.

Handlers that wait for a later interaction (``await view.wait()``) need ``wait=False``.
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
