"""Fixtures for the storage tests: `store`, `backend` and `make_backend`, once per entry of
store_backends.BACKENDS, so that the contract suite can run against any GameStore backend; and
`pg_cluster`, the session's throwaway PostgreSQL server (started on first use, stopped at the end).
A missing PostgreSQL makes the PostgreSQL tests fail with a sentence saying how to install it.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pg_cluster as pg
import pytest
from store_backends import BACKENDS, Backend

from storage import GameStore


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[pg.PgCluster]:
    """A PostgreSQL server for the whole session, in a temporary folder; thrown away at the end."""
    try:
        cluster = pg.start_cluster()
    except pg.PostgresMissing as exc:
        pytest.fail(str(exc), pytrace=False)
    pg.set_running(cluster)
    try:
        yield cluster
    finally:
        pg.set_running(None)
        cluster.stop()


@pytest.fixture(params=sorted(BACKENDS))
async def make_backend(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[Callable[[], Backend]]:
    """A factory of fresh, empty databases of the backend under test."""
    if request.param == "postgres":
        request.getfixturevalue("pg_cluster")
    made: list[Backend] = []
    counter = itertools.count()

    def make() -> Backend:
        directory = tmp_path / f"db{next(counter)}"
        directory.mkdir()
        backend = BACKENDS[request.param](directory)
        made.append(backend)
        return backend

    yield make
    for backend in made:
        await backend.close_all()


@pytest.fixture
def backend(make_backend: Callable[[], Backend]) -> Backend:
    return make_backend()


@pytest.fixture
async def store(backend: Backend) -> GameStore:
    return await backend.open()
