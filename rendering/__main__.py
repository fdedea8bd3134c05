"""``python -m rendering gallery OUTDIR``: write the gallery, one sample of every kind of picture."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rendering.layout import BOARD_WIDTH
from rendering.samples import write_gallery


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rendering")
    sub = parser.add_subparsers(dest="command", required=True)
    for command in ("gallery", "samples"):  # "samples" is the command's older name
        gallery = sub.add_parser(command, help="write sample pictures from a seeded simulated game")
        gallery.add_argument("outdir", type=Path)
        gallery.add_argument("--width", type=int, default=BOARD_WIDTH)
    args = parser.parse_args(argv)
    for path in write_gallery(args.outdir, args.width):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
