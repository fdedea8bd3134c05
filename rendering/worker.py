"""Rendering in a process pool: one plain, picklable request value in, PNG bytes out.

The bot's pool is bot.process.render_pool.RenderPool (not here): one single-process executor per warm worker
(``rendering.warm_worker`` at start), a game's pictures routed to one worker by key, and
``rendering.render_request`` run there::

    png = await pool.run(key, rendering.render_request, RenderRequest.board(v, names, width))

``render_request`` is the pool's entry point (and ``render_public``, for a ``PublicPicture``: a board or end
picture of a public state's lean snapshot, which the worker loads and views itself). It takes a
``RenderRequest``: the kind of picture, an engine ``GameView`` (never the full state: other players' hands are
secret, R2.5), the display names, the width and the plain rules-query values a preview needs, and the
``Words`` of the picture's language (rendering.words: a few KB of translations, pickled with the request;
English when left out). A request pickles its map as the map's text, not the parsed ``Map`` with its distance
table (about 230 KB for the default map): a worker parses each map once (``engine.maps.parse_map`` caches by
text) and its cached map layers are keyed by the same text, so they stay warm from one request to the next.
``warm_worker`` is the pool's initializer: it parses the given maps and draws their static layers (free land,
dead land and every player's tint) at the given width, so the first real request pays for neither. Start the
pool with the width the bot draws at: the layers are per width.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from engine.game import new_game
from engine.geometry import Point
from engine.maps import Map, default_map, parse_map
from engine.rules import OccupyPlan, PathOption, Target
from engine.snapshot import load_state
from engine.symbols import Symbol
from engine.views import GameView
from engine.views import view as view_of
from rendering.board import DEAD, map_layer
from rendering.layout import BOARD_WIDTH
from rendering.theme import DEFAULT_THEME
from rendering.words import ENGLISH, Words

Kind = Literal["board", "end", "hand", "move", "path", "province"]
_MAP_SOURCE = "<render request>"


def _view_fields(v: GameView) -> dict[str, Any]:
    return {f.name: getattr(v, f.name) for f in dataclasses.fields(v) if f.name != "map"}


def _rebuild_view(map_text: str, fields: dict[str, Any]) -> GameView:
    return GameView(map=parse_map(map_text, _MAP_SOURCE), **fields)


@dataclass(frozen=True)
class RenderRequest:
    """Everything one picture needs, as plain values; build it with the class methods below.

    ``view`` must be the public view for "board" and "end", and the player's own view for "hand"
    (``render_hand`` refuses a public view). For "path", ``confirm`` draws the confirm form (one chosen
    path, captioned with what will happen) and ``ends_game`` says that the move ends the game (R3.6, R3.7,
    R3.8: the engine computes it, the caller passes it on).
    """

    kind: Kind
    view: GameView
    names: tuple[str, ...] = ()
    width: int = BOARD_WIDTH
    name: str = ""  # the hand's owner
    targets: tuple[Target, ...] = ()
    symbol: Symbol | None = None
    point: Point | None = None
    paths: tuple[PathOption, ...] = ()
    province: int = 0
    plan: OccupyPlan | None = None
    confirm: bool = False
    ends_game: bool = False
    words: Words = ENGLISH  # the picture's language: the game's for board and end, the asker's otherwise

    def __reduce__(self) -> tuple[Any, ...]:
        # The map travels as its text; every other field as it is.
        others = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "view"}
        return (_rebuild_request, (self.view.map.text, _view_fields(self.view), others))

    @classmethod
    def board(
        cls, v: GameView, names: Sequence[str] = (), width: int = BOARD_WIDTH, *, words: Words = ENGLISH
    ) -> RenderRequest:
        return cls("board", v, tuple(names), width, words=words)

    @classmethod
    def end(
        cls, v: GameView, names: Sequence[str] = (), width: int = BOARD_WIDTH, *, words: Words = ENGLISH
    ) -> RenderRequest:
        return cls("end", v, tuple(names), width, words=words)

    @classmethod
    def hand(cls, v: GameView, name: str = "", width: int = 1200, *, words: Words = ENGLISH) -> RenderRequest:
        return cls("hand", v, width=width, name=name, words=words)

    @classmethod
    def move_preview(
        cls,
        v: GameView,
        targets: Sequence[Target],
        symbol: Symbol | None = None,
        names: Sequence[str] = (),
        width: int = BOARD_WIDTH,
        *,
        words: Words = ENGLISH,
    ) -> RenderRequest:
        return cls("move", v, tuple(names), width, targets=tuple(targets), symbol=symbol, words=words)

    @classmethod
    def path_preview(
        cls,
        v: GameView,
        point: Point,
        paths: Sequence[PathOption],
        names: Sequence[str] = (),
        width: int = BOARD_WIDTH,
        *,
        confirm: bool = False,
        ends_game: bool = False,
        words: Words = ENGLISH,
    ) -> RenderRequest:
        return cls(
            "path",
            v,
            tuple(names),
            width,
            point=point,
            paths=tuple(paths),
            confirm=confirm,
            ends_game=ends_game,
            words=words,
        )

    @classmethod
    def province_preview(
        cls,
        v: GameView,
        province: int,
        plan: OccupyPlan | None,
        names: Sequence[str] = (),
        width: int = BOARD_WIDTH,
        *,
        words: Words = ENGLISH,
    ) -> RenderRequest:
        return cls("province", v, tuple(names), width, province=province, plan=plan, words=words)


def _rebuild_request(map_text: str, view_fields: dict[str, Any], others: dict[str, Any]) -> RenderRequest:
    return RenderRequest(view=_rebuild_view(map_text, view_fields), **others)


@dataclass(frozen=True)
class PublicPicture:
    """A board or end picture of a public state: ``snapshot`` is a lean snapshot (engine.snapshot) of a
    state with nothing secret left in it (the bot's outbox holds only such states, R2.5), ``map_text`` its
    map. The worker loads the state and makes its public view itself, so the bot's event loop does neither
    (about 6 % of its CPU per action in bench_bot when it did both)."""

    kind: Literal["board", "end"]
    snapshot: dict[str, Any] | str  # the lean snapshot, or its JSON text
    map_text: str
    names: tuple[str, ...] = ()
    width: int = BOARD_WIDTH
    words: Words = ENGLISH


def render_public(req: PublicPicture) -> bytes:
    """The pool's entry point for a ``PublicPicture``: its PNG bytes, drawn from the public view."""
    game_map = parse_map(req.map_text, _MAP_SOURCE)
    doc = json.loads(req.snapshot) if isinstance(req.snapshot, str) else req.snapshot
    v = view_of(load_state(doc, lambda _digest: game_map), None)
    return render_request(RenderRequest(req.kind, v, req.names, req.width, words=req.words))


def render_request(req: RenderRequest) -> bytes:
    """The process pool's entry point: the PNG bytes of the picture ``req`` asks for."""
    from rendering import pictures as p

    v, names, words = req.view, list(req.names), req.words
    if req.kind == "board":
        return p.render_board(v, names, req.width, words=words)
    if req.kind == "end":
        return p.render_end(v, names, req.width, words=words)
    if req.kind == "hand":
        return p.render_hand(v, req.name, req.width, words=words)
    if req.kind == "move":
        return p.render_move_preview(v, req.targets, req.symbol, names, req.width, words=words)
    if req.kind == "path":
        if req.point is None:
            raise ValueError("a path preview needs the chosen point")
        return p.render_path_preview(
            v,
            req.point,
            req.paths,
            names,
            req.width,
            confirm=req.confirm,
            ends_game=req.ends_game,
            words=words,
        )
    if req.kind == "province":
        return p.render_province_preview(v, req.province, req.plan, names, req.width, words=words)
    raise ValueError(f"no picture of kind {req.kind!r}")


def warm_worker(map_texts: Sequence[str] = (), width: int = BOARD_WIDTH, players: int = 4) -> None:
    """The pool's initializer: parse the maps (the default map if none is given) and draw their static
    layers, free land, dead land and every seat's tint, at ``width``; load the fonts. A warm worker's first
    board costs about what its hundredth does."""
    maps: list[Map] = [parse_map(t, _MAP_SOURCE) for t in map_texts] or [default_map()]
    from rendering.pictures import render_board

    for m in maps:
        for tint in (DEAD, *range(players)):
            map_layer(m, width, DEFAULT_THEME, tint)
        # One start board: the free-land layer, the layout and the fonts a board uses.
        render_board(view_of(new_game(m, players, 0)[0]), (), width)
