"""The PostgreSQL implementation of `GameStore`, on asyncpg, for several bot processes sharing one
database: the shared operations (storage/operations.py) over the PostgreSQL plumbing
(storage/postgres_base.py, which also says how transactions work), with what PostgreSQL does its own way:
storage/postgres_outbox.py (LISTEN/NOTIFY, advisory locks) and storage/postgres_transfer.py (pg_dump,
integrity check). Its SQL where it differs: storage/sql.py.
"""

from __future__ import annotations

import os
import secrets
import socket

import asyncpg

from .base import DatabaseUnreachable, redact_url
from .operations import Operations
from .pg_migrations import LATEST_VERSION, migrate
from .postgres_base import PostgresBase
from .postgres_outbox import PostgresOutbox
from .postgres_transfer import PostgresTransfer

__all__ = ["PostgresGameStore", "check_postgres", "is_postgres_url", "open_postgres_store"]


def is_postgres_url(url: str) -> bool:
    return url.startswith(("postgresql://", "postgres://"))


async def _connect(url: str) -> asyncpg.Connection[asyncpg.Record]:
    try:
        return await asyncpg.connect(url)
    except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError) as err:
        raise DatabaseUnreachable(_why_unreachable(url, err)) from err


async def check_postgres(url: str) -> None:
    """Connect once and let go: DatabaseUnreachable (one sentence) if the server does not answer or refuses
    this database or user. ``python -m bot`` asks before it talks to Discord (as it checks an SQLite file)."""
    await (await _connect(url)).close()


async def open_postgres_store(url: str, *, min_size: int = 1, max_size: int = 10) -> PostgresGameStore:
    """Connect to the PostgreSQL database at `url` (postgresql://user:password@host:port/dbname) and upgrade
    its schema to the latest. Extra query parameters are server settings, e.g. `?search_path=alexandros`
    keeps the store's tables in their own schema. `max_size` bounds the connections this process opens."""
    if not is_postgres_url(url):
        raise ValueError("a PostgreSQL URL starts with postgresql://")
    conn = await _connect(url)
    try:
        await migrate(conn)
    finally:
        await conn.close()
    writer = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
    pool = await asyncpg.create_pool(
        url, min_size=min_size, max_size=max_size, server_settings={"alexandros.writer": writer}
    )
    return PostgresGameStore(url, pool, writer)


def _why_unreachable(url: str, err: BaseException) -> str:
    """One sentence for a failed connection: the database (password hidden), what failed, what to check."""
    where = f"The PostgreSQL database {redact_url(url)}"
    if isinstance(err, asyncpg.InvalidCatalogNameError):
        return f"{where} does not exist: create it (createdb), or correct ALEXANDROS_DATABASE_URL."
    if isinstance(err, asyncpg.InvalidPasswordError | asyncpg.InvalidAuthorizationSpecificationError):
        return f"{where} refused the user name or password in ALEXANDROS_DATABASE_URL: correct them."
    if isinstance(err, OSError | TimeoutError):
        return (
            f"{where} could not be reached ({type(err).__name__}): check that the server runs and that "
            "the host and port in ALEXANDROS_DATABASE_URL are right."
        )
    return f"{where} could not be opened ({type(err).__name__}: {err})."


class PostgresGameStore(PostgresOutbox, PostgresTransfer, Operations, PostgresBase):
    """`GameStore` on one PostgreSQL database. Make it with `open_postgres_store`; `close()` it when done."""

    schema_version = LATEST_VERSION

    async def __aenter__(self) -> PostgresGameStore:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
