"""The fonts shipped inside the package (DejaVu Sans), so that every machine draws the same picture and any
player name can be written."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

from PIL import ImageFont

_FILES = {False: "DejaVuSans.ttf", True: "DejaVuSans-Bold.ttf"}


@lru_cache(maxsize=64)
def font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    path = resources.files("rendering").joinpath("fonts", _FILES[bold])
    with resources.as_file(path) as real:
        # BASIC layout: no shaping library, same result everywhere, and faster for short labels.
        return ImageFont.truetype(str(real), max(6, size), layout_engine=ImageFont.Layout.BASIC)


def text_width(text: str, size: int, bold: bool = False) -> int:
    return int(font(size, bold).getlength(text) + 0.999)


def fit(text: str, size: int, width: int, bold: bool = False, smallest: int = 11) -> int:
    """The largest font size up to ``size`` at which ``text`` fits in ``width`` pixels."""
    while size > smallest and text_width(text, size, bold) > width:
        size -= 1
    return size


def ellipsize(text: str, size: int, width: int, bold: bool = False) -> str:
    """``text`` cut with an ellipsis so that it fits in ``width`` pixels (long player names)."""
    if text_width(text, size, bold) <= width:
        return text
    while text and text_width(text + "…", size, bold) > width:
        text = text[:-1]
    return text + "…"
