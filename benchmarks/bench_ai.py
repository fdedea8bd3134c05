"""Computer players' strength and speed: one player against three (or n-1) greedy players.

    python benchmarks/bench_ai.py [--games 200] [--players 4] [--jobs 2] [--player hard] [--levy]
        [--first-seed 1] [--second-seed 1001] [--small 100] [--map aegean] [--hard NAME=VALUE ...] [--in-bot]

Game i (seed i) seats the tested player at seat i mod n, so every seat is played equally often. Printed:
the tested player's win share with its Wilson 95% interval (a shared victory counts as a share, D9) and per
seat, the time per decision (median, p90, p95, max; the hard player is given a deadline of 2.5 s, as the bot
gives it), the machine's load, and in the same run a baseline: a greedy player in the tested seat, whose
fair share is 1/n. ``--second-seed`` plays the tested player again on a second, disjoint range of games;
``--small`` adds its games against one greedy player on the small map. ``--levy`` also measures the greedy
player's levy judgement against the old one (``GreedyPlayer(levy_rivals=0)``): the share of its levies
where the rivals together gain more, and the new player's win share against three old ones. ``--in-bot``
runs benchmarks/bench_computers.py after them: the bot's loop and interactions with 20 tables of hard
computers thinking beside 50 games of people (issue 29).
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from multiprocessing import get_context
from pathlib import Path
from typing import TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import ai, rules  # noqa: E402
from engine.actions import Action  # noqa: E402
from engine.actions import Levy as LevyAction  # noqa: E402
from engine.maps import default_map, packaged_map  # noqa: E402
from engine.state import GameState  # noqa: E402

OLD_GREEDY = ai.GreedyPlayer(levy_rivals=0.0)  # the greedy player before its levy judgement was improved
DEADLINE = 2.5  # seconds: the hard player stops searching then (a hard cap of 3 s per decision)


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a share (95% for z = 1.96)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, centre - half), min(1.0, centre + half)


T = TypeVar("T")
Levy = tuple[bool, bool]  # the rivals together gain more; some rival gains more


# tested, field, map, players, seed, the hard player's changed fields
Work = tuple[str, str, str, int, int, tuple[tuple[str, float], ...]]


def _play(args: Work) -> tuple[float, list[float], list[Levy]]:
    """One game: the tested player in seat seed % n, the others by ``field``; its win share, its decision
    times (seconds) and, for each of its levies, whether the rivals together, and one rival alone, gained
    more than it did."""
    tested, field, map_name, players, seed, options = args
    hard = hard_variant(options)
    game_map = default_map() if map_name == "empire" else packaged_map(map_name)
    seat = seed % players
    times: list[float] = []
    levies: list[Levy] = []
    player = _player(tested)

    def timed(state: GameState, rng: random.Random) -> Action:
        start = time.perf_counter()
        if tested == "hard":  # the bot's way: a deadline on its own clock
            action = hard(state, rng, deadline=lambda: time.perf_counter() - start > DEADLINE)
        else:
            action = player(state, rng)
        times.append(time.perf_counter() - start)
        if isinstance(action, LevyAction):
            gains = [pts for pts, _ in rules.levy_scores(state)]
            me = state.current
            rivals = [g for q, g in enumerate(gains) if q != me]
            levies.append((sum(rivals) > gains[me], max(rivals) > gains[me]))
        return action

    seats: list[ai.Player] = [timed if i == seat else _player(field) for i in range(players)]
    state, _, _ = ai.play_game(game_map, players, seed, ai=seats, check=False)
    assert state.result is not None
    winners = state.result.winners
    return (1 / len(winners) if seat in winners else 0.0), times, levies


def hard_variant(options: tuple[tuple[str, float], ...]) -> ai.HardPlayer:
    """The hard player with some of its fields changed (``--hard NAME=VALUE``): one idea to measure."""
    fields = ai.HardPlayer.__dataclass_fields__
    kwargs: dict[str, float | int] = {}
    for name, value in options:
        if name not in fields:
            raise SystemExit(f"HardPlayer has no field {name!r}")
        kwargs[name] = int(value) if value == int(value) and fields[name].type == "int" else value
    return ai.HardPlayer(**kwargs)  # type: ignore[arg-type]


def _player(name: str) -> ai.Player:
    if name == "old-greedy":
        return OLD_GREEDY
    return ai.PLAYERS[name]


class _Serial:
    """One process: the games one after another, with the pool's ``imap``."""

    def __enter__(self) -> _Serial:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def imap(self, play: Callable[[Work], T], work: list[Work], chunksize: int = 1) -> Iterator[T]:
        return map(play, work)


def run(
    tested: str,
    field: str,
    games: int,
    players: int,
    jobs: int,
    map_name: str,
    options: tuple[tuple[str, float], ...] = (),
    first_seed: int = 1,
) -> dict[str, float]:
    seeds = range(first_seed, first_seed + games)
    work = [(tested, field, map_name, players, seed, options) for seed in seeds]
    play: Callable[[Work], tuple[float, list[float], list[Levy]]] = _play
    results = []
    with get_context("spawn").Pool(jobs) if jobs > 1 else _Serial() as pool:
        for k, result in enumerate(pool.imap(play, work, chunksize=1), start=1):
            results.append(result)
            if k % 20 == 0:
                share = sum(r[0] for r in results) / k
                print(f"  ... {k} games, {tested} wins {100 * share:.1f}%", file=sys.stderr, flush=True)
    per_seat = {
        f"seat{q}": sum(r[0] for seed, r in zip(seeds, results, strict=True) if seed % players == q)
        / max(1, sum(1 for seed in seeds if seed % players == q))
        for q in range(players)
    }
    wins = sum(r[0] for r in results)
    times = sorted(t for r in results for t in r[1])
    levies = [x for r in results for x in r[2]]
    lo, hi = wilson(wins, games)
    return {
        "share": wins / games,
        "lo": lo,
        "hi": hi,
        "median": statistics.median(times) if times else 0.0,
        "p90": times[int(0.9 * (len(times) - 1))] if times else 0.0,
        "p95": times[int(0.95 * (len(times) - 1))] if times else 0.0,
        "max": times[-1] if times else 0.0,
        "levies": len(levies) / games,
        "rivals_more": sum(a for a, _ in levies) / len(levies) if levies else 0.0,
        "a_rival_more": sum(b for _, b in levies) / len(levies) if levies else 0.0,
        "load": os.getloadavg()[0],
        **per_seat,
    }


def report(label: str, r: dict[str, float], players: int) -> None:
    print(
        f"{label}: wins {100 * r['share']:.1f}% [95% CI {100 * r['lo']:.1f}-{100 * r['hi']:.1f}%] "
        f"(fair {100 / players:.0f}%); per decision median {1000 * r['median']:.1f} ms, "
        f"p90 {1000 * r['p90']:.1f} ms, p95 {1000 * r['p95']:.1f} ms, max {1000 * r['max']:.1f} ms; "
        f"levies {r['levies']:.1f}/game, where the rivals together gain more {100 * r['rivals_more']:.0f}%, "
        f"one rival alone gains more {100 * r['a_rival_more']:.0f}%; per seat "
        + " / ".join(f"{100 * r[f'seat{q}']:.0f}" for q in range(players))
        + f"%; load {r['load']:.1f} (1-minute average at the end)",
        flush=True,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--players", type=int, default=4, choices=(2, 3, 4))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--player", default="hard", choices=[*sorted(ai.PLAYERS), "none"])
    parser.add_argument("--map", default="empire", help="a packaged map's name")
    parser.add_argument("--levy", action="store_true", help="also compare greedy with the old greedy")
    parser.add_argument("--no-baseline", action="store_true")
    parser.add_argument(
        "--hard",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="change a field of the tested HardPlayer (repeatable), e.g. --hard worlds=6",
    )
    parser.add_argument(
        "--first-seed",
        type=int,
        default=1,
        help="games are seeded first-seed, first-seed + 1, ... (a check on other games than 1..200)",
    )
    parser.add_argument(
        "--second-seed",
        type=int,
        default=0,
        help="also play the tested player on the games seeded from here (a second, disjoint range)",
    )
    parser.add_argument(
        "--small",
        type=int,
        default=0,
        metavar="GAMES",
        help="also play the tested player against one greedy player on the small map, seeds 1..GAMES",
    )
    parser.add_argument(
        "--in-bot", action="store_true", help="then the bot beside 20 computer tables (bench_computers)"
    )
    args = parser.parse_args()
    options = tuple((k, float(v)) for k, v in (o.split("=", 1) for o in args.hard))
    seeds = f"seeds {args.first_seed}-{args.first_seed + args.games - 1}"
    print(
        f"{args.games} games ({seeds}), {args.players} players, map {args.map}, {args.jobs} processes; "
        f"load {os.getloadavg()[0]:.1f}"
    )

    def measure(label: str, tested: str, field: str, first: int = args.first_seed) -> None:
        r = run(tested, field, args.games, args.players, args.jobs, args.map, options, first)
        report(f"{label}, seeds {first}-{first + args.games - 1}", r, args.players)

    if not args.no_baseline:
        measure("baseline greedy vs greedy", "greedy", "greedy")
    if args.levy:
        measure("old greedy vs old greedy", "old-greedy", "old-greedy")
        measure("greedy vs old greedy", "greedy", "old-greedy")
    if args.player != "none":
        extra = " (" + ", ".join(args.hard) + ")" if args.hard and args.player == "hard" else ""
        measure(f"{args.player}{extra} vs greedy", args.player, "greedy")
        if args.second_seed:
            measure(f"{args.player}{extra} vs greedy", args.player, "greedy", args.second_seed)
        if args.small:
            r = run(args.player, "greedy", args.small, 2, args.jobs, "aegean", options)
            report(f"{args.player}{extra} vs 1 greedy on the small map (aegean), seeds 1-{args.small}", r, 2)
    if args.in_bot:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import bench_computers

        return int(bench_computers.main([]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
