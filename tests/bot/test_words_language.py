"""bot.words.words, bot.texts.choices, bot.games.schedule and the buttons speak the language in force (issue
16, item 7):
German under ``i18n.speaking("de")``, English (unchanged) by default."""

from __future__ import annotations

import pytest

from bot.games import schedule
from bot.texts import choices
from bot.texts.components import lobby_view, turn_view
from bot.words import i18n, words
from bot.words.words import END_REASONS, Speaker, cards_text, count
from engine import events as ev
from engine.actions import CardSource, MoveWay
from engine.state import EndReason
from engine.symbols import Symbol
from tests.bot.driver import WALLS_MAP

SPEAKER = Speaker(("alice", "bob", "carol"), WALLS_MAP)
SPACE = next(s for s in WALLS_MAP.symbol_spaces if WALLS_MAP.symbol[s] is Symbol.HORSE)


def both(make):  # noqa: ANN001, ANN201 - a tiny helper: the text in English, then in German
    english = make()
    with i18n.speaking("de"):
        german = make()
    return english, german


# --- refusals ---------------------------------------------------------------------------------------------


def test_a_refusal_with_an_article_and_a_symbol_comes_out_german() -> None:
    details = {"symbol": "soldier", "joker": False}
    en, de = both(lambda: SPEAKER.refusal("move/no-empty-space", details))
    assert en == "No empty space shows a soldier. Choose another symbol."
    assert de == "Kein leeres Feld zeigt einen Soldaten. Wähle ein anderes Symbol."


def test_a_refusal_naming_a_space_and_a_command_comes_out_german() -> None:
    en, de = both(lambda: SPEAKER.refusal("takeback/not-your-guard", {"space": SPACE}))
    corners = words.space_corners(SPACE)
    assert en == f"You have no guard on the horse space ({corners}). Pick one of your guards from the list."
    assert de == (
        f"Du hast keinen Wächter auf dem Pferdefeld ({corners}). Wähle einen deiner Wächter aus der Liste."
    )
    en, de = both(lambda: SPEAKER.refusal("turn/no-actions-left"))
    assert "`/alexandros end`" in en and "`/alexandros beenden`" in de  # the German command's name


def test_a_refusal_with_a_plural_and_cards_comes_out_german() -> None:
    details = {"expected": 1, "paid": (2, 0, 0, 0, 1), "given": (0, 0, 0, 0, 0)}
    en, de = both(lambda: SPEAKER.refusal("takeover/bad-compensation", details))
    assert en == (
        "The loser must get exactly 1 card of those you pay (2 temple, 1 soldier); you chose no cards."
    )
    assert de == (
        "Wer die Provinz verliert, muss genau 1 Karte von denen bekommen, die du zahlst "
        "(2 Tempel, 1 Soldat); du hast keine Karten gewählt."
    )
    en, de = both(lambda: SPEAKER.refusal("move/too-many-walls", {"needed": 3, "left": 2, "fewest": 1}))
    assert "only 2 are left" in en and "3 new walls" in en
    assert "nur 2 sind übrig" in de and "3 neue Mauern" in de


def test_bad_choice_names_what_was_not_understood_in_german() -> None:
    details = {"what": "province", "value": "x", "allowed": "Pick one from the list."}
    en, de = both(lambda: SPEAKER.refusal("bot/bad-choice", details))
    assert en == "I do not understand province “x”. Pick one from the list."
    assert de.startswith("Ich verstehe die Provinz „x“ nicht.")
    en, de = both(lambda: SPEAKER.refusal("bot/not-creator", {"creator": "alice", "what": "start the game"}))
    assert en == "Only alice (who created the game) can start the game."
    assert de == "Nur wer das Spiel eröffnet hat (alice), kann es starten."


def test_an_unknown_code_falls_back_in_the_language_in_force() -> None:
    en, de = both(lambda: SPEAKER.refusal("no/such-code"))
    assert en == "That is not allowed here (no/such-code)."
    assert de == "Das ist hier nicht erlaubt (no/such-code)."


# --- event lines ------------------------------------------------------------------------------------------


def test_event_lines_come_out_german() -> None:
    moved = ev.AlexanderMoved(
        player=0, way=MoveWay.SPECIAL, symbol=Symbol.AMPHORA, space=SPACE, path=((2, 4), (3, 5)),
        black=((1, 1),) * 2, red=((2, 2),), walls_ran_out=True,
    )  # fmt: skip
    events = [
        ev.FaceUpTurned(slot=0, symbol=Symbol.AMPHORA),
        ev.CardTaken(player=1, source=CardSource.SUPPLY, slot=None, symbol=Symbol.HORSE),
        ev.GuardsRemoved(player=2, spaces=(SPACE, SPACE), reason="take-over"),
        moved,
        ev.GameEnded(reason=EndReason.POINTS, winners=(0,), scores=(100, 3, 4)),
    ]
    en, de = both(lambda: SPEAKER.event_lines(events))
    assert en == [
        "An amphora was turned face up (slot 1).",
        "bob drew a card (horse).",
        "carol lost 2 guards to a take-over.",
        "alice moved Alexander to D5, a corner of an amphora space (special move): path C4–D5, 3 new walls, "
        "1 of them red. The walls ran out: the game ends after this turn.",
        "The game is over (someone reached 100 points).",
    ]
    assert de == [
        "Eine Amphore wurde aufgedeckt (Platz 1).",
        "bob hat eine Karte gezogen (Pferd).",
        "carol hat durch eine Übernahme 2 Wächter verloren.",
        "alice hat Alexander nach D5 gezogen (Ecke eines Amphorenfelds, Sonderzug): Weg C4–D5, 3 neue "
        "Mauern, davon 1 rot. Die Mauern sind aufgebraucht: das Spiel endet nach diesem Zug.",
        "Das Spiel ist vorbei (jemand hat 100 Punkte erreicht).",
    ]


def test_end_reasons_are_translated_at_lookup() -> None:
    en, de = both(lambda: END_REASONS.get(EndReason.AGREED, "?"))
    assert (en, de) == ("the players agreed to end it", "die Spieler haben sich auf das Ende geeinigt")
    assert END_REASONS.get("no such reason", "fallback") == "fallback"
    assert set(END_REASONS) == set(EndReason)


# --- count, cards_text ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "noun", "english", "german"),
    [
        (1, "card", "1 card", "1 Karte"),
        (0, "card", "0 cards", "0 Karten"),
        (3, "province", "3 provinces", "3 Provinzen"),
        (1, "black wall", "1 black wall", "1 schwarze Mauer"),
        (2, "red wall", "2 red walls", "2 rote Mauern"),
        (5, "side", "5 sides", "5 Seiten"),
    ],
)
def test_count_agrees_in_both_languages(n: int, noun: str, english: str, german: str) -> None:
    assert both(lambda: count(n, noun)) == (english, german)


def test_count_knows_every_noun_the_bot_counts_and_refuses_another() -> None:
    for noun in ("action", "path", "guard", "game", "event", "new wall", "wall", "rated game", "day", "hour"):
        assert count(2, noun).startswith("2 ")
    with pytest.raises(KeyError):
        count(2, "elephant")


def test_cards_text_names_the_symbols_in_german() -> None:
    assert both(lambda: cards_text((1, 2, 0, 1, 3))) == (
        "1 temple, 2 amphora, 1 lyre, 3 soldier",
        "1 Tempel, 2 Amphoren, 1 Leier, 3 Soldaten",
    )
    assert both(lambda: cards_text(None)) == ("no cards", "keine Karten")


def test_the_province_preview_names_its_spaces_with_the_articles_of_the_language() -> None:
    from bot.texts import private

    amphora = next(s for s in WALLS_MAP.symbol_spaces if WALLS_MAP.symbol[s] is Symbol.AMPHORA)
    horse, other = words.space_corners(SPACE), words.space_corners(amphora)

    def prompt(guards: tuple[tuple[int, int], ...]) -> str:
        names = [SPEAKER.space(g) for g in guards]
        return private.province_prompt(False, 3, names, cards_text(None), 4, len(guards), (names[0], "-"))

    en, de = both(lambda: prompt((SPACE,)))
    assert f"cheapest: a guard on the horse space ({horse}), paying" in en
    assert f"günstigsten: ein Wächter auf dem Pferdefeld ({horse}), für" in de
    en, de = both(lambda: prompt((SPACE, amphora)))
    assert f"guards on the horse space ({horse}), the amphora space ({other}), paying" in en
    assert f"Wächter auf dem Pferdefeld ({horse}), dem Amphorenfeld ({other}), für" in de
    assert f"With one guard on the horse space ({horse}) it scores" in en
    assert f"Mit einem Wächter auf dem Pferdefeld ({horse}) bringt sie Punkte" in de
    assert " the " not in de


# --- choices, schedule, buttons ---------------------------------------------------------------------------


def test_labels_and_typed_symbol_names_follow_the_language() -> None:
    assert both(lambda: words.new_walls(2, 4, black_left=3)) == (
        "2–4 new walls, some paths end the game",
        "2–4 neue Mauern, manche Wege beenden das Spiel",
    )
    assert both(lambda: choices.parse_symbol("horse")) == (Symbol.HORSE, Symbol.HORSE)
    with i18n.speaking("de"):
        assert choices.parse_symbol("Pferd") is Symbol.HORSE  # the name a German player reads
        with pytest.raises(choices.Refused) as refused:
            choices.parse_symbol("elefant")
    assert "Tempel, Amphore, Pferd, Leier, Soldat" in refused.value.details["allowed"]


def test_the_schedules_sentences_come_out_german() -> None:
    def error(make):  # noqa: ANN001, ANN202
        with pytest.raises(ValueError) as raised:
            make()
        return str(raised.value)

    en, de = both(lambda: error(lambda: schedule.parse_clock("25:99")))
    assert en == "'25:99' is not a time of day: write it as HH:MM on a 24-hour clock, like 22:30."
    assert de == "'25:99' ist keine Uhrzeit: schreib sie als HH:MM im 24-Stunden-Format, etwa 22:30."
    en, de = both(lambda: error(lambda: schedule.parse_policy("later")))
    assert en == "'later' is not a deadline policy: choose skip or autoplay."
    assert de == "'later' ist keine Fristregel: wähle skip oder autoplay."


def _labels(view) -> list[str]:  # noqa: ANN001
    return [str(getattr(getattr(item, "item", item), "label", "")) for item in view.children]


def test_public_buttons_speak_the_games_language_whoever_clicks() -> None:
    assert _labels(lobby_view(1)) == ["Join", "Leave", "Start"]
    assert _labels(lobby_view(1, "de")) == ["Beitreten", "Verlassen", "Starten"]
    with i18n.speaking("de"):  # a German user's click in an English game: the game's language
        assert _labels(turn_view(1, 2, moving=True, undo=True, locale="en")) == [
            "My hand", "Move", "Actions", "End turn", "Undo",
        ]  # fmt: skip
    assert _labels(turn_view(1, 2, moving=False, locale="de"))[1:] == ["Ziehen", "Aktionen", "Zug beenden"]


# --- through the offline Discord: the asking user's language -------------------------------------------


async def test_a_german_user_is_refused_and_offered_choices_in_german(tmp_path) -> None:  # noqa: ANN001
    from tests.bot.driver import bot_factory, harness, open_game

    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        g = await open_game(d, 2)
        st, table = await g.state(), await g.table()
        me, other = g.user_of_seat(table, st.current), g.user_of_seat(table, 1 - st.current)
        me.locale = other.locale = "de"
        r = await d.slash(other, "alexandros end")
        assert r.ephemeral and r.content.startswith(f"{me.name} ist am Zug, nicht du.")
        r = await d.slash(me, "alexandros take", card="1")
        assert r.ephemeral and "Du musst zuerst Alexander ziehen" in r.content
        assert "`/alexandros ziehen`" in r.content
        got = await d.autocomplete(me, "alexandros move", focused="card", value="")
        assert got and all(c["name"].startswith(("offen ", "Hand: ")) for c in got), got
        r = await d.slash(me, "alexandros move", card="zz")
        assert r.ephemeral and r.content.startswith(
            "Ich verstehe die Karte „zz“ nicht. Du kannst spielen: `n1` offen 1:"
        )
        me.locale = "en-US"  # the same user in English: the same answers in English
        r = await d.slash(me, "alexandros take", card="1")
        assert r.ephemeral and "You must move Alexander first" in r.content


@pytest.mark.parametrize("language", ["en", "de"])
def test_the_rules_summary_names_only_commands_that_exist_in_its_language(language: str) -> None:
    """/alexandros rules listed `waiting` and `reminders` (they are `me waiting`, `me reminders`), and
    left out agree, resign, undo and vacation."""
    import re

    from discord import app_commands

    from bot.commands.cog import AlexandrosCog

    groups = [v for v in vars(AlexandrosCog).values() if isinstance(v, app_commands.Group)]
    group = next(g for g in groups if g.name == "alexandros")

    def paths(g: app_commands.Group, prefix: tuple[str, ...] = ()) -> set[tuple[str, ...]]:
        out: set[tuple[str, ...]] = set()
        for c in g.commands:
            name = i18n.in_language(language, c.name, "command")
            out.add((*prefix, name))
            if isinstance(c, app_commands.Group):
                out |= paths(c, (*prefix, name))
        return out

    known = paths(group)
    with i18n.speaking(language):
        text = words.rules_summary("https://example.org/rules")
    listed = re.findall(r"`(?:/\S+ )?([^`]+)`", text.split("\n")[-1])
    assert len(listed) >= 19, listed
    for item in listed:
        assert tuple(item.split()) in known, (item, language)
    named = {i18n.in_language(language, n, "command") for n in ("agree", "resign", "vacation")}
    assert named <= set(listed)
