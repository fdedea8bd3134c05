"""Menus read at a glance (issue 28, item 3): every select option and autocomplete choice leads with the
action and its price, and Discord's limits cut none of them before the price, in English or German.

Discord's limits: a select option's label and description, and an autocomplete choice's name, 100
characters each."""

from __future__ import annotations

import discord
import pytest

from bot.texts import choices as ch
from bot.texts import components
from bot.words import i18n, words
from bot.words.words import Speaker
from engine import rules
from engine.state import GameState, Phase
from engine.symbols import SYMBOLS, Symbol, cards_of
from tests.engine.helpers import hand, make_map, position

# One big province of 20 symbol spaces of every symbol (a price of every symbol), and a small one.
BIG = make_map("THALS.THALS.\n.SLAHT.SLAHT\nTHALS.THALS.", start="A1")
LONG = ["Alexandra-the-very-long-name-32x", "Bartholomew-Katharinenhaus-7777", "Carolina", "Dmitri"]
RICH = cards_of([s for s in SYMBOLS for _ in range(9)])
LANGUAGES = ("en", "de")


def _rich_state(owner: int | None) -> GameState:
    """Seat 0 holds 9 of each card; ``owner`` (a seat) guards two spaces of the one big province."""
    guards: dict[int, tuple[tuple[int, int], ...]] = {0: ()}
    if owner is not None:
        guards[owner] = ((0, 0), (0, 1))
    return position(BIG, players=4, phase=Phase.ACTIONS, hands={0: RICH}, guards=guards)


def _levy_state() -> GameState:
    sp = next(s for s in BIG.spaces if BIG.symbol[s] is Symbol.HORSE)
    other = next(s for s in BIG.spaces if BIG.symbol[s] is Symbol.LYRE)
    return position(
        BIG, players=4, phase=Phase.ACTIONS, hands={0: hand(Symbol.HORSE)}, guards={0: (sp,), 2: (other,)}
    )


def _assert_fits(c: ch.Choice, head: str) -> None:
    """``head`` (the action and its price) whole in the label, and nothing over Discord's limits."""
    assert len(c.name) <= 100 and len(c.detail) <= 100 and len(c.line) <= 100, c
    assert head in c.name, (head, c)
    assert c.line.startswith(c.name), c  # the autocomplete choice keeps the whole label first
    assert not c.name.endswith("…"), c


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("owner", [None, 1])
def test_province_entries_lead_with_the_price_uncut(language: str, owner: int | None) -> None:
    st = _rich_state(owner)
    speaker = Speaker(LONG, st.map)
    with i18n.speaking(language):
        plans = ch.province_plans(st, 0, takeover=owner is not None)
        assert plans
        menu, _ = ch.action_menu(st, 0, speaker)
        for plan in plans:
            price = words.price(plan.paid)
            assert len(price) > 30  # a price of several symbols: a long one, where the old labels cut
            for c in (ch.plan_choice(st, plan, speaker), ch.plan_choice(st, plan, speaker, verb=True)):
                _assert_fits(c, price)
            entry = next(c for c in menu if c.value == f"occ:{plan.province}")
            _assert_fits(entry, price)
            assert entry.name.startswith("Occupy" if owner is None else "Take over") or language != "en"


@pytest.mark.parametrize("language", LANGUAGES)
def test_levy_entries_name_the_card_and_everyones_score_uncut(language: str) -> None:
    st = _levy_state()
    speaker = Speaker(LONG, st.map)
    scores = rules.levy_scores(st)
    with i18n.speaking(language):
        (c,) = ch.levy_choices(st, 0, speaker)
        you = f"{i18n.in_language(language, 'you')} +{scores[0][0]}"
        _assert_fits(c, words.symbol_name(Symbol.HORSE))
        assert you in c.name, c
        menu, _ = ch.action_menu(st, 0, speaker)
        entry = next(e for e in menu if e.value == "levy:horse")
        _assert_fits(entry, you)


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_entry_of_every_menu_fits_and_select_options_carry_the_detail(language: str) -> None:
    st = _levy_state()
    speaker = Speaker(LONG, st.map)
    with i18n.speaking(language):
        menu, _ = ch.action_menu(st, 0, speaker)
        view = components.select_view("alxs:act:1:1", "pick", menu)
        select = view.children[0].item  # type: ignore[attr-defined]  # a DynamicItem wraps the select
        assert isinstance(select, discord.ui.Select)
        for option, c in zip(select.options, menu, strict=True):
            assert option.label == c.name and len(option.label) <= 100
            assert (option.description or "") == c.detail and len(option.description or "") <= 100
        assert any(o.description for o in select.options)


@pytest.mark.parametrize("language", LANGUAGES)
def test_points_and_paths_lead_with_their_new_walls(language: str) -> None:
    st = position(BIG, players=4)
    with i18n.speaking(language):
        for mc in rules.move_choices(st):
            for d, c in zip(ch.destinations(st, mc), ch.destination_choices(st, mc), strict=True):
                _assert_fits(c, words.new_walls(d.fewest_walls, d.most_walls, st.black_left))
                for n, p in enumerate(ch.path_choices(st, d.point), start=1):
                    _assert_fits(p, f"{n} — ")


@pytest.mark.parametrize("language", LANGUAGES)
def test_autocomplete_choices_keep_the_price_and_add_the_detail(language: str) -> None:
    """An autocomplete choice has no description: its name is the label, then as much detail as fits."""
    from bot.commands.cog import _out

    st = _rich_state(1)
    speaker = Speaker(LONG, st.map)
    with i18n.speaking(language):
        items = ch.province_choices(st, 0, True, speaker) + ch.levy_choices(_levy_state(), 0, speaker)
        offered = _out(items, "")
        assert len(offered) == len(items) >= 2
        for choice, item in zip(offered, items, strict=True):
            assert isinstance(choice, discord.app_commands.Choice) and len(choice.name) <= 100
            assert choice.name.startswith(item.name) and len(choice.name) > len(item.name), choice.name
        typed = _out(items, item.detail[:12])  # what was typed may match the detail, not only the label
        assert typed
