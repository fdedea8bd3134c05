"""Project-wide pytest options."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-goldens",
        action="store_true",
        default=False,
        help="rewrite golden images (tests/*/golden/) from the current code instead of comparing with them",
    )


def pytest_asyncio_loop_factories(config: pytest.Config, item: pytest.Item) -> dict[str, object]:
    """Every async test runs on the event loop the bot runs on in production (bot.process.event_loop):
    uvloop where it is installed."""
    from bot.process.event_loop import default_event_loop, loop_factory

    name = default_event_loop()
    return {name: loop_factory(name)}
