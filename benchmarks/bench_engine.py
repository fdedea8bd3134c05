"""Engine speed on the default map (a script, not a test): ``python benchmarks/bench_engine.py [--games N]``.

Figures, each a median over many mid-game positions taken from seeded greedy 4-player games:

(a) the move options for both face-up cards: rules.move_choices, then rules.targets (with every corner
    option) for each face-up card's symbol, as the bot's autocomplete asks them (target < 2 ms);
(b) province recomputation after a move: rules.splits_after for the walls the move placed;
(c) a whole greedy 4-player game without checks (target < 1 s), and with every action fully checked;
plus the cost of applying one move and of the JSON round trip of a mid-game state.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import rules, serialize  # noqa: E402
from engine.actions import Move  # noqa: E402
from engine.ai import greedy_player, play_game  # noqa: E402
from engine.game import apply, new_game  # noqa: E402
from engine.maps import default_map  # noqa: E402
from engine.state import GameState, Phase  # noqa: E402


def timed(fn: Callable[[], object], repeat: int = 5) -> float:
    """The best of ``repeat`` runs, in ms: the least disturbed by the other core's work."""
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, (time.perf_counter() - t) * 1000)
    return best


def midgame_positions(games: int) -> list[tuple[GameState, Move]]:
    """Move-phase states from turn 6 on, with the move the greedy player made there."""
    out = []
    game_map = default_map()
    for seed in range(1, games + 1):
        state, _ = new_game(game_map, 4, seed)
        rng = random.Random(seed)
        while state.phase is not Phase.OVER:
            action = greedy_player(state, rng)
            if isinstance(action, Move) and state.turn >= 6:
                out.append((state, action))
            state, _ = apply(state, action)
    return out


def options_for_face_up(state: GameState) -> int:
    n = 0
    choices = rules.move_choices(state)
    for sym in {c.symbol for c in choices if c.slot is not None}:
        for t in rules.targets(state, sym):
            n += len(t.corners)
    return n


def report(name: str, values: list[float], target: float | None = None) -> None:
    med = statistics.median(values)
    p90 = sorted(values)[int(len(values) * 0.9)]
    verdict = "" if target is None else (" OK" if med < target else f" OVER TARGET {target} ms")
    print(f"{name:<58} median {med:8.3f} ms   p90 {p90:8.3f} ms   max {max(values):8.3f} ms{verdict}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10, help="whole games to time (positions: from half)")
    args = parser.parse_args(argv)
    game_map = default_map()
    spaces, symbols = len(game_map.spaces), len(game_map.symbol_spaces)
    print(f"map {game_map.name!r}: {spaces} spaces, {symbols} symbol spaces")

    positions = midgame_positions(max(3, args.games // 2))
    print(f"{len(positions)} mid-game positions")
    report("(a) move options for both face-up cards",
           [timed(lambda s=s: options_for_face_up(s)) for s, _ in positions], target=2.0)
    walls = [(s, rules.new_walls(s, m.path)) for s, m in positions]
    report("(b) provinces after a move: splits_after",
           [timed(lambda s=s, w=w: rules.splits_after(s, w)) for s, w in walls])
    splitting = [(s, w) for s, w in walls if rules.splits_after(s, w)]
    if splitting:
        report(f"(b) ... only the {len(splitting)} moves that split a province",
               [timed(lambda s=s, w=w: rules.splits_after(s, w)) for s, w in splitting])
    report("    apply one move (fully checked)", [timed(lambda s=s, m=m: apply(s, m)) for s, m in positions])
    report("    JSON round trip of a mid-game state",
           [timed(lambda s=s: serialize.loads(serialize.dumps(s)), repeat=2) for s, _ in positions[::5]])

    fast, checked = [], []
    for seed in range(1, args.games + 1):
        t = time.perf_counter()
        play_game(game_map, 4, seed, ai="greedy", check=False)
        fast.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        play_game(game_map, 4, seed, ai="greedy", check=True)
        checked.append((time.perf_counter() - t) * 1000)
    report("(c) whole greedy 4-player game", fast, target=1000.0)
    report("    ... with apply and every invariant after every action", checked)
    return 0


if __name__ == "__main__":
    sys.exit(main())
