"""What a game's page reads: the whole history as JSON (``game.json``), and what changed since a version
(the live updates), in one language.

Built from the stored record (names, status, since when the turn runs) and the public history
(bot.web.history) only. A game's history is kept in memory (a bounded cache) and extended by the events
after the last version seen, so a change costs its own events, not the whole game again; the first build of
a long game runs in a thread, off the event loop.
"""

from __future__ import annotations

import asyncio
import gzip
import json
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.events import Event
from rendering.theme import DEFAULT_THEME
from storage import GameRecord, GameStore

from ..games.tables import names_of
from ..words import i18n
from ..words.words import Speaker
from . import words
from .history import History, diff


def _hex(rgb: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


# The pictures' colours and proportions (rendering.theme), so the page's board is the pictures' board.
_P = DEFAULT_THEME.palette
PALETTE = {
    "background": _hex(_P.background), "sea": _hex(_P.sea), "sea_line": _hex(_P.sea_line),
    "land": _hex(_P.land),
    "dead": _hex(_P.dead_land), "grid": _hex(_P.grid), "wall": _hex(_P.wall), "red_wall": _hex(_P.red_wall),
    "highlight": _hex(_P.highlight), "ink": _hex(_P.ink), "players": [_hex(c) for c in _P.players],
    "tints": [_hex(c) for c in _P.tints], "symbols": [_hex(c) for c in _P.symbols],
}  # fmt: skip
_S = DEFAULT_THEME.sizes
SIZES = {"wall": _S.wall_s, "icon": _S.icon_s, "guard": _S.guard_s, "alexander": _S.alexander_s}

THREAD_OVER = 64  # events: more than this are folded in a thread
KEEP_GAMES = 256
KEEP_OFFERED = 256  # events offered and not yet folded, a game: beyond, the store is read


@dataclass
class _Game:
    """One game's public history, its steps as JSON, and their log lines by language."""

    history: History = field(default_factory=History)
    docs: list[dict[str, Any]] = field(default_factory=list)
    diffs: list[dict[str, Any]] = field(default_factory=list)
    logs: dict[str, list[tuple[str, ...]]] = field(default_factory=dict)  # tuples: see history's docs
    names: tuple[str, ...] = ()  # the names the logs were worded with
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    # (lang, version, names): game.json gzipped. The names too: a player who is forgotten (storage.privacy)
    # changes no version, and from then on only their pseudonym may be shown.
    bodies: dict[tuple[str, int, tuple[str, ...]], bytes] = field(default_factory=dict)
    # The events this process's commits saved since the history last grew, as (version, event), in order.
    offered: list[tuple[int, Event]] = field(default_factory=list)


class Pages:
    """The JSON of games' pages, with their histories kept (the ``KEEP_GAMES`` most recently read)."""

    def __init__(self, store: GameStore, keep: int = KEEP_GAMES) -> None:
        self.store = store
        self.keep = keep
        self._games: OrderedDict[int, _Game] = OrderedDict()

    def _game(self, game_id: int) -> _Game:
        game = self._games.get(game_id)
        if game is None:
            game = self._games[game_id] = _Game()
            while len(self._games) > self.keep:
                self._games.popitem(last=False)
        self._games.move_to_end(game_id)
        return game

    async def _up_to_date(self, game: _Game, record: GameRecord) -> int:
        """The game's history up to ``record``'s version; the index of the first step that changed. The
        caller holds the game's lock, and reads what this made under it (a long extension runs in a thread,
        while other tasks of the loop may ask for the same game)."""
        h = game.history
        if h.version >= record.version:
            return len(h.steps)
        offered = _follow(game.offered, h.version, record.version)
        game.offered[:] = [(v, e) for v, e in game.offered if v > record.version]  # a commit after the read
        rows: Sequence[tuple[int, dict[str, Any] | Event]] = (
            offered if offered is not None else await self.store.events(record.id, since_version=h.version)
        )
        if len(rows) > THREAD_OVER:
            first = await asyncio.to_thread(h.extend, rows)
        else:
            first = h.extend(rows)
        del game.docs[first:], game.diffs[first:]
        for step in h.steps[first:]:
            game.diffs.append(diff(game.docs[-1] if game.docs else None, step.doc))
            game.docs.append(step.doc)
        for lines in game.logs.values():
            del lines[first:]
        game.bodies.clear()
        return first

    def _logs(self, game: _Game, record: GameRecord, lang: str) -> list[tuple[str, ...]]:
        names = names_of(record)
        if names != game.names:  # a player was forgotten since: every line is worded again
            game.logs.clear()
            game.names = names
        lines = game.logs.setdefault(lang, [])
        if len(lines) < len(game.history.steps):
            speaker = Speaker(names, game.history.map)
            with i18n.speaking(lang):
                for step in game.history.steps[len(lines) :]:
                    lines.append(tuple(speaker.event_lines(list(step.events))))
        return lines

    def _head(self, record: GameRecord, lang: str) -> dict[str, Any]:
        return {
            "game": record.id,
            "status": record.status,
            "since": record.turn_started_at,
            "names": words.names(names_of(record), lang),
        }

    async def page(self, record: GameRecord, lang: str) -> bytes:
        """The whole page's data, gzipped: the map, the words, every step (as differences) and its log."""
        game = self._game(record.id)
        async with game.lock:
            await self._up_to_date(game, record)
            return self._page(game, record, lang)

    def _page(self, game: _Game, record: GameRecord, lang: str) -> bytes:
        key = (lang, record.version, names_of(record))
        body = game.bodies.get(key)
        if body is not None:
            return body
        m = game.history.map
        letters = {p[3] for d in game.docs for p in d["pv"]} | {p[4] for d in game.docs for p in d["pv"]}
        data = {
            **self._head(record, lang),
            "lang": lang,
            "words": words.labels(lang),
            "costs": words.costs(letters, lang),
            "map": None
            if m is None
            else {"name": m.name, "rows": list(m.rows), "spaces": [[r, c] for r, c in m.spaces]},
            "palette": PALETTE,
            "sizes": SIZES,
            "steps": game.diffs,
            "logs": self._logs(game, record, lang),
        }
        body = gzip.compress(_json(data), 6)
        game.bodies[key] = body
        return body

    async def since(self, record: GameRecord, lang: str, known: int) -> dict[str, Any]:
        """What a live page needs after a change: the steps from the first that changed on (as differences
        from the step before it), their logs and the record's news. ``known``: steps the page has."""
        game = self._game(record.id)
        async with game.lock:
            first = await self._up_to_date(game, record)
            return self._since(game, record, lang, known, first)

    def _since(self, game: _Game, record: GameRecord, lang: str, known: int, first: int) -> dict[str, Any]:
        # The page's last step may have been the open tail, which grows: it is always sent again.
        first = min(first, max(known - 1, 0))
        prev = game.docs[first - 1] if first > 0 else None
        steps = [diff(prev, game.docs[first])] + game.diffs[first + 1 :] if first < len(game.docs) else []
        letters = {p[3] for d in game.docs[first:] for p in d["pv"]} | {
            p[4] for d in game.docs[first:] for p in d["pv"]
        }
        return {
            **self._head(record, lang),
            "from": first,
            "steps": steps,
            "logs": self._logs(game, record, lang)[first:],
            "costs": words.costs(letters, lang),
        }

    def offer(self, game_id: int, before: int, events: tuple[Event, ...]) -> None:
        """The events a commit of this process saved (the game's version was ``before``): the history of a
        game whose page is open folds them without reading them back from the store (an events read and
        the JSON's parse for every change of a watched game: a fifth of the live pages' CPU in bench_web)."""
        game = self._games.get(game_id)
        if game is None:  # no page read this game lately: its history is built from the store when one does
            return
        offered = game.offered
        if offered and offered[-1][0] != before or len(offered) + len(events) > KEEP_OFFERED:
            offered.clear()  # not the events after those: the store has them all
        offered.extend((before + i, e) for i, e in enumerate(events, 1))

    def steps(self, game_id: int) -> int:
        game = self._games.get(game_id)
        return len(game.docs) if game is not None else 0


def _follow(offered: list[tuple[int, Event]], version: int, until: int) -> list[tuple[int, Event]] | None:
    """The offered events from just after ``version`` up to ``until``, when they hold every one of them."""
    rows = [(v, e) for v, e in offered if v > version]
    if not rows or rows[0][0] != version + 1 or rows[-1][0] < until:
        return None
    return [(v, e) for v, e in rows if v <= until]


def _json(data: Any) -> bytes:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()


def dumps(data: Any) -> bytes:
    """Compact JSON, as the pages send it."""
    return _json(data)
