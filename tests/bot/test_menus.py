"""The menus within Discord's limits (25 options a select): nothing the engine allows is left out of a menu
without the prompt saying so, and the channel reads what an undo took back (P10)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from bot.games.tables import Table, names_of
from bot.texts import choices as ch
from bot.texts import posts, private
from bot.words.words import Speaker
from engine import ai, rules
from engine.actions import Occupy, TakeOver
from engine.game import new_game
from engine.geometry import sides_of
from engine.state import Phase
from engine.symbols import SYMBOLS, cards_of
from storage import GameRecord
from tests.bot.driver import CHANNEL, POINTS_MAP, Game, bot_factory, harness, open_game

pytest_plugins = ["tests.harness.fixtures"]


@pytest.fixture(autouse=True)
def _offline(no_network):
    yield


def _many_provinces() -> tuple:
    """Every space of the map walled in on its own (a province each), a hand of ten of each card, and two
    opponents guarding three provinces each: far more provinces to occupy or take over than 25 options."""
    state, _ = new_game(POINTS_MAP, 3, 2)
    m, me = state.map, state.current
    symbol_spaces = [sp for sp in m.spaces if m.symbol[sp] is not None]
    players = list(state.players)
    rich = cards_of([s for s in SYMBOLS for _ in range(10)])
    players[me] = replace(players[me], hand=rich, guards=frozenset())
    players[(me + 1) % 3] = replace(players[(me + 1) % 3], guards=frozenset(symbol_spaces[0:3]))
    players[(me + 2) % 3] = replace(players[(me + 2) % 3], guards=frozenset(symbol_spaces[3:6]))
    state = replace(
        state,
        players=tuple(players),
        walls=frozenset(side for sp in m.spaces for side in sides_of(sp)),
        phase=Phase.ACTIONS,
        actions_taken=(),
    )
    provinces = rules.initial_provinces(state)
    return replace(state, provinces=provinces, next_province_id=len(provinces) + 1), me


def test_the_actions_menu_offers_every_province_that_fits_and_counts_the_rest(monkeypatch) -> None:
    """It used to keep 6 provinces to occupy and 4 to take over, and say nothing of the others."""
    state, me = _many_provinces()
    legal = {a.province for a in ai.legal_actions(state) if isinstance(a, Occupy | TakeOver)}
    menu, left_out = ch.action_menu(state, me, Speaker())
    offered = {int(c.value[4:]) for c in menu if c.value.startswith("occ:")}
    assert len(legal) > 10 and len(menu) <= ch.MAX_CHOICES and menu[-1].value == "end"
    assert offered == legal and left_out == 0, "every province fits in 25 options here"
    # With less room (as with more provinces), the best come first and the rest are counted and named.
    monkeypatch.setattr(ch, "MAX_CHOICES", 12)
    menu, left_out = ch.action_menu(state, me, Speaker())
    offered = {int(c.value[4:]) for c in menu if c.value.startswith("occ:")}
    assert len(menu) == 12 and menu[-1].value == "end" and offered < legal
    assert len(offered) + left_out == len(legal) and left_out > 0
    assert any(c.value.startswith("take:") for c in menu), "the cards come before the provinces"
    record = GameRecord(1, 2, CHANNEL, "playing", {}, 9, 0.0, 0.0, 1, None, None, ((0, 1), (1, 2), (2, 3)))
    prompt = private.actions_prompt(Table(record, state, names_of(record)), left_out)
    assert f"{left_out} more provinces" in prompt and "/alexandros occupy" in prompt
    # The private prompt promises nothing the menu lacks: it no longer lists the public line's actions
    # (judged from the hand's size only), which named take-overs the player could not afford.
    first = prompt.split("\n")[0]
    assert first.endswith("left: choose one below, or end the turn.") and "take over" not in first


def test_the_path_step_says_when_the_menu_holds_only_the_first_paths() -> None:
    assert "(the first 25 of 84;" in private.move_step_3(84, "B28", 25)
    assert "the first" not in private.move_step_3(7, "B28", 7)


async def test_p10_the_channel_reads_whether_a_move_or_an_action_was_taken_back(tmp_path) -> None:
    """P10: after a take, Undo takes back the take; the channel used to read "took back their move"."""
    async with harness(bot_factory(str(tmp_path / "g.db"), POINTS_MAP, 2)) as d:
        g: Game = await open_game(d, 2)
        st = await g.state()
        player = g.user_of_seat(await g.table(), st.current)
        await g.play(ai.greedy_player(st, random.Random(1)), 0)  # the move
        r = await d.slash(player, "alexandros take", card="1")
        assert r.ephemeral

        async def undo() -> list[str]:
            """The player's Undo, and the channel's lines about it."""
            mark = d.mark()
            await d.slash(player, "alexandros game undo")
            await d.bot.deliveries.drain()
            said = [q.content for q in d.requests_since(mark) if q.public_post and q.content]
            return [s for s in said if s.startswith(player.name) and "took back" in s]

        said = await undo()
        assert said and "took back an action" in said[0], said
        assert (await g.state()).phase is Phase.ACTIONS
        said = await undo()
        assert said and "took back their move" in said[0], said


def test_r6_1_a_big_provinces_guard_menu_puts_the_plans_spaces_first_and_says_what_it_holds() -> None:
    """A province can have more symbol spaces (R6.1) than a select menu's 25 options: the cheapest plan's
    spaces come first, so the plan can be changed, and the prompt says how many the menu holds."""
    from engine import apply
    from engine.maps import default_map

    state, rng = new_game(default_map(), 3, 3)[0], random.Random(3)
    big = None
    for _ in range(600):
        big = next((p for p in state.provinces if len(rules.province_symbol_spaces(state, p)) > 30), None)
        if big is not None or state.over:
            break
        state = apply(state, ai.greedy_player(state, rng))[0]
    assert big is not None
    spaces = rules.province_symbol_spaces(state, big)
    plan = (spaces[-1], spaces[-5])  # two spaces past the menu's first 25 in the province's own order
    speaker = Speaker(game_map=state.map)
    choices = ch.guard_space_choices(state, big.id, speaker, plan)
    assert [c.value for c in choices[:2]] == [ch.space_code(s) for s in plan]
    assert sorted(c.value for c in choices) == sorted(ch.space_code(s) for s in spaces)
    text = private.province_prompt(False, big.id, ["x", "y"], "-", 3, 2, None, len(choices))
    assert f"The menu holds 25 of the province's {len(spaces)} symbol spaces, the plan's first." in text
    assert "menu holds" not in private.province_prompt(False, big.id, ["x"], "-", 3, 1, None, 25)
    from bot.words import i18n

    with i18n.speaking("de"):
        german = private.province_prompt(False, big.id, ["x", "y"], "-", 3, 2, None, len(choices))
    assert f"Das Menü zeigt 25 der {len(spaces)} Symbolfelder der Provinz" in german


def test_r6_2_the_occupy_prompt_offers_no_more_guards_than_the_province_has_symbol_spaces() -> None:
    """4 guards left and one symbol space: "choose the guard's space", not "up to 4" (R6.2: one guard a
    space, and only on symbol spaces)."""
    one = private.province_prompt(False, 3, ["x"], "-", 4, 1, None, 1)
    assert "choose the guard's space" in one and "up to" not in one
    assert "up to 3" in private.province_prompt(False, 3, ["x"], "-", 4, 1, None, 3)
    assert "up to 4" in private.province_prompt(False, 3, ["x"], "-", 4, 1, None, 9)


def test_walkthrough_wording_fixes() -> None:
    """What a first-time player read wrongly: 'horse or horse', 'alice offers alice's seat', a deadline
    that 'starts again' at a table without one, and a pause only 'its creator' could end."""
    from engine.symbols import Symbol

    state = replace(new_game(POINTS_MAP, 2, 1)[0], face_up=(Symbol.HORSE, Symbol.HORSE))
    record = GameRecord(1, 2, CHANNEL, "playing", {}, 9, 0.0, 0.0, 1, None, None, ((0, 1), (1, 2)))
    assert "take a face-up card (horse)," in posts.can_do(Table(record, state, names_of(record)))
    assert "offers their seat (red)" in posts.seat_offered("alice", "red", 5, "alice", "en")
    assert "offers bob's seat (red)" in posts.seat_offered("bob", "red", 5, "alice", "en")
    assert private.resumed(False) == "The game is resumed." and "deadline" in private.resumed(True)
    assert "Manage Channels" in Speaker().refusal("bot/paused")


def test_r6_4_the_compensation_menu_keeps_every_symbol_when_the_taker_paid_more_than_25_cards() -> None:
    """R6.4: the taker chooses which of the paid cards the loser gets. With 30 paid cards (6 of each
    symbol) the menu holds 25 options; it used to keep the first 25 cards, so no soldier could be given.
    It now keeps as many of each symbol as fit, and parses back to the cards chosen."""
    paid = cards_of([s for s in SYMBOLS for _ in range(6)])
    options = ch.compensation_choices(paid)
    assert len(options) == ch.MAX_CHOICES
    kept = {s: sum(o.value[0] == s.letter for o in options) for s in SYMBOLS}
    assert kept == {s: 5 for s in SYMBOLS}
    assert len({o.value for o in options}) == len(options)
    soldiers = [o.value for o in options if o.value[0] == SYMBOLS[-1].letter]
    assert ch.parse_compensation(soldiers) == cards_of([SYMBOLS[-1]] * 5)
    # Under 25 paid cards, every card is an option, grouped by symbol.
    few = cards_of([SYMBOLS[0]] * 3 + [SYMBOLS[2]] * 2)
    assert [o.value for o in ch.compensation_choices(few)] == [
        f"{SYMBOLS[0].letter}1", f"{SYMBOLS[0].letter}2", f"{SYMBOLS[0].letter}3",
        f"{SYMBOLS[2].letter}1", f"{SYMBOLS[2].letter}2",
    ]  # fmt: skip
