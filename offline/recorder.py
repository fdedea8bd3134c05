"""The offline Discord, layer 3 of 7: every request recorded with its answer (and checked against
Discord's limits), injected faults and the global rate limit, and the messages made and edited.

One layer of `OfflineDiscord` (offline/offline.py), each on the one before: world, commands, recorder,
routes, interaction_payloads, interactions; offline.py adds the bot's lifecycle and the seams.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from typing import Any

import discord

from . import limits
from .commands import SyncedCommands
from .faults import FAULTS, Fault, GlobalLimit, ProcessKilled, _http_error
from .payloads import (
    COMPONENTS_V2,
    EPHEMERAL,
    LOADING,
    attachment_json,
    message_json,
)
from .records import (
    Request,
    SentFile,
    StoredMessage,
)
from .world import _Interaction

_MESSAGE_FLAGS_KEPT = EPHEMERAL | (1 << 2) | (1 << 12) | (1 << 15)  # ephemeral, suppress embeds/notifs, v2


class Recorder(SyncedCommands):
    """Records requests, injects faults, makes and edits messages."""

    def _record(
        self,
        seam: str,
        route: Any,
        kind: str,
        payload: Any,
        files: list[SentFile],
        params: dict[str, Any] | None,
        inter: _Interaction | None,
    ) -> Request:
        if payload is not None:
            # Round-trip through JSON like the real seams do: the record is exactly what goes on the wire,
            # and a value that cannot be serialized fails here as it would in production.
            payload = json.loads(discord.utils._to_json(payload))
        self._seq += 1
        req = Request(
            self._seq,
            seam,
            route.method,
            route.path,
            route.url,
            kind,
            payload,
            files,
            params,
            inter.result.interaction_id if inter else None,
            time.monotonic(),
        )
        self.requests.append(req)
        if inter is not None:
            inter.result.requests.append(req)
        return req

    def _finish(self, req: Request) -> None:
        """Apply the limit checks; violations outside an interaction go to ``self.violations``."""
        data = req.data
        stored = self.messages.get(req.message_id) if req.message_id is not None else None
        if stored is not None and "flags" not in data:
            # An edit without flags keeps the message's components-v2 layout, which changes the rules.
            data = {**data, "flags": stored.flags & COMPONENTS_V2}
        if req.kind == "callback":
            ctype = req.callback_type
            if ctype == 8:
                req.violations += limits.check_choices(req.data.get("choices") or [])
            elif ctype == 9:
                req.violations += limits.check_modal(req.data)
            elif ctype in (4, 7):
                req.violations += limits.check_message(data, new=ctype == 4)
        elif req.kind == "sync_commands" and isinstance(req.payload, list):
            req.violations += limits.check_command_tree(req.payload)
        elif req.is_message:
            req.violations += limits.check_message(data, new=req.kind in ("channel_message", "followup"))
        if req.interaction_id is None or req.interaction_id not in self._interactions:
            self.violations += [f"#{req.seq} {req.kind}: {v}" for v in req.violations]
        elif self._interactions[req.interaction_id].done:  # the interaction already returned: report globally
            self.violations += [f"#{req.seq} {req.kind}: {v}" for v in req.violations]

    def limit_globally(self, rate: float = 50.0, burst: float | None = None) -> GlobalLimit:
        """Model Discord's global limit from now on: requests beyond ``rate`` a second are answered 429."""
        self.global_limit = GlobalLimit(rate, burst)
        return self.global_limit

    def fail(
        self,
        kind: str,
        error: str,
        times: int = 1,
        *,
        retry_after: float = 1.0,
        lost_reply: bool = False,
        when: Callable[[Request], bool] | None = None,
        code: int = 0,
    ) -> Fault:
        """Make the next ``times`` HTTP requests of ``kind`` fail with ``error`` (one of ``FAULTS``);
        ``code`` is the JSON error code Discord would send with it (e.g. ``"400"`` with 30046)."""
        if error not in FAULTS:
            raise ValueError(f"unknown fault {error!r}; one of {FAULTS}")
        fault = Fault(kind, error, times, retry_after, lost_reply, when, code=code)
        self.faults.append(fault)
        return fault

    def _die(self) -> None:
        self.dead = True
        for hook in self.on_kill:
            hook()

    def _check_alive(self) -> None:
        """A request of a bot whose process died: it never leaves (``OfflineDiscord.revive``)."""
        if self.dead:
            raise ProcessKilled("the process is dead")

    def _fault_for(self, req: Request) -> Fault | None:
        for fault in self.faults:
            if fault.matches(req):
                fault.hits.append(req)
                req.fault = fault.error
                if fault.error == "kill":
                    self._die()
                return fault
        return None

    def _new_message(
        self,
        channel_id: int,
        data: dict[str, Any],
        files: list[SentFile],
        *,
        inter: _Interaction | None = None,
        ephemeral_to: int | None = None,
        extra_flags: int = 0,
        message_id: int | None = None,
    ) -> StoredMessage:
        mid = message_id or self.ids()
        atts, blobs = self._attachments(channel_id, data, files, [], {})
        channel = self.channels.get(channel_id, {})
        guild_id = self._guild_of(channel) if channel else self.guild_id
        mentioned = {int(u) for u in re.findall(r"<@!?(\d+)>", data.get("content") or "")}
        mtype = 20 if inter is not None and inter.result.interaction_type == 2 else 0
        msg = StoredMessage(
            message_json(
                message_id=mid,
                channel_id=channel_id,
                guild_id=guild_id,
                author=self.bot_user.user_json(),
                data=data,
                attachments=atts,
                flags=((data.get("flags") or 0) & _MESSAGE_FLAGS_KEPT) | extra_flags,
                message_type=mtype,
                application_id=self.app_id if inter else None,
                webhook_id=self.app_id if inter else None,
                mentions=[self.users[u].user_json() for u in mentioned if u in self.users],
            ),
            files=blobs,
            ephemeral_to=ephemeral_to,
            interaction_id=inter.result.interaction_id if inter else None,
        )
        self.messages[mid] = msg
        self._by_channel.setdefault(msg.channel_id, []).append(msg)
        if channel:
            channel["last_message_id"] = str(mid)
        return msg

    def _attachments(
        self,
        channel_id: int,
        data: dict[str, Any],
        files: list[SentFile],
        existing: list[dict[str, Any]],
        blobs: dict[str, bytes],
    ) -> tuple[list[dict[str, Any]], dict[str, bytes]]:
        entries = data.get("attachments")
        if entries is None:
            if not files:
                return existing, blobs
            entries = [{"id": i, "filename": f.filename} for i, f in enumerate(files)]
        kept = {a["id"]: a for a in existing}
        out, new_blobs = [], {}
        for e in entries:
            eid = str(e.get("id"))
            if eid in kept:
                out.append(kept[eid])
                new_blobs[eid] = blobs.get(eid, b"")
                continue
            idx = e.get("id")
            if isinstance(idx, int) and 0 <= idx < len(files):
                f = files[idx]
                aid = self.ids()
                att = attachment_json(
                    aid, channel_id, e.get("filename") or f.filename, f.data, e.get("description")
                )
                self.cdn[att["url"]] = f.data
                self.cdn[att["proxy_url"]] = f.data
                out.append(att)
                new_blobs[att["id"]] = f.data
        return out, new_blobs

    def _edit(self, msg: StoredMessage, data: dict[str, Any], files: list[SentFile]) -> StoredMessage:
        j = msg.json
        for key in ("content", "embeds", "components"):
            if key in data:
                j[key] = data[key] if data[key] is not None else ("" if key == "content" else [])
        flags = j.get("flags", 0) & ~LOADING
        if data.get("flags") is not None:
            flags = (flags & EPHEMERAL) | (data["flags"] & _MESSAGE_FLAGS_KEPT & ~EPHEMERAL)
        j["flags"] = flags
        j["attachments"], msg.files = self._attachments(
            msg.channel_id, data, files, j.get("attachments") or [], msg.files
        )
        j["edited_timestamp"] = discord.utils.utcnow().isoformat()
        msg.edits += 1
        return msg

    def _live(self, message_id: int, channel_id: int | None = None) -> StoredMessage:
        msg = self.messages.get(message_id)
        if msg is None or msg.deleted or (channel_id is not None and msg.channel_id != channel_id):
            raise _http_error(404, 10008, "Unknown Message")
        return msg
