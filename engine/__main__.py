"""Command line of the engine: ``python -m engine simulate ...`` (see engine/simulate.py)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(prog="python -m engine", description="Alexandros engine tools.")
    parser.add_argument("command", choices=["simulate"], help="simulate: self-play games with checks")
    if not args or args[0] in ("-h", "--help"):
        parser.print_help()
        return 0 if args else 2
    known = parser.parse_args(args[:1])
    if known.command == "simulate":
        from engine import simulate

        return simulate.main(args[1:])
    return 2  # pragma: no cover - argparse refuses other commands


if __name__ == "__main__":
    sys.exit(main())
