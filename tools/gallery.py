"""Write the gallery in a language of the bot's catalogs: ``python tools/gallery.py de docs/pictures/de``.

``python -m rendering gallery OUT`` draws the gallery in English; rendering does not know the bot's catalogs
(the bot depends on rendering, not the other way), so the words of another language come from here.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.games.pictures import words_for  # noqa: E402
from rendering.layout import BOARD_WIDTH  # noqa: E402
from rendering.samples import write_gallery  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("language", help="a catalog's language, such as de")
    parser.add_argument("outdir", type=Path)
    parser.add_argument("--width", type=int, default=BOARD_WIDTH)
    args = parser.parse_args(argv)
    for path in write_gallery(args.outdir, args.width, words_for(args.language)):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
