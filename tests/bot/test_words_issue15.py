"""Issue 15, the words half: jokers in the typed notation, refusals that list the valid values, the turn
post's open actions, the province preview's warning, and game-ending moves flagged at the point step."""

from __future__ import annotations

import pytest

from bot import choices as ch
from bot.tables import Refused
from bot.words import Speaker
from engine.actions import MoveWay
from engine.game import apply
from engine.state import Phase
from engine.symbols import Symbol
from tests.bot.wrong_forms import no_way_forward, wrong_forms
from tests.engine.helpers import H, L, T, hand, make_map, position

STRIP = make_map("TH.A.A...\n.LT..S.H.", start="A5")
LYRE = (1, 1)
SPEAKER = Speaker(("alice", "bob"), STRIP)


def refusal(err: Refused) -> str:
    return SPEAKER.refusal(err.code, err.details)


def test_r3_1c_a_legal_joker_is_accepted_in_the_notation() -> None:
    # The only lyre space holds a guard: no empty space shows a lyre, so face-up lyre 1 is a joker.
    st = position(STRIP, face_up=(L, T), guards={1: (LYRE,)})
    mc = ch.parse_card(st, "j1H")
    assert (mc.way, mc.symbol, mc.slot) == (MoveWay.JOKER, Symbol.HORSE, 0)
    assert ch.parse_card(st, "j1h") == mc  # letters in either case
    to = ch.destination_choices(st, mc)[0].value
    move = ch.move_action(st, 0, "j1H", to, "1")
    after, _ = apply(st, move)
    assert after.phase is Phase.ACTIONS and after.players[0].hand[Symbol.LYRE.ordinal] == 1


def test_r3_1c_a_face_up_card_with_an_empty_space_is_not_a_joker_and_says_why() -> None:
    st = position(STRIP, face_up=(T, H))
    with pytest.raises(Refused) as err:
        ch.parse_card(st, "j1H")
    text = refusal(err.value)
    assert err.value.code == "move/joker-not-allowed"
    assert "Face-up card 1 (temple) is not a joker" in text and "`n1`" in text, text
    assert "`n2`" in text and "I do not understand" not in text
    assert wrong_forms(text, markup=False) == [] and not no_way_forward(text)


def test_r3_1c_a_joker_must_name_a_symbol_that_has_an_empty_space() -> None:
    st = position(STRIP, face_up=(L, T), guards={1: (LYRE,)})
    with pytest.raises(Refused) as err:
        ch.parse_card(st, "j1L")
    assert err.value.code == "move/no-empty-space"
    assert "No empty space shows a lyre" in refusal(err.value)


def test_r3_1c_a_joker_played_as_a_normal_card_is_told_to_name_a_symbol() -> None:
    st = position(STRIP, face_up=(L, T), guards={1: (LYRE,)})
    with pytest.raises(Refused) as err:
        ch.parse_card(st, "n1")
    text = refusal(err.value)
    assert "joker" in text and "`j1T`" in text and "`j1H` face-up 1: lyre as joker → horse" in text, text


def test_a_bad_symbol_letter_lists_the_letters() -> None:
    st = position(STRIP, face_up=(L, T), guards={1: (LYRE,)})
    with pytest.raises(Refused) as err:
        ch.parse_card(st, "j1Q")
    assert "T (temple)" in refusal(err.value) and "S (soldier)" in refusal(err.value)


def test_r3_1b_a_special_move_without_the_card_lists_what_can_be_played() -> None:
    st = position(STRIP, face_up=(T, H), hands={0: hand(H), 1: hand()})
    with pytest.raises(Refused) as err:
        ch.parse_card(st, "sS")
    text = refusal(err.value)
    assert "no soldier card" in text and "`sH` hand: horse (special)" in text, text
