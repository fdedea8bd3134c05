"""The action notation round-trips on every kind of action."""

from __future__ import annotations

import random

import pytest

from engine import ai
from engine.actions import (
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
from engine.game import apply, new_game
from engine.maps import default_map
from engine.notation import NotationError, format_action, parse_action
from engine.state import Phase
from engine.symbols import NO_CARDS, Symbol, cards_of

TTH = cards_of([Symbol.TEMPLE, Symbol.TEMPLE, Symbol.HORSE])
EXAMPLES = [
    (Move(2, MoveWay.NORMAL, ((1, 2), (2, 3), (2, 5)), slot=0), "2: M 1 B2-C3-C5"),
    (
        Move(0, MoveWay.JOKER, ((1, 2), (2, 3)), slot=1, named=Symbol.SOLDIER),
        "0: M 2=soldier B2-C3",
    ),
    (Move(1, MoveWay.SPECIAL, ((0, 1), (0, 3)), card=Symbol.LYRE), "1: M h=lyre A1-A3"),
    (TakeCard(3, CardSource.SUPPLY), "3: C s"),
    (TakeCard(3, CardSource.FACE_UP, 1), "3: C 2"),
    (Occupy(1, 7, ((3, 12), (4, 13))), "1: O 7 3,12 4,13"),
    (TakeOver(1, 7, ((3, 12),), TTH), "1: X 7 3,12 give T,T,H"),
    (TakeOver(1, 7, ((3, 12),), NO_CARDS), "1: X 7 3,12"),
    (Levy(0, Symbol.HORSE), "0: L horse"),
    (TakeBack(0, (3, 12)), "0: B 3,12"),
    (EndTurn(2), "2: E"),
    (Resign(2), "2: R"),
    (SkipTurn(2), "2: K"),
    (EndByAgreement(2), "2: A"),
]


@pytest.mark.parametrize(("action", "text"), EXAMPLES)
def test_notation_examples_round_trip(action: object, text: str) -> None:
    assert format_action(action) == text  # type: ignore[arg-type]
    assert parse_action(text) == action


def test_notation_reads_the_older_move_form_that_named_a_space() -> None:
    assert parse_action("2: M 1 3,13 B2-C3-C5") == parse_action("2: M 1 B2-C3-C5")
    lyre = Move(1, MoveWay.SPECIAL, ((0, 1), (0, 3)), card=Symbol.LYRE)
    assert parse_action("1: M h=lyre 0,4 A1-A3") == lyre


MALFORMED = ["M 1 3,13 B2", "0: Z", "0:", "x: E", "0: M 1 3-13 B2", "0: C 9x", "0: L dragon"]


@pytest.mark.parametrize("text", MALFORMED)
def test_notation_refuses_malformed_text(text: str) -> None:
    with pytest.raises(NotationError):
        parse_action(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2: M 1", "expected 'M CARD PATH'"),
        ("²: E", "expected 'SEAT: ACTION'"),
        ("2: C x", "expected 'C 1', 'C 2' or 'C s'"),
        ("2: L unicorn", "expected 'L SYMBOL'"),
        ("2: X 7 3,12 give Q", "expected 'X PROVINCE SPACES give CARDS'"),
        ("2: B 3;12", "expected 'B SPACE'"),
        ("2: O", "expected 'O PROVINCE SPACES'"),
    ],
)
def test_notation_refuses_a_malformed_action_with_its_form_not_python_words(text: str, expected: str) -> None:
    with pytest.raises(NotationError) as caught:
        parse_action(text)
    message = str(caught.value)
    assert expected in message
    for internal in ("unpack", "invalid literal", "is not a valid", "index out of range", "'Q'"):
        assert internal not in message.replace(text, ""), message


def test_notation_round_trips_every_action_of_random_games() -> None:
    kinds = set()
    for seed in range(6):
        rng = random.Random(seed)
        state, _ = new_game(default_map(), 2 + seed % 3, seed)
        while state.phase is not Phase.OVER:
            action = ai.random_player(state, rng) if seed % 2 else ai.greedy_player(state, rng)
            assert parse_action(format_action(action)) == action
            kinds.add(type(action).__name__)
            state, _ = apply(state, action)
    assert {"Move", "TakeCard", "Occupy", "Levy", "EndTurn"} <= kinds
