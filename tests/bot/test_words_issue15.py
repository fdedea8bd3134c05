"""Issue 15, the words half: jokers in the typed notation, refusals that list the valid values, the turn
post's open actions, the province preview's warning, and game-ending moves flagged at the point step."""

from __future__ import annotations

import pytest

from bot.games.tables import Refused
from bot.texts import choices as ch
from bot.words.words import Speaker
from engine import rules
from engine.actions import MoveWay
from engine.game import apply
from engine.state import Phase
from engine.symbols import Symbol
from tests.bot.wrong_forms import no_way_forward, wrong_forms
from tests.engine.helpers import H, L, S, T, hand, make_map, position, sd

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


# --- a refusal of a bad value lists the valid values (within Discord's limits) ---------------------------


def _refused(make) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(Refused) as err:
        make()
    return refusal(err.value)


def test_r5_a_bad_card_to_take_lists_the_values_to_type() -> None:
    st = position(STRIP, phase=Phase.ACTIONS, face_up=(L, T))
    text = _refused(lambda: ch.take_action(st, 0, "soldier"))
    assert "`1` face-up 1: lyre" in text and "`2` face-up 2: temple" in text and "`supply`" in text, text
    assert ch.take_action(st, 0, "temple").slot == 1  # a face-up card by its symbol


def test_an_action_typed_before_the_move_is_told_to_move_first() -> None:
    st = position(STRIP, face_up=(L, T))
    for make in (
        lambda: ch.take_action(st, 0, "soldier"),
        lambda: ch.levy_action(st, 0, "xx"),
        lambda: ch.takeback_action(st, 0, "zz"),
    ):
        assert "move Alexander first" in _refused(make)


def test_r7_a_bad_levy_card_lists_the_cards_that_can_pay() -> None:
    st = position(STRIP, phase=Phase.ACTIONS, guards={0: ((0, 1),)}, hands={0: hand(H, T), 1: hand()})
    text = _refused(lambda: ch.levy_action(st, 0, "xx"))
    assert "You can pay: `horse`" in text and "temple" not in text.split("You can pay")[1], text
    bare = position(STRIP, phase=Phase.ACTIONS, hands={0: hand(H), 1: hand()})
    assert "no guard on the map" in _refused(lambda: ch.levy_action(bare, 0, "xx"))


def test_r8_a_bad_guard_lists_the_guards() -> None:
    st = position(STRIP, phase=Phase.ACTIONS, guards={0: ((0, 1), (0, 3))})
    text = _refused(lambda: ch.takeback_action(st, 0, "zz"))
    assert "`0.1` horse space" in text and "`0.3` amphora space" in text, text


def test_r6_a_bad_province_lists_the_provinces_that_can_be_afforded() -> None:
    st = position(STRIP, phase=Phase.ACTIONS, hands={0: hand(T, H, L, T, H, L, T, H), 1: hand()})
    plans = ch.province_plans(st, 0, False)
    assert plans
    text = _refused(lambda: ch.parse_province(st, "zz", False))
    assert f"afford now: {plans[0].province}" in text, text


def test_a_long_list_of_values_fits_in_a_message() -> None:
    from bot.process import limits
    from bot.words import words

    allowed = words.can_take(words.listing(f"`{i}` item" * 5 for i in range(400)))
    text = SPEAKER.refusal("bot/bad-choice", {"what": "card", "value": "x" * 500, "allowed": allowed})
    assert len(text) <= limits.MAX_CONTENT and "more (see the list offered)" in text


def test_a_long_label_is_cut_after_a_whole_clause_or_word() -> None:
    """bench_console_games found "— province 2, 6 symbol space…" on the Empire map with 4 players."""
    from bot.process import limits

    line = (
        "P2 (value 4): 2 guards (no score), pay temple + horse + lyre + soldier — province 2, 6 symbol spaces"
    )
    cut = limits.label(line + "; two or more guards of yours score nothing")
    assert cut == "P2 (value 4): 2 guards (no score), pay temple + horse + lyre + soldier — province 2…", cut
    from bot.texts.choices import Choice

    name, detail = line.split(" — ")
    choice = Choice(name, "2", detail + "; two or more guards of yours score nothing")
    assert choice.line == f"{name} — province 2…", choice.line  # the whole name, then whole clauses
    words = limits.label("word " * 30)
    assert len(words) <= limits.MAX_LABEL and words.endswith("word…") and "wor…" not in words
    assert limits.label("x" * 300) == "x" * 99 + "…"  # no space to cut at
    assert limits.label("a  b\n c") == "a b c" and limits.label(line) == line


# --- the cheapest plan that stacks guards says it scores nothing (R7.3) -----------------------------------

CUT = (sd("A5", "B4", STRIP), sd("B4", "C5", STRIP))


def _free_province(st):  # type: ignore[no-untyped-def]
    return next(p for p in rules.province_infos(st) if p.owner is None and p.symbol_spaces)


def test_r7_3_a_plan_that_stacks_guards_is_flagged_in_the_preview_and_the_list() -> None:
    from bot.texts import private

    st = position(STRIP, phase=Phase.ACTIONS, walls=CUT, guards={1: ((0, 1),)}, hands={0: hand()})
    free = _free_province(st)
    plan = rules.plan_occupation(st, 0, st.province_by_id[free.id])
    assert plan is not None and plan.affordable and len(plan.guards) == 3  # no card: a guard on each space
    assert ch.scoring_plan(st, 0, free.id) is None
    choice = ch.plan_choice(st, plan, SPEAKER)
    assert "3 guards (no score), pay no cards" in choice.name, choice
    assert "two or more guards of yours score nothing" in choice.detail, choice
    guards = [SPEAKER.space(g) for g in plan.guards]
    text = private.province_prompt(False, free.id, guards, "no cards", 4, len(plan.guards))
    assert "It scores nothing" in text and "exactly one guard" in text, text
    assert "No plan with one guard is affordable now." in text
    assert wrong_forms(text, markup=False) == []


def test_r7_3_a_plan_with_one_guard_is_not_flagged_and_the_scoring_plan_is_found() -> None:
    from bot.texts import private

    st = position(STRIP, phase=Phase.ACTIONS, walls=CUT, guards={1: ((0, 1),)}, hands={0: hand(S, H)})
    free = _free_province(st)
    plan = rules.plan_occupation(st, 0, st.province_by_id[free.id])
    assert plan is not None and len(plan.guards) == 1
    assert "score" not in ch.plan_label(st, plan, SPEAKER)
    assert ch.scoring_plan(st, 0, free.id) == ((0, 5), hand(S, H))  # the amphora space, paying the others
    guards = [SPEAKER.space(g) for g in plan.guards]
    text = private.province_prompt(False, free.id, guards, "1 soldier, 1 horse", 4)
    assert "scores nothing" not in text and "one scores, two or more do not" in text


# --- a move that ends the game is flagged at the point step, not only at Confirm (R3.6, R10.1) ----------


def test_r3_6_points_and_paths_that_need_red_walls_say_they_end_the_game() -> None:
    from bot.texts import private

    short = make_map("TH.A.A...\n.LT..S.H.", start="A5", walls="1 black, 10 red")
    st = position(short, face_up=(T, H))
    mc = ch.parse_card(st, "n1")
    dests = ch.destinations(st, mc)
    assert any(d.fewest_walls > st.black_left for d in dests)
    labels = [c.name for c in ch.destination_choices(st, mc)]
    for d, label in zip(dests, labels, strict=True):
        ends = d.fewest_walls > st.black_left
        assert (", ends the game" in label) is ends, label
    assert ch.move_ends_game(st, mc)
    text = private.move_step_2(ch.card_label(st, mc), ch.MAX_CHOICES, len(labels), ch.move_ends_game(st, mc))
    assert "Some of these moves end the game" in text
    far = next(d for d in dests if d.fewest_walls > st.black_left)
    paths = [c.name for c in ch.path_choices(st, far.point)]
    assert paths and all(", ends the game" in p for p in paths), paths


def test_r3_6_nothing_is_flagged_while_the_black_walls_suffice() -> None:
    st = position(STRIP, face_up=(T, H))
    mc = ch.parse_card(st, "n1")
    assert not ch.move_ends_game(st, mc)
    assert all("end the game" not in c.name for c in ch.destination_choices(st, mc))


def test_the_confirm_step_names_where_the_path_goes_not_its_list_number() -> None:
    from bot.texts import private

    st = position(STRIP, face_up=(T, H))
    move = ch.move_action(st, 0, "n1", ch.destination_choices(st, ch.parse_card(st, "n1"))[0].value, "1")
    preview = rules.preview_move(st, move)
    labels = ["A5", "B4", "C3"]
    text = private.move_confirm("face-up 1: temple", private.route_text(labels), preview)
    assert "to C3 via B4: it places" in text, text
    assert private.route_text(["A5", "B4"]) == "B4"
    assert wrong_forms(text, markup=False) == []
