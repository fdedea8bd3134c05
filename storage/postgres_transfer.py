"""Whole-database operations of the PostgreSQL store: backup with pg_dump and integrity check. A mixin of
`PostgresGameStore`; SQLite's is storage/sqlite_transfer.py (a game's export and import are shared:
storage/ops_transfer.py)."""

from __future__ import annotations

import asyncio
import os
import shutil
import urllib.parse
from typing import Final

from .base import IntegrityReport, StoreError
from .core import invariant_problems
from .pg_migrations import LATEST_VERSION, schema_version
from .postgres_base import PgTx, PostgresBase


class PostgresTransfer(PostgresBase):
    """backup and integrity_check."""

    async def backup(self, dest_path: str | os.PathLike[str]) -> None:
        """Dump the whole database to `dest_path` with `pg_dump --format=custom` (restore: `pg_restore`).

        PostgreSQL's backups are pg_dump's, not a file copy: it reads one consistent snapshot while the bot
        goes on writing. pg_dump must be on PATH and of the server's major version or newer; otherwise this
        raises StoreError saying so. The dump is written beside the target and renamed into place, so
        `dest_path` is either the old dump or a complete new one.
        """
        if self._closed:
            raise StoreError("store is closed")
        pg_dump = shutil.which("pg_dump")
        if pg_dump is None:
            raise StoreError(
                "PostgreSQL backups are made with pg_dump, which is not on PATH: install the PostgreSQL "
                "client (Debian: apt-get install postgresql-client) or run pg_dump yourself"
            )
        dest = os.fspath(dest_path)
        partial = dest + ".partial"
        url, env, args = _pg_dump_target(self.url)
        proc = await asyncio.create_subprocess_exec(
            pg_dump,
            "--format=custom",
            "--no-owner",
            *args,
            f"--file={partial}",
            f"--dbname={url}",
            env={**os.environ, **env},
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        _, err = await proc.communicate()
        if proc.returncode != 0:
            if os.path.exists(partial):
                os.remove(partial)
            raise StoreError(f"pg_dump failed ({proc.returncode}): {err.decode(errors='replace').strip()}")
        os.replace(partial, dest)

    async def integrity_check(self) -> IntegrityReport:
        """The store's invariants, all read in one snapshot: the schema version, events 1..version with a
        snapshot at that version, one unfinished game per channel, and id sequences ahead of the ids in use
        (imports write ids of their own)."""

        async def body(conn: PgTx) -> IntegrityReport:
            return IntegrityReport(tuple(await _check_integrity(conn)))

        return await self._consistent(body)


async def _check_integrity(tx: PgTx) -> list[str]:
    conn = tx.conn
    problems: list[str] = []
    version = await schema_version(conn)
    if version != LATEST_VERSION:
        problems.append(f"schema version {version}, this program's is {LATEST_VERSION}")
    problems += await invariant_problems(tx.fetch)
    for table in ("games", "duties"):
        row = await conn.fetchrow(
            f"SELECT (SELECT MAX(id) FROM {table}),"
            f" pg_sequence_last_value(pg_get_serial_sequence('{table}', 'id')::regclass)"
        )
        assert row is not None
        top, last = row
        if top is not None and (last is None or last < top):
            problems.append(f"table {table}: id sequence at {last} is behind the highest id {top}")
    return problems


# Query parameters of a connection URL that libpq (pg_dump) understands itself; asyncpg takes the others
# as server settings, which libpq wants in PGOPTIONS instead.
_LIBPQ_PARAMS: Final[frozenset[str]] = frozenset(
    {"host", "hostaddr", "port", "dbname", "user", "password", "passfile", "connect_timeout",
     "application_name", "sslmode", "sslcert", "sslkey", "sslrootcert", "sslpassword", "target_session_attrs"}
)  # fmt: skip


def _pg_dump_target(url: str) -> tuple[str, dict[str, str], list[str]]:
    """The URL for pg_dump, its environment and extra arguments.

    The password goes to PGPASSWORD (a command line is visible to every local user in the process list);
    server settings (`?search_path=s`) go to PGOPTIONS, and a search_path limits the dump to that schema.
    """
    parts = urllib.parse.urlsplit(url)
    env: dict[str, str] = {}
    args: list[str] = []
    netloc = parts.netloc
    if parts.password is not None:
        env["PGPASSWORD"] = urllib.parse.unquote(parts.password)
        netloc = netloc.rsplit("@", 1)[1]
        if parts.username:
            netloc = f"{parts.username}@{netloc}"
    kept: list[tuple[str, str]] = []
    options: list[str] = []
    for key, value in urllib.parse.parse_qsl(parts.query, keep_blank_values=True):
        if key in _LIBPQ_PARAMS:
            kept.append((key, value))
        else:
            options.append(f"-c {key}={value}")
            if key == "search_path":
                args.extend(f"--schema={schema.strip()}" for schema in value.split(","))
    if options:
        env["PGOPTIONS"] = " ".join(options)
    query = urllib.parse.urlencode(kept)
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc, query=query)), env, args
