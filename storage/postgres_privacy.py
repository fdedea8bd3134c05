"""Users' data in the PostgreSQL store: forget a user, purge old finished games (issue 11). A mixin of
`PostgresGameStore`, the twin of storage/sqlite_privacy.py (same contract tests). What "forget" changes:
storage/privacy.py."""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any

from .postgres_base import PostgresBase, _Conn, _count
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

_TERMINAL_SQL = "('finished', 'abandoned')"
# The column holds one of the texts of the array $3 (storage.privacy.needles).
_ANY_IN = "EXISTS (SELECT 1 FROM unnest($3::text[]) AS n WHERE strpos({}, n) > 0)"


class PostgresPrivacy(PostgresBase):
    """forget_user and purge_games, each in one transaction."""

    async def forget_user(
        self, user_id: int, pseudonym: int, now: float, names: Collection[str] = ()
    ) -> ForgetReport:
        """See storage.sqlite_privacy.SqlitePrivacy.forget_user. The old rows are updated or deleted in
        one transaction; PostgreSQL keeps their old versions as dead tuples until VACUUM reuses the space,
        and in its WAL until the segments are recycled (docs/PLAYING.md, "What the bot stores")."""
        if pseudonym >= 0:
            raise ValueError("a pseudonym is negative, so that it is never a Discord id")
        del now

        async def body(conn: _Conn) -> ForgetReport:
            # The user's games are locked first; only then is "seated anywhere?" asked, by a statement of
            # its own, which sees every join or seat taken over committed before it. (Asked first, at READ
            # COMMITTED, a join committed between the question and the lock was missed, and a game in play
            # or in the lobby got the pseudonym in a seat.) A join after the lock waits for this forget.
            # The games that name the user: by id anywhere in their rows, or by a name in their posts; the
            # names the records kept for them are looked for too (a second pass).
            known = list(names)
            games: dict[int, Any] = {}
            while True:
                found = list(needles(user_id, known))
                for row in await conn.fetch(
                    "SELECT g.id, g.options, g.created_by, g.waiting_on, (SELECT seat FROM seats s"
                    " WHERE s.game_id = g.id AND s.user_id = $1) AS seat FROM games g"
                    " WHERE g.created_by = $1 OR g.waiting_on = $1"
                    " OR g.id IN (SELECT game_id FROM seats WHERE user_id = $1) OR strpos(g.options, $2) > 0"
                    " OR g.id IN (SELECT game_id FROM game_meta WHERE " + _ANY_IN.format("body") + ")"
                    " OR g.id IN (SELECT game_id FROM duties WHERE user_id = $1"
                    " OR " + _ANY_IN.format("payload") + ")"
                    " ORDER BY g.id FOR UPDATE OF g",
                    user_id,
                    str(user_id),
                    found,
                ):
                    games[int(row[0])] = row
                more = {
                    n for row in games.values() for n in stored_names(json.loads(row[1]), user_id)
                } - set(known)
                if not more:
                    break
                known += sorted(more)
            seated = await conn.fetch(
                "SELECT g.id FROM games g JOIN seats s ON s.game_id = g.id"
                f" WHERE s.user_id = $1 AND g.status NOT IN {_TERMINAL_SQL}",
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
                        changed = True
                        await conn.execute(
                            "UPDATE game_meta SET body = $1 WHERE game_id = $2 AND key = $3",
                            new,
                            game_id,
                            key,
                        )
                deleted = _count(
                    await conn.execute(
                        "DELETE FROM duties WHERE game_id = $1 AND done_at IS NOT NULL", game_id
                    )
                )
                duties += deleted
                changed = changed or deleted > 0
                for duty_id, payload in await conn.fetch(
                    "SELECT id, payload FROM duties WHERE game_id = $1", game_id
                ):
                    new = dumps(forget_payload(json.loads(payload), user_id, pseudonym, seat, known))
                    changed = changed or new != payload
                    await conn.execute(
                        "UPDATE duties SET payload = $1,"
                        " user_id = CASE WHEN user_id = $2 THEN $3 ELSE user_id END WHERE id = $4",
                        new,
                        user_id,
                        pseudonym,
                        duty_id,
                    )
                    duties += 1
                placed += mine
                named += changed and not mine
            # Whatever else the outbox holds for them (messages outside a game) goes, and so does the log
            # of delivered messages that names them anywhere.
            duties += _count(
                await conn.execute(
                    "DELETE FROM duties WHERE user_id = $1"
                    " OR done_at IS NOT NULL AND " + _ANY_IN.format("payload").replace("$3", "$2"),
                    user_id,
                    list(needles(user_id, known)),
                )
            )
            settings = _count(await conn.execute("DELETE FROM user_settings WHERE user_id = $1", user_id))
            # Their ratings go too: a recomputation from the pseudonymised games rates nobody in their place.
            await conn.execute("DELETE FROM ratings WHERE user_id = $1", user_id)
            return ForgetReport(games=placed, settings=settings > 0, duties=duties, named=named)

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
