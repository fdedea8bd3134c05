"""The bot's one door to the renderer: every picture is made here, off the event loop, from an engine view.

Public pictures (board, end) must be drawn from the public view (``viewer is None``); this adapter refuses
anything else, and it logs every call as ``(kind, viewer)`` so tests can check who each picture was for.
The words in a picture come from the bot's catalogs (``words_for``): a public picture (board, end, replay)
speaks the game's language, which its caller passes (``Table.locale``); a private one (hand, previews) the
language speaking now, the asking user's (bot.words.i18n).
If the renderer fails, the game must go on: a plain placeholder picture is sent instead and the failure is
logged as a warning and counted.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import re
import struct
import zlib
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any, Literal

from engine.geometry import Point
from engine.maps import Map
from engine.rules import OccupyPlan, PathOption, Target
from engine.symbols import Symbol
from engine.views import GameView
from rendering.words import MESSAGES, Words
from rendering.words import key as rendering_key
from rendering.worker import RenderRequest

from ..process.cores import Cores, started_on
from ..process.render_pool import SLACK, RenderPool, behind_the_bot, when_idle
from ..words import i18n, words

OWN_WORKERS = frozenset({"board", "end"})  # the pictures a game's own worker always draws, never the spare
RENDER_NICE = 5  # the render workers step back behind the bot, and the computers (bot.games.thinking) further

log = logging.getLogger("bot.games.pictures")


def plural_rule(language: str) -> tuple[int, str]:
    """How many plural forms ``language``'s catalog has, and its rule (a C expression of ``n``), from the
    catalog's Plural-Forms header; English's when the header has none."""
    header = i18n.translations(i18n.language_of(language)).info().get("plural-forms", "")
    forms = re.search(r"nplurals\s*=\s*(\d+)", header)
    rule = re.search(r"plural\s*=\s*([^;]+)", header)
    if forms is None or rule is None:
        return 2, "(n != 1)"
    return int(forms.group(1)), rule.group(1).strip()


def words_for(language: str) -> Words:
    """The words drawn in pictures, in ``language`` (a Discord locale or a catalog's language), from the
    bot's catalogs: every message of ``rendering.words.MESSAGES`` that the language says differently from
    English, and the language's plural rule. Built once per language; English is ``Words()``."""
    return _words_in(i18n.language_of(language))


@cache
def _words_in(language: str) -> Words:
    if language == i18n.SOURCE:
        return Words()
    t = i18n.translations(language)
    nplurals, rule = plural_rule(language)
    # A number for each plural form, so that gettext's own lookup returns every form in the rule's order.
    which = Words(plural_rule=rule)
    numbers: dict[int, int] = {}
    for n in range(1000):
        numbers.setdefault(which.form(n), n)
        if len(numbers) >= nplurals:
            break
    texts: dict[str, str] = {}
    plurals: dict[str, tuple[str, ...]] = {}
    for context, message in MESSAGES:
        if isinstance(message, tuple):
            singular, plural = message
            forms = tuple(t.ngettext(singular, plural, numbers[i]) for i in sorted(numbers))
            if forms != (singular, plural):
                plurals[singular] = forms
        else:
            said = t.pgettext(context, message) if context else t.gettext(message)
            if said != message:
                texts[rendering_key(message, context)] = said
    return Words(texts, plurals, rule, language)


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


class Pictures:
    """Renders off the event loop: in a pool of warm worker processes (``workers`` > 0, the bot), or in a
    thread (``workers`` = 0: tests and the console, where one process is simpler).

    A process pool keeps drawing and PNG compression off the event loop *and* out of its GIL: threads
    competing for the GIL capped a busy bot at 15-18 actions per second (issue 12). Workers are started and
    warmed by ``start`` (in ``setup_hook``), so the first picture of a game costs what the hundredth does.
    Only ``recent`` calls are remembered (for tests), so memory does not grow with use.
    """

    def __init__(
        self,
        width: int | None = None,
        workers: int = 0,
        map_texts: Sequence[str] = (),
        spare: bool = False,
        cores: Cores | None = None,
    ) -> None:
        import rendering

        self.width = width or rendering.BOARD_WIDTH
        self.workers = workers
        self.spare = spare  # one more worker in the OS's idle class (bot.process.render_pool)
        self.cores = cores  # the workers on cores of their own, the spare on the bot's (bot.process.cores)
        self.map_texts = tuple(map_texts)
        self.recent: collections.deque[tuple[str, int | None]] = collections.deque(maxlen=64)
        self.failures = 0
        self.pool: RenderPool | None = None
        self.waiting = 0  # pictures asked for and not yet drawn (bot.process.metrics' render queue)

    @property
    def calls(self) -> list[tuple[str, int | None]]:
        return list(self.recent)

    def start(self) -> None:
        """Start the worker processes and warm them (bot.process.render_pool)."""
        if self.workers <= 0 or self.pool is not None:
            return
        import rendering

        warm = (rendering.warm_worker, self.map_texts, self.width)
        own, beside = (self.cores.workers, self.cores.bot) if self.cores is not None else (None, None)
        worker = started_on(own, behind_the_bot, RENDER_NICE, *warm)
        spare = started_on(beside, when_idle, *warm) if self.spare else None
        self.pool = RenderPool(self.workers, *worker, spare=spare)
        self.pool.start()

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()
            self.pool = None

    def worker_pids(self) -> list[tuple[int, bool]]:
        """The workers' process ids, and whether each is the spare (bot.process.cores places them)."""
        pids = self.pool.pids() if self.pool is not None else []
        return [(pid, i >= self.workers) for i, pid in enumerate(pids)]

    @staticmethod
    def _key(names: Sequence[str], map_text: str) -> int:
        """Which worker draws it: one game's pictures (its players, its map) go to the same one."""
        return hash((tuple(names), map_text))

    async def _call(
        self, key: int | None, fn: Callable[..., bytes], *args: Any, weight: int = 1, spare: bool = True
    ) -> bytes:
        self.waiting += 1
        try:
            if self.pool is not None:
                return await self.pool.run(key, fn, *args, weight=weight, spare=spare)
            return await asyncio.to_thread(fn, *args)
        finally:
            self.waiting -= 1

    async def _run(self, request: RenderRequest) -> bytes:
        import rendering

        # A hand (no names) is no game's board: the least busy worker draws it.
        key = self._key(request.names, request.view.map.text) if request.names else None
        return await self._draw(request.kind, request.view.viewer, key, rendering.render_request, request)

    async def _draw(
        self, kind: str, viewer: int | None, key: int | None, fn: Callable[..., bytes], arg: Any
    ) -> bytes:
        self.recent.append((kind, viewer))
        try:
            # A game's boards stay with its own worker, which keeps what the next one starts from; the spare
            # draws only the other pictures, previews and hands (bot.process.render_pool).
            return await self._call(key, fn, arg, spare=kind not in OWN_WORKERS)
        except Exception:  # the game goes on without a picture rather than failing the player's action
            self.failures += 1
            log.warning("the renderer failed to draw %s", kind, exc_info=True)
            return placeholder_png()

    def warm(self, v: GameView) -> None:
        """Draw one board, unrecorded and in the caller's thread, so this process's caches are built."""
        import rendering

        rendering.render_board(v, [], self.width)

    @staticmethod
    def _public(v: GameView) -> None:
        if v.viewer is not None:
            raise PublicViewRequired(f"a public picture needs the public view, not seat {v.viewer}'s")

    @staticmethod
    def _words(language: str | None) -> Words:
        """A public picture's words in the game's language (``language``, which its caller must pass); a
        private one's in the language speaking now (the asking user's)."""
        return words_for(i18n.current() if language is None else language)

    @staticmethod
    def _names(names: Sequence[str], language: str | None) -> tuple[str, ...]:
        """The seats' names as the picture's reader reads them (a forgotten user's "former player N" is
        stored in English: bot.words.words.shown_name)."""
        with i18n.speaking(i18n.current() if language is None else language):
            return tuple(words.shown_name(n) for n in names)

    async def board(self, v: GameView, names: Sequence[str], *, language: str) -> bytes:
        """The board (public), its words in the game's ``language`` (``Table.locale``)."""
        self._public(v)
        names = self._names(names, language)
        return await self._run(RenderRequest.board(v, names, self.width, words=self._words(language)))

    async def end(self, v: GameView, names: Sequence[str], *, language: str) -> bytes:
        """The end of the game (public), its words in the game's ``language`` (``Table.locale``)."""
        self._public(v)
        names = self._names(names, language)
        return await self._run(RenderRequest.end(v, names, self.width, words=self._words(language)))

    async def public(
        self,
        kind: Literal["board", "end"],
        snapshot: dict[str, Any] | str,
        game_map: Map,
        names: Sequence[str],
        *,
        language: str,
    ) -> bytes:
        """The board or end picture of a public state's lean snapshot, or of its JSON text
        (bot.outbox.duties.public_state: nothing secret in it), its words in the game's ``language``. The
        worker loads the state and makes the public view (rendering.PublicPicture), off the event loop."""
        import rendering

        request = rendering.PublicPicture(
            kind, snapshot, game_map.text, self._names(names, language), self.width, self._words(language)
        )
        return await self._draw(kind, None, self._key(names, game_map.text), rendering.render_public, request)

    async def hand(self, v: GameView, name: str, *, language: str | None = None) -> bytes:
        request = RenderRequest.hand(v, name, min(self.width, 1200), words=self._words(language))
        return await self._run(request)

    async def move_preview(
        self,
        v: GameView,
        targets: Sequence[Target],
        symbol: Symbol | None,
        names: Sequence[str],
        *,
        language: str | None = None,
    ) -> bytes:
        request = RenderRequest.move_preview(
            v, targets, symbol, self._names(names, language), self.width, words=self._words(language)
        )
        return await self._run(request)

    async def path_preview(
        self,
        v: GameView,
        corner: Point,
        paths: Sequence[PathOption],
        names: Sequence[str],
        *,
        confirm: bool = False,
        ends_game: bool = False,
        language: str | None = None,
    ) -> bytes:
        request = RenderRequest.path_preview(
            v,
            corner,
            paths,
            self._names(names, language),
            self.width,
            confirm=confirm,
            ends_game=ends_game,
            words=self._words(language),
        )
        return await self._run(request)

    async def replay(self, events: Sequence[dict[str, Any]], names: Sequence[str], *, language: str) -> bytes:
        """The animated GIF of a whole game from its stored events (issue 16), under Discord's smallest
        upload limit; every frame is drawn from the public view (rendering.replay), its words in the game's
        ``language``. A failure raises: the caller (a duty, a command) says so or tries again, rather than
        posting a placeholder."""
        from rendering.replay import MAX_BYTES, render_replay_events

        self.recent.append(("replay", None))
        args = (list(events), list(self._names(names, language)), MAX_BYTES, self._words(language))
        # A whole game's frames: on the least busy worker, weighed so that boards go to the others meanwhile.
        return await self._call(None, render_replay_events, *args, weight=SLACK + 1)

    async def province_preview(
        self,
        v: GameView,
        province: int,
        plan: OccupyPlan | None,
        names: Sequence[str],
        *,
        language: str | None = None,
    ) -> bytes:
        request = RenderRequest.province_preview(
            v, province, plan, self._names(names, language), self.width, words=self._words(language)
        )
        return await self._run(request)


def point_letters(targets: Sequence[Target]) -> dict[Point, str]:
    """The letters the move preview puts on the destination points (the renderer's own rule)."""
    import rendering

    return {p: letter for letter, p in rendering.destination_letters(targets)}
