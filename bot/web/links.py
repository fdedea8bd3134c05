"""A game's watch link: ``/g/<game id>-<secret>``, the secret 128 random bits kept in the game's metadata.

Whoever holds the link may watch the game; nobody can guess one, and changing it (``change``) ends the old
one at once. A server's admin may turn watching off for the whole server (``/alexandros-admin web``): kept
in the store's settings under the server's id (a server id and a user id are both Discord snowflakes, never
the same number), so every process of a cluster reads the same switch.

``find`` answers None for every link that does not lead to a game one may watch (malformed, unknown game,
wrong or old secret, watching turned off): the caller shows one and the same 404 page for all of them.
"""

from __future__ import annotations

import hmac
import re
import secrets

from storage import GameRecord, GameStore

META_SECRET = "web_secret"  # the game's metadata key
WEB_OFF = "web_off"  # the server's settings key: True while watching is turned off there
_TOKEN = re.compile(r"([1-9][0-9]{0,18})-([0-9a-f]{32})")
_LARGEST_ID = 2**63 - 1  # both stores keep ids as signed 64-bit integers: a larger one is no game


def new_secret() -> str:
    return secrets.token_hex(16)  # 128 bits


async def secret_of(store: GameStore, game_id: int, now: float) -> str:
    """The game's secret, made (and kept) the first time it is asked for."""
    meta = await store.get_game_meta(game_id)
    secret = meta.get(META_SECRET)
    if isinstance(secret, str) and _TOKEN.fullmatch(f"1-{secret}"):
        return secret
    await store.set_game_meta(game_id, {META_SECRET: new_secret()}, now)
    # Read back: of two processes making one at once, the last write wins and both show that one.
    return str((await store.get_game_meta(game_id))[META_SECRET])


async def change(store: GameStore, game_id: int, now: float) -> str:
    """A new secret for the game: the old link leads nowhere from now on."""
    secret = new_secret()
    await store.set_game_meta(game_id, {META_SECRET: secret}, now)
    return secret


def path_of(game_id: int, secret: str) -> str:
    return f"/g/{game_id}-{secret}"


async def watching_off(store: GameStore, guild_id: int | None) -> bool:
    if guild_id is None:
        return False
    return bool((await store.get_user_settings(guild_id)).get(WEB_OFF))


async def set_watching(store: GameStore, guild_id: int, on: bool, now: float) -> None:
    await store.update_user_settings(guild_id, {WEB_OFF: None if on else True}, now)


async def find(store: GameStore, token: str) -> GameRecord | None:
    """The game a link's token leads to, or None (for every reason alike)."""
    m = _TOKEN.fullmatch(token)
    game_id = int(m.group(1)) if m is not None else 0
    if m is None or game_id > _LARGEST_ID:
        return None
    record = await store.game_by_id(game_id)
    if record is None:
        return None
    kept = (await store.get_game_meta(record.id)).get(META_SECRET)
    if not isinstance(kept, str) or not hmac.compare_digest(kept.encode(), m.group(2).encode()):
        return None
    if await watching_off(store, record.guild_id):
        return None
    return record
