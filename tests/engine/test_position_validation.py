"""The position notation reads only positions that keep the rules (engine.notation, engine.invariants).

Each malformed text is refused with NotationError naming its line and saying what is wrong in a sentence,
never with a Python internal message; random mutations of valid texts are either refused so or read into a
state that keeps every invariant; every packaged map is read without being passed.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from engine import ai, invariants
from engine.game import apply, new_game
from engine.geometry import side_label
from engine.maps import default_map, packaged_map, packaged_map_names
from engine.notation import NotationError, format_position, parse_position
from engine.state import GameState, Phase
from tests.engine.test_views_serialize import _snapshot_game

EMPIRE = default_map()
AEGEAN = packaged_map("aegean")


@cache
def _midgame() -> GameState:
    """A 4-player game at turn 12 on the default map, in the action phase, with undo points."""
    st, _ = new_game(EMPIRE, 4, 3)
    rng = random.Random(3)
    while st.turn < 12 or st.phase is not Phase.ACTIONS or not st.undo.points:
        st, _ = apply(st, ai.greedy_player(st, rng))
    return st


@cache
def _finished() -> GameState:
    """A finished 3-player game on the small map."""
    st, _ = new_game(AEGEAN, 3, 5)
    rng = random.Random(5)
    while st.phase is not Phase.OVER:
        st, _ = apply(st, ai.greedy_player(st, rng))
    return st


def _text(state: GameState) -> str:
    return format_position(state)


def _number(text: str, key: str) -> int:
    """The number of the line that holds ``key``."""
    return next(i for i, line in enumerate(text.splitlines(), 1) if line.partition(":")[0] == key)


def _set(key: str, value: str) -> Callable[[str], str]:
    def edit(text: str) -> str:
        lines = text.splitlines()
        at = _number(text, key) - 1
        lines[at] = f"{key}: {value}" if value is not None else ""
        return "\n".join(lines) + "\n"

    return edit


def _edit_word(key: str, old: str, new: str) -> Callable[[str], str]:
    def edit(text: str) -> str:
        lines = text.splitlines()
        at = _number(text, key) - 1
        assert old in lines[at], (old, lines[at])
        lines[at] = lines[at].replace(old, new, 1)
        return "\n".join(lines) + "\n"

    return edit


def _drop(key: str) -> Callable[[str], str]:
    def edit(text: str) -> str:
        return "\n".join(x for x in text.splitlines() if x.partition(":")[0] != key) + "\n"

    return edit


def _insert_after(key: str, line: str) -> Callable[[str], str]:
    def edit(text: str) -> str:
        lines = text.splitlines()
        lines.insert(_number(text, key), line)
        return "\n".join(lines) + "\n"

    return edit


def _first_lines(n: int) -> Callable[[str], str]:
    return lambda text: "\n".join(text.splitlines()[:n]) + "\n"


def _player_line(seat: int) -> str:
    return _text(_midgame()).splitlines()[_number(_text(_midgame()), f"player {seat}") - 1]


def _open_space() -> str:
    r, c = next(s for s in EMPIRE.spaces if EMPIRE.symbol[s] is None)
    return f"{r},{c}"


def _free_symbol_spaces(n: int) -> str:
    taken = {g for p in _midgame().players for g in p.guards}
    free = [s for s in EMPIRE.symbol_spaces if s not in taken][:n]
    return " ".join(f"{r},{c}" for r, c in free)


def _undo_point_with(change: Callable[[dict[str, object]], None]) -> Callable[[str], str]:
    def edit(text: str) -> str:
        lines = text.splitlines()
        at = _number(text, "undo-point 0") - 1
        doc = json.loads(lines[at].partition(": ")[2])
        change(doc)
        lines[at] = "undo-point 0: " + json.dumps(doc)
        return "\n".join(lines) + "\n"

    return edit


def _unused_side() -> str:
    return side_label(min(sd for sd in EMPIRE.side_kind if sd not in _midgame().walls))


# (name, the position it starts from, the change, the key of the line named (or a number), key words)
M, F = "midgame", "finished"
CASES: list[tuple[str, str, Callable[[str], str], str | int, tuple[str, ...]]] = [
    ("empty", M, lambda t: "", 1, ("starts with",)),
    (
        "another header",
        M,
        lambda t: t.replace("alexandros position 2", "chess position 2"),
        1,
        ("starts with",),
    ),
    ("byte order mark", M, lambda t: "\ufeff" + t, 1, ("byte order mark",)),
    ("truncated", M, _first_lines(10), 11, ("ends before", "'ending:'")),
    ("truncated in the players", M, _first_lines(21), 22, ("ends before", "'last-move:'")),
    ("missing current", M, _drop("current"), "phase", ("expected the 'current:' line", "found 'phase:'")),
    ("missing players", M, lambda t: re.sub(r"player \d: .*\n", "", t), "last-move", ("'player 0:'",)),
    ("duplicate line", M, _insert_after("turn", "turn: 12"), 8, ("'turn:' is given twice", "line 7")),
    ("unknown key", M, _insert_after("options", "colour: red"), 4, ("expected the 'version:'", "'colour:'")),
    ("emoji key", M, _insert_after("options", "🎲: 4"), 4, ("expected the 'version:'", "'🎲:'")),
    ("no colon", M, _insert_after("options", "hello"), 4, ("expected 'key: value'", "'hello'")),
    (
        "unknown map",
        M,
        _set("map", "0123456789abcdef Atlantis"),
        "map",
        ("no map with digest 0123456789abcdef",),
    ),
    ("malformed digest", M, _set("map", "xyz Atlantis"), "map", ("digest (16 hex digits)",)),
    (
        "wrong map name",
        M,
        _edit_word("map", "Alexander's Empire", "Atlantis"),
        "map",
        ("is named", "Atlantis"),
    ),
    ("bad options", M, _set("options", "coastwalls"), "options", ("coast-walls or no-coast-walls",)),
    ("huge number", M, _set("version", "9" * 30), "version", ("not a number", "at most 20")),
    ("unicode digits", M, _set("turn", "١٢"), "turn", ("'١٢' is not a number", "0-9")),
    ("negative turn", M, _set("turn", "-3"), "turn", ("'-3' is not a number",)),
    ("odd number", M, _set("next-province", "1e3"), "next-province", ("'1e3' is not a number",)),
    ("random state too large", M, _set("rng", "99999999999999999999"), "rng", ("random state", "2^64")),
    (
        "seat 7 on turn",
        M,
        _set("current", "7"),
        "current",
        ("seat 7 is on turn, but the game has 4 players",),
    ),
    ("unknown phase", M, _set("phase", "lunch"), "phase", ("'lunch' is not a phase", "move, actions, over")),
    ("actions before the move", M, _set("phase", "move"), "actions", ("actions taken before the move",)),
    ("three actions", M, _set("actions", "occupy levy take-card"), "actions", ("3 actions in one turn",)),
    ("two levies", M, _set("actions", "levy levy"), "actions", ("two levies",)),
    ("unknown action", M, _set("actions", "dance"), "actions", ("'dance' is not an action",)),
    ("unknown ending", M, _set("ending", "soon"), "ending", ("'soon' is not a way the game ends",)),
    ("alexander off the map", M, _set("alexander", "Z99"), "alexander", ("Z99 is not a point of the map",)),
    ("alexander an emoji", M, _set("alexander", "🏛"), "alexander", ("is not a point label",)),
    (
        "wall not a side",
        M,
        _edit_word("walls", "B2-B4", "B2-D8"),
        "walls",
        ("B2-D8 is not a side of the map",),
    ),
    ("wall written backwards", M, _edit_word("walls", "B2-B4", "B4-B2"), "walls", ("smaller point first",)),
    (
        "wall written twice",
        M,
        _edit_word("walls", "B2-B4", "B2-B4 B2-B4"),
        "walls",
        ("B2-B4 is written twice",),
    ),
    (
        "red wall not a wall",
        M,
        lambda t: _set("red", _unused_side())(t),
        "red",
        ("red wall is missing from the walls",),
    ),
    ("red wall too early", M, _set("red", "B2-B4"), "red", ("black walls are left",)),
    ("too few provinces", M, _set("provinces", "1@0,0"), "provinces", ("1 named", "13 parts")),
    (
        "province off the map",
        M,
        _edit_word("provinces", "1@0,16", "1@99,99"),
        "provinces",
        ("99,99 is not a space of the map",),
    ),
    (
        "province named twice",
        M,
        _edit_word("provinces", "1@0,16", "1@0,16 14@0,16"),
        "provinces",
        ("names the same province",),
    ),
    (
        "duplicate province ids",
        M,
        _edit_word("provinces", "2@1,4", "1@1,4"),
        "provinces",
        ("duplicate province ids",),
    ),
    ("next province too small", M, _set("next-province", "5"), "next-province", ("not below",)),
    (
        "three face-up slots",
        M,
        _set("face-up", "amphora lyre horse"),
        "face-up",
        ("3 face-up slots instead of 2",),
    ),
    ("unknown symbol", M, _set("face-up", "amphora unicorn"), "face-up", ("'unicorn' is not a symbol",)),
    ("emoji card", M, _edit_word("supply", "LHT", "LHT🐴"), "supply", ("'🐴' is not a card letter",)),
    (
        "lower-case cards",
        M,
        _edit_word("player 0", "hand AHL", "hand ahl"),
        "player 0",
        ("'a' is not a card letter",),
    ),
    ("a card too many", M, _edit_word("supply", "LHT", "LHTT"), "supply", ("56 cards", "12 temple")),
    ("short player line", M, _set("player 0", "hand AHL"), "player 0", ("expected 'hand CARDS guards",)),
    (
        "guard off the map",
        M,
        _edit_word("player 1", "guards 1,13", "guards 99,3 1,13"),
        "player 1",
        ("99,3 is not a space of the map",),
    ),
    (
        "guard not a space",
        M,
        _edit_word("player 1", "guards 1,13", "guards 1;13"),
        "player 1",
        ("'1;13' is not a space",),
    ),
    (
        "guard on an open space",
        M,
        lambda t: _edit_word("player 1", "guards 1,13", f"guards {_open_space()} 1,13")(t),
        "player 1",
        ("open space",),
    ),
    (
        "five guards",
        M,
        lambda t: _edit_word("player 0", "guards 0,14", f"guards {_free_symbol_spaces(3)} 0,14")(t),
        "player 0",
        ("5 guards on the map",),
    ),
    (
        "guards share a space",
        M,
        _edit_word("player 3", "guards 2,10", "guards 1,13 2,10"),
        "player 3",
        ("share space",),
    ),
    (
        "known cards not in the hand",
        M,
        _edit_word("player 1", "known L", "known LL"),
        "player 1",
        ("known cards", "not in the hand"),
    ),
    ("huge score", M, _edit_word("player 1", "score 10", "score " + "9" * 25), "player 1", ("not a number",)),
    (
        "words after the score",
        M,
        _edit_word("player 1", "known L", "known L champion"),
        "player 1",
        ("unexpected words after the score", "champion"),
    ),
    (
        "a fifth player line",
        M,
        _insert_after("player 3", "player 4: hand - guards - score 0 known -"),
        "player 4",
        ("2 to 4 players", "has 5"),
    ),
    (
        "a player line out of order",
        M,
        _edit_word("player 3", "player 3", "player 5"),
        "player 5",
        ("expected the 'last-move:' line", "'player 5:'"),
    ),
    (
        "the player on turn resigned",
        M,
        _edit_word("player 1", "known L", "known L resigned"),
        "current",
        ("seat 1 is on turn, but has resigned",),
    ),
    ("last move by seat 9", M, _edit_word("last-move", "1 ", "9 "), "last-move", ("seat 9",)),
    (
        "last move jumps",
        M,
        _edit_word("last-move", "A17-B16-C15-D14 ", "A17-D14 "),
        "last-move",
        ("not neighbours",),
    ),
    (
        "last move not where Alexander is",
        M,
        _set("alexander", "B2"),
        "last-move",
        ("does not end where Alexander",),
    ),
    (
        "a result in a game going on",
        M,
        _set("result", "walls winners 0 scores 15,10,9,15"),
        "result",
        ("phase actions with a result",),
    ),
    (
        "winners out of range",
        F,
        lambda t: re.sub(r"winners [0-9,]+", "winners 0,7", t),
        "result",
        ("winners [0, 7] are not all seats", "3-player"),
    ),
    (
        "scores that are not the players'",
        F,
        lambda t: re.sub(r"scores [0-9,]+", "scores 1,2,3", t),
        "result",
        ("final scores",),
    ),
    (
        "malformed result",
        F,
        lambda t: re.sub(r"winners [0-9,]+", "victors 0", t),
        "result",
        ("expected 'REASON winners",),
    ),
    ("unknown undo flag", M, _set("undo", "maybe"), "undo", ("'open', 'revealed'",)),
    (
        "undo point not json",
        M,
        lambda t: re.sub(r"undo-point 0: .*", "undo-point 0: {not json", t),
        "undo-point 0",
        ("undo-point 0 is no snapshot",),
    ),
    (
        "undo point breaking the rules",
        M,
        _undo_point_with(lambda d: d.__setitem__("current", 9)),
        "undo-point 0",
        ("undo-point 0 is no state of this game", "seat 9 is on turn"),
    ),
    (
        "undo point of a float",
        M,
        _undo_point_with(lambda d: d.__setitem__("turn", 1.5)),
        "undo-point 0",
        ("undo-point 0",),
    ),
    (
        "a line after the position",
        F,
        lambda t: t + "extra: 1\n",
        "extra",
        ("'extra:' is no line of a position",),
    ),
    ("a NUL character", M, _edit_word("supply", "LHT", "L\x00HT"), "supply", ("U+0000",)),
    (
        "a version-1 text with known cards",
        M,
        lambda t: t.replace("position 2", "position 1"),
        "player 0",
        ("unexpected words after the score", "known"),
    ),
]


def _base(name: str) -> GameState:
    return _midgame() if name == M else _finished()


@pytest.mark.parametrize(("name", "base", "change", "where", "words"), CASES, ids=[c[0] for c in CASES])
def test_a_malformed_position_is_refused_with_its_line_and_a_sentence(
    name: str, base: str, change: Callable[[str], str], where: str | int, words: tuple[str, ...]
) -> None:
    text = change(_text(_base(base)))
    with pytest.raises(NotationError) as caught:
        parse_position(text)
    message = str(caught.value)
    line = where if isinstance(where, int) else _number(text, where)
    assert message.startswith(f"line {line}: "), (name, message)
    for word in words:
        assert word in message, (name, message)
    _assert_no_python_internals(message)


def test_there_are_at_least_36_kinds_of_malformed_text_each_with_its_own_sentence() -> None:
    assert len(CASES) >= 36
    messages = set()
    for _, base, change, _, _ in CASES:
        with pytest.raises(NotationError) as caught:
            parse_position(change(_text(_base(base))))
        messages.add(str(caught.value))
    assert len(messages) == len(CASES)


def _assert_no_python_internals(message: str) -> None:
    for internal in (
        "Error(",
        "unpack",
        "Traceback",
        "object has no attribute",
        "invalid literal",
        "KeyError",
    ):
        assert internal not in message, message
    assert not re.search(r"^line \d+: '[^']*'$", message), message  # a bare KeyError repr


def test_the_bases_of_the_malformed_texts_are_read() -> None:
    for state in (_midgame(), _finished()):
        assert parse_position(_text(state)) == state
        assert invariants.check(state) == []


def test_every_packaged_map_is_read_without_passing_it() -> None:
    assert set(packaged_map_names()) >= {"empire", "aegean"}
    for name in packaged_map_names():
        st, _ = new_game(packaged_map(name), 2, 1)
        assert parse_position(format_position(st)) == st  # found by its digest among engine/maps/*.map
    assert parse_position(_text(_finished())) == _finished()


def test_a_version_1_text_reads_with_no_known_cards() -> None:
    """Texts written before P12 have no known cards on the player lines: they read with none."""
    st = _snapshot_game()[1]
    assert any(p.known != (0, 0, 0, 0, 0) for p in st.players)
    text = format_position(st, map_text=True)
    old = re.sub(r" known [A-Z-]+", "", text).replace("alexandros position 2", "alexandros position 1")
    back = parse_position(old)
    assert all(p.known == (0, 0, 0, 0, 0) for p in back.players)
    assert [p.hand for p in back.players] == [p.hand for p in st.players]


def test_a_map_text_that_is_no_map_is_refused_with_its_line() -> None:
    st = _snapshot_game()[1]
    text = format_position(st, map_text=True)
    lines = text.splitlines()
    at = lines.index("map-text:")
    broken = "\n".join(lines[: at + 1] + ["| name: Broken", "| start: A0", "| ???"]) + "\n"
    with pytest.raises(NotationError) as caught:
        parse_position(broken)
    assert re.match(rf"line {at + 2}|line {at + 3}|line {at + 4}", str(caught.value)), str(caught.value)
    assert "map text is no map" in str(caught.value)


# --- random mutations: refused with a sentence, or read into a state that keeps every invariant ------------

_PIECES = [
    "0",
    "1",
    "7",
    "9" * 25,
    "-",
    ",",
    ":",
    " ",
    "\n",
    "@",
    "T",
    "H",
    "x",
    "٣",
    "🐴",
    "\ufeff",
    "\t",
    "player 4: ",
    "known ",
    "resigned",
    "A1",
    "Z9",
    "B2-B4",
    "levy",
    "over",
    "-1",
]


def _mutate(text: str, rng: random.Random) -> str:
    lines = text.split("\n")
    kind = rng.randrange(7)
    i = rng.randrange(len(lines))
    if kind == 0:  # delete a line
        del lines[i]
    elif kind == 1:  # duplicate a line
        lines.insert(i, lines[i])
    elif kind == 2:  # swap two lines
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    else:
        line = lines[i]
        at = rng.randrange(len(line) + 1)
        if kind == 3:  # insert a piece
            line = line[:at] + rng.choice(_PIECES) + line[at:]
        elif kind == 4:  # delete a few characters
            line = line[:at] + line[at + rng.randrange(1, 4) :]
        elif kind == 5:  # replace a number by another
            line = re.sub(
                r"\d+", lambda m: rng.choice(["0", "1", "3", "4", "7", "55", "9" * 21]), line, count=1
            )
        else:  # replace a word by a word of another line
            words = line.split(" ")
            other = rng.choice(lines).split(" ")
            words[rng.randrange(len(words))] = rng.choice(other)
            line = " ".join(words)
        lines[i] = line
    return "\n".join(lines)


@cache
def _valid_texts() -> tuple[str, ...]:
    st, _ = new_game(AEGEAN, 2, 9)
    return (
        _text(_midgame()),
        _text(_finished()),
        format_position(_snapshot_game()[1], map_text=True),
        _text(st),
    )


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(which=hs.integers(0, 3), seed=hs.integers(0, 2**32), steps=hs.integers(1, 3))
def test_a_mutated_position_is_refused_with_a_sentence_or_keeps_every_invariant(
    which: int, seed: int, steps: int
) -> None:
    rng = random.Random(seed)
    text = _valid_texts()[which]
    for _ in range(steps):
        text = _mutate(text, rng)
    try:
        state = parse_position(text)
    except NotationError as err:
        assert re.match(r"line \d+: \S", str(err)), str(err)
        _assert_no_python_internals(str(err))
        return
    assert invariants.check(state) == []
    assert parse_position(format_position(state, map_text=True)) == state
