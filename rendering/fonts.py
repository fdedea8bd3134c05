"""The fonts shipped inside the package (DejaVu Sans), so that every machine draws the same picture and any
player name can be written."""

from __future__ import annotations

import io
import threading
from collections import OrderedDict
from collections.abc import Callable
from functools import lru_cache
from importlib import resources
from typing import Any, TypeVar

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
T = TypeVar("T")


KEPT_TEXTS = 512  # masks (and lengths) a font keeps of the texts it drew lately


class KeptFont(ImageFont.FreeTypeFont):
    """A FreeType font that keeps the masks of the texts it drew lately, and their lengths: every board
    draws the same words again (names, scores, province badges, the panel's titles), and rasterising them
    was a tenth of a render worker's time. A mask depends on the text, where it starts within a pixel and
    how it is anchored, never on its colour, so a kept one is the very mask FreeType would give again."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._masks: OrderedDict[tuple[object, ...], tuple[Any, tuple[int, int]]] = OrderedDict()
        self._lengths: OrderedDict[tuple[object, ...], float] = OrderedDict()

    def getmask2(
        self,
        text: str | bytes,
        mode: str = "",
        direction: str | None = None,
        features: list[str] | None = None,
        language: str | None = None,
        stroke_width: float = 0,
        anchor: str | None = None,
        ink: int = 0,
        start: tuple[float, float] | None = None,
        *args: Any,
        **kwargs: Any,
    ) -> tuple[Any, tuple[int, int]]:
        def draw() -> tuple[Any, tuple[int, int]]:
            return super(KeptFont, self).getmask2(
                text, mode, direction, features, language, stroke_width, anchor, ink, start, *args, **kwargs
            )

        if mode == "RGBA" or args or set(kwargs) - {"stroke_filled"}:
            return draw()  # colour fonts paint with the ink; other arguments are not known here
        key = (text, mode, direction, tuple(features or ()), language, stroke_width, anchor, start,
               bool(kwargs.get("stroke_filled")))  # fmt: skip
        return _kept(self._masks, key, draw)

    def getlength(
        self,
        text: str | bytes,
        mode: str = "",
        direction: str | None = None,
        features: list[str] | None = None,
        language: str | None = None,
    ) -> float:
        def measure() -> float:
            return super(KeptFont, self).getlength(text, mode, direction, features, language)

        return _kept(self._lengths, (text, mode, direction, tuple(features or ()), language), measure)


def _kept(memo: OrderedDict[tuple[object, ...], T], key: tuple[object, ...], work: Callable[[], T]) -> T:
    found = memo.get(key)
    if found is None:
        found = memo[key] = work()
        if len(memo) > KEPT_TEXTS:
            memo.popitem(last=False)
    else:
        memo.move_to_end(key)
    return found


@lru_cache(maxsize=4)
def _data(bold: bool, condensed: bool) -> bytes:
    return resources.files("rendering").joinpath("fonts", _FILES[bold, condensed]).read_bytes()


def font(size: int, bold: bool = False, condensed: bool = False) -> KeptFont:
    """DejaVu Sans at ``size`` pixels (the em size, the "font pixel height" of the readability rule);
    the condensed cut is for labels on the board, where width is scarce."""
    cache: dict[tuple[int, bool, bool], KeptFont] | None = getattr(_local, "fonts", None)
    if cache is None:
        cache = _local.fonts = {}
    key = (max(6, size), bold, condensed)
    found = cache.get(key)
    if found is None:
        # BASIC layout: no shaping library, the same result everywhere, and faster for short labels.
        data = io.BytesIO(_data(bold, condensed))
        found = KeptFont(data, key[0], layout_engine=ImageFont.Layout.BASIC)
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
