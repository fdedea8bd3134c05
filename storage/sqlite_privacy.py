"""Users' data in the SQLite store: forget a user, purge old finished games (issue 11). A mixin of
`SqliteGameStore`; the same methods in PostgreSQL are in storage/postgres_privacy.py, and both pass the
contract suite. What "forget" changes: storage/privacy.py."""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from typing import Any

from .privacy import (
    ForgetReport,
    StillSeated,
    forget_options,
    forget_payload,
    held_a_place,
    needles,
    scrub,
    stored_names,
)
from .rows import dumps
from .sqlite_base import SqliteBase, Tx

_TERMINAL_SQL = "('finished', 'abandoned')"


class SqlitePrivacy(SqliteBase):
    """forget_user and purge_games, on the store's one writer transaction."""

    async def forget_user(
        self, user_id: int, pseudonym: int, now: float, names: Collection[str] = ()
    ) -> ForgetReport:
        """Delete a user's settings and put `pseudonym` (negative) in their place in every game record;
        remove their id and `names` from every other record that holds them (storage/privacy.py). Then
        checkpoint the WAL into the file and truncate it: with secure_delete on every connection
        (sqlite_base), neither the file nor its WAL keeps a copy of the old rows.

        Raises StillSeated, changing nothing, while they sit in a game in the lobby or in play. `now` is
        not written: a forgotten user does not make an old game look recent (purge_games reads that time).
        """
        if pseudonym >= 0:
            raise ValueError("a pseudonym is negative, so that it is never a Discord id")
        del now

        async def body(conn: Tx) -> ForgetReport:
            async def rows(sql: str, params: Sequence[Any]) -> list[Any]:
                return list(await conn.execute_fetchall(sql, params))

            seated = await rows(
                "SELECT g.id FROM games g JOIN seats s ON s.game_id = g.id"
                f" WHERE s.user_id = ? AND g.status NOT IN {_TERMINAL_SQL}",
                (user_id,),
            )
            if seated:
                raise StillSeated(user_id, [int(r[0]) for r in seated])
            # The games that name the user: by id anywhere in their rows, or by a name in their posts. The
            # names the records kept for them are looked for too (a second pass finds the posts naming them).
            known = list(names)
            games: dict[int, Any] = {}
            while True:
                found = needles(user_id, known)
                hit = " OR ".join(["instr({0}, ?) > 0"] * len(found))
                for row in await rows(
                    "SELECT g.id, g.options, g.created_by, g.waiting_on, (SELECT seat FROM seats s"
                    " WHERE s.game_id = g.id AND s.user_id = ?) FROM games g WHERE g.created_by = ?"
                    " OR g.waiting_on = ? OR g.id IN (SELECT game_id FROM seats WHERE user_id = ?)"
                    " OR instr(g.options, ?) > 0"
                    f" OR g.id IN (SELECT game_id FROM game_meta WHERE {hit.format('body')})"
                    f" OR g.id IN (SELECT game_id FROM duties WHERE user_id = ? OR {hit.format('payload')})",
                    (user_id, user_id, user_id, user_id, str(user_id), *found, user_id, *found),
                ):
                    games[int(row[0])] = row
                more = {
                    n for row in games.values() for n in stored_names(json.loads(row[1]), user_id)
                } - set(known)
                if not more:
                    break
                known += sorted(more)
            placed = named = duties = 0
            for game_id, options_json, created_by, waiting_on, seat in games.values():
                before = json.loads(options_json)
                options = forget_options(before, user_id, pseudonym, seat, created_by == user_id)
                mine = held_a_place(before, user_id, seat, created_by, waiting_on)
                changed = options != before
                await conn.execute(
                    "UPDATE games SET options = ?,"
                    " created_by = CASE WHEN created_by = ? THEN ? ELSE created_by END,"
                    " waiting_on = CASE WHEN waiting_on = ? THEN NULL ELSE waiting_on END WHERE id = ?",
                    (dumps(options), user_id, pseudonym, user_id, game_id),
                )
                await conn.execute(
                    "UPDATE seats SET user_id = ? WHERE game_id = ? AND user_id = ?",
                    (pseudonym, game_id, user_id),
                )
                for key, meta in await rows("SELECT key, body FROM game_meta WHERE game_id = ?", (game_id,)):
                    new = dumps(scrub(json.loads(meta), user_id, pseudonym, (), ""))
                    if new != meta:
                        changed = True
                        await conn.execute(
                            "UPDATE game_meta SET body = ? WHERE game_id = ? AND key = ?", (new, game_id, key)
                        )
                cursor = await conn.execute(
                    "DELETE FROM duties WHERE game_id = ? AND done_at IS NOT NULL", (game_id,)
                )
                duties += int(cursor.rowcount)
                changed = changed or cursor.rowcount > 0
                for duty_id, payload in await rows(
                    "SELECT id, payload FROM duties WHERE game_id = ?", (game_id,)
                ):
                    new = dumps(forget_payload(json.loads(payload), user_id, pseudonym, seat, known))
                    changed = changed or new != payload
                    await conn.execute(
                        "UPDATE duties SET payload = ?,"
                        " user_id = CASE WHEN user_id = ? THEN ? ELSE user_id END WHERE id = ?",
                        (new, user_id, pseudonym, duty_id),
                    )
                    duties += 1
                placed += mine
                named += changed and not mine
            # Whatever else the outbox holds for them (messages outside a game) goes, and so does the log
            # of delivered messages that names them anywhere.
            found = needles(user_id, known)
            cursor = await conn.execute(
                "DELETE FROM duties WHERE user_id = ? OR done_at IS NOT NULL AND ("
                + " OR ".join(["instr(payload, ?) > 0"] * len(found))
                + ")",
                (user_id, *found),
            )
            duties += int(cursor.rowcount)
            cursor = await conn.execute("DELETE FROM user_settings WHERE user_id = ?", (user_id,))
            settings = cursor.rowcount > 0
            # Their ratings go too: a recomputation from the pseudonymised games rates nobody in their place.
            await conn.execute("DELETE FROM ratings WHERE user_id = ?", (user_id,))
            return ForgetReport(games=placed, settings=settings, duties=duties, named=named)

        report = await self._write(body)
        await self._checkpoint()
        return report

    async def purge_games(self, before: float, guild_id: int | None = None) -> int:
        """Delete finished and abandoned games last changed before `before` (of one server, if given),
        with everything of theirs (seats, events, snapshots, meta, outbox). Returns how many. The newest
        game row of all is kept, so that no game id is ever used twice."""

        async def body(conn: Tx) -> int:
            # The row with the highest id stays: SQLite gives a new row max(id) + 1, and a game id must
            # never come back (old buttons carry it: a press would reach another game).
            where = f"status IN {_TERMINAL_SQL} AND updated_at < ? AND id < (SELECT max(id) FROM games)"
            params: list[Any] = [before]
            if guild_id is not None:
                where += " AND guild_id = ?"
                params.append(guild_id)
            cursor = await conn.execute(f"DELETE FROM games WHERE {where}", params)
            return int(cursor.rowcount)

        return await self._write(body)
