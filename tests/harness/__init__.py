"""Offline Discord harness for tests: a re-export of ``bot.offline`` (see its docstring for the API and an
example), kept here so tests import ``tests.harness``; pytest fixtures live in ``tests.harness.fixtures``."""

from bot.offline.offline import NetworkBlocked, OfflineDiscord, block_network, patched_webhook_adapter
from bot.offline.payloads import FakeUser
from bot.offline.records import (
    HarnessError,
    InteractionResult,
    LoggedError,
    Request,
    SentFile,
    StoredMessage,
)

from . import limits, offline, payloads, records  # noqa: F401  (aliases of the bot.offline modules)

__all__ = [
    "FakeUser",
    "HarnessError",
    "InteractionResult",
    "LoggedError",
    "NetworkBlocked",
    "OfflineDiscord",
    "Request",
    "SentFile",
    "StoredMessage",
    "block_network",
    "patched_webhook_adapter",
]
