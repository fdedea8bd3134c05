"""The bot's watch on its own event loop (bot.process.loop_watch, issue 32): each late wake-up is measured
and a stall is put down to the machine, the bot's own work or a wait in the kernel, from the loop thread's
accounts; the log tells the host what to do when stalls come often, at most once an hour."""

from __future__ import annotations

import asyncio
import logging
import sys
import time

import pytest

from bot.process import metrics
from bot.process.loop_watch import (
    AGAIN_AFTER,
    OFTEN,
    PERIOD,
    WINDOW,
    LoopWatch,
    ThreadAccounts,
    cause,
)


def stalls(why: str) -> float:
    return metrics.REGISTRY.get_sample_value("alexandros_loop_stalls_total", {"cause": why}) or 0.0


def late_count() -> float:
    return metrics.REGISTRY.get_sample_value("alexandros_loop_late_seconds_count") or 0.0


def test_a_gap_is_put_down_to_what_the_loops_thread_did_in_it() -> None:
    # 0.5 s between wake-ups meant to be 0.1 s apart: 0.4 s to account for.
    assert cause(0.5, ran=0.38, waited=0.01) == "bot"
    assert cause(0.5, ran=0.02, waited=0.35) == "machine"
    assert cause(0.5, ran=0.01, waited=0.0) == "blocked"  # 0.39 s neither running nor ready: in the kernel
    # The loop's own work of a stall's length is the bot's, however long it also waited for a core.
    assert cause(0.85, ran=0.15, waited=0.6) == "bot"
    # Without the kernel's account of waiting (not Linux): the bot's own work, or waiting of either kind.
    assert cause(0.5, ran=0.38, waited=None) == "bot"
    assert cause(0.5, ran=0.05, waited=None) == "waiting"


def test_wake_ups_on_time_are_measured_and_are_no_stall() -> None:
    watch = LoopWatch()
    count, before = late_count(), stalls("machine")
    assert watch.tick(100.0, PERIOD + 0.002, ran=0.001, waited=0.0) is None
    assert watch.tick(100.1, PERIOD + 0.09, ran=0.0, waited=0.09) is None  # 90 ms late: under a stall
    assert late_count() == count + 2
    assert stalls("machine") == before


def test_frequent_stalls_of_a_busy_machine_are_one_warning_an_hour(caplog: pytest.LogCaptureFixture) -> None:
    watch = LoopWatch()
    before = stalls("machine")
    caplog.set_level(logging.INFO, logger="bot")
    now = 1000.0
    for _ in range(OFTEN - 1):
        now += 30.0
        assert watch.tick(now, 0.25, ran=0.01, waited=0.14) == "machine"
    assert stalls("machine") == before + OFTEN - 1
    assert not caplog.records  # nine in ten minutes: not yet
    now += 30.0
    watch.tick(now, 0.25, ran=0.01, waited=0.14)
    warned = now
    [warning] = caplog.records
    assert warning.levelno == logging.WARNING
    text = warning.getMessage()
    assert "150 ms late" in text and f"{OFTEN} stalls" in text
    assert "other programs on this machine had the CPU cores" in text
    assert "docs/HOSTING.md, 'Sharing the machine'" in text
    # More within the hour: counted, not logged again.
    for _ in range(30):
        now += 30.0
        watch.tick(now, 0.25, ran=0.01, waited=0.14)
    assert len(caplog.records) == 1
    # After the hour, still coming often: logged again.
    now = warned + AGAIN_AFTER
    for _ in range(OFTEN):
        now += 1.0
        watch.tick(now, 0.25, ran=0.01, waited=0.14)
    assert len(caplog.records) == 2


def test_stalls_spread_out_are_not_a_warning_but_one_long_one_is(caplog: pytest.LogCaptureFixture) -> None:
    watch = LoopWatch()
    caplog.set_level(logging.INFO, logger="bot")
    now = 0.0
    for _ in range(3 * OFTEN):  # one every minute and a bit: never OFTEN within the window
        now += WINDOW / (OFTEN - 1) + 1.0
        watch.tick(now, 0.3, ran=0.01, waited=0.0)
    assert not caplog.records
    watch.tick(now + 1.0, 1.5, ran=1.3, waited=0.05)  # the bot's own work held the loop 1.4 s
    [warning] = caplog.records
    assert "1400 ms late" in warning.getMessage()
    assert "The bot's own work held it: more than one process keeps up with" in warning.getMessage()
    assert "docs/SCALING.md" in warning.getMessage() and "a bug: please report it" in warning.getMessage()


@pytest.mark.skipif(sys.platform != "linux", reason="the kernel's accounts of a thread are Linux's")
def test_the_kernels_accounts_of_the_loops_thread_are_read() -> None:
    accounts = ThreadAccounts()
    try:
        first = accounts.read()
        assert first.waited is not None  # Linux keeps them (schedstat): CI's machines are Linux
        spun = time.thread_time() + 0.05
        while time.thread_time() < spun:
            pass
        then = accounts.read()
        assert then.ran - first.ran >= 0.045
    finally:
        accounts.close()


async def test_the_watch_on_a_real_loop_tells_the_bots_own_work_from_a_wait_in_the_kernel() -> None:
    """The watch's task on this test's loop, held twice: by 0.4 s of work (CPU), and by a blocking sleep
    of the loop's thread of 0.6 s (a stand-in for a slow disk)."""
    seen: list[str | None] = []
    watch = LoopWatch()
    tick = watch.tick

    def noted(now: float, elapsed: float, ran: float, waited: float | None) -> str | None:
        seen.append(tick(now, elapsed, ran, waited))
        return seen[-1]

    watch.tick = noted  # type: ignore[method-assign]
    task = asyncio.create_task(watch.run())
    try:
        await asyncio.sleep(0.35)
        spun = time.thread_time() + 0.4
        while time.thread_time() < spun:  # 0.4 s of the loop's own CPU
            pass
        await asyncio.sleep(0.35)
        assert "bot" in seen
        time.sleep(0.6)  # the loop's thread waits in the kernel
        await asyncio.sleep(0.35)
        expected = "blocked" if sys.platform == "linux" else "waiting"
        assert expected in seen, seen
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task


def test_every_metric_of_the_bot_is_in_the_hosts_table() -> None:
    """docs/WEB.md's table of metrics names each one the bot counts, these two among them."""
    from pathlib import Path

    table = [
        line for line in (Path(__file__).resolve().parents[2] / "docs" / "WEB.md").read_text().splitlines()
        if line.startswith("| `alexandros_")
    ]  # fmt: skip
    names = {family.name for family in metrics.REGISTRY.collect()}
    assert {"alexandros_loop_late_seconds", "alexandros_loop_stalls"} <= names
    for name in names:
        assert any(line.startswith(f"| `{name}") for line in table), name
