"""Users' data, written once for both backends: forget a user, purge old finished games (issue 11). What
"forget" changes in the rows: storage/privacy.py."""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any

from .base import ForgetReport, StillSeated
from .core import StoreCore
from .privacy import (
    forget_options,
    forget_payload,
    held_a_place,
    needles,
    scrub,
    stored_names,
)
from .rows import dumps
from .sql import Conn

_TERMINAL_SQL = "('finished', 'abandoned')"


class Privacy(StoreCore):
    """forget_user and purge_games, each in one transaction."""

    async def forget_user(
        self, user_id: int, pseudonym: int, now: float, names: Collection[str] = ()
    ) -> ForgetReport:
        # `now` is not written: a forgotten user does not make an old game look recent (purge_games reads it).
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
                )
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

        async def body(conn: Conn) -> int:
            return await conn.run(f"DELETE FROM games WHERE {where}", *args)

        return await self._write(body)
