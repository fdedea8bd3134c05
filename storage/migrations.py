"""Numbered schema migrations for the SQLite store.

Migration N is a tuple of single SQL statements. It runs inside one BEGIN IMMEDIATE transaction
with one execute() per statement, and ends with PRAGMA user_version=N, so a failure rolls back the
DDL and the version together. executescript() is never used: it commits first, and a failure
would leave half a schema.

Never edit a migration that has shipped; add a new one.
"""

from __future__ import annotations

import json
from typing import Final

import aiosqlite

from .base import SchemaTooNew
from .rows import pack

_V1: Final[tuple[str, ...]] = (
    """
    CREATE TABLE games (
        id              INTEGER PRIMARY KEY,
        guild_id        INTEGER,
        channel_id      INTEGER NOT NULL,
        status          TEXT    NOT NULL CHECK (status IN ('lobby', 'playing', 'finished', 'abandoned')),
        options         TEXT    NOT NULL DEFAULT '{}',
        version         INTEGER NOT NULL DEFAULT 0 CHECK (version >= 0),
        created_by      INTEGER NOT NULL,
        created_at      REAL    NOT NULL,
        updated_at      REAL    NOT NULL,
        waiting_on      INTEGER,
        turn_started_at REAL
    )
    """,
    # The rule "one unfinished game per channel" lives in the schema, so no race can break it.
    """
    CREATE UNIQUE INDEX games_one_active_per_channel
        ON games (channel_id) WHERE status IN ('lobby', 'playing')
    """,
    "CREATE INDEX games_waiting_on ON games (waiting_on) WHERE waiting_on IS NOT NULL",
    "CREATE INDEX games_status ON games (status, updated_at)",
    """
    CREATE TABLE seats (
        game_id INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        seat    INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 3),
        user_id INTEGER NOT NULL,
        PRIMARY KEY (game_id, seat),
        UNIQUE (game_id, user_id)
    ) WITHOUT ROWID
    """,
    "CREATE INDEX seats_user ON seats (user_id)",
    """
    CREATE TABLE events (
        game_id    INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        version    INTEGER NOT NULL CHECK (version >= 1),
        body       TEXT    NOT NULL,
        created_at REAL    NOT NULL,
        PRIMARY KEY (game_id, version)
    ) WITHOUT ROWID
    """,
    """
    CREATE TABLE snapshots (
        game_id INTEGER PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
        version INTEGER NOT NULL,
        body    TEXT    NOT NULL
    )
    """,
    """
    CREATE TABLE user_settings (
        user_id    INTEGER PRIMARY KEY,
        body       TEXT NOT NULL DEFAULT '{}',
        updated_at REAL NOT NULL
    )
    """,
)

# Scheduled notices live in the database so that reminders survive a restart.
_V2: Final[tuple[str, ...]] = (
    """
    CREATE TABLE notices (
        id         INTEGER PRIMARY KEY,
        game_id    INTEGER REFERENCES games (id) ON DELETE CASCADE,
        user_id    INTEGER,
        kind       TEXT NOT NULL,
        due_at     REAL NOT NULL,
        payload    TEXT NOT NULL DEFAULT '{}',
        created_at REAL NOT NULL,
        sent_at    REAL
    )
    """,
    "CREATE INDEX notices_due ON notices (due_at) WHERE sent_at IS NULL",
    "CREATE INDEX notices_game ON notices (game_id, kind)",
)

# Per-game key/value data for the bot's own bookkeeping (which message is the turn message, who agreed
# to end, when a player was nudged), which must survive restarts but is no part of the game's events.
_V3: Final[tuple[str, ...]] = (
    """
    CREATE TABLE game_meta (
        game_id    INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        key        TEXT    NOT NULL,
        body       TEXT    NOT NULL,
        updated_at REAL    NOT NULL,
        PRIMARY KEY (game_id, key)
    ) WITHOUT ROWID
    """,
    "CREATE INDEX games_channel_recent ON games (channel_id, created_at)",
)

# The outbox. Notices become duties (ids never reused: a duty's id makes the nonce of its message):
# every message a change causes (posts, pings, edits) and every timer
# (reminders, deadlines) is written with the change and handed to a delivery worker under a lease.
# Pending reminders and deadlines carry over; the never-due bookkeeping notices of an unreleased format
# are dropped (that bookkeeping lives in game_meta since V3).
_V4: Final[tuple[str, ...]] = (
    """
    CREATE TABLE duties (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reused: a duty's id is its Discord nonce
        game_id     INTEGER REFERENCES games (id) ON DELETE CASCADE,
        guild_id    INTEGER,
        channel_id  INTEGER,
        user_id     INTEGER,
        kind        TEXT    NOT NULL,
        key         TEXT,
        due_at      REAL    NOT NULL,
        payload     TEXT    NOT NULL DEFAULT '{}',
        created_at  REAL    NOT NULL,
        attempts    INTEGER NOT NULL DEFAULT 0,
        not_before  REAL,
        lease_owner TEXT,
        lease_until REAL,
        done_at     REAL,
        outcome     TEXT,
        last_error  TEXT
    )
    """,
    "CREATE INDEX duties_due ON duties (due_at, id) WHERE done_at IS NULL",
    "CREATE INDEX duties_channel ON duties (channel_id, due_at, id) WHERE done_at IS NULL",
    "CREATE INDEX duties_game ON duties (game_id) WHERE done_at IS NULL",
    "CREATE INDEX duties_done ON duties (done_at) WHERE done_at IS NOT NULL",
    """
    CREATE UNIQUE INDEX duties_one_pending_key
        ON duties (game_id, key) WHERE done_at IS NULL AND key IS NOT NULL
    """,
    """
    INSERT OR IGNORE INTO duties
        (game_id, guild_id, channel_id, user_id, kind, key, due_at, payload, created_at)
    SELECT n.game_id, g.guild_id, g.channel_id, n.user_id,
           CASE n.kind WHEN 'turn' THEN 'remind' ELSE n.kind END,
           CASE n.kind WHEN 'turn' THEN 'remind' ELSE n.kind END,
           n.due_at, n.payload, n.created_at
    FROM notices n JOIN games g ON g.id = n.game_id
    WHERE n.sent_at IS NULL AND n.kind IN ('turn', 'deadline') AND g.status = 'playing'
    ORDER BY n.due_at DESC, n.id DESC
    """,
    "DROP TABLE notices",
)

# Ratings per server (issue 16).
_V5: Final[tuple[str, ...]] = (
    """
    CREATE TABLE ratings (
        guild_id   INTEGER NOT NULL,
        user_id    INTEGER NOT NULL,
        mu         REAL    NOT NULL,
        sigma      REAL    NOT NULL,
        games      INTEGER NOT NULL DEFAULT 0,
        wins       INTEGER NOT NULL DEFAULT 0,
        updated_at REAL    NOT NULL,
        PRIMARY KEY (guild_id, user_id)
    ) WITHOUT ROWID
    """,
    # A game is rated at most once: the row is written in the same transaction as the ratings it changed.
    """
    CREATE TABLE rated_games (
        game_id  INTEGER PRIMARY KEY,
        guild_id INTEGER NOT NULL,
        rated_at REAL    NOT NULL
    )
    """,
    "CREATE INDEX rated_games_guild ON rated_games (guild_id, game_id)",
)

# Lean snapshots (issue 12): the map is kept once per distinct map, by the digest of its text, and a
# snapshot names it. Old snapshots (the whole map inside) stay as they are: they still load, and the
# game's next action writes its snapshot lean.
_V6: Final[tuple[str, ...]] = (
    """
    CREATE TABLE maps (
        digest TEXT PRIMARY KEY,
        name   TEXT NOT NULL,
        text   TEXT NOT NULL
    ) WITHOUT ROWID
    """,
)

# A lean outbox (issue 32): a done duty keeps its id, game, kind, times and outcome, not its payload,
# lease's end nor where it went
# (rows.DONE_LEAN, which finish_duty writes from now on). The space freed is reused by new rows; VACUUM
# (offline, HOSTING) gives it back to the file system.
_V7: Final[tuple[str, ...]] = (
    "UPDATE duties SET payload = '{}', lease_until = NULL, key = NULL, not_before = NULL,"
    " guild_id = NULL, channel_id = NULL, user_id = NULL WHERE done_at IS NOT NULL",
)

# A lean database (issue 32): the games over are packed (ops_games.pack_game; here by `_pack`, a function of
# the migrating connection), and done duties lose their worker's name and last error (rows.DONE_LEAN).
_V8: Final[tuple[str, ...]] = (
    """
    CREATE TABLE packed (
        game_id INTEGER PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
        events  BLOB    NOT NULL,
        duties  BLOB
    )
    """,
    """
    INSERT INTO packed (game_id, events, duties) SELECT g.id,
        (SELECT alexandros_pack(json_group_array(json_array(version, body, created_at))) FROM events
         WHERE game_id = g.id), (SELECT alexandros_pack(json_group_array(json_array(id, kind, created_at,
         due_at, done_at, attempts, outcome))) FROM duties WHERE game_id = g.id AND done_at IS NOT NULL)
    FROM games g WHERE g.status IN ('finished', 'abandoned')
    """,
    "DELETE FROM events WHERE game_id IN (SELECT game_id FROM packed)",
    "DELETE FROM duties WHERE done_at IS NOT NULL AND game_id IN (SELECT game_id FROM packed)",
    "UPDATE duties SET lease_owner = NULL, last_error = NULL WHERE done_at IS NOT NULL",
)

MIGRATIONS: Final[tuple[tuple[str, ...], ...]] = (_V1, _V2, _V3, _V4, _V5, _V6, _V7, _V8)
LATEST_VERSION: Final[int] = len(MIGRATIONS)


def _pack(rows: str) -> bytes:
    """_V8's packing of rows given as a JSON array in no order (SQLite's aggregates keep none)."""
    return pack(sorted(json.loads(rows)))


async def schema_version(conn: aiosqlite.Connection) -> int:
    rows = list(await conn.execute_fetchall("PRAGMA user_version"))
    return int(rows[0][0])


async def migrate(conn: aiosqlite.Connection, target: int = LATEST_VERSION) -> int:
    """Bring the database up to schema `target`, one transaction per migration. Returns the new version.

    The connection must be in autocommit mode (isolation_level=None). The version is read again
    inside each transaction, so two processes opening the same old file upgrade it once.
    """
    if not 0 <= target <= LATEST_VERSION:
        raise ValueError(f"no migration {target}")
    await conn.create_function("alexandros_pack", 1, _pack, deterministic=True)
    while True:
        await conn.execute("BEGIN IMMEDIATE")
        try:
            current = await schema_version(conn)
            if current > LATEST_VERSION:
                raise SchemaTooNew(f"database schema {current} is newer than this program's {LATEST_VERSION}")
            if current >= target:
                await conn.execute("COMMIT")
                return current
            for statement in MIGRATIONS[current]:
                await conn.execute(statement)
            # PRAGMA takes no bound parameters; the value is an int we computed.
            await conn.execute(f"PRAGMA user_version = {current + 1:d}")
            await conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                await conn.execute("ROLLBACK")
            raise
