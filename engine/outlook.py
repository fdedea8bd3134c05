"""The outlook of a game still going: each player's chance to win it (R10.3, D9) if greedy players play it on.

The hard player values the end of a play-out by it. A conditional logit over what each player has:

    P(j wins) = exp(u_j) / sum over the players still in the game of exp(u_k),
    u_j = sum over the features f of x_jf * (a_f + b_f * t + c_f * t * t) + order(j),

where the features x_j are the player's score, income (what a levy would pay now, R7.3), cards (the greedy
player's diminishing value of the hand's size), guards in supply (R6) and reach (the best free province its
hand and guards could occupy now, R6.1-R6.2); t is the share of black walls still left (1 at the start, 0
at the end by walls, R10.1); and order(j) = d + e * t, by how many turns the player waits before it
moves (0 for the player to move).

The weights were fitted by ``tools/fit_outlook.py`` (maximum likelihood) to the turns of greedy games the
benchmarks never play (seeds from 100,000; issue 29): 8,000 four-player and 6,000 three-player games on the
default map, 4,000 duels on each packaged map. On the games held out (a fifth) the Brier score per player is
0.132 with four players (the logistic curve of the greedy lead it replaced: 0.140; a fair share: 0.178),
0.168 with three (fair 0.215) and 0.181 in duels (fair 0.243).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

FEATURES = ("score", "income", "cards", "guards", "reach")

Weights = tuple[float, float, float]  # a, b, c: the weight at t is a + b * t + c * t * t


# Per number of players: one (a, b, c) per feature, then (d, e) per place in the turn order after the
# player to move.
WEIGHTS: dict[int, tuple[tuple[Weights, ...], tuple[tuple[float, float], ...]]] = {
    2: (
        (
            (0.36225, -0.96528, 0.76855),
            (0.23084, -0.02160, -0.19024),
            (0.20139, 0.41285, -0.48478),
            (0.08804, -0.17587, 0.02237),
            (0.19332, -0.28624, 0.05843),
        ),
        ((-0.66405, 0.56936),),
    ),
    3: (
        (
            (0.35330, -0.93015, 0.73299),
            (0.22778, 0.18674, -0.45265),
            (0.16018, 0.44026, -0.50363),
            (0.22026, -0.28096, -0.04702),
            (0.18447, -0.29133, 0.08586),
        ),
        ((-0.29617, 0.24728), (-0.69195, 0.58257)),
    ),
    4: (
        (
            (0.35907, -0.96014, 0.76474),
            (0.28666, 0.16975, -0.49484),
            (0.12517, 0.28040, -0.27144),
            (0.41770, -0.26334, -0.24606),
            (0.14681, -0.14138, -0.02790),
        ),
        ((-0.16970, 0.11032), (-0.39894, 0.30634), (-0.68397, 0.52324)),
    ),
}


def strengths(rows: Sequence[Sequence[float]], t: float, current: int) -> list[float]:
    """u_j for every player from its features (in ``FEATURES``' order), for 2 to 4 players."""
    n = len(rows)
    features, order = WEIGHTS[n]
    tt = t * t
    scale = [a + b * t + c * tt for a, b, c in features]
    out = []
    for j, row in enumerate(rows):
        u = sum(x * w for x, w in zip(row, scale, strict=True))
        wait = (j - current) % n
        if wait:
            d, e = order[wait - 1]
            u += d + e * t
        out.append(u)
    return out


def chances(rows: Sequence[Sequence[float] | None], t: float, current: int) -> list[float]:
    """Each player's chance to win; a row of None (a player out of the game) has none."""
    if all(r is None for r in rows):
        return [0.0] * len(rows)
    u = strengths([r if r is not None else [0.0] * len(FEATURES) for r in rows], t, current)
    top = max(x for x, r in zip(u, rows, strict=True) if r is not None)
    e = [math.exp(x - top) if r is not None else 0.0 for x, r in zip(u, rows, strict=True)]
    total = sum(e)
    return [x / total for x in e]
