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
"""

from __future__ import annotations

import hashlib
import struct
import threading
import zlib
from collections import OrderedDict

from PIL import Image

ROWS = 16  # rows per band: smaller bands are found unchanged more often, larger ones compress better
BANDS_KEPT = 4096  # compressed bands kept per process (about 2 KB each at 1,280 px: some 8 MB)

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_ZLIB_HEADER = b"\x78\x5e"  # deflate, 32 KB window; the level bits are informative only
_LAST_BLOCK = b"\x03\x00"  # an empty final block (fixed Huffman codes): ends the stream after the bands
_ADLER_BASE = 65521


def adler32_combine(first: int, second: int, second_length: int) -> int:
    """The Adler-32 of two byte strings one after the other, from each one's checksum (zlib's
    ``adler32_combine``, which Python's zlib does not expose)."""
    rem = second_length % _ADLER_BASE
    low = (first & 0xFFFF) + (second & 0xFFFF) + _ADLER_BASE - 1
    high = (rem * (first & 0xFFFF)) + (first >> 16) + (second >> 16) + _ADLER_BASE - rem
    return ((high % _ADLER_BASE) << 16) | (low % _ADLER_BASE)


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


class BandCache:
    """The compressed bytes of the bands drawn lately, by the SHA-256 of their pixels (and the width and
    level they were compressed at), the least recently used forgotten first."""

    def __init__(self, size: int = BANDS_KEPT) -> None:
        self.size = size
        self.hits = 0
        self.misses = 0
        self._bands: OrderedDict[bytes, tuple[bytes, int, int]] = OrderedDict()
        self._lock = threading.Lock()  # tests and the console draw in threads of one process

    def clear(self) -> None:
        with self._lock:
            self._bands.clear()
            self.hits = self.misses = 0

    def band(self, pixels: bytes, width: int, level: int) -> tuple[bytes, int, int]:
        """(compressed bytes, Adler-32, length) of one band's rows, each row led by its filter byte (0)."""
        key = hashlib.sha256(pixels).digest() + struct.pack(">IB", width, level)
        with self._lock:
            found = self._bands.get(key)
            if found is not None:
                self._bands.move_to_end(key)
                self.hits += 1
                return found
        rows = b"".join(b"\x00" + pixels[at : at + width] for at in range(0, len(pixels), width))
        squeeze = zlib.compressobj(level, zlib.DEFLATED, -zlib.MAX_WBITS)
        made = (squeeze.compress(rows) + squeeze.flush(zlib.Z_FULL_FLUSH), zlib.adler32(rows), len(rows))
        with self._lock:
            self.misses += 1
            self._bands[key] = made
            while len(self._bands) > self.size:
                self._bands.popitem(last=False)
        return made


BANDS = BandCache()


def palette_png(im: Image.Image, level: int, cache: BandCache = BANDS) -> bytes:
    """The PNG bytes of a palette ("P") picture, at zlib ``level``, its bands compressed once."""
    if im.mode != "P":
        raise ValueError(f"a palette picture is needed, not mode {im.mode}")
    width, height = im.size
    pixels = im.tobytes()
    step = ROWS * width
    parts: list[bytes] = []
    adler = 1  # the Adler-32 of nothing
    for top in range(0, width * height, step):
        data, checksum, length = cache.band(pixels[top : top + step], width, level)
        parts.append(data)
        adler = adler32_combine(adler, checksum, length)
    idat = _ZLIB_HEADER + b"".join(parts) + _LAST_BLOCK + struct.pack(">I", adler)
    palette = bytes(im.getpalette() or [0, 0, 0])
    # 8 bits a pixel, palette colour, deflate, filter method 0 (each row's filter byte: none), no interlace
    header = struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)
    chunks = (_chunk(b"IHDR", header), _chunk(b"PLTE", palette), _chunk(b"IDAT", idat), _chunk(b"IEND", b""))
    return _SIGNATURE + b"".join(chunks)
