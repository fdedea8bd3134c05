"""Offline Discord harness for tests: a re-export of the ``offline`` package (see its docstring for the API
and an example); pytest fixtures live in ``tests.harness.fixtures``."""

from offline.offline import NetworkBlocked, OfflineDiscord, block_network, patched_webhook_adapter
from offline.payloads import FakeUser
from offline.records import (
    HarnessError,
    InteractionResult,
    LoggedError,
    Request,
    SentFile,
    StoredMessage,
)

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
