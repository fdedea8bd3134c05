"""Draw every tutorial step's pictures (bot.words.lessons) into docs/pictures/tutorial/, as the bot sends
them:
the question's picture and the picture that explains a wrong answer, in English.

    python tools/tutorial_pictures.py [folder]
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.commands.tutorial import Tutorial  # noqa: E402
from bot.games.pictures import Pictures  # noqa: E402
from bot.words import lessons  # noqa: E402


async def draw(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    pictures = Pictures(width=900)

    class _Ctx:  # what Tutorial._picture reads of its context
        def __init__(self) -> None:
            self.pictures = pictures

    tutorial = Tutorial(_Ctx(), None)  # type: ignore[arg-type]
    written = []
    for n, lesson in enumerate(lessons.steps(), start=1):
        for part, picture in (("question", lesson.picture), ("explained", lesson.after)):
            file = await tutorial._picture(lesson, picture)
            path = folder / f"{n:02d}-{lesson.key}-{part}.png"
            path.write_bytes(file.fp.read())
            written.append(path)
    assert pictures.failures == 0, "the renderer failed"
    return written


def main(argv: list[str]) -> int:
    folder = Path(argv[0]) if argv else ROOT / "docs" / "pictures" / "tutorial"
    for path in asyncio.run(draw(folder)):
        print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
