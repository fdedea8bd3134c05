"""The bot's one door to the renderer: every picture is made here, off the event loop, from an engine view.

Public pictures (board, end) must be drawn from the public view (``viewer is None``); this adapter refuses
anything else, and it logs every call as ``(kind, viewer)`` so tests can check who each picture was for.
If the renderer fails, the game must go on: a plain placeholder picture is sent instead and the failure is
logged as a warning and counted.
"""

from __future__ import annotations

import asyncio
import logging
import struct
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from engine.geometry import Point
from engine.rules import OccupyPlan, PathOption, Target
from engine.symbols import Symbol
from engine.views import GameView

log = logging.getLogger("bot.pictures")


def placeholder_png(width: int = 16, height: int = 9) -> bytes:
    """A tiny grey landscape PNG, for when the renderer cannot draw."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    raw = b"".join(b"\x00" + b"\x99" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


class PublicViewRequired(ValueError):
    """A public picture was asked for with a player's view: it could show a hidden hand."""


@dataclass
class Pictures:
    """Renders in a worker thread. ``width`` trades sharpness for speed (tests use a narrower board)."""

    width: int = 1600
    calls: list[tuple[str, int | None]] = field(default_factory=list)
    failures: int = 0

    async def _run(self, kind: str, v: GameView, draw: Callable[[], bytes]) -> bytes:
        self.calls.append((kind, v.viewer))
        try:
            return await asyncio.to_thread(draw)
        except Exception:  # the game goes on without a picture rather than failing the player's action
            self.failures += 1
            log.warning("the renderer failed to draw %s", kind, exc_info=True)
            return placeholder_png()

    def warm(self, v: GameView) -> None:
        """Draw one board, unrecorded and in the caller's thread, so the renderer's caches are built."""
        import rendering

        rendering.render_board(v, [], self.width)

    @staticmethod
    def _public(v: GameView) -> None:
        if v.viewer is not None:
            raise PublicViewRequired(f"a public picture needs the public view, not seat {v.viewer}'s")

    async def board(self, v: GameView, names: Sequence[str]) -> bytes:
        self._public(v)
        import rendering

        return await self._run("board", v, lambda: rendering.render_board(v, list(names), self.width))

    async def end(self, v: GameView, names: Sequence[str]) -> bytes:
        self._public(v)
        import rendering

        return await self._run("end", v, lambda: rendering.render_end(v, list(names), self.width))

    async def hand(self, v: GameView, name: str) -> bytes:
        import rendering

        return await self._run("hand", v, lambda: rendering.render_hand(v, name, min(self.width, 1200)))

    async def move_preview(
        self, v: GameView, targets: Sequence[Target], symbol: Symbol | None, names: Sequence[str]
    ) -> bytes:
        import rendering

        return await self._run(
            "move-preview",
            v,
            lambda: rendering.render_move_preview(v, list(targets), symbol, list(names), self.width),
        )

    async def path_preview(
        self, v: GameView, corner: Point, paths: Sequence[PathOption], names: Sequence[str]
    ) -> bytes:
        import rendering

        return await self._run(
            "path-preview",
            v,
            lambda: rendering.render_path_preview(v, corner, list(paths), list(names), self.width),
        )

    async def province_preview(
        self, v: GameView, province: int, plan: OccupyPlan | None, names: Sequence[str]
    ) -> bytes:
        import rendering

        return await self._run(
            "province-preview",
            v,
            lambda: rendering.render_province_preview(v, province, plan, list(names), self.width),
        )


def point_letters(targets: Sequence[Target]) -> dict[Point, str]:
    """The letters the move preview puts on the destination points (the renderer's own rule)."""
    import rendering

    return {p: letter for letter, p in rendering.destination_letters(targets)}
