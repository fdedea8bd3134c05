"""Contract tests: what every GameStore backend must do. They run once per backend in conftest.BACKENDS."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
import zlib
from collections.abc import Callable
from typing import Any

import asyncpg
import pytest
from store_backends import Backend, PostgresBackend, SqliteBackend

from storage import (
    KEEP,
    ChannelBusy,
    GameClosed,
    GameExists,
    GameNotFound,
    GameRecord,
    GameStore,
    InvalidGameData,
    LeaseLost,
    NewDuty,
    SeatError,
    ShardSlice,
    VersionConflict,
)

T0 = 1_700_000_000.0
GUILD = 111
CHANNEL = 222
ALICE, BOB, CAROL, DAVE, EVE = 1001, 1002, 1003, 1004, 1005


def fold(events: list[dict[str, Any]]) -> dict[str, Any]:
    """The stand-in 'engine': a snapshot is the sum and count of the events' n values."""
    return {"sum": sum(e["n"] for e in events), "count": len(events)}


async def started_game(
    store: GameStore, channel: int = CHANNEL, players: tuple[int, ...] = (ALICE, BOB)
) -> GameRecord:
    game = await store.create_game(GUILD, channel, players[0], {"map": "default"}, T0)
    for user in players:
        game = await store.join_seat(game.id, user, T0 + 1)
    return await store.append(
        game.id, 0, [{"n": 1}], fold([{"n": 1}]), T0 + 2, status="playing", waiting_on=players[0]
    )


async def check_log(store: GameStore, game_id: int) -> None:
    """Events are exactly 1..version and the snapshot is their fold."""
    game = await store.game_by_id(game_id)
    assert game is not None
    events = await store.events(game_id)
    assert [v for v, _ in events] == list(range(1, game.version + 1))
    snap = await store.load_snapshot(game_id)
    assert snap == (game.version, fold([e for _, e in events]))


# ---------------------------------------------------------------- create and load


async def test_create_game_is_a_lobby_at_version_zero(store: GameStore) -> None:
    game = await store.create_game(GUILD, CHANNEL, ALICE, {"map": "default", "coast_walls": False}, T0)
    assert game.status == "lobby"
    assert game.version == 0
    assert (game.guild_id, game.channel_id, game.created_by) == (GUILD, CHANNEL, ALICE)
    assert game.options == {"map": "default", "coast_walls": False}
    assert game.created_at == game.updated_at == T0
    assert game.waiting_on is None and game.turn_started_at is None
    assert game.seats == ()
    assert await store.game_by_id(game.id) == game
    assert await store.game_by_channel(CHANNEL) == game
    assert await store.load_snapshot(game.id) is None
    assert await store.events(game.id) == []


async def test_create_with_snapshot_and_seats(store: GameStore) -> None:
    game = await store.create_game(
        None, CHANNEL, ALICE, {}, T0, snapshot={"s": [1, 2]}, seats=[(2, BOB), (0, ALICE)]
    )
    assert game.guild_id is None
    assert game.seats == ((0, ALICE), (2, BOB))
    assert await store.load_snapshot(game.id) == (0, {"s": [1, 2]})


async def test_unknown_ids(store: GameStore) -> None:
    assert await store.game_by_id(999) is None
    assert await store.game_by_channel(999) is None
    with pytest.raises(GameNotFound):
        await store.load_snapshot(999)
    with pytest.raises(GameNotFound):
        await store.append(999, 0, [{"n": 1}], {}, T0)
    with pytest.raises(GameNotFound):
        await store.export_game(999)


async def test_data_survives_close_and_reopen(backend: Backend) -> None:
    store = await backend.open()
    game = await started_game(store)
    game = await store.append(game.id, 1, [{"n": 2}, {"n": 3}], fold([{"n": 1}, {"n": 2}, {"n": 3}]), T0 + 3)
    await store.set_user_settings(ALICE, {"tz": "Europe/Athens"}, T0)
    await store.close()
    again = await backend.open()
    assert await again.game_by_id(game.id) == game
    await check_log(again, game.id)
    assert await again.get_user_settings(ALICE) == {"tz": "Europe/Athens"}
    assert await again.integrity_check()


# ---------------------------------------------------------------- one game per channel


async def test_one_unfinished_game_per_channel(store: GameStore) -> None:
    first = await store.create_game(GUILD, CHANNEL, ALICE, {}, T0)
    with pytest.raises(ChannelBusy) as info:
        await store.create_game(GUILD, CHANNEL, BOB, {}, T0)
    assert info.value.game_id == first.id
    other = await store.create_game(GUILD, CHANNEL + 1, BOB, {}, T0)
    assert other.id != first.id
    assert len(await store.list_games()) == 2


async def test_finished_games_stay_and_free_the_channel(store: GameStore) -> None:
    game = await started_game(store)
    done = await store.append(game.id, 1, [{"n": 5}], fold([{"n": 1}, {"n": 5}]), T0 + 9, status="finished")
    assert done.status == "finished" and done.waiting_on is None and done.turn_started_at is None
    assert await store.game_by_channel(CHANNEL) is None
    new = await store.create_game(GUILD, CHANNEL, BOB, {}, T0 + 10)
    assert await store.game_by_channel(CHANNEL) == new
    assert await store.game_by_id(game.id) == done
    with pytest.raises(GameClosed):
        await store.append(game.id, 2, [{"n": 1}], {}, T0 + 11)
    abandoned = await store.abandon_game(new.id, T0 + 12)
    assert abandoned.status == "abandoned"
    assert await store.abandon_game(new.id, T0 + 13) == abandoned
    third = await store.create_game(GUILD, CHANNEL, CAROL, {}, T0 + 14)
    assert [g.id for g in await store.list_games(status=("finished", "abandoned"))] == [new.id, game.id]
    assert [g.id for g in await store.list_games(status="lobby")] == [third.id]


async def test_racing_creates_in_one_channel_make_one_game(store: GameStore) -> None:
    results = await asyncio.gather(
        *(store.create_game(GUILD, CHANNEL, 2000 + i, {}, T0) for i in range(8)), return_exceptions=True
    )
    made = [r for r in results if isinstance(r, GameRecord)]
    assert len(made) == 1
    assert all(isinstance(r, ChannelBusy) for r in results if not isinstance(r, GameRecord))
    assert len(await store.list_games()) == 1


# ---------------------------------------------------------------- lobby


async def test_lobby_seats(store: GameStore) -> None:
    game = await store.create_game(GUILD, CHANNEL, ALICE, {}, T0)
    game = await store.join_seat(game.id, ALICE, T0 + 1)
    game = await store.join_seat(game.id, BOB, T0 + 2, seat=3)
    game = await store.join_seat(game.id, CAROL, T0 + 3)
    assert game.seats == ((0, ALICE), (1, CAROL), (3, BOB))
    assert game.updated_at == T0 + 3
    with pytest.raises(SeatError):
        await store.join_seat(game.id, ALICE, T0)
    with pytest.raises(SeatError):
        await store.join_seat(game.id, DAVE, T0, seat=3)
    with pytest.raises(SeatError):
        await store.join_seat(game.id, DAVE, T0, seat=4)
    game = await store.join_seat(game.id, DAVE, T0 + 4)
    with pytest.raises(SeatError):
        await store.join_seat(game.id, EVE, T0)
    game = await store.leave_seat(game.id, CAROL, T0 + 5)
    assert game.seats == ((0, ALICE), (2, DAVE), (3, BOB))
    with pytest.raises(SeatError):
        await store.leave_seat(game.id, CAROL, T0)
    game = await store.update_lobby(game.id, T0 + 6, options={"players": 3}, seats=[(0, BOB), (1, ALICE)])
    assert game.options == {"players": 3} and game.seats == ((0, BOB), (1, ALICE))
    game = await store.update_lobby(game.id, T0 + 7, seats=[(0, ALICE)])
    assert game.seats == ((0, ALICE),)
    with pytest.raises(SeatError):
        await store.update_lobby(game.id, T0, seats=[(0, ALICE), (1, ALICE)])
    assert game.version == 0
    assert await store.game_by_id(game.id) == game


async def test_double_join_click_seats_once(store: GameStore) -> None:
    game = await store.create_game(GUILD, CHANNEL, ALICE, {}, T0)
    results = await asyncio.gather(
        *(store.join_seat(game.id, BOB, T0) for _ in range(5)), return_exceptions=True
    )
    assert sum(isinstance(r, GameRecord) for r in results) == 1
    assert sum(isinstance(r, SeatError) for r in results) == 4
    after = await store.game_by_id(game.id)
    assert after is not None and after.seats == ((0, BOB),)


async def test_lobby_is_closed_once_the_game_starts(store: GameStore) -> None:
    game = await started_game(store)
    with pytest.raises(SeatError):
        await store.join_seat(game.id, CAROL, T0)
    with pytest.raises(SeatError):
        await store.leave_seat(game.id, ALICE, T0)
    with pytest.raises(SeatError):
        await store.update_lobby(game.id, T0, options={})


# ---------------------------------------------------------------- append and conflicts


async def test_append_writes_events_snapshot_and_version(store: GameStore) -> None:
    game = await started_game(store)
    assert game.status == "playing" and game.version == 1 and game.waiting_on == ALICE
    assert game.turn_started_at == T0 + 2
    events = [{"n": 1}, {"n": 2}, {"n": 3}, {"n": 4}]
    game = await store.append(game.id, 1, events[1:3], fold(events[:3]), T0 + 3, waiting_on=ALICE)
    assert game.version == 3 and game.updated_at == T0 + 3
    assert game.turn_started_at == T0 + 2, "the same player's turn goes on"
    game = await store.append(game.id, 3, events[3:], fold(events), T0 + 4, waiting_on=BOB)
    assert game.waiting_on == BOB and game.turn_started_at == T0 + 4
    game = await store.append(game.id, 4, [{"n": 0}], fold([*events, {"n": 0}]), T0 + 5, waiting_on=KEEP)
    assert game.waiting_on == BOB and game.turn_started_at == T0 + 4
    game = await store.append(
        game.id, 5, [{"n": 0}], fold([*events, {"n": 0}, {"n": 0}]), T0 + 6, waiting_on=None
    )
    assert game.waiting_on is None and game.turn_started_at is None
    assert await store.events(game.id) == [
        (1, {"n": 1}),
        (2, {"n": 2}),
        (3, {"n": 3}),
        (4, {"n": 4}),
        (5, {"n": 0}),
        (6, {"n": 0}),
    ]
    assert await store.events(game.id, since_version=4) == [(5, {"n": 0}), (6, {"n": 0})]
    assert await store.events(game.id, limit=2) == [(5, {"n": 0}), (6, {"n": 0})]
    assert await store.events(game.id, since_version=1, limit=2) == [(5, {"n": 0}), (6, {"n": 0})]
    assert await store.events(game.id, since_version=6) == []
    await check_log(store, game.id)
    assert await store.game_by_id(game.id) == game


async def test_stale_write_is_refused_and_writes_nothing(store: GameStore) -> None:
    game = await started_game(store)
    [duty] = await store.add_duties(game.id, [NewDuty("remind", T0 + 100, CHANNEL, ALICE, key="remind")], T0)
    game = await store.append(game.id, 1, [{"n": 2}], fold([{"n": 1}, {"n": 2}]), T0 + 3)
    with pytest.raises(VersionConflict) as info:
        await store.append(
            game.id,
            1,
            [{"n": 7}, {"n": 8}],
            {"junk": True},
            T0 + 4,
            status="finished",
            waiting_on=BOB,
            seats=[(0, CAROL)],
            duties=[NewDuty("x", T0)],
            cancel_keys=["remind"],
        )
    assert (info.value.game_id, info.value.expected, info.value.actual) == (game.id, 1, 2)
    assert await store.game_by_id(game.id) == game
    await check_log(store, game.id)
    assert await store.pending_duties(game.id) == [duty]
    with pytest.raises(VersionConflict):
        await store.append(game.id, 3, [{"n": 1}], {}, T0 + 5)
    assert await store.game_by_id(game.id) == game


async def test_two_clicks_on_the_same_button_apply_once(store: GameStore) -> None:
    game = await started_game(store)
    version, state = await store.load_snapshot(game.id) or (0, {})
    clicks = [
        store.append(
            game.id, version, [{"n": 10}], {"sum": state["sum"] + 10, "count": state["count"] + 1}, T0
        )
        for _ in range(2)
    ]
    results = await asyncio.gather(*clicks, return_exceptions=True)
    assert sum(isinstance(r, GameRecord) for r in results) == 1
    assert sum(isinstance(r, VersionConflict) for r in results) == 1
    assert await store.events(game.id) == [(1, {"n": 1}), (2, {"n": 10})]
    await check_log(store, game.id)


async def test_bad_appends_change_nothing(store: GameStore) -> None:
    game = await started_game(store)
    with pytest.raises(ValueError):
        await store.append(game.id, 1, [], {}, T0)
    with pytest.raises((TypeError, ValueError)):
        await store.append(game.id, 1, [{"n": object()}], {}, T0)
    with pytest.raises((TypeError, ValueError)):
        await store.append(game.id, 1, [{"n": 1}], {"x": float("nan")}, T0)
    with pytest.raises(ValueError):
        await store.append(game.id, 1, [{"n": 1}], {}, T0, status="paused")  # type: ignore[arg-type]
    with pytest.raises(SeatError):
        await store.append(game.id, 1, [{"n": 1}], {}, T0, seats=[(0, ALICE), (0, BOB)])
    assert await store.game_by_id(game.id) == game
    await check_log(store, game.id)


async def test_append_can_reseat_and_finish(store: GameStore) -> None:
    game = await store.create_game(GUILD, CHANNEL, ALICE, {}, T0, seats=[(0, ALICE), (1, BOB)])
    game = await store.append(
        game.id,
        0,
        [{"n": 1}],
        fold([{"n": 1}]),
        T0 + 1,
        status="playing",
        seats=[(0, BOB), (1, ALICE)],
        waiting_on=BOB,
    )
    assert game.seats == ((0, BOB), (1, ALICE)) and game.status == "playing"
    assert [g.id for g in await store.games_waiting_on(BOB)] == [game.id]
    assert await store.games_waiting_on(ALICE) == []


async def test_amend_reseats_with_duties_and_meta_at_the_same_version(store: GameStore) -> None:
    """A seat handed over (no engine event): seats, whose turn, duties, cancelled keys and meta in one
    step; the version, the events and the snapshot stay."""
    game = await started_game(store)
    await store.add_duties(game.id, [NewDuty("remind", T0 + 50, CHANNEL, ALICE, key="remind")], T0 + 2)
    amended = await store.amend(
        game.id,
        game.version,
        T0 + 5,
        waiting_on=CAROL,
        seats=[(0, CAROL), (1, BOB)],
        duties=[post()],
        cancel_keys=["remind"],
        meta={"handed": [ALICE]},
        options={"map": "default", "names": {str(CAROL): "carol"}},
    )
    assert amended.options == {"map": "default", "names": {str(CAROL): "carol"}}
    assert amended.seats == ((0, CAROL), (1, BOB)) and amended.version == game.version
    assert amended.waiting_on == CAROL and amended.turn_started_at == T0 + 5
    assert await store.game_by_id(game.id) == amended
    assert [d.kind for d in await store.pending_duties(game.id)] == ["post"]
    assert (await store.get_game_meta(game.id))["handed"] == [ALICE]
    assert [g.id for g in await store.games_waiting_on(CAROL)] == [game.id]
    assert await store.games_waiting_on(ALICE) == []
    await check_log(store, game.id)
    paused = await store.amend(game.id, game.version, T0 + 6, waiting_on=None)
    assert paused.waiting_on is None and paused.turn_started_at is None and paused.seats == amended.seats
    assert paused.options == amended.options  # kept when not given
    with pytest.raises(VersionConflict):
        await store.amend(game.id, game.version - 1, T0 + 7, waiting_on=BOB)
    with pytest.raises(GameNotFound):
        await store.amend(424242, 1, T0 + 7)
    lobby = await store.create_game(GUILD, CHANNEL + 1, ALICE, {}, T0)
    with pytest.raises(GameClosed):
        await store.amend(lobby.id, 0, T0 + 7, waiting_on=ALICE)
    assert (await store.game_by_id(game.id)) == paused


# ---------------------------------------------------------------- listing


async def test_listing_queries(store: GameStore) -> None:
    a = await started_game(store, channel=1, players=(ALICE, BOB))
    b = await started_game(store, channel=2, players=(BOB, CAROL))
    c = await store.create_game(GUILD + 1, 3, DAVE, {}, T0 + 50, seats=[(0, DAVE), (1, ALICE)])
    b = await store.append(b.id, 1, [{"n": 2}], fold([{"n": 1}, {"n": 2}]), T0 + 60, waiting_on=BOB)
    a = await store.append(a.id, 1, [{"n": 2}], fold([{"n": 1}, {"n": 2}]), T0 + 70, waiting_on=BOB)
    assert [g.id for g in await store.games_waiting_on(BOB)] == [b.id, a.id], "longest waiting first"
    assert await store.games_waiting_on(CAROL) == []
    assert [g.id for g in await store.list_games()] == [a.id, b.id, c.id]
    assert [g.id for g in await store.list_games(status="playing")] == [a.id, b.id]
    assert [g.id for g in await store.list_games(guild_id=GUILD + 1)] == [c.id]
    assert [g.id for g in await store.list_games(limit=1)] == [a.id]
    assert {g.id for g in await store.games_of_user(ALICE)} == {a.id, c.id}
    await store.append(a.id, 2, [{"n": 3}], fold([{"n": 1}, {"n": 2}, {"n": 3}]), T0 + 80, status="finished")
    assert [g.id for g in await store.games_of_user(ALICE)] == [c.id]
    assert [g.id for g in await store.games_of_user(ALICE, active_only=False)] == [a.id, c.id]
    assert [g.id for g in await store.games_waiting_on(BOB)] == [b.id]


# ---------------------------------------------------------------- the outbox (duties)

W1, W2 = "worker-1", "worker-2"
LEASE = 30.0


def post(channel: int = CHANNEL, n: int = 0, due: float = T0) -> NewDuty:
    return NewDuty("post", due, channel, payload={"n": n})


async def test_duties_are_claimed_when_due_and_finished_once(store: GameStore) -> None:
    game = await started_game(store)
    [late] = await store.add_duties(
        game.id, [NewDuty("remind", T0 + 200, CHANNEL, ALICE, {"v": 1}, "remind")], T0
    )
    [early] = await store.add_duties(None, [NewDuty("dm", T0 + 100, None, BOB)], T0)
    assert (
        late.payload == {"v": 1} and late.created_at == T0 and late.guild_id == GUILD and late.key == "remind"
    )
    assert early.guild_id is None and early.done_at is None and early.attempts == 0
    assert await store.claim_duties(T0 + 99, W1, LEASE) == []
    claimed = await store.claim_duties(T0 + 100, W1, LEASE)
    assert [d.id for d in claimed] == [early.id]
    assert (
        claimed[0].lease_owner == W1
        and claimed[0].lease_until == T0 + 100 + LEASE
        and claimed[0].attempts == 1
    )
    assert await store.claim_duties(T0 + 101, W2, LEASE) == [], "leased"
    assert await store.finish_duty(early.id, W2, T0 + 102) is False, "not W2's lease"
    assert await store.finish_duty(early.id, W1, T0 + 102) is True
    assert await store.finish_duty(early.id, W1, T0 + 103) is False, "done once"
    assert [d.id for d in await store.claim_duties(T0 + 1000, W2, LEASE)] == [late.id]
    assert await store.pending_duties(None) == []


async def test_an_expired_lease_is_handed_out_again(store: GameStore) -> None:
    [duty] = await store.add_duties(None, [NewDuty("dm", T0, None, BOB)], T0)
    assert [d.id for d in await store.claim_duties(T0, W1, LEASE)] == [duty.id]
    assert await store.claim_duties(T0 + LEASE - 1, W2, LEASE) == []
    again = await store.claim_duties(T0 + LEASE, W2, LEASE)
    assert [(d.id, d.attempts, d.lease_owner) for d in again] == [(duty.id, 2, W2)]
    assert await store.finish_duty(duty.id, W1, T0 + LEASE + 1) is False, "W1 lost its lease"
    assert await store.finish_duty(duty.id, W2, T0 + LEASE + 1) is True


async def test_a_renewed_lease_outlives_its_first_term_and_only_its_holder_renews(store: GameStore) -> None:
    """A worker renews the leases of what it is still delivering: nobody else may take those duties,
    however long the delivery. Another worker renews nothing of them; a renewal never shortens a lease,
    and a duty done or taken over is no longer renewed."""
    a, b, c = await store.add_duties(None, [NewDuty("dm", T0, None, u) for u in (ALICE, BOB, CAROL)], T0)
    assert {d.id for d in await store.claim_duties(T0, W1, LEASE)} == {a.id, b.id, c.id}
    assert await store.renew_duties([a.id, b.id], W2, T0 + 10 * LEASE) == set(), "not W2's leases"
    assert await store.renew_duties([a.id, b.id], W1, T0 + LEASE + 20) == {a.id, b.id}
    assert await store.renew_duties([a.id], W1, T0 + 1) == {a.id}, "still held"
    assert await store.renew_duties([], W1, T0 + 1) == set()
    # Past the first term: the renewed ones stay W1's, the other is handed out again.
    again = await store.claim_duties(T0 + LEASE + 1, W2, LEASE)
    assert [d.id for d in again] == [c.id]
    assert await store.renew_duties([a.id, b.id, c.id], W1, T0 + LEASE + 30) == {a.id, b.id}, "c is W2's now"
    assert await store.finish_duty(a.id, W1, T0 + LEASE + 2) is True
    assert await store.finish_duty(c.id, W2, T0 + LEASE + 2) is True
    assert await store.renew_duties([a.id, b.id], W1, T0 + LEASE + 40) == {b.id}, "a is done"
    assert await store.claim_duties(T0 + LEASE + 39, W2, LEASE) == [], "b's lease runs to its renewal"
    assert [d.id for d in await store.claim_duties(T0 + LEASE + 40, W2, LEASE)] == [b.id]


async def test_a_retried_duty_waits_for_its_back_off_and_keeps_its_place(store: GameStore) -> None:
    game = await started_game(store)
    first, second = await store.add_duties(game.id, [post(n=1), post(n=2)], T0)
    [claimed] = await store.claim_duties(T0, W1, LEASE)
    assert claimed.id == first.id, "one at a time per channel"
    assert await store.retry_duty(first.id, W1, T0 + 60, "503 Service Unavailable") is True
    assert await store.claim_duties(T0 + 1, W1, LEASE) == [], "the second waits behind the first"
    assert await store.next_duty_at() == T0 + 60
    [again] = await store.claim_duties(T0 + 60, W1, LEASE)
    assert (again.id, again.attempts, again.last_error) == (first.id, 2, "503 Service Unavailable")
    assert await store.retry_duty(first.id, W2, T0 + 70, "x") is False, "not W2's lease"
    assert await store.finish_duty(first.id, W1, T0 + 61)
    assert [d.id for d in await store.claim_duties(T0 + 61, W1, LEASE)] == [second.id]


async def test_channels_are_delivered_in_order_and_side_by_side(store: GameStore) -> None:
    game = await started_game(store)
    other = await started_game(store, channel=CHANNEL + 1, players=(CAROL, DAVE))
    a1, a2 = await store.add_duties(game.id, [post(n=1), post(n=2)], T0)
    b1, b2 = await store.add_duties(other.id, [post(CHANNEL + 1, 1), post(CHANNEL + 1, 2)], T0)
    [dm1, dm2] = await store.add_duties(
        None, [NewDuty("dm", T0, None, ALICE), NewDuty("dm", T0, None, BOB)], T0
    )
    first = await store.claim_duties(T0, W1, LEASE)
    assert {d.id for d in first} == {a1.id, b1.id, dm1.id, dm2.id}, "the head of each channel; DMs unordered"
    for d in first:
        assert await store.finish_duty(d.id, W1, T0 + 1)
    assert {d.id for d in await store.claim_duties(T0 + 1, W1, LEASE)} == {a2.id, b2.id}


async def test_a_channel_orders_by_due_time_then_by_id(store: GameStore) -> None:
    game = await started_game(store)
    [timer] = await store.add_duties(game.id, [NewDuty("remind", T0 + 100, CHANNEL, ALICE, key="remind")], T0)
    [later_post] = await store.add_duties(game.id, [post(due=T0 + 50)], T0 + 50)
    assert [d.id for d in await store.claim_duties(T0 + 50, W1, LEASE)] == [later_post.id]
    assert await store.retry_duty(later_post.id, W1, T0 + 500, "timeout")
    # The reminder fell due after the post, so it waits until the post is delivered, back-off or not.
    assert await store.claim_duties(T0 + 200, W1, LEASE) == []
    assert [d.id for d in await store.claim_duties(T0 + 500, W1, LEASE)] == [later_post.id]
    assert await store.finish_duty(later_post.id, W1, T0 + 500)
    assert [d.id for d in await store.claim_duties(T0 + 500, W1, LEASE)] == [timer.id]


async def test_claims_respect_the_limit_and_racing_workers_share_without_overlap(store: GameStore) -> None:
    duties = await store.add_duties(None, [NewDuty("dm", T0 + i, None, i) for i in range(30)], T0)
    assert [d.id for d in await store.claim_duties(T0 + 100, W1, LEASE, limit=5)] == [
        d.id for d in duties[:5]
    ]
    batches = await asyncio.gather(*(store.claim_duties(T0 + 100, f"w{i}", LEASE, limit=7) for i in range(5)))
    ids = [d.id for batch in batches for d in batch]
    assert len(ids) == len(set(ids)) == 25


async def test_claims_keep_to_the_shards_of_the_process(store: GameStore) -> None:
    on_shard_1 = (1 << 22) * 5 + 1  # (id >> 22) % 4 == 1
    on_shard_2 = (1 << 22) * 6 + 7  # (id >> 22) % 4 == 2
    g1 = await store.create_game(on_shard_1, 501, ALICE, {}, T0)
    g2 = await store.create_game(on_shard_2, 502, ALICE, {}, T0)
    [d1] = await store.add_duties(g1.id, [post(501)], T0)
    [d2] = await store.add_duties(g2.id, [post(502)], T0)
    [dm] = await store.add_duties(None, [NewDuty("dm", T0, None, BOB)], T0)
    assert ShardSlice(4, (1,)).owns(on_shard_1) and not ShardSlice(4, (1,)).owns(on_shard_2)
    assert await store.next_duty_at(ShardSlice(4, (3,))) is None
    assert [d.id for d in await store.claim_duties(T0, W1, LEASE, shards=ShardSlice(4, (1, 3)))] == [d1.id]
    assert [d.id for d in await store.claim_duties(T0, W2, LEASE, shards=ShardSlice(4, (0, 2)))] == [
        d2.id,
        dm.id,
    ]


async def test_append_writes_duties_with_the_action_and_replaces_keyed_ones(store: GameStore) -> None:
    game = await started_game(store)
    await store.add_duties(game.id, [NewDuty("remind", T0 + 10, CHANNEL, ALICE, key="remind")], T0)
    keep = (await store.add_duties(game.id, [NewDuty("digest", T0 + 10, CHANNEL, key="digest")], T0))[0]
    game = await store.append(
        game.id,
        1,
        [{"n": 2}],
        fold([{"n": 1}, {"n": 2}]),
        T0 + 20,
        waiting_on=BOB,
        duties=[post(n=2), NewDuty("remind", T0 + 90, CHANNEL, BOB, {"game": 1}, "remind")],
    )
    pending = await store.pending_duties(game.id)
    assert [(d.kind, d.user_id, d.due_at, d.payload) for d in pending] == [
        ("post", None, T0, {"n": 2}),
        ("digest", None, T0 + 10, {}),
        ("remind", BOB, T0 + 90, {"game": 1}),
    ], "in delivery order; the new reminder replaced the old one (one pending duty per key)"
    assert pending[1] == keep
    with pytest.raises(VersionConflict):
        await store.append(game.id, 1, [{"n": 9}], {}, T0 + 21, duties=[post(n=9)])
    assert len(await store.pending_duties(game.id)) == 3, "a refused action writes no duty"
    game = await store.append(
        game.id, 2, [{"n": 3}], fold([{"n": 1}, {"n": 2}, {"n": 3}]), T0 + 25, cancel_keys={"digest"}
    )
    assert [d.kind for d in await store.pending_duties(game.id)] == ["post", "remind"]
    await store.append(
        game.id,
        3,
        [{"n": 4}],
        fold([{"n": 1}, {"n": 2}, {"n": 3}, {"n": 4}]),
        T0 + 30,
        status="finished",
        duties=[post(n=4)],
    )
    assert [d.payload for d in await store.pending_duties(game.id)] == [{"n": 2}, {"n": 4}], (
        "finishing drops the timers, keeps the posts"
    )
    assert await store.cancel_duties(game.id, ["nothing"]) == 0
    assert await store.cancel_duties(game.id) == 2
    assert await store.pending_duties(game.id) == []


async def test_add_duties_writes_meta_and_cancels_in_one_step(store: GameStore) -> None:
    game = await started_game(store)
    await store.add_duties(game.id, [NewDuty("deadline", T0 + 10, CHANNEL, ALICE, key="deadline")], T0)
    made = await store.add_duties(
        game.id, [post()], T0 + 1, cancel_keys=["deadline"], meta={"absent": [ALICE]}
    )
    assert [d.kind for d in await store.pending_duties(game.id)] == ["post"] == [d.kind for d in made]
    assert (await store.get_game_meta(game.id))["absent"] == [ALICE]
    with pytest.raises(GameNotFound):
        await store.add_duties(424242, [post()], T0)


async def test_pending_duties_of_one_kind_after_a_duty(store: GameStore) -> None:
    """The delivery worker asks whether a later edit of a turn post waits: only those are read."""
    game = await started_game(store)
    made = await store.add_duties(
        game.id,
        [post(), NewDuty("edit", T0, CHANNEL, payload={"since": 1}), post(), NewDuty("edit", T0, CHANNEL)],
        T0,
    )
    first_post, first_edit, _, last_edit = made
    assert await store.pending_duties(game.id, kind="edit") == [first_edit, last_edit]
    assert await store.pending_duties(game.id, kind="edit", after=first_edit.id) == [last_edit]
    assert await store.pending_duties(game.id, after=first_edit.id) == made[2:]
    assert await store.pending_duties(game.id, kind="edit", after=last_edit.id) == []
    assert await store.pending_duties(game.id) == made
    assert await store.pending_duties(None, kind="edit") == []
    assert first_post.kind == "post"


async def test_add_duties_at_a_version_writes_nothing_once_the_game_moved_on(store: GameStore) -> None:
    """A reminder replacing itself names the version it was planned from: a commit in between (the turn
    moved on, with its own reminder) wins, and nothing of the stale write lands."""
    game = await started_game(store)
    ours = NewDuty("remind", T0 + 10, CHANNEL, ALICE, key="remind", payload={"for": "alice"})
    await store.add_duties(game.id, [ours], T0, at_version=game.version)
    theirs = NewDuty("remind", T0 + 20, CHANNEL, BOB, key="remind", payload={"for": "bob"})
    moved = await store.append(
        game.id, game.version, [{"n": 1}], {"sum": 1}, T0 + 1, cancel_keys={"remind"}, duties=[theirs]
    )
    stale = NewDuty("remind", T0 + 30, CHANNEL, ALICE, key="remind", payload={"for": "alice, again"})
    with pytest.raises(VersionConflict) as raised:
        await store.add_duties(
            game.id, [stale], T0 + 2, cancel_keys=["remind"], meta={"x": 1}, at_version=game.version
        )
    assert (raised.value.expected, raised.value.actual) == (game.version, moved.version)
    assert [d.payload for d in await store.pending_duties(game.id)] == [{"for": "bob"}]
    assert "x" not in await store.get_game_meta(game.id)
    await store.add_duties(game.id, [stale], T0 + 2, cancel_keys=["remind"], at_version=moved.version)
    assert [d.payload for d in await store.pending_duties(game.id)] == [{"for": "alice, again"}]


async def test_meta_written_for_a_duty_only_while_its_worker_holds_it(store: GameStore) -> None:
    game = await started_game(store)
    await store.add_duties(game.id, [post()], T0)
    (duty,) = await store.claim_duties(T0 + 1, "A", 60)
    meta = await store.set_game_meta(game.id, {"turn_post": 1}, T0 + 2, leased=(duty.id, "A"))
    assert meta["turn_post"] == 1
    with pytest.raises(LeaseLost):
        await store.set_game_meta(game.id, {"turn_post": 2}, T0 + 3, leased=(duty.id, "B"))
    (again,) = await store.claim_duties(T0 + 100, "B", 60)  # A's lease ran out: B took the duty over
    assert again.id == duty.id
    with pytest.raises(LeaseLost):
        await store.set_game_meta(game.id, {"turn_post": 3}, T0 + 101, leased=(duty.id, "A"))
    assert await store.finish_duty(duty.id, "B", T0 + 102)
    with pytest.raises(LeaseLost):  # done: nobody writes for it any more
        await store.set_game_meta(game.id, {"turn_post": 4}, T0 + 103, leased=(duty.id, "B"))
    assert (await store.get_game_meta(game.id))["turn_post"] == 1


async def test_abandoning_drops_timers_and_adds_its_duties(store: GameStore) -> None:
    game = await started_game(store)
    await store.add_duties(game.id, [NewDuty("remind", T0 + 10, CHANNEL, ALICE, key="remind"), post(n=1)], T0)
    await store.abandon_game(game.id, T0 + 5, duties=[post(n=2)])
    assert [d.payload for d in await store.pending_duties(game.id)] == [{"n": 1}, {"n": 2}]
    await store.abandon_game(game.id, T0 + 6, duties=[post(n=3)])
    assert len(await store.pending_duties(game.id)) == 2, "abandoning twice changes nothing"


async def test_purging_done_duties_keeps_undone_ones(store: GameStore) -> None:
    old, recent, undone = await store.add_duties(
        None, [NewDuty("dm", T0, None, 1), NewDuty("dm", T0, None, 2), NewDuty("dm", T0 + 5000, None, 3)], T0
    )
    await store.claim_duties(T0, W1, LEASE)
    assert await store.finish_duty(old.id, W1, T0 + 10)
    assert await store.finish_duty(recent.id, W1, T0 + 100, outcome="failed: 403 Forbidden")
    assert await store.purge_done_duties(T0 + 50) == 1
    assert await store.finish_duty(recent.id, W1, T0 + 200) is False, "still known as done"
    assert await store.purge_done_duties(T0 + 1000) == 1
    assert [d.id for d in await store.pending_duties(None)] == [undone.id]


async def test_a_duty_id_is_never_used_again(store: GameStore) -> None:
    """A duty's id is the nonce of its message: a new duty must never take the id of one deleted."""
    game = await started_game(store)
    [first] = await store.add_duties(game.id, [NewDuty("remind", T0, CHANNEL, ALICE, key="remind")], T0)
    [second] = await store.add_duties(game.id, [NewDuty("remind", T0, CHANNEL, ALICE, key="remind")], T0)
    assert second.id > first.id and [d.id for d in await store.pending_duties(game.id)] == [second.id]
    await store.cancel_duties(game.id)
    [third] = await store.add_duties(game.id, [post()], T0)
    assert third.id > second.id


async def test_duties_survive_a_restart(backend: Backend) -> None:
    store = await backend.open()
    [duty] = await store.add_duties(None, [NewDuty("dm", T0 + 1, None, ALICE, {"x": "é"})], T0)
    await store.claim_duties(T0 + 1, W1, LEASE)
    await store.close()
    again = await backend.open()
    [back] = await again.claim_duties(T0 + 1 + LEASE, W2, LEASE)
    assert (back.id, back.payload, back.attempts) == (duty.id, {"x": "é"}, 2)


# ---------------------------------------------------------------- user settings


async def test_user_settings(store: GameStore) -> None:
    assert await store.get_user_settings(ALICE) == {}
    await store.set_user_settings(ALICE, {"remind_every_h": 12, "quiet": [22, 7], "tz": "UTC"}, T0)
    assert await store.get_user_settings(ALICE) == {"remind_every_h": 12, "quiet": [22, 7], "tz": "UTC"}
    merged = await store.update_user_settings(ALICE, {"tz": "Asia/Tokyo", "quiet": None}, T0 + 1)
    assert merged == {"remind_every_h": 12, "tz": "Asia/Tokyo"}
    assert await store.get_user_settings(ALICE) == merged
    await store.set_user_settings(ALICE, {"x": 1}, T0 + 2)
    assert await store.get_user_settings(ALICE) == {"x": 1}
    assert await store.update_user_settings(BOB, {"x": 2}, T0) == {"x": 2}
    assert await store.get_user_settings(BOB) == {"x": 2}


# ---------------------------------------------------------------- export and import


async def full_game(store: GameStore) -> GameRecord:
    game = await started_game(store, players=(ALICE, BOB, CAROL))
    log: list[dict[str, Any]] = [{"n": 1}]
    for k in range(2, 7):
        log.append({"n": k, "text": "ἀλέξανδρος ✓"})
        game = await store.append(
            game.id,
            game.version,
            [log[-1]],
            fold(log),
            T0 + k,
            waiting_on=BOB,
            duties=[NewDuty("remind", T0 + 100 + k, CHANNEL, BOB, {"k": k}, "remind"), post(n=k)],
        )
    [done] = await store.add_duties(game.id, [NewDuty("digest", T0 + 1, CHANNEL)], T0)
    await store.claim_duties(T0 + 100, W1, LEASE, limit=1)
    await store.finish_duty(done.id, W1, T0 + 2)
    return game


async def test_export_import_round_trip(store: GameStore, make_backend: Callable[[], Backend]) -> None:
    game = await full_game(store)
    exported = await store.export_game(game.id)
    assert json.loads(json.dumps(exported)) == exported, "exports are plain JSON"
    other = await make_backend().open()
    imported = await other.import_game(json.loads(json.dumps(exported)))
    assert imported == game
    assert await other.events(game.id) == await store.events(game.id)
    assert await other.load_snapshot(game.id) == await store.load_snapshot(game.id)
    assert await other.export_game(game.id) == exported
    assert await other.integrity_check()
    # The imported game goes on where it stopped.
    version, state = await other.load_snapshot(game.id) or (0, {})
    after = await other.append(game.id, version, [{"n": 1}], {"sum": state["sum"] + 1, "count": 7}, T0 + 99)
    assert after.version == 7
    await check_log(other, game.id)


async def test_import_refuses_clashes_and_can_replace(store: GameStore) -> None:
    game = await full_game(store)
    exported = await store.export_game(game.id)
    with pytest.raises(GameExists):
        await store.import_game(exported)
    with pytest.raises(ChannelBusy):
        await store.import_game(exported, keep_id=False)
    # Repair: drop the last event and step the snapshot back, then replace the stored game.
    repaired = json.loads(json.dumps(exported))
    repaired["events"].pop()
    repaired["game"]["version"] = 5
    repaired["snapshot"] = {"version": 5, "body": fold([e["body"] for e in repaired["events"]])}
    fixed = await store.import_game(repaired, replace=True)
    assert fixed.id == game.id and fixed.version == 5
    await check_log(store, game.id)
    assert len(await store.list_games()) == 1
    assert await store.integrity_check()
    # A finished copy may live beside it under a new id.
    history = json.loads(json.dumps(exported))
    history["game"]["status"] = "finished"
    copy = await store.import_game(history, keep_id=False)
    assert copy.id != game.id and copy.status == "finished" and copy.version == 6
    await check_log(store, copy.id)


@pytest.mark.parametrize(
    "damage",
    [
        lambda d: d["events"].pop(2),
        lambda d: d["events"].append({"version": 7, "created_at": 0, "body": {"n": 1}}),
        lambda d: d["snapshot"].update(version=5),
        lambda d: d.update(snapshot=None),
        lambda d: d["seats"].append([0, 99]),
        lambda d: d["game"].update(status="paused"),
        lambda d: d.update(format="other"),
        lambda d: d["game"].pop("channel_id"),
    ],
)
async def test_import_rejects_broken_exports(
    store: GameStore, make_backend: Callable[[], Backend], damage: Callable[[dict[str, Any]], object]
) -> None:
    game = await full_game(store)
    exported = await store.export_game(game.id)
    damage(exported)
    other = await make_backend().open()
    with pytest.raises(InvalidGameData):
        await other.import_game(exported)
    assert await other.list_games() == []


# ---------------------------------------------------------------- integrity


async def test_integrity_check_passes_on_a_used_store(store: GameStore) -> None:
    await full_game(store)
    report = await store.integrity_check()
    assert report.ok and bool(report) and str(report) == "ok"


async def test_times_come_back_as_floats_from_every_write(store: GameStore) -> None:
    """A whole-number time written came back as an int from SQLite's RETURNING, a float elsewhere."""
    game = await store.create_game(GUILD, CHANNEL, ALICE, {}, 200.0, seats=[(0, ALICE)])
    after = await store.append(game.id, 0, [{"n": 1}], {"n": 1}, 300.0, waiting_on=ALICE)
    assert [type(x) for x in (after.created_at, after.updated_at)] == [float, float]
    await store.add_duties(game.id, [post(due=300.0)], 300.0)
    (duty,) = await store.claim_duties(400.0, "A", 60.0)
    assert [type(x) for x in (duty.due_at, duty.created_at, duty.lease_until)] == [float, float, float]


# ---------------------------------------------------------------- game metadata and history


async def test_game_meta_merges_deletes_and_survives_finishing(store: GameStore) -> None:
    game = await started_game(store)
    assert await store.get_game_meta(game.id) == {}
    meta = await store.set_game_meta(game.id, {"turn_message": 555, "agreed": [ALICE]}, T0 + 3)
    assert meta == {"turn_message": 555, "agreed": [ALICE]}
    meta = await store.set_game_meta(game.id, {"agreed": None, "nudged_at": T0 + 3}, T0 + 4)
    assert meta == {"turn_message": 555, "nudged_at": T0 + 3}
    await store.append(game.id, 1, [{"n": 2}], fold([{"n": 1}, {"n": 2}]), T0 + 5, status="finished")
    assert await store.get_game_meta(game.id) == meta  # history keeps its bookkeeping
    other = await started_game(store, channel=CHANNEL + 1)
    assert await store.get_game_meta(other.id) == {}
    with pytest.raises(GameNotFound):
        await store.set_game_meta(99999, {"x": 1}, T0)


async def test_append_writes_meta_in_the_same_transaction(store: GameStore) -> None:
    game = await started_game(store)
    await store.append(game.id, 1, [{"n": 2}], fold([{"n": 1}, {"n": 2}]), T0 + 3, meta={"turn_message": 7})
    assert await store.get_game_meta(game.id) == {"turn_message": 7}
    with pytest.raises(VersionConflict):  # a refused write changes no metadata either
        await store.append(game.id, 1, [{"n": 9}], fold([{"n": 9}]), T0 + 4, meta={"turn_message": 8})
    assert await store.get_game_meta(game.id) == {"turn_message": 7}


async def test_latest_game_in_channel_includes_finished_games(store: GameStore) -> None:
    assert await store.latest_game_in_channel(CHANNEL) is None
    first = await started_game(store)
    assert await store.latest_game_in_channel(CHANNEL) == await store.game_by_id(first.id)
    done = await store.append(first.id, 1, [{"n": 2}], fold([{"n": 1}, {"n": 2}]), T0 + 3, status="finished")
    assert await store.game_by_channel(CHANNEL) is None
    assert await store.latest_game_in_channel(CHANNEL) == done
    later = await store.create_game(GUILD, CHANNEL, BOB, {}, T0 + 10)
    assert await store.latest_game_in_channel(CHANNEL) == later
    # The newest started one: the finished game, not the lobby opened after it (replays).
    assert await store.latest_game_in_channel(CHANNEL, started=True) == done
    assert await store.latest_game_in_channel(CHANNEL + 1, started=True) is None


async def test_export_carries_meta_and_old_exports_still_import(store: GameStore) -> None:
    game = await started_game(store)
    await store.set_game_meta(game.id, {"turn_message": 42}, T0 + 3)
    data = await store.export_game(game.id)
    assert data["meta"] == {"turn_message": 42}
    again = await store.import_game(data, replace=True)
    assert await store.get_game_meta(again.id) == {"turn_message": 42}
    old = {k: v for k, v in data.items() if k != "meta"} | {"format_version": 1}
    moved = await store.import_game(old | {"game": data["game"] | {"channel_id": CHANNEL + 5}}, keep_id=False)
    assert await store.get_game_meta(moved.id) == {}


# ---------------------------------------------------------------- ratings per server (issue 16)
def _plus_one(guild: int, won: int) -> Any:
    """A stand-in rating function: every rated user gains 1 mu; ``won`` counts a win."""
    from storage import PlayerRating

    def rate(current: Any) -> list[PlayerRating]:
        out = []
        for user, r in current.items():
            base = r or PlayerRating(guild, user, 25.0, 8.0)
            wins = base.wins + (user == won)
            out.append(PlayerRating(guild, user, base.mu + 1, base.sigma * 0.9, base.games + 1, wins))
        return out

    return rate


async def test_rate_game_rates_a_game_once_and_keeps_servers_apart(store: GameStore) -> None:
    assert await store.ratings(GUILD) == [] and await store.rating_of(GUILD, ALICE) is None
    assert await store.rate_game(7, GUILD, [ALICE, BOB], _plus_one(GUILD, ALICE), T0)
    assert not await store.rate_game(7, GUILD, [ALICE, BOB], _plus_one(GUILD, ALICE), T0 + 1), "rated once"
    assert await store.rate_game(8, GUILD, [ALICE, CAROL], _plus_one(GUILD, CAROL), T0 + 2)
    assert await store.rate_game(9, GUILD + 1, [ALICE, BOB], _plus_one(GUILD + 1, BOB), T0 + 3)
    alice = await store.rating_of(GUILD, ALICE)
    assert alice is not None and (alice.mu, alice.games, alice.wins) == (27.0, 2, 1)
    assert alice.updated_at == T0 + 2
    board = await store.ratings(GUILD)
    assert [r.user_id for r in board] == [ALICE, BOB, CAROL]  # best ordinal first, then more games
    assert [r.user_id for r in await store.ratings(GUILD, limit=1)] == [ALICE]
    assert await store.rated_games(GUILD) == [7, 8] and await store.rated_games(GUILD + 1) == [9]
    other = await store.rating_of(GUILD + 1, ALICE)
    assert other is not None and other.games == 1 and other.wins == 0


async def test_rate_game_writes_nothing_when_the_rating_function_fails(store: GameStore) -> None:
    def broken(current: Any) -> list[Any]:
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        await store.rate_game(7, GUILD, [ALICE, BOB], broken, T0)
    assert await store.rated_games(GUILD) == [] and await store.ratings(GUILD) == []
    assert await store.rate_game(7, GUILD, [ALICE, BOB], _plus_one(GUILD, BOB), T0 + 1)


async def test_concurrent_ratings_of_one_server_lose_no_update(store: GameStore) -> None:
    results = await asyncio.gather(
        *(store.rate_game(100 + i, GUILD, [ALICE, BOB], _plus_one(GUILD, ALICE), T0 + i) for i in range(8)),
        store.rate_game(100, GUILD, [ALICE, BOB], _plus_one(GUILD, ALICE), T0),
    )
    assert sorted(results) == [False] + [True] * 8
    alice = await store.rating_of(GUILD, ALICE)
    assert alice is not None and alice.games == 8 and alice.mu == 33.0


async def test_replace_ratings_replaces_one_server(store: GameStore) -> None:
    from storage import PlayerRating

    await store.rate_game(7, GUILD, [ALICE, BOB], _plus_one(GUILD, ALICE), T0)
    await store.rate_game(9, GUILD + 1, [ALICE, BOB], _plus_one(GUILD + 1, BOB), T0)
    new = [PlayerRating(GUILD, CAROL, 30.0, 5.0, 3, 2), PlayerRating(GUILD, DAVE, 20.0, 5.0, 3, 1)]
    await store.replace_ratings(GUILD, new, [7, 8, 10], T0 + 5)
    assert [(r.user_id, r.mu, r.games, r.wins, r.updated_at) for r in await store.ratings(GUILD)] == [
        (CAROL, 30.0, 3, 2, T0 + 5),
        (DAVE, 20.0, 3, 1, T0 + 5),
    ]
    assert await store.rated_games(GUILD) == [7, 8, 10]
    assert await store.rated_games(GUILD + 1) == [9] and len(await store.ratings(GUILD + 1)) == 2
    assert not await store.rate_game(8, GUILD, [ALICE], _plus_one(GUILD, ALICE), T0 + 6)


# ---------------------------------------------------------------- users' data (issue 11)

FORMER = -4242


async def finished_game(store: GameStore, channel: int, players: tuple[int, ...], at: float) -> GameRecord:
    game = await store.create_game(
        GUILD,
        channel,
        players[0],
        {"names": {str(p): f"name{p}" for p in players}, "creator": f"name{players[0]}"},
        at,
    )
    for user in players:
        game = await store.join_seat(game.id, user, at)
    game = await store.append(
        game.id, 0, [{"n": 1}], fold([{"n": 1}]), at, status="playing", waiting_on=players[0]
    )
    await store.set_game_meta(game.id, {"agreed": list(players), "turn_post": 99}, at)
    return await store.append(
        game.id,
        1,
        [{"n": 2}],
        fold([{"n": 1}, {"n": 2}]),
        at,
        status="finished",
        waiting_on=None,
        duties=[
            NewDuty(
                "post", at, channel, payload={"names": [f"name{p}" for p in players], "ping": list(players)}
            )
        ],
    )


async def test_forget_user_pseudonymises_finished_games_and_deletes_settings(store: GameStore) -> None:
    one = await finished_game(store, CHANNEL, (ALICE, BOB), T0)
    two = await finished_game(store, CHANNEL + 1, (CAROL, ALICE), T0)
    other = await finished_game(store, CHANNEL + 2, (BOB, CAROL), T0)
    await store.set_user_settings(ALICE, {"hours": 3}, T0)
    await store.set_user_settings(BOB, {"hours": 5}, T0)
    events_before = [await store.events(g.id) for g in (one, two)]
    snaps_before = [await store.load_snapshot(g.id) for g in (one, two)]
    assert await store.rate_game(one.id, GUILD, [ALICE, BOB], _plus_one(GUILD, ALICE), T0)

    report = await store.forget_user(ALICE, FORMER, T0 + 10)
    assert report.games == 2 and report.settings
    # Their rating goes (a recomputation rates nobody for a pseudonym); the others' stays.
    assert await store.rating_of(GUILD, ALICE) is None
    assert [r.user_id for r in await store.ratings(GUILD)] == [BOB]

    one_after, two_after = await store.game_by_id(one.id), await store.game_by_id(two.id)
    assert one_after is not None and two_after is not None
    # The same pseudonym in every game, in the seat the user had; everybody else as they were.
    assert one_after.seats == ((0, FORMER), (1, BOB)) and two_after.seats == ((0, CAROL), (1, FORMER))
    assert one_after.created_by == FORMER and two_after.created_by == CAROL
    assert one_after.options["names"] == {str(FORMER): "former player 1", str(BOB): f"name{BOB}"}
    assert one_after.options["creator"] == "former player 1"
    assert two_after.options["names"] == {str(CAROL): f"name{CAROL}", str(FORMER): "former player 2"}
    assert two_after.options["creator"] == f"name{CAROL}"
    assert one_after.version == one.version and one_after.status == "finished"
    assert one_after.updated_at == one.updated_at  # a forgotten user does not make the game look recent
    # The record still holds together: events and snapshots untouched.
    assert [await store.events(g.id) for g in (one, two)] == events_before
    assert [await store.load_snapshot(g.id) for g in (one, two)] == snaps_before
    assert (await store.get_game_meta(one.id))["agreed"] == [FORMER, BOB]
    # Nothing left naming the user: settings, seats, games, outbox.
    assert await store.get_user_settings(ALICE) == {}
    assert await store.get_user_settings(BOB) == {"hours": 5}
    assert await store.games_of_user(ALICE, active_only=False) == []
    assert {g.id for g in await store.games_of_user(FORMER, active_only=False)} == {one.id, two.id}
    for game in (one, two):
        for duty in await store.pending_duties(game.id):
            assert ALICE not in duty.payload.get("ping", []) and f"name{ALICE}" not in duty.payload["names"]
    other_after = await store.game_by_id(other.id)
    assert other_after == other
    assert await store.integrity_check()


MODERATOR, MOD_NAME = 987_654_321_012, "Zyxmod"


async def every_row(backend: Backend) -> str:
    """Every row of every table of the backend's database, as text, read past the store."""
    if isinstance(backend, SqliteBackend):
        conn = sqlite3.connect(backend.path)
        try:
            tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            return repr([(t, conn.execute(f"SELECT * FROM {t}").fetchall()) for t in tables])
        finally:
            conn.close()
    assert isinstance(backend, PostgresBackend)
    pg = await asyncpg.connect(backend.url)
    try:
        tables = await pg.fetch(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
        )
        out = [await pg.fetch(f"SELECT row_to_json(t)::text FROM {r[0]} t") for r in tables]
        return repr([[tuple(row) for row in rows] for rows in out])
    finally:
        await pg.close()


async def test_forget_user_removes_a_moderator_who_held_no_seat_from_every_record(
    backend: Backend,
) -> None:
    """Issue 27: a moderator who paused a game and offered a seat, without holding one, is named in the
    game's options, its seat offers and its posts (delivered and pending, and one outside any game). After
    forget_user no row of any table names her, by id or by name; the game and everyone else stay."""
    store = await backend.open()
    game = await started_game(store, players=(ALICE, BOB))
    game = await store.amend(
        game.id, game.version, T0 + 3, options={**game.options, "paused": {"by": MODERATOR, "at": T0 + 3}}
    )
    await store.set_game_meta(game.id, {"seat_offers": {"1": [BOB, DAVE, MODERATOR]}}, T0 + 3)
    said = f"\u23f8 {MOD_NAME} paused the game."
    await store.add_duties(game.id, [NewDuty("post", T0 + 3, CHANNEL, payload={"text": said})], T0 + 3)
    await store.add_duties(None, [NewDuty("post", T0 + 3, CHANNEL + 9, payload={"text": said})], T0 + 3)
    for duty in await store.claim_duties(T0 + 4, "A", 60):
        assert await store.finish_duty(duty.id, "A", T0 + 5)
    resumed = f"\u25b6 {MOD_NAME} resumed the game. <@{ALICE}>, it is your turn again."
    await store.add_duties(
        game.id, [NewDuty("post", T0 + 10, CHANNEL, payload={"text": resumed, "ping": [ALICE]})], T0 + 6
    )
    before = await every_row(backend)
    assert MOD_NAME in before and str(MODERATOR) in before

    report = await store.forget_user(MODERATOR, FORMER, T0 + 10, names=[MOD_NAME])
    assert report.games == 0 and report.named == 1 and not report.settings
    after = await every_row(backend)
    assert MOD_NAME not in after and str(MODERATOR) not in after
    # Through the store: the pause and the offer stand, by the pseudonym; the players are untouched.
    record = await store.game_by_id(game.id)
    assert record is not None and record.seats == game.seats and record.status == "playing"
    assert record.options["paused"] == {"by": FORMER, "at": T0 + 3}
    assert (await store.get_game_meta(game.id))["seat_offers"] == {"1": [BOB, DAVE, FORMER]}
    (pending,) = await store.pending_duties(game.id)
    assert pending.payload == {
        "text": f"\u25b6 a former player resumed the game. <@{ALICE}>, it is your turn again.",
        "ping": [ALICE],
    }
    assert str(ALICE) in after and str(BOB) in after
    assert await store.integrity_check()


async def test_a_duty_error_or_outcome_with_a_nul_character_is_kept_without_it(store: GameStore) -> None:
    """An exception's words may hold a NUL: PostgreSQL's text refused it (not as a StoreError), SQLite kept
    it. Both keep the text without it."""
    game = await started_game(store)
    await store.add_duties(game.id, [post(), post(channel=CHANNEL + 1)], T0)
    first, second = await store.claim_duties(T0 + 1, "A", 60)
    assert await store.retry_duty(first.id, "A", T0 + 2, "bad\x00 answer")
    assert await store.finish_duty(second.id, "A", T0 + 3, "sent\x00 1")
    (again,) = [d for d in await store.pending_duties(game.id) if d.id == first.id]
    assert again.last_error == "bad answer"


async def test_meta_refuses_what_is_not_json(store: GameStore) -> None:
    """NaN is not JSON: accepted in a game's metadata, it made every later forget of that game's players
    fail, and a moved copy differ from its original."""
    game = await store.create_game(GUILD, CHANNEL, ALICE, {}, T0)
    with pytest.raises(ValueError):
        await store.set_game_meta(game.id, {"t": float("nan")}, T0)
    assert await store.get_game_meta(game.id) == {}


async def test_forget_user_refuses_while_seated_in_an_unfinished_game(store: GameStore) -> None:
    from storage import StillSeated

    done = await finished_game(store, CHANNEL, (ALICE, BOB), T0)
    playing = await started_game(store, CHANNEL + 1, (BOB, ALICE))
    lobby = await store.create_game(GUILD, CHANNEL + 2, CAROL, {}, T0)
    await store.join_seat(lobby.id, ALICE, T0)
    await store.set_user_settings(ALICE, {"hours": 3}, T0)
    with pytest.raises(StillSeated) as err:
        await store.forget_user(ALICE, FORMER, T0 + 10)
    assert set(err.value.game_ids) == {playing.id, lobby.id}
    # Nothing changed.
    assert await store.get_user_settings(ALICE) == {"hours": 3}
    assert await store.game_by_id(done.id) == done
    await store.leave_seat(lobby.id, ALICE, T0 + 20)
    await store.append(
        playing.id, playing.version, [{"n": 1}], fold([{"n": 1}, {"n": 1}]), T0 + 20, status="finished"
    )
    report = await store.forget_user(ALICE, FORMER, T0 + 30)
    assert report.games == 2 and await store.get_user_settings(ALICE) == {}
    with pytest.raises(ValueError):
        await store.forget_user(BOB, 5, T0)  # a pseudonym is never a possible Discord id


async def test_purge_games_deletes_old_finished_and_abandoned_games_of_one_server(store: GameStore) -> None:
    old = await finished_game(store, CHANNEL, (ALICE, BOB), T0)
    recent = await finished_game(store, CHANNEL + 1, (ALICE, BOB), T0 + 100)
    abandoned = await store.create_game(GUILD, CHANNEL + 2, ALICE, {}, T0)
    abandoned = await store.abandon_game(abandoned.id, T0)
    playing = await started_game(store, CHANNEL + 3)  # old, but in play: never purged
    elsewhere = await store.create_game(GUILD + 1, CHANNEL + 4, ALICE, {}, T0)
    elsewhere = await store.abandon_game(elsewhere.id, T0)
    await store.create_game(GUILD, CHANNEL + 5, BOB, {}, T0 + 100)  # the newest game: a lobby

    assert await store.purge_games(T0 + 50, guild_id=GUILD) == 2
    assert await store.game_by_id(old.id) is None and await store.game_by_id(abandoned.id) is None
    assert await store.events(old.id) == []
    assert await store.pending_duties(old.id) == [] and await store.get_game_meta(old.id) == {}
    assert await store.game_by_id(recent.id) == recent
    assert await store.game_by_id(playing.id) == playing
    assert await store.game_by_id(elsewhere.id) == elsewhere
    assert await store.purge_games(T0 + 50) == 1  # every server (the host's CLI)
    assert await store.game_by_id(elsewhere.id) is None
    assert await store.integrity_check()


async def test_a_purged_game_id_is_never_given_again(store: GameStore) -> None:
    """Old buttons carry a game's id: after a purge, a new game must not answer to a purged one's id."""
    games = [await finished_game(store, CHANNEL + i, (ALICE, BOB), T0) for i in range(3)]
    purged = await store.purge_games(T0 + 50)
    assert purged >= 2  # SQLite keeps the newest row of all, so that its id is not handed out again
    gone = {g.id for g in games if await store.game_by_id(g.id) is None}
    assert len(gone) == purged
    fresh = await store.create_game(GUILD, CHANNEL + 9, ALICE, {}, T0 + 60)
    assert fresh.id > max(g.id for g in games)


# ---------------------------------------------------------------- maps of lean snapshots (issue 12)


def lean(n: int, digest: str = "d1") -> dict[str, Any]:
    """A stand-in lean snapshot: it names its map by (name, digest) instead of carrying it."""
    return {"lean": 1, "map": ["small", digest], "sum": n}


async def test_a_map_is_stored_once_with_the_action_and_read_by_digest(store: GameStore) -> None:
    game = await started_game(store)
    assert await store.get_map("d1") is None
    game = await store.append(
        game.id, game.version, [{"n": 1}], lean(2), T0 + 3, maps=[("d1", "small", "TEXT")]
    )
    assert await store.get_map("d1") == ("small", "TEXT")
    # A second writer of the same map (another game, or a process that did not know) changes nothing.
    other = await started_game(store, channel=CHANNEL + 1)
    await store.append(other.id, other.version, [{"n": 1}], lean(2), T0 + 4, maps=[("d1", "small", "OTHER")])
    assert await store.get_map("d1") == ("small", "TEXT")
    assert await store.load_snapshot(game.id) == (game.version, lean(2))


async def test_the_map_is_written_in_the_action_transaction(store: GameStore) -> None:
    game = await started_game(store)
    with pytest.raises(VersionConflict):
        await store.append(game.id, game.version + 5, [{"n": 1}], lean(2), T0 + 3, maps=[("d9", "x", "T")])
    assert await store.get_map("d9") is None, "a refused action stores no map"


async def test_an_export_carries_the_map_its_lean_snapshot_names(
    store: GameStore, make_backend: Callable[[], Backend]
) -> None:
    game = await started_game(store)
    game = await store.append(
        game.id, game.version, [{"n": 1}], lean(2), T0 + 3, maps=[("d1", "small", "TEXT")]
    )
    exported = await store.export_game(game.id)
    assert exported["maps"] == [{"digest": "d1", "name": "small", "text": "TEXT"}]
    other = await make_backend().open()
    await other.import_game(json.loads(json.dumps(exported)))
    assert await other.get_map("d1") == ("small", "TEXT")
    assert await other.load_snapshot(game.id) == (game.version, lean(2))
    assert await other.export_game(game.id) == exported
    # An export whose lean snapshot's map is missing is refused (the game could never load).
    third = await make_backend().open()
    with pytest.raises(InvalidGameData):
        await third.import_game({**exported, "maps": []})
    # Old snapshots (no map reference) export no map, as before.
    fat = await started_game(store, channel=CHANNEL + 2)
    assert (await store.export_game(fat.id))["maps"] == []


async def test_exclusive_has_one_holder_across_processes(backend: Backend) -> None:
    # Two stores on one database stand for two processes (e.g. two bots that could sync the commands).
    first = await backend.open()
    second = await backend.open()
    async with first.exclusive("command-sync") as mine:
        assert mine
        async with second.exclusive("command-sync") as theirs:
            assert not theirs, "a second holder while the first holds it"
        async with first.exclusive("command-sync") as again:
            assert not again, "the same process may not take it twice either"
        async with second.exclusive("something-else") as other:
            assert other, "names are independent"
    async with second.exclusive("command-sync") as now_theirs:
        assert now_theirs, "released when the block ends"
        async with first.exclusive("command-sync") as not_mine:
            assert not not_mine


async def test_exclusive_is_released_when_its_holder_goes(backend: Backend) -> None:
    first = await backend.open()
    second = await backend.open()
    with pytest.raises(RuntimeError):
        async with first.exclusive("command-sync") as mine:
            assert mine
            raise RuntimeError("the sync failed")
    async with second.exclusive("command-sync") as theirs:
        assert theirs, "an error inside the block releases it"
    holding = first.exclusive("command-sync")
    assert await holding.__aenter__()
    await first.close()  # the holder's process ends without leaving the block
    for _ in range(100):  # the server notices the dropped connection within moments
        async with second.exclusive("command-sync") as theirs:
            if theirs:
                break
        await asyncio.sleep(0.05)
    assert theirs, "the holder's end releases it"
    await holding.__aexit__(None, None, None)  # the block's end after its store closed changes nothing


async def _duty_rows(backend: Backend) -> dict[int, tuple[str, Any, Any, Any, Any]]:
    """Every duty row as stored: id -> (kind, payload text, lease_owner, done_at, outcome)."""
    if backend.name == "sqlite":
        import sqlite3

        conn = sqlite3.connect(backend.path)  # type: ignore[attr-defined]
        try:
            rows = conn.execute(
                "SELECT id, kind, payload, lease_owner, done_at, outcome FROM duties"
            ).fetchall()
        finally:
            conn.close()
    else:
        import asyncpg

        pg = await asyncpg.connect(backend.url)  # type: ignore[attr-defined]
        try:
            rows = [
                tuple(r)
                for r in await pg.fetch("SELECT id, kind, payload, lease_owner, done_at, outcome FROM duties")
            ]
        finally:
            await pg.close()
    return {int(r[0]): (r[1], r[2], r[3], r[4], r[5]) for r in rows}


async def test_a_delivered_duty_keeps_its_id_kind_times_and_outcome_not_its_payload(
    backend: Backend,
) -> None:
    """Issue 32: a done duty's payload (a post's text and picture state, 2 KB) is dropped when it is
    finished, with its routing and the worker's name; its id (the nonce), kind, times and outcome stay. A
    pending one keeps its payload whole."""
    store = await backend.open()
    big = {"text": "x" * 2000, "public": "{}" * 500}
    sent, waiting = await store.add_duties(
        None, [NewDuty("post", T0, 5, payload=big), NewDuty("post", T0 + 500, 6, payload=big)], T0
    )
    [claimed] = await store.claim_duties(T0 + 1, W1, LEASE)
    assert claimed.payload == big, "the worker reads the whole payload while the duty is pending"
    assert await store.finish_duty(sent.id, W1, T0 + 2, "sent 1234") is True
    rows = await _duty_rows(backend)
    kind, payload, owner, done_at, outcome = rows[sent.id]
    assert (kind, json.loads(payload), owner, done_at, outcome) == ("post", {}, None, T0 + 2, "sent 1234")
    assert json.loads(rows[waiting.id][1]) == big
    assert [d.payload for d in await store.pending_duties(None)] == [big]
    await backend.close_all()


# ---------------------------------------------------------------- a lean database (issue 32)


async def raw(backend: Backend, sql: str) -> list[tuple[Any, ...]]:
    """Rows read past the store (``sql`` has no arguments, and reads alike in both backends)."""
    if isinstance(backend, SqliteBackend):
        with contextlib.closing(sqlite3.connect(backend.path)) as conn:
            return conn.execute(sql).fetchall()
    assert isinstance(backend, PostgresBackend)
    pg = await asyncpg.connect(backend.url)
    try:
        return [tuple(r) for r in await pg.fetch(sql)]
    finally:
        await pg.close()


async def deliver(store: GameStore, at: float) -> list[int]:
    """Claim and finish every due duty as the worker does; their ids."""
    done: list[int] = []
    while claimed := await store.claim_duties(at, W1, LEASE):
        for duty in claimed:
            assert await store.finish_duty(duty.id, W1, at + 1, f"sent {duty.id}")
            done.append(duty.id)
    return done


async def played(store: GameStore, channel: int = CHANNEL) -> GameRecord:
    """A game in play at version 5, each action with a post, every post delivered."""
    game = await started_game(store, channel)
    log: list[dict[str, Any]] = [{"n": 1}]
    for k in range(2, 6):
        log.append({"n": k, "text": "ἀλέξανδρος ✓"})
        game = await store.append(game.id, k - 1, [log[-1]], fold(log), T0 + k, duties=[post(channel, k)])
    await deliver(store, T0 + 10)
    return game


async def end(store: GameStore, game: GameRecord) -> GameRecord:
    """The game's last action: it finishes, with an end post."""
    log = [e for _, e in await store.events(game.id)] + [{"n": 9}, {"n": 10}]
    return await store.append(
        game.id, game.version, log[-2:], fold(log), T0 + 20, status="finished", duties=[post(game.channel_id)]
    )


async def test_a_game_over_keeps_its_events_and_delivery_log_packed_and_reads_them_back(
    backend: Backend,
) -> None:
    """Issue 32: when a game ends, its events (a row each: 60 KB a whole game) and the log of its delivered
    duties become one row of two compressed lists, in the same transaction; every read gives the events as
    they were (all, since a version, the last few, an export), and the integrity check holds. A duty done
    after the end stays a row."""
    store = await backend.open()
    game = await played(store)
    delivered = [(d[0], d[1]) for d in await raw(backend, "SELECT id, kind FROM duties ORDER BY id")]
    over = await end(store, game)
    events = await store.events(game.id)
    assert [v for v, _ in events] == list(range(1, 8)) and events[-1] == (7, {"n": 10})
    exported = await store.export_game(game.id)

    assert await raw(backend, "SELECT game_id FROM events") == [], "no event row is left"
    [(events_blob, log_blob)] = await raw(
        backend, f"SELECT events, duties FROM packed WHERE game_id = {game.id}"
    )
    log = json.loads(zlib.decompress(bytes(log_blob)))
    assert [(i, kind) for i, kind, *_ in log] == delivered, "the delivered duties' log, by id"
    assert [(len(entry), entry[-1]) for entry in log] == [(7, f"sent {i}") for i, _ in delivered]
    [pending] = await store.pending_duties(game.id)
    assert await raw(backend, "SELECT id FROM duties") == [(pending.id,)], "pending duties stay rows"

    assert await store.events(game.id, since_version=4) == events[4:]
    assert await store.events(game.id, limit=2) == events[-2:]
    assert await store.events(game.id, since_version=7) == []
    assert await store.events(game.id, limit=0) == []
    assert [(e["version"], e["body"]) for e in exported["events"]] == events
    assert [e["created_at"] for e in exported["events"]] == [
        T0 + 2,
        *(T0 + k for k in range(2, 6)),
        T0 + 20,
        T0 + 20,
    ]
    assert await store.load_snapshot(game.id) == (7, fold([e for _, e in events]))
    assert await store.integrity_check()
    assert await deliver(store, T0 + 30) == [pending.id]
    assert len(await raw(backend, "SELECT id FROM duties WHERE done_at IS NOT NULL")) == 1
    assert over.status == "finished"
    assert [(v, json.loads(b)) for v, b, _ in json.loads(zlib.decompress(bytes(events_blob)))] == events
    await backend.close_all()


async def test_a_packed_game_exports_and_imports_whole_and_is_packed_where_it_lands(
    store: GameStore, make_backend: Callable[[], Backend]
) -> None:
    """Issue 32: an export of a game over reads its packed events; imported (a move, a restore), the game
    is packed there too, and its export is the same."""
    game = await end(store, await played(store))
    exported = await store.export_game(game.id)
    assert [e["version"] for e in exported["events"]] == list(range(1, 8))
    target = make_backend()
    other = await target.open()
    assert await other.import_game(json.loads(json.dumps(exported))) == game
    assert await other.events(game.id) == await store.events(game.id)
    assert await raw(target, "SELECT game_id FROM events") == []
    assert await raw(target, "SELECT game_id FROM packed") == [(game.id,)]
    assert await other.export_game(game.id) == exported
    assert await other.integrity_check()
    copy = await other.import_game(exported, keep_id=False)  # a copy under a new id, packed as well
    assert await other.events(copy.id) == await store.events(game.id)
    assert await raw(target, "SELECT game_id FROM events") == []


async def test_an_abandoned_game_is_packed_and_a_purge_takes_its_pack(backend: Backend) -> None:
    """Issue 32: abandoning a game packs its events and delivery log like an end; purging the game
    takes the pack with it."""
    store = await backend.open()
    game = await played(store)
    events = await store.events(game.id)
    await store.abandon_game(game.id, T0 + 20)
    assert await store.events(game.id) == events
    assert await raw(backend, "SELECT game_id FROM events") == []
    assert await raw(backend, "SELECT id FROM duties WHERE done_at IS NOT NULL") == []
    await store.create_game(GUILD, CHANNEL + 1, ALICE, {}, T0 + 30)  # the newest game stays (SQLite's ids)
    assert await store.purge_games(T0 + 25) == 1
    assert await raw(backend, "SELECT game_id FROM packed") == []


async def test_forget_user_reaches_a_packed_game(backend: Backend) -> None:
    """Issue 32: forgetting a player of a game over pseudonymises it as before, drops the packed log of its
    delivered duties as it deletes their rows, and leaves its packed events readable and the same (they
    name seats, never users)."""
    store = await backend.open()
    game = await end(store, await played(store))
    events = await store.events(game.id)
    await deliver(store, T0 + 30)  # the end post: a done row after the end
    report = await store.forget_user(ALICE, FORMER, T0 + 40)
    assert report.games == 1
    forgotten = await store.game_by_id(game.id)
    assert forgotten is not None and forgotten.seats == ((0, FORMER), (1, BOB))
    assert await store.events(game.id) == events
    assert await raw(backend, "SELECT duties FROM packed") == [(None,)]
    assert await raw(backend, "SELECT id FROM duties") == []
    assert str(ALICE) not in json.dumps(await store.export_game(game.id))
    assert await store.integrity_check()
