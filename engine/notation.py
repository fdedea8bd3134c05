"""A short text notation for actions, with exact round trips (``parse(format(a)) == a``).

One action per line, the seat first::

    2: M 1 3,13 B2-C3-C5         move: face-up card 1 (normal), to space (3,13), along that path
    2: M 1=soldier 3,13 B2-C3    joker: face-up card 1, naming soldier
    2: M h=lyre 3,13 B2-C3       special: discard a lyre from the hand
    2: C 1 | C 2 | C s           take face-up card 1 or 2, or the top of the supply
    2: O 7 3,12 4,13             occupy province 7 with guards on those spaces
    2: X 7 3,12 give T,T,H       take over province 7, giving the loser those cards
    2: L horse                   levy, paying a horse
    2: B 3,12                    take back the guard on (3,12)
    2: E | R | K | A             end the turn, resign, skip the turn, end by agreement

Spaces are written ``row,column``; points as their labels (MAP-FORMAT.md). Parsing checks the form only:
whether the action is legal is ``engine.game.apply``'s question.
"""

from __future__ import annotations

from collections.abc import Callable

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
)
from engine.geometry import Space, parse_label_syntax, point_label
from engine.symbols import LETTER_SYMBOLS, NO_CARDS, Symbol, as_list, cards_of


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
        return f"{head}M {card} {_space(action.space)} {path}"
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
    letter = {EndTurn: "E", Resign: "R", SkipTurn: "K", EndByAgreement: "A"}[type(action)]
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
        card, space, path_text = args
        path = tuple(_point(p) for p in path_text.split("-"))
        if card.startswith("h="):
            return Move(player, MoveWay.SPECIAL, _parse_space(space), path, card=Symbol(card[2:]))
        slot_text, _, named = card.partition("=")
        slot = int(slot_text) - 1
        if named:
            return Move(player, MoveWay.JOKER, _parse_space(space), path, slot=slot, named=Symbol(named))
        return Move(player, MoveWay.NORMAL, _parse_space(space), path, slot=slot)
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
        "E": EndTurn, "R": Resign, "K": SkipTurn, "A": EndByAgreement,
    }
    if kind in simple and not args:
        return simple[kind](player)
    raise NotationError(f"unknown action {kind!r}")


def _space(space: Space) -> str:
    return f"{space[0]},{space[1]}"


def _parse_space(text: str) -> Space:
    r, c = text.split(",")
    return int(r), int(c)


def _point(text: str) -> tuple[int, int]:
    p = parse_label_syntax(text)
    if p is None:
        raise ValueError(f"{text!r} is not a point label")
    return p
