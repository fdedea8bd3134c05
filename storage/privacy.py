"""Forgetting a user (``/alexandros forget-me``), shared by the store backends: what changes in the rows.

A finished game's record must stay whole (its events, seats and scores still add up), so a user who asks
to be forgotten is not deleted from it but replaced: their user id by a pseudonym (a negative number, so it
can never be a Discord id, the same in every game of one request) and their name by "former player N"
(N: their seat, counted from 1). Their settings are deleted. Events and snapshots hold seats, never user
ids or names, so they are not touched.

Every game whose rows name the user is found, not only the games they played: a moderator who paused a
game or offered a seat is named in its options, its bookkeeping and its posts. The JSON the store keeps
for the bot (a game's options, its bookkeeping "meta", the outbox's payloads) is rewritten: every number
equal to the user id, every string or key equal to it and a mention ``<@id>`` (`scrub`); their own entry
of the names (`forget_options`, `forget_payload`); in the words of posts not yet delivered, their names
too, where one stands as a word of its own. The outbox's log of messages already delivered is deleted
rather than rewritten (it is only a log): in their games, and anywhere its text holds their id or a name
of theirs (`needles`: the names the bot knows them by, and those the records kept).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping
from typing import Any

from .base import JsonDict
from .rows import dumps

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


def needles(user_id: int, names: Iterable[str]) -> tuple[str, ...]:
    """What, found inside a stored JSON text, may name the user: their id (a number, a string or inside a
    mention) and each of their names as the store writes it (storage.rows.dumps)."""
    out = [str(user_id)]
    for name in names:
        text = dumps(name)[1:-1]
        if text and text not in out:
            out.append(text)
    return tuple(out)


def stored_names(options: Mapping[str, Any], user_id: int) -> list[str]:
    """The user's name as a game's options keep it (its "names", keyed by user id), if any."""
    names = options.get("names")
    name = names.get(str(user_id)) if isinstance(names, dict) else None
    return [name] if isinstance(name, str) and name else []


def held_a_place(
    options: Mapping[str, Any], user_id: int, seat: int | None, created_by: int, waiting_on: int | None
) -> bool:
    """Whether a game gives the user a place of their own (a seat, now or before, the creator, the turn), in
    which a former player stands after the forget; else it only named them (a moderator, a post)."""
    return seat is not None or user_id in (created_by, waiting_on) or bool(stored_names(options, user_id))


_WORDS = ("text", "fallback")  # a duty's words: a post's or edit's text, a DM's public fallback (bot.notices)


def _in_text(text: str, names: Collection[str], new_name: str) -> str:
    """`text` with each of `names` that stands as a word of its own (not inside a longer word) replaced."""
    for name in sorted(names, key=len, reverse=True):
        if name and name in text:
            text = re.sub(rf"(?<!\w){re.escape(name)}(?!\w)", lambda _: new_name, text)
    return text


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


def forget_payload(
    payload: Mapping[str, Any], user_id: int, pseudonym: int, seat: int | None, names: Collection[str] = ()
) -> JsonDict:
    """A pending duty's payload with the user forgotten: ids and mentions scrubbed, their place in a "names"
    list (by seat, bot.duties) renamed, and `names` in its words (a post's "⏸ Name paused the game"). Only
    the words: the rest (a picture's state, another seat's name) is data, where a name-like string is not
    theirs."""
    new_name = former_name(seat)
    out: JsonDict = scrub(dict(payload), user_id, pseudonym, (), new_name)
    for key in _WORDS:
        if isinstance(out.get(key), str):
            out[key] = _in_text(out[key], names, new_name)
    seat_names = out.get("names")
    if seat is not None and isinstance(seat_names, list) and seat < len(seat_names):
        seat_names[seat] = new_name
    return out
