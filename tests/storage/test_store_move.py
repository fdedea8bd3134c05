"""Moving a real SQLite database to a real PostgreSQL one with `python -m bot move`, and back."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import asyncpg
from pg_cluster import PgCluster

from storage import GameStore, NewDuty, open_postgres_store, open_store

ROOT = Path(__file__).resolve().parents[2]
T0 = 1_700_000_000.0


async def fill(store: GameStore) -> dict[str, int]:
    """Games in every status, with events, snapshots, metadata, seats and pending duties; user settings."""
    ids: dict[str, int] = {}
    lobby = await store.create_game(1 << 30, 10, 1, {"map": "empire"}, T0, seats=[(0, 1), (2, 3)])
    ids["lobby"] = lobby.id
    for name, channel in (("playing", 11), ("finished", 12), ("abandoned", 13), ("long", 14)):
        game = await store.create_game(5, channel, 2, {"map": "empire", "ἀ": "✓"}, T0, seats=[(0, 2), (1, 4)])
        state = {"sum": 0}
        for v in range(1, 30 if name == "long" else 4):
            state = {"sum": state["sum"] + v, "pad": "x" * 500}
            game = await store.append(
                game.id,
                v - 1,
                [{"n": v}],
                state,
                T0 + v,
                status="playing",
                waiting_on=2 + 2 * (v % 2),
                duties=[NewDuty("post", T0 + v, channel, payload={"v": v}),
                        NewDuty("remind", T0 + 3600 + v, channel, 4, {"v": v}, "remind")],
                meta={"turn_message": 1000 + v},
            )  # fmt: skip
        ids[name] = game.id
    await store.append(ids["finished"], 3, [{"n": 4}], {"sum": 10}, T0 + 50, status="finished")
    await store.abandon_game(ids["abandoned"], T0 + 60, duties=[NewDuty("post", T0 + 60, 13)])
    delivered = await store.claim_duties(T0 + 5, "w", 30, limit=3)
    for duty in delivered:
        await store.finish_duty(duty.id, "w", T0 + 6)
    await store.add_duties(None, [NewDuty("dm", T0 + 7, None, 9, {"hello": "é"})], T0)
    await store.set_user_settings(2, {"tz": "Europe/Athens", "quiet": [22, 7]}, T0 + 1)
    await store.set_user_settings(4, {"remind_every_h": 12}, T0 + 2)
    return ids


def run_move(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot", "move", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", **(env or {})},
        timeout=120,
    )


async def test_move_sqlite_to_postgresql_keeps_everything_and_refuses_a_full_target(
    pg_cluster: PgCluster, tmp_path: Path
) -> None:
    path = tmp_path / "alexandros.db"
    sqlite = await open_store(path)
    ids = await fill(sqlite)
    await sqlite.close()
    database = pg_cluster.create_database("moved")
    url = pg_cluster.url(database)

    done = run_move("--from", str(path), "--to", url)
    assert done.returncode == 0, done.stderr
    assert "moved 5 games (1 abandoned, 1 finished, 1 lobby, 2 playing)" in done.stdout
    assert "the settings of 2 users; verified" in done.stdout

    source = await open_store(path)
    target = await open_postgres_store(url)
    try:
        for game_id in ids.values():
            before, after = await source.export_game(game_id), await target.export_game(game_id)
            before.pop("schema_version"), after.pop("schema_version")
            assert after == before
            assert await target.game_by_id(game_id) == await source.game_by_id(game_id)
            assert await target.get_game_meta(game_id) == await source.get_game_meta(game_id)
        assert await target.get_user_settings(2) == {"tz": "Europe/Athens", "quiet": [22, 7]}
        assert await target.get_user_settings(4) == {"remind_every_h": 12}
        assert len(await target.pending_duties(ids["playing"])) == len(
            await source.pending_duties(ids["playing"])
        )
        assert await target.integrity_check()
        # The moved database goes on: a game in play takes its next action, and new games get new ids.
        version, state = await target.load_snapshot(ids["playing"]) or (0, {})
        assert (
            await target.append(ids["playing"], version, [{"n": 9}], state, T0 + 99)
        ).version == version + 1
        new = await target.create_game(5, 99, 1, {}, T0 + 100)
        assert new.id > max(ids.values())
    finally:
        await source.close()
        await target.close()

    refused = run_move("--from", str(path), "--to", url)
    assert refused.returncode == 2
    assert "already holds games" in refused.stderr and "--replace" in refused.stderr
    again = run_move("--from", str(path), "--to", url, "--replace")
    assert again.returncode == 0, again.stderr
    conn = await asyncpg.connect(url)
    try:
        assert await conn.fetchval("SELECT count(*) FROM games") == 6, "replaced the 5, kept the new one"
        assert await conn.fetchval("SELECT version FROM games WHERE id = $1", ids["playing"]) == 3
    finally:
        await conn.close()


async def test_move_back_from_postgresql_to_a_new_sqlite_file(pg_cluster: PgCluster, tmp_path: Path) -> None:
    url = pg_cluster.url(pg_cluster.create_database("source"))
    store = await open_postgres_store(url)
    ids = await fill(store)
    await store.close()
    path = tmp_path / "back.db"
    done = run_move("--from", url, "--to", f"sqlite:///{path}")
    assert done.returncode == 0, done.stderr
    copy = await open_store(path)
    try:
        assert {g.id for g in await copy.list_games()} == set(ids.values())
        assert await copy.integrity_check()
    finally:
        await copy.close()


async def test_without_from_the_configured_database_moves(tmp_path: Path) -> None:
    """A host types only the target: the bot's own database (ALEXANDROS_DATA_DIR's) is the source."""
    data = tmp_path / "data"
    data.mkdir()
    store = await open_store(data / "alexandros.db")
    ids = await fill(store)
    await store.close()
    copy_path = tmp_path / "copy.db"
    done = run_move("--to", f"sqlite:///{copy_path}", env={"ALEXANDROS_DATA_DIR": str(data)})
    assert done.returncode == 0, done.stderr
    copy = await open_store(copy_path)
    try:
        assert {g.id for g in await copy.list_games()} == set(ids.values())
    finally:
        await copy.close()


async def test_a_bad_target_fails_with_a_sentence(tmp_path: Path) -> None:
    path = tmp_path / "a.db"
    await (await open_store(path)).close()  # a source that is there (a missing one is refused first)
    done = run_move("--from", str(path), "--to", "mysql://x@y/z")
    assert done.returncode == 1
    assert "unknown database URL mysql://" in done.stderr


async def test_a_move_from_a_mistyped_path_or_to_an_unreachable_server_fails_in_one_sentence(
    pg_cluster: PgCluster, tmp_path: Path
) -> None:
    """A source that is not there used to be created empty and "moved 0 games … verified" (exit 0): the
    owner could switch to an empty PostgreSQL database. A server that does not answer, a database that does
    not exist: one sentence each, exit 1, and the password never shown."""
    database = pg_cluster.create_database("never_filled")
    missing = tmp_path / "alexandro.db"
    done = run_move("--from", str(missing), "--to", pg_cluster.url(database))
    assert done.returncode == 1 and "There is no database at" in done.stderr, done.stderr
    assert not missing.exists() and "Traceback" not in done.stderr
    conn = await asyncpg.connect(pg_cluster.url(database))
    try:  # nothing was written to the target: not even the schema
        assert await conn.fetchval("SELECT count(*) FROM pg_tables WHERE tablename = 'games'") == 0
    finally:
        await conn.close()

    path = tmp_path / "alexandros.db"
    await (await open_store(path)).close()
    for url, why in [
        ("postgresql://alex:s3cret@127.0.0.1:1/alex", "could not be reached"),
        (pg_cluster.url("no_such_database"), "does not exist"),
    ]:
        done = run_move("--from", str(path), "--to", url)
        assert done.returncode == 1 and why in done.stderr, done.stderr
        assert "s3cret" not in done.stderr and "Traceback" not in done.stderr
