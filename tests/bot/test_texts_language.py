"""bot.texts speaks from the catalogs (issue 16, item 7): German comes out when German is spoken, a
public text speaks the game's language whoever asks for it, and a private answer the asking user's."""

from __future__ import annotations

import dataclasses

from bot.games.tables import Table, locale_of
from bot.texts import posts, private
from bot.words import i18n
from engine.game import new_game
from storage import GameRecord
from tests.bot.driver import WALLS_MAP


def _table(locale: str | None, status: str = "playing") -> Table:
    options = {"names": {"101": "Ann", "102": "Bob"}, "creator": "Ann"}
    if locale is not None:
        options["locale"] = locale
    record = GameRecord(7, 1, 2, status, options, 3, 0.0, 0.0, 101, 101, 0.0, ((0, 101), (1, 102)))  # type: ignore[arg-type]
    state = None if status == "lobby" else new_game(WALLS_MAP, 2, 5)[0]
    return Table(record, state, ("Ann", "Bob"))


def test_private_answers_come_out_in_german_when_german_is_spoken():
    with i18n.speaking("de"):
        assert private.oops().startswith("Bei mir ist etwas schiefgegangen.")
        assert "`/alexandros brett`" in private.oops()  # the German command's name
        assert private.pick_cards(1) == "Wähle 1 Karte"
        assert private.pick_cards(3) == "Wähle 3 Karten"  # the plural form
        assert private.province_taken(4) == "Provinz 4 gehört dir."
        assert posts.colour(0) == "Rot"
    assert private.pick_cards(3) == "Pick 3 cards"  # English again outside the block
    assert posts.colour(0) == "red"


def test_the_turn_post_speaks_the_games_language_whoever_asks():
    german = _table("de")
    seat = german.state.current  # type: ignore[union-attr]
    colour = {"red": "Rot", "yellow": "Gelb", "blue": "Blau", "green": "Grün"}[posts.COLOURS[seat]]
    for speaker in ("en", "de"):
        with i18n.speaking(speaker):
            header = posts.turn_header(german)
        assert header.startswith(f"**Zug 1 — {german.speaker.seat(seat)} ({colour})**"), header
        assert "du bist am Zug" in header
        assert "`/alexandros ziehen`" in header  # what to do next, in the game's language too
    with i18n.speaking("de"):
        english_header = posts.turn_header(_table("en"))
    assert "it is your turn." in english_header and "Zug" not in english_header


def test_the_lobby_speaks_the_games_language_and_a_game_without_one_speaks_english():
    with i18n.speaking("en"):
        lobby = posts.lobby_text(_table("de", status="lobby"))
    assert lobby == (
        "**Alexandros — Spiel 7**: ein Tisch für 2–4 Spieler.\nAm Tisch (2/4): <@101>, <@102>\n"
        "Drück **Beitreten**, um dich hinzusetzen. "
        "Ann drückt **Starten**, sobald 2 oder mehr am Tisch sitzen."
    )
    with i18n.speaking("de"):
        lobby = posts.lobby_text(_table(None, status="lobby"))  # a game made before it had a language
    assert "Press **Join** to sit down." in lobby


def test_public_texts_without_a_table_speak_the_locale_they_are_given():
    with i18n.speaking("en"):
        assert posts.resigned_public("Ann", "de") == "Ann hat aufgegeben."
        assert posts.seat_taken(5, "Bob", "blue", False, "de") == (
            "<@5> hat den Platz von Bob (Blau) übernommen. Bob spielt in diesem Spiel nicht mehr mit."
        )
    with i18n.speaking("de"):
        assert posts.resigned_public("Ann", "en") == "Ann resigned."


def test_a_private_answer_follows_the_speaker_not_the_game():
    german = _table("de")
    with i18n.speaking("en"):
        assert private.actions_prompt(german).startswith("**Actions** — ")
        assert private.hand_text(german, 0).startswith("Your hand (")
    english = _table("en")
    with i18n.speaking("de"):
        assert private.actions_prompt(english).startswith("**Aktionen** — ")
        assert private.hand_text(english, 0).startswith("Deine Hand (")


def test_a_finished_turn_keeps_its_title_in_the_games_language():
    german = _table("de")
    with i18n.speaking("en"):
        closed = posts.turn_text(german, posts.turn_header(german), [], closed=True)
    assert closed.startswith("**Zug 1 — ") and closed.endswith("— Zug beendet.")


def test_an_old_record_without_a_locale_is_english():
    rec = _table("de").record
    assert locale_of(rec) == "de"
    assert locale_of(dataclasses.replace(rec, options={})) == i18n.SOURCE
