"""Short text notations for actions and for whole positions, with exact round trips.

``parse_action(format_action(a)) == a`` and ``parse_position(format_position(s)) == s``.

Actions
-------

One action per line, the seat first::

    2: M 1 B2-C3-C5              move: face-up card 1 (normal), along that path, to its last point
    2: M 1=soldier B2-C3         joker: face-up card 1, naming soldier
    2: M h=lyre B2-C3            special: discard a lyre from the hand
    2: C 1 | C 2 | C s           take face-up card 1 or 2, or the top of the supply
    2: O 7 3,12 4,13             occupy province 7 with guards on those spaces
    2: X 7 3,12 give T,T,H       take over province 7, giving the loser those cards
    2: L horse                   levy, paying a horse
    2: B 3,12                    take back the guard on (3,12)
    2: E | R | K | A             end the turn, resign, skip the turn, end by agreement

Spaces are written ``row,column``; points as their labels (MAP-FORMAT.md). Parsing checks the form only:
whether the action is legal is ``engine.game.apply``'s question.

Positions
---------
One ``key: value`` per line, every field of the GameState, in this order, for tests, bug reports and
``python -m engine simulate --from FILE``::

    alexandros position 2
    map: 5f2c0a9e4b7d1c3a Alexander's Empire     the digest of the map text (Map.digest), then its name
    options: coast-walls                          or no-coast-walls (D2)
    version: 57 | seed: 3 | rng: 1234567            (each on its own line)
    turn: 12 | current: 2 | phase: actions | actions: take-card levy | ending: -
    alexander: D7
    walls: B2-C3 C3-C5                            every wall, black and red; red: the red ones
    provinces: 1@0,0 5@3,4                        id@space in order: each province is the part of the
    next-province: 6                              land, cut by the walls, that holds that space (R4.1)
    face-up: horse -                              a slot's symbol, or - while it waits for a card
    supply: THHAL                                 top card first (secret in play: R2.5)
    discard: TTS
    player 0: hand TH guards 3,4 5,6 score 12 known H    and ``resigned`` at the end when so
    last-move: 2 B2-C3-C5 black B2-C3 C3-C5 red -
    result: walls winners 0,2 scores 10,20,30,40  or ``result: -``
    undo: revealed | undo-point 0: {...}          P10's trail, only when there is one (lean snapshots)

``known`` (P12: the cards the table knows the player holds) came with version 2; a version 1 text has
none on its player lines and reads with none known. Blank lines and ``#`` comments may stand anywhere.

The map is found by its digest: ``parse_position`` asks the ``maps`` it is given, else the packaged maps
(every engine/maps/*.map), else a map written into the position after a ``map-text:`` line, each line of
it behind ``| ``.

A text is read only if the position it describes keeps every invariant of engine.invariants (and each
undo point too); anything else raises NotationError with the line at fault and a sentence: ``line 8: seat
7 is on turn, but the game has 4 players (R2.4)``. Numbers are at most 20 of the digits 0-9, labels and
card letters are ASCII, and every point, side and space must be the map's.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from enum import Enum
from functools import cache
from typing import Any, TypeVar

from engine import rules
from engine.actions import (
    Action,
    CardSource,
    EndByAgreement,
    EndTurn,
    Levy,
    Move,
    MoveWay,
    Occupy,
    Resign,
    SkipTurn,
    TakeBack,
    TakeCard,
    TakeOver,
    Undo,
)
from engine.geometry import Point, Side, Space, parse_label_syntax, point_label, side, side_label
from engine.invariants import violations
from engine.maps import Map, MapError, packaged_map, packaged_map_names, parse_map
from engine.snapshot import dumps_state, loads_state
from engine.state import (
    CARDS_PER_SYMBOL,
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
from engine.symbols import LETTER_SYMBOLS, NO_CARDS, Cards, Symbol, as_list, cards_of


class NotationError(ValueError):
    """Text that is not an action or a position in this notation."""


_T = TypeVar("_T")
_E = TypeVar("_E", bound=Enum)


def format_action(action: Action) -> str:
    head = f"{action.player}: "
    if isinstance(action, Move):
        if action.way is MoveWay.SPECIAL:
            assert action.card is not None
            card = f"h={action.card.value}"
        elif action.way is MoveWay.JOKER:
            assert action.named is not None
            card = f"{(action.slot or 0) + 1}={action.named.value}"
        else:
            card = str((action.slot or 0) + 1)
        path = "-".join(point_label(p) for p in action.path)
        return f"{head}M {card} {path}"
    if isinstance(action, TakeCard):
        return head + ("C s" if action.source is CardSource.SUPPLY else f"C {(action.slot or 0) + 1}")
    if isinstance(action, Occupy):
        return f"{head}O {action.province} " + " ".join(_space(g) for g in action.guards)
    if isinstance(action, TakeOver):
        guards = " ".join(_space(g) for g in action.guards)
        give = ",".join(s.letter for s in as_list(action.compensation))
        return f"{head}X {action.province} {guards}" + (f" give {give}" if give else "")
    if isinstance(action, Levy):
        return f"{head}L {action.card.value}"
    if isinstance(action, TakeBack):
        return f"{head}B {_space(action.space)}"
    letter = {EndTurn: "E", Resign: "R", SkipTurn: "K", EndByAgreement: "A", Undo: "U"}[type(action)]
    return head + letter


# The form of each action, for a refusal that says what was expected (never a Python message).
_ACTION_FORMS = {
    "M": "'M CARD PATH', like 'M 1 B2-C3-C5', 'M 1=soldier B2-C3' or 'M h=lyre B2-C3'",
    "C": "'C 1', 'C 2' or 'C s'",
    "O": "'O PROVINCE SPACES', like 'O 7 3,12 4,13'",
    "X": "'X PROVINCE SPACES give CARDS', like 'X 7 3,12 give T,T,H'",
    "L": "'L SYMBOL', like 'L horse'",
    "B": "'B SPACE', like 'B 3,12'",
}


def parse_action(text: str) -> Action:
    seat_text, sep, rest = text.partition(":")
    if not sep or not re.fullmatch(r"[0-9]{1,3}", seat_text.strip()):
        raise NotationError(f"expected 'SEAT: ACTION', got {text!r}")
    player = int(seat_text)
    words = rest.split()
    if not words:
        raise NotationError(f"no action in {text!r}")
    kind, args = words[0].upper(), words[1:]
    try:
        return _parse(player, kind, args)
    except (IndexError, KeyError, ValueError) as err:
        form = _ACTION_FORMS.get(kind, "a letter of M, C, O, X, L, B, E, R, K, A, U and its words")
        raise NotationError(f"cannot read {text!r}: expected {form}") from err


def _parse(player: int, kind: str, args: list[str]) -> Action:
    if kind == "M":
        if len(args) == 3:  # the older form named a space too: "M 1 3,13 B2-C3-C5"; a Move needs none now
            _parse_space(args[1])
            args = [args[0], args[2]]
        card, path_text = args
        path = tuple(_point(p) for p in path_text.split("-"))
        if card.startswith("h="):
            return Move(player, MoveWay.SPECIAL, path, card=Symbol(card[2:]))
        slot_text, _, named = card.partition("=")
        slot = int(slot_text) - 1
        if named:
            return Move(player, MoveWay.JOKER, path, slot=slot, named=Symbol(named))
        return Move(player, MoveWay.NORMAL, path, slot=slot)
    if kind == "C":
        (which,) = args
        if which.lower() == "s":
            return TakeCard(player, CardSource.SUPPLY)
        return TakeCard(player, CardSource.FACE_UP, int(which) - 1)
    if kind == "O":
        return Occupy(player, int(args[0]), tuple(_parse_space(a) for a in args[1:]))
    if kind == "X":
        give = NO_CARDS
        if "give" in args:
            at = args.index("give")
            give = cards_of([LETTER_SYMBOLS[x] for x in args[at + 1].split(",")])
            args = args[:at]
        return TakeOver(player, int(args[0]), tuple(_parse_space(a) for a in args[1:]), give)
    if kind == "L":
        return Levy(player, Symbol(args[0]))
    if kind == "B":
        return TakeBack(player, _parse_space(args[0]))
    simple: dict[str, Callable[[int], Action]] = {
        "E": EndTurn, "R": Resign, "K": SkipTurn, "A": EndByAgreement, "U": Undo,
    }
    if kind in simple and not args:
        return simple[kind](player)
    raise NotationError(f"unknown action {kind!r}")


def _space(space: Space) -> str:
    return f"{space[0]},{space[1]}"


def _parse_space(text: str) -> Space:
    r, c = text.split(",")
    return int(r), int(c)


def _point(text: str) -> Point:
    p = parse_label_syntax(text)
    if p is None:
        raise ValueError(f"{text!r} is not a point label")
    return p


# --- Positions ------------------------------------------------------------------------------------------

POSITION_HEADER = "alexandros position 2"
_HEADERS = {"alexandros position 1": 1, POSITION_HEADER: 2}  # 1: before P12's known cards
# The lines in their order: map; these; alexander, walls, red, provinces; then these; the players; ...
_HEAD_KEYS = ("options", "version", "seed", "rng", "turn", "current", "phase", "actions", "ending")
_CARD_KEYS = ("next-province", "face-up", "supply", "discard")
_MAX_DIGITS = 20  # a 64-bit number has at most 20 digits; longer numbers are no part of a position
_NUMBER = re.compile(rf"[0-9]{{1,{_MAX_DIGITS}}}")
_SIGNED = re.compile(rf"-?[0-9]{{1,{_MAX_DIGITS}}}")
_LABEL = re.compile(r"[A-Z][0-9]{1,3}")
_SPACE = re.compile(r"([0-9]{1,6}),([0-9]{1,6})")
_DIGEST = re.compile(r"[0-9a-f]{16}")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u2028\u2029\ufeff]")
_CARD_LETTERS = ", ".join(LETTER_SYMBOLS)
# The line of a position that holds each part of the state engine.invariants may find at fault.
_FIELD_LINES = {
    "current": "current", "rng": "rng", "actions_taken": "actions", "ending": "ending", "result": "result",
    "alexander": "alexander", "walls": "walls", "red_walls": "red", "last_move": "last-move",
    "face_up": "face-up", "discard": "discard", "supply": "supply", "provinces": "provinces",
    "next_province_id": "next-province",
}


def format_position(state: GameState, map_text: bool = False) -> str:
    """The position as text; ``map_text`` writes the map into it too (for maps that are not packaged)."""
    lines = [
        POSITION_HEADER,
        f"map: {state.map.digest} {state.map.name}",
        f"options: {'coast-walls' if state.options.coast_walls else 'no-coast-walls'}",
        f"version: {state.version}",
        f"seed: {state.seed}",
        f"rng: {state.rng}",
        f"turn: {state.turn}",
        f"current: {state.current}",
        f"phase: {state.phase.value}",
        f"actions: {' '.join(a.value for a in state.actions_taken) or '-'}",
        f"ending: {state.ending.value if state.ending else '-'}",
        f"alexander: {point_label(state.alexander)}",
        f"walls: {_sides_text(state.walls)}",
        f"red: {_sides_text(state.red_walls)}",
        "provinces: " + " ".join(f"{p.id}@{_space(min(p.spaces))}" for p in state.provinces),
        f"next-province: {state.next_province_id}",
        "face-up: " + " ".join(s.value if s is not None else "-" for s in state.face_up),
        f"supply: {''.join(s.letter for s in state.supply) or '-'}",
        f"discard: {_cards_text(state.discard)}",
    ]
    for seat, pl in enumerate(state.players):
        guards = " ".join(_space(g) for g in sorted(pl.guards)) or "-"
        flag = " resigned" if pl.resigned else ""
        lines.append(
            f"player {seat}: hand {_cards_text(pl.hand)} guards {guards} score {pl.score}"
            f" known {_cards_text(pl.known)}{flag}"
        )
    last = state.last_move
    if last is None:
        lines.append("last-move: -")
    else:
        path = "-".join(point_label(p) for p in last.path)
        black, red = _sides_text(last.black, keep_order=True), _sides_text(last.red, keep_order=True)
        lines.append(f"last-move: {last.player} {path} black {black} red {red}")
    res = state.result
    if res is None:
        lines.append("result: -")
    else:
        winners = ",".join(str(w) for w in res.winners) or "-"
        scores = ",".join(str(x) for x in res.scores) or "-"
        lines.append(f"result: {res.reason.value} winners {winners} scores {scores}")
    lines.extend(_undo_lines(state.undo))
    if map_text:
        lines.append("map-text:")
        lines.extend(f"| {line}".rstrip() for line in state.map.text.splitlines())
    return "\n".join(lines) + "\n"


def parse_position(text: str, maps: Callable[[str], Map] | None = None) -> GameState:
    """A position written by ``format_position`` (or by its version 1, without P12's known cards).

    The text is accepted only if the position keeps every invariant of engine.invariants; otherwise
    NotationError says which line is wrong and why ("line 8: seat 7 is on turn, but the game has 4
    players (R2.4)"). The map is found by its digest: ``maps`` when given, else the packaged maps
    (engine/maps/*.map), else the map written after a ``map-text:`` line."""
    lines = _PositionLines(text)
    state = _PositionReader(lines, maps).state()
    for v in violations(state):
        if v.field == "players" and v.at is not None:
            key = f"player {v.at}"
        elif v.field == "undo" and v.at is not None:
            key = f"undo-point {v.at}"
        else:
            key = _FIELD_LINES.get(v.field, "")
        raise NotationError(f"line {lines.number.get(key, 1)}: {v.text} ({v.rule})")
    return state


class _Bad(ValueError):
    """A value that its line cannot hold; the reader adds the line."""


class _PositionLines:
    """The ``key: value`` lines of a position, each with its line number, in the order written, and the
    map text behind ``map-text:``; refuses what is no line of a position."""

    def __init__(self, text: str) -> None:
        if text.startswith("\ufeff"):
            raise NotationError("line 1: the text starts with a byte order mark (U+FEFF): write it without")
        raw = text.split("\n")
        if raw and raw[-1] == "":
            raw.pop()
        raw = [line[:-1] if line.endswith("\r") else line for line in raw]
        if not raw:
            raise NotationError(f"line 1: the text is empty; a position starts with {POSITION_HEADER!r}")
        if raw[0].strip() not in _HEADERS:
            raise NotationError(f"line 1: a position starts with {POSITION_HEADER!r}, not {_shown(raw[0])}")
        self.version = _HEADERS[raw[0].strip()]
        self.end = len(raw) + 1  # the line after the last one
        self.entries: list[tuple[int, str, str]] = []  # (line number, key, value)
        self.number: dict[str, int] = {}
        self.map_lines: list[str] = []
        self.map_at = 0  # the number of the ``map-text:`` line, 0 when there is none
        for number, line in enumerate(raw[1:], start=2):
            if self.map_at:
                if not line.startswith("|"):
                    why = "only map text, each line after '|', follows 'map-text:'"
                    raise NotationError(f"line {number}: {why}")
                self.map_lines.append(line[2:] if line.startswith("| ") else line[1:])
                continue
            self._read(number, line)

    def _read(self, number: int, line: str) -> None:
        bad = _CONTROL.search(line)
        if bad is not None:
            code = f"U+{ord(bad.group()):04X}"
            raise NotationError(f"line {number}: the character {code} has no place in a position")
        if not line.strip() or line.lstrip().startswith("#"):
            return
        if line.strip() == "map-text:":
            self.map_at = number
            return
        key, sep, value = line.partition(":")
        key = key.strip()
        if not sep or not key:
            raise NotationError(f"line {number}: expected 'key: value', got {_shown(line)}")
        if key in self.number:
            raise NotationError(f"line {number}: '{key}:' is given twice (first on line {self.number[key]})")
        self.number[key] = number
        self.entries.append((number, key, value.strip()))


class _PositionReader:
    """Reads the lines in their order into a GameState, each value checked against the map it names."""

    def __init__(self, lines: _PositionLines, maps: Callable[[str], Map] | None) -> None:
        self.lines = lines
        self.maps = maps
        self.at = 0  # the next entry
        self.line = 1  # the line being read

    def take(self, key: str) -> str:
        """The value of the next line, which must be ``key``'s."""
        entries = self.lines.entries
        if self.at >= len(entries):
            raise NotationError(f"line {self.lines.end}: the position ends before its '{key}:' line")
        number, found, value = entries[self.at]
        if found != key:
            found = _shown(found + ":")
            raise NotationError(f"line {number}: expected the '{key}:' line here, found {found}")
        self.at += 1
        self.line = number
        return value

    def peek(self) -> str | None:
        entries = self.lines.entries
        return entries[self.at][1] if self.at < len(entries) else None

    def read(self, key: str, parse: Callable[[str], _T]) -> _T:
        value = self.take(key)
        try:
            return parse(value)
        except _Bad as err:
            raise NotationError(f"line {self.line}: {key}: {err}") from None

    def state(self) -> GameState:
        game_map = self.read("map", self._map)
        m = _MapWords(game_map)
        head = {key: self.read(key, _FIELD_PARSERS[key]) for key in _HEAD_KEYS}
        alexander = self.read("alexander", m.point)
        walls = frozenset(self.read("walls", m.sides))
        red = frozenset(self.read("red", m.sides))
        province_text = self.take("provinces")
        province_line = self.line
        values = {key: self.read(key, _FIELD_PARSERS[key]) for key in _CARD_KEYS}
        players: list[PlayerState] = []
        while self.peek() == f"player {len(players)}":
            players.append(self.read(f"player {len(players)}", lambda v: m.player(v, self.lines.version)))
        if not players:
            self.take("player 0")
        last_move = self.read("last-move", m.last_move)
        result = self.read("result", _result)
        state = GameState(
            map=game_map,
            options=Options(coast_walls=head["options"] == "coast-walls"),
            players=tuple(players),
            alexander=alexander,
            walls=walls,
            red_walls=red,
            provinces=(),
            next_province_id=values["next-province"],
            face_up=values["face-up"],
            supply=values["supply"],
            discard=values["discard"],
            rng=head["rng"],
            current=head["current"],
            phase=head["phase"],
            turn=head["turn"],
            actions_taken=head["actions"],
            ending=head["ending"],
            last_move=last_move,
            result=result,
            version=head["version"],
            seed=head["seed"],
        )
        try:
            state = _with_provinces(state, province_text)
        except _Bad as err:
            raise NotationError(f"line {province_line}: provinces: {err}") from None
        state = replace(state, undo=self._undo(state))
        extra = self.peek()
        if extra is not None:
            number = self.lines.number[extra]
            raise NotationError(f"line {number}: {_shown(extra + ':')} is no line of a position here")
        return state

    def _map(self, value: str) -> Map:
        digest, _, name = value.partition(" ")
        if not _DIGEST.fullmatch(digest):
            raise _Bad(f"expected the map's digest (16 hex digits) and its name, got {_shown(value)}")
        game_map = self._find_map(digest)
        if game_map.name != name.strip():
            raise _Bad(f"the map with digest {digest} is named {game_map.name!r}, not {_shown(name.strip())}")
        return game_map

    def _find_map(self, digest: str) -> Map:
        if self.maps is not None:
            try:
                given = self.maps(digest)
            except (LookupError, ValueError):
                given = None
            if given is not None:
                if given.digest != digest:
                    raise _Bad(f"the map given has digest {given.digest}, the position needs {digest}")
                return given
        found = _packaged_by_digest().get(digest)
        if found is not None:
            return found
        if not self.lines.map_at:
            raise _Bad(f"no map with digest {digest}: pass the map, or write it after 'map-text:'")
        try:
            written = parse_map("\n".join(self.lines.map_lines) + "\n", "<position>")
        except MapError as err:
            line = self.lines.map_at + err.line
            raise NotationError(f"line {line}: the map text is no map: {err.problem}") from None
        if written.digest != digest:
            raise _Bad(f"the map written after 'map-text:' has digest {written.digest}, not {digest}")
        return written

    def _undo(self, state: GameState) -> UndoTrail:
        """P10's trail: its flags, then each undo point, a lean snapshot that must itself be a position."""
        if self.peek() != "undo":
            return UndoTrail()
        flags = self.read("undo", _undo_flags)
        points: list[GameState] = []
        while self.peek() == f"undo-point {len(points)}":
            text = self.take(f"undo-point {len(points)}")
            points.append(_undo_point(text, state.map, self.line, len(points)))
        return UndoTrail(tuple(points), "open" in flags, "revealed" in flags)


def _undo_point(text: str, game_map: Map, line: int, index: int) -> GameState:
    """An undo point, read as a lean snapshot and checked as a position of its own (it may be restored)."""
    try:
        point = loads_state(text, lambda digest: game_map)
        # A snapshot's JSON may hold values of any type; written out as a position, the position reader
        # checks each of them, and a value that cannot even be written out is no state. A card count
        # beyond the game's cards would be written out card by card: refused first.
        counts = [*point.discard, *(n for p in point.players for n in (*p.hand, *p.known))]
        if any(not 0 <= n <= CARDS_PER_SYMBOL * len(LETTER_SYMBOLS) for n in counts):
            raise ValueError("more cards than the game has")
        again = format_position(point)
    except Exception:  # noqa: BLE001 - see above: any failure here means "no state"
        raise NotationError(f"line {line}: undo-point {index} is no snapshot of this game's state") from None
    try:
        checked = parse_position(again, maps=lambda digest: game_map)
    except NotationError as err:
        why = str(err).partition(": ")[2]
        raise NotationError(f"line {line}: undo-point {index} is no state of this game: {why}") from None
    if checked != point:
        raise NotationError(f"line {line}: undo-point {index} is no snapshot of this game's state")
    return checked


class _MapWords:
    """Words that name things on one map: points, sides, spaces; and the lines made of them."""

    def __init__(self, game_map: Map) -> None:
        self.map = game_map

    def point(self, word: str) -> Point:
        if not _LABEL.fullmatch(word):
            raise _Bad(f"{_shown(word)} is not a point label (a letter A-Z and a number, like D7)")
        p = parse_label_syntax(word)
        if p is None or p not in self.map.adjacent:
            raise _Bad(f"{word} is not a point of the map")
        return p

    def space(self, word: str) -> Space:
        found = _SPACE.fullmatch(word)
        if not found:
            raise _Bad(f"{_shown(word)} is not a space (ROW,COLUMN, like 3,12)")
        sp = int(found.group(1)), int(found.group(2))
        if sp not in self.map.symbol:
            raise _Bad(f"{word} is not a space of the map")
        return sp

    def side(self, word: str) -> Side:
        a_text, sep, b_text = word.partition("-")
        if not sep:
            raise _Bad(f"{_shown(word)} is not a side (two point labels, like B2-C3)")
        a, b = self.point(a_text), self.point(b_text)
        if (a, b) != side(a, b):
            raise _Bad(f"a side is written smaller point first: {word}")
        if (a, b) not in self.map.side_kind:
            raise _Bad(f"{word} is not a side of the map")
        return a, b

    def sides(self, value: str) -> list[Side]:
        out = [self.side(w) for w in _dash(value).split()]
        _once(out, side_label)
        return out

    def player(self, value: str, version: int) -> PlayerState:
        words = value.split()
        form = "hand CARDS guards SPACES score N" + (" known CARDS" if version >= 2 else "") + " [resigned]"
        if len(words) < 5 or words[0] != "hand" or words[2] != "guards" or "score" not in words:
            raise _Bad(f"expected '{form}', got {_shown(value)}")
        at = words.index("score")
        hand = _cards(words[1])
        guards = [] if words[3:at] == ["-"] else [self.space(w) for w in words[3:at]]
        _once(guards, _space)
        if at + 1 >= len(words):
            raise _Bad(f"expected '{form}', got {_shown(value)}")
        score = _number(words[at + 1])
        rest = words[at + 2 :]
        known = NO_CARDS
        if version >= 2:
            if rest[:1] != ["known"] or len(rest) < 2:
                raise _Bad(f"expected '{form}', got {_shown(value)}")
            known, rest = _cards(rest[1]), rest[2:]
        if rest not in ([], ["resigned"]):
            raise _Bad(f"unexpected words after the score: {_shown(' '.join(rest))}")
        return PlayerState(hand, frozenset(guards), score, rest == ["resigned"], known)

    def last_move(self, value: str) -> LastMove | None:
        if value == "-":
            return None
        words = value.split()
        if len(words) < 5 or words[2] != "black" or "red" not in words[3:]:
            raise _Bad(f"expected 'SEAT PATH black SIDES red SIDES' or '-', got {_shown(value)}")
        red_at = words.index("red", 3)
        path = tuple(self.point(p) for p in words[1].split("-"))
        for a, b in zip(path, path[1:], strict=False):
            if side(a, b) not in self.map.side_kind:
                step = f"{point_label(a)} to {point_label(b)}"
                raise _Bad(f"the path steps from {step}, which are not neighbours")
        black = [self.side(w) for w in _dash(" ".join(words[3:red_at])).split()]
        red = [self.side(w) for w in _dash(" ".join(words[red_at + 1 :])).split()]
        _once(black + red, side_label)
        return LastMove(_number(words[0]), path, tuple(black), tuple(red))


def _with_provinces(state: GameState, text: str) -> GameState:
    """R4.1: the provinces are the parts of the land cut by the walls; ``id@space`` names the part holding
    that space, in the order the state keeps them (P6 ids)."""
    whole = Province(0, frozenset(state.map.spaces))
    parts = rules.split_province(state, whole, state.walls)
    part_of = {s: part for part in parts for s in part}
    m = _MapWords(state.map)
    provinces = []
    named: dict[frozenset[Space], str] = {}
    for word in text.split():
        pid_text, sep, at = word.partition("@")
        if not sep:
            raise _Bad(f"{_shown(word)} is not ID@ROW,COLUMN")
        part = part_of[m.space(at)]
        if part in named:
            raise _Bad(f"{word} names the same province as {named[part]}")
        named[part] = word
        provinces.append(Province(_number(pid_text), part))
    if len(provinces) != len(parts):
        raise _Bad(f"{len(provinces)} named; the walls cut the land in {len(parts)} parts")
    return replace(state, provinces=tuple(provinces))


def _undo_lines(trail: UndoTrail) -> list[str]:
    """P10's trail, only when there is one: its flags, then each undo point as a lean snapshot line."""
    if trail == UndoTrail():
        return []
    flags = [name for name, on in (("open", trail.step_open), ("revealed", trail.revealed)) if on]
    lines = [f"undo: {' '.join(flags) or '-'}"]
    lines.extend(f"undo-point {i}: {dumps_state(p)}" for i, p in enumerate(trail.points))
    return lines


def _undo_flags(value: str) -> set[str]:
    flags = _dash(value).split()
    if any(f not in ("open", "revealed") for f in flags) or len(set(flags)) != len(flags):
        raise _Bad(f"expected '-' or 'open', 'revealed' or both, got {_shown(value)}")
    return set(flags)


@cache
def _packaged_by_digest() -> dict[str, Map]:
    """Every packaged map (engine/maps/*.map) by its digest."""
    return {m.digest: m for m in (packaged_map(name) for name in packaged_map_names())}


def _options(value: str) -> str:
    if value not in ("coast-walls", "no-coast-walls"):
        raise _Bad(f"expected coast-walls or no-coast-walls, got {_shown(value)}")
    return value


def _number(word: str) -> int:
    if not _NUMBER.fullmatch(word):
        raise _Bad(f"{_shown(word)} is not a number (at most {_MAX_DIGITS} of the digits 0-9)")
    return int(word)


def _signed(word: str) -> int:
    if not _SIGNED.fullmatch(word):
        raise _Bad(f"{_shown(word)} is not a number (at most {_MAX_DIGITS} of the digits 0-9, maybe after -)")
    return int(word)


def _choice(kind: type[_E], what: str) -> Callable[[str], _E]:
    def parse(word: str) -> _E:
        try:
            return kind(word)
        except ValueError:
            allowed = ", ".join(e.value for e in kind)
            raise _Bad(f"{_shown(word)} is not {what} ({allowed})") from None

    return parse


def _ending(value: str) -> EndReason | None:
    return None if value == "-" else _choice(EndReason, "a way the game ends")(value)


def _actions(value: str) -> tuple[ActionKind, ...]:
    return tuple(_choice(ActionKind, "an action")(w) for w in _dash(value).split())


def _face_up(value: str) -> tuple[Symbol | None, ...]:
    return tuple(None if w == "-" else _choice(Symbol, "a symbol")(w) for w in value.split())


def _pile(value: str) -> tuple[Symbol, ...]:
    for ch in _dash(value):
        if ch not in LETTER_SYMBOLS:
            raise _Bad(f"{_shown(ch)} is not a card letter ({_CARD_LETTERS})")
    return tuple(LETTER_SYMBOLS[ch] for ch in _dash(value))


def _cards(value: str) -> Cards:
    return cards_of(_pile(value))


def _result(value: str) -> GameResult | None:
    if value == "-":
        return None
    words = value.split()
    if len(words) != 5 or (words[1], words[3]) != ("winners", "scores"):
        raise _Bad(f"expected 'REASON winners A,B scores X,Y' or '-', got {_shown(value)}")
    reason = _choice(EndReason, "a way the game ends")(words[0])
    return GameResult(reason, _ints(words[2]), _ints(words[4]))


def _ints(text: str) -> tuple[int, ...]:
    return () if text == "-" else tuple(_number(x) for x in text.split(","))


_FIELD_PARSERS: dict[str, Callable[[str], Any]] = {
    "options": _options,
    "version": _number,
    "seed": _signed,
    "rng": _number,
    "turn": _number,
    "current": _number,
    "phase": _choice(Phase, "a phase"),
    "actions": _actions,
    "ending": _ending,
    "next-province": _number,
    "face-up": _face_up,
    "supply": _pile,
    "discard": _cards,
}


def _once(items: list[_T], name: Callable[[_T], str]) -> None:
    seen: set[_T] = set()
    for item in items:
        if item in seen:
            raise _Bad(f"{name(item)} is written twice")
        seen.add(item)


def _shown(text: str) -> str:
    """Text quoted for a message, cut short when long."""
    return repr(text if len(text) <= 40 else text[:37] + "...")


def _dash(text: str) -> str:
    return "" if text == "-" else text


def _cards_text(cards: Cards) -> str:
    return "".join(s.letter for s in as_list(cards)) or "-"


def _sides_text(sides: frozenset[Side] | tuple[Side, ...], keep_order: bool = False) -> str:
    ordered = list(sides) if keep_order else sorted(sides)
    return " ".join(side_label(sd) for sd in ordered) or "-"
