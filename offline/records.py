"""Structured records of what the bot sent: requests, stored messages, logged errors, interaction results."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from .payloads import EPHEMERAL, LOADING

CALLBACK_TYPES = {
    1: "pong",
    4: "message",
    5: "deferred",
    6: "deferred update",
    7: "update message",
    8: "autocomplete result",
    9: "modal",
}
_MENTION_RE = re.compile(r"<@!?(\d+)>")


class HarnessError(AssertionError):
    """The bot did something Discord would reject or a user would see as a failure.

    ``result`` holds the :class:`InteractionResult` when the problem belongs to one interaction.
    """

    def __init__(self, message: str, result: InteractionResult | None = None) -> None:
        super().__init__(message)
        self.result = result


@dataclass
class SentFile:
    filename: str
    data: bytes
    description: str | None = None


@dataclass
class LoggedError:
    """A captured log record: ERROR or worse is how discord.py reports exceptions in callbacks."""

    logger: str
    message: str
    exc_text: str | None
    interaction_id: int | None

    @classmethod
    def from_record(cls, record: logging.LogRecord, interaction_id: int | None) -> LoggedError:
        exc_text = None
        if record.exc_info:
            exc_text = logging.Formatter().formatException(record.exc_info)
        return cls(record.name, record.getMessage(), exc_text, interaction_id)

    def __str__(self) -> str:
        return f"[{self.logger}] {self.message}" + (f"\n{self.exc_text}" if self.exc_text else "")


@dataclass
class Request:
    """One request the bot made, as Discord would have received it.

    ``seam`` is ``"http"`` (bot.http.request) or ``"webhook"`` (interaction callbacks and followups).
    ``path`` is discord.py's route template, e.g. ``/channels/{channel_id}/messages``. ``kind`` names the
    operation: login, app_info, sync_commands, channel_message, edit_message, delete_message, callback,
    followup, edit_original, edit_followup, delete_original, get_original, thread, other.
    ``payload`` is the JSON body (taken from ``payload_json`` for multipart uploads).
    """

    seq: int
    seam: str
    method: str
    path: str
    url: str
    kind: str
    payload: dict[str, Any] | list[Any] | None
    files: list[SentFile]
    params: dict[str, Any] | None
    interaction_id: int | None
    at: float
    response: Any = None
    violations: list[str] = field(default_factory=list)
    message_id: int | None = None
    channel_id: int | None = None
    pinged_user_ids: set[int] = field(default_factory=set)
    fault: str | None = None  # the fault injected into this request (OfflineDiscord.fail), if any
    deduplicated: bool = False  # a message create whose enforced nonce matched an earlier message
    public_followup: bool = False  # a follow-up that made a new public message (not the deferred answer)

    @property
    def public_post(self) -> bool:
        """A new message in the channel: ``channel.send()``, or a public follow-up (bot.outbox.lanes)."""
        return self.kind == "channel_message" or self.public_followup

    @property
    def callback_type(self) -> int | None:
        if self.kind == "callback" and isinstance(self.payload, dict):
            return self.payload.get("type")
        return None

    @property
    def callback_name(self) -> str | None:
        t = self.callback_type
        return None if t is None else CALLBACK_TYPES.get(t, str(t))

    @property
    def data(self) -> dict[str, Any]:
        """The message-like body: ``payload['data']`` for callbacks, the payload otherwise."""
        if not isinstance(self.payload, dict):
            return {}
        if self.kind == "callback":
            return self.payload.get("data") or {}
        return self.payload

    @property
    def content(self) -> str | None:
        return self.data.get("content")

    @property
    def embeds(self) -> list[dict[str, Any]]:
        return self.data.get("embeds") or []

    @property
    def components(self) -> list[dict[str, Any]]:
        return self.data.get("components") or []

    @property
    def allowed_mentions(self) -> dict[str, Any] | None:
        return self.data.get("allowed_mentions")

    @property
    def flags(self) -> int:
        return self.data.get("flags") or 0

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    @property
    def choices(self) -> list[dict[str, Any]] | None:
        return self.data.get("choices") if self.callback_type == 8 else None

    @property
    def modal(self) -> dict[str, Any] | None:
        return self.data if self.callback_type == 9 else None

    @property
    def is_message(self) -> bool:
        """Whether this request created or edited a message."""
        return self.kind in {
            "channel_message",
            "edit_message",
            "followup",
            "edit_original",
            "edit_followup",
        } or (self.callback_type in (4, 7))

    def __repr__(self) -> str:
        extra = f" type={self.callback_type}({self.callback_name})" if self.kind == "callback" else ""
        return f"<Request #{self.seq} {self.seam} {self.method} {self.path} kind={self.kind}{extra}>"


def pinged_users(data: dict[str, Any], *, is_new_message: bool) -> set[int]:
    """Users a *new* message notifies: mentioned in its content and allowed by allowed_mentions.

    Edits never ping, so they give an empty set.
    """
    if not is_new_message:
        return set()
    mentioned = {int(m) for m in _MENTION_RE.findall(data.get("content") or "")}
    am = data.get("allowed_mentions")
    if am is None:
        return mentioned
    if "users" in (am.get("parse") or []):
        return mentioned
    return mentioned & {int(u) for u in am.get("users") or []}


@dataclass
class StoredMessage:
    """A message as the fake Discord currently holds it. ``json`` is the Discord message object."""

    json: dict[str, Any]
    files: dict[str, bytes] = field(default_factory=dict)
    ephemeral_to: int | None = None
    interaction_id: int | None = None
    edits: int = 0
    deleted: bool = False
    pinned: bool = False

    @property
    def id(self) -> int:
        return int(self.json["id"])

    @property
    def channel_id(self) -> int:
        return int(self.json["channel_id"])

    @property
    def content(self) -> str:
        return self.json.get("content") or ""

    @property
    def embeds(self) -> list[dict[str, Any]]:
        return self.json.get("embeds") or []

    @property
    def components(self) -> list[dict[str, Any]]:
        return self.json.get("components") or []

    @property
    def flags(self) -> int:
        return self.json.get("flags") or 0

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    @property
    def loading(self) -> bool:
        """A deferred ("Bot is thinking…") response that nothing has filled yet."""
        return bool(self.flags & LOADING)

    @property
    def attachments(self) -> list[SentFile]:
        return [
            SentFile(a["filename"], self.files.get(a["id"], b""), a.get("description"))
            for a in self.json.get("attachments") or []
        ]

    def walk_components(self) -> Iterator[dict[str, Any]]:
        stack = list(self.components)
        while stack:
            c = stack.pop(0)
            yield c
            stack[0:0] = list(c.get("components") or [])
            for key in ("component", "accessory"):
                if isinstance(c.get(key), dict):
                    stack.insert(0, c[key])

    def component(self, custom_id: str) -> dict[str, Any] | None:
        return next((c for c in self.walk_components() if c.get("custom_id") == custom_id), None)

    @property
    def custom_ids(self) -> list[str]:
        return [c["custom_id"] for c in self.walk_components() if c.get("custom_id")]

    def as_text(self) -> str:
        """A plain-text rendering (for the console and for readable assertion messages)."""
        lines = [("(only you) " if self.ephemeral else "") + (self.content or "")]
        if self.loading:
            lines.append("… thinking …")
        for e in self.embeds:
            head = " — ".join(x for x in (e.get("title"), e.get("description")) if x)
            lines.append(f"┃ {head}")
            lines += [f"┃ {f.get('name')}: {f.get('value')}" for f in e.get("fields") or []]
        for a in self.attachments:
            lines.append(f"[file {a.filename}, {len(a.data)} bytes]")
        for c in self.walk_components():
            t = c.get("type")
            off = " (disabled)" if c.get("disabled") else ""
            if t == 2:
                target = c.get("url") or c.get("custom_id")
                label = c.get("label") or (c.get("emoji") or {}).get("name", "")
                lines.append(f"[button {label} → {target}]{off}")
            elif t == 3:
                values = " | ".join(f"{o.get('label')}={o.get('value')}" for o in c.get("options") or [])
                lines.append(f"[select {c.get('custom_id')}: {values}]{off}")
            elif t in (5, 6, 7, 8):
                lines.append(f"[entity select {c.get('custom_id')}]{off}")
            elif t == 10:
                lines.append(c.get("content") or "")
        return "\n".join(line for line in lines if line)

    def __repr__(self) -> str:
        eph = " ephemeral" if self.ephemeral else ""
        return f"<StoredMessage {self.id}{eph} content={self.content[:60]!r} components={self.custom_ids}>"


@dataclass
class InteractionResult:
    """Everything one simulated interaction caused.

    ``type`` is the callback type (4 message, 5 deferred, 6 deferred update, 7 update message,
    8 autocomplete result, 9 modal), ``None`` when the interaction was not answered.
    ``content``/``embeds``/``components``/``flags`` describe the interaction's own response message in its
    final state (after any edit_original_response or deferred followup); ``files`` are all files uploaded
    while handling the interaction; ``followups`` and ``sent`` hold later followups and channel messages.
    """

    interaction_id: int
    interaction_type: int
    user_id: int
    channel_id: int
    payload: dict[str, Any]
    requests: list[Request] = field(default_factory=list)
    errors: list[LoggedError] = field(default_factory=list)
    warnings: list[LoggedError] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    latency: float | None = None
    # Seconds until the interaction's own answer was final: its response message (callback 4 or 7), else
    # the first edit of a deferred response or message after a defer (a "thinking" placeholder is not one).
    answered_in: float | None = None
    duration: float = 0.0
    response_message: StoredMessage | None = None

    @property
    def callback(self) -> Request | None:
        return next((r for r in self.requests if r.kind == "callback"), None)

    @property
    def answered(self) -> bool:
        return self.callback is not None

    @property
    def type(self) -> int | None:
        cb = self.callback
        return cb.callback_type if cb else None

    @property
    def deferred(self) -> bool:
        return self.type in (5, 6)

    @property
    def ephemeral(self) -> bool:
        if self.response_message is not None:
            return self.response_message.ephemeral
        cb = self.callback
        return bool(cb and cb.ephemeral)

    def _final(self) -> dict[str, Any]:
        if self.response_message is not None:
            return self.response_message.json
        cb = self.callback
        return cb.data if cb else {}

    @property
    def content(self) -> str | None:
        return self._final().get("content")

    @property
    def embeds(self) -> list[dict[str, Any]]:
        return self._final().get("embeds") or []

    @property
    def components(self) -> list[dict[str, Any]]:
        return self._final().get("components") or []

    @property
    def flags(self) -> int:
        return self._final().get("flags") or 0

    @property
    def allowed_mentions(self) -> dict[str, Any] | None:
        cb = self.callback
        return cb.allowed_mentions if cb else None

    @property
    def files(self) -> list[SentFile]:
        return [f for r in self.requests for f in r.files]

    @property
    def choices(self) -> list[dict[str, Any]] | None:
        cb = self.callback
        return cb.choices if cb else None

    @property
    def modal(self) -> dict[str, Any] | None:
        cb = self.callback
        return cb.modal if cb else None

    @property
    def followups(self) -> list[Request]:
        return [r for r in self.requests if r.kind == "followup"]

    @property
    def sent(self) -> list[Request]:
        """New public messages posted during the interaction: with channel.send() (POST
        /channels/{id}/messages), or as a public follow-up of a new message (the bot sends the public posts
        a change causes as follow-ups of the interaction that caused it: bot.outbox.lanes)."""
        return [r for r in self.requests if r.public_post]

    @property
    def messages(self) -> list[Request]:
        return [r for r in self.requests if r.is_message]

    @property
    def message_ids(self) -> list[int]:
        """Ids of the messages this interaction created or edited, in order (to show what changed)."""
        out: list[int] = []
        for r in self.requests:
            if r.message_id is not None and r.message_id not in out:
                out.append(r.message_id)
        return out

    @property
    def pings(self) -> set[int]:
        return {u for r in self.requests for u in r.pinged_user_ids}

    def of_kind(self, kind: str) -> list[Request]:
        return [r for r in self.requests if r.kind == kind]

    def __repr__(self) -> str:
        return (
            f"<InteractionResult {self.interaction_id} type={self.type} requests={self.requests} "
            f"errors={len(self.errors)} violations={self.violations}>"
        )
