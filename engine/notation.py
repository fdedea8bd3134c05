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
One ``key: value`` per line, every field of the GameState, for tests, bug reports and
``python -m engine simulate --from FILE``::

    alexandros position 1
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
    player 0: hand TH guards 3,4 5,6 score 12     and ``resigned`` at the end when so
    last-move: 2 B2-C3-C5 black B2-C3 C3-C5 red -
    result: walls winners 0,2 scores 10,20,30,40  or ``result: -``

The map is found by its digest: ``parse_position`` asks the ``maps`` it is given, else the packaged maps,
else a map written into the position after a ``map-text:`` line, each line of it behind ``| ``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

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
from engine.maps import Map, MapError, packaged_map, parse_map
from engine.snapshot import dumps_state, loads_state
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
from engine.symbols import LETTER_SYMBOLS, NO_CARDS, Cards, Symbol, as_list, cards_of


class NotationError(ValueError):
    """Text that is not an action in this notation."""


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


def parse_action(text: str) -> Action:
    seat_text, sep, rest = text.partition(":")
    if not sep or not seat_text.strip().isdigit():
        raise NotationError(f"expected 'SEAT: ACTION', got {text!r}")
    player = int(seat_text)
    words = rest.split()
    if not words:
        raise NotationError(f"no action in {text!r}")
    kind, args = words[0].upper(), words[1:]
    try:
        return _parse(player, kind, args)
    except (IndexError, KeyError, ValueError) as err:
        raise NotationError(f"cannot read {text!r}: {err}") from err


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

POSITION_HEADER = "alexandros position 1"
PACKAGED_MAPS = ("empire",)


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
        lines.append(f"player {seat}: hand {_cards_text(pl.hand)} guards {guards} score {pl.score}{flag}")
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
    """A position written by ``format_position``; raise NotationError naming what is wrong."""
    fields, map_lines = _position_fields(text)
    try:
        return _position(fields, map_lines, maps)
    except NotationError:
        raise
    except (KeyError, IndexError, ValueError, MapError) as err:
        raise NotationError(f"cannot read the position: {err}") from err


def _position_fields(text: str) -> tuple[dict[str, str], list[str]]:
    lines = text.splitlines()
    if not lines or lines[0].strip() != POSITION_HEADER:
        raise NotationError(f"a position starts with {POSITION_HEADER!r}")
    fields: dict[str, str] = {}
    map_lines: list[str] = []
    in_map = False
    for line in lines[1:]:
        if in_map:
            if line.startswith("|"):
                map_lines.append(line[2:] if line.startswith("| ") else line[1:])
                continue
            in_map = False
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line.strip() == "map-text:":
            in_map = True
            continue
        key, sep, value = line.partition(":")
        if not sep:
            raise NotationError(f"expected 'key: value', got {line!r}")
        fields[key.strip()] = value.strip()
    return fields, map_lines


def _find_map(digest: str, map_lines: list[str], maps: Callable[[str], Map] | None) -> Map:
    if maps is not None:
        return maps(digest)
    for name in PACKAGED_MAPS:
        m = packaged_map(name)
        if m.digest == digest:
            return m
    if map_lines:
        return parse_map("\n".join(map_lines) + "\n", "<position>")
    raise NotationError(f"no map with digest {digest}: pass the map, or write it after 'map-text:'")


def _position(fields: dict[str, str], map_lines: list[str], maps: Callable[[str], Map] | None) -> GameState:
    digest = fields["map"].split()[0]
    game_map = _find_map(digest, map_lines, maps)
    if game_map.digest != digest:
        raise NotationError(f"the map's digest is {game_map.digest}, the position needs {digest}")
    walls = frozenset(_parse_sides(fields["walls"]))
    players = []
    seat = 0
    while f"player {seat}" in fields:
        players.append(_player(fields[f"player {seat}"]))
        seat += 1
    ending = fields["ending"]
    state = GameState(
        map=game_map,
        options=Options(coast_walls=_options(fields["options"])),
        players=tuple(players),
        alexander=_point(fields["alexander"]),
        walls=walls,
        red_walls=frozenset(_parse_sides(fields["red"])),
        provinces=(),
        next_province_id=int(fields["next-province"]),
        face_up=tuple(None if w == "-" else Symbol(w) for w in fields["face-up"].split()),
        supply=tuple(LETTER_SYMBOLS[ch] for ch in _dash(fields["supply"])),
        discard=_parse_cards(fields["discard"]),
        rng=int(fields["rng"]),
        current=int(fields["current"]),
        phase=Phase(fields["phase"]),
        turn=int(fields["turn"]),
        actions_taken=tuple(ActionKind(a) for a in _dash(fields["actions"]).split()),
        ending=None if ending == "-" else EndReason(ending),
        last_move=_last_move(fields["last-move"]),
        result=_result(fields["result"]),
        version=int(fields["version"]),
        seed=int(fields["seed"]),
        undo=_parse_undo(fields, game_map),
    )
    return _with_provinces(state, fields["provinces"])


def _undo_lines(trail: UndoTrail) -> list[str]:
    """P10's trail, only when there is one: its flags, then each undo point as a lean snapshot line."""
    if trail == UndoTrail():
        return []
    flags = [name for name, on in (("open", trail.step_open), ("revealed", trail.revealed)) if on]
    lines = [f"undo: {' '.join(flags) or '-'}"]
    lines.extend(f"undo-point {i}: {dumps_state(p)}" for i, p in enumerate(trail.points))
    return lines


def _parse_undo(fields: dict[str, str], game_map: Map) -> UndoTrail:
    if "undo" not in fields:
        return UndoTrail()
    flags = set(_dash(fields["undo"]).split())
    points: list[GameState] = []
    while f"undo-point {len(points)}" in fields:
        points.append(loads_state(fields[f"undo-point {len(points)}"], lambda digest: game_map))
    return UndoTrail(tuple(points), "open" in flags, "revealed" in flags)


def _with_provinces(state: GameState, text: str) -> GameState:
    """R4.1: the provinces are the parts of the land cut by the walls; ``id@space`` names the part holding
    that space, in the order the state keeps them (P6 ids)."""
    whole = Province(0, frozenset(state.map.spaces))
    parts = rules.split_province(state, whole, state.walls)
    part_of = {s: part for part in parts for s in part}
    provinces = []
    for word in text.split():
        pid, _, at = word.partition("@")
        provinces.append(Province(int(pid), part_of[_parse_space(at)]))
    if len({p.spaces for p in provinces}) != len(parts) or len(provinces) != len(parts):
        named = len(provinces)
        raise NotationError(f"provinces: {named} named; the walls cut the land in {len(parts)} parts")
    return replace(state, provinces=tuple(provinces))


def _options(text: str) -> bool:
    if text not in ("coast-walls", "no-coast-walls"):
        raise NotationError(f"options: expected coast-walls or no-coast-walls, got {text!r}")
    return text == "coast-walls"


def _player(text: str) -> PlayerState:
    words = text.split()
    if words[0] != "hand" or words[2] != "guards" or "score" not in words:
        raise NotationError(f"expected 'hand CARDS guards SPACES score N', got {text!r}")
    at = words.index("score")
    guards = [] if words[3:at] == ["-"] else [_parse_space(w) for w in words[3:at]]
    resigned = words[at + 2 :] == ["resigned"]
    if words[at + 2 :] not in ([], ["resigned"]):
        raise NotationError(f"unexpected words after the score: {text!r}")
    return PlayerState(_parse_cards(words[1]), frozenset(guards), int(words[at + 1]), resigned)


def _last_move(text: str) -> LastMove | None:
    if text == "-":
        return None
    words = text.split()
    black_at, red_at = words.index("black"), words.index("red")
    path = tuple(_point(p) for p in words[1].split("-"))
    black = tuple(_parse_sides(" ".join(words[black_at + 1 : red_at])))
    red = tuple(_parse_sides(" ".join(words[red_at + 1 :])))
    return LastMove(int(words[0]), path, black, red)


def _result(text: str) -> GameResult | None:
    if text == "-":
        return None
    reason, w_key, winners, s_key, scores = text.split()
    if (w_key, s_key) != ("winners", "scores"):
        raise NotationError(f"expected 'REASON winners A,B scores X,Y', got {text!r}")
    return GameResult(EndReason(reason), _ints(winners), _ints(scores))


def _ints(text: str) -> tuple[int, ...]:
    return () if text == "-" else tuple(int(x) for x in text.split(","))


def _dash(text: str) -> str:
    return "" if text == "-" else text


def _cards_text(cards: Cards) -> str:
    return "".join(s.letter for s in as_list(cards)) or "-"


def _parse_cards(text: str) -> Cards:
    return cards_of([LETTER_SYMBOLS[ch] for ch in _dash(text)])


def _sides_text(sides: frozenset[Side] | tuple[Side, ...], keep_order: bool = False) -> str:
    ordered = list(sides) if keep_order else sorted(sides)
    return " ".join(side_label(sd) for sd in ordered) or "-"


def _parse_sides(text: str) -> list[Side]:
    out = []
    for word in _dash(text).split():
        a, b = word.split("-")
        sd = side(_point(a), _point(b))
        if sd != (_point(a), _point(b)):
            raise NotationError(f"a side is written smaller point first: {word!r}")
        out.append(sd)
    return out
