"""PostgreSQL-specific tests: migrations, the schema's own guards, pg_dump backups, cancellation, the URL
factory, and what happens when PostgreSQL is missing. The contract suite runs on PostgreSQL too."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from pathlib import Path

import asyncpg
import pg_cluster as pg
import pytest
from pg_cluster import PgCluster
from store_backends import OLD_LEAN_ROWS, packed_list, reads_after_lean_migration

from storage import (
    NewDuty,
    PostgresGameStore,
    SchemaTooNew,
    ShardSlice,
    SqliteGameStore,
    StoreError,
    VersionConflict,
    open_database,
    open_postgres_store,
    sqlite_path,
)
from storage import pg_migrations as migrations_module
from storage.pg_migrations import LATEST_VERSION, MIGRATIONS, migrate, schema_version

T0 = 1_700_000_000.0


async def fresh_schema(cluster: PgCluster) -> str:
    """A new empty schema; returns the store URL that uses it."""
    schema = cluster.new_name("p")
    conn = await asyncpg.connect(cluster.url())
    try:
        await conn.execute(f"CREATE SCHEMA {schema}")
    finally:
        await conn.close()
    return cluster.url(schema=schema)


async def tables(url: str) -> set[str]:
    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")
        return {r[0] for r in rows}
    finally:
        await conn.close()


async def test_fresh_database_gets_the_latest_schema(pg_cluster: PgCluster) -> None:
    url = await fresh_schema(pg_cluster)
    store = await open_postgres_store(url)
    try:
        assert {
            "games",
            "seats",
            "events",
            "snapshots",
            "user_settings",
            "game_meta",
            "duties",
        } <= await tables(url)
        conn = await asyncpg.connect(url)
        try:
            assert await schema_version(conn) == LATEST_VERSION
        finally:
            await conn.close()
        assert await store.integrity_check()
    finally:
        await store.close()


async def test_a_failing_migration_leaves_neither_ddl_nor_version(
    pg_cluster: PgCluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = await fresh_schema(pg_cluster)
    broken = ("CREATE TABLE half_done (x integer)", "CREATE TABLE oops (")
    monkeypatch.setattr(migrations_module, "MIGRATIONS", (*MIGRATIONS, broken))
    conn = await asyncpg.connect(url)
    try:
        with pytest.raises(asyncpg.PostgresSyntaxError):
            await migrate(conn)
        assert await schema_version(conn) == LATEST_VERSION, "the good migrations committed, one by one"
        assert not conn.is_in_transaction()
    finally:
        await conn.close()
    assert "half_done" not in await tables(url)
    monkeypatch.undo()
    store = await open_postgres_store(url)
    try:
        assert await store.integrity_check()
    finally:
        await store.close()


async def test_processes_opening_one_new_database_at_once_migrate_it_once(pg_cluster: PgCluster) -> None:
    url = await fresh_schema(pg_cluster)
    stores = await asyncio.gather(*(open_postgres_store(url) for _ in range(4)))
    try:
        game = await stores[0].create_game(1, 1, 1, {}, T0)
        assert await stores[3].game_by_id(game.id) == game
    finally:
        for store in stores:
            await store.close()


async def test_a_database_from_a_newer_program_is_refused(pg_cluster: PgCluster) -> None:
    url = await fresh_schema(pg_cluster)
    await (await open_postgres_store(url)).close()
    conn = await asyncpg.connect(url)
    try:
        await conn.execute("UPDATE schema_version SET version = $1", LATEST_VERSION + 1)
    finally:
        await conn.close()
    with pytest.raises(SchemaTooNew):
        await open_postgres_store(url)


async def test_the_schema_itself_allows_one_unfinished_game_per_channel(pg_cluster: PgCluster) -> None:
    url = await fresh_schema(pg_cluster)
    await (await open_postgres_store(url)).close()
    conn = await asyncpg.connect(url)
    insert = (
        "INSERT INTO games (channel_id, status, created_by, created_at, updated_at) VALUES (5, $1, 1, 0, 0)"
    )
    try:
        await conn.execute(insert, "finished")
        await conn.execute(insert, "finished")
        await conn.execute(insert, "lobby")
        with pytest.raises(asyncpg.UniqueViolationError):
            await conn.execute(insert, "playing")
    finally:
        await conn.close()


async def test_integrity_check_reports_broken_invariants(pg_cluster: PgCluster) -> None:
    url = await fresh_schema(pg_cluster)
    store = await open_postgres_store(url)
    try:
        game = await store.create_game(1, 1, 1, {}, T0, snapshot={"c": 0})
        for v in range(3):
            game = await store.append(game.id, v, [{"n": v + 1}], {"c": v + 1}, T0)
        other = await store.create_game(1, 2, 1, {}, T0, snapshot={"c": 0})
        other = await store.append(other.id, 0, [{"n": 1}], {"c": 1}, T0)
        assert await store.integrity_check()
        conn = await asyncpg.connect(url)
        try:
            await conn.execute("DELETE FROM events WHERE game_id = $1 AND version = 2", game.id)
            await conn.execute("UPDATE snapshots SET version = 2 WHERE game_id = $1", game.id)
            await conn.execute("DELETE FROM snapshots WHERE game_id = $1", other.id)
            await conn.execute(
                "INSERT INTO games (id, channel_id, status, created_by, created_at, updated_at)"
                " VALUES (1000, 9, 'finished', 1, 0, 0)"
            )
        finally:
            await conn.close()
        report = await store.integrity_check()
        assert not report
        text = str(report)
        assert f"game {game.id}: version 3 but 2 events up to 3" in text
        assert f"game {game.id}: version 3 but snapshot at 2" in text
        assert f"game {other.id}: has events but no snapshot" in text
        assert "table games: id sequence at 2 is behind the highest id 1000" in text
    finally:
        await store.close()


async def test_imported_ids_move_the_sequence_on(pg_cluster: PgCluster) -> None:
    url = await fresh_schema(pg_cluster)
    store = await open_postgres_store(url)
    try:
        game = await store.create_game(1, 1, 1, {}, T0)
        data = await store.export_game(game.id)
        data["game"] = data["game"] | {"id": 500, "status": "finished"}
        assert (await store.import_game(data)).id == 500
        assert (await store.create_game(1, 2, 1, {}, T0)).id == 501, "the next game does not clash with it"
        assert await store.integrity_check()
    finally:
        await store.close()


async def test_backup_is_a_pg_dump_that_restores(pg_cluster: PgCluster, tmp_path: Path) -> None:
    url = await fresh_schema(pg_cluster)
    store = await open_postgres_store(url)
    dest = tmp_path / "alexandros.dump"
    try:
        games = [await store.create_game(1, c, 1, {}, T0, snapshot={"pad": "x" * 4000}) for c in range(20)]
        stop = asyncio.Event()

        async def writer() -> None:
            i = 0
            while not stop.is_set():
                g = games[i % len(games)]
                version, _ = await store.load_snapshot(g.id) or (0, {})
                await store.append(g.id, version, [{"n": i}], {"pad": "y" * 4000, "i": i}, T0 + i)
                i += 1

        task = asyncio.create_task(writer())
        await asyncio.sleep(0.05)
        await store.backup(dest)
        await store.backup(dest)  # replaces the older dump
        stop.set()
        await task
    finally:
        await store.close()
    assert dest.exists() and not Path(str(dest) + ".partial").exists()
    target = pg_cluster.create_database("restored")
    pg_restore = pg.find_binary("pg_restore")
    assert pg_restore is not None
    subprocess.run([pg_restore, "--no-owner", f"--dbname={pg_cluster.url(target)}", str(dest)], check=True)
    schema = url.rsplit("search_path=", 1)[1]
    copy = await open_postgres_store(pg_cluster.url(target, schema=schema))
    try:
        assert await copy.integrity_check()
        assert len(await copy.list_games()) == 20
        assert any(g.version > 0 for g in await copy.list_games())
    finally:
        await copy.close()


async def test_backup_without_pg_dump_says_how(
    pg_cluster: PgCluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = await open_postgres_store(await fresh_schema(pg_cluster))
    try:
        monkeypatch.setattr(shutil, "which", lambda name: None)
        with pytest.raises(StoreError, match="pg_dump"):
            await store.backup("/tmp/never-written.dump")
    finally:
        await store.close()


async def test_a_cancelled_caller_leaves_a_whole_transaction_and_a_usable_store(
    pg_cluster: PgCluster,
) -> None:
    store = await open_postgres_store(await fresh_schema(pg_cluster))
    try:
        game = await store.create_game(1, 1, 1, {}, T0, snapshot={"count": 0})
        outcomes = []
        for i in range(30):
            version, _ = await store.load_snapshot(game.id) or (0, {})
            task = asyncio.create_task(
                store.append(game.id, version, [{"n": 1}, {"n": 2}], {"count": version + 2}, T0 + i)
            )
            for _ in range(i % 6):
                await asyncio.sleep(0)
            task.cancel()
            try:
                await task
                outcomes.append("done")
            except asyncio.CancelledError:
                outcomes.append("cancelled")
            except VersionConflict:
                # A cancelled caller's transaction runs on behind the shield and may commit after the
                # next read of the version (a loaded machine): the store rightly refuses the stale one.
                outcomes.append("stale")
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.1)
        final = await store.game_by_id(game.id)
        assert final is not None and final.version % 2 == 0
        assert await store.load_snapshot(game.id) == (final.version, {"count": final.version})
        assert len(await store.events(game.id)) == final.version
        assert await store.integrity_check()
        assert "cancelled" in outcomes
        after = await store.append(game.id, final.version, [{"n": 1}], {"count": final.version + 1}, T0 + 99)
        assert after.version == final.version + 1
    finally:
        await store.close()


async def test_open_database_picks_the_backend_from_the_setting(
    pg_cluster: PgCluster, tmp_path: Path
) -> None:
    pg_store = await open_database(await fresh_schema(pg_cluster))
    file_store = await open_database(tmp_path / "a.db")
    url_store = await open_database(f"sqlite:///{tmp_path / 'b.db'}")
    try:
        assert isinstance(pg_store, PostgresGameStore)
        assert isinstance(file_store, SqliteGameStore) and file_store.path == str(tmp_path / "a.db")
        assert isinstance(url_store, SqliteGameStore) and url_store.path == str(tmp_path / "b.db")
    finally:
        for store in (pg_store, file_store, url_store):
            await store.close()
    assert sqlite_path("data/alexandros.db") == "data/alexandros.db"
    assert sqlite_path("sqlite:////srv/a.db") == "/srv/a.db"
    assert sqlite_path("postgres://u@h/db") is None
    with pytest.raises(ValueError, match="postgresql://"):
        sqlite_path("mysql://u@h/db")


def test_a_missing_postgresql_fails_with_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pg.shutil, "which", lambda name: None)
    monkeypatch.setattr(pg.glob, "glob", lambda pattern: [])
    with pytest.raises(pg.PostgresMissing, match=r"apt-get install postgresql"):
        pg.start_cluster()


async def test_migration_2_adds_the_maps_and_old_snapshots_still_load(pg_cluster: PgCluster) -> None:
    """A database of schema 1 (fat snapshots, the map inside) opens, keeps its snapshots, and stores maps."""
    url = await fresh_schema(pg_cluster)
    conn = await asyncpg.connect(url)
    try:
        assert await migrate(conn, 1) == 1
        await conn.execute(
            "INSERT INTO games (id, channel_id, status, version, created_by, created_at, updated_at)"
            " VALUES (7, 2, 'playing', 1, 10, 0, 0)"
        )
        await conn.execute(
            "INSERT INTO events (game_id, version, body, created_at) VALUES (7, 1, '{\"n\": 1}', 0)"
        )
        await conn.execute(
            'INSERT INTO snapshots (game_id, version, body) VALUES (7, 1, \'{"schema": 1, "map": "TEXT"}\')'
        )
    finally:
        await conn.close()
    store = await open_postgres_store(url)
    try:
        assert "maps" in await tables(url)
        assert await store.load_snapshot(7) == (1, {"schema": 1, "map": "TEXT"})
        await store.append(7, 1, [{"n": 2}], {"lean": 1, "map": ["m", "d"]}, 1.0, maps=[("d", "m", "TEXT")])
        assert await store.get_map("d") == ("m", "TEXT")
        assert await store.load_snapshot(7) == (2, {"lean": 1, "map": ["m", "d"]})
    finally:
        await store.close()


async def listening_backends(url: str) -> list[int]:
    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch(
            "SELECT pid FROM pg_stat_activity WHERE query LIKE 'LISTEN %alexandros_duties%'"
            " AND pid != pg_backend_pid()"
        )
        return [int(r[0]) for r in rows]
    finally:
        await conn.close()


async def test_a_duty_another_process_commits_wakes_the_owner_of_its_shard(pg_cluster: PgCluster) -> None:
    """Cluster wake-ups: a duty committed by one store (another process: its own pool and writer) wakes the
    store listening for that guild's shard, once the transaction commits; not for another shard's guild,
    nor a DM (shard 0), nor the listener's own writes; and listening comes back, with a catch-up wake-up,
    after its connection is killed."""
    url = await fresh_schema(pg_cluster)
    listener, writer = await open_postgres_store(url), await open_postgres_store(url)
    woken: list[float] = []
    event = asyncio.Event()

    def wake() -> None:
        woken.append(asyncio.get_running_loop().time())
        event.set()

    async def woke(within: float = 5.0) -> None:
        await asyncio.wait_for(event.wait(), within)
        event.clear()

    def duty(channel: int) -> NewDuty:
        return NewDuty(kind="post", due_at=T0, channel_id=channel, payload={"text": "hello"})

    ours, theirs = (7 << 22) | 1, (8 << 22) | 1  # shard 1 and shard 0 of 2
    try:
        assert listener.writer and writer.writer and listener.writer != writer.writer
        assert await listener.listen_for_duties(ShardSlice(2, (1,)), wake) is True
        await woke()  # listening started: catch up on whatever came before
        game = await writer.create_game(ours, 11, 1, {}, T0)
        other = await writer.create_game(theirs, 12, 1, {}, T0)

        async with writer._pool.acquire() as conn, conn.transaction():
            await conn.execute(
                "INSERT INTO duties (game_id, guild_id, channel_id, kind, due_at, payload, created_at)"
                " VALUES ($1, $2, 11, 'post', $3, '{}', $3)",
                game.id, ours, T0,
            )  # fmt: skip
            await asyncio.sleep(0.3)
            assert not event.is_set(), "told before the transaction committed"
        await woke()

        await writer.add_duties(other.id, [duty(12)], T0)  # shard 0
        await writer.add_duties(None, [duty(13)], T0)  # a DM: shard 0
        await listener.add_duties(game.id, [duty(11)], T0)  # its own
        await writer.add_duties(game.id, [duty(11), duty(11)], T0)  # ours, two in one commit
        await woke()
        await asyncio.sleep(0.3)
        assert len(woken) == 3 and not event.is_set(), "only ours, and one wake-up per commit"

        pids = await listening_backends(url)
        assert len(pids) == 1
        admin = await asyncpg.connect(url)
        try:
            await admin.execute("SELECT pg_terminate_backend($1)", pids[0])
        finally:
            await admin.close()
        await woke()  # listening again, and catching up
        await writer.add_duties(game.id, [duty(11)], T0)
        await woke()
        assert (await listening_backends(url)) != pids
    finally:
        await listener.close()
        await writer.close()
    assert await listening_backends(url) == [], "closing the store stops listening"


async def test_sqlite_hears_no_other_process(tmp_path: Path) -> None:
    store = await open_database(sqlite_path(str(tmp_path / "a.db")))
    try:
        assert await store.listen_for_duties(None, lambda: None) is False
    finally:
        await store.close()


async def test_listening_outlives_bad_payloads_and_failures_and_never_blocks_close(
    pg_cluster: PgCluster,
) -> None:
    url = await fresh_schema(pg_cluster)
    store = await open_postgres_store(url)
    first, second = asyncio.Event(), asyncio.Event()
    try:
        await store.listen_for_duties(ShardSlice(2, (1,)), first.set)
        await asyncio.wait_for(first.wait(), 5)
        await store.listen_for_duties(ShardSlice(2, (1,)), second.set)  # replaces the first
        await asyncio.wait_for(second.wait(), 5)
        first.clear()
        second.clear()
        admin = await asyncpg.connect(url)
        try:
            await admin.execute("SELECT pg_notify('alexandros_duties', 'not a guild id')")
            await asyncio.wait_for(second.wait(), 5)  # a payload it cannot read wakes it, to be safe
            second.clear()
            await admin.execute(f"SELECT pg_notify('alexandros_duties', '{7 << 22} someone-else')")
            await asyncio.wait_for(second.wait(), 5)  # and it still listens
        finally:
            await admin.close()
        assert not first.is_set(), "the replaced listener still wakes its worker"
    finally:
        await store.close()

    # A listener that cannot connect keeps trying (and logs), and closing the store still closes it all.
    broken = await open_postgres_store(url)
    broken.url = f"postgresql://postgres@localhost:1/none?host={pg_cluster.root}/no-such-dir"
    await broken.listen_for_duties(None, lambda: None)
    await asyncio.sleep(0.2)
    await asyncio.wait_for(broken.close(), 5)
    assert broken._pool.is_closing() and broken._listener is None


async def test_a_join_committed_while_a_user_is_forgotten_is_not_pseudonymised(pg_cluster: PgCluster) -> None:
    """READ COMMITTED: "is the user seated?" used to be asked before their games were locked, so a join (or
    a seat taken over) committed by another process in between was missed, and the lobby got the
    pseudonym in a seat. Asked after the lock, the join is seen: the forget is refused (StillSeated)."""
    from storage import StillSeated

    url = await fresh_schema(pg_cluster)
    forgetting, joining = await open_postgres_store(url), await open_postgres_store(url)
    try:
        user = 555
        names = {"names": {str(user): "Zoé"}}
        done = await forgetting.create_game(1, 10, user, names, T0, seats=[(0, user), (1, 7)])
        await forgetting.append(done.id, 0, [{}], {}, T0 + 1, status="finished")
        lobby = await forgetting.create_game(1, 11, 7, {"names": {"7": "Bob"}}, T0 + 2, seats=[(0, 7)])
        write = forgetting._write

        class JoinAfterFirstRead:  # the forget's connection: after its first read, another process joins
            def __init__(self, conn: object) -> None:
                self._conn, self._reads = conn, 0

            def __getattr__(self, name: str) -> object:
                return getattr(self._conn, name)

            async def fetch(self, *args: object, **kwargs: object) -> object:
                rows = await self._conn.fetch(*args, **kwargs)  # type: ignore[attr-defined]
                self._reads += 1
                if self._reads == 1:
                    await asyncio.wait_for(joining.join_seat(lobby.id, user, T0 + 3), 5)
                return rows

        async def write_with_a_join_between(body, *args, **kwargs):  # type: ignore[no-untyped-def]
            return await write(lambda conn: body(JoinAfterFirstRead(conn)), *args, **kwargs)

        forgetting._write = write_with_a_join_between  # type: ignore[method-assign]
        with pytest.raises(StillSeated):
            await forgetting.forget_user(user, -1, T0 + 4)
        after = await joining.game_by_id(lobby.id)
        assert after is not None and after.seats == ((0, 7), (1, user))
        assert (await joining.game_by_id(done.id)).seats == ((0, user), (1, 7))  # type: ignore[union-attr]
    finally:
        await forgetting.close()
        await joining.close()


async def test_migration_6_packs_the_games_over_and_drops_the_worker_of_done_duties(
    pg_cluster: PgCluster,
) -> None:
    """Issue 32: a database of schema 5 opens with its finished and abandoned games packed (their events and
    their delivered duties' log, one row; plain JSON, which TOAST compresses), every event read back the
    same, and the worker's name and last error of the done duties gone; a game in play keeps its rows."""
    url = await fresh_schema(pg_cluster)
    conn = await asyncpg.connect(url)
    try:
        assert await migrate(conn, 5) == 5
        for statement in OLD_LEAN_ROWS:
            await conn.execute(statement)
        for table, top in (("games", 9), ("duties", 44)):  # as the rows' ids had come from the sequences
            await conn.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), {top})")
    finally:
        await conn.close()
    store = await open_postgres_store(url)
    try:
        await reads_after_lean_migration(store)
    finally:
        await store.close()
    conn = await asyncpg.connect(url)
    try:
        assert [tuple(r) for r in await conn.fetch("SELECT DISTINCT game_id FROM events")] == [(8,)]
        rows = await conn.fetch("SELECT id, lease_owner, last_error FROM duties ORDER BY id")
        assert [tuple(r) for r in rows] == [(43, None, None), (44, None, None)]
        log = await conn.fetchval("SELECT duties FROM packed WHERE game_id = 7")
    finally:
        await conn.close()
    assert packed_list(log) == [[41, "post", 1, 1, 2, 1, "sent 9"], [42, "edit", 3, 3, 4, 2, "edited 9"]]
