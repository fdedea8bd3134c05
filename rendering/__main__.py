"""``python -m rendering samples OUTDIR``: write one sample of every kind of picture."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rendering.samples import write_samples


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rendering")
    sub = parser.add_subparsers(dest="command", required=True)
    samples = sub.add_parser("samples", help="write sample pictures from a seeded simulated game")
    samples.add_argument("outdir", type=Path)
    samples.add_argument("--width", type=int, default=1600)
    args = parser.parse_args(argv)
    for path in write_samples(args.outdir, args.width):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
