"""Buttons and select menus. All of them are ``DynamicItem``s whose custom_id carries what they need (the game
id, the state version where staleness matters, the choices made so far), so every one of them still works
after a restart, and an old one is answered ("out of date") instead of failing.

Buttons are ``alx:<kind>:<args>``; selects are ``alxs:<kind>:<args>`` (two templates, so that one click
never reaches two handlers). Every custom_id stays within Discord's 100 characters.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import discord

from engine.state import Phase

from . import texts
from .choices import Choice

if TYPE_CHECKING:
    from .controller import Controller
    from .service import Table

MAX_ID = 100


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


def lobby_view(game_id: int) -> discord.ui.View:
    v = discord.ui.View(timeout=None)
    v.add_item(GameButton(cid_button("join", game_id), "Join", discord.ButtonStyle.success))
    v.add_item(GameButton(cid_button("leave", game_id), "Leave", discord.ButtonStyle.secondary))
    v.add_item(GameButton(cid_button("start", game_id), "Start", discord.ButtonStyle.primary))
    return v


def turn_view(table: Table) -> discord.ui.View:
    """The active turn's buttons: My hand, Move, Actions, End turn (the last three carry the version)."""
    st = table.state
    g, ver = table.id, table.version
    v = discord.ui.View(timeout=None)
    v.add_item(GameButton(cid_button("hand", g), "My hand", discord.ButtonStyle.secondary, emoji="🂠"))
    if st is None or st.over:
        return v
    moving = st.phase is Phase.MOVE
    v.add_item(
        GameButton(cid_button("move", g, ver), "Move", discord.ButtonStyle.primary, disabled=not moving)
    )
    v.add_item(
        GameButton(cid_button("acts", g, ver), "Actions", discord.ButtonStyle.primary, disabled=moving)
    )
    v.add_item(GameButton(cid_button("end", g, ver), "End turn", discord.ButtonStyle.danger, disabled=moving))
    return v


def select_view(
    custom_id: str, placeholder: str, options: Sequence[Choice], min_values: int = 1, max_values: int = 1
) -> discord.ui.View:
    v = discord.ui.View(timeout=None)
    opts = [discord.SelectOption(label=c.name[:100], value=c.value[:100]) for c in options[:25]]
    if not opts:
        opts = [discord.SelectOption(label="(nothing to choose)", value="-")]
    v.add_item(
        GameSelect(custom_id, placeholder, opts, min(min_values, len(opts)), min(max_values, len(opts)))
    )
    return v


def confirm_view(custom_id: str) -> discord.ui.View:
    v = discord.ui.View(timeout=None)
    v.add_item(GameButton(custom_id, "Confirm", discord.ButtonStyle.success))
    return v


def province_view(
    game_id: int, version: int, pid: int, spaces: Sequence[Choice], guards_left: int, suggested: str | None
) -> discord.ui.View:
    v = select_view(
        cid_select("og", game_id, version, pid),
        "Choose the guards' spaces",
        spaces,
        1,
        max(1, min(guards_left, len(spaces))),
    )
    if suggested:
        cid = cid_button("oc", game_id, version, pid, suggested)
        if len(cid) <= MAX_ID:
            v.add_item(GameButton(cid, "Use the cheapest plan", discord.ButtonStyle.success))
    return v


# --- the two dynamic items ------------------------------------------------------------------------------


def _controller(interaction: discord.Interaction) -> Controller:
    return interaction.client.controller  # type: ignore[attr-defined,no-any-return]


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
        c = _controller(interaction)
        k, a = self.kind, self.args
        try:
            g = int(a[0])
            if k == "join":
                await c.join(interaction, g, from_button=True)
            elif k == "leave":
                await c.leave(interaction, g, from_button=True)
            elif k == "start":
                await c.start(interaction, g, from_button=True)
            elif k == "hand":
                await c.hand(interaction, g)
            elif k == "move":
                await c.move_start(interaction, g, int(a[1]))
            elif k == "acts":
                await c.actions_menu(interaction, g, int(a[1]))
            elif k == "end":
                from .choices import end_action

                await c.act(interaction, g, end_action, int(a[1]), done=texts.TURN_OVER)
            elif k == "mgo":
                await c.move_go(interaction, g, int(a[1]), a[2], a[3], a[4])
            elif k == "oc":
                await c.guards_chosen(interaction, g, int(a[1]), int(a[2]), a[3])
            else:
                await c.say(interaction, texts.BUTTON_RETIRED)
        except (IndexError, ValueError):
            await c.say(interaction, texts.BUTTON_STALE)


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
        c = _controller(interaction)
        data: dict[str, Any] = dict(interaction.data or {})
        values = [str(v) for v in data.get("values", [])]
        k, a = self.kind, self.args
        try:
            g, ver = int(a[0]), int(a[1])
            if not values or values == ["-"]:
                await c.say(interaction, texts.NOTHING_PICKED)
            elif k == "mc":
                await c.move_card(interaction, g, ver, values[0])
            elif k == "mt":
                await c.move_point(interaction, g, ver, a[2], values[0])
            elif k == "mp":
                await c.move_path(interaction, g, ver, a[2], a[3], values[0])
            elif k == "act":
                await c.action_picked(interaction, g, ver, values[0])
            elif k == "og":
                await c.guards_chosen(interaction, g, ver, int(a[2]), values)
            elif k == "tc":
                await c.compensation_chosen(interaction, g, ver, int(a[2]), a[3], values)
            else:
                await c.say(interaction, texts.MENU_RETIRED)
        except (IndexError, ValueError):
            await c.say(interaction, texts.MENU_STALE)


def _split(custom_id: str) -> tuple[str, list[str]]:
    parts = custom_id.split(":")
    return (parts[1] if len(parts) > 1 else ""), parts[2:]
