"""Fit engine.outlook's weights: each player's chance to win a game still going, as greedy players play it on.

    python tools/fit_outlook.py [--set PLAYERS:MAP:GAMES ...] [--first-seed 100000] [--jobs 2]

Each set plays GAMES greedy games (seeds from ``--first-seed``; the benchmarks play seeds below 30,000) and
notes, at the start of every turn, every player's features (``GreedyPlayer.outlook_rows``), the share of
black walls left and the player to move; the game's winners (a shared victory as shares, D9) are the
answer. The weights maximise the likelihood of the winners under the conditional logit of engine.outlook,
by Newton's method with a small ridge (the Hessian taken on every eighth turn, the gradient on all). Games
whose seed is a multiple of 5 are held out: their Brier score and log-loss are printed beside those of the
weights engine.outlook holds now and of the fair share. The new ``WEIGHTS`` entries are printed as Python.

Sets given together are fitted together (for instance duels on both packaged maps); one run per number of
players. Pure Python: 8,000 four-player games take about 10 minutes with 2 jobs.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections.abc import Callable
from multiprocessing import get_context
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import ai, outlook  # noqa: E402
from engine.game import apply, new_game  # noqa: E402
from engine.maps import default_map, packaged_map  # noqa: E402
from engine.state import Phase  # noqa: E402

# (seed, t, player to move, each player's features, each player's share of the victory)
Turn = tuple[int, float, int, list[tuple[float, ...]], list[float]]
RIDGE = 1e-3  # per turn: keeps the weights of rare features (a guard count late in the game) finite
HESSIAN_EVERY = 8


def play(args: tuple[str, int, int]) -> list[Turn]:
    """One greedy game: its turns' features and its winners."""
    map_name, players, seed = args
    game_map = default_map() if map_name == "empire" else packaged_map(map_name)
    greedy = ai.GreedyPlayer()
    rng = random.Random(seed)
    state, _ = new_game(game_map, players, seed)
    seen: list[tuple[float, int, list[tuple[float, ...]]]] = []
    turn = -1
    while state.phase is not Phase.OVER:
        if state.turn != turn and state.phase is Phase.MOVE:
            turn = state.turn
            rows = [r for r in greedy.outlook_rows(state) if r is not None]
            seen.append((state.black_left / game_map.black_walls, state.current, rows))
        state, _ = apply(state, greedy(state, rng))
    assert state.result is not None
    winners = state.result.winners
    shares = [1.0 / len(winners) if j in winners else 0.0 for j in range(players)]
    return [(seed, t, current, rows, shares) for t, current, rows in seen]


def design(t: float, current: int, rows: list[tuple[float, ...]]) -> list[list[float]]:
    """Each player's row of the logit, in the order of the weights' vector (``unpack``)."""
    n = len(rows)
    out = []
    for j, r in enumerate(rows):
        x = list(r) + [v * t for v in r] + [v * t * t for v in r]
        order = [0.0] * (2 * (n - 1))
        wait = (j - current) % n
        if wait:
            order[2 * (wait - 1)] = 1.0
            order[2 * (wait - 1) + 1] = t
        out.append(x + order)
    return out


def unpack(
    w: list[float], players: int
) -> tuple[tuple[outlook.Weights, ...], tuple[tuple[float, float], ...]]:
    k = len(outlook.FEATURES)
    features = tuple((w[f], w[k + f], w[2 * k + f]) for f in range(k))
    order = tuple((w[3 * k + 2 * i], w[3 * k + 2 * i + 1]) for i in range(players - 1))
    return features, order


def probabilities(x: list[list[float]], w: list[float]) -> list[float]:
    u = [sum(a * b for a, b in zip(row, w, strict=True)) for row in x]
    top = max(u)
    e = [math.exp(v - top) for v in u]
    s = sum(e)
    return [v / s for v in e]


def solve(a: list[list[float]], b: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (the system is small)."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(c + 1, n):
            f = m[r][c] / m[c][c]
            if f:
                for k in range(c, n + 1):
                    m[r][k] -= f * m[c][k]
    x = [0.0] * n
    for c in range(n - 1, -1, -1):
        x[c] = (m[c][n] - sum(m[c][k] * x[k] for k in range(c + 1, n))) / m[c][c]
    return x


def fit(data: list[tuple[list[list[float]], list[float]]], size: int) -> list[float]:
    w = [0.0] * size
    ridge = RIDGE * len(data)
    for _ in range(25):
        g = [-ridge * v for v in w]
        h = [[ridge if i == j else 0.0 for j in range(size)] for i in range(size)]
        for s, (x, y) in enumerate(data):
            p = probabilities(x, w)
            for row, pj, yj in zip(x, p, y, strict=True):
                d = yj - pj
                if d:
                    for i, v in enumerate(row):
                        g[i] += d * v
            if s % HESSIAN_EVERY:
                continue
            mean = [sum(pj * row[i] for row, pj in zip(x, p, strict=True)) for i in range(size)]
            for row, pj in zip(x, p, strict=True):
                for i in range(size):
                    a = pj * (row[i] - mean[i])
                    if a:
                        hi = h[i]
                        for j in range(i, size):
                            hi[j] += HESSIAN_EVERY * a * (row[j] - mean[j])
        for i in range(size):
            for j in range(i):
                h[i][j] = h[j][i]
        step = solve(h, g)
        w = [a + b for a, b in zip(w, step, strict=True)]
        if max(abs(v) for v in step) < 1e-6:
            break
    return w


def scores(
    turns: list[Turn], chance: Callable[[float, int, list[tuple[float, ...]]], list[float]]
) -> tuple[float, float]:
    """Brier score (per player) and log-loss (per turn) of ``chance(t, current, rows)``."""
    brier = loss = 0.0
    cells = 0
    for _, t, current, rows, y in turns:
        p = chance(t, current, rows)
        brier += sum((a - b) ** 2 for a, b in zip(p, y, strict=True))
        loss -= sum(b * math.log(max(a, 1e-12)) for a, b in zip(p, y, strict=True))
        cells += len(y)
    return brier / cells, loss / len(turns)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--set", action="append", default=None, help="PLAYERS:MAP:GAMES (default 4:empire:8000)"
    )
    parser.add_argument("--first-seed", type=int, default=100_000)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    sets = [s.split(":") for s in (args.set or ["4:empire:8000"])]
    players = {int(p) for p, _, _ in sets}
    if len(players) != 1:
        raise SystemExit("one number of players per run")
    n = players.pop()
    work = [(m, n, args.first_seed + i) for _, m, g in sets for i in range(int(g))]
    start = time.perf_counter()
    turns: list[Turn] = []
    with get_context("spawn").Pool(args.jobs) as pool:
        for game in pool.imap(play, work, chunksize=8):
            turns.extend(game)
    print(f"{len(work)} games, {len(turns)} turns in {time.perf_counter() - start:.0f} s", flush=True)
    train = [(design(t, c, rows), y) for seed, t, c, rows, y in turns if seed % 5]
    held = [turn for turn in turns if turn[0] % 5 == 0]
    w = fit(train, len(train[0][0][0]))
    print(f"fitted in {time.perf_counter() - start:.0f} s")
    fitted = unpack(w, n)
    before = outlook.WEIGHTS.get(n)
    outlook.WEIGHTS[n] = fitted
    new = scores(held, lambda t, c, rows: outlook.chances(rows, t, c))
    if before is not None:
        outlook.WEIGHTS[n] = before
        old = scores(held, lambda t, c, rows: outlook.chances(rows, t, c))
        print(f"held out ({len(held)} turns): the weights now: Brier {old[0]:.4f}, log-loss {old[1]:.4f}")
    fair = scores(held, lambda t, c, rows: [1.0 / n] * n)
    print(f"held out ({len(held)} turns): fitted: Brier {new[0]:.4f}, log-loss {new[1]:.4f}")
    print(f"held out ({len(held)} turns): fair share: Brier {fair[0]:.4f}, log-loss {fair[1]:.4f}")
    features, order = fitted
    print(f"    {n}: (")
    print("        (")
    for a, b, c in features:
        print(f"            ({a:.5f}, {b:.5f}, {c:.5f}),")
    print("        ),")
    print(
        "        ("
        + ", ".join(f"({d:.5f}, {e:.5f})" for d, e in order)
        + ("," if len(order) == 1 else "")
        + "),"
    )
    print("    ),")


if __name__ == "__main__":
    main()
