"""bot.process.render_pool: real worker processes. A game's pictures go to one worker unless it is much
busier than another; a worker that dies is replaced and the pictures it held are drawn again, so the bot never
falls back to placeholders for good."""

from __future__ import annotations

import asyncio
import gc
import os
import random
import signal
import time
from collections.abc import Iterator

import pytest

from bot.games.pictures import Pictures, placeholder_png
from bot.process import render_pool
from bot.process.render_pool import SLACK, SPARE_AFTER, RenderPool, when_idle
from engine import new_game, view
from engine.maps import default_map


def _nothing() -> None:
    pass


@pytest.fixture
def pool() -> Iterator[RenderPool]:
    p = RenderPool(2, _nothing, ())
    p.start()
    yield p
    p.close()


async def test_a_games_pictures_go_to_one_worker(pool: RenderPool) -> None:
    for key in (0, 1, 7, 12345):
        pids = {await pool.run(key, os.getpid) for _ in range(6)}
        assert len(pids) == 1
    assert {await pool.run(0, os.getpid), await pool.run(1, os.getpid)} == set(pool.pids())


def _sleep_then_pid(seconds: float) -> int:
    time.sleep(seconds)
    return os.getpid()


async def test_a_busy_worker_is_passed_over(pool: RenderPool) -> None:
    """One game's pictures pile up: past SLACK more than the other worker has waiting, they go to the other
    one, so one busy game keeps both workers drawing."""
    own = await pool.run(0, os.getpid)
    pids = await asyncio.gather(*(pool.run(0, _sleep_then_pid, 0.2) for _ in range(8)))
    mine = sum(pid == own for pid in pids)
    assert 0 < 8 - mine and mine - (8 - mine) <= SLACK
    assert await pool.run(0, os.getpid) == own  # and back to its own worker once it is free


async def test_a_long_job_sends_the_other_pictures_elsewhere(pool: RenderPool) -> None:
    """A replay (a whole game's frames) goes to the least busy worker, weighed as SLACK + 1 pictures: the
    boards of a game whose own worker it is go to the other worker while it runs."""
    long_job = asyncio.ensure_future(pool.run(None, _sleep_then_pid, 0.6, weight=SLACK + 1))
    await asyncio.sleep(0.1)
    assert not long_job.done()
    others = {await pool.run(key, os.getpid) for key in range(6)}
    assert len(others) == 1 and await long_job not in others


async def test_a_closed_pool_refuses() -> None:
    p = RenderPool(1, _nothing, ())
    p.start()
    p.close()
    with pytest.raises(RuntimeError):
        await p.run(0, os.getpid)


async def test_a_dead_worker_is_replaced_and_its_pictures_drawn_again(pool: RenderPool) -> None:
    victim = await pool.run(0, os.getpid)
    held = asyncio.ensure_future(pool.run(0, time.sleep, 1.0))  # a picture the worker holds as it dies
    await asyncio.sleep(0.2)
    os.kill(victim, signal.SIGKILL)
    assert await held is None  # drawn again by the new worker
    after = await pool.run(0, os.getpid)
    assert after != victim and after in pool.pids()
    assert pool.replaced == 1
    with pytest.raises(ProcessLookupError):
        os.kill(victim, 0)


async def test_the_bot_draws_real_boards_after_a_worker_died() -> None:
    """Through the bot's adapter with the real warm workers: a worker killed between two boards; the second
    board is a real picture, not the placeholder, and no failure is counted."""
    pictures = Pictures(width=640, workers=2)
    pictures.start()
    try:
        v = view(new_game(default_map(), 3, 1)[0])
        names = ["Ada", "Bo", "Cy"]
        first = await pictures.board(v, names, language="en-US")
        assert first != placeholder_png() and first.startswith(b"\x89PNG")
        assert pictures.pool is not None
        for pid in pictures.pool.pids():
            os.kill(pid, signal.SIGKILL)
        again = await pictures.board(v, names, language="en-US")
        assert again == first
        assert pictures.failures == 0 and pictures.pool.replaced >= 1
    finally:
        pictures.close()


async def test_r2_5_the_worker_draws_a_public_snapshot_as_its_public_view_never_a_hand() -> None:
    """The outbox's pictures: the worker loads the lean snapshot and makes its public view (the bot's event
    loop does neither): the same board and end pictures as the view path draws. A snapshot that still held
    the hands (none does: bot.outbox.duties.public_state) is drawn from the public view too, so no hand
    shows."""
    from bot.outbox.duties import public_state
    from engine import ai, apply
    from engine.snapshot import dump_state

    state = new_game(default_map(), 3, 5)[0]
    rng = random.Random(5)
    for _ in range(40):
        state = apply(state, ai.greedy_player(state, rng))[0]
    assert any(sum(p.hand) for p in state.players)
    pictures = Pictures(width=640, workers=1)
    pictures.start()
    try:
        names = ["Ada", "Bo", "Cy"]
        for kind in ("board", "end"):
            drawn = getattr(pictures, kind)
            by_view = await drawn(view(state, None), names, language="en-US")
            lean = dump_state(public_state(state))
            public = await pictures.public(kind, lean, state.map, names, language="en-US")
            whole = await pictures.public(kind, dump_state(state), state.map, names, language="en-US")
            assert public == by_view == whole, kind
            assert by_view != placeholder_png()
        assert pictures.failures == 0
        assert pictures.calls[-2:] == [("end", None), ("end", None)]
    finally:
        pictures.close()


def _big_picture(size: int) -> tuple[float, float, bytes]:
    start = time.time()
    return start, time.time(), b"\x89" * size


async def test_a_worker_hands_over_its_pictures_and_draws_on_while_the_event_loop_is_busy(
    pool: RenderPool,
) -> None:
    """A picture is about 100 KB, more than a pipe holds by default (64 KB): the worker then waited for the
    busy event loop to read each one before it could draw the next, and pictures queued for hundreds of
    milliseconds at 40 % of the workers' time. The pipes hold about ten now."""
    await pool.run(0, os.getpid)  # started and warm
    jobs = [asyncio.ensure_future(pool.run(0, _big_picture, 150_000)) for _ in range(4)]
    await asyncio.sleep(0)  # the requests are written
    time.sleep(1.0)  # the event loop is busy: it reads nothing meanwhile
    busy_until = time.time()
    pictures = await asyncio.gather(*jobs)
    assert all(len(data) == 150_000 for _, _, data in pictures)
    assert max(start for start, _, _ in pictures) < busy_until, "every picture drawn while the loop was busy"


def _length(data: bytes) -> int:
    return len(data)


async def test_requests_larger_than_the_pipe_holds_are_written_as_it_drains(pool: RenderPool) -> None:
    """The event loop never blocks on a worker's pipe: requests beyond what the pipe holds (3 MB here, the
    pipe 1 MB) wait in the loop's own buffer and go out as the worker reads, every one answered, in order."""
    sizes = [100_000 + i for i in range(30)]
    answers = await asyncio.gather(*(pool.run(0, _length, b"\x00" * n) for n in sizes))
    assert answers == sizes


def _picture_or_not(n: int) -> object:
    if n % 3 == 1:
        return bytes(range(256)) * (n * 1000 // 256) + b"\xff" * (n % 7)  # a picture: its bytes as they are
    if n % 3 == 2:
        raise ValueError(f"no picture {n}")  # pickled, and raised by the bot's await
    return {"n": n}  # anything else: pickled


async def test_pictures_come_back_whole_beside_pickled_answers_and_errors(pool: RenderPool) -> None:
    """A picture's bytes are read from the pipe as they are, behind a short header; every other answer is
    pickled. Pictures of every size (none, a few bytes, larger than the pipe holds: read in several pieces)
    come back whole, each to its own request, however they interleave with the others."""
    ns = [0, 1, 2, 3, 4, 1501, 7, 3001, 5, 10]  # 1,501,000 and 3,001,000 bytes: more than the 1 MB pipe
    answers = await asyncio.gather(*(pool.run(n % 2, _picture_or_not, n) for n in ns), return_exceptions=True)
    for n, answer in zip(ns, answers, strict=True):
        if n % 3 == 1:
            assert answer == _picture_or_not(n)
        elif n % 3 == 2:
            assert isinstance(answer, ValueError) and str(answer) == f"no picture {n}"
        else:
            assert answer == {"n": n}
    assert await pool.run(0, bytes) == b"", "an empty picture too"


async def test_issue_32_render_workers_run_behind_the_bot() -> None:
    """The render workers step back (nice) so that the bot's event loop gets the cores first on a busy
    machine; the computers' workers (bot.games.thinking) step back further, into the idle class."""
    from bot.games.pictures import RENDER_NICE

    pictures = Pictures(width=640, workers=1)
    pictures.start()
    try:
        assert pictures.pool is not None
        own = os.nice(0)
        assert await pictures.pool.run(0, os.nice, 0) == min(19, own + RENDER_NICE)
        assert await pictures.pool.run(0, os.sched_getscheduler, 0) == os.SCHED_OTHER
    finally:
        pictures.close()


async def test_a_warm_worker_collects_young_objects_rarely_and_never_what_its_warm_up_built() -> None:
    """As the bot's own process (bot.process.collector): a render worker's warm-up (maps, layers, fonts)
    is moved out of the collector's view, and young collections come every ``YOUNG_COLLECTION``
    allocations, not Python's 700."""
    from bot.process.collector import YOUNG_COLLECTION

    pictures = Pictures(width=640, workers=1)
    pictures.start()
    try:
        assert pictures.pool is not None
        assert (await pictures.pool.run(0, gc.get_threshold))[0] == YOUNG_COLLECTION
        assert await pictures.pool.run(0, gc.get_freeze_count) > 1000, "the warm-up's objects, frozen"
        # Drawing goes on as before: a real board.
        start = view(new_game(default_map(), 2, 3)[0], None)
        board = await pictures.board(start, ["Ada", "Bo"], language="en")
        assert board.startswith(b"\x89PNG") and pictures.failures == 0
    finally:
        pictures.close()


def _sleep_then_pid_and_class(seconds: float) -> tuple[int, int]:
    time.sleep(seconds)
    return os.getpid(), os.sched_getscheduler(0)


@pytest.fixture
def spared(monkeypatch: pytest.MonkeyPatch) -> Iterator[RenderPool]:
    """One worker and a spare. The spare is in the idle class, which the suite's other processes may starve
    on a loaded machine: these tests wait for it as long as it takes (a test that starves it sets HEDGE)."""
    monkeypatch.setattr(render_pool, "HEDGE", 60.0)
    p = RenderPool(1, _nothing, (), spare=(when_idle, (_nothing,)))
    p.start()
    yield p
    p.close()


async def _spare_free(pool: RenderPool) -> None:
    async with asyncio.timeout(60):
        while pool.spare_holds:
            await asyncio.sleep(0.05)


async def test_issue_32_a_spare_in_the_idle_class_draws_when_a_games_own_worker_is_busy(
    spared: RenderPool,
) -> None:
    """One worker and a spare: a picture goes to the spare only when its own worker already has SPARE_AFTER
    waiting and the spare holds none, and the spare runs in the OS's idle class (it takes only CPU nobody
    else wants)."""
    own, own_class = await spared.run(0, _sleep_then_pid_and_class, 0)
    assert own_class == os.SCHED_OTHER and spared.spared == 0
    answers = await asyncio.gather(
        *(spared.run(0, _sleep_then_pid_and_class, 0.1) for _ in range(SPARE_AFTER + 2))
    )
    spare = [pid for pid, _ in answers if pid != own]
    assert len(spare) == 1 and answers[SPARE_AFTER][0] == spare[0], "the first past SPARE_AFTER, and only it"
    assert answers[SPARE_AFTER][1] == os.SCHED_IDLE
    assert spared.pids() == [own, spare[0]]
    assert (spared.spared, spared.hedged, spared.spare_holds) == (1, 0, 0)
    assert await spared.run(0, os.getpid) == own, "back to its own worker once it is free"


async def test_issue_32_a_job_kept_from_the_spare_waits_for_its_own_worker(spared: RenderPool) -> None:
    """``spare=False`` (a game's boards: their own worker starts each from the one before): never drawn by
    the spare, however many wait at its own worker; the same jobs otherwise would hand it one."""
    own = await spared.run(0, os.getpid)
    kept = await asyncio.gather(
        *(spared.run(0, _sleep_then_pid_and_class, 0.05, spare=False) for _ in range(SPARE_AFTER + 3))
    )
    assert {pid for pid, _ in kept} == {own} and spared.spared == 0
    handed = await asyncio.gather(
        *(spared.run(0, _sleep_then_pid_and_class, 0.05) for _ in range(SPARE_AFTER + 1))
    )
    assert handed[SPARE_AFTER][0] != own and spared.spared == 1, "without it, the spare draws one"


async def test_issue_32_the_bot_keeps_a_games_boards_from_the_spare_and_hands_it_the_rest() -> None:
    """Boards and ends go to their game's own worker only (it starts each from the one before); any other
    picture (a hand, a preview) may go to the spare. Real workers draw them all."""
    pictures = Pictures(width=640, workers=1, spare=True)
    pictures.start()
    asked: list[bool] = []
    try:
        assert pictures.pool is not None
        run = pictures.pool.run

        async def noted(*args: object, spare: bool = True, **kwargs: object) -> object:
            asked.append(spare)
            return await run(*args, spare=spare, **kwargs)  # type: ignore[arg-type]

        pictures.pool.run = noted  # type: ignore[method-assign]
        state = new_game(default_map(), 2, 3)[0]
        board = await pictures.board(view(state, None), ["Ada", "Bo"], language="en")
        end = await pictures.end(view(state, None), ["Ada", "Bo"], language="en")
        hand = await pictures.hand(view(state, 0), "Ada")
        assert all(p.startswith(b"\x89PNG") for p in (board, end, hand)) and pictures.failures == 0
        assert asked == [False, False, True]
    finally:
        pictures.close()


async def test_issue_32_a_starved_spare_is_drawn_around_and_handed_nothing_more(
    spared: RenderPool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A busy machine may give the idle class no CPU (here: the spare stopped): a picture it has not answered
    within HEDGE is drawn by its own worker too, and while it holds that one nothing more goes to it."""
    monkeypatch.setattr(render_pool, "HEDGE", 0.25)
    own = await spared.run(0, os.getpid)
    spare = spared.pids()[1]
    os.kill(spare, signal.SIGSTOP)
    try:
        start = time.monotonic()
        pids = await asyncio.gather(*(spared.run(0, _sleep_then_pid, 0.05) for _ in range(SPARE_AFTER + 4)))
        assert set(pids) == {own} and (spared.spared, spared.hedged, spared.spare_holds) == (1, 1, 1)
        assert time.monotonic() - start < 0.25 + 3.0, "the starved picture waited HEDGE, not for the spare"
    finally:
        os.kill(spare, signal.SIGCONT)
    monkeypatch.setattr(render_pool, "HEDGE", 60.0)
    await _spare_free(spared)  # it answers the one it held (nobody waits for it), and is free again
    more = await asyncio.gather(*(spared.run(0, _sleep_then_pid, 0.1) for _ in range(SPARE_AFTER + 1)))
    assert more[SPARE_AFTER] == spare and (spared.spared, spared.hedged) == (2, 1)


async def test_issue_32_a_dead_spare_is_drawn_around_then_replaced_by_a_spare(spared: RenderPool) -> None:
    """The spare killed: the picture sent to it is drawn by its own worker at once (no wait for HEDGE),
    and the next picture for the spare starts a new spare, in the idle class again."""
    own = await spared.run(0, os.getpid)
    spare = spared.pids()[1]
    os.kill(spare, signal.SIGKILL)
    start = time.monotonic()
    first = await asyncio.gather(*(spared.run(0, _sleep_then_pid, 0.1) for _ in range(SPARE_AFTER + 1)))
    assert set(first) == {own} and spared.hedged == 1 and time.monotonic() - start < 30
    answers = await asyncio.gather(
        *(spared.run(0, _sleep_then_pid_and_class, 0.1) for _ in range(SPARE_AFTER + 1))
    )
    new, klass = answers[SPARE_AFTER]
    assert new not in (own, spare) and klass == os.SCHED_IDLE and spared.replaced == 1
    assert spared.pids() == [own, new]
