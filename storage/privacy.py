"""Users' data (issue 11), written once for both backends: forgetting a user (``/alexandros forget-me``),
what changes in the rows and the operation (`Privacy.forget_user`), and purging old finished games.

A finished game's record must stay whole (its events, seats and scores still add up), so a user who asks
to be forgotten is replaced in it: their user id by a pseudonym (a negative number, never a Discord id,
the same in every game of one request), their name by "former player N" (N: their seat, from 1). Their
settings are deleted. Events and snapshots (packed ones too: ops_games.pack_game) hold seats, never user
ids or names. Every game whose rows name the user is found, not only the games they played (a moderator
who paused a game or offered a seat is named in its options, bookkeeping and posts). The JSON kept for the
bot (options, "meta", the outbox's payloads) is rewritten: every number equal to the user id, every string
or key equal to it and a mention ``<@id>`` (`scrub`); their own entry of the names (`forget_options`,
`forget_payload`); in the words of posts not yet delivered, their names too, where one stands as a word of
its own. The outbox's log of messages already delivered is deleted rather than rewritten (it is only a
log): in their games (packed, too), and anywhere its text holds their id or a name of theirs (`needles`:
the names the bot knows them by, and those the records kept).
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterable, Mapping
from typing import Any

from .base import ForgetReport, JsonDict, StillSeated
from .core import StoreCore
from .rows import dumps
from .sql import Conn

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


_TERMINAL_SQL = "('finished', 'abandoned')"


class Privacy(StoreCore):
    """forget_user and purge_games, each in one transaction."""

    async def forget_user(
        self, user_id: int, pseudonym: int, now: float, names: Collection[str] = ()
    ) -> ForgetReport:
        if pseudonym >= 0:
            raise ValueError("a pseudonym is negative, so that it is never a Discord id")
        del now

        async def body(conn: Conn) -> ForgetReport:
            # The user's games are locked first (PostgreSQL); only then is "seated anywhere?" asked, by a
            # statement of its own, which sees every join or seat taken over committed before it. (Asked
            # first, at READ COMMITTED, a join committed between the question and the lock was missed, and a
            # game in play or in the lobby got the pseudonym in a seat.) A join after the lock waits for this.
            # The games that name the user: by id anywhere in their rows, or by a name in their posts; the
            # names the records kept for them are looked for too (a second pass).
            known = list(names)
            games: dict[int, Any] = {}
            while True:
                in_meta, meta_args = self.sql.contains_any("body", needles(user_id, known))
                in_duty, duty_args = self.sql.contains_any("payload", needles(user_id, known))
                in_options, options_args = self.sql.contains_any("g.options", [str(user_id)])
                for row in await conn.fetch(
                    "SELECT g.id, g.options, g.created_by, g.waiting_on, (SELECT seat FROM seats s"
                    " WHERE s.game_id = g.id AND s.user_id = ?) FROM games g WHERE g.created_by = ?"
                    " OR g.waiting_on = ? OR g.id IN (SELECT game_id FROM seats WHERE user_id = ?)"
                    f" OR {in_options} OR g.id IN (SELECT game_id FROM game_meta WHERE {in_meta})"
                    f" OR g.id IN (SELECT game_id FROM duties WHERE user_id = ? OR {in_duty})"
                    + self.sql.lock_found,
                    *[user_id] * 4, *options_args, *meta_args, user_id, *duty_args,
                ):  # fmt: skip
                    games[int(row[0])] = row
                more = {n for row in games.values() for n in stored_names(json.loads(row[1]), user_id)} - set(
                    known
                )
                if not more:
                    break
                known += sorted(more)
            seated = await conn.fetch(
                "SELECT g.id FROM games g JOIN seats s ON s.game_id = g.id"
                f" WHERE s.user_id = ? AND g.status NOT IN {_TERMINAL_SQL}",
                user_id,
            )
            if seated:
                raise StillSeated(user_id, [int(r[0]) for r in seated])
            placed = named = duties = 0
            for game_id, options_json, created_by, waiting_on, seat in games.values():
                before = json.loads(options_json)
                options = forget_options(before, user_id, pseudonym, seat, created_by == user_id)
                mine = held_a_place(before, user_id, seat, created_by, waiting_on)
                changed = options != before
                await conn.run(
                    "UPDATE games SET options = ?,"
                    " created_by = CASE WHEN created_by = ? THEN ? ELSE created_by END,"
                    " waiting_on = CASE WHEN waiting_on = ? THEN NULL ELSE waiting_on END WHERE id = ?",
                    dumps(options), user_id, pseudonym, user_id, game_id,
                )  # fmt: skip
                await conn.run(
                    "UPDATE seats SET user_id = ? WHERE game_id = ? AND user_id = ?",
                    pseudonym,
                    game_id,
                    user_id,
                )
                for key, meta in await conn.fetch(
                    "SELECT key, body FROM game_meta WHERE game_id = ?", game_id
                ):
                    new = dumps(scrub(json.loads(meta), user_id, pseudonym, (), ""))
                    if new != meta:
                        changed = True
                        await conn.run(
                            "UPDATE game_meta SET body = ? WHERE game_id = ? AND key = ?", new, game_id, key
                        )
                deleted = await conn.run(
                    "DELETE FROM duties WHERE game_id = ? AND done_at IS NOT NULL", game_id
                )  # and the log a game over packed of them:
                await conn.run("UPDATE packed SET duties = NULL WHERE game_id = ?", game_id)
                duties += deleted
                changed = changed or deleted > 0
                for duty_id, payload in await conn.fetch(
                    "SELECT id, payload FROM duties WHERE game_id = ?", game_id
                ):
                    new = dumps(forget_payload(json.loads(payload), user_id, pseudonym, seat, known))
                    changed = changed or new != payload
                    await conn.run(
                        "UPDATE duties SET payload = ?,"
                        " user_id = CASE WHEN user_id = ? THEN ? ELSE user_id END WHERE id = ?",
                        new, user_id, pseudonym, duty_id,
                    )  # fmt: skip
                    duties += 1
                placed += mine
                named += changed and not mine
            # Whatever else the outbox holds for them (messages outside a game) goes, and so does the log
            # of delivered messages that names them anywhere.
            in_log, log_args = self.sql.contains_any("payload", needles(user_id, known))
            duties += await conn.run(
                f"DELETE FROM duties WHERE user_id = ? OR done_at IS NOT NULL AND {in_log}",
                user_id,
                *log_args,
            )
            settings = await conn.run("DELETE FROM user_settings WHERE user_id = ?", user_id)
            # Their ratings go too: a recomputation from the pseudonymised games rates nobody in their place.
            await conn.run("DELETE FROM ratings WHERE user_id = ?", user_id)
            return ForgetReport(games=placed, settings=settings > 0, duties=duties, named=named)

        return await self._write(body)

    async def purge_games(self, before: float, guild_id: int | None = None) -> int:
        where = f"status IN {_TERMINAL_SQL} AND updated_at < ?{self.sql.keep_newest}"
        args: list[Any] = [before]
        if guild_id is not None:
            where += " AND guild_id = ?"
            args.append(guild_id)
        return await self._run(f"DELETE FROM games WHERE {where}", *args)
