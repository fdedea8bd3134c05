"""Engine speed on the default map (a script, not a test): ``python benchmarks/bench_engine.py [--games N]``.

Figures, each a median over many mid-game positions taken from seeded greedy 4-player games:

(a) the move options for both face-up cards: rules.move_choices, then rules.targets (with every corner
    option) for each face-up card's symbol, as the bot's autocomplete asks them (target < 2 ms);
(b) province recomputation after a move: rules.splits_after for the walls the move placed;
(c) a whole greedy 4-player game without checks (target < 1 s), and with every action fully checked;
plus the cost of applying one move;
(d) loading a 944-space map (the default map tiled 2 x 2; target <= 200 ms, memory linear in the map),
    side by side with the old way, which also built the all-pairs distance table (kept here as baseline);
(e) the snapshot codec: engine.snapshot (lean, without the map) against engine.serialize (old), dump+load
    through JSON text, side by side (target: >= 5x faster);
(f) a commit's two snapshot texts (the state's, and the public one of its picture's duty), written from the
    parts kept as text (``dumps_state``, ``dumps_public``) against ``json.dumps`` of the same documents, on
    copies (which keep nothing yet, as a commit's new state) of every state of whole 3-player games,
    alternating rounds.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import tracemalloc  # noqa: E402
from collections import deque  # noqa: E402

from engine import maps as engine_maps  # noqa: E402
from engine import rules, serialize, snapshot  # noqa: E402
from engine.actions import Move  # noqa: E402
from engine.ai import greedy_player, play_game  # noqa: E402
from engine.game import apply, new_game  # noqa: E402
from engine.geometry import Point  # noqa: E402
from engine.maps import default_map  # noqa: E402
from engine.state import GameState, Phase  # noqa: E402
from tests.engine.bigmap import tiled_map_text  # noqa: E402


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


def destinations_for_face_up(state: GameState) -> int:
    """The new one-call query of the guided move, with up to 25 cheapest paths per point."""
    n = 0
    for choice in rules.move_choices(state):
        if choice.slot is not None and choice.way is not choice.way.JOKER:
            n += len(rules.destinations(state, choice))
    return n


def old_all_distances(adjacent: dict[Point, tuple[Point, ...]]) -> dict[Point, dict[Point, int]]:
    """The all-pairs distance table every Map built before (quadratic), kept as the baseline of (d)."""
    out: dict[Point, dict[Point, int]] = {}
    for origin in adjacent:
        dist = {origin: 0}
        queue = deque([origin])
        while queue:
            p = queue.popleft()
            for q in adjacent[p]:
                if q not in dist:
                    dist[q] = dist[p] + 1
                    queue.append(q)
        out[origin] = dist
    return out


def map_load() -> None:
    text = tiled_map_text(2, 2)
    parse = engine_maps._parse_cached.__wrapped__  # past the per-text cache: a real load every time

    def new() -> object:
        return parse(text, "tiled.map")

    def old() -> object:
        m = parse(text, "tiled.map")
        return m, old_all_distances(dict(m.adjacent))

    def size(fn: Callable[[], object]) -> float:
        tracemalloc.start()
        kept = fn()
        current, _ = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        del kept
        return current / 1e6

    m = new()
    assert isinstance(m, engine_maps.Map)
    t_old, t_new = timed(old, 3), timed(new, 5)
    m_old, m_new = size(old), size(new)
    verdict = "OK" if t_new <= 200 else "OVER TARGET 200 ms"
    print(
        f"(d) load a {len(m.spaces)}-space map ({len(m.points)} points): "
        f"old {t_old:7.1f} ms {m_old:5.1f} MB  new {t_new:6.1f} ms {m_new:5.1f} MB   "
        f"{t_old / t_new:5.1f}x faster, {m_old / m_new:5.1f}x less memory {verdict}"
    )
    m.distance[m.start]  # noqa: B018 - one origin's table on demand
    t_bfs = timed(lambda: m.distance._search(m.start), 20)
    print(
        f"    ... one distance table on demand (BFS from a point, then cached): {t_bfs:.3f} ms; "
        f"cache bound {m.distance.capacity} tables"
    )
    for across, down in ((1, 1), (2, 1), (2, 2)):
        tiled = tiled_map_text(across, down)

        def loaded(tiled: str = tiled) -> object:
            return parse(tiled, "tiled.map")

        def filled(tiled: str = tiled) -> object:
            big = parse(tiled, "tiled.map")
            for p in big.points:
                big.distance[p]  # noqa: B018 - the cache at its bound
            return big

        spaces = len(parse(tiled, "tiled.map").spaces)
        print(
            f"    memory, {spaces:4d} spaces: loaded {size(loaded):5.2f} MB, every distance cache slot "
            f"full {size(filled):5.2f} MB"
        )


def codec(positions: list[tuple[GameState, Move]]) -> None:
    states = [s for s, _ in positions[::3]]
    lookup = snapshot.maps_by_digest(default_map())
    old = [timed(lambda s=s: serialize.loads(serialize.dumps(s)), 3) for s in states]
    # A copy of each state, which keeps no text yet (dumps_state keeps its text with the state).
    new = [
        timed(lambda s=s: snapshot.loads_state(snapshot.dumps_state(dataclasses.replace(s)), lookup), 3)
        for s in states
    ]
    ratio = statistics.median(old) / statistics.median(new)
    size_old = statistics.median(len(serialize.dumps(s)) for s in states)
    size_new = statistics.median(len(snapshot.dumps_state(s)) for s in states)
    verdict = "OK" if ratio >= 5 else "UNDER TARGET 5x"
    print(
        f"(e) state codec dump+load (JSON text), {len(states)} states: old serialize "
        f"{statistics.median(old):.3f} ms {size_old:.0f} B   new snapshot {statistics.median(new):.3f} ms "
        f"{size_new:.0f} B (no map text)   {ratio:.1f}x faster {verdict}"
    )


def whole_games(games: int, players: int = 3) -> list[GameState]:
    """Every state of seeded greedy games, as the engine makes them one action after another: a commit's new
    states, P10's trails among them."""
    out = []
    for seed in range(1, games + 1):
        state, _ = new_game(default_map(), players, seed)
        rng = random.Random(seed)
        while state.phase is not Phase.OVER:
            state = apply(state, greedy_player(state, rng))[0]
            out.append(state)
    return out


def snapshot_texts(states: list[GameState], rounds: int = 5) -> None:
    with_trail = sum(1 for s in states if snapshot.dump_state(s).get("undo") is not None)

    def whole(st: GameState) -> None:
        json.dumps(snapshot.dump_state(st), separators=(",", ":"))
        json.dumps(snapshot.dump_public(st), separators=(",", ":"))

    def kept(st: GameState) -> None:
        snapshot.dumps_state(st)
        snapshot.dumps_public(st)

    best = {whole: float("inf"), kept: float("inf")}
    for k in range(rounds):
        for way in (whole, kept) if k % 2 == 0 else (kept, whole):
            copies = [dataclasses.replace(s) for s in states]  # nothing kept with them
            t = time.perf_counter()
            for c in copies:
                way(c)
            best[way] = min(best[way], (time.perf_counter() - t) / len(copies) * 1e6)
    print(
        f"(f) a commit's two snapshot texts, {len(states)} states ({with_trail} with P10's trail), best of "
        f"{rounds} rounds: json.dumps {best[whole]:.1f} us, from parts kept as text {best[kept]:.1f} us "
        f"({best[whole] / best[kept]:.1f}x faster)"
    )


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
    report(
        "(a) move options for both face-up cards",
        [timed(lambda s=s: options_for_face_up(s)) for s, _ in positions],
        target=2.0,
    )
    walls = [(s, rules.new_walls(s, m.path)) for s, m in positions]
    report(
        "(b) provinces after a move: splits_after",
        [timed(lambda s=s, w=w: rules.splits_after(s, w)) for s, w in walls],
    )
    splitting = [(s, w) for s, w in walls if rules.splits_after(s, w)]
    if splitting:
        report(
            f"(b) ... only the {len(splitting)} moves that split a province",
            [timed(lambda s=s, w=w: rules.splits_after(s, w)) for s, w in splitting],
        )
    report(
        "    the same by rules.destinations (with cheapest paths)",
        [timed(lambda s=s: destinations_for_face_up(s)) for s, _ in positions],
        target=2.0,
    )
    report("    apply one move (fully checked)", [timed(lambda s=s, m=m: apply(s, m)) for s, m in positions])
    map_load()
    codec(positions)
    snapshot_texts(whole_games(max(1, args.games // 5)))

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
