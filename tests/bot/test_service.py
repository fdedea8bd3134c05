"""The Discord-free game service: lobby, start, act, conflicts, resign, agree, abandon, bookkeeping."""

from __future__ import annotations

import random

import pytest

from bot.service import GameService, Refused
from engine import ai
from engine.actions import EndTurn, Resign
from engine.events import TurnStarted
from storage import open_store
from tests.bot.driver import WALLS_MAP, Clock

CH = 77


@pytest.fixture
async def store(tmp_path):
    s = await open_store(tmp_path / "s.db")
    yield s
    await s.close()


def service(store, seed: int = 5) -> GameService:
    return GameService(store, lambda: WALLS_MAP, Clock(), lambda: seed)


async def started(svc: GameService, players: int = 2):
    t = await svc.create(1, CH, 100, "ann")
    for i in range(1, players):
        await svc.join(t.id, 100 + i, f"p{i}")
    return await svc.start(t.id, 100)


async def test_lobby_rules_are_refusals(store):
    svc = service(store)
    t = await svc.create(1, CH, 100, "ann")
    with pytest.raises(Refused) as r:
        await svc.create(1, CH, 101, "bob")
    assert r.value.code == "bot/channel-busy" and r.value.details["game"] == t.id
    with pytest.raises(Refused) as r:
        await svc.start(t.id, 100)
    assert r.value.code == "bot/too-few-players"
    await svc.join(t.id, 101, "bob")
    with pytest.raises(Refused) as r:
        await svc.join(t.id, 101, "bob")
    assert r.value.code == "bot/already-seated"
    for uid in (102, 103):
        await svc.join(t.id, uid, str(uid))
    with pytest.raises(Refused) as r:
        await svc.join(t.id, 104, "eve")
    assert r.value.code == "bot/table-full"
    with pytest.raises(Refused) as r:
        await svc.start(t.id, 101)
    assert r.value.code == "bot/not-creator"
    await svc.leave(t.id, 103)
    out = await svc.start(t.id, 100)
    assert out.table.record.status == "playing" and out.table.names == ("ann", "bob", "102")
    assert out.new_turn_version is not None and out.ping == out.table.current_user
    assert out.table.record.waiting_on == out.table.current_user
    with pytest.raises(Refused) as r:
        await svc.join(t.id, 104, "eve")
    assert r.value.code == "bot/not-in-lobby"
    with pytest.raises(Refused) as r:
        await svc.table_by_id(999)
    assert r.value.code == "bot/unknown-game"


async def test_act_applies_saves_and_refuses_with_engine_codes(store):
    svc = service(store)
    out = await started(svc)
    table = out.table
    current = table.current_user
    other = next(u for u in table.record.user_ids if u != current)
    with pytest.raises(Refused) as r:
        await svc.act(table.id, other, lambda st, s: EndTurn(s))
    assert r.value.code == "game/not-your-turn"
    with pytest.raises(Refused) as r:
        await svc.act(table.id, 555, lambda st, s: EndTurn(s))
    assert r.value.code == "bot/not-a-player"
    with pytest.raises(Refused) as r:
        await svc.act(table.id, current, lambda st, s: EndTurn(s))
    assert r.value.code == "turn/move-first"
    rng = random.Random(1)
    move = await svc.act(table.id, current, lambda st, s: ai.greedy_player(st, rng), table.version)
    assert move.table.version == table.version + len(move.events)
    # The same version again is stale: a double click.
    with pytest.raises(Refused) as r:
        await svc.act(table.id, current, lambda st, s: EndTurn(s), table.version)
    assert r.value.code == "game/stale"
    # Another process wrote first: the store's VersionConflict becomes "someone acted first".
    other_svc = service(store)
    await other_svc.act(table.id, current, lambda st, s: EndTurn(s))
    with pytest.raises(Refused) as r:
        await svc.act(table.id, current, lambda st, s: EndTurn(s))
    assert r.value.code in ("bot/conflict", "game/not-your-turn")
    reloaded = await service(store).table_by_id(table.id)
    assert reloaded.state is not None and reloaded.state.current != move.state.current
    assert any(isinstance(e, TurnStarted) for e in await svc.events_since(table.id, move.table.version))


async def test_bookkeeping_survives_a_new_service(store):
    svc = service(store)
    out = await started(svc)
    await svc.set_turn_post(out.table.id, 4242, 9, None)
    await svc.set_pinged(out.table.id, 100)
    fresh = service(store)
    assert await fresh.turn_post(out.table.id) == (4242, 9, None)
    assert await fresh.last_pinged(out.table.id, 100) is not None
    assert await fresh.last_pinged(out.table.id, 101) is None


async def test_bookkeeping_is_game_metadata_not_notices(store):
    svc = service(store)
    out = await started(svc, 3)
    gid = out.table.id
    await svc.set_turn_post(gid, 4242, 9, 1.5)
    await svc.set_pinged(gid, 100)
    await svc.set_pinged(gid, 101)
    await svc.agree(gid, 102)
    meta = await store.get_game_meta(gid)
    assert meta["turn_post"] == {"message": 4242, "since": 9, "pinged": 1.5}
    assert set(meta["pinged"]) == {"100", "101"} and meta["agreed"] == [102]
    assert not await store.pending_notices(gid)  # nothing bookkept as a notice any more
    assert await service(store).votes(await svc.table_by_id(gid)) == {2}
    # The vote that ends the game clears the in-play keys in the same write as the end; the turn post stays
    # so that the last turn's message can still be closed.
    await svc.agree(gid, 100)
    await svc.agree(gid, 101)
    meta = await store.get_game_meta(gid)
    assert (await svc.table_by_id(gid)).record.status == "finished"
    assert set(meta) == {"turn_post"}


async def test_legacy_bookkeeping_notices_carry_on_after_an_upgrade(store):
    """A database written before per-game metadata holds the bookkeeping as notices due in 2100."""
    never = 4_102_444_800.0
    svc = service(store)
    out = await started(svc, 3)
    gid = out.table.id
    old = [
        ("turn-post", None, {"message_id": 777, "since": 3, "pinged": 12.0}),
        ("pinged:100", 100, {"at": 50.0}),
        ("agree", 101, {"seat": 1}),
        ("absent:102", 102, {"at": 60.0}),
        ("nudge", 100, {"at": 1_800_000_000.0}),
    ]
    for kind, uid, payload in old:
        await store.schedule_notice(gid, kind, never, 1.0, user_id=uid, payload=payload)
    await store.set_game_meta(gid, {"pinged": {"100": 99.0}}, 2.0)  # metadata, where present, wins
    fresh = service(store)
    assert await fresh.turn_post(gid) == (777, 3, 12.0)
    assert await fresh.last_pinged(gid, 100) == 99.0
    table = await fresh.table_by_id(gid)
    assert await fresh.votes(table) == {1}
    assert await fresh.absent_users(gid) == {102}
    with pytest.raises(Refused) as r:
        await fresh.nudge(gid, 101 if table.current_user != 101 else 100)
    assert r.value.code == "bot/nudge-too-soon"
    # Moved once into metadata and deleted: a key removed later does not come back from an old notice.
    assert not await store.pending_notices(gid)
    await fresh.take_seat_back(gid, 102)
    assert await service(store).absent_users(gid) == set()


async def test_resign_agree_abandon(store):
    svc = service(store)
    out = await started(svc, 3)
    gid = out.table.id
    res = await svc.act(gid, 101, lambda st, s: Resign(s))
    assert res.state.players[1].resigned and not res.finished
    _, waiting, done = await svc.agree(gid, 100)
    assert done is None and waiting == [2]
    with pytest.raises(Refused) as r:
        await svc.agree(gid, 100)
    assert r.value.code == "bot/already-voted"
    _, waiting, done = await svc.agree(gid, 102)
    assert done is not None and done.finished and done.table.record.status == "finished"
    with pytest.raises(Refused) as r:
        await svc.act(gid, 100, lambda st, s: EndTurn(s))
    assert r.value.code == "bot/no-game" or r.value.code == "bot/closed"
    t2 = await svc.create(1, CH, 100, "ann")
    with pytest.raises(Refused) as r:
        await svc.abandon(t2.id, 555, can_manage=False)
    assert r.value.code == "bot/no-permission"
    assert (await svc.abandon(t2.id, 555, can_manage=True)).record.status == "abandoned"


async def test_shutdown_waits_for_actions_in_flight_then_refuses_new_ones(store):
    import asyncio

    svc = service(store)
    done: list[str] = []

    async def action(name: str, seconds: float) -> None:
        async with svc.in_flight():
            async with svc.in_flight():  # a command that ends in an action: nested, counted once
                await asyncio.sleep(seconds / 2)
            await asyncio.sleep(seconds / 2)
            done.append(name)

    tasks = [asyncio.create_task(action("quick", 0.1)), asyncio.create_task(action("slow", 5.0))]
    await asyncio.sleep(0)
    assert await svc.drain(timeout=0.5) == 1  # the quick one finished; the slow one ran out of time
    assert done == ["quick"]
    with pytest.raises(Refused) as r:
        async with svc.in_flight():
            pass
    assert r.value.code == "bot/shutting-down"
    tasks[1].cancel()


async def test_signals_start_one_clean_close():
    import asyncio
    import os
    import signal

    from bot.__main__ import install_shutdown

    closed: list[int] = []

    async def close() -> None:
        closed.append(1)

    handled = install_shutdown(close)
    try:
        assert signal.SIGTERM in handled
        os.kill(os.getpid(), signal.SIGTERM)
        os.kill(os.getpid(), signal.SIGTERM)  # a second signal while closing changes nothing
        for _ in range(50):
            await asyncio.sleep(0.01)
        assert closed == [1]
    finally:
        loop = asyncio.get_running_loop()
        for sig in handled:
            loop.remove_signal_handler(sig)
