"""German complete (issue 28, item 7): every message the bot words and every word its pictures draw,
rendered in German, holds no English word of a stop-list. A German console game is played through to the
end and its whole transcript read; the catalog's every message, every refusal with sample details, the
menus, the end post, ratings and the computer players' names are rendered in German too.

The stop-list holds English words that are no German words (not "in", "an", "was", "hand", "status",
"normal"...). What a player types (the transcript's "> " lines), code spans (`/alexandros ziehen`), links,
file names and menu values (n1, D6) are not German text and are left out."""

from __future__ import annotations

import re
from typing import Any

import pytest

from bot.games.pictures import words_for
from bot.texts import choices as ch
from bot.texts import posts, private
from bot.words import i18n, words
from bot.words.words import BOT_CODES, Speaker
from rendering.words import MESSAGES
from storage import PlayerRating
from tests.bot.console_games import packaged_maps, play
from tests.bot.test_menus_glance import LONG, _levy_state, _rich_state
from tests.bot.test_words import BOT_DETAILS, DETAILS, SPEAKER
from tools import catalogs

pytest_plugins = ["tests.harness.fixtures"]

STOP = frozenset(
    """the and or of to your you only with is are not this that it its has have for from by on at be can
    cannot yes no nobody someone hard easy card cards turn turns left take takes levy guard guards space
    spaces point points wall walls province provinces pay paid score scores scored game games move moved
    player players action actions winner won wins provisional value rows columns choose pick press button
    menu message public pinned picture saved supply face up end over back nearest offered allowed closest
    away side sides path paths new black red temple horse lyre soldier amphora reached share win console
    greyed did work would type help verbose select disabled edited file bytes thinking such as one""".split()
)
_CODE = re.compile(r"`[^`]*`|https?://\S+|<[@#]!?\d+>|<t:\d+(?::\w)?>|\{[^}]*\}|\S+[./]\S+")
_WORD = re.compile(r"[A-Za-zÄÖÜäöüß]{2,}")


def _unnamed(text: str) -> str:
    """The text without the players' names (a name is a name in any language)."""
    for name in LONG:
        text = text.replace(name, " ")
    return text


# An autocomplete answer in the console: "    supply       Nachziehstapel: …" (the value is typed as it is).
_CHOICE_VALUE = re.compile(r"^ {4}\S+ {2,}")


def english_words(text: str) -> list[str]:
    """The stop-list's words in ``text``, outside code spans, links, placeholders and file names."""
    return [w for w in _WORD.findall(_CODE.sub(" ", text)) if w.lower() in STOP]


def _flagged(texts_: dict[str, str]) -> list[str]:
    return [
        f"{where}: {found} in {text[:120]!r}"
        for where, text in texts_.items()
        if (found := english_words(text))
    ]


def test_the_stop_list_finds_english_and_passes_german() -> None:
    assert english_words("Ein Computerspieler (hard) sitzt am Tisch (only you)") == ["hard", "only", "you"]
    assert english_words("Noch 1 Aktion: `/alexandros levy card:?` oder den Zug beenden.") == []
    assert english_words("Spiel 1 ist vorbei — @ann hat 100 Punkte erreicht, p/0001-board.png") == []


def test_every_catalog_message_is_german() -> None:
    found: dict[str, str] = {}
    for m in catalogs._read(i18n.LOCALES / "de" / "LC_MESSAGES" / f"{i18n.DOMAIN}.po", "de"):
        if not m.id or (m.context or "").startswith(i18n.COMMAND):
            continue  # command names are identifiers; their German names are checked by test_catalogs
        for k, text in enumerate(catalogs._forms(m.string)):
            found[f"{catalogs._key(m.id)[:50]}#{k}"] = text
    assert len(found) > 500
    problems = _flagged(found)
    assert problems == [], "\n".join(problems)


def test_every_picture_word_is_german() -> None:
    words = words_for("de")
    drawn: dict[str, str] = {}
    for context, message in MESSAGES:
        if isinstance(message, tuple):
            for n in (1, 2):
                drawn[f"{message[0]}:{n}"] = words.ntr(message[0], message[1], n)
        elif context is None:
            drawn[message] = words.tr(message)
        else:
            drawn[f"{context}:{message}"] = words.ptr(context, message)
    problems = _flagged(drawn)
    assert problems == [], "\n".join(problems)


def test_every_refusal_menu_and_post_renders_german() -> None:
    rendered: dict[str, str] = {}
    speaker = Speaker(LONG, SPEAKER.game_map)
    with i18n.speaking("de"):
        for code, details in DETAILS.items():
            rendered[code] = SPEAKER.refusal(code, details)
        for code in BOT_CODES:
            what = {"bot/bad-choice": "card", "bot/not-creator-or-manager": "pause the game"}
            d = {**BOT_DETAILS, "allowed": words.pick_from_list(), "what": what.get(code, "start the game")}
            rendered[code] = SPEAKER.refusal(code, d)
        for state in (_rich_state(None), _rich_state(1), _levy_state()):
            menu, _ = ch.action_menu(state, 0, Speaker(LONG, state.map))
            for c in menu:
                rendered[f"menu {c.value}"] = f"{c.name} — {c.detail}"
        for level in ("easy", "normal", "hard"):
            rendered[f"computer {level}"] = posts.computer_name(level, "de")
            rendered[f"seated {level}"] = private.computer_seated(level)
        rating = PlayerRating(1, 102, 22.4, 8.1, 1, 0)
        rendered["stats"] = posts.stats_text(102, rating, 1, 1, "de")
        rendered["board"] = posts.leaderboard_text([rating], "de")
    assert speaker.names
    problems = _flagged(rendered)
    assert problems == [], "\n".join(problems)


async def test_a_whole_german_console_game_reads_german(tmp_path: Any, no_network: Any) -> None:
    """Issue 28: "Ein Computerspieler (hard)", "(only you)", the console's "!!!" lines, "Noch 2 Aktionen:
    eine Karte nehmen (**Aktionen**), oder beende den Zug." - the whole transcript of a game, in German."""
    text, final = await play(packaged_maps()["aegean"], 2, seed=2, folder=tmp_path, locale="de")
    assert final.over and "ist vorbei" in text
    shown = [_CHOICE_VALUE.sub("", line) for line in text.splitlines() if not line.startswith(("> ", "==="))]
    problems = [f"{line[:160]!r}: {found}" for line in shown if (found := english_words(line))]
    assert problems == [], "\n".join(problems[:40])
    # One verb form in a sentence: "Noch 1 Aktion: eine Karte nehmen … oder den Zug beenden", not "…
    # eine Karte nehmen (**Aktionen**), oder beende den Zug" (infinitive, then imperative).
    offers = [line for line in shown if line.startswith("Noch ")]
    assert offers and not [line for line in offers if re.search(r"\bbeende\b", line)], offers[:5]


@pytest.mark.parametrize("language", ["de"])
def test_the_turn_post_keeps_one_verb_form(language: str) -> None:
    from engine.state import Phase
    from tests.bot.test_open_actions import STRIP, _table
    from tests.engine.helpers import CUT, position

    st = position(STRIP, phase=Phase.ACTIONS, walls=CUT)
    table = _table(st)
    with i18n.speaking(language):
        line = posts.can_do(table)
    assert line.endswith("oder den Zug beenden."), line


async def test_issue_28_the_handover_option_names_a_member_in_german() -> None:
    """Issue 28: the handover option `to` was "ziel" (the move's point); it names the member: "an"."""
    from tests.bot.test_catalogs import _payloads, _walk

    names = {}
    for payload in await _payloads():
        for path, node in _walk(payload):
            if node.get("name") == "to":
                names[path[-1]] = node.get("name_localizations", {}).get("de")
    assert names == {"handover": "an", "move": "ziel"}, names
