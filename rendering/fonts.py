"""The fonts shipped inside the package (DejaVu Sans), so that every machine draws the same picture and any
player name can be written."""

from __future__ import annotations

import io
import threading
from functools import lru_cache
from importlib import resources

from PIL import ImageFont

_FILES = {
    (False, False): "DejaVuSans.ttf",
    (True, False): "DejaVuSans-Bold.ttf",
    (False, True): "DejaVuSansCondensed.ttf",
    (True, True): "DejaVuSansCondensed-Bold.ttf",
}
# One set of font objects per thread: the async wrappers render in worker threads, and a FreeType face
# is not meant to be used by two threads at once.
_local = threading.local()


@lru_cache(maxsize=4)
def _data(bold: bool, condensed: bool) -> bytes:
    return resources.files("rendering").joinpath("fonts", _FILES[bold, condensed]).read_bytes()


def font(size: int, bold: bool = False, condensed: bool = False) -> ImageFont.FreeTypeFont:
    """DejaVu Sans at ``size`` pixels (the em size, the "font pixel height" of the readability rule);
    the condensed cut is for labels on the board, where width is scarce."""
    cache: dict[tuple[int, bool, bool], ImageFont.FreeTypeFont] | None = getattr(_local, "fonts", None)
    if cache is None:
        cache = _local.fonts = {}
    key = (max(6, size), bold, condensed)
    found = cache.get(key)
    if found is None:
        # BASIC layout: no shaping library, the same result everywhere, and faster for short labels.
        data = io.BytesIO(_data(bold, condensed))
        found = ImageFont.truetype(data, key[0], layout_engine=ImageFont.Layout.BASIC)
        cache[key] = found
    return found


@lru_cache(maxsize=4096)
def has_glyph(char: str) -> bool:
    """Whether DejaVu Sans Bold draws ``char`` (rather than its empty-box "missing glyph")."""
    if char.isspace():
        return True
    f = font(20, bold=True)

    def shape(c: str) -> tuple[tuple[int, int], bytes]:
        mask = f.getmask(c)
        return mask.size, bytes(mask)

    return shape(char) != shape("\U0010fffd")


def drawable(text: str) -> str:
    """``text`` without the characters the shipped font cannot draw (CJK, emoji), which would show as
    boxes; the caller decides what to show if nothing is left."""
    return " ".join("".join(c for c in text if has_glyph(c)).split())


def text_width(text: str, size: int, bold: bool = False, condensed: bool = False) -> int:
    return int(font(size, bold, condensed).getlength(text) + 0.999)


def ellipsize(text: str, size: int, width: int, bold: bool = False, condensed: bool = False) -> str:
    """``text`` cut with an ellipsis so that it fits in ``width`` pixels (long player names)."""
    if text_width(text, size, bold, condensed) <= width:
        return text
    while text and text_width(text + "…", size, bold, condensed) > width:
        text = text[:-1]
    return text + "…"
