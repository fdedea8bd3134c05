"""Users' data in the SQLite store: forget a user, purge old finished games (issue 11). A mixin of
`SqliteGameStore`; the same methods in PostgreSQL are in storage/postgres_privacy.py, and both pass the
contract suite. What "forget" changes: storage/privacy.py."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from .privacy import ForgetReport, StillSeated, forget_options, forget_payload, scrub
from .rows import dumps
from .sqlite_base import SqliteBase, Tx

_TERMINAL_SQL = "('finished', 'abandoned')"


class SqlitePrivacy(SqliteBase):
    """forget_user and purge_games, on the store's one writer transaction."""

    async def forget_user(self, user_id: int, pseudonym: int, now: float) -> ForgetReport:
        """Delete a user's settings and put `pseudonym` (negative) in their place in every game record.

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
            games = await rows(
                "SELECT g.id, g.options, g.created_by, (SELECT seat FROM seats s WHERE s.game_id = g.id"
                " AND s.user_id = ?) FROM games g WHERE g.created_by = ? OR g.waiting_on = ?"
                " OR g.id IN (SELECT game_id FROM seats WHERE user_id = ?) OR instr(g.options, ?) > 0",
                (user_id, user_id, user_id, user_id, f'"{user_id}"'),
            )
            duties = 0
            for game_id, options_json, created_by, seat in games:
                options = forget_options(
                    json.loads(options_json), user_id, pseudonym, seat, created_by == user_id
                )
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
                        await conn.execute(
                            "UPDATE game_meta SET body = ? WHERE game_id = ? AND key = ?", (new, game_id, key)
                        )
                cursor = await conn.execute(
                    "DELETE FROM duties WHERE game_id = ? AND done_at IS NOT NULL", (game_id,)
                )
                duties += int(cursor.rowcount)
                for duty_id, payload in await rows(
                    "SELECT id, payload FROM duties WHERE game_id = ?", (game_id,)
                ):
                    await conn.execute(
                        "UPDATE duties SET payload = ?,"
                        " user_id = CASE WHEN user_id = ? THEN ? ELSE user_id END WHERE id = ?",
                        (
                            dumps(forget_payload(json.loads(payload), user_id, pseudonym, seat)),
                            user_id,
                            pseudonym,
                            duty_id,
                        ),
                    )
                    duties += 1
            # Whatever else the outbox holds for them (messages outside a game) goes.
            cursor = await conn.execute("DELETE FROM duties WHERE user_id = ?", (user_id,))
            duties += int(cursor.rowcount)
            cursor = await conn.execute("DELETE FROM user_settings WHERE user_id = ?", (user_id,))
            settings = cursor.rowcount > 0
            # Their ratings go too: a recomputation from the pseudonymised games rates nobody in their place.
            await conn.execute("DELETE FROM ratings WHERE user_id = ?", (user_id,))
            return ForgetReport(games=len(games), settings=settings, duties=duties)

        return await self._write(body)

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
