"""Issue 12 through the offline Discord: an End turn press reads the store at most twice, snapshots and
outbox pictures are lean (the map stored once, by digest), and old snapshots still load."""

from __future__ import annotations

import asyncio
import contextvars
import functools
import gc
import json
import random
from collections import Counter
from typing import Any

import pytest

from bot.outbox.deliveries import Deliveries
from engine import ai, serialize
from engine.actions import EndTurn
from engine.maps import default_map
from storage import SqliteGameStore, open_store
from tests.bot.driver import NAMES, Game, bot_factory, harness

# The store's methods that change nothing (everything else writes).
READS = {
    "load_snapshot", "game_by_id", "game_by_channel", "latest_game_in_channel", "get_game_meta",
    "games_waiting_on", "games_of_user", "list_games", "events", "pending_duties", "next_duty_at",
    "get_user_settings", "get_map", "export_game", "all_user_settings",
}  # fmt: skip


IN_WORKER: contextvars.ContextVar[bool] = contextvars.ContextVar("in_worker", default=False)


class StoreCalls:
    """Counts the store's calls by method, apart for the delivery worker's (its drain and its sends)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        drain = Deliveries.drain

        async def marked_drain(worker: Deliveries, *args: Any, **kwargs: Any) -> int:
            IN_WORKER.set(True)  # the drain runs in a task of its own: this marks only that task's context
            return await drain(worker, *args, **kwargs)

        monkeypatch.setattr(Deliveries, "drain", marked_drain)
        self.handler: Counter[str] = Counter()
        self.worker: Counter[str] = Counter()
        self.on = False
        for name in dir(SqliteGameStore):
            if name.startswith("_") or not asyncio.iscoroutinefunction(getattr(SqliteGameStore, name)):
                continue
            monkeypatch.setattr(SqliteGameStore, name, self._wrap(name, getattr(SqliteGameStore, name)))

    def _wrap(self, name: str, method: Any) -> Any:
        @functools.wraps(method)
        async def counted(store: Any, *args: Any, **kwargs: Any) -> Any:
            if self.on:
                (self.worker if IN_WORKER.get() else self.handler)[name] += 1
            return await method(store, *args, **kwargs)

        return counted

    def reads(self, counter: Counter[str]) -> int:
        return sum(n for name, n in counter.items() if name in READS)


async def test_an_end_turn_press_reads_the_store_at_most_twice(tmp_path, monkeypatch) -> None:
    calls = StoreCalls(monkeypatch)
    async with harness(bot_factory(str(tmp_path / "g.db"), default_map(), 7)) as d:
        g = Game(d, [d.member(n) for n in NAMES[:3]])
        await g.open()
        rng = random.Random(7)
        presses = 0
        for n in range(200):
            st = await g.state()
            action = ai.greedy_player(st, rng)
            if isinstance(action, EndTurn):
                table = await g.table()
                user = g.user_of_seat(table, st.current)
                msg = g.turn_message()
                calls.handler.clear()
                calls.worker.clear()
                calls.on = True
                g.private(await d.click(user, msg.id, f"alx:end:{g.game_id}:{table.version}"))
                calls.on = False
                assert calls.reads(calls.handler) <= 2, dict(calls.handler)
                writes = {k: v for k, v in calls.handler.items() if k not in READS}
                assert writes == {"append": 1}, writes  # one transaction per action
                presses += 1
                if presses >= 3:
                    break
            else:
                await g.play(action, n)
        assert presses == 3


async def test_snapshots_and_pictures_are_lean_and_the_map_is_stored_once(tmp_path) -> None:
    db = tmp_path / "g.db"
    async with harness(bot_factory(str(db), default_map(), 7)) as d:
        g = Game(d, [d.member(n) for n in NAMES[:2]])
        await g.open()
        rng = random.Random(3)
        for n in range(6):
            if n == 5:  # the last action's duties stay in the outbox: a delivered duty keeps no payload
                d.bot.pipeline.wake = lambda game_id: None
            await g.play(ai.greedy_player(await g.state(), rng), n)
        assert any(r.files for r in d.requests if r.public_post), "boards were posted"
    store = await open_store(db)
    try:
        (record,) = await store.list_games()
        snap = await store.load_snapshot(record.id)
        assert snap is not None and "lean" in snap[1]
        text = default_map().text
        assert text not in json.dumps(snap[1]), "the snapshot does not carry the map"
        assert await store.get_map(default_map().digest) == (default_map().name, text)
        maps = await store._read("SELECT count(*) FROM maps")
        assert maps == [(1,)]
        exported = await store.export_game(record.id)
        assert [m["digest"] for m in exported["maps"]] == [default_map().digest]
        payloads = await store._read("SELECT payload FROM duties WHERE payload LIKE '%\"picture\"%'")
        assert payloads, "picture duties were written"
        for (payload,) in payloads:
            p = json.loads(payload)
            assert p["map"] == default_map().digest and text not in payload
            assert "lean" in json.loads(p["public"]) and "view" not in p
    finally:
        await store.close()


async def test_an_old_snapshot_with_its_map_inside_loads_and_the_next_action_writes_it_lean(tmp_path) -> None:
    db = tmp_path / "g.db"
    async with harness(bot_factory(str(db), default_map(), 7)) as d:
        g = Game(d, [d.member(n) for n in NAMES[:2]])
        await g.open()
        state = await g.state()
    # Make the saved snapshot an old one: engine.serialize's, the whole map inside, no maps row.
    store = await open_store(db)
    try:
        await store._writer.execute("UPDATE snapshots SET body = ?", (json.dumps(serialize.dump(state)),))
        await store._writer.execute("DELETE FROM maps")
    finally:
        await store.close()
    async with harness(bot_factory(str(db), default_map(), 7)) as d:
        g = Game(d, [d.member(n) for n in NAMES[:2]], game_id=g.game_id)
        assert await g.state() == state
        rng = random.Random(3)
        await g.play(ai.greedy_player(state, rng), 1)
        g.bot.pipeline.tables.cache.drop(g.game_id)
        after = await g.state()
        assert after.version > state.version
    store = await open_store(db)
    try:
        snap = await store.load_snapshot(g.game_id)
        assert snap is not None and "lean" in snap[1]
        assert await store.get_map(default_map().digest) is not None
    finally:
        await store.close()


def test_the_state_cache_keeps_the_hot_states_as_objects_and_the_rest_as_lean_text() -> None:
    from bot.games.tables import StateCache
    from engine.game import new_game

    states = [new_game(default_map(), 3, seed)[0] for seed in range(1, 11)]
    cache = StateCache(6, hot=2)
    for gid, st in enumerate(states):
        cache.put(gid, st.version, st, (st.version, ()))
    assert len(cache) == 6, "bounded: the 4 oldest are gone"
    assert cache.get(0, states[0].version) is None
    assert len(cache._items) == 2 and len(cache._cold) == 4
    assert all(isinstance(text, str) for _, text, _ in cache._cold.values())
    assert cache.turn(9, states[9].version) is not None, "a hot state keeps its turn"
    assert cache.turn(5, states[5].version) is None
    assert cache.get(5, states[5].version) == states[5], "a cold one decodes to the same state"
    assert cache.get(5, states[5].version + 1) is None, "another version is a miss"
    assert 5 in cache._items and len(cache) == 6


def test_r2_5_the_outbox_public_state_shows_what_the_public_view_shows_and_no_secret() -> None:
    from bot.outbox.duties import public_state
    from engine.game import apply, new_game
    from engine.snapshot import dump_public, dump_state, load_state, maps_by_digest
    from engine.state import UndoTrail
    from engine.views import view

    maps = maps_by_digest(default_map())
    undo_points = 0
    for seed in (1, 2, 3):
        state, _ = new_game(default_map(), 3, seed)
        rng = random.Random(seed)
        for _ in range(60):
            if state.over:
                break
            # The outbox's snapshot (dump_public, made from the state's kept snapshot) is the public
            # state's own.
            lean = dump_public(state)
            assert lean == dump_state(public_state(state))
            public = load_state(lean, maps)
            assert view(public, None) == view(state, None)
            assert public.rng == 0 and public.seed == 0
            # P10's trail holds the turn's earlier states whole (hands, the supply's order, the generator):
            # none of it may reach the outbox.
            undo_points += len(state.undo.points)
            assert public.undo == UndoTrail(), "no earlier state of the turn, with its secrets"
            assert len(set(public.supply)) <= 1, "the supply's order is gone"
            for p, real in zip(public.players, state.players, strict=True):
                assert p.hand[1:] == (0, 0, 0, 0) and p.hand[0] == sum(real.hand), "only the hand's size"
            state, _ = apply(state, ai.greedy_player(state, rng))
    assert undo_points > 0, "the games passed through states with a trail"


async def test_a_picture_duty_holds_the_public_snapshot_as_text_and_an_older_ones_json_draws_the_same() -> (
    None
):
    """The outbox's picture duties hold the public state's lean snapshot as JSON text, handed to the render
    worker as it is; duties written before hold it as JSON, and draw the very same picture."""
    from bot.games.pictures import Pictures
    from bot.games.tables import Table
    from bot.outbox.duties import _picture
    from engine.game import apply, new_game
    from storage import GameRecord

    state, _ = new_game(default_map(), 2, 5)
    rng = random.Random(5)
    for _ in range(7):
        state, _ = apply(state, ai.greedy_player(state, rng))
    record = GameRecord(1, 2, 3, "playing", {}, state.version, 0.0, 0.0, 4, 5, 0.0, ((0, 5), (1, 6)))
    facts = _picture(state, Table(record, state, ("Ada", "Bo")))
    assert isinstance(facts["public"], str)
    pictures = Pictures(width=640)
    names = ["Ada", "Bo"]
    now = await pictures.public("board", facts["public"], default_map(), names, language="en")
    older = await pictures.public("board", json.loads(facts["public"]), default_map(), names, language="en")
    assert now == older and now.startswith(b"\x89PNG") and pictures.failures == 0


async def test_after_its_warm_up_the_bot_collects_young_objects_rarely_and_never_its_long_lived_ones(
    tmp_path,
) -> None:
    from bot.process.collector import YOUNG_COLLECTION

    before = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)
        gc.unfreeze()
        async with harness(bot_factory(str(tmp_path / "g.db"), default_map(), 7)) as d:
            await d.bot.warmed()
            assert gc.get_threshold()[0] == YOUNG_COLLECTION
            # The maps, the renderer's caches and discord.py's state: out of the collector's view.
            assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
