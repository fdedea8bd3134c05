"""The render workers' CPU on a real run's pictures: the requests of a bench_bot run replayed in one process,
this tree against others, in alternating rounds, and every file compared.

    python benchmarks/bench_bot.py --games 50 --no-baseline --record-pictures /tmp/pictures.pkl
    python benchmarks/bench_pictures.py /tmp/pictures.pkl [--against TREE ...] [--rounds 3] [--actions 1200]
                                        [--together]
    python benchmarks/bench_pictures.py /tmp/pictures.pkl --instructions [--first 400] [--against TREE ...]

bench_bot's ``--record-pictures`` writes every picture its bot asked the render workers for (the boards of
the turn posts, a guided move's previews, the Actions menu's province previews), as (the workers' entry
point, its arguments). Each round replays them, in order, in a fresh process per tree (``PYTHONPATH`` the
tree, its render worker warmed as the pool warms one), timing each request's CPU (``time.process_time``,
which stays meaningful on a loaded machine). Printed for each tree and round: CPU per picture by kind, the
total, and per action (``--actions``: the run's actions, as bench_bot printed them), the load average, and
whether the files are byte for byte this tree's, and their mean size. ``--together`` runs each round's
replays at the same time, one a core, rather than one after the other: on a machine whose speed drifts
(the same replay took 13-17 s of CPU from run to run here), two trees compared side by side are slowed
alike. A tree to compare with is a checkout, e.g. ``git worktree
add /tmp/base COMMIT``, whose request classes read the recorded ones (the trees of issue 32 onward).

``--instructions`` counts instructions instead of timing: each tree's replay runs under valgrind's callgrind
twice, once drawing the first ``--first`` pictures and once drawing none (the same start: Python, the
requests read, the worker warmed), and the pictures' count is the difference. Counts do not drift with the
machine's speed or load as CPU time does (here by 15 % within an hour), so a change of a few per cent shows.
Under valgrind the CPU has no SHA extensions, so SHA-256 (the bands' keys) counts for more than it costs.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

REPLAY = r"""
import hashlib, json, pickle, sys, time, zlib
import rendering.worker as worker
calls = pickle.loads(open(sys.argv[1], "rb").read())
texts, widths = set(), set()
for name, (req,) in calls:
    texts.add(req.view.map.text if name == "render_request" else req.map_text)
    widths.add(req.width)
worker.warm_worker(sorted(texts), max(widths))
# Counting instructions (argv[3] "crc"), the files are told apart by a CRC: under valgrind SHA-256 has no
# SHA extensions, and hashing 40 MB of files would be a tenth of the count.
kinds, digest, crc, size = {}, hashlib.sha256(), 0, 0
start = time.process_time()
for name, (req,) in calls[: int(sys.argv[2])]:
    t = time.process_time()
    png = getattr(worker, name)(req)
    n, ms = kinds.get(req.kind, (0, 0.0))
    kinds[req.kind] = (n + 1, ms + (time.process_time() - t) * 1000)
    if sys.argv[3] == "crc":
        crc = zlib.crc32(png, crc)
    else:
        digest.update(png)
    size += len(png)
ms = (time.process_time() - start) * 1000
said = f"crc32 {crc:08x}" if sys.argv[3] == "crc" else digest.hexdigest()
print(json.dumps({"kinds": kinds, "ms": ms, "digest": said, "bytes": size}))
"""


def start_replay(
    tree: Path, requests: Path, first: int = 1 << 30, under: tuple[str, ...] = ()
) -> subprocess.Popen[str]:
    """One replay of the first ``first`` of ``requests`` started in a fresh process whose code is ``tree``'s
    (``under``: the command it runs under, e.g. valgrind's)."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.Popen(
        [*under, sys.executable, "-c", REPLAY, str(requests), str(first), "crc" if under else "sha256"],
        cwd=tree,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def result(tree: Path, running: subprocess.Popen[str]) -> dict[str, object]:
    """A started replay's figures, once it is done."""
    stdout, stderr = running.communicate()
    if running.returncode != 0:
        raise RuntimeError(f"the replay in {tree} failed:\n{stderr[-3000:]}")
    out: dict[str, object] = json.loads(stdout.strip().splitlines()[-1])
    return out


def replay(tree: Path, requests: Path) -> dict[str, object]:
    """One replay of ``requests`` in a fresh process whose code is ``tree``'s."""
    return result(tree, start_replay(tree, requests))


def instructions(tree: Path, requests: Path, first: int) -> tuple[int, dict[str, object]]:
    """The instructions ``tree`` executes to draw the first ``first`` of ``requests`` (callgrind's count of a
    replay drawing them less that of one drawing none), with the drawing replay's figures."""
    counts: list[int] = []
    out: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in (0, first):
            under = ("valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/callgrind.out")
            running = start_replay(tree, requests, n, under)
            stdout, stderr = running.communicate()
            found = re.search(r"Collected\s*:\s*(\d+)", stderr)
            if running.returncode != 0 or found is None:
                raise RuntimeError(f"the replay in {tree} under valgrind failed:\n{stderr[-3000:]}")
            counts.append(int(found.group(1)))
            out = json.loads(stdout.strip().splitlines()[-1])
    return counts[1] - counts[0], out


def count_instructions(trees: list[Path], requests: Path, first: int) -> int:
    """Each tree's instructions for the same pictures, and each against this tree's (the first)."""
    if shutil.which("valgrind") is None:
        print("bench_pictures --instructions needs valgrind (Debian: apt-get install valgrind)")
        return 2
    mine: tuple[int, str] | None = None
    for tree in trees:
        count, r = instructions(tree, requests, first)
        kinds = r["kinds"]
        assert isinstance(kinds, dict)
        pictures = sum(n for n, _ in kinds.values())
        by_kind = ", ".join(f"{kind} {n}" for kind, (n, _) in sorted(kinds.items()))
        if mine is None:
            mine = count, str(r["digest"])
            than, same = "", "this tree's"
        else:
            than = f"; this tree's count {100 * (mine[0] / count - 1):+.1f} % against it"
            same = "the same" if r["digest"] == mine[1] else "DIFFERENT"
        print(
            f"instructions {'this tree' if tree == trees[0] else tree}: {pictures} pictures ({by_kind}), "
            f"{count / 1e9:.3f} G, {count / pictures / 1e6:.2f} M a picture{than}; files {same}"
        )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("requests", type=Path, help="a file of bench_bot --record-pictures")
    parser.add_argument("--against", type=Path, action="append", default=[], help="another tree")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--actions", type=int, default=0, help="the recorded run's actions, for ms an action")
    parser.add_argument(
        "--together",
        action="store_true",
        help="each round, every tree's replay at the same time (one a core): a machine whose speed drifts "
        "(seen here: the same replay 13-17 s of CPU from run to run) then slows them alike",
    )
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="count each tree's instructions under valgrind's callgrind instead of timing rounds",
    )
    parser.add_argument("--first", type=int, default=400, help="with --instructions: the pictures drawn")
    a = parser.parse_args(argv)
    trees = [HERE, *(t.resolve() for t in a.against)]
    if a.instructions:
        print(f"bench_pictures: the first {a.first} of {a.requests}, instructions counted (callgrind)")
        return count_instructions(trees, a.requests, a.first)
    listed = ", ".join(map(str, trees))
    how = "together" if a.together else "alternating"
    print(f"bench_pictures: {a.requests} replayed, {a.rounds} rounds, trees {how}: {listed}")
    mine: str | None = None
    order = list(enumerate(trees))
    for k in range(a.rounds):
        load = os.getloadavg()[0]
        rounds = order if k % 2 == 0 else order[::-1]
        if a.together:
            running = [(i, tree, start_replay(tree, a.requests)) for i, tree in rounds]
            done = sorted((i, tree, result(tree, r)) for i, tree, r in running)
        else:
            done = []
            for i, tree in rounds:
                load = os.getloadavg()[0]
                done.append((i, tree, replay(tree, a.requests)))
        for i, tree, r in done:
            kinds = r["kinds"]
            assert isinstance(kinds, dict)
            total = float(r["ms"])  # type: ignore[arg-type]
            size = float(r["bytes"])  # type: ignore[arg-type]
            pictures = sum(n for n, _ in kinds.values())
            if i == 0:
                mine = str(r["digest"])
            same = "this tree's" if i == 0 else ("the same" if r["digest"] == mine else "DIFFERENT")
            by_kind = ", ".join(f"{kind} {n} x {ms / n:.2f}" for kind, (n, ms) in sorted(kinds.items()))
            per_action = f", {total / a.actions:.2f} ms an action" if a.actions else ""
            print(
                f"round {k + 1} {'this tree' if i == 0 else tree}: {pictures} pictures, {total / 1000:.2f} s "
                f"CPU{per_action} ({by_kind} ms); {size / pictures / 1000:.1f} KB a picture; "
                f"files {same}; load {load:.1f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
