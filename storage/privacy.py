"""Forgetting a user (``/alexandros forget-me``), shared by the store backends: what changes in the rows.

A finished game's record must stay whole (its events, seats and scores still add up), so a user who asks
to be forgotten is not deleted from it but replaced: their user id by a pseudonym (a negative number, so it
can never be a Discord id, the same in every game of one request) and their name by "former player N"
(N: their seat, counted from 1). Their settings are deleted. Events and snapshots hold seats, never user
ids or names, so they are not touched.

The JSON the store keeps for the bot (a game's options, its bookkeeping "meta", the outbox's payloads) is
rewritten: every number equal to the user id, every string or key equal to it and a mention ``<@id>``
(`scrub`); their own entry of the names (`forget_options`, `forget_payload`). The outbox's log of messages
already delivered in their games is deleted rather than rewritten (it is only a log).

API
---
StillSeated(user_id, game_ids)                  the user sits in a game not over: nothing was changed
ForgetReport(games, settings, duties)           what `forget_user` changed
former_name(seat) -> str                        stored in English; readers read it in theirs
former_number(name) -> int | None               N of a stored "former player N" (0: "a former player")
scrub(value, user_id, pseudonym, names, new_name) -> value
forget_options(options, user_id, pseudonym, seat, created) -> options
forget_payload(payload, user_id, pseudonym, seat) -> payload
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from .base import ForgetReport, JsonDict, StillSeated

__all__ = [
    "ForgetReport",
    "StillSeated",
    "forget_options",
    "forget_payload",
    "former_name",
    "former_number",
    "scrub",
]


FORMER_PLAYER = "former player "
A_FORMER_PLAYER = "a former player"


def former_name(seat: int | None) -> str:
    """A forgotten user's stored name. It is kept in English; a reader reads it in their language
    (``former_number``, bot.words.shown_name)."""
    return f"{FORMER_PLAYER}{seat + 1}" if seat is not None else A_FORMER_PLAYER


def former_number(name: str) -> int | None:
    """N of a stored "former player N", 0 for "a former player", None for any other name."""
    if name == A_FORMER_PLAYER:
        return 0
    rest = name.removeprefix(FORMER_PLAYER)
    return int(rest) if rest != name and rest.isdigit() and rest.isascii() else None


def scrub(value: Any, user_id: int, pseudonym: int, names: Collection[str], new_name: str) -> Any:
    """`value` (JSON) with the user replaced by the pseudonym and their names by `new_name`."""
    uid, new_uid = str(user_id), str(pseudonym)
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return pseudonym if value == user_id else value
    if isinstance(value, str):
        if value == uid:
            return new_uid
        if value in names:
            return new_name
        return value.replace(f"<@{uid}>", new_name).replace(f"<@!{uid}>", new_name)
    if isinstance(value, list):
        return [scrub(v, user_id, pseudonym, names, new_name) for v in value]
    if isinstance(value, dict):
        return {
            (new_uid if k == uid else k): scrub(v, user_id, pseudonym, names, new_name)
            for k, v in value.items()
        }
    return value


def forget_options(
    options: Mapping[str, Any], user_id: int, pseudonym: int, seat: int | None, created: bool
) -> JsonDict:
    """A game's options with the user forgotten: their entry of "names" (keyed by user id) becomes the
    pseudonym's "former player N", "creator" too when they created the game; ids elsewhere are scrubbed.
    Another player's name is never touched, even when it is the same as the user's."""
    uid = str(user_id)
    new_name = former_name(seat)
    out: JsonDict = {}
    for key, value in options.items():
        if key == "names" and isinstance(value, dict):
            out[key] = {
                (str(pseudonym) if k == uid else k): (new_name if k == uid else v) for k, v in value.items()
            }
        elif key == "creator" and created:
            out[key] = new_name
        else:
            out[key] = scrub(value, user_id, pseudonym, (), new_name)
    return out


def forget_payload(payload: Mapping[str, Any], user_id: int, pseudonym: int, seat: int | None) -> JsonDict:
    """A pending duty's payload with the user forgotten: ids and mentions scrubbed, and their place in a
    "names" list (by seat, bot.duties) renamed."""
    new_name = former_name(seat)
    out: JsonDict = scrub(dict(payload), user_id, pseudonym, (), new_name)
    names = out.get("names")
    if seat is not None and isinstance(names, list) and seat < len(names):
        names[seat] = new_name
    return out
