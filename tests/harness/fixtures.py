"""pytest fixtures for the offline harness (the only module of the package that imports pytest).

Enable them in a test module or the root conftest with ``pytest_plugins = ["tests.harness.fixtures"]``.

``offline_discord`` is a factory, so a test can choose its bot and options::

    async def test_new_game(offline_discord):
        d = await offline_discord(make_bot, guild_id=GUILD)
        r = await d.slash(d.member("alice"), "alexandros new", players=3)

Every harness it started is closed at teardown, and errors or limit violations nobody looked at fail the
test there. ``no_network`` makes any IP connection or DNS lookup fail, and fails the test if one was tried.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any

import pytest

from offline.offline import OfflineDiscord, block_network
from offline.world import BotFactory


@pytest.fixture
def no_network() -> Iterator[list[str]]:
    with block_network() as attempts:
        yield attempts
    assert attempts == [], f"network access was attempted: {attempts}"


@pytest.fixture
async def offline_discord(no_network: list[str]) -> AsyncIterator[Callable[..., Awaitable[OfflineDiscord]]]:
    started: list[OfflineDiscord] = []

    async def start(bot_factory: BotFactory, **kwargs: Any) -> OfflineDiscord:
        d = OfflineDiscord(bot_factory, **kwargs)
        await d.start()
        started.append(d)
        return d

    yield start
    for d in started:
        await d.close()
    for d in started:
        if d.strict:
            d.raise_unreported()
