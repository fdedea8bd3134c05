"""Pictures of Alexandros for Discord: the board, a hand, move previews and the end of the game.

Every function takes an engine view (never the full state), the display names by seat and plain
rules-query values, and returns PNG bytes. Each has an ``*_async`` twin that renders in a worker thread,
so that the bot's event loop never waits on Pillow. For a process pool, ``render_request`` takes one
picklable ``RenderRequest`` and ``warm_worker`` is the pool's initializer (see rendering.worker).

The words drawn in a picture are in the language of the ``Words`` it is given (``words=``; English by
default): the bot builds one per language from its catalogs (rendering.words).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from engine.geometry import Point
from engine.rules import CornerOption, OccupyPlan, PathOption, Target
from engine.symbols import Symbol
from engine.views import GameView
from rendering.layout import BOARD_WIDTH
from rendering.pictures import (
    destination_letters,
    render_board,
    render_end,
    render_hand,
    render_move_preview,
    render_path_preview,
    render_province_preview,
)
from rendering.theme import DEFAULT_THEME, PLAYER_MARKS, Theme
from rendering.words import ENGLISH, MESSAGES, Words
from rendering.worker import PublicPicture, RenderRequest, render_public, render_request, warm_worker

__all__ = [
    "BOARD_WIDTH",
    "DEFAULT_THEME",
    "ENGLISH",
    "MESSAGES",
    "PLAYER_MARKS",
    "PublicPicture",
    "RenderRequest",
    "Theme",
    "Words",
    "destination_letters",
    "render_board",
    "render_board_async",
    "render_end",
    "render_end_async",
    "render_hand",
    "render_hand_async",
    "render_move_preview",
    "render_move_preview_async",
    "render_path_preview",
    "render_path_preview_async",
    "render_province_preview",
    "render_province_preview_async",
    "render_public",
    "render_request",
    "warm_worker",
]


async def render_board_async(
    v: GameView,
    names: Sequence[str] | None = None,
    width: int = BOARD_WIDTH,
    theme: Theme = DEFAULT_THEME,
    *,
    words: Words = ENGLISH,
) -> bytes:
    return await asyncio.to_thread(lambda: render_board(v, names, width, theme, words=words))


async def render_end_async(
    v: GameView,
    names: Sequence[str] | None = None,
    width: int = BOARD_WIDTH,
    theme: Theme = DEFAULT_THEME,
    *,
    words: Words = ENGLISH,
) -> bytes:
    return await asyncio.to_thread(lambda: render_end(v, names, width, theme, words=words))


async def render_hand_async(
    v: GameView, name: str = "", width: int = 1200, theme: Theme = DEFAULT_THEME, *, words: Words = ENGLISH
) -> bytes:
    return await asyncio.to_thread(lambda: render_hand(v, name, width, theme, words=words))


async def render_move_preview_async(
    v: GameView,
    targets: Sequence[Target],
    symbol: Symbol | None = None,
    names: Sequence[str] | None = None,
    width: int = BOARD_WIDTH,
    theme: Theme = DEFAULT_THEME,
    *,
    words: Words = ENGLISH,
) -> bytes:
    return await asyncio.to_thread(
        lambda: render_move_preview(v, targets, symbol, names, width, theme, words=words)
    )


async def render_path_preview_async(
    v: GameView,
    corner: Point | CornerOption,
    paths: Sequence[PathOption],
    names: Sequence[str] | None = None,
    width: int = BOARD_WIDTH,
    theme: Theme = DEFAULT_THEME,
    *,
    confirm: bool = False,
    ends_game: bool = False,
    words: Words = ENGLISH,
) -> bytes:
    return await asyncio.to_thread(
        lambda: render_path_preview(
            v, corner, paths, names, width, theme, confirm=confirm, ends_game=ends_game, words=words
        )
    )


async def render_province_preview_async(
    v: GameView,
    province_id: int,
    plan: OccupyPlan | None,
    names: Sequence[str] | None = None,
    width: int = BOARD_WIDTH,
    theme: Theme = DEFAULT_THEME,
    *,
    words: Words = ENGLISH,
) -> bytes:
    return await asyncio.to_thread(
        lambda: render_province_preview(v, province_id, plan, names, width, theme, words=words)
    )
