"""Only one process of a cluster syncs commands at a time (issue 13): every sync (``--sync`` at start, and
``/alexandros-admin sync``) runs under the store's ``exclusive("command-sync")``, which every process on
the database shares. A second store on the same database file stands for another process here (the
contract suite checks the same lock across PostgreSQL connections; tests/bot/test_cluster.py checks that
the processes of a real cluster started without ``--sync`` never call a sync route)."""

from __future__ import annotations

import pytest

from bot.client import make_bot
from bot.commands.cog import SYNC_LOCK
from bot.texts import private
from storage import open_store
from tests.bot.driver import WALLS_MAP, harness

pytest_plugins = ["tests.harness.fixtures"]

MANAGE_GUILD = 1 << 5


@pytest.fixture(autouse=True)
def _offline(no_network):
    yield


def syncs(d) -> list[str]:
    return [r.path for r in d.requests if r.kind == "sync_commands"]


async def test_an_admin_sync_waits_for_no_one_and_is_refused_while_another_process_syncs(tmp_path):
    db = str(tmp_path / "g.db")
    other = await open_store(db)  # another process of the cluster, on the same database
    try:
        async with harness(lambda: make_bot(db, map_provider=lambda: WALLS_MAP)) as d:
            admin = d.member("admin", permissions=MANAGE_GUILD)
            async with other.exclusive(SYNC_LOCK) as theirs:
                assert theirs
                r = await d.slash(d.owner, "alexandros-admin sync", everywhere=True)
                assert r.ephemeral and r.content == private.sync_busy()
                r = await d.slash(admin, "alexandros-admin sync")
                assert r.ephemeral and r.content == private.sync_busy()
                assert syncs(d) == [], "a sync route was called while another process synced"
            r = await d.slash(d.owner, "alexandros-admin sync", everywhere=True)
            assert r.ephemeral and "everywhere" in r.content
            assert len(syncs(d)) == 1
            async with other.exclusive(SYNC_LOCK) as theirs:
                assert theirs, "the admin sync let the lock go"
    finally:
        await other.close()


async def test_a_sync_at_start_is_skipped_while_another_process_syncs(tmp_path):
    db = str(tmp_path / "g.db")
    other = await open_store(db)
    try:
        async with other.exclusive(SYNC_LOCK) as theirs:
            assert theirs
            async with harness(lambda: make_bot(db, map_provider=lambda: WALLS_MAP, sync=True)) as d:
                assert d.bot.sync_refused and syncs(d) == []
        async with harness(lambda: make_bot(db, map_provider=lambda: WALLS_MAP, sync=True)) as d:
            assert not d.bot.sync_refused and len(syncs(d)) == 1
    finally:
        await other.close()
