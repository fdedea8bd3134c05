"""Lean snapshots of a game state: a hand-written compact codec, with the map referred to, not copied.

``dump_state(state)`` gives a JSON-able dict WITHOUT the map text; ``map_ref(state)`` gives the map's
``(id, digest)`` (its name and the hash of its text, ``Map.digest``), which the store keeps once per game;
``load_state(doc, maps)`` rebuilds the identical state, asking ``maps(digest)`` for the map. Old snapshots
(``engine.serialize``'s format, schema 1, with the whole map text inside) still load through
``load_state``, without asking ``maps``.

The codec knows GameState's fields by hand, so it does no reflection per field: it is several times faster
than ``engine.serialize`` (benchmarks/bench_engine.py measures both). A new GameState field must be added
here, and tests/engine/test_snapshot.py fails until it is.

Layout (``"lean": 1``): points and spaces are flat lists of ints (``[i1, x1, i2, x2, ...]``), sides four
ints each, cards five counts, card piles and face-up slots letters (``"-"`` for an empty slot). A player
is ``[hand, guards, score, resigned]``, with P12's known cards as a fifth item when there are some.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any, cast

from engine import serialize
from engine.geometry import Point, Side
from engine.maps import Map
from engine.state import (
    ActionKind,
    EndReason,
    GameResult,
    GameState,
    LastMove,
    Options,
    Phase,
    PlayerState,
    Province,
    UndoTrail,
)
from engine.symbols import LETTER_SYMBOLS, NO_CARDS, Cards, Symbol

LEAN_VERSION = 1

MapLookup = Callable[[str], Map]


class SnapshotError(ValueError):
    """A snapshot this engine cannot read, or whose map the provider does not have."""


def map_ref(state: GameState) -> tuple[str, str]:
    """The map a snapshot refers to: (its name, the digest of its text)."""
    return state.map.name, state.map.digest


def maps_by_digest(*maps: Map) -> MapLookup:
    """A ``load_state`` map provider over a few known maps (for example the packaged ones)."""
    known = {m.digest: m for m in maps}

    def lookup(digest: str) -> Map:
        try:
            return known[digest]
        except KeyError:
            raise SnapshotError(f"no map with digest {digest!r}") from None

    return lookup


def dump_state(state: GameState) -> dict[str, Any]:
    """A JSON-able snapshot of ``state`` without its map (see ``map_ref``).

    Worked out once per state and kept with it (``GameState.derived``): P10's trail holds the turn's earlier
    states, which every commit of the turn snapshots again. The caller gets its own copy of the top level;
    the lists inside are shared, so change none of them."""
    kept = state.derived.get(_LEAN)
    if kept is None:
        kept = state.derived[_LEAN] = _dump(state)
    return dict(kept)


def dump_public(state: GameState) -> dict[str, Any]:
    """The lean snapshot of ``state`` with every secret taken out (R2.5), as ``dump_state`` writes a state
    whose hands are as many cards of one symbol as they hold (only a hand's size, and P12's known cards kept
    beside it, are public), whose supply is
    as many cards of one symbol (its order is secret), whose random generator and seed are zero and which
    has no P10 trail (it holds the turn's earlier states whole). Made from the state's kept snapshot
    instead of a second one."""
    doc = dump_state(state)
    doc["players"] = [[[sum(hand), 0, 0, 0, 0], *rest] for hand, *rest in doc["players"]]
    doc["supply"] = Symbol.TEMPLE.letter * len(state.supply)
    doc["rng"] = 0
    doc["seed"] = 0
    doc.pop("undo", None)
    return doc


_LEAN = "snapshot.lean"  # the key of a state's kept snapshot in GameState.derived


def _dump(state: GameState) -> dict[str, Any]:
    last = state.last_move
    result = state.result
    doc: dict[str, Any] = {
        "lean": LEAN_VERSION,
        "map": [state.map.name, state.map.digest],
        "options": [state.options.coast_walls],
        "players": [_player_entry(p) for p in state.players],
        "alexander": list(state.alexander),
        "walls": _wall_list(state.walls),
        "red_walls": _sides(sorted(state.red_walls)),
        "provinces": [_province_entry(p) for p in state.provinces],
        "next_province_id": state.next_province_id,
        "face_up": "".join(s.letter if s is not None else "-" for s in state.face_up),
        "supply": "".join(s.letter for s in state.supply),
        "discard": list(state.discard),
        "rng": state.rng,
        "current": state.current,
        "phase": state.phase.value,
        "turn": state.turn,
        "actions_taken": [a.value for a in state.actions_taken],
        "ending": state.ending.value if state.ending is not None else None,
        "last_move": None
        if last is None
        else [last.player, _flat(last.path), _sides(last.black), _sides(last.red)],
        "result": None
        if result is None
        else [result.reason.value, list(result.winners), list(result.scores)],
        "version": state.version,
        "seed": state.seed,
    }
    if state.undo != UndoTrail():  # P10's trail; most snapshots have none, and stay as they were
        doc["undo"] = _dump_undo(state.undo)
    return doc


# Most provinces, and the walls between two moves, carry over from state to state unchanged: their lists are
# made once (shared by the snapshots, like the kept snapshot's: change none of them): _dump 58 -> 17 us.
@lru_cache(maxsize=8192)
def _province_entry(p: Province) -> list[Any]:
    return [p.id, _flat(sorted(p.spaces))]


@lru_cache(maxsize=1024)
def _wall_list(walls: frozenset[Side]) -> list[int]:
    return _sides(sorted(walls))


def _player_entry(p: PlayerState) -> list[Any]:
    """A player: hand, guards, score, resigned, and P12's known cards only when there are some (snapshots
    written before P12 have four items)."""
    entry: list[Any] = [list(p.hand), _flat(sorted(p.guards)), p.score, p.resigned]
    if p.known != NO_CARDS:
        entry.append(list(p.known))
    return entry


def _load_player(entry: list[Any]) -> PlayerState:
    hand, guards, score, resigned, *known = entry
    if len(known) > 1:
        raise SnapshotError(f"a player entry has {len(entry)} items, not 4 or 5")
    return PlayerState(
        _cards(hand), frozenset(_pairs(guards)), score, resigned, _cards(known[0]) if known else NO_CARDS
    )


def _dump_undo(trail: UndoTrail) -> list[Any]:
    """P10's trail: its points (each a lean state) and its flags."""
    return [[dump_state(p) for p in trail.points], trail.step_open, trail.revealed]


def _load_undo(data: list[Any] | None, game_map: Map) -> UndoTrail:
    if data is None:
        return UndoTrail()
    points, step_open, revealed = data
    return UndoTrail(tuple(_state(p, game_map) for p in points), bool(step_open), bool(revealed))


def load_state(doc: dict[str, Any], maps: MapLookup | None = None) -> GameState:
    """The state of a snapshot: a lean one (its map from ``maps(digest)``) or an old schema-1 document."""
    if "lean" not in doc:
        if "schema" in doc:
            value = serialize.load(doc)
            if not isinstance(value, GameState):
                raise SnapshotError(f"not a game state: {type(value).__name__}")
            return value
        raise SnapshotError("neither a lean snapshot nor a schema document")
    if doc["lean"] != LEAN_VERSION:
        raise SnapshotError(f"unsupported lean snapshot version {doc['lean']!r}")
    name, digest = doc["map"]
    if maps is None:
        raise SnapshotError(f"the snapshot refers to map {name!r} ({digest}); no map provider was given")
    game_map = maps(digest)
    if game_map.digest != digest:
        raise SnapshotError(f"the provider gave map {game_map.digest}, the snapshot needs {digest}")
    try:
        return _state(doc, game_map)
    except (KeyError, TypeError, ValueError, IndexError) as err:
        raise SnapshotError(f"malformed lean snapshot: {err!r}") from err


def dumps_state(state: GameState) -> str:
    """``dump_state``'s snapshot as compact JSON text, worked out once per state and kept with it.

    The same text as ``json.dumps(dump_state(state), separators=(",", ":"))``, made faster: each province's
    entry (most of the text: a flat list of its spaces) is written once per province shape, and P10's trail
    writes its states' kept texts. A commit writes the snapshot of every action as JSON, and a whole
    ``json.dumps`` of it took 80-150 us, most of the bot's JSON work (issue 32)."""
    kept = state.derived.get(_TEXT)
    if kept is None:
        kept = state.derived[_TEXT] = _text(dump_state(state), state)
    return cast(str, kept)


def dumps_public(state: GameState) -> str:
    """``dump_public``'s snapshot as compact JSON text (``dumps_state``'s way): what the outbox holds for a
    picture."""
    return _text(dump_public(state), state)


_TEXT = "snapshot.text"  # the key of a state's kept snapshot text in GameState.derived


def _text(doc: dict[str, Any], state: GameState) -> str:
    """The document's JSON text, with the parts kept as text (the provinces, the walls, P10's trail) written
    where a placeholder of each was: a string starting with NUL, which no snapshot holds."""
    kept = [key for key in _KEPT_PARTS if key in doc]
    for key in kept:
        doc[key] = "\x00" + key
    text = json.dumps(doc, separators=(",", ":"))
    for key in kept:
        text = text.replace(f'"\\u0000{key}"', _KEPT_PARTS[key](state), 1)
    return text


def _provinces_text(state: GameState) -> str:
    return f"[{','.join(map(_province_text, state.provinces))}]"


def _undo_text(state: GameState) -> str:
    trail = state.undo
    flags = json.dumps([trail.step_open, trail.revealed], separators=(",", ":"))
    return f"[[{','.join(map(dumps_state, trail.points))}],{flags[1:]}"


@lru_cache(maxsize=1024)
def _walls_text(walls: frozenset[Side]) -> str:
    return json.dumps(_wall_list(walls), separators=(",", ":"))


@lru_cache(maxsize=8192)
def _province_text(p: Province) -> str:
    return json.dumps(_province_entry(p), separators=(",", ":"))


# Each part's text, by its key in the document.
_KEPT_PARTS: dict[str, Callable[[GameState], str]] = {
    "provinces": _provinces_text,
    "walls": lambda state: _walls_text(state.walls),
    "undo": _undo_text,
}


def loads_state(text: str, maps: MapLookup | None = None) -> GameState:
    return load_state(json.loads(text), maps)


def _state(doc: dict[str, Any], game_map: Map) -> GameState:
    last = doc["last_move"]
    result = doc["result"]
    ending = doc["ending"]
    return GameState(
        map=game_map,
        options=Options(coast_walls=bool(doc["options"][0])),
        players=tuple(_load_player(entry) for entry in doc["players"]),
        alexander=_point(doc["alexander"]),
        walls=frozenset(_side_list(doc["walls"])),
        red_walls=frozenset(_side_list(doc["red_walls"])),
        provinces=tuple(Province(pid, frozenset(_pairs(spaces))) for pid, spaces in doc["provinces"]),
        next_province_id=doc["next_province_id"],
        face_up=tuple(None if ch == "-" else LETTER_SYMBOLS[ch] for ch in doc["face_up"]),
        supply=tuple(LETTER_SYMBOLS[ch] for ch in doc["supply"]),
        discard=_cards(doc["discard"]),
        rng=doc["rng"],
        current=doc["current"],
        phase=Phase(doc["phase"]),
        turn=doc["turn"],
        actions_taken=tuple(ActionKind(a) for a in doc["actions_taken"]),
        ending=EndReason(ending) if ending is not None else None,
        last_move=None if last is None else _last_move(last),
        result=None
        if result is None
        else GameResult(EndReason(result[0]), tuple(result[1]), tuple(result[2])),
        version=doc["version"],
        seed=doc["seed"],
        undo=_load_undo(doc.get("undo"), game_map),  # snapshots older than P10 have none
    )


def _last_move(data: list[Any]) -> LastMove:
    player, path, black, red = data
    return LastMove(player, tuple(_pairs(path)), tuple(_side_list(black)), tuple(_side_list(red)))


def _flat(points: Iterable[Point]) -> list[int]:
    return [v for p in points for v in p]


def _sides(sides: Iterable[Side]) -> list[int]:
    return [v for (a, b), (c, d) in sides for v in (a, b, c, d)]


def _pairs(flat: list[int]) -> list[Point]:
    it = iter(flat)
    return list(zip(it, it, strict=True))


def _side_list(flat: list[int]) -> list[Side]:
    it = iter(flat)
    return [((a, b), (c, d)) for a, b, c, d in zip(it, it, it, it, strict=True)]


def _point(pair: list[int]) -> Point:
    i, x = pair
    return i, x


def _cards(counts: list[int]) -> Cards:
    a, b, c, d, e = counts
    return a, b, c, d, e


__all__ = [
    "LEAN_VERSION", "MapLookup", "SnapshotError", "dump_public", "dump_state", "dumps_public", "dumps_state",
    "load_state", "loads_state", "map_ref", "maps_by_digest",
]
