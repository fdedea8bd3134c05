"""Where the bot's processes run (bot.process.cores, issue 32): the bot's own process on one core, its
render workers and computers on the others, the spare beside the bot; the bot lets go of its core when the
loop watch finds the machine crowding it there. Real processes and threads, read back from the kernel."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Collection, Iterator
from pathlib import Path

import pytest

from bot.games.pictures import RENDER_NICE, Pictures
from bot.games.thinking import HINT_NICE, Thinkers
from bot.process import cores as bot_cores
from bot.process import metrics, render_pool
from bot.process.config import ConfigError, default_pin_cores, load_config, variables_help
from bot.process.cores import OTHERS_BUSY, OTHERS_QUIET, QUIET_LOOKS, CorePlacement, Cores, on_cores
from bot.process.loop_watch import OFTEN, LoopWatch
from bot.process.render_pool import RenderPool, behind_the_bot, when_idle

ROOT = Path(__file__).resolve().parents[2]
ALLOWED = frozenset(os.sched_getaffinity(0))


def test_the_bot_takes_the_lowest_core_and_its_workers_the_rest() -> None:
    assert Cores.split({0}) is None  # nothing to keep apart
    assert Cores.split(set()) is None
    assert Cores.split({0, 1}) == Cores(frozenset({0}), frozenset({1}))
    cores = Cores.split({7, 3, 5})
    assert cores == Cores(frozenset({3}), frozenset({5, 7}))
    assert cores is not None and cores.all == frozenset({3, 5, 7})


def _cores_here() -> Cores:
    """This machine's split; on one core, both on it (the kernel is still asked, and answers)."""
    return Cores.split(ALLOWED) or Cores(ALLOWED, ALLOWED)


_PLACED = """
import json, logging, os, sys, threading
from bot.process.cores import place_the_bot
logging.basicConfig(level=logging.INFO, stream=sys.stdout, format="LOG %(levelname)s %(message)s")
def threads():
    return sorted({tuple(sorted(os.sched_getaffinity(int(t)))) for t in os.listdir("/proc/self/task")})
stop = threading.Event()
older = threading.Thread(target=stop.wait)
older.start()
placement = place_the_bot()
placed = threads()
seen = {}
newer = threading.Thread(target=lambda: seen.update(newer=sorted(os.sched_getaffinity(0))))
newer.start(); newer.join()
placement.on_stalls("bot")
after_bot = threads()
placement.on_stalls("machine")
released = threads()
placement.on_stalls("machine")
stop.set(); older.join()
print(json.dumps({"placed": placed, "newer": seen["newer"], "after_bot": after_bot, "released": released}))
"""


@pytest.mark.skipif(len(ALLOWED) < 2, reason="one core: the bot keeps to none (the split test covers it)")
def test_issue_32_the_bots_process_keeps_to_its_core_until_the_machine_crowds_it() -> None:
    """Every thread of the bot's process, those started before and after, runs on the bot's core; stalls of
    the bot's own making change nothing; stalls the machine causes let it run on all its cores again, said
    once in the log."""
    done = subprocess.run(
        [sys.executable, "-c", _PLACED], cwd=ROOT, capture_output=True, text=True, timeout=60, check=True
    )
    lines = done.stdout.splitlines()
    seen = json.loads(lines[-1])
    bot = [min(ALLOWED)]
    assert seen["placed"] == [bot] and seen["newer"] == bot and seen["after_bot"] == [bot]
    assert seen["released"] == [sorted(ALLOWED)]
    warnings = [line for line in lines if line.startswith("LOG WARNING")]
    assert len(warnings) == 1 and "other programs kept the bot's core" in warnings[0], lines


def _priority() -> tuple[frozenset[int], int, int]:
    return frozenset(os.sched_getaffinity(0)), os.getpriority(os.PRIO_PROCESS, 0), os.sched_getscheduler(0)


def _nothing() -> None:
    pass


async def test_issue_32_workers_start_on_their_cores_at_their_priority(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A render worker on the workers' cores behind the bot; the spare in the idle class on the bot's core,
    where it draws with what the bot leaves over; a replaced worker starts where the first did."""
    monkeypatch.setattr(render_pool, "HEDGE", 60.0)
    cores = _cores_here()
    pool = RenderPool(
        1,
        on_cores,
        (cores.workers, behind_the_bot, RENDER_NICE, _nothing),
        spare=(on_cores, (cores.bot, when_idle, _nothing)),
    )
    pool.start()
    try:
        assert await pool.run(0, _priority) == (
            cores.workers,
            os.getpriority(os.PRIO_PROCESS, 0) + RENDER_NICE,
            os.SCHED_OTHER,
        )
        spare = pool.pids()[1]
        deadline = time.monotonic() + 60
        while os.sched_getscheduler(spare) != os.SCHED_IDLE:  # the spare's start may wait for a core
            assert time.monotonic() < deadline
            await asyncio.sleep(0.05)
        assert os.sched_getaffinity(spare) == cores.bot
        os.kill(pool.pids()[0], 9)
        async with asyncio.timeout(60):
            while True:
                try:
                    answer = await pool.run(0, _priority)
                    break
                except Exception:  # noqa: BLE001 - the kill's own picture fails or is drawn again
                    continue
        assert answer[0] == cores.workers
    finally:
        pool.close()


async def test_issue_32_pictures_and_computers_start_on_the_workers_cores() -> None:
    cores = _cores_here()
    pictures = Pictures(width=320, workers=1, spare=True, cores=cores)
    thinkers = Thinkers(workers=1, cores=cores)
    pictures.start()
    thinkers.start()
    try:
        assert pictures.pool is not None and thinkers.pool is not None
        assert (await pictures.pool.run(0, _priority))[0] == cores.workers
        spare = pictures.pool.pids()[1]
        deadline = time.monotonic() + 60
        while os.sched_getscheduler(spare) != os.SCHED_IDLE:  # set as it starts, before it warms
            assert time.monotonic() < deadline
            await asyncio.sleep(0.05)
        assert os.sched_getaffinity(spare) == cores.bot
        assert (await thinkers.pool.run(None, _priority))[::2] == (cores.workers, os.SCHED_IDLE)
        hints = await thinkers._hint_pool().run(None, _priority)
        assert hints[:2] == (cores.workers, os.getpriority(os.PRIO_PROCESS, 0) + HINT_NICE)
    finally:
        pictures.close()
        thinkers.close()


async def test_without_cores_the_workers_run_where_the_bot_may() -> None:
    pictures = Pictures(width=320, workers=1)
    pictures.start()
    try:
        assert pictures.pool is not None
        assert (await pictures.pool.run(0, _priority))[0] == ALLOWED
    finally:
        pictures.close()


def test_issue_32_the_loop_watch_tells_its_warnings_cause() -> None:
    heard: list[str] = []
    watch = LoopWatch(clock=lambda: 0.0, on_warning=heard.append)
    for n in range(OFTEN - 1):
        watch.tick(float(n), 0.35, ran=0.01, waited=0.3)
    assert heard == []  # stalls, but not yet a warning
    watch.tick(float(OFTEN), 0.35, ran=0.01, waited=0.3)
    watch.tick(float(OFTEN + 1), 0.35, ran=0.01, waited=0.3)  # warned already: once an hour
    watch.tick(float(OFTEN + 2), 2.0, ran=1.9, waited=0.0)  # the bot's own long stall: a warning at once
    assert heard == ["machine", "bot"]


def test_issue_32_pin_cores_is_a_setting() -> None:
    assert load_config({"ALEXANDROS_PIN_CORES": "0"}, None, require_token=False).pin_cores == 0
    assert load_config({"ALEXANDROS_PIN_CORES": "1"}, None, require_token=False).pin_cores == 1
    with pytest.raises(ConfigError, match="ALEXANDROS_PIN_CORES"):
        load_config({"ALEXANDROS_PIN_CORES": "2"}, None, require_token=False)
    assert load_config({}, None, require_token=False).pin_cores == default_pin_cores()
    assert default_pin_cores() == (1 if len(ALLOWED) >= 2 else 0)
    # A process of only some shards may share the machine with the others: they would all take one core.
    some = {"ALEXANDROS_SHARD_COUNT": "4", "ALEXANDROS_SHARD_IDS": "0-1"}
    assert load_config(some, None, require_token=False).pin_cores == 0
    every = {"ALEXANDROS_SHARD_COUNT": "2", "ALEXANDROS_SHARD_IDS": "0-1"}
    assert load_config(every, None, require_token=False).pin_cores == default_pin_cores()
    assert any(line.strip().startswith("ALEXANDROS_PIN_CORES") for line in variables_help())
    assert "pin_cores=" in repr(load_config({}, None, require_token=False))


def apart() -> float | None:
    return metrics.REGISTRY.get_sample_value("alexandros_cores_kept_apart")


@pytest.fixture
def kept(monkeypatch: pytest.MonkeyPatch) -> list[frozenset[int]]:
    """What the placement asks of the bot's own process (here, the suite's: not changed), recorded."""
    asked: list[frozenset[int]] = []

    def keep(cores: Collection[int]) -> bool:
        asked.append(frozenset(cores))
        return True

    monkeypatch.setattr(bot_cores, "keep_process_on", keep)
    return asked


@pytest.fixture
def sleepers() -> Iterator[list[int]]:
    """Two real processes standing for a render worker and the spare."""
    procs = [subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"]) for _ in range(2)]
    yield [p.pid for p in procs]
    for p in procs:
        p.kill()
        p.wait(timeout=30)


def test_issue_32_the_bot_lets_go_while_other_programs_take_its_cores_and_keeps_apart_when_quiet(
    kept: list[frozenset[int]], sleepers: list[int]
) -> None:
    """Beside other programs' work the bot and its workers do better placed by the system (a worker kept
    to its cores cannot take the moments another is free): a look that finds them taking OTHERS_BUSY of
    the cores lets go of every process; QUIET_LOOKS quiet looks in a row keep them apart again."""
    cores = _cores_here()
    worker, spare = sleepers
    placement = CorePlacement(cores, lambda: [(worker, False), (spare, True)])
    placement.place()
    assert placement.placed and kept == [cores.bot] and apart() == 1
    assert os.sched_getaffinity(worker) == cores.workers and os.sched_getaffinity(spare) == cores.bot
    placement.look(OTHERS_BUSY - 0.01)
    assert placement.placed  # a little work of others: kept apart
    placement.look(OTHERS_BUSY)
    assert not placement.placed and placement.releases == 1 and kept[-1] == cores.all and apart() == 0
    assert os.sched_getaffinity(worker) == cores.all == os.sched_getaffinity(spare)
    for _ in range(QUIET_LOOKS - 1):
        placement.look(OTHERS_QUIET - 0.01)
    placement.look(OTHERS_QUIET)  # one look not quiet enough: counted again from nothing
    for _ in range(QUIET_LOOKS - 1):
        placement.look(0.0)
    assert not placement.placed
    placement.look(0.0)
    assert placement.placed and kept[-1] == cores.bot and os.sched_getaffinity(worker) == cores.workers
    assert apart() == 1
    placement.on_stalls("bot")
    assert placement.placed
    placement.on_stalls("machine")
    assert not placement.placed and placement.releases == 2


def test_issue_32_a_worker_started_while_let_go_is_let_go_at_the_next_look(
    kept: list[frozenset[int]], sleepers: list[int]
) -> None:
    cores = _cores_here()
    worker, _ = sleepers
    placement = CorePlacement(cores, lambda: [(worker, False)])
    os.sched_setaffinity(worker, cores.workers)  # started kept apart, as its initializer does
    placement.look(0.5)  # released, not quiet
    assert os.sched_getaffinity(worker) == cores.all


async def test_issue_32_the_cpu_of_the_bots_cores_and_of_a_process_are_read_from_the_kernel() -> None:
    burner = subprocess.Popen([sys.executable, "-c", "import time\nend = time.process_time() + 0.4\n"
                               "while time.process_time() < end: pass\ntime.sleep(60)"])  # fmt: skip
    try:
        before = bot_cores.cores_seconds(ALLOWED)
        assert before is not None
        deadline = time.monotonic() + 60
        while bot_cores.process_seconds(burner.pid) < 0.35:
            assert time.monotonic() < deadline
            await asyncio.sleep(0.05)
        after = bot_cores.cores_seconds(ALLOWED)
        assert after is not None and after - before >= 0.3  # the burner's CPU, at least, on these cores
    finally:
        burner.kill()
        burner.wait(timeout=30)
    assert bot_cores.process_seconds(burner.pid) == 0.0  # gone


async def test_issue_32_the_placement_looks_at_the_machine_while_it_runs(
    kept: list[frozenset[int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its task looks every LOOK_EVERY: another program burning a core lets the bot go."""
    monkeypatch.setattr(bot_cores, "LOOK_EVERY", 0.1)
    placement = CorePlacement(_cores_here())
    placement.place()
    looking = asyncio.create_task(placement.run())
    burner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        async with asyncio.timeout(60):
            while placement.placed:
                await asyncio.sleep(0.05)
        assert kept[-1] == placement.cores.all
    finally:
        burner.kill()
        burner.wait(timeout=30)
        looking.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await looking
