"""Users' data in the PostgreSQL store: forget a user, purge old finished games (issue 11). A mixin of
`PostgresGameStore`, the twin of storage/sqlite_privacy.py (same contract tests). What "forget" changes:
storage/privacy.py."""

from __future__ import annotations

import json

from .postgres_base import PostgresBase, _Conn, _count
from .privacy import ForgetReport, StillSeated, forget_options, forget_payload, scrub
from .rows import dumps

_TERMINAL_SQL = "('finished', 'abandoned')"


class PostgresPrivacy(PostgresBase):
    """forget_user and purge_games, each in one transaction."""

    async def forget_user(self, user_id: int, pseudonym: int, now: float) -> ForgetReport:
        """See storage.sqlite_privacy.SqlitePrivacy.forget_user."""
        if pseudonym >= 0:
            raise ValueError("a pseudonym is negative, so that it is never a Discord id")
        del now

        async def body(conn: _Conn) -> ForgetReport:
            # The user's games are locked first; only then is "seated anywhere?" asked, by a statement of
            # its own, which sees every join or seat taken over committed before it. (Asked first, at READ
            # COMMITTED, a join committed between the question and the lock was missed, and a game in play
            # or in the lobby got the pseudonym in a seat.) A join after the lock waits for this forget.
            games = await conn.fetch(
                "SELECT g.id, g.options, g.created_by, (SELECT seat FROM seats s WHERE s.game_id = g.id"
                " AND s.user_id = $1) AS seat FROM games g WHERE g.created_by = $1 OR g.waiting_on = $1"
                " OR g.id IN (SELECT game_id FROM seats WHERE user_id = $1) OR strpos(g.options, $2) > 0"
                " ORDER BY g.id FOR UPDATE OF g",
                user_id,
                f'"{user_id}"',
            )
            seated = await conn.fetch(
                "SELECT g.id FROM games g JOIN seats s ON s.game_id = g.id"
                f" WHERE s.user_id = $1 AND g.status NOT IN {_TERMINAL_SQL}",
                user_id,
            )
            if seated:
                raise StillSeated(user_id, [int(r[0]) for r in seated])
            duties = 0
            for game_id, options_json, created_by, seat in games:
                options = forget_options(
                    json.loads(options_json), user_id, pseudonym, seat, created_by == user_id
                )
                await conn.execute(
                    "UPDATE games SET options = $1,"
                    " created_by = CASE WHEN created_by = $2 THEN $3 ELSE created_by END,"
                    " waiting_on = CASE WHEN waiting_on = $2 THEN NULL ELSE waiting_on END WHERE id = $4",
                    dumps(options),
                    user_id,
                    pseudonym,
                    game_id,
                )
                await conn.execute(
                    "UPDATE seats SET user_id = $1 WHERE game_id = $2 AND user_id = $3",
                    pseudonym,
                    game_id,
                    user_id,
                )
                for key, meta in await conn.fetch(
                    "SELECT key, body FROM game_meta WHERE game_id = $1", game_id
                ):
                    new = dumps(scrub(json.loads(meta), user_id, pseudonym, (), ""))
                    if new != meta:
                        await conn.execute(
                            "UPDATE game_meta SET body = $1 WHERE game_id = $2 AND key = $3",
                            new,
                            game_id,
                            key,
                        )
                duties += _count(
                    await conn.execute(
                        "DELETE FROM duties WHERE game_id = $1 AND done_at IS NOT NULL", game_id
                    )
                )
                for duty_id, payload in await conn.fetch(
                    "SELECT id, payload FROM duties WHERE game_id = $1", game_id
                ):
                    await conn.execute(
                        "UPDATE duties SET payload = $1,"
                        " user_id = CASE WHEN user_id = $2 THEN $3 ELSE user_id END WHERE id = $4",
                        dumps(forget_payload(json.loads(payload), user_id, pseudonym, seat)),
                        user_id,
                        pseudonym,
                        duty_id,
                    )
                    duties += 1
            duties += _count(await conn.execute("DELETE FROM duties WHERE user_id = $1", user_id))
            settings = _count(await conn.execute("DELETE FROM user_settings WHERE user_id = $1", user_id))
            # Their ratings go too: a recomputation from the pseudonymised games rates nobody in their place.
            await conn.execute("DELETE FROM ratings WHERE user_id = $1", user_id)
            return ForgetReport(games=len(games), settings=settings > 0, duties=duties)

        return await self._write(body)

    async def purge_games(self, before: float, guild_id: int | None = None) -> int:
        """See storage.sqlite_privacy.SqlitePrivacy.purge_games."""

        async def body(conn: _Conn) -> int:
            if guild_id is None:
                status = await conn.execute(
                    f"DELETE FROM games WHERE status IN {_TERMINAL_SQL} AND updated_at < $1", before
                )
            else:
                status = await conn.execute(
                    f"DELETE FROM games WHERE status IN {_TERMINAL_SQL} AND updated_at < $1"
                    " AND guild_id = $2",
                    before,
                    guild_id,
                )
            return _count(status)

        return await self._write(body)
