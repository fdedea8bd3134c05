"""Self-play simulations: many seeded games by computer players, checked as they go, with summary figures.

``python -m engine simulate --games N --players K --seed S [--ai greedy|random] [--from FILE] [--json]``

``--from FILE`` starts every game from a position written in engine.notation's position notation (its
map: the packaged one with that digest, ``--map``, or the map written into the file).

Game i uses seed S+i for both the deal and the computer players, so a run is the same on every machine.
Every invariant of ``engine.invariants`` is checked after every action, every action goes through the
fully checked ``apply``, and a sample of games is also replayed from its events and sent through the JSON
codec, both of which must give back the final state exactly. The coverage line (engine.coverage) tells
how far the walls spread over the map's regions. These figures are how the packaged maps' size and wall
supply were tuned (tools/design_map.py).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from multiprocessing import get_context
from typing import Any

from engine import coverage, playout, serialize
from engine.ai import PLAYERS, play_game
from engine.game import replay
from engine.maps import Map, default_map, load_map
from engine.state import GameState


@dataclass
class GameSummary:
    seed: int
    players: int
    turns: int
    reason: str
    scores: list[int]
    winners: list[int]
    actions: dict[str, int]
    ms: float
    violations: list[str] = field(default_factory=list)
    east_touched: float = 0.0  # engine.coverage: share of the eastern regions' spaces that walls touch
    west_touched: float = 0.0
    far_reached: bool = False
    largest_province: float = 0.0  # share of the land
    first_player: int | None = None
    replay_checked: bool = False
    replay_ok: bool = True
    json_ok: bool = True

    def line(self) -> str:
        acts = " ".join(f"{k}={v}" for k, v in sorted(self.actions.items()))
        flags = ""
        if self.violations:
            flags += f" VIOLATIONS={len(self.violations)}"
        if not self.replay_ok:
            flags += " REPLAY-MISMATCH"
        if not self.json_ok:
            flags += " JSON-MISMATCH"
        scores = "/".join(str(s) for s in self.scores)
        return (
            f"seed {self.seed}: {self.turns} turns, {self.reason}, scores {scores}, "
            f"winner {','.join(str(w) for w in self.winners)}, {acts}, {self.ms:.0f} ms{flags}"
        )


def run_game(
    game_map: Map, players: int, seed: int, ai: str, check_replay: bool, position: GameState | None = None
) -> GameSummary:
    """Play one checked game (from ``position`` when given); optionally replay it and round-trip its final
    state through JSON."""
    start = time.perf_counter()
    if position is None:
        state, events, stats = play_game(game_map, players, seed, ai=ai, check=True)
    else:
        state, events, stats = playout.play_from(position, seed, ai)
    ms = (time.perf_counter() - start) * 1000
    result = state.result
    summary = GameSummary(
        seed=seed,
        players=players,
        turns=stats.turns,
        reason=result.reason.value if result else "unfinished",
        scores=[p.score for p in state.players],
        winners=list(result.winners) if result else [],
        actions=stats.actions,
        ms=ms,
        violations=list(stats.violations),
    )
    cov = coverage.game_coverage(state, events)
    summary.east_touched, summary.west_touched = cov.east_touched, cov.west_touched
    summary.far_reached, summary.largest_province = cov.far_reached, cov.largest_province
    summary.first_player = cov.first_player
    if check_replay:
        summary.replay_checked = True
        summary.replay_ok = (replay(events) if position is None else playout.fold(position, events)) == state
        summary.json_ok = _round_trips(state) and all(_round_trips(e) for e in events[:50])
    return summary


def _round_trips(value: Any) -> bool:
    return bool(serialize.loads(serialize.dumps(value)) == value)


def _run(args: tuple[str, int, int, str, bool, str | None]) -> GameSummary:
    map_text, players, seed, ai, check_replay, position_text = args
    from engine.maps import parse_map

    game_map = parse_map(map_text)
    position = playout.read_position(position_text, game_map) if position_text else None
    return run_game(game_map, players, seed, ai, check_replay, position)


def _percentile(values: Sequence[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def aggregate(games: Sequence[GameSummary]) -> dict[str, Any]:
    """The run's figures; ``turns_*`` count single players' turns (``GameState.turn``)."""
    turns = [g.turns for g in games]
    reasons: dict[str, int] = {}
    for g in games:
        reasons[g.reason] = reasons.get(g.reason, 0) + 1
    actions: dict[str, int] = {}
    for g in games:
        for k, v in g.actions.items():
            actions[k] = actions.get(k, 0) + v
    n = max(len(games), 1)
    wall_ends = reasons.get("walls", 0) + reasons.get("no-space", 0)
    seats = games[0].players if games else 0
    by_seat = [0.0] * seats
    by_order = [0.0] * seats  # 0 = the starting player (R2.4), then clockwise
    for g in games:
        for w in g.winners:
            by_seat[w] += 1 / len(g.winners)  # D9: a shared victory is shared here too
            if g.first_player is not None:
                by_order[(w - g.first_player) % seats] += 1 / len(g.winners)
    return {
        "games": len(games),
        "players": games[0].players if games else 0,
        "turns_median": statistics.median(turns) if turns else 0,
        "turns_p10": _percentile(turns, 0.1),
        "turns_p90": _percentile(turns, 0.9),
        "turns_min": min(turns, default=0),
        "turns_max": max(turns, default=0),
        "end_reasons": reasons,
        "end_share_walls": round(wall_ends / n, 3),
        "end_share_points": round(reasons.get("points", 0) / n, 3),
        "score_max_median": statistics.median(max(g.scores) for g in games) if games else 0,
        "score_min_median": statistics.median(min(g.scores) for g in games) if games else 0,
        "east_touched": round(sum(g.east_touched for g in games) / n, 3),
        "west_touched": round(sum(g.west_touched for g in games) / n, 3),
        "far_reached": round(sum(1 for g in games if g.far_reached) / n, 3),
        "largest_province_mean": round(sum(g.largest_province for g in games) / n, 3),
        "largest_province_p90": round(_percentile([g.largest_province for g in games], 0.9), 3),
        "win_share_by_seat": [round(w / n, 3) for w in by_seat],
        "win_share_by_turn_order": [round(w / n, 3) for w in by_order],
        "actions_per_game": {k: round(v / n, 2) for k, v in sorted(actions.items())},
        "invariant_violations": sum(len(g.violations) for g in games),
        "replays_checked": sum(1 for g in games if g.replay_checked),
        "replay_mismatches": sum(1 for g in games if not g.replay_ok),
        "json_mismatches": sum(1 for g in games if not g.json_ok),
        "ms_per_game_median": round(statistics.median(g.ms for g in games), 1) if games else 0,
        "ms_per_game_p90": round(_percentile([g.ms for g in games], 0.9), 1),
    }


def coverage_line(figures: dict[str, Any], game_map: Map) -> str:
    """The coverage figures (engine.coverage) as one line of text."""
    reg = coverage.regions(game_map)

    def pct(x: float) -> str:
        return f"{100 * x:.0f}%"

    seats = "/".join(pct(x) for x in figures["win_share_by_seat"])
    order = "/".join(pct(x) for x in figures["win_share_by_turn_order"])
    return (
        f"coverage: walls touch {pct(figures['east_touched'])} of the east "
        f"({', '.join(r for r in reg.names if r in reg.east) or 'none'}) and "
        f"{pct(figures['west_touched'])} of the west; {reg.far or 'the far region'} reached in "
        f"{pct(figures['far_reached'])} of games; largest province at the end "
        f"{pct(figures['largest_province_mean'])} of the land (p90 {pct(figures['largest_province_p90'])}); "
        f"wins by seat {seats}, by turn order {order}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine simulate", description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--players", type=int, default=4, choices=(2, 3, 4))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ai", default="greedy", choices=sorted(PLAYERS))
    parser.add_argument("--map", help="a map file (default: the packaged empire map)")
    parser.add_argument("--replay-every", type=int, default=10, metavar="K",
                        help="replay and JSON-check every K-th game (default 10; 1 = all)")
    parser.add_argument("--jobs", type=int, default=1, help="games played in parallel processes")
    parser.add_argument("--json", action="store_true", help="end with one line of JSON figures")
    parser.add_argument("--quiet", action="store_true", help="no per-game lines")
    parser.add_argument("--from", dest="position", metavar="FILE", help="start every game from this position")
    args = parser.parse_args(argv)

    game_map = load_map(args.map) if args.map else default_map()
    position_text, start = None, None
    if args.position:
        with open(args.position, encoding="utf-8") as f:
            position_text = f.read()
        start = playout.read_position(position_text, game_map if args.map else None)
        game_map, args.players = start.map, len(start.players)
    every = max(args.replay_every, 1)
    jobs = [
        (game_map.text, args.players, args.seed + i, args.ai, i % every == 0, position_text)
        for i in range(args.games)
    ]
    games: list[GameSummary] = []
    if args.jobs > 1:
        with get_context("spawn").Pool(args.jobs) as pool:
            for summary in pool.imap(_run, jobs):
                games.append(summary)
                if not args.quiet:
                    print(summary.line(), flush=True)
    else:
        for _text, players, seed, ai, check_replay, _ in jobs:
            summary = run_game(game_map, players, seed, ai, check_replay, start)
            games.append(summary)
            if not args.quiet:
                print(summary.line(), flush=True)
    for g in games:
        for v in g.violations[:5]:
            print(f"seed {g.seed}: {v}", file=sys.stderr)
    figures = aggregate(games)
    figures.update(map=game_map.name, ai=args.ai, seed=args.seed)
    print(
        f"{figures['games']} games, {args.players} players, {args.ai}: "
        f"turns median {figures['turns_median']} "
        f"(p10 {figures['turns_p10']:.0f}, p90 {figures['turns_p90']:.0f}); ends {figures['end_reasons']}; "
        f"max score median {figures['score_max_median']}; {figures['ms_per_game_median']} ms/game; "
        f"violations {figures['invariant_violations']}, replay mismatches {figures['replay_mismatches']}, "
        f"json mismatches {figures['json_mismatches']}"
    )
    print(coverage_line(figures, game_map))
    if args.json:
        print(json.dumps(figures, sort_keys=True))
    bad = figures["invariant_violations"] or figures["replay_mismatches"] or figures["json_mismatches"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
