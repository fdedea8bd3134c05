"""Computer players thinking beside people's games (issue 29, item 2): does their thinking reach the bot?

G games of people act at once through the offline Discord, as in bench_bot.py (three players each, every
action as a person makes it, chosen by a greedy player before the clock starts, 24 actions a game; real
renderer with the config's render workers, real SQLite store, real clock, production send pacer). Beside
them, C tables of hard computers: each opened by a person with ``/alexandros new``, three hard computers
seated with ``/alexandros table add-computer``, started, and left by its creator (``/alexandros resign``),
so the three computers play on by themselves, a turn after another, for the whole run. They think in the
bot's computer worker processes (bot.games.thinking, as many as the config's default,
``ALEXANDROS_COMPUTER_WORKERS``), and the bot applies and commits each turn and delivers its posts as for
anyone.

Each round plays its own deals twice, with and without the computer tables, which goes first alternating
from round to round (the machine's other work drifts). Printed per run, with the machine's load average
before and after: the event loop's longest late wake-up (a probe sleeping 1 ms; wall clock, and the loop
thread's own CPU in that gap), the longest single callback (CPU), the longest garbage collection, the
interaction p99 (people's interactions only: sent -> handler done), the computer turns and decisions
(actions) committed during the clock and the CPU the computer workers used, the render workers' CPU, and
the time a computer's turn waited for its worker and thought there (p50, max).

    python benchmarks/bench_computers.py [--games 50] [--computers 20] [--actions 24] [--repeat 2]
                                         [--workers N] [--level hard] [--seed 7] [--turns-nice N]

Targets (issue 29): 20 hard computer tables thinking while 50 games act: the bot's longest loop stall
<= 50 ms and the interaction p99 within 1.2x of the same run without the computers. The ratio judged is
that of all rounds' interactions pooled, each round's printed beside it: one round's p99 is its 24th-longest
interaction of about 2,400, and runs without computers alone spread by a third from round to round (as
bench_web judges its watchers).

``--turns-nice N`` thinks the computers' turns at nice N instead of in the idle class (the bot's way).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "benchmarks"))

SEATS = 3  # hard computers at each computer table (its creator resigns: three play on)
LEGEND = (
    "(secs: the clock, until the people's games made their last action; stall: the loop's longest late",
    " wake-up (ms, a 1 ms probe), st cpu: the loop thread's CPU in that gap, cb cpu: the longest single",
    " callback in CPU time, gc cpu: the longest collection; p99: people's interactions, sent -> handler",
    " done (ms); turns / decis: computer turns and decisions (actions) committed during the clock; cut:",
    " turns given up before their answer (a delivery's timeout); cpu cmp / cpu bot / cpu draw: seconds of",
    " CPU during the clock in the computer workers / the bot's process with the fake Discord and the",
    " driver / the render workers; load: the 1-minute load average at the clock's start / end)",
)


def computer_workers() -> int:
    """The production number of computer worker processes (the config's default)."""
    from bot.process.config import Config

    return int(Config.computer_workers)


class Tally:
    """Counts the computer turns the bot asked its thinkers for and committed, and how long each waited
    for its worker and thought there (wall clock, in the bot)."""

    def __init__(self, thinkers: Any) -> None:
        self.turns = 0
        self.actions = 0
        self.cut_off = 0  # turns asked for and given up before their answer came (a send timeout)
        self.waits: list[float] = []
        self.counting = False
        turn = thinkers.turn
        tally = self

        async def counted(state: Any, level: str, rng: random.Random) -> Any:
            started = time.perf_counter()
            try:
                played = await turn(state, level, rng)
            except asyncio.CancelledError:
                tally.cut_off += tally.counting
                raise
            if tally.counting and played is not None:
                tally.turns += 1
                tally.actions += len(played[2])
                tally.waits.append((time.perf_counter() - started) * 1000)
            return played

        thinkers.turn = counted


async def computer_table(d: Any, bb: Any, driver: Any, i: int, level: str) -> int:
    """A table of ``SEATS`` computers at ``level`` playing by themselves: opened, filled and started by a
    person, who then resigns. Returns its game id."""
    channel = d.add_channel(f"computers-{i}")
    view = bb.OnChannel(d, channel)
    host = d.member(f"host{i}")
    lobby = (await view.slash(host, "alexandros new")).response_message
    assert lobby is not None
    gid = int(next(c for c in lobby.custom_ids if c.startswith("alx:join:")).split(":")[2])
    for _ in range(SEATS):
        r = await view.slash(host, "alexandros table add-computer", level=level)
        assert r.ephemeral and f"({level})" in (r.content or ""), r.content
    await d.click(host, lobby.id, f"alx:start:{gid}")
    r = await view.slash(host, "alexandros resign")
    prompt = r.response_message
    assert prompt is not None, r.content
    button = next(c for c in prompt.custom_ids if c.startswith("alx:resign:"))
    await d.click(host, prompt.id, button)
    return gid


async def one_run(
    games: int,
    computers: int,
    actions: int,
    seed: int,
    workers: int,
    level: str = "hard",
    turns_nice: int | None = None,
) -> dict[str, Any]:
    import bench_bot as bb

    import engine
    from bot.client import make_bot
    from bot.games.pictures import Pictures
    from bot.games.thinking import Thinkers
    from engine import ai
    from engine.maps import default_map
    from tests.bot import driver
    from tests.harness import OfflineDiscord

    load_before = os.getloadavg()
    pics = Pictures(workers=bb.render_workers())
    thinkers = Thinkers(workers=workers, turns_nice=turns_nice)
    seeds = iter(range(seed * 100_003, seed * 100_003 + 10 * (games + computers) + 100))  # a deal each
    with tempfile.TemporaryDirectory() as tmp:
        game_map = default_map()

        def factory() -> Any:
            return make_bot(
                str(Path(tmp) / "b.db"), map_provider=lambda: game_map, clock=time.time,
                seed_source=lambda: next(seeds), pictures=pics, thinkers=thinkers,
            )  # fmt: skip

        d = OfflineDiscord(
            factory, guild_id=driver.GUILD, channel_id=driver.CHANNEL, loggers=("bot",),
            watched_tasks=("alx-",),
        )  # fmt: skip
        async with d:
            await d.bot.warmed()
            arrivals = bb.Arrivals(d)
            tables = []
            for i in range(games):
                channel = d.add_channel(f"table-{i}")
                users = [d.member(f"{n}{i}") for n in driver.NAMES[:3]]

                g = arrivals.table(driver, channel, users)
                await g.open()
                tables.append(g)
            await d.bot.deliveries.drain()  # the lobbies' posts out
            # From here on an interaction ends when its own handler is done (bench_bot.settle_own): the
            # computers' tables keep the delivery worker busy for as long as they play.
            d.watched_tasks = tuple(t for t in d.watched_tasks if t != "alx-")
            d.settle_timeout = 120.0
            d._settle = bb.settle_own.__get__(d)
            tally = Tally(d.bot.thinkers)
            # Side by side: a creator's resignation waits for the game's lock while a computer that was dealt
            # the first turn thinks.
            computer_ids = await asyncio.gather(
                *(computer_table(d, bb, driver, i, level) for i in range(computers))
            )

            plans = []
            for i, g in enumerate(tables):
                st, rng, plan = await g.state(), random.Random(seed * 100_003 + i), []
                for _ in range(actions):
                    if st.over:
                        break
                    plan.append(ai.greedy_player(st, rng))
                    st = engine.apply(st, plan[-1])[0]
                plans.append(plan)
            ledger = bb.Ledger(d)  # people's interactions from here on (the computers make none)

            async def player(g: Any, plan: list[Any]) -> None:
                for n, action in enumerate(plan):
                    await g.play(action, n + 1)
                    ledger.settle(g.d._channel)

            collections = bb.Collections()
            collections.start()
            probe = bb.Probe(period=0.001, callbacks=True)
            load_start = os.getloadavg()
            probe.start()
            tally.counting = True
            started = time.perf_counter()
            cpu_main = time.process_time()
            cpu_think, cpu_draw = bb.worker_cpu(thinkers), bb.worker_cpu(pics)
            await asyncio.gather(*(player(g, plan) for g, plan in zip(tables, plans, strict=True)))
            wall = time.perf_counter() - started
            cpu_main = time.process_time() - cpu_main
            cpu_think, cpu_draw = bb.worker_cpu(thinkers) - cpu_think, bb.worker_cpu(pics) - cpu_draw
            tally.counting = False
            probe.stop()
            collections.stop()
            ledger.settle_all()
            tracked = len(gc.get_objects())  # what a full collection looks at (gc.freeze's are left out)
            over = 0
            for gid in computer_ids:
                state = (await d.bot.pipeline.tables.by_id(gid)).state
                over += state is not None and state.over
            done = sum(len(p) for p in plans)
            return {
                "games": games,
                "computer tables": computers,
                "computer workers": workers,
                "actions": done,
                "seconds": wall,
                "whole p50": bb.pct(ledger.whole, 0.5),
                "whole p99": bb.pct(ledger.whole, 0.99),
                "whole": list(ledger.whole),  # pooled over the rounds by ``main``; not printed
                "first p99": bb.pct(ledger.first, 0.99),
                "stall max": probe.worst * 1000,
                "stall cpu": probe.worst_cpu * 1000,
                "callback cpu": probe.worst_callback * 1000,
                "callback": probe.worst_callback_name,
                "stalls > 50 ms": probe.over_50ms,
                "gc max": collections.longest(),
                "records let go": ledger.let_go,  # the fake's old messages and tokens (Ledger)
                "forgotten used": ledger.forgotten_used,  # the fake's 404s for records let go: 0 if sound
                # The longest collection of each generation (CPU ms), how many full ones, and the objects
                # the collector tracks at the end (more games alive: longer full collections).
                "gc by generation": collections.longest_by_generation(),
                "full collections": collections.generations.count(2),
                "gc tracked": tracked,
                "computer turns": tally.turns,
                "computer decisions": tally.actions,
                "computer turns cut off": tally.cut_off,
                "computer tables over": over,
                "think wait p50": bb.pct(tally.waits, 0.5),
                "think wait max": max(tally.waits, default=float("nan")),
                "cpu computers s": cpu_think,
                "cpu draw s": cpu_draw,
                "cpu bot s": cpu_main,
                "load": [round(x, 2) for x in load_start],
                "load before setup": [round(x, 2) for x in load_before],
                "load after": [round(x, 2) for x in os.getloadavg()],
            }


def main(argv: list[str] | None = None) -> int:
    """Rounds with and without the computer tables; prints each run and the targets' verdict."""
    parser = argparse.ArgumentParser(prog="bench_computers", description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=50, help="people's games acting at once")
    parser.add_argument("--computers", type=int, default=20, help="tables of hard computers beside them")
    parser.add_argument("--actions", type=int, default=24)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=2, help="rounds, each with and without computers")
    parser.add_argument("--workers", type=int, default=None, help="computer workers (default: the config's)")
    parser.add_argument("--level", default="hard", choices=("easy", "normal", "hard"))
    parser.add_argument(
        "--turns-nice",
        type=int,
        default=None,
        help="the computers' turns at this nice (default: as the bot runs them, in the idle class)",
    )
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    workers = computer_workers() if args.workers is None else args.workers
    os.environ.setdefault("PYTHONHASHSEED", "0")
    rows: list[tuple[int, dict[str, Any], dict[str, Any]]] = []
    from bot.process.event_loop import default_event_loop, run_on

    pooled: dict[str, list[float]] = {"without": [], "with": []}
    for n in range(args.repeat):
        # Each round its own deals (a seed of its own), the same for its two runs: like with like.
        seed = args.seed + 1000 * n
        order = (0, args.computers) if n % 2 == 0 else (args.computers, 0)
        runs = {
            c: run_on(
                default_event_loop(),
                one_run(args.games, c, args.actions, seed, workers, args.level, args.turns_nice),
            )
            for c in order
        }
        without, with_ = runs[0], runs[args.computers]
        pooled["without"] += without.pop("whole")
        pooled["with"] += with_.pop("whole")
        for name, r in (("without computers", without), (f"with {args.computers} computer tables", with_)):
            shown = {k: round(v, 1) if isinstance(v, float) else v for k, v in r.items()}
            print(f"round {n + 1}, {name}:", json.dumps(shown), flush=True)
        rows.append((n + 1, without, with_))
    print(
        f"bench_computers: {args.games} games of 3 people acting at once ({args.actions} actions a game) "
        f"beside {args.computers} tables of {SEATS} {args.level} computers each playing by themselves, "
        f"{workers} computer worker(s) "
        f"({'in the idle class' if args.turns_nice is None else f'at nice {args.turns_nice}'}), "
        f"{os.cpu_count()} cores"
    )
    head = ("round", "run", "secs", "stall", "st cpu", "cb cpu", "gc cpu", "p99", "turns", "decis", "cut",
            "cpu cmp", "cpu bot", "cpu draw", "load")  # fmt: skip
    print(f"{head[0]:<6}{head[1]:<8}" + "".join(f"{h:>9}" for h in head[2:]))
    for k, without, with_ in rows:
        for name, r in (("without", without), ("with", with_)):
            load = "/".join(f"{x:.1f}" for x in r["load"][:1] + r["load after"][:1])
            print(
                f"{k:<6}{name:<8}{r['seconds']:>9.1f}{r['stall max']:>9.1f}{r['stall cpu']:>9.1f}"
                f"{r['callback cpu']:>9.1f}{r['gc max']:>9.1f}{r['whole p99']:>9.0f}{r['computer turns']:>9}"
                f"{r['computer decisions']:>9}{r['computer turns cut off']:>9}{r['cpu computers s']:>9.1f}"
                f"{r['cpu bot s']:>9.1f}{r['cpu draw s']:>9.1f}{load:>9}"
            )
    ratios = [with_["whole p99"] / without["whole p99"] for _, without, with_ in rows]
    for line in LEGEND:
        print(line)
    for k, _, with_ in rows:
        print(f"  round {k}, with computers: longest callback {with_['callback'][:160]}")
        for name, r in (("without", rows[k - 1][1]), ("with", with_)):
            print(
                f"  round {k}, {name} computers: longest collection by generation {r['gc by generation']} ms"
                f" CPU, {r['full collections']} full, {r['gc tracked']:,} objects tracked at the end"
            )
        print(
            f"  round {k}, with computers: a computer turn waited for and thought in its worker p50 "
            f"{with_['think wait p50']:.0f} ms, max {with_['think wait max']:.0f} ms; "
            f"{with_['computer turns cut off']} cut off before their answer; "
            f"{with_['computer tables over']} computer tables over"
        )
    stalls = [with_["stall max"] for _, _, with_ in rows]
    cpu_stalls = [with_["stall cpu"] for _, _, with_ in rows]
    callbacks = [with_["callback cpu"] for _, _, with_ in rows]
    import bench_bot as bb

    p99 = {k: bb.pct(v, 0.99) for k, v in pooled.items()}
    ratio = p99["with"] / p99["without"]
    print(
        f"interaction p99 over all rounds' {len(pooled['without'])} / {len(pooled['with'])} interactions: "
        f"{p99['with']:.0f} ms with computers, {p99['without']:.0f} ms without: {ratio:.2f}x; each round's: "
        f"{', '.join(f'{x:.2f}x' for x in ratios)}"
    )
    checks = {
        "longest loop stall <= 50 ms with computers (wall)": max(stalls) <= 50,
        "longest loop stall <= 50 ms with computers (loop CPU)": max(cpu_stalls) <= 50,
        "no single callback > 50 ms with computers": max(callbacks) <= 50,
        "interaction p99 within 1.2x of the runs without computers (all rounds pooled)": ratio <= 1.2,
        "the computers played during the clock": all(with_["computer decisions"] > 0 for _, _, with_ in rows),
    }
    for name, ok in checks.items():
        print(f"  {name}: {'met' if ok else 'NOT met'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
