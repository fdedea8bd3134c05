"""The Discord-free core of the bot: the action pipeline's order of checks, its one commit with the
outbox, the bounded state cache and locks, and the shutdown counter."""

from __future__ import annotations

import asyncio
import json
import random

import pytest

from bot.commands.answers import InFlight
from bot.games.tables import GameLocks, Refused, StateCache, Table, Tables, names_of
from bot.outbox import duties as dt
from bot.outbox.pipeline import Ask, Pipeline
from engine import ai
from engine.actions import EndTurn, Resign
from engine.game import new_game
from storage import open_store
from tests.bot.driver import WALLS_MAP, Clock

CH = 77


@pytest.fixture
async def store(tmp_path):
    s = await open_store(tmp_path / "s.db")
    yield s
    await s.close()


def pipeline(store, woken: list[int] | None = None) -> Pipeline:
    calls = woken if woken is not None else []
    return Pipeline(Tables(store, cache_size=8), Clock(), 24.0, lambda game_id: calls.append(game_id))


async def started(p: Pipeline, players: int = 2, seed: int = 5) -> Table:
    rec = await p.store.create_game(
        1, CH, 100, {"names": {str(100 + i): f"p{i}" for i in range(players)}}, 1.0
    )
    for i in range(players):
        rec = await p.store.join_seat(rec.id, 100 + i, 1.0)
    state, events = new_game(WALLS_MAP, players, seed)
    out = await p.commit(
        Table(rec, None, names_of(rec)), state, tuple(events), seats=[(i, 100 + i) for i in range(players)]
    )
    return out.table


async def test_the_seat_and_version_are_checked_before_the_state_is_read(store):
    p = pipeline(store)
    table = await started(p)
    current = table.current_user
    other = next(u for u in table.record.user_ids if u != current)
    loads: list[int] = []
    real_load = p.tables.load

    async def counting_load(record):
        loads.append(record.id)
        return await real_load(record)

    p.tables.load = counting_load  # type: ignore[method-assign]

    def must_not_parse(st, seat):
        raise AssertionError("parsed for someone who may not act")

    for ask, code in [
        (Ask(other, game_id=table.id, version=table.version), "game/not-your-turn"),
        (Ask(555, game_id=table.id, version=table.version), "bot/not-a-player"),
        (Ask(current, game_id=table.id, version=table.version - 1), "game/stale"),
        (Ask(other, game_id=table.id, version=table.version - 1), "game/stale"),
        (Ask(current, channel_id=CH + 1), "bot/no-game"),
    ]:
        with pytest.raises(Refused) as r:
            await p.act(ask, must_not_parse)
        assert r.value.code == code, ask
    assert loads == [], "no state was loaded for a refused asker"
    with pytest.raises(Refused) as r:
        await p.act(Ask(current, game_id=table.id, version=table.version), lambda st, s: EndTurn(s))
    assert r.value.code == "turn/move-first"
    assert loads == [table.id]


async def test_one_commit_holds_the_events_and_every_duty_it_causes(store):
    woken: list[int] = []
    p = pipeline(store, woken)
    table = await started(p)
    pending = await store.pending_duties(table.id)
    assert [d.kind for d in pending] == [dt.POST, dt.REMIND], "the first turn's post and reminder"
    post = pending[0]
    since, _ = await p.current_turn(table)
    assert post.payload["ping"] == [table.current_user] and post.payload["turn_post"] == since
    assert post.payload["buttons"] == {"game": table.id, "version": table.version, "moving": True}
    public = json.loads(post.payload["public"])  # drawn from the public state: no hand, no draw order
    assert all(hand[1:] == [0, 0, 0, 0] for hand, *_ in public["players"]) and public["rng"] == 0
    current = table.current_user
    rng = random.Random(1)
    woken.clear()
    move = await p.act(
        Ask(current, game_id=table.id, version=table.version), lambda st, s: ai.greedy_player(st, rng)
    )
    assert move.table.version == table.version + len(move.events) and woken == [table.id]
    kinds = [d.kind for d in await store.pending_duties(table.id)]
    assert kinds == [dt.POST, dt.EDIT, dt.REMIND], "the move edits the turn post; the reminder stays"
    end = await p.act(Ask(current, channel_id=CH), lambda st, s: EndTurn(s))
    assert end.new_turn_version is not None
    duties = await store.pending_duties(table.id)
    assert [d.kind for d in duties] == [dt.POST, dt.EDIT, dt.EDIT, dt.POST, dt.REMIND]
    closing, new_post = duties[2], duties[3]
    assert closing.payload.get("buttons") is None and "turn over" in closing.payload["text"]
    assert new_post.payload["ping"] == [end.table.current_user] != [current]
    assert duties[4].user_id == end.table.current_user, "one reminder, for the new turn"


async def test_an_action_lets_the_loop_turn_after_apply_and_before_the_commits_write(store, monkeypatch):
    """Point reads stay on the loop's thread (storage.sqlite, _glance): the pipeline itself lets other
    tasks in after apply and before the write, so 50 handlers woken together do not hold the loop in one
    pass each (bench_bot, 50 games: the longest stall 36-38 ms without these turns, 25-27 with them)."""
    import bot.outbox.pipeline as pipeline_module

    p = pipeline(store)
    table = await started(p)
    loop = asyncio.get_running_loop()
    ran: list[str] = []
    seen: dict[str, list[str]] = {}
    real_apply, real_turn = pipeline_module.apply, p.current_turn
    real_hooked, real_append = p.hooked, store.append

    def marked_apply(state, action):
        out = real_apply(state, action)
        loop.call_soon(ran.append, "after apply")
        return out

    async def checked_turn(before):
        seen["commit"] = list(ran)
        return await real_turn(before)

    async def marked_hooked(t, duties, now):
        out = await real_hooked(t, duties, now)
        loop.call_soon(ran.append, "after duties")
        return out

    async def checked_append(*args, **kwargs):
        seen["write"] = list(ran)
        return await real_append(*args, **kwargs)

    monkeypatch.setattr(pipeline_module, "apply", marked_apply)
    monkeypatch.setattr(p, "current_turn", checked_turn)
    monkeypatch.setattr(p, "hooked", marked_hooked)
    monkeypatch.setattr(store, "append", checked_append)
    rng = random.Random(1)
    await p.act(
        Ask(table.current_user, game_id=table.id, version=table.version),
        lambda st, s: ai.greedy_player(st, rng),
    )
    assert seen["commit"] == ["after apply"], "the loop turned between apply and the commit"
    assert seen["write"] == ["after apply", "after duties"], "and between the duties and the write"


async def test_a_race_between_two_processes_is_refused_as_out_of_date(store):
    one, two = pipeline(store), pipeline(store)
    table = await started(one)
    current = table.current_user
    rng = random.Random(3)
    await one.act(
        Ask(current, game_id=table.id, version=table.version), lambda st, s: ai.greedy_player(st, rng)
    )
    # `two` saw the game at the older version: its commit loses and says so.
    stale_table = table
    state = stale_table.state
    assert state is not None
    from engine.game import apply

    new_state, events = apply(state, Resign(state.current))
    with pytest.raises(Refused) as r:
        await two.commit(stale_table, new_state, tuple(events))
    assert r.value.code == "game/stale"


async def test_state_cache_and_locks_stay_bounded():
    cache = StateCache(3)
    for gid in range(10):
        cache.put(gid, 1, object())  # type: ignore[arg-type]
    assert len(cache) == 3 and cache.get(9, 1) is not None and cache.get(0, 1) is None
    assert cache.get(9, 2) is None, "another version is a miss"
    locks = GameLocks()
    order: list[str] = []

    async def hold(gid: int, name: str) -> None:
        async with locks.hold(gid):
            order.append(name + "+")
            await asyncio.sleep(0.01)
            order.append(name + "-")

    await asyncio.gather(hold(1, "a"), hold(1, "b"), hold(2, "c"))
    assert order.index("a-") < order.index("b+"), "one holder per game at a time"
    assert len(locks) == 0, "no lock is kept once nobody holds it"


async def test_shutdown_waits_for_handlers_in_flight_then_refuses_new_ones():
    flight = InFlight()
    done: list[str] = []

    async def action(name: str, seconds: float) -> None:
        async with flight.running():
            async with flight.running():  # a handler that calls another: nested, counted once
                await asyncio.sleep(seconds / 2)
            await asyncio.sleep(seconds / 2)
            done.append(name)

    tasks = [asyncio.create_task(action("quick", 0.1)), asyncio.create_task(action("slow", 5.0))]
    await asyncio.sleep(0)
    assert await flight.drain(timeout=0.5) == 1  # the quick one finished; the slow one ran out of time
    assert done == ["quick"]
    with pytest.raises(Refused) as r:
        async with flight.running():
            pass
    assert r.value.code == "bot/shutting-down"
    tasks[1].cancel()


async def test_signals_start_one_clean_close():
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
