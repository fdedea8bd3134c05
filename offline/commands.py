"""The offline Discord, layer 2 of 7: the command tree the bot synced, with Discord's ids, and resolving
a command's path ("a b", "a.b" or "a/b").

One layer of `OfflineDiscord` (offline/offline.py), each on the one before: world, commands, recorder,
routes, interaction_payloads, interactions; offline.py adds the bot's lifecycle and the seams.
"""

from __future__ import annotations

import re
from typing import Any

import discord

from . import limits
from .payloads import (
    DM,
    stable_id,
)
from .records import (
    HarnessError,
)
from .world import World

_SUBCOMMAND, _GROUP = 1, 2


class SyncedCommands(World):
    """The command tree the bot synced, with ids, and resolving a command's path."""

    def _command_id(self, scope: int | None, name: str, ctype: int) -> int:
        return stable_id("command", scope, name, ctype)

    def refresh_tree(self) -> None:
        """Collect the command payload again (after the bot added or removed commands at runtime)."""
        self._collect_tree()

    def _collect_tree(self) -> None:
        bot = self.bot
        assert bot is not None
        tree = bot.tree
        scopes: list[int | None] = [None, *tree._guild_commands.keys()]
        scopes += [g for (_, g, _) in tree._context_menus if g is not None and g not in scopes]
        self.tree_payload = {}
        for scope in scopes:
            cmds = tree._get_all_commands(guild=None if scope is None else discord.Object(scope))
            payload = [self._with_ids(c.to_dict(tree), scope) for c in cmds]
            self.tree_payload[scope] = payload
            for v in limits.check_command_tree(payload):
                text = f"command tree ({'global' if scope is None else scope}): {v}"
                if text not in self.violations:  # a restart collects the same tree again
                    self.violations.append(text)

    def _with_ids(self, command: dict[str, Any], scope: int | None) -> dict[str, Any]:
        out = dict(command)
        out.setdefault("type", 1)
        out.setdefault("description", "")
        out.setdefault("default_member_permissions", None)
        out.setdefault("nsfw", False)
        out["id"] = str(self._command_id(scope, out["name"], out["type"]))
        out["application_id"] = str(self.app_id)
        out["version"] = str(stable_id("version", out["name"]))
        if scope is not None:
            out["guild_id"] = str(scope)
        return out

    def command_paths(self, *, channel_id: int | None = None) -> list[str]:
        """Every invocable slash command path visible in the channel, e.g. ``["demo new", "demo move"]``."""
        in_guild = self._channel(channel_id)["type"] != DM
        scopes: list[int | None] = [self._guild_of(self._channel(channel_id)), None] if in_guild else [None]
        out: list[str] = []

        def walk(prefix: str, node: dict[str, Any]) -> None:
            subs = [o for o in node.get("options") or [] if o["type"] in (_SUBCOMMAND, _GROUP)]
            if not subs:
                out.append(prefix)
            for sub in subs:
                walk(f"{prefix} {sub['name']}", sub)

        for scope in scopes:
            for c in self.tree_payload.get(scope, []):
                if c["type"] == 1:
                    walk(c["name"], c)
        return sorted(set(out))

    def command_options(self, path: str, *, channel_id: int | None = None) -> list[dict[str, Any]]:
        """The option definitions (name, type, required, choices, ...) of one command path."""
        _, leaf, _, _ = self._resolve_command(path, self._channel(channel_id))
        return list(leaf.get("options") or [])

    def command_payload(self, path: str, *, channel_id: int | None = None) -> dict[str, Any]:
        """The registered payload of the root command of ``path`` (guild commands shadow global ones)."""
        root, _, _, _ = self._resolve_command(path, self.channels[channel_id or self.channel_id])
        return root

    def _resolve_command(
        self, path: str, channel: dict[str, Any]
    ) -> tuple[dict[str, Any], dict[str, Any], list[tuple[str, int]], int | None]:
        tokens = [t for t in re.split(r"[ ./]+", path.strip()) if t]
        if not tokens:
            raise HarnessError("empty command path")
        in_guild = channel["type"] != DM
        scopes: list[int | None] = [self._guild_of(channel), None] if in_guild else [None]
        root = None
        scope = None
        for scope in scopes:
            root = next(
                (c for c in self.tree_payload.get(scope, []) if c["name"] == tokens[0] and c["type"] == 1),
                None,
            )
            if root is not None:
                break
        if root is None:
            raise HarnessError(
                f"no slash command /{tokens[0]} is registered for this channel "
                f"(known: {sorted(c['name'] for s in self.tree_payload.values() for c in s)})"
            )
        if not in_guild:
            contexts = root.get("contexts")
            if root.get("dm_permission") is False or (contexts is not None and 1 not in contexts):
                raise HarnessError(f"/{tokens[0]} is not available in DMs")
        node = root
        chain: list[tuple[str, int]] = []
        for tok in tokens[1:]:
            sub = next(
                (o for o in node.get("options") or [] if o["name"] == tok and o["type"] in (1, 2)), None
            )
            if sub is None:
                raise HarnessError(f"/{' '.join(tokens)}: no subcommand {tok!r}")
            chain.append((tok, sub["type"]))
            node = sub
        if any(o["type"] in (1, 2) for o in node.get("options") or []):
            raise HarnessError(f"/{' '.join(tokens)} is a group; name a subcommand")
        return root, node, chain, scope
