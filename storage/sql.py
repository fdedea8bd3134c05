"""The seam between the store's operations (written once, storage/ops_*.py) and its two backends: the
connection a transaction body sees (`Conn`), and each backend's SQL where it differs (`Dialect`), side by
side: `SQLITE` and `POSTGRES`.

Shared SQL is written once with `?` placeholders (SQLite's own); `?N` names the N-th argument where one
is used twice. The PostgreSQL connection turns them into `$1, $2, ...` (`dollars`). Statements that differ
between the backends (upserts that lock, `RETURNING` columns, `SKIP LOCKED`, array parameters) stand here,
one field each, and take the same arguments in both.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any, Final, Protocol

from .base import GameRecord
from .rows import game_from_row


class Conn(Protocol):
    """A connection inside one transaction, as the shared operations use it (rows are tuples by index)."""

    async def fetch(self, sql: str, *args: Any) -> list[Any]: ...

    async def fetchrow(self, sql: str, *args: Any) -> Any | None: ...

    async def run(self, sql: str, *args: Any) -> int:
        """Run a statement; the number of rows it touched."""
        ...

    async def run_many(self, sql: str, rows: Iterable[Sequence[Any]]) -> None: ...


_MARK = re.compile(r"\?(\d*)")


@lru_cache(maxsize=1024)
def dollars(sql: str) -> str:
    """`?` placeholders as PostgreSQL's numbered ones: `?` is the next number, `?N` is `$N`."""
    count = 0

    def number(match: re.Match[str]) -> str:
        nonlocal count
        if match.group(1):
            return f"${match.group(1)}"
        count += 1
        return f"${count}"

    return _MARK.sub(number, sql)


@lru_cache(maxsize=4096)
def _sqlite_seats(text: str) -> tuple[tuple[int, int], ...]:
    """SQLite has no arrays: the seats come as one JSON array of [seat, user] pairs. The same few texts come
    back read after read (every interaction reads its game), and what they give is immutable: kept."""
    return tuple(sorted((int(s), int(u)) for s, u in json.loads(text)))


def _sqlite_game(row: Sequence[Any]) -> GameRecord:
    return game_from_row(row, _sqlite_seats(row[11] or "[]"))


def _postgres_game(row: Sequence[Any]) -> GameRecord:
    # The seats come as two arrays, seat numbers and user ids, in seat order.
    return game_from_row(row, zip(row[11], row[12], strict=True))


_COLUMNS: Final[str] = (
    "g.id, g.guild_id, g.channel_id, g.status, g.options, g.version, g.created_at, g.updated_at,"
    " g.created_by, g.waiting_on, g.turn_started_at, "
)
_SQLITE_COLUMNS: Final[str] = (
    _COLUMNS + "(SELECT json_group_array(json_array(s.seat, s.user_id)) FROM seats s WHERE s.game_id = g.id)"
)
_POSTGRES_COLUMNS: Final[str] = _COLUMNS + (
    "ARRAY(SELECT s.seat FROM seats s WHERE s.game_id = g.id ORDER BY s.seat),"
    " ARRAY(SELECT s.user_id FROM seats s WHERE s.game_id = g.id ORDER BY s.seat)"
)


@dataclass(frozen=True)
class Dialect:
    """A backend's SQL where it differs. Each statement takes the same arguments in both dialects."""

    arrays: bool  # a list is one array parameter (PostgreSQL), not one `?` an element
    game_columns: str  # a game row with its seats, from `games g`
    returning_columns: str  # the same after `UPDATE games ... RETURNING`
    game: Callable[[Sequence[Any]], GameRecord]  # a game row read
    # append and amend: (version, now, status, id, expected version, options, the status the game may be in
    # besides 'playing' ('lobby' for an append), set_waiting, waiting) -> the game row
    advance: str
    # claim_duties: (owner, until, now, limit, shard arguments from ?5) with {where} the shard filter
    claim: str
    greatest: str  # the function of the greatest of its arguments
    for_update: str  # a row read inside a transaction, locked until it ends
    lock_game: str | None  # (id) -> a row while the game exists: serializes a game's writers
    lock_found: str  # games found to change, locked in id order
    keep_newest: str  # purge_games: the newest game row stays (SQLite would give its id again)
    rating_lock: str | None  # (class, guild as text): one rating transaction per server at a time
    imported_id: str | None  # (id): move the id sequence past an id written by an import

    @cached_property
    def select_game(self) -> str:
        """A game row with its seats, up to the WHERE clause's condition."""
        return f"SELECT {self.game_columns} FROM games g WHERE "

    def any_of(self, column: str, values: Iterable[Any]) -> tuple[str, list[Any]]:
        """`column` is one of `values`, with its arguments."""
        values = list(values)
        if self.arrays:
            return f"{column} = ANY(?)", [values]
        return f"{column} IN ({', '.join('?' * len(values))})", values

    def contains_any(self, column: str, needles: Sequence[str]) -> tuple[str, list[Any]]:
        """`column` holds one of the texts `needles` (storage.privacy.needles), with its arguments."""
        if self.arrays:
            return f"EXISTS (SELECT 1 FROM unnest(?::text[]) AS n WHERE strpos({column}, n) > 0)", [
                list(needles)
            ]
        return "(" + " OR ".join([f"instr({column}, ?) > 0"] * len(needles)) + ")", list(needles)


SQLITE: Final = Dialect(
    arrays=False,
    game_columns=_SQLITE_COLUMNS,
    # RETURNING cannot use a table alias, so the same columns named by the table.
    returning_columns=_SQLITE_COLUMNS.replace("g.", "games."),
    game=_sqlite_game,
    advance=(
        "UPDATE games SET version = ?1, updated_at = ?2, status = COALESCE(?3, status),"
        " options = COALESCE(?6, options),"
        " turn_started_at = CASE WHEN NOT ?8 OR waiting_on IS ?9 THEN turn_started_at"
        "   WHEN ?9 IS NULL THEN NULL ELSE ?2 END,"
        " waiting_on = CASE WHEN ?8 THEN ?9 ELSE waiting_on END"
        " WHERE id = ?4 AND version = ?5 AND status IN ('playing', ?7)"
        " RETURNING " + _SQLITE_COLUMNS.replace("g.", "games.")
    ),
    claim=(
        "UPDATE duties SET lease_owner = ?1, lease_until = ?2, attempts = attempts + 1"
        " WHERE id IN (SELECT d.id FROM duties d"
        "  WHERE d.done_at IS NULL AND d.due_at <= ?3 AND (d.not_before IS NULL OR d.not_before <= ?3)"
        "   AND (d.lease_until IS NULL OR d.lease_until <= ?3){where}"
        "   AND NOT EXISTS (SELECT 1 FROM duties e WHERE e.channel_id = d.channel_id"
        "    AND e.done_at IS NULL AND e.due_at <= ?3 AND (e.due_at, e.id) < (d.due_at, d.id))"
        "  ORDER BY d.due_at, d.id LIMIT ?4)"
    ),
    greatest="MAX",
    for_update="",
    lock_game=None,  # SQLite's one writer runs one transaction at a time
    lock_found="",
    # The row with the highest id stays: SQLite gives a new row max(id) + 1, and a game id must never
    # come back (old buttons carry it: a press would reach another game).
    keep_newest=" AND id < (SELECT max(id) FROM games)",
    rating_lock=None,
    imported_id=None,  # SQLite's next id is max(id) + 1 anyway
)

POSTGRES: Final = Dialect(
    arrays=True,
    game_columns=_POSTGRES_COLUMNS,
    returning_columns=_POSTGRES_COLUMNS,
    game=_postgres_game,
    # The version check is the UPDATE's own WHERE clause: a racing writer waits on the row lock, then
    # sees the new version and matches nothing, so one commit wins and the other gets VersionConflict.
    advance=(
        "UPDATE games g SET version = $1, updated_at = $2, status = COALESCE($3::text, g.status),"
        " options = COALESCE($6::text, g.options),"
        " turn_started_at = CASE WHEN NOT $8::boolean OR g.waiting_on IS NOT DISTINCT FROM $9::bigint"
        "   THEN g.turn_started_at WHEN $9::bigint IS NULL THEN NULL ELSE $2 END,"
        " waiting_on = CASE WHEN $8::boolean THEN $9::bigint ELSE g.waiting_on END"
        " WHERE g.id = $4 AND g.version = $5 AND g.status IN ('playing', $7::text)"
        f" RETURNING {_POSTGRES_COLUMNS}"
    ),
    # FOR UPDATE SKIP LOCKED lets claimers in other processes pass over the rows this one is taking
    # instead of waiting for them. An earlier duty of the channel is due too (it is before d, and d is
    # due), so the check needs no `e.due_at <= now`: without it, duties_channel is the only index that
    # fits, and the planner never picks duties_due for it, which made claims quadratic on a table not yet
    # analyzed.
    claim=(
        "UPDATE duties SET lease_owner = $1, lease_until = $2, attempts = attempts + 1"
        " WHERE id IN (SELECT d.id FROM duties d"
        "  WHERE d.done_at IS NULL AND d.due_at <= $3 AND (d.not_before IS NULL OR d.not_before <= $3)"
        "   AND (d.lease_until IS NULL OR d.lease_until <= $3){where}"
        "   AND NOT EXISTS (SELECT 1 FROM duties e WHERE e.channel_id = d.channel_id"
        "    AND e.done_at IS NULL AND (e.due_at, e.id) < (d.due_at, d.id))"
        "  ORDER BY d.due_at, d.id LIMIT $4 FOR UPDATE SKIP LOCKED)"
    ),
    greatest="GREATEST",
    for_update=" FOR UPDATE",
    lock_game="SELECT 1 FROM games WHERE id = $1 FOR UPDATE",
    lock_found=" ORDER BY g.id FOR UPDATE OF g",
    keep_newest="",
    # A missing row cannot be locked FOR UPDATE: an advisory lock on (ratings, server) instead.
    rating_lock="SELECT pg_advisory_xact_lock($1, hashtext($2))",
    # Never backwards: another process may be creating a game meanwhile.
    imported_id=(
        "SELECT setval(pg_get_serial_sequence('games', 'id'), $1::bigint)"
        " WHERE nextval(pg_get_serial_sequence('games', 'id')) < $1::bigint"
    ),
)
