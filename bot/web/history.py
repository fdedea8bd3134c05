"""A game's history as the web page shows it: every public state from the deal to now, one per step (the
deal, each move, each action, each turn's end), with the step's events, redacted for the public.

The full states are rebuilt from the stored events (only so that the next one can be folded: a shuffle's
order is needed to fold the draws after it), and each is turned into its public view at once
(``engine.views.view(state, None)``); a step keeps that view and its events redacted for nobody
(``engine.views.redact``). Nothing else of a state leaves this module, so no hand, supply order or seed can
reach a page.

A ``History`` grows as the game does: ``extend`` folds only the events after the last it saw.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from engine import serialize
from engine.events import (
    ActionUsed,
    AlexanderMoved,
    Event,
    GameEnded,
    MoveSkipped,
    PlayerResigned,
    ProvinceSplit,
    StepTakenBack,
    TurnStarted,
)
from engine.game import evolve
from engine.geometry import Point, Side, Space
from engine.maps import Map
from engine.state import GameState
from engine.views import GameView, redact, view

# An event that ends a step: the page cuts a frame after it (and after the splits and the game's end that
# follow it in the same action).
_STEP_ENDS = (AlexanderMoved, MoveSkipped, ActionUsed, StepTakenBack, TurnStarted, PlayerResigned)
_TRAILING = (ProvinceSplit, GameEnded)


@dataclass(frozen=True)
class Step:
    """One public state of the game (as the page reads it, ``public_doc``) and the public events that led
    to it from the step before. The view itself is not kept: a long game has hundreds of steps."""

    version: int  # the store's version (events folded) at this state
    doc: dict[str, Any]
    events: tuple[Event, ...]  # redacted for the public


@dataclass
class History:
    """The public steps of one game so far, and the last full state (kept only to fold what comes next)."""

    steps: list[Step] = field(default_factory=list)
    version: int = 0
    map: Map | None = None
    _state: GameState | None = None
    _open: list[Event] = field(default_factory=list)  # events since the last step
    _ended: bool = False  # the open events hold a step's end: the next event that is not trailing cuts
    _tail: Step | None = None  # the open events as last shown (a step), while no event joined them

    def extend(self, rows: Sequence[tuple[int, dict[str, Any] | Event]]) -> int:
        """Fold the events ``rows`` ((version, stored body or the event itself), in order, after
        ``self.version``); returns the index of the first step that changed (the open tail, shown as a step,
        is replaced as it grows)."""
        rows = [(v, b) for v, b in rows if v > self.version]
        first = len(self.steps)
        if not rows:
            return first
        if self._open and self.steps and self.steps[-1].version == self.version:
            self._tail = self.steps.pop()  # the open tail was shown as a step: it grows now
            first -= 1
        for version, body in rows:
            event = serialize.load(body) if isinstance(body, dict) else body
            if self._ended and self._open and not isinstance(event, _TRAILING):
                self._cut()
            self._state = evolve(self._state, event)
            self.version = version
            self._tail = None
            self._open.append(redact(event, None))
            self._ended = self._ended or isinstance(event, _STEP_ENDS)
        if self._open and self._state is not None:
            # The tail so far is shown as a step, so the page always reaches the state as it stands now.
            self.steps.append(self._step())
        return first

    def _step(self) -> Step:
        assert self._state is not None
        self.map = self._state.map
        events = tuple(self._open)
        doc = public_doc(view(self._state, None), events, self.version)
        if self.steps:  # what did not change is the same object as the step before's: little memory a step
            before = self.steps[-1].doc
            for key in _SHARED:
                if doc[key] == before[key]:
                    doc[key] = before[key]
        return Step(self.version, doc, events)

    def _cut(self) -> None:
        # A step ends when the next one begins, mostly at the next change: the tail shown then is that step.
        self.steps.append(self._tail or self._step())
        self._tail = None
        self._open = []
        self._ended = False


# --- one step as the page reads it (JSON) ----------------------------------------------------------------


# A doc is made of tuples, not lists (the same JSON): a page keeps every step of a game in memory, and the
# collector stops looking at a tuple of numbers or strings after its first young collection, while every list
# would be traversed again by each older collection. Lists here held the loop 130 ms in one collection of the
# middle generation with 1,000 watchers (bench_web, 18 actions a game); tuples: see docs/MEASURED.md.


def _pt(p: Point) -> tuple[int, int]:
    return (p[0], p[1])


def _sides(sides: Sequence[Side] | frozenset[Side]) -> tuple[tuple[int, int, int, int], ...]:
    return tuple(sorted((a[0], a[1], b[0], b[1]) for a, b in sides))


# A state shares what an event did not change with the state before it (the walls' set, a province's
# spaces), so most steps find these in the caches: a step cost half as much (issue 30's live pages).
_walls = lru_cache(maxsize=512)(_sides)


@lru_cache(maxsize=16)
def _space_index(m: Map) -> dict[Space, int]:
    return {s: i for i, s in enumerate(m.spaces)}


def _spaces(spaces: Sequence[Space] | frozenset[Space]) -> tuple[tuple[int, int], ...]:
    return tuple(sorted((s[0], s[1]) for s in spaces))


_SHARED = ("pm", "pv", "w", "r", "guards", "score", "hand", "gsup", "resigned", "face", "ax")


def public_doc(v: GameView, events: Sequence[Event], version: int) -> dict[str, Any]:
    """A public view, and the move among ``events`` that led to it, as plain JSON (whole, not a
    difference): what the page draws and lists."""
    assert v.viewer is None and v.hand is None, "the web shows the public view only"
    black = v.walls - v.red_walls
    moved = next((e for e in events if isinstance(e, AlexanderMoved)), None)
    space_index = _space_index(v.map)
    pmap = [0] * len(v.map.spaces)
    provinces = []
    for p in v.provinces:
        for s in p.spaces:
            pmap[space_index[s]] = p.id
        provinces.append(
            (
                p.id, p.value, -1 if p.owner is None else p.owner, _occupation(v.map, p.symbol_spaces),
                _removal(v.map, p.guards),
            )
        )  # fmt: skip
    doc: dict[str, Any] = {
        "v": version,
        "turn": v.turn,
        "cur": v.current,
        "phase": v.phase.value,
        "score": tuple(p.score for p in v.players),
        "hand": tuple(p.hand_size for p in v.players),
        "gsup": tuple(p.guards_in_supply for p in v.players),
        "guards": tuple(_spaces(p.guards) for p in v.players),
        "resigned": tuple(p.resigned for p in v.players),
        "face": tuple(s.letter if s is not None else "" for s in v.face_up),
        "supply": v.supply_size,
        "bl": v.black_left,
        "rl": v.red_left,
        "ax": _pt(v.alexander),
        "w": _walls(black),
        "r": _walls(v.red_walls),
        "pm": tuple(pmap),
        "pv": tuple(sorted(provinces)),
        "mv": None
        if moved is None
        else {
            "seat": moved.player,
            "path": tuple(_pt(p) for p in moved.path),
            "w": _sides(moved.black),
            "r": _sides(moved.red),
        },
        "res": None
        if v.result is None
        else {"reason": v.result.reason.value, "winners": tuple(v.result.winners)},
    }
    return doc


@lru_cache(maxsize=4096)
def _occupation(m: Map, symbol_spaces: tuple[Space, ...]) -> str:
    """R6.1: a card per symbol space (the guards placed on symbol spaces lower it), as symbol letters."""
    return "".join(sorted(sym.letter for s in symbol_spaces if (sym := m.symbol[s]) is not None))


@lru_cache(maxsize=4096)
def _removal(m: Map, guards: tuple[Space, ...]) -> str:
    """R6.3: two cards per guard of the owner, of the symbol under it."""
    out = []
    for s in guards:
        sym = m.symbol.get(s)
        if sym is not None:
            out.append(sym.letter * 2)
    return "".join(sorted(out))


def diff(prev: dict[str, Any] | None, doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` as what changed since ``prev`` (the page carries every other key forward). Walls grow by a
    move's walls (``w+``, ``r+``), and are sent whole only when some went away (a move taken back)."""
    if prev is None:
        return dict(doc)
    out: dict[str, Any] = {"v": doc["v"], "mv": doc["mv"]}
    for key, value in doc.items():
        if key in ("v", "mv") or prev.get(key) == value:
            continue
        if key in ("w", "r"):
            old = {tuple(x) for x in prev[key]}
            new = {tuple(x) for x in value}
            if old <= new:
                out[key + "+"] = tuple(sorted(new - old))
                continue
        out[key] = value
    return out
