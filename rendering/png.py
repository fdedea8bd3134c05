"""PNG files of palette pictures, compressed band by band with the bands' compressed bytes kept for reuse.

Two boards of one game differ in a few places (Alexander, a few walls and guards, the panel), and boards of
different games on one map share their empty land. A PNG's pixels are one zlib stream, but deflate allows
the stream to be cut into pieces that start afresh (no reference back across a cut): each band of ``ROWS``
rows is compressed alone and ended with a full flush, and a band seen before (the same pixels, found by
their SHA-256) is not compressed again. The file is an ordinary PNG (IHDR, PLTE, one IDAT, IEND; 8-bit
palette, rows unfiltered as Pillow writes palette pictures), decoded like any other; its pixels are exactly
the picture's.

Measured (benchmarks/bench_render.py, 60 boards of one game one after the other): half of Pillow's encoding
time at the same zlib level (2.9 ms against 5.8 ms; 63 % of the bands reused), for about 5 % more bytes (the
bands cannot refer to each other).

The bands are compressed by zlib-ng (the ``zlib-ng`` package), whose deflate streams any zlib reads: on the
bands of a bench_bot run's pictures, at level 2 it took 0.080 ms a band and 1,491 bytes, where the standard
library's zlib at level 3 took 0.127 ms and 1,548 bytes.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Sequence

from PIL import Image
from zlib_ng import zlib_ng

from rendering.recent import Recent

ROWS = 16  # rows per band: smaller bands are found unchanged more often, larger ones compress better
BANDS_KEPT = 4096  # compressed bands kept per process (about 2 KB each at 1,280 px: some 8 MB)
LAST_KEPT = 512  # the last band's pixels at each height (and width, level), about 20 KB each at 1,280 px

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_ZLIB_HEADER = b"\x78\x5e"  # deflate, 32 KB window; the level bits are informative only
_LAST_BLOCK = b"\x03\x00"  # an empty final block (fixed Huffman codes): ends the stream after the bands
_ADLER_BASE = 65521

Band = tuple[bytes, int, int]  # compressed bytes, Adler-32 and length of its rows with their filter bytes


def adler32_combine(first: int, second: int, second_length: int) -> int:
    """The Adler-32 of two byte strings one after the other, from each one's checksum (zlib's
    ``adler32_combine``, which Python's zlib does not expose)."""
    rem = second_length % _ADLER_BASE
    low = (first & 0xFFFF) + (second & 0xFFFF) + _ADLER_BASE - 1
    high = (rem * (first & 0xFFFF)) + (first >> 16) + (second >> 16) + _ADLER_BASE - rem
    return ((high % _ADLER_BASE) << 16) | (low % _ADLER_BASE)


def _chunk(kind: bytes, *pieces: bytes) -> list[bytes]:
    """A chunk of ``kind`` holding ``pieces`` one after the other, as pieces of the file: its length, kind,
    data and CRC-32 (over the pieces as they are, never joined first: an IDAT holds the pixels' 100 KB)."""
    crc = zlib_ng.crc32(kind)
    for piece in pieces:
        crc = zlib_ng.crc32(piece, crc)
    return [struct.pack(">I", sum(map(len, pieces))), kind, *pieces, struct.pack(">I", crc)]


class BandCache(Recent[bytes, Band]):
    """The compressed bytes of the bands drawn lately, by the SHA-256 of their pixels (and the width and
    level they were compressed at).

    Most of a picture's bands are the very pixels the band at the same height of the picture before it
    showed (the same map, walls and panel): each height keeps its last band's pixels, and a band equal to
    them (compared byte by byte, a twentieth of a SHA-256's time) is not hashed at all. Hashing every band
    was 14 % of a render worker's CPU (bench_bot's requests replayed)."""

    def __init__(self, size: int = BANDS_KEPT) -> None:
        super().__init__(size)
        self._last: dict[tuple[int, int, int], tuple[bytes, Band]] = {}

    def band(
        self,
        pixels: bytes,
        width: int,
        level: int,
        at: int | None = None,
    ) -> Band:
        """(compressed bytes, Adler-32, length) of one band's rows, each row led by its filter byte (0);
        ``at``: the band's height in its picture (its index), where the last band there is compared."""
        spot = (width, level, -1 if at is None else at)
        last = self._last.get(spot)
        if last is not None and last[0] == pixels:
            self.hits += 1
            return last[1]
        made = self._hashed(pixels, width, level)
        if at is not None:
            if len(self._last) >= LAST_KEPT:
                self._last.clear()
            self._last[spot] = (pixels, made)
        return made

    def _hashed(self, pixels: bytes, width: int, level: int) -> Band:
        key = hashlib.sha256(pixels).digest() + struct.pack(">IB", width, level)
        found = self.get(key)
        if found is not None:
            return found
        made = compressed(pixels, width, level)
        self.put(key, made)
        return made

    def clear(self) -> None:
        super().clear()
        self._last.clear()


BANDS = BandCache()


def compressed(pixels: bytes, width: int, level: int) -> Band:
    """One band's rows (a whole number of rows, ``width`` bytes each) compressed alone, each row led by its
    filter byte (0), ended with a full flush: (compressed bytes, Adler-32, length of the rows)."""
    # The rows joined by their filter bytes, out of views of the pixels: no copy of each row, nor of each
    # row with its filter byte, before the one join (half the time of that, on 1,280-pixel bands).
    view = memoryview(pixels)
    rows = b"\x00".join([b"", *[view[at : at + width] for at in range(0, len(pixels), width)]])
    squeeze = zlib_ng.compressobj(level, zlib_ng.DEFLATED, -zlib_ng.MAX_WBITS, 8)
    data = squeeze.compress(rows) + squeeze.flush(zlib_ng.Z_FULL_FLUSH)
    return data, zlib_ng.adler32(rows), len(rows)


def bands(
    pixels: bytes,
    width: int,
    level: int,
    cache: BandCache = BANDS,
    first: int = 0,
) -> list[Band]:
    """The compressed bands of palette pixels (a whole number of rows, ``width`` bytes each), top down, at
    zlib ``level``; ``first``: the first band's index in its picture."""
    step = ROWS * width
    tops = range(0, len(pixels), step)
    return [cache.band(pixels[top : top + step], width, level, first + top // step) for top in tops]


def png_of_bands(width: int, height: int, palette: bytes, parts: Sequence[Band]) -> bytes:
    """The PNG file of a palette picture from its bands, in order (``bands`` of its rows, in one or more
    calls whose rows each start on a band's boundary)."""
    adler = 1  # the Adler-32 of nothing
    for _, checksum, length in parts:
        adler = adler32_combine(adler, checksum, length)
    idat = [_ZLIB_HEADER, *(data for data, _, _ in parts), _LAST_BLOCK, struct.pack(">I", adler)]
    # 8 bits a pixel, palette colour, deflate, filter method 0 (each row's filter byte: none), no interlace
    header = struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)
    # Joined once: the pixels' 100 KB are copied once, not three times (zlib-ng's CRC-32 is a tenth of the
    # standard library's here).
    chunks = (_chunk(b"IHDR", header), _chunk(b"PLTE", palette), _chunk(b"IDAT", *idat), _chunk(b"IEND"))
    return b"".join([_SIGNATURE, *(piece for chunk in chunks for piece in chunk)])


def palette_png(im: Image.Image, level: int, cache: BandCache = BANDS) -> bytes:
    """The PNG bytes of a palette ("P") picture, at zlib ``level``, its bands compressed once."""
    if im.mode != "P":
        raise ValueError(f"a palette picture is needed, not mode {im.mode}")
    width, height = im.size
    return png_of_bands(width, height, palette_of(im), bands(im.tobytes(), width, level, cache))


def palette_of(im: Image.Image) -> bytes:
    return bytes(im.getpalette() or [0, 0, 0])
