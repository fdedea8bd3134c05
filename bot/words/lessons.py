"""The tutorial's lessons (issue 29): one idea a step, each on a small scripted position built with the engine
on the tutorial map, with a question whose answer the engine checks and a sentence for a wrong answer.

A step is pure: its position, its question, its choices (value, label), which values are right (asked of
the engine: the closest spaces, the moves that may be jokers, the walls of each path, a levy's points…) and
what to say and show after an answer. bot.commands.tutorial shows the steps and keeps each learner's place.
Positions are made-up games (the learner is seat 0, "you"), so their pictures hide nothing from anyone.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from engine import ai, rules
from engine.actions import EndTurn, Levy, Move, Occupy, TakeBack
from engine.errors import IllegalAction
from engine.game import apply, new_game
from engine.geometry import Point, Space, corners, point_label
from engine.maps import Map, parse_map
from engine.state import GameState, Phase, changed
from engine.symbols import NO_CARDS, Symbol, add, one, total

from .i18n import _
from .words import Speaker, cards_text, count, symbol_name

_GRID = (".T.A.H.L.A.T.", "H.L..A.T.H.L.", ".A.T.L.H.S.T.", "T.S.H..A.L.H.")
TUTORIAL_MAP_TEXT = "\n".join(["name: tutorial", "start: A1", "walls: 40 black, 3 red", "grid:", *_GRID, ""])
TUTORIAL_MAP: Map = parse_map(TUTORIAL_MAP_TEXT)
# The same land with only 2 black walls: the lesson on running out of walls (R3.6).
FEW_WALLS_MAP: Map = parse_map(TUTORIAL_MAP_TEXT.replace("40 black, 3 red", "2 black, 3 red"))
OPPONENT = "Dareios"


@dataclass(frozen=True)
class Picture:
    """What a step shows: the board, the closest spaces of a symbol, numbered paths, or a province."""

    kind: str  # "board", "move", "paths", "province"
    symbol: Symbol | None = None
    corner: Point | None = None
    paths: tuple[rules.PathOption, ...] = ()
    province: int | None = None
    plan: rules.OccupyPlan | None = None


@dataclass(frozen=True)
class Step:
    """One lesson: ``state`` the position; ``text`` the lesson and its question; ``choices`` (value, label);
    ``right`` the values the engine accepts; ``explain(value)`` the sentence after an answer; ``picture`` the
    question's picture and ``after`` the picture that explains a wrong answer."""

    key: str
    state: GameState
    text: Callable[[], str]
    choices: Callable[[], list[tuple[str, str]]]
    right: frozenset[str]
    explain: Callable[[str], str]
    picture: Picture = field(default_factory=lambda: Picture("board"))
    after: Picture = field(default_factory=lambda: Picture("board"))


def names() -> tuple[str, str]:
    return (_("You"), OPPONENT)


def speaker(state: GameState) -> Speaker:
    return Speaker(names(), state.map)


def _space_label(space: Space) -> str:
    return " ".join(point_label(p) for p in sorted(corners(space)))


# --- positions --------------------------------------------------------------------------------------------


@cache
def _start() -> GameState:
    state, _events = new_game(TUTORIAL_MAP, 2, 1)
    return changed(state, current=0)


def _with(state: GameState, seat: int, **changes: Any) -> GameState:
    """``state`` with seat ``seat``'s hand, guards or score set (a scripted position)."""
    players = list(state.players)
    players[seat] = dataclasses.replace(players[seat], **changes)
    return changed(state, players=tuple(players))


@cache
def _walked() -> GameState:
    """A few moves into a game: walls on the map, Alexander in the east, seat 0 to move."""
    state = _start()
    rng = random.Random(2)
    greedy = ai.GreedyPlayer()
    for _turn in range(4):
        state, _e = apply(state, greedy.choose_move(state, rng))
        state, _e = apply(state, EndTurn(state.current))
    return changed(state, current=0, face_up=(Symbol.LYRE, Symbol.AMPHORA))


def _moves(state: GameState) -> list[Move]:
    """Every normal move of seat 0, fewest walls first (the paths of each destination)."""
    out = []
    for mc in rules.move_choices(state):
        if mc.way.value != "normal":
            continue
        for d in rules.destinations(state, mc):
            for option in rules.legal_path_options(state, d.point):
                out.append(ai.move_action(state, mc, option.points))
    return out


@cache
def _cutting_move() -> tuple[GameState, Move]:
    """A position and a normal move that cuts a province in two (the first such, in the engine's order)."""
    state = _walked()
    for move in _moves(state):
        if rules.preview_move(state, move).cuts:
            return state, move
    raise AssertionError("no move of the tutorial position cuts a province")  # pragma: no cover


@cache
def _small_province() -> tuple[GameState, int]:
    """After the cutting move, seat 0 in its actions with a hand to pay: the smaller part, free."""
    state, move = _cutting_move()
    after, _e = apply(state, move)
    preview = rules.preview_move(state, move)
    part = min((p for c in preview.cuts for p in c.parts), key=lambda p: len(p.spaces))
    hand = (2, 2, 2, 2, 2)
    return _with(after, 0, hand=hand), part.id


def _symbol_spaces(state: GameState, pid: int) -> list[Space]:
    return sorted(rules.province_symbol_spaces(state, state.province_by_id[pid]))


# --- the steps --------------------------------------------------------------------------------------------


def _closest() -> Step:
    state = changed(_start(), face_up=(Symbol.TEMPLE, Symbol.LYRE))
    distance, closest = rules.closest_targets(state, Symbol.TEMPLE)
    temples = sorted(s for s, v in state.map.symbol.items() if v is Symbol.TEMPLE)
    empty = rules.empty_spaces(state)

    def text() -> str:
        return "\n".join(
            [
                _("**The closest symbol** (1/10)"),
                _(
                    "Each turn you first move Alexander. Take a face-up card: Alexander must go to a "
                    "**closest empty space** showing its symbol, counted in sides from his point. A space is "
                    "empty when no wall lies on its sides, no guard stands on it and Alexander is not on "
                    "one of its corners."
                ),
                _("You take the face-up temple. Which temple space must Alexander go to?"),
            ]
        )

    def explain(value: str) -> str:
        s = temples[int(value)]
        if value in right:
            return _("Right: it is {sides} away, and no empty temple space is closer.").format(
                sides=count(distance, "side")
            )
        if s not in empty:
            return _(
                "Alexander stands on a corner of that space, so it is not empty; the closest empty "
                "one is {sides} away."
            ).format(sides=count(distance, "side"))
        return _(
            "That temple space is {far} away, but an empty one is {sides} away: the closest is "
            "marked on the picture."
        ).format(far=count(rules.space_distance(state, s), "side"), sides=count(distance, "side"))

    right = frozenset(str(temples.index(s)) for s in closest)
    return Step(
        "closest",
        state,
        text,
        lambda: [(str(i), _space_label(s)) for i, s in enumerate(temples)],
        right,
        explain,
        Picture("board"),
        Picture("move", symbol=Symbol.TEMPLE),
    )


def _joker() -> Step:
    soldiers = frozenset(s for s, v in TUTORIAL_MAP.symbol.items() if v is Symbol.SOLDIER)
    state = _with(changed(_start(), face_up=(Symbol.SOLDIER, Symbol.TEMPLE)), 1, guards=soldiers)
    jokers = frozenset(
        str(mc.slot) for mc in rules.move_choices(state) if mc.way.value == "joker" and mc.slot is not None
    )

    def text() -> str:
        return "\n".join(
            [
                _("**The joker** (2/10)"),
                _(
                    "A face-up card whose symbol has **no empty space** on the map is a joker: take it and "
                    "name any symbol. Here Dareios's guards stand on both soldier spaces."
                ),
                _("Which face-up card can you play as a joker?"),
            ]
        )

    def explain(value: str) -> str:
        if value in jokers:
            return _("Right: no soldier space is empty, so the soldier card is a joker; name any symbol.")
        return _(
            "An empty temple space is left, so the temple card moves Alexander to a temple; the "
            "soldier has no empty space: that card is the joker."
        )

    return Step(
        "joker",
        state,
        text,
        lambda: [
            (str(slot), _("face-up {slot}: {card}").format(slot=slot + 1, card=symbol_name(sym)))
            for slot, sym in enumerate(state.face_up)
            if sym is not None
        ],
        jokers,
        explain,
    )


def _paths() -> Step:
    state = _walked()
    by_corner: dict[Point, list[rules.PathOption]] = {}
    for move in _moves(state):
        options = rules.legal_path_options(state, move.corner)
        if 2 <= len(options) <= 4 and len({len(o.new_walls) for o in options}) > 1:
            by_corner.setdefault(move.corner, options)
    corner, options = next(iter(by_corner.items()))
    fewest = min(len(o.new_walls) for o in options)
    right = frozenset(str(i) for i, o in enumerate(options) if len(o.new_walls) == fewest)

    def text() -> str:
        return "\n".join(
            [
                _("**Paths and walls** (3/10)"),
                _(
                    "Alexander walks a **shortest path** of sides to any corner of the space, and every side "
                    "of it without a wall gets a black wall. Sides that already have one get nothing."
                ),
                _(
                    "Alexander goes to {point}. Which path places the fewest new walls? Look for the walls "
                    "already on the map."
                ).format(point=point_label(corner)),
            ]
        )

    def explain(value: str) -> str:
        mine = len(options[int(value)].new_walls)
        if value in right:
            return _("Right: path {n} places {walls}; it runs along walls already there.").format(
                n=int(value) + 1, walls=count(mine, "new wall")
            )
        return _(
            "Path {n} places {walls}, but another places only {fewest}: it runs along walls already there."
        ).format(n=int(value) + 1, walls=count(mine, "new wall"), fewest=count(fewest, "new wall"))

    return Step(
        "paths",
        state,
        text,
        lambda: [
            (
                str(i),
                _("path {n}: {points}").format(n=i + 1, points=" ".join(point_label(p) for p in o.points)),
            )
            for i, o in enumerate(options)
        ],
        right,
        explain,
        Picture("board"),  # the walls already there; the numbered paths with their walls explain after
        Picture("paths", corner=corner, paths=tuple(options)),
    )


def _red_walls() -> Step:
    start, _events = new_game(FEW_WALLS_MAP, 2, 1)
    state = changed(start, current=0, face_up=(Symbol.SOLDIER, Symbol.LYRE))
    move = next(
        ai.move_action(state, mc, o.points)
        for mc in rules.move_choices(state)
        if mc.symbol is Symbol.SOLDIER and mc.way.value == "normal"
        for d in rules.destinations(state, mc)
        for o in rules.legal_path_options(state, d.point)
    )
    try:
        preview = rules.preview_move(state, move)
        fact = "red" if preview.red and preview.ends_game else "black"
    except IllegalAction:
        fact = "refused"

    def text() -> str:
        return "\n".join(
            [
                _("**Running out of walls** (4/10)"),
                _(
                    "The walls are limited. Here only {black} are left, and the soldier's shortest path "
                    "needs {walls}."
                ).format(
                    black=count(state.black_left, "black wall"), walls=count(len(move.path) - 1, "wall")
                ),
                _("What happens if you make this move?"),
            ]
        )

    def explain(value: str) -> str:
        if value == fact:
            return _(
                "Right: the last black walls go down, then red ones; you still take your actions, and "
                "then **the game ends** — the first of the two endings. The most points win."
            )
        return _(
            "The move is allowed: it places the last black walls and finishes with red ones. You "
            "still take your two actions; then the game ends, and the most points win."
        )

    return Step(
        "red",
        state,
        text,
        lambda: [
            ("red", _("black walls, then red; the game ends after my actions")),
            ("refused", _("the move is not allowed")),
            ("now", _("the game ends at once, without my actions")),
        ],
        frozenset({fact}),
        explain,
        Picture(
            "paths",
            corner=move.corner,
            paths=(rules.PathOption(move.path, rules.new_walls(state, move.path)),),
        ),
    )


def _provinces() -> Step:
    state, move = _cutting_move()
    preview = rules.preview_move(state, move)
    now = len(state.provinces)
    after = now + sum(len(c.parts) - 1 for c in preview.cuts)
    option = rules.PathOption(move.path, preview.new_walls)

    def text() -> str:
        return "\n".join(
            [
                _("**Provinces** (5/10)"),
                _(
                    "Walls, coast and the map's edge cut the land into **provinces**: spaces joined by sides "
                    "without walls. When a path closes a ring of walls, a province splits in two. The map "
                    "has {provinces} now."
                ).format(provinces=count(now, "province")),
                _("How many provinces will it have after this move?"),
            ]
        )

    def explain(value: str) -> str:
        if int(value) == after:
            return _(
                "Right: the new walls close a ring, and the province inside is cut off: {provinces}."
            ).format(provinces=count(after, "province"))
        return _(
            "The new walls close a ring: the spaces inside no longer meet the others, so there will "
            "be {provinces}."
        ).format(provinces=count(after, "province"))

    return Step(
        "provinces",
        state,
        text,
        lambda: [(str(n), str(n)) for n in (now, now + 1, now + 2)],
        frozenset({str(after)}),
        explain,
        Picture("paths", corner=move.corner, paths=(option,)),
        Picture("paths", corner=move.corner, paths=(option,)),
    )


def _occupy() -> Step:
    state, pid = _small_province()
    spaces = _symbol_spaces(state, pid)
    guard = spaces[0]
    cost = rules.occupation_cost(state, state.province_by_id[pid], (guard,))
    every = NO_CARDS
    for s in spaces:
        every = add(every, one(state.map.symbol[s] or Symbol.TEMPLE))
    options = {"cost": cost, "all": every, "none": NO_CARDS}
    right = frozenset(k for k, v in options.items() if v == cost)
    plan = rules.OccupyPlan(pid, (guard,), NO_CARDS, cost, NO_CARDS, 0)
    value = rules.province_value(state, state.province_by_id[pid])

    def text() -> str:
        return "\n".join(
            [
                _("**Occupying** (6/10)"),
                _(
                    "After the move you may take up to two actions. One is to **occupy** a free province: "
                    "put a guard on one of its symbol spaces and pay one card for **every other** symbol "
                    "space. Province {province} is free, worth {value} (its open spaces)."
                ).format(province=pid, value=value),
                _("You put your guard on the {space}. What do you pay?").format(
                    space=speaker(state).space(guard)
                ),
            ]
        )

    def explain(v: str) -> str:
        if v in right:
            return _(
                "Right: {cards}, one for each other symbol space. An extra guard on a space saves its card."
            ).format(cards=cards_text(cost))
        return _("You pay one card for every symbol space without your guard: {cards}.").format(
            cards=cards_text(cost)
        )

    return Step(
        "occupy",
        state,
        text,
        lambda: [(k, cards_text(v)) for k, v in options.items()],
        right,
        explain,
        Picture("board"),  # the province's preview shows the price: it explains after the answer
        Picture("province", province=pid, plan=plan),
    )


@cache
def _occupied() -> tuple[GameState, int, Space]:
    state, pid = _small_province()
    guard = _symbol_spaces(state, pid)[0]
    after, _e = apply(state, Occupy(0, pid, (guard,)))
    return after, pid, guard


def _levy() -> Step:
    state, pid, guard = _occupied()
    card = state.map.symbol[guard] or Symbol.TEMPLE
    after, _e = apply(state, Levy(0, card))
    gain = after.players[0].score - state.players[0].score
    symbols = len(_symbol_spaces(state, pid))
    options = sorted({gain, symbols + gain, 0})

    def text() -> str:
        return "\n".join(
            [
                _("**Levying taxes** (7/10)"),
                _(
                    "To **levy**, pay a card matching the space under one of your guards. Then everyone "
                    "scores the open spaces of each province where they have **exactly one** guard."
                ),
                _("You levy with your {symbol} card. How many points do you score?").format(
                    symbol=symbol_name(card)
                ),
            ]
        )

    def explain(v: str) -> str:
        if int(v) == gain:
            return _(
                "Right: {points}, one for each open space of province {province}; symbol spaces "
                "count nothing."
            ).format(points=count(gain, "point"), province=pid)
        return _("Only open spaces count, in provinces where you have exactly one guard: {points}.").format(
            points=count(gain, "point")
        )

    return Step(
        "levy",
        state,
        text,
        lambda: [(str(n), count(n, "point")) for n in options],
        frozenset({str(gain)}),
        explain,
        Picture("board"),
        Picture("province", province=pid),
    )


def _takeover() -> Step:
    base, pid, guard = _occupied()
    # The same province, now Dareios's: seat 0 takes it over.
    theirs = _with(_with(base, 1, guards=frozenset({guard})), 0, guards=frozenset(), hand=(3, 3, 3, 3, 3))
    province = theirs.province_by_id[pid]
    removal = rules.removal_cost(theirs, province)
    symbol = theirs.map.symbol[guard] or Symbol.TEMPLE
    need = total(removal)

    def text() -> str:
        return "\n".join(
            [
                _("**Taking over** (8/10)"),
                _(
                    "An opponent's province can be **taken over**: first remove each of their guards by "
                    "paying **two** cards of the symbol it stands on, then occupy it as usual. In a game of "
                    "three or four, the loser gets half the cards (rounded up)."
                ),
                _("How many {symbol} cards remove Dareios's guard from the {space}?").format(
                    symbol=symbol_name(symbol), space=speaker(theirs).space(guard)
                ),
            ]
        )

    def explain(v: str) -> str:
        if int(v) == need:
            return _("Right: two cards for each guard removed, then the occupation's cards.")
        return _("Each guard removed costs two cards of its space's symbol: {cards}.").format(
            cards=cards_text(removal)
        )

    plan = rules.OccupyPlan(
        pid, (guard,), removal, rules.occupation_cost(theirs, province, (guard,)), NO_CARDS, 0
    )
    return Step(
        "takeover",
        theirs,
        text,
        lambda: [(str(n), str(n)) for n in (1, 2, 3)],
        frozenset({str(need)}),
        explain,
        Picture("board"),  # the take-over's preview shows the price: it explains after the answer
        Picture("province", province=pid, plan=plan),
    )


def _takeback() -> Step:
    base, pid, guard = _occupied()
    spaces = _symbol_spaces(base, pid)
    second = next(s for s in spaces if s != guard)
    state = changed(_with(base, 0, guards=frozenset({guard, second})), actions_taken=())  # a fresh turn
    card = state.map.symbol[guard] or Symbol.TEMPLE
    state = _with(state, 0, hand=add(state.players[0].hand, one(card, 2)))

    def scores_after(action: TakeBack | Levy) -> int:
        """Seat 0's points from a levy after ``action`` (the engine's levy, R7.3)."""
        try:
            mid, _e = apply(state, action)
        except IllegalAction:
            return 0
        if mid.levied or mid.phase is not Phase.ACTIONS:
            return mid.players[0].score - state.players[0].score
        end, _e = apply(mid, Levy(0, card))
        return end.players[0].score - state.players[0].score

    outcomes = {"back": scores_after(TakeBack(0, second)), "levy": scores_after(Levy(0, card))}
    try:
        rules.check_province_action(state, 0, pid, takeover=False)
        outcomes["occupy"] = 1
    except IllegalAction:
        outcomes["occupy"] = 0
    right = frozenset(k for k, v in outcomes.items() if v > 0)

    def text() -> str:
        return "\n".join(
            [
                _("**Taking back** (9/10)"),
                _(
                    "A province with **two or more** of your guards scores nothing at a levy. Province "
                    "{province} holds two of yours. **Taking back** a guard into your supply is an action "
                    "and costs no card."
                ).format(province=pid),
                _("Which action makes province {province} score at your levy?").format(province=pid),
            ]
        )

    def explain(v: str) -> str:
        if v in right:
            return _(
                "Right: with one guard left the province scores again, and the guard can occupy "
                "another province later."
            )
        return _(
            "With two of your guards province {province} scores nothing, and you cannot occupy your "
            "own province: take one guard back."
        ).format(province=pid)

    return Step(
        "takeback",
        state,
        text,
        lambda: [
            ("back", _("take back one guard, then levy")),
            ("levy", _("just levy")),
            ("occupy", _("occupy it again")),
        ],
        right,
        explain,
        Picture("province", province=pid),
        Picture("province", province=pid),
    )


def _hundred() -> Step:
    base, pid, guard = _occupied()
    card = base.map.symbol[guard] or Symbol.TEMPLE
    state = _with(_with(base, 0, score=96), 1, score=90)
    after, _e = apply(state, Levy(0, card))
    fact = "end" if after.over and after.result is not None and 0 in after.result.winners else "on"

    def text() -> str:
        return "\n".join(
            [
                _("**The end** (10/10)"),
                _(
                    "The game ends in one of two ways: when a move needs red walls (you saw it), or when a "
                    "levy brings anyone to **100 points**. You have 96, Dareios 90, and your province "
                    "{province} is worth {value}."
                ).format(province=pid, value=rules.province_value(state, state.province_by_id[pid])),
                _("You levy. What happens?"),
            ]
        )

    def explain(v: str) -> str:
        if v == fact:
            return _(
                "Right: after everyone has scored, 100 points or more end the game at once; the most "
                "points win, and a tie shares the victory."
            )
        return _(
            "A levy that brings a player to 100 points ends the game at once, once everyone has "
            "scored: you win with {score}."
        ).format(score=after.players[0].score)

    return Step(
        "hundred",
        state,
        text,
        lambda: [
            ("end", _("the game ends at once, and I win")),
            ("on", _("play goes on to the end of the round")),
        ],
        frozenset({fact}),
        explain,
    )


@cache
def steps() -> tuple[Step, ...]:
    """Every question step, in order (built once: the positions are fixed)."""
    return (
        _closest(), _joker(), _paths(), _red_walls(), _provinces(), _occupy(), _levy(), _takeover(),
        _takeback(), _hundred(),
    )  # fmt: skip


def intro() -> str:
    return _(
        "**Alexandros in ten steps** — a private lesson of about ten minutes on small made-up positions. "
        "Each step teaches one rule and asks you to try it; a wrong answer is explained. You can leave at "
        "any time: `/alexandros learn tutorial` brings you back to your step."
    )


def outro() -> str:
    return _(
        "**Well done: you know the rules.** Alexander walks to the closest symbol and leaves walls; walls "
        "make provinces; guards occupy them; levies score the provinces with one guard; the game ends at "
        "100 points or when the walls run out. Try it against the computer, with hints: "
        "`/alexandros learn hint`."
    )


def welcome_back(step: int) -> str:
    return _("Welcome back: step {step} of {steps}.").format(step=step + 1, steps=len(steps()))


def answered_right() -> str:
    return "✅ " + _("Correct.")


def answered_wrong() -> str:
    return "❌ " + _("Not quite.")
