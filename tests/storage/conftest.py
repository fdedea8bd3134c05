"""Fixtures for the storage tests: `store`, `backend` and `make_backend`, once per entry of
store_backends.BACKENDS, so that the contract suite can run against any GameStore backend.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from store_backends import BACKENDS, Backend

from storage import GameStore


@pytest.fixture(params=sorted(BACKENDS))
async def make_backend(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[Callable[[], Backend]]:
    """A factory of fresh, empty databases of the backend under test."""
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
