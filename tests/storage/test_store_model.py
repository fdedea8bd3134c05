"""Property test: random sequences of appends (some stale, some ahead) against a tiny in-memory model."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from store_backends import Backend

from storage import KEEP, VersionConflict

T0 = 1_700_000_000.0
USERS = (None, 1, 2)

ops = st.lists(
    st.tuples(
        st.integers(1, 3),  # events in the action
        st.sampled_from([0, 0, 0, -1, 1]),  # offset of the expected version from the real one
        st.sampled_from(["keep", *USERS]),  # waiting_on
    ),
    max_size=25,
)
queries = st.lists(st.tuples(st.integers(0, 30), st.one_of(st.none(), st.integers(1, 10))), max_size=5)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(actions=ops, reads=queries)
async def test_appends_match_a_model(
    make_backend: Callable[[], Backend],
    actions: list[tuple[int, int, Any]],
    reads: list[tuple[int, int | None]],
) -> None:
    store = await make_backend().open()
    game = await store.create_game(1, 1, 1, {}, T0, snapshot={"n": 0})
    log: list[dict[str, int]] = []
    waiting: int | None = None
    turn_started: float | None = None
    for step, (count, offset, who) in enumerate(actions):
        now = T0 + step + 1
        expected = len(log) + offset
        events = [{"n": len(log) + i + 1} for i in range(count)]
        target = KEEP if who == "keep" else who
        if offset != 0:
            try:
                await store.append(game.id, expected, events, {"n": -1}, now, waiting_on=target)
            except VersionConflict as conflict:
                assert (conflict.expected, conflict.actual) == (expected, len(log))
            else:
                raise AssertionError("a write with the wrong version was accepted")
            continue
        record = await store.append(
            game.id, expected, events, {"n": len(log) + count}, now, waiting_on=target
        )
        log.extend(events)
        if who != "keep" and who != waiting:
            waiting, turn_started = who, (None if who is None else now)
        assert (record.version, record.waiting_on, record.turn_started_at) == (
            len(log),
            waiting,
            turn_started,
        )
    assert await store.load_snapshot(game.id) == (len(log), {"n": len(log)})
    stored = await store.events(game.id)
    assert stored == [(i + 1, e) for i, e in enumerate(log)]
    for since, limit in reads:
        tail = stored[since:]
        expected_slice = tail if limit is None else tail[-limit:]
        assert await store.events(game.id, since_version=since, limit=limit) == expected_slice
    await store.close()
