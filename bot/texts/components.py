"""Buttons and select menus. All of them are ``DynamicItem``s whose custom_id carries what they need (the game
id, the state version where staleness matters, the choices made so far), so every one of them still works
after a restart, and an old one is answered ("out of date") instead of failing.

Buttons are ``alx:<kind>:<args>``; selects are ``alxs:<kind>:<args>`` (two templates, so that one click
never reaches two handlers). Every custom_id stays within Discord's 100 characters. A click goes to the
router (bot.commands.router), which answers it: public posts carry these (bot.outbox.deliveries) and so do
private answers, so they live below both.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import discord

from ..process import limits
from ..texts.choices import Choice
from ..words import i18n
from ..words.i18n import _
from .freeing import release

MAX_ID = limits.MAX_CUSTOM_ID


def _cid(prefix: str, kind: str, args: Sequence[Any]) -> str:
    cid = ":".join([prefix, kind, *(str(a) for a in args)])
    if len(cid) > MAX_ID:
        raise ValueError(f"custom_id too long: {cid}")
    return cid


def cid_button(kind: str, *args: Any) -> str:
    return _cid("alx", kind, args)


def cid_select(kind: str, *args: Any) -> str:
    return _cid("alxs", kind, args)


# --- views ----------------------------------------------------------------------------------------------


def lobby_view(game_id: int, locale: str | None = None) -> discord.ui.View:
    """The lobby's buttons, under a public post: labelled in the game's language (``locale``: the table's;
    None: the language speaking now)."""
    with i18n.speaking(locale or i18n.current()):
        v = discord.ui.View(timeout=None)
        v.add_item(GameButton(cid_button("join", game_id), _("Join"), discord.ButtonStyle.success))
        v.add_item(GameButton(cid_button("leave", game_id), _("Leave"), discord.ButtonStyle.secondary))
        v.add_item(GameButton(cid_button("start", game_id), _("Start"), discord.ButtonStyle.primary))
    return v


def turn_view(
    g: int, ver: int, moving: bool, undo: bool = False, locale: str | None = None, paused: bool = False
) -> discord.ui.View:
    """The active turn's buttons: My hand, Move, Actions, End turn (the last three carry the version), and
    Undo (P10, with the version) while the player on turn has a step to take back. They sit under a public
    post: labelled in the game's language (``locale``: the table's; None: the language speaking now).
    ``paused``: only My hand can be pressed (nothing can be played until the game is resumed)."""
    with i18n.speaking(locale or i18n.current()):
        v = discord.ui.View(timeout=None)
        hand = GameButton(cid_button("hand", g), _("My hand"), discord.ButtonStyle.secondary, emoji="🂠")
        v.add_item(hand)
        style = discord.ButtonStyle.primary
        v.add_item(GameButton(cid_button("move", g, ver), _("Move"), style, disabled=paused or not moving))
        v.add_item(GameButton(cid_button("acts", g, ver), _("Actions"), style, disabled=paused or moving))
        end = GameButton(
            cid_button("end", g, ver), _("End turn"), discord.ButtonStyle.danger, disabled=paused or moving
        )
        v.add_item(end)
        if undo and not paused:
            back = GameButton(cid_button("undo", g, ver), _("Undo"), discord.ButtonStyle.secondary, emoji="↩")
            v.add_item(back)
    return v


async def watch_url(client: Any, game_id: int | None, guild_id: int | None) -> str | None:
    """The link of a game's web page, when the bot has a web face and the server lets it be watched
    (bot.client.AlexandrosBot.watch_url)."""
    find = getattr(client, "watch_url", None)
    if find is None or game_id is None:
        return None
    url: str | None = await find(game_id, guild_id)
    return url


def with_watch(
    view: discord.ui.View | None, url: str | None, locale: str | None = None
) -> discord.ui.View | None:
    """``view`` with a Watch link button to the game's web page (bot.web) when there is one; a view of that
    button alone when ``view`` is None."""
    if url is None:
        return view
    with i18n.speaking(locale or i18n.current()):
        v = view or discord.ui.View(timeout=None)
        v.add_item(discord.ui.Button(style=discord.ButtonStyle.link, label=_("Watch"), url=url, emoji="👁"))
    return v


def view_of_buttons(facts: Mapping[str, Any], locale: str | None = None) -> discord.ui.View:
    """``turn_view`` from a turn post's button facts (bot.outbox.duties.buttons)."""
    return turn_view(
        int(facts["game"]),
        int(facts["version"]),
        bool(facts["moving"]),
        bool(facts.get("undo")),
        locale,
        paused=bool(facts.get("paused")),
    )


def select_view(
    custom_id: str, placeholder: str, options: Sequence[Choice], min_values: int = 1, max_values: int = 1
) -> discord.ui.View:
    v = discord.ui.View(timeout=None)
    opts = [
        discord.SelectOption(
            label=limits.label(c.name), value=c.value[:100], description=limits.label(c.detail) or None
        )
        for c in limits.options(options)
    ]
    if not opts:
        opts = [discord.SelectOption(label=_("(nothing to choose)"), value="-")]
    v.add_item(
        GameSelect(custom_id, placeholder, opts, min(min_values, len(opts)), min(max_values, len(opts)))
    )
    return v


def with_hint(v: discord.ui.View, game_id: int, version: int) -> discord.ui.View:
    """``v`` with a Hint button (issue 29, bot.commands.hints): the hard player's suggestion, privately."""
    v.add_item(
        GameButton(cid_button("hint", game_id, version), _("Hint"), discord.ButtonStyle.secondary, emoji="💡")
    )
    return v


def buttons_view(buttons: Sequence[tuple[str, str, discord.ButtonStyle]]) -> discord.ui.View:
    """A row (or rows) of buttons: (custom_id, label, style) each; the tutorial's answers and steps."""
    v = discord.ui.View(timeout=None)
    for custom_id, label, style in buttons[:25]:
        v.add_item(GameButton(custom_id, limits.label(label), style))
    return v


def abandon_view(game_id: int) -> discord.ui.View:
    """The ephemeral confirmation of ``/alexandros abandon``: one red button."""
    v = discord.ui.View(timeout=None)
    v.add_item(GameButton(cid_button("abandon", game_id), _("Abandon the game"), discord.ButtonStyle.danger))
    return v


def resign_view(game_id: int) -> discord.ui.View:
    """The ephemeral confirmation of ``/alexandros resign``: one red button (resigning cannot be undone)."""
    v = discord.ui.View(timeout=None)
    v.add_item(GameButton(cid_button("resign", game_id), _("Resign"), discord.ButtonStyle.danger))
    return v


def confirm_view(custom_id: str) -> discord.ui.View:
    v = discord.ui.View(timeout=None)
    v.add_item(GameButton(custom_id, _("Confirm"), discord.ButtonStyle.success))
    return v


def province_view(
    game_id: int, version: int, pid: int, spaces: Sequence[Choice], guards_left: int, suggested: str | None
) -> discord.ui.View:
    v = select_view(
        cid_select("og", game_id, version, pid),
        _("Choose the guards' spaces"),
        spaces,
        1,
        max(1, min(guards_left, len(spaces))),
    )
    if suggested:
        cid = cid_button("oc", game_id, version, pid, suggested)
        if len(cid) <= MAX_ID:
            v.add_item(GameButton(cid, _("Use the cheapest plan"), discord.ButtonStyle.success))
    return v


# --- the two dynamic items ------------------------------------------------------------------------------


class Router(Protocol):
    """Where a component's click goes (bot.commands.router.Handlers): components know the kinds, not the
    handlers, and the router answers a click it cannot take (out of date, retired)."""

    async def clicked(self, interaction: discord.Interaction, kind: str, args: list[str]) -> None: ...

    async def picked(
        self, interaction: discord.Interaction, kind: str, args: list[str], values: list[str]
    ) -> None: ...


def _router(interaction: discord.Interaction) -> Router:
    return interaction.client.router  # type: ignore[attr-defined,no-any-return]


class GameButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"alx:(?P<kind>[a-z]+)(?P<args>(?::[^:]*)*)"
):
    def __init__(
        self,
        custom_id: str,
        label: str = "…",
        style: discord.ButtonStyle = discord.ButtonStyle.secondary,
        disabled: bool = False,
        emoji: str | None = None,
    ) -> None:
        super().__init__(
            discord.ui.Button(label=label, style=style, custom_id=custom_id, disabled=disabled, emoji=emoji)
        )
        self.kind, self.args = _split(custom_id)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> GameButton:
        button = item if isinstance(item, discord.ui.Button) else None
        return cls(match.group(0), getattr(button, "label", None) or "…")

    async def callback(self, interaction: discord.Interaction) -> None:
        try:
            await _router(interaction).clicked(interaction, self.kind, self.args)
        finally:
            release(self.view)  # the view discord.py made of the clicked message for this click


class GameSelect(
    discord.ui.DynamicItem[discord.ui.Select[Any]], template=r"alxs:(?P<kind>[a-z]+)(?P<args>(?::[^:]*)*)"
):
    def __init__(
        self,
        custom_id: str,
        placeholder: str = "…",
        options: Sequence[discord.SelectOption] = (),
        min_values: int = 1,
        max_values: int = 1,
    ) -> None:
        super().__init__(
            discord.ui.Select(
                custom_id=custom_id,
                placeholder=placeholder,
                options=list(options) or [discord.SelectOption(label="-", value="-")],
                min_values=min_values,
                max_values=max_values,
            )
        )
        self.kind, self.args = _split(custom_id)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> GameSelect:
        select = item if isinstance(item, discord.ui.Select) else None
        options = list(select.options) if select is not None else []
        me = cls(
            match.group(0),
            options=options,
            min_values=getattr(select, "min_values", 1),
            max_values=getattr(select, "max_values", 1),
        )
        return me

    async def callback(self, interaction: discord.Interaction) -> None:
        data: dict[str, Any] = dict(interaction.data or {})
        values = [str(v) for v in data.get("values", [])]
        try:
            await _router(interaction).picked(interaction, self.kind, self.args, values)
        finally:
            release(self.view)  # the view discord.py made of the clicked message for this click


def _split(custom_id: str) -> tuple[str, list[str]]:
    parts = custom_id.split(":")
    return (parts[1] if len(parts) > 1 else ""), parts[2:]
