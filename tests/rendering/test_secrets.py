"""No picture leaks a secret (R2.5): the public pictures are the same bytes whatever the hidden hands and
the supply's order are, and a hand is drawn only from its owner's view."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine import GameState, view
from engine.symbols import Cards
from rendering import render_board, render_end, render_hand
from tests.rendering.games import game_states

WIDTH = 800


def _rotated(cards: Cards) -> Cards:
    return (cards[1], cards[2], cards[3], cards[4], cards[0])


def hidden_twin(state: GameState) -> GameState:
    """The same game as the public sees it, with other hands (same sizes) and another supply order."""
    players = tuple(replace(p, hand=_rotated(p.hand)) for p in state.players)
    return replace(state, players=players, supply=tuple(reversed(state.supply)), rng=state.rng ^ 0x5A5A5A5A)


def _samples() -> list[GameState]:
    states = game_states(players=3, seed=5)
    picked = [states[len(states) * k // 6] for k in range(6)] + [states[-1]]
    return [s for s in picked if any(_rotated(p.hand) != p.hand for p in s.players)]


@pytest.fixture(scope="module")
def samples() -> list[GameState]:
    found = _samples()
    assert len(found) >= 4, "the test game should hold hands that a rotation changes"
    return found


def test_public_board_is_the_same_whatever_is_hidden(samples: list[GameState]) -> None:
    for state in samples:
        twin = hidden_twin(state)
        assert view(twin).hand is None
        assert render_board(view(state), None, WIDTH) == render_board(view(twin), None, WIDTH)


def test_end_picture_is_the_same_whatever_is_hidden(samples: list[GameState]) -> None:
    state = samples[-1]
    assert state.over
    assert render_end(view(state), None, WIDTH) == render_end(view(hidden_twin(state)), None, WIDTH)


def test_the_hidden_information_really_differs_in_a_players_view(samples: list[GameState]) -> None:
    # Not vacuous: the same twin changes the owner's hand picture.
    state = samples[1]
    seat = next(i for i, p in enumerate(state.players) if _rotated(p.hand) != p.hand)
    twin = hidden_twin(state)
    assert render_hand(view(state, seat), "x") != render_hand(view(twin, seat), "x")


def test_a_public_change_changes_the_public_board(samples: list[GameState]) -> None:
    state = samples[1]
    scored = replace(
        state, players=(replace(state.players[0], score=state.players[0].score + 7), *state.players[1:])
    )
    assert render_board(view(state), None, WIDTH) != render_board(view(scored), None, WIDTH)


def test_hand_picture_refuses_the_public_view(samples: list[GameState]) -> None:
    with pytest.raises(ValueError, match="own view"):
        render_hand(view(samples[0]), "anyone")
