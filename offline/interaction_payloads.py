"""The offline Discord, layer 5 of 7: INTERACTION_CREATE payloads as the Discord client builds them:
commands and their options (resolved users, roles, channels, attachments), components, modals; with
the client's own checks, so a test cannot send what no user could.

One layer of `OfflineDiscord` (offline/offline.py), each on the one before: world, commands, recorder,
routes, interaction_payloads, interactions; offline.py adds the bot's lifecycle and the seams.
"""

from __future__ import annotations

import secrets
from typing import Any

from .payloads import (
    ALL_PERMISSIONS,
    DM,
    FakeUser,
    attachment_json,
)
from .records import (
    HarnessError,
    SentFile,
    StoredMessage,
)
from .routes import Routes
from .world import _copy

_SELECT_TYPES = {3, 5, 6, 7, 8}


class InteractionPayloads(Routes):
    """Builds interaction payloads and checks them as the Discord client does."""

    def _interaction_payload(
        self,
        itype: int,
        user: FakeUser,
        channel_id: int,
        data: dict[str, Any],
        message: StoredMessage | None = None,
    ) -> dict[str, Any]:
        iid = self.ids()
        channel = self.channels[channel_id]
        payload: dict[str, Any] = {
            "id": str(iid),
            "application_id": str(self.app_id),
            "type": itype,
            "data": data,
            "token": f"offline-{iid}-{secrets.token_hex(8)}",
            "version": 1,
            "attachment_size_limit": 10 * 1024 * 1024,
            "locale": user.locale,
            "app_permissions": str(self.app_permissions),
            "entitlements": [],
            "channel_id": str(channel_id),
            "channel": {**_copy(channel), "permissions": str(user.permissions)},
        }
        if channel["type"] == DM:
            payload["user"] = user.user_json()
            payload["context"] = 1
            payload["authorizing_integration_owners"] = {"0": str(user.id)}
        else:
            gid = self._guild_of(channel)
            payload["guild_id"] = str(gid)
            assert gid is not None
            locale = self.guild_locales.get(gid, "en-US")
            payload["guild"] = {"id": str(gid), "locale": locale, "features": []}
            payload["guild_locale"] = locale
            payload["member"] = user.member_json()
            payload["context"] = 0
            payload["authorizing_integration_owners"] = {"0": str(gid)}
        if message is not None:
            payload["message"] = _copy(message.json)
        return payload

    def _command_data(
        self,
        root: dict[str, Any],
        chain: list[tuple[str, int]],
        opts: list[dict[str, Any]],
        scope: int | None,
        resolved: dict[str, Any],
    ) -> dict[str, Any]:
        for name, otype in reversed(chain):
            opts = [{"name": name, "type": otype, "options": opts}]
        data: dict[str, Any] = {"id": root["id"], "name": root["name"], "type": 1}
        if opts:
            data["options"] = opts
        if scope is not None:
            data["guild_id"] = str(scope)
        if resolved:
            data["resolved"] = resolved
        return data

    def _build_options(
        self,
        leaf: dict[str, Any],
        given: dict[str, Any],
        resolved: dict[str, Any],
        *,
        in_guild: bool,
        strict: bool,
    ) -> list[dict[str, Any]]:
        defs = {o["name"]: o for o in leaf.get("options") or []}
        unknown = set(given) - set(defs)
        if unknown:
            raise HarnessError(f"/{leaf['name']} has no option(s) {sorted(unknown)}; options: {sorted(defs)}")
        out = []
        for name, odef in defs.items():
            if name not in given:
                if strict and odef.get("required"):
                    raise HarnessError(f"option {name!r} of /{leaf['name']} is required")
                continue
            value = self._option_value(odef, given[name], resolved, in_guild=in_guild, strict=strict)
            out.append({"name": name, "type": odef["type"], "value": value})
        return out

    def _option_value(
        self, odef: dict[str, Any], value: Any, resolved: dict[str, Any], *, in_guild: bool, strict: bool
    ) -> Any:
        t, name = odef["type"], odef["name"]

        def fail(why: str) -> HarnessError:
            return HarnessError(f"option {name!r}: {why} (the Discord client would not send this)")

        if t in (3, 4, 10):
            if t == 3 and not isinstance(value, str):
                raise fail(f"expects a string, got {value!r}")
            if t == 4 and (isinstance(value, bool) or not isinstance(value, int)):
                raise fail(f"expects an integer, got {value!r}")
            if t == 10 and (isinstance(value, bool) or not isinstance(value, int | float)):
                raise fail(f"expects a number, got {value!r}")
            if strict:
                choices = odef.get("choices")
                if choices and value not in [c["value"] for c in choices]:
                    raise fail(f"{value!r} is not one of the choices {[c['value'] for c in choices]}")
                if t == 3:
                    if len(value) < odef.get("min_length", 0) or len(value) > odef.get("max_length", 6000):
                        raise fail(f"length {len(value)} is outside min_length/max_length")
                else:
                    lo, hi = odef.get("min_value"), odef.get("max_value")
                    if (lo is not None and value < lo) or (hi is not None and value > hi):
                        raise fail(f"{value} is outside {lo}..{hi}")
            return value
        if t == 5:
            if not isinstance(value, bool):
                raise fail(f"expects a boolean, got {value!r}")
            return value
        if t == 11:
            return self._attachment_option(value, resolved)
        if t == 7:
            cid = int(value) if not isinstance(value, dict) else int(value["id"])
            ch = self.channels.get(cid)
            if ch is None:
                raise fail(f"unknown channel {cid}")
            types = odef.get("channel_types")
            if strict and types and ch["type"] not in types:
                raise fail(f"channel type {ch['type']} not in {types}")
        return self._resolve_entity(value, resolved, in_guild=in_guild)

    def _resolve_entity(self, value: Any, resolved: dict[str, Any], *, in_guild: bool) -> str:
        """Put a user, role or channel into ``resolved`` (as Discord does) and return its id string."""
        if isinstance(value, FakeUser):
            user = value
        elif isinstance(value, int) and value in self.users:
            user = self.users[value]
        else:
            user = None
        if user is not None:
            resolved.setdefault("users", {})[str(user.id)] = user.user_json()
            if in_guild:
                resolved.setdefault("members", {})[str(user.id)] = user.member_json(with_user=False)
            return str(user.id)
        vid = int(value["id"]) if isinstance(value, dict) else int(value)
        if vid in self.roles:
            resolved.setdefault("roles", {})[str(vid)] = self.roles[vid]
        elif vid in self.channels:
            ch = self.channels[vid]
            entry: dict[str, Any] = {
                k: ch[k] for k in ("id", "type", "name", "parent_id", "thread_metadata") if k in ch
            }
            resolved.setdefault("channels", {})[str(vid)] = {**entry, "permissions": str(ALL_PERMISSIONS)}
        else:
            raise HarnessError(f"unknown user, role or channel {value!r}")
        return str(vid)

    def _attachment_option(self, value: Any, resolved: dict[str, Any]) -> str:
        if isinstance(value, SentFile):
            filename, data = value.filename, value.data
        else:
            filename, data = value
        aid = self.ids()
        att = attachment_json(aid, self.channel_id, filename, data, None)
        self.cdn[att["url"]] = data
        self.cdn[att["proxy_url"]] = data
        resolved.setdefault("attachments", {})[str(aid)] = att
        return str(aid)

    def _component(
        self, user: FakeUser, message_id: int | StoredMessage | None, custom_id: str
    ) -> tuple[StoredMessage, dict[str, Any]]:
        msg = self.find_message(custom_id, user=user) if message_id is None else self.message(message_id)
        if msg.deleted:
            raise HarnessError(f"message {msg.id} was deleted")
        if msg.ephemeral and msg.ephemeral_to not in (None, user.id):
            raise HarnessError(f"message {msg.id} is ephemeral and not visible to {user.name}")
        comp = msg.component(custom_id)
        if comp is None:
            raise HarnessError(f"message {msg.id} has no component {custom_id!r}; it has {msg.custom_ids}")
        if comp.get("disabled"):
            raise HarnessError(f"component {custom_id!r} is disabled")
        return msg, comp

    def _modal_components(
        self, modal: dict[str, Any], given: dict[str, Any], resolved: dict[str, Any]
    ) -> list[dict[str, Any]]:
        """The submitted components, mirroring the modal's layout (action rows or labels) like Discord."""

        def submitted(c: dict[str, Any]) -> dict[str, Any] | None:
            cid, ctype = c.get("custom_id"), c.get("type")
            if cid is None:
                return None
            if ctype == 4:
                value = given.get(cid, c.get("value") or "")
                if not isinstance(value, str):
                    raise HarnessError(f"text input {cid!r} takes a string")
                if c.get("required", True) and not value:
                    raise HarnessError(f"text input {cid!r} is required")
                if value and not c.get("min_length", 0) <= len(value) <= c.get("max_length", 4000):
                    raise HarnessError(f"text input {cid!r}: length {len(value)} outside min/max_length")
                return {"type": 4, "custom_id": cid, "value": value}
            if ctype in _SELECT_TYPES or ctype in (19, 22):
                vals = list(given.get(cid, []))
                if c.get("required", True) and c.get("min_values", 1) > len(vals):
                    raise HarnessError(f"modal input {cid!r} needs {c.get('min_values', 1)}+ value(s)")
                if ctype == 19:  # file upload: (filename, bytes) pairs become resolved attachments
                    vals = [self._attachment_option(v, resolved) for v in vals]
                elif ctype in _SELECT_TYPES and ctype != 3:
                    vals = [self._resolve_entity(v, resolved, in_guild=True) for v in vals]
                return {"type": ctype, "custom_id": cid, "values": [str(v) for v in vals]}
            if ctype == 21:  # radio group
                return {"type": ctype, "custom_id": cid, "value": given.get(cid)}
            if ctype == 23:  # checkbox
                return {"type": ctype, "custom_id": cid, "value": bool(given.get(cid, False))}
            return None

        out: list[dict[str, Any]] = []
        for top in modal.get("components") or []:
            if top.get("type") == 1:
                inner = [s for s in (submitted(c) for c in top.get("components") or []) if s]
                if inner:
                    out.append({"type": 1, "components": inner})
            elif top.get("type") == 18 and isinstance(top.get("component"), dict):
                s = submitted(top["component"])
                if s:
                    out.append({"type": 18, "component": s})
        return out
