"""The replay of a whole game: an animated GIF, one frame per turn, small enough for any Discord upload.

Frames are drawn from public views only (``engine.views.view(state, None)``): the full state is rebuilt
from the event log to know where the game stood, but nothing of it reaches a picture except what every
player sees (R2.5: hands are secret). The GIF is made smaller until it fits ``max_bytes`` (Discord's
smallest upload limit is 8 MiB; the default keeps a margin): first narrower frames, then fewer of them
(every k-th turn, always keeping the first and the last board).
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence
from typing import Any

from PIL import Image

from engine import serialize
from engine.events import Event, TurnStarted
from engine.game import evolve
from engine.state import GameState
from engine.views import GameView, view
from rendering import board as b
from rendering.panel import board_panel, end_panel, player_names
from rendering.pictures import quantized
from rendering.theme import DEFAULT_THEME, Theme
from rendering.words import ENGLISH, Words

MAX_BYTES = 7_500_000  # under 8 MiB (8,388,608 bytes), Discord's smallest upload limit, with a margin
WIDTHS = (900, 720, 560, 440, 340)
FRAME_MS = 700  # how long each turn stays on screen
LAST_MS = 4000  # the final board stays longer before the loop starts again


def public_frames(events: Iterable[Event]) -> list[GameView]:
    """The replay's frames: the public view of the deal, then at the end of every turn (just before the
    next one starts), and the final one."""
    frames: list[GameView] = []
    state: GameState | None = None
    for e in events:
        if isinstance(e, TurnStarted) and state is not None:
            frames.append(view(state, None))
        state = evolve(state, e)
    if state is not None:
        frames.append(view(state, None))
    return frames


def _frame(
    v: GameView, names: Sequence[str], width: int, theme: Theme, last: bool, words: Words = ENGLISH
) -> Image.Image:
    im, lay = b.board_image(v, width, theme, words=words)
    panel = end_panel if last and v.over else board_panel
    panel(im, v, lay, player_names(v, names, theme, words), theme, words)
    # The theme's fixed palette: the same colours in every frame, so GIF frames differ only where the
    # board changed (Pillow stores only the changed box of each frame).
    return quantized(im, theme)


def _gif(frames: Sequence[Image.Image]) -> bytes:
    out = io.BytesIO()
    durations = [FRAME_MS] * (len(frames) - 1) + [LAST_MS]
    frames[0].save(
        out, "GIF", save_all=True, append_images=list(frames[1:]), duration=durations, loop=0, optimize=False
    )
    return out.getvalue()


def thin(frames: Sequence[GameView], keep: int) -> list[GameView]:
    """At most ``keep`` (>= 2) frames, evenly spread, always with the first and the last."""
    n = len(frames)
    if n <= keep:
        return list(frames)
    picks = sorted({round(i * (n - 1) / (keep - 1)) for i in range(keep)})
    return [frames[i] for i in picks]


def render_replay(
    frames: Sequence[GameView],
    names: Sequence[str] = (),
    *,
    max_bytes: int = MAX_BYTES,
    widths: Sequence[int] = WIDTHS,
    theme: Theme = DEFAULT_THEME,
    words: Words = ENGLISH,
) -> bytes:
    """An animated GIF of ``frames`` (public views) of at most ``max_bytes``: narrower, then fewer frames;
    its words in ``words``' language (the game's)."""
    if not frames:
        raise ValueError("a replay needs at least one frame")
    for v in frames:
        if v.viewer is not None:
            raise ValueError("a replay is drawn from public views only")
    chosen = list(frames)
    data = b""
    first: tuple[int, int] | None = None  # (width, bytes) of the first try
    for k, width in enumerate(widths):
        if first is not None and k < len(widths) - 1:
            # The bytes grow about with the area: skip a width that cannot fit (with a margin for error).
            if first[1] * (width / first[0]) ** 2 > max_bytes * 1.15:
                continue
        data = _gif(
            [_frame(v, names, width, theme, i == len(chosen) - 1, words) for i, v in enumerate(chosen)]
        )
        if len(data) <= max_bytes:
            return data
        first = first or (width, len(data))
    width = widths[-1]
    while len(chosen) > 2:
        # Scale the frame count by how far over the bound the last try was, with a margin.
        keep = max(2, min(len(chosen) - 1, int(len(chosen) * max_bytes / len(data) * 0.9)))
        chosen = thin(chosen, keep)
        data = _gif(
            [_frame(v, names, width, theme, i == len(chosen) - 1, words) for i, v in enumerate(chosen)]
        )
        if len(data) <= max_bytes:
            return data
    raise ValueError(f"a replay of two frames is still {len(data)} bytes, over {max_bytes}")


def render_replay_events(
    events: Sequence[dict[str, Any]],
    names: Sequence[str] = (),
    max_bytes: int = MAX_BYTES,
    words: Words = ENGLISH,
) -> bytes:
    """The process pool's entry point: the GIF of a game from its stored (serialized) event log."""
    log = [serialize.load(e) for e in events]
    return render_replay(public_frames(log), names, max_bytes=max_bytes, words=words)
