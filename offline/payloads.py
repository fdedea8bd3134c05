"""Discord-shaped JSON objects (users, members, guilds, channels, messages) and snowflake ids.

Everything here is plain data in the format Discord's API and gateway use, so discord.py parses it with
its real code paths. No discord.py import is needed.
"""

from __future__ import annotations

import datetime
import time
import zlib
from dataclasses import dataclass, field
from typing import Any

DISCORD_EPOCH_MS = 1420070400000
# Stable ids (members, guild, channel) are placed at a fixed moment so that they are identical across runs
# and restarts, yet look like real snowflakes (snowflake_time() gives 2024-01-01).
_STABLE_MS = 1704067200000 - DISCORD_EPOCH_MS

# Text, DM, public thread and private thread channel types.
TEXT, DM, PUBLIC_THREAD, PRIVATE_THREAD = 0, 1, 11, 12
EPHEMERAL = 1 << 6
LOADING = 1 << 7
COMPONENTS_V2 = 1 << 15
ALL_PERMISSIONS = (1 << 53) - 1
# What @everyone usually may do in a game channel: view, send, embed, attach, read history, use commands,
# send in threads.
DEFAULT_MEMBER_PERMISSIONS = (1 << 10) | (1 << 11) | (1 << 14) | (1 << 15) | (1 << 16) | (1 << 31) | (1 << 38)


def stable_id(*parts: object) -> int:
    """A snowflake derived from names, identical in every run (22 bits of CRC32 in the low bits)."""
    key = ":".join(str(p) for p in parts).encode()
    return (_STABLE_MS << 22) | (zlib.crc32(key) & 0x3FFFFF)


class Snowflakes:
    """Fresh, strictly increasing snowflakes based on the current time, like Discord's."""

    def __init__(self) -> None:
        self._last = 0

    def __call__(self) -> int:
        value = (int(time.time() * 1000) - DISCORD_EPOCH_MS) << 22
        self._last = value = max(value, self._last + 1)
        return value


def iso_now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat()


@dataclass
class FakeUser:
    """A Discord user, and their membership in the harness guild.

    Pass it wherever the harness wants a user. ``permissions`` is the member's total permission integer in
    the interaction's channel (Discord sends it as a string in ``member.permissions``).
    """

    id: int
    name: str
    roles: list[int] = field(default_factory=list)
    permissions: int = DEFAULT_MEMBER_PERMISSIONS
    bot: bool = False
    locale: str = "en-US"
    nick: str | None = None
    # False: the user's privacy settings refuse direct messages from the bot (Discord: 403, code 50007).
    dms_open: bool = True

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def user_json(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "username": self.name,
            "global_name": self.name,
            "discriminator": "0",
            "avatar": None,
            "bot": self.bot,
            "public_flags": 0,
        }

    def member_json(self, *, with_user: bool = True) -> dict[str, Any]:
        data: dict[str, Any] = {
            "roles": [str(r) for r in self.roles],
            "nick": self.nick,
            "avatar": None,
            "joined_at": "2024-01-01T00:00:00+00:00",
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "pending": False,
            "flags": 0,
            "communication_disabled_until": None,
            "permissions": str(self.permissions),
        }
        if with_user:
            data["user"] = self.user_json()
        return data


def role_json(
    role_id: int, name: str, *, permissions: int = DEFAULT_MEMBER_PERMISSIONS, position: int = 0
) -> dict[str, Any]:
    return {
        "id": str(role_id),
        "name": name,
        "color": 0,
        "hoist": False,
        "position": position,
        "permissions": str(permissions),
        "managed": False,
        "mentionable": False,
        "flags": 0,
    }


def text_channel_json(channel_id: int, guild_id: int, name: str, *, position: int = 0) -> dict[str, Any]:
    return {
        "id": str(channel_id),
        "type": TEXT,
        "guild_id": str(guild_id),
        "name": name,
        "position": position,
        "parent_id": None,
        "topic": None,
        "nsfw": False,
        "rate_limit_per_user": 0,
        "last_message_id": None,
        "permission_overwrites": [],
        "flags": 0,
    }


def thread_json(
    thread_id: int, guild_id: int, parent_id: int, name: str, *, owner_id: int, private: bool = False
) -> dict[str, Any]:
    return {
        "id": str(thread_id),
        "type": PRIVATE_THREAD if private else PUBLIC_THREAD,
        "guild_id": str(guild_id),
        "parent_id": str(parent_id),
        "owner_id": str(owner_id),
        "name": name,
        "last_message_id": None,
        "rate_limit_per_user": 0,
        "message_count": 0,
        "member_count": 1,
        "total_message_sent": 0,
        "flags": 0,
        "thread_metadata": {
            "archived": False,
            "auto_archive_duration": 1440,
            "archive_timestamp": iso_now(),
            "locked": False,
            "invitable": True,
            "create_timestamp": iso_now(),
        },
    }


def dm_channel_json(channel_id: int, recipient: FakeUser) -> dict[str, Any]:
    return {"id": str(channel_id), "type": DM, "last_message_id": None, "recipients": [recipient.user_json()]}


def guild_json(
    guild_id: int,
    name: str,
    *,
    owner_id: int,
    roles: list[dict[str, Any]],
    channels: list[dict[str, Any]],
    threads: list[dict[str, Any]],
    members: list[dict[str, Any]],
) -> dict[str, Any]:
    """A GUILD_CREATE-like payload: enough for discord.py to cache the guild with its channels."""
    return {
        "id": str(guild_id),
        "name": name,
        "icon": None,
        "owner_id": str(owner_id),
        "afk_channel_id": None,
        "afk_timeout": 300,
        "verification_level": 0,
        "default_message_notifications": 1,
        "explicit_content_filter": 0,
        "roles": roles,
        "emojis": [],
        "stickers": [],
        "features": [],
        "mfa_level": 0,
        "system_channel_id": None,
        "system_channel_flags": 0,
        "rules_channel_id": None,
        "vanity_url_code": None,
        "description": None,
        "banner": None,
        "premium_tier": 0,
        "preferred_locale": "en-US",
        "public_updates_channel_id": None,
        "nsfw_level": 0,
        "premium_progress_bar_enabled": False,
        "member_count": len(members),
        "large": False,
        "unavailable": False,
        "channels": channels,
        "threads": threads,
        "members": members,
        "voice_states": [],
        "presences": [],
        "stage_instances": [],
        "guild_scheduled_events": [],
        "soundboard_sounds": [],
    }


def app_info_json(app_id: int, owner: FakeUser, name: str) -> dict[str, Any]:
    return {
        "id": str(app_id),
        "name": name,
        "icon": None,
        "description": "",
        "bot_public": True,
        "bot_require_code_grant": False,
        "owner": owner.user_json(),
        "verify_key": "0" * 64,
        "flags": 0,
        "team": None,
        "summary": "",
        "rpc_origins": [],
        "interactions_endpoint_url": None,
        "approximate_guild_count": 1,
    }


def message_json(
    *,
    message_id: int,
    channel_id: int,
    guild_id: int | None,
    author: dict[str, Any],
    data: dict[str, Any],
    attachments: list[dict[str, Any]],
    flags: int,
    message_type: int = 0,
    application_id: int | None = None,
    webhook_id: int | None = None,
    mentions: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    msg: dict[str, Any] = {
        "id": str(message_id),
        "channel_id": str(channel_id),
        "author": author,
        "content": data.get("content") or "",
        "timestamp": iso_now(),
        "edited_timestamp": None,
        "tts": bool(data.get("tts", False)),
        "mention_everyone": False,
        "mentions": mentions or [],
        "mention_roles": [],
        "attachments": attachments,
        "embeds": data.get("embeds") or [],
        "components": data.get("components") or [],
        "pinned": False,
        "type": message_type,
        "flags": flags,
    }
    if guild_id is not None:
        msg["guild_id"] = str(guild_id)
    if application_id is not None:
        msg["application_id"] = str(application_id)
    if webhook_id is not None:
        msg["webhook_id"] = str(webhook_id)
    return msg


def attachment_json(
    attachment_id: int, channel_id: int, filename: str, data: bytes, description: str | None
) -> dict[str, Any]:
    url = f"https://cdn.discordapp.com/attachments/{channel_id}/{attachment_id}/{filename}"
    out: dict[str, Any] = {
        "id": str(attachment_id),
        "filename": filename,
        "size": len(data),
        "url": url,
        "proxy_url": url.replace("cdn.discordapp.com", "media.discordapp.net"),
    }
    if filename.lower().endswith(".png"):
        out["content_type"] = "image/png"
    if description is not None:
        out["description"] = description
    return out
