"""The offline Discord, layer 4 of 7: the fake REST API. The bot-token routes (``bot.http.request``) and
the interaction-webhook routes (``AsyncWebhookAdapter.request``), answered as Discord answers them.

One layer of `OfflineDiscord` (offline/offline.py), each on the one before: world, commands, recorder,
routes, interaction_payloads, interactions; offline.py adds the bot's lifecycle and the seams.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Callable, Iterable
from typing import Any

import discord

from .faults import _http_error, _too_many
from .payloads import (
    DM,
    EPHEMERAL,
    LOADING,
    PRIVATE_THREAD,
    FakeUser,
    app_info_json,
    thread_json,
)
from .recorder import Recorder
from .records import (
    Request,
    SentFile,
    StoredMessage,
    pinged_users,
)
from .world import PIN_MESSAGES, _copy, _current, _Interaction, _PendingModal

# Which callback types Discord accepts for which interaction type (2 command, 3 component, 4 autocomplete,
# 5 modal submit). 6 and 7 on a modal submit additionally need the modal to come from a message.
_VALID_CALLBACKS = {2: {4, 5, 9}, 3: {4, 5, 6, 7, 9}, 4: {8}, 5: {4, 5, 6, 7}}


_ROUTE_RE_CACHE: dict[str, re.Pattern[str]] = {}


def route_params(route: Any) -> dict[str, str]:
    """The ``{placeholders}`` of a discord.py Route, read back from its formatted URL."""
    pattern = _ROUTE_RE_CACHE.get(route.path)
    if pattern is None:
        regex = re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(route.path))
        pattern = _ROUTE_RE_CACHE[route.path] = re.compile(regex + "$")
    url = route.url.split("?", 1)[0]
    base = discord.http.Route.BASE
    m = pattern.match(url[len(base) :] if url.startswith(base) else url)
    return m.groupdict() if m else {}


def parse_multipart(form: Iterable[dict[str, Any]]) -> tuple[dict[str, Any] | None, list[SentFile]]:
    """Split discord.py's multipart form into the JSON body and the uploaded files (read, then rewound)."""
    payload = None
    files: list[SentFile] = []
    for part in form:
        if part.get("name") == "payload_json":
            payload = json.loads(part["value"])
            continue
        value: Any = part.get("value")
        if hasattr(value, "read"):
            pos = value.tell() if hasattr(value, "tell") else None
            data = value.read()
            if pos is not None:
                value.seek(pos)
        else:
            data = value if isinstance(value, bytes) else str(value).encode()
        files.append(SentFile(part.get("filename") or part.get("name", ""), data))
    # Descriptions travel in payload_json's attachments (under "data" for callbacks), not in the file parts.
    body = (payload or {}).get("data") if isinstance((payload or {}).get("data"), dict) else payload
    for a in (body or {}).get("attachments") or []:
        idx = a.get("id")
        if isinstance(idx, int) and 0 <= idx < len(files):
            files[idx].description = a.get("description")
    return payload, files


class Routes(Recorder):
    """The routes of the fake API: messages, channels, threads, members, commands, interaction answers."""

    async def _http_request(self, route: Any, *, files: Any = None, form: Any = None, **kwargs: Any) -> Any:
        self._check_alive()
        payload = kwargs.get("json")
        sent: list[SentFile] = []
        if form:
            payload, sent = parse_multipart(form)
        params = kwargs.get("params")
        args = route_params(route)
        kind, handler = _HTTP_ROUTES.get((route.method, route.path), ("other", None))
        req = self._record("http", route, kind, payload, sent, params, _current.get())
        await asyncio.sleep(self.network_delay)
        if self.global_limit is not None:
            retry = self.global_limit.take(asyncio.get_running_loop().time())
            if retry is not None:
                req.fault = "429"
                self._finish(req)
                raise _too_many(retry)
        fault = self._fault_for(req)
        if fault is not None and not fault.lost_reply:
            self._finish(req)
            raise fault.exception()
        try:
            if handler is None:
                self.unhandled.append(req)
                response = None
            else:
                response = handler(self, req, args)
            req.response = _copy(response)
        finally:
            self._finish(req)
        if fault is not None:
            raise fault.exception()
        return _copy(response)

    async def _get_from_cdn(self, url: str) -> bytes:
        try:
            return self.cdn[url]
        except KeyError:
            raise _http_error(404, 0, f"no such CDN file {url}") from None

    async def _webhook_request(
        self,
        route: Any,
        *,
        payload: Any = None,
        multipart: Any = None,
        files: Any = None,
        params: Any = None,
        **_: Any,
    ) -> Any:
        self._check_alive()
        sent: list[SentFile] = []
        if multipart:
            payload, sent = parse_multipart(multipart)
        args = route_params(route)
        inter = self._by_token.get(args.get("webhook_token", ""))
        kind = _webhook_kind(route.method, route.path)
        # A webhook that is not an interaction token (a channel webhook) is recorded under the current
        # interaction, but Discord would not know it.
        req = self._record("webhook", route, kind, payload, sent, params, inter or _current.get())
        await asyncio.sleep(self.network_delay)
        if inter is None:
            self.unhandled.append(req)
            raise _http_error(404, 10015, "Unknown Webhook")
        # Faults reach follow-ups and their edits too (an expired token, a 5xx): the bot sends those from
        # its delivery worker, and must fall back to the channel (bot.outbox.lanes). And the interaction's
        # own answer (its callback, the edit of a deferred one): a lost reply there means Discord took it.
        fault = self._fault_for(req) if kind in _WEBHOOK_FAULTS else None
        if fault is not None and not fault.lost_reply:
            self._finish(req)
            raise fault.exception()
        try:
            response = self._webhook_handlers[kind](self, req, inter, args)
            req.response = _copy(response)
        finally:
            self._finish(req)
        if fault is not None:
            raise fault.exception()
        return _copy(response)

    def _h_me(self, req: Request, args: dict[str, str]) -> Any:
        return {**self.bot_user.user_json(), "verified": True, "mfa_enabled": False, "flags": 0}

    def _h_app(self, req: Request, args: dict[str, str]) -> Any:
        return app_info_json(self.app_id, self.owner, self.bot_user.name)

    def _h_sync(self, req: Request, args: dict[str, str]) -> Any:
        scope = int(args["guild_id"]) if "guild_id" in args else None
        commands_sent: list[dict[str, Any]] = req.payload if isinstance(req.payload, list) else []
        out = [self._with_ids(c, scope) for c in commands_sent]
        self.synced[scope] = out
        return out

    def _h_get_commands(self, req: Request, args: dict[str, str]) -> Any:
        scope = int(args["guild_id"]) if "guild_id" in args else None
        return self.synced.get(scope, [])

    def _h_send(self, req: Request, args: dict[str, str]) -> Any:
        cid = int(args["channel_id"])
        channel = self.channels.get(cid)
        if channel is None:
            raise _http_error(404, 10003, "Unknown Channel")
        if channel.get("type") == DM:
            recipient = self.users.get(int(channel["recipients"][0]["id"]))
            if recipient is not None and not recipient.dms_open:
                raise _http_error(403, 50007, "Cannot send messages to this user")
        data = req.data
        nonce = data.get("nonce")
        if nonce is not None and data.get("enforce_nonce"):
            # Discord: "if another message was created by the same author with the same nonce, that message
            # will be returned and no new message will be created" (for a few minutes; here, always).
            earlier = self._nonces.get((cid, str(nonce)))
            if earlier is not None and earlier in self.messages:
                req.message_id, req.channel_id, req.deduplicated = earlier, cid, True
                return self.messages[earlier].json
        msg = self._new_message(cid, data, req.files)
        if nonce is not None and data.get("enforce_nonce"):
            self._nonces[(cid, str(nonce))] = msg.id
        req.message_id, req.channel_id = msg.id, cid
        req.pinged_user_ids = pinged_users(data, is_new_message=True)
        return msg.json

    def _h_edit(self, req: Request, args: dict[str, str]) -> Any:
        msg = self._live(int(args["message_id"]), int(args["channel_id"]))
        if msg.json["author"]["id"] != str(self.app_id):
            raise _http_error(403, 50005, "Cannot edit a message authored by another user")
        self._edit(msg, req.data, req.files)
        req.message_id, req.channel_id = msg.id, msg.channel_id
        return msg.json

    def _h_pin(self, req: Request, args: dict[str, str]) -> Any:
        """Pin or unpin (by the method); the bot needs Pin Messages, or Discord answers 403, code 50013."""
        if not self.app_permissions & PIN_MESSAGES:
            raise _http_error(403, 50013, "Missing Permissions")
        msg = self._live(int(args["message_id"]), int(args["channel_id"]))
        msg.pinned = req.method == "PUT"
        req.message_id, req.channel_id = msg.id, msg.channel_id
        return None

    def _h_delete(self, req: Request, args: dict[str, str]) -> Any:
        msg = self._live(int(args["message_id"]), int(args["channel_id"]))
        msg.deleted = True
        req.message_id, req.channel_id = msg.id, msg.channel_id
        return None

    def _h_get_message(self, req: Request, args: dict[str, str]) -> Any:
        return self._live(int(args["message_id"]), int(args["channel_id"])).json

    def _h_history(self, req: Request, args: dict[str, str]) -> Any:
        limit = int((req.params or {}).get("limit", 50))
        msgs = [m.json for m in self.channel_messages(int(args["channel_id"]))]
        return list(reversed(msgs))[:limit]

    def _h_channel(self, req: Request, args: dict[str, str]) -> Any:
        ch = self.channels.get(int(args["channel_id"]))
        if ch is None:
            raise _http_error(404, 10003, "Unknown Channel")
        return ch

    def _h_edit_channel(self, req: Request, args: dict[str, str]) -> Any:
        ch = self._h_channel(req, args)
        for key, value in (req.payload or {}).items():  # type: ignore[union-attr]
            if (
                key in ("archived", "locked", "auto_archive_duration", "invitable")
                and "thread_metadata" in ch
            ):
                ch["thread_metadata"][key] = value
            else:
                ch[key] = value
        return ch

    def _h_thread(self, req: Request, args: dict[str, str]) -> Any:
        parent = int(args["channel_id"])
        if parent not in self.channels:
            raise _http_error(404, 10003, "Unknown Channel")
        body = req.payload or {}
        if "message_id" in args:
            tid = int(args["message_id"])  # Discord gives a thread started from a message the message's id
            self._live(tid, parent)
        else:
            tid = self.ids()
        private = body.get("type") == PRIVATE_THREAD  # type: ignore[union-attr]
        ch = thread_json(
            tid,
            self._guild_of(self.channels[parent]) or self.guild_id,
            parent,
            body.get("name", "thread"),  # type: ignore[union-attr]
            owner_id=self.app_id,
            private=private,
        )
        self.channels[tid] = ch
        req.channel_id = tid
        return ch

    def _h_dm(self, req: Request, args: dict[str, str]) -> Any:
        uid = int((req.payload or {}).get("recipient_id"))  # type: ignore[union-attr, arg-type]
        user = self.users.get(uid) or FakeUser(uid, f"user{uid}")
        return self.channels.get(self.dm_channel(user))

    def _h_member(self, req: Request, args: dict[str, str]) -> Any:
        user = self.users.get(int(args["user_id"]))
        if user is None:
            raise _http_error(404, 10007, "Unknown Member")
        return user.member_json()

    def _h_user(self, req: Request, args: dict[str, str]) -> Any:
        user = self.users.get(int(args["user_id"]))
        if user is None:
            raise _http_error(404, 10013, "Unknown User")
        return user.user_json()

    def _h_guild(self, req: Request, args: dict[str, str]) -> Any:
        return self.guild_payload()

    def _h_none(self, req: Request, args: dict[str, str]) -> Any:
        return None

    def _w_callback(self, req: Request, inter: _Interaction, args: dict[str, str]) -> Any:
        result = inter.result
        if inter.acknowledged:
            raise _http_error(400, 40060, "Interaction has already been acknowledged.")
        elapsed = time.monotonic() - inter.started
        if self.response_deadline is not None and elapsed > self.response_deadline:
            req.violations.append(f"answered after {elapsed:.2f}s (deadline {self.response_deadline}s)")
            raise _http_error(404, 10062, "Unknown interaction")
        ctype = req.callback_type
        valid = set(_VALID_CALLBACKS.get(result.interaction_type, set()))
        if result.interaction_type == 5 and inter.message_id is None:
            valid -= {6, 7}
        if ctype not in valid:
            req.violations.append(
                f"callback type {ctype} is invalid for interaction type {result.interaction_type}"
            )
            raise _http_error(400, 50035, "Invalid Form Body")
        inter.acknowledged = True
        result.latency = elapsed
        if ctype in (4, 7):
            result.answered_in = elapsed
        data = req.data
        channel_id = result.channel_id
        message: StoredMessage | None = None
        if ctype == 4:
            eph = bool((data.get("flags") or 0) & EPHEMERAL)
            message = self._new_message(
                channel_id, data, req.files, inter=inter, ephemeral_to=inter.user.id if eph else None
            )
            req.pinged_user_ids = pinged_users(data, is_new_message=True)
        elif ctype == 5:
            eph = bool((data.get("flags") or 0) & EPHEMERAL)
            message = self._new_message(
                channel_id,
                {},
                [],
                inter=inter,
                extra_flags=LOADING | (EPHEMERAL * eph),
                ephemeral_to=inter.user.id if eph else None,
            )
            inter.deferred_thinking = True
        elif ctype in (6, 7) and inter.message_id is not None:
            message = self._live(inter.message_id)
            if ctype == 7:
                self._edit(message, data, req.files)
        elif ctype == 9:
            self._modals.setdefault(inter.user.id, []).append(
                _PendingModal(_copy(data), channel_id, inter.message_id)
            )
        if message is not None:
            inter.original_id = message.id
            req.message_id, req.channel_id = message.id, message.channel_id
        response: dict[str, Any] = {
            "interaction": {
                "id": str(result.interaction_id),
                "type": result.interaction_type,
                "response_message_loading": ctype == 5,
                "response_message_ephemeral": bool(message and message.ephemeral),
            }
        }
        if message is not None:
            response["interaction"]["response_message_id"] = str(message.id)
            response["resource"] = {"type": ctype, "message": message.json}
        return response

    def _original(self, inter: _Interaction) -> StoredMessage:
        if inter.original_id is None:
            raise _http_error(404, 10008, "Unknown Message")
        return self._live(inter.original_id)

    def _answered(self, inter: _Interaction) -> None:
        if inter.result.answered_in is None:
            inter.result.answered_in = time.monotonic() - inter.started

    def _w_edit_original(self, req: Request, inter: _Interaction, args: dict[str, str]) -> Any:
        msg = self._edit(self._original(inter), req.data, req.files)
        self._answered(inter)
        req.message_id, req.channel_id = msg.id, msg.channel_id
        return msg.json

    def _w_get_original(self, req: Request, inter: _Interaction, args: dict[str, str]) -> Any:
        return self._original(inter).json

    def _w_delete_original(self, req: Request, inter: _Interaction, args: dict[str, str]) -> Any:
        msg = self._original(inter)
        msg.deleted = True
        req.message_id, req.channel_id = msg.id, msg.channel_id
        return None

    def _w_followup(self, req: Request, inter: _Interaction, args: dict[str, str]) -> Any:
        if not inter.acknowledged:
            raise _http_error(404, 10015, "Unknown Webhook")
        data = req.data
        original = self.messages.get(inter.original_id) if inter.original_id else None
        if inter.deferred_thinking and original is not None and original.loading:
            # The first followup after a "thinking" defer replaces the loading message; its ephemerality
            # was fixed by the defer.
            self._edit(original, {k: v for k, v in data.items() if k != "flags"}, req.files)
            msg = original
            self._answered(inter)
        else:
            eph = bool((data.get("flags") or 0) & EPHEMERAL)
            msg = self._new_message(
                inter.result.channel_id,
                data,
                req.files,
                inter=inter,
                ephemeral_to=inter.user.id if eph else None,
            )
            req.public_followup = not eph
            if eph:  # a private answer after a defer (a public follow-up is the change's post)
                self._answered(inter)
        req.message_id, req.channel_id = msg.id, msg.channel_id
        req.pinged_user_ids = pinged_users(data, is_new_message=True)
        return msg.json

    def _followup_message(self, inter: _Interaction, args: dict[str, str]) -> StoredMessage:
        msg = self._live(int(args["message_id"]))
        if msg.interaction_id != inter.result.interaction_id:
            raise _http_error(404, 10008, "Unknown Message")
        return msg

    def _w_edit_followup(self, req: Request, inter: _Interaction, args: dict[str, str]) -> Any:
        msg = self._edit(self._followup_message(inter, args), req.data, req.files)
        req.message_id, req.channel_id = msg.id, msg.channel_id
        return msg.json

    def _w_get_followup(self, req: Request, inter: _Interaction, args: dict[str, str]) -> Any:
        return self._followup_message(inter, args).json

    def _w_delete_followup(self, req: Request, inter: _Interaction, args: dict[str, str]) -> Any:
        self._followup_message(inter, args).deleted = True
        return None

    _webhook_handlers: dict[str, Callable[..., Any]] = {
        "callback": _w_callback,
        "followup": _w_followup,
        "edit_original": _w_edit_original,
        "get_original": _w_get_original,
        "delete_original": _w_delete_original,
        "edit_followup": _w_edit_followup,
        "get_followup": _w_get_followup,
        "delete_followup": _w_delete_followup,
    }


# The webhook kinds OfflineDiscord.fail reaches (its other kinds are the bot-token routes).
_WEBHOOK_FAULTS = ("followup", "edit_followup", "callback", "edit_original")


def _webhook_kind(method: str, path: str) -> str:
    if path.endswith("/callback"):
        return "callback"
    if path.endswith("/messages/@original"):
        return {"PATCH": "edit_original", "GET": "get_original", "DELETE": "delete_original"}[method]
    if "/messages/{message_id}" in path:
        return {"PATCH": "edit_followup", "GET": "get_followup", "DELETE": "delete_followup"}[method]
    return "followup"


_C, _M = "/channels/{channel_id}", "/channels/{channel_id}/messages/{message_id}"


_HTTP_ROUTES: dict[tuple[str, str], tuple[str, Callable[..., Any]]] = {
    ("GET", "/users/@me"): ("login", Routes._h_me),
    ("GET", "/oauth2/applications/@me"): ("app_info", Routes._h_app),
    ("PUT", "/applications/{application_id}/commands"): ("sync_commands", Routes._h_sync),
    ("PUT", "/applications/{application_id}/guilds/{guild_id}/commands"): (
        "sync_commands",
        Routes._h_sync,
    ),
    ("GET", "/applications/{application_id}/commands"): ("get_commands", Routes._h_get_commands),
    ("GET", "/applications/{application_id}/guilds/{guild_id}/commands"): (
        "get_commands",
        Routes._h_get_commands,
    ),
    ("POST", _C + "/messages"): ("channel_message", Routes._h_send),
    ("GET", _C + "/messages"): ("history", Routes._h_history),
    ("PATCH", _M): ("edit_message", Routes._h_edit),
    ("DELETE", _M): ("delete_message", Routes._h_delete),
    ("GET", _M): ("get_message", Routes._h_get_message),
    ("GET", _C): ("get_channel", Routes._h_channel),
    ("PATCH", _C): ("edit_channel", Routes._h_edit_channel),
    ("POST", _C + "/threads"): ("thread", Routes._h_thread),
    ("POST", _M + "/threads"): ("thread", Routes._h_thread),
    ("PUT", _C + "/thread-members/@me"): ("join_thread", Routes._h_none),
    ("PUT", _C + "/thread-members/{user_id}"): ("add_thread_member", Routes._h_none),
    ("DELETE", _C + "/thread-members/{user_id}"): ("remove_thread_member", Routes._h_none),
    ("POST", _C + "/typing"): ("typing", Routes._h_none),
    ("PUT", _M + "/reactions/{emoji}/@me"): ("reaction", Routes._h_none),
    ("PUT", _C + "/pins/{message_id}"): ("pin", Routes._h_pin),
    ("PUT", _C + "/messages/pins/{message_id}"): ("pin", Routes._h_pin),
    ("DELETE", _C + "/pins/{message_id}"): ("unpin", Routes._h_pin),
    ("DELETE", _C + "/messages/pins/{message_id}"): ("unpin", Routes._h_pin),
    ("POST", "/users/@me/channels"): ("dm_channel", Routes._h_dm),
    ("GET", "/guilds/{guild_id}/members/{user_id}"): ("get_member", Routes._h_member),
    ("GET", "/users/{user_id}"): ("get_user", Routes._h_user),
    ("GET", "/guilds/{guild_id}"): ("get_guild", Routes._h_guild),
}
