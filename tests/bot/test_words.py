"""Every refusal code has a sentence that uses its details; event lines never name a hidden card; the
wording lives in bot.texts and bot.words.words only."""

from __future__ import annotations

import ast
import pathlib
import re
from typing import Any

import pytest

from bot.words.words import BOT_CODES, Speaker, cards_text, has_words
from engine import rules
from engine.actions import CardSource
from engine.errors import ERROR_CODES
from engine.events import CardTaken
from engine.symbols import Symbol
from engine.views import redact
from tests.bot.driver import WALLS_MAP

SPEAKER = Speaker(("alice", "bob", "carol"), WALLS_MAP)
SPACE = WALLS_MAP.symbol_spaces[3]

# Details as the engine raises them (engine/game.py), with values distinctive enough to be found again.
DETAILS: dict[str, dict[str, Any]] = {
    "game/over": {},
    "game/stale": {"expected": 41, "actual": 43},
    "game/unknown-player": {"player": 7},
    "game/not-your-turn": {"player": 0, "current": 2},
    "game/resigned": {"player": 1},
    "game/bad-setup": {"players": 5, "min": 2, "max": 4},
    "turn/move-first": {},
    "turn/already-moved": {},
    "turn/no-actions-left": {},
    "move/bad-slot": {"slot": 3},
    "move/slot-empty": {"slot": 1},
    "move/not-in-hand": {"card": "lyre"},
    "move/no-empty-space": {"symbol": "amphora", "joker": True},
    "move/joker-not-allowed": {"symbol": "soldier"},
    "move/joker-needs-symbol": {},
    "move/unexpected-symbol": {},
    "move/wrong-symbol": {"symbol": "temple", "space": SPACE},
    "move/not-empty": {"space": SPACE},
    "move/not-closest": {"distance": 5, "closest": 2, "symbol": "horse"},
    "move/bad-path": {"reason": "not-a-side", "at": (1, 2), "to": (3, 6)},
    "move/not-shortest": {"length": 6, "shortest": 4},
    "move/too-many-walls": {"needed": 6, "left": 3, "fewest": 2},
    "move/not-fewest-walls": {"needed": 6, "fewest": 4, "left": 3},
    "undo/nothing": {},
    "undo/revealed": {},
    "card/bad-slot": {"slot": 5},
    "card/slot-empty": {"slot": 0},
    "card/supply-empty": {},
    "province/unknown": {"province": 99},
    "occupy/not-free": {"province": 12, "owner": 1},
    "occupy/no-symbol-space": {"province": 13},
    "occupy/no-guard": {},
    "occupy/not-enough-guards": {"wanted": 3, "have": 1},
    "occupy/duplicate-space": {},
    "occupy/outside-province": {"space": SPACE, "province": 14},
    "occupy/open-space": {"space": SPACE},
    "occupy/missing-cards": {"missing": (0, 2, 0, 0, 0), "cost": (1, 2, 0, 0, 0)},
    "takeover/free": {"province": 15},
    "takeover/own-province": {"province": 16},
    "takeover/missing-cards": {
        "missing": (0, 0, 3, 0, 0),
        "removal": (0, 0, 4, 0, 0),
        "cost": (0, 0, 0, 1, 0),
    },
    "takeover/bad-compensation": {"expected": 3, "paid": (2, 0, 0, 0, 4), "given": (0, 0, 0, 0, 1)},
    "levy/already": {},
    "levy/no-guards": {},
    "levy/not-in-hand": {"card": "horse"},
    "levy/card-not-matching": {"card": "lyre", "allowed": ["amphora", "soldier"]},
    "takeback/not-your-guard": {"space": SPACE},
}


def rendered(value: Any, key: str = "") -> list[str]:
    """The texts a detail value must show up as."""
    if key in ("at", "to", "point", "alexander"):
        return [f"{chr(65 + value[0])}{value[1]}"]
    if isinstance(value, bool):
        return []  # a flag changes the sentence, it is not quoted
    if isinstance(value, tuple) and len(value) == 5:
        return [cards_text(value)]
    if isinstance(value, tuple) and len(value) == 2:
        if value in WALLS_MAP.symbol:
            return [SPEAKER.space(value)]
        return [f"{chr(65 + value[0])}{value[1]}"]
    if isinstance(value, list):
        return [str(v) for v in value]
    return [str(value)]


def test_every_engine_code_is_covered_here() -> None:
    assert set(DETAILS) == set(ERROR_CODES)


@pytest.mark.parametrize("code", sorted(ERROR_CODES))
def test_every_engine_code_has_a_sentence_using_its_details(code: str) -> None:
    assert has_words(code)
    text = SPEAKER.refusal(code, DETAILS[code])
    assert code not in text, f"{code} fell back to the generic sentence: {text}"
    assert text.endswith((".", ")", "”"))
    for key, value in DETAILS[code].items():
        if key == "reason":
            continue  # chooses between two sentences
        if key in ("player",) and code == "game/not-your-turn":
            continue  # the asker is "you"
        if key == "current":
            assert "carol" in text
            continue
        if key == "owner":
            assert "bob" in text
            continue
        if key == "slot":
            assert f"slot {value + 1}" in text  # slots are numbered from 1 for people
            continue
        if key == "player" and code == "game/resigned":
            assert "bob" in text
            continue
        if code == "game/stale":  # versions are for the log: "step 18" read like the guided move's steps
            assert str(value) not in text and "moved on" in text
            continue
        for expected in rendered(value, key):
            assert expected in text, f"{code}: {key}={value!r} ({expected!r}) missing from {text!r}"


def test_refusal_sentences_change_with_their_details() -> None:
    a = SPEAKER.refusal("move/not-closest", {"distance": 5, "closest": 2, "symbol": "horse"})
    b = SPEAKER.refusal("move/not-closest", {"distance": 4, "closest": 3, "symbol": "lyre"})
    assert a != b and "5" in a and "2" in a and "4" in b and "lyre" in b


@pytest.mark.parametrize("code", sorted(BOT_CODES))
def test_bot_codes_have_sentences(code: str) -> None:
    text = SPEAKER.refusal(
        code,
        {
            "game": 9,
            "max": 4,
            "creator": "alice",
            "what": "start",
            "min": 2,
            "have": 1,
            "status": "finished",
            "value": "Q9",
            "allowed": "Try A1.",
            "near": ["A1"],
            "point": "B2",
            "count": 3,
            "waiting": "bob",
            "at": 1_800_000_000.0,
            "to": "<@7>",
            "who": "dave",
        },
    )
    assert code not in text and text.endswith((".", ")", "”"))


def test_a_supply_draw_is_named_only_to_its_drawer() -> None:
    draw = CardTaken(1, CardSource.SUPPLY, None, Symbol.HORSE)
    assert "horse" not in SPEAKER.event_line(redact(draw, None))
    assert "horse" not in SPEAKER.event_line(redact(draw, 0))
    assert "horse" in SPEAKER.event_line(redact(draw, 1))
    assert SPEAKER.event_line(redact(draw, None)) == "bob drew a card."


def test_space_names_use_point_labels() -> None:
    name = SPEAKER.space(SPACE)
    assert WALLS_MAP.symbol[SPACE].value in name
    assert all(re.fullmatch(r"[A-Z]\d+", p) for p in name.split("(")[1].rstrip(")").split())
    assert rules.space_distance  # the engine names distances; the bot only formats them


def test_the_deal_is_told_as_a_deal_and_names_no_card() -> None:
    from engine.game import new_game
    from engine.views import redact_all

    _, events = new_game(WALLS_MAP, 3, 4)
    lines = SPEAKER.event_lines(redact_all(events, None))
    assert lines[0] == "The game began with 3 players."
    assert sum("was dealt a card." in line for line in lines) == 3
    assert any("was chosen to start" in line for line in lines)
    for sym in Symbol:
        assert all(f"({sym.value})" not in line for line in lines)


_CATALOG_CALLS = frozenset({"_", "N_", "Nn_", "ngettext", "pgettext"})


def _sentences(path: pathlib.Path, catalogued: bool = False) -> list[tuple[int, str]]:
    """String literals that read like a sentence to a user (a space, and closing punctuation), outside
    docstrings, log calls, exception messages for developers and slash-command descriptions; with
    ``catalogued``, messages of the catalog (``_("...")`` and its kin, bot.words.i18n) are accepted too."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip: set[int] = set()

    def skip_all(node: ast.AST) -> None:
        skip.update(id(sub) for sub in ast.walk(node))

    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                skip.add(id(first.value))
        if isinstance(node, ast.Raise) and node.exc is not None:
            if not (isinstance(node.exc, ast.Call) and getattr(node.exc.func, "id", "") == "Refused"):
                skip_all(node.exc)
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            owner = getattr(f.value, "id", "") if isinstance(f, ast.Attribute) else ""
            if owner == "log" or name in ("describe", "command", "Group"):
                skip_all(node)
            if catalogued and name in _CATALOG_CALLS:
                skip.update(id(a) for a in node.args)
            for kw in node.keywords:
                if kw.arg == "description":
                    skip_all(kw.value)
    found = []
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value.strip()
        elif isinstance(node, ast.JoinedStr):
            text = "".join(v.value for v in node.values if isinstance(v, ast.Constant)).strip()
        else:
            continue
        if " " in text and text[-1:] in ".!?:":
            found.append((node.lineno, text))
    return found


# The words of the game live in bot/texts/posts.py, private.py and bot/words/words.py; these modules speak
# to the host, not to players.
_HOST_FACING = {"posts.py", "private.py", "words.py", "config.py", "backups.py", "health.py", "__main__.py"}
_HOST_FACING |= {"console.py"}
_HOST_FACING |= {"runlock.py"}  # the start-up check of the database: its sentence is for the host
_HOST_FACING |= {"move.py"}  # python -m bot move: its sentences are for the host at the command line
_HOST_FACING |= {"console_commands.py"}  # the console reading typed commands: for the one at the keyboard
# These hold player-facing labels and sentences of their own (the menus' labels in choices.py, the
# schedule's ValueErrors, the buttons' labels), each a message of the catalog (issue 16): a sentence there
# must go through ``_()`` (or its kin), never be a bare literal.
_CATALOGUED = {"choices.py", "schedule.py", "components.py"}
_CATALOGUED |= {"lessons.py"}  # the tutorial's lessons (issue 29): each sentence beside its position
_BOT = pathlib.Path(__file__).parents[2] / "bot"
_PLAYER_FACING = sorted(  # every module of the bot's rooms (bot/web has its own words: bot/web/words.py)
    str(p.relative_to(_BOT))
    for p in _BOT.rglob("*.py")
    if p.name not in _HOST_FACING and "web" not in p.relative_to(_BOT).parts
)


def test_the_rule_reads_every_room() -> None:
    assert {"commands/lobby.py", "outbox/timers.py", "games/schedule.py", "texts/choices.py"} <= set(
        _PLAYER_FACING
    )


@pytest.mark.parametrize("name", _PLAYER_FACING)
def test_no_sentence_is_written_outside_texts_and_words(name):
    path = _BOT / name
    assert _sentences(path, catalogued=path.name in _CATALOGUED) == [], (
        "move these sentences into bot/texts/posts.py, private.py or bot/words/words.py, or (in choices.py, "
        "schedule.py, "
        "components.py) make them messages of the catalog: _(...)"
    )


def test_the_rule_sees_a_bare_sentence_and_accepts_a_catalogued_one(tmp_path: pathlib.Path) -> None:
    """The rule can fail: a bare sentence is found, the same one inside ``_()`` is not (catalogued files)."""
    f = tmp_path / "labels.py"
    f.write_text('a = "Take it now."\nb = _("Take it now.")\nc = f"Take {n} now."\n', encoding="utf-8")
    assert sorted(line for line, _text in _sentences(f, catalogued=True)) == [1, 3]
    assert sorted(line for line, _text in _sentences(f)) == [1, 2, 3]


# --- issue 15: grammar in one helper, and a way forward in every refusal ---------------------------------

BOT_DETAILS: dict[str, Any] = {
    "game": 9,
    "max": 4,
    "creator": "alice",
    "what": "start the game",
    "min": 2,
    "have": 1,
    "status": "finished",
    "value": "Q9",
    "allowed": "You can take: 1 (face-up lyre), supply.",
    "near": ["A1"],
    "point": "B2",
    "count": 3,
    "waiting": "bob",
    "at": 1_800_000_000.0,
}


def test_articles_and_counts_come_from_one_helper() -> None:
    from bot.words.words import a, count

    assert [a(w) for w in ("amphora", "horse", "lyre", "Amphora")] == [
        "an amphora",
        "a horse",
        "a lyre",
        "an Amphora",
    ]
    assert [count(n, "side") for n in (0, 1, 2)] == ["0 sides", "1 side", "2 sides"]
    assert count(1, "new wall") == "1 new wall" and count(3, "province") == "3 provinces"


_COUNTS = {"distance", "closest", "length", "shortest", "needed", "left", "fewest", "wanted", "have"}
_COUNTS |= {"expected"}


@pytest.mark.parametrize("symbol", [s.value for s in Symbol])
@pytest.mark.parametrize("n", [0, 1, 2])
def test_r3_refusals_agree_with_their_symbol_and_number(symbol: str, n: int) -> None:
    """ "a amphora", "1 sides": every engine refusal, with every symbol and the numbers 0, 1, 2."""
    from tests.bot.wrong_forms import wrong_forms

    for code, details in DETAILS.items():
        d = {k: (symbol if k in ("symbol", "card") else n if k in _COUNTS else v) for k, v in details.items()}
        text = SPEAKER.refusal(code, d)
        assert wrong_forms(text, markup=False) == [], (code, text)


def test_event_lines_agree_with_their_symbol_and_number() -> None:
    from engine.actions import MoveWay
    from engine.events import AlexanderMoved, FaceUpTurned, GuardsPlaced
    from tests.bot.wrong_forms import wrong_forms

    path = ((0, 1), (0, 2))
    moved = AlexanderMoved(0, MoveWay.NORMAL, Symbol.AMPHORA, SPACE, path, ((path[0], path[1]),), (), False)
    line = SPEAKER.event_line(moved)
    assert "an amphora space" in line and "1 new wall." in line, line
    up = SPEAKER.event_line(FaceUpTurned(0, Symbol.AMPHORA))
    assert up.startswith("An amphora"), up
    placed = SPEAKER.event_line(GuardsPlaced(0, 3, ((1, 1),)))
    assert "1 guard " in placed, placed
    for text in (line, up, placed):
        assert wrong_forms(text) == []


@pytest.mark.parametrize("code", sorted(set(ERROR_CODES) | BOT_CODES))
def test_every_refusal_says_what_to_do_or_what_is_allowed(code: str) -> None:
    from tests.bot.wrong_forms import no_way_forward, wrong_forms

    details = DETAILS.get(code, BOT_DETAILS)
    variants = [details]
    if code == "move/bad-path":
        variants.append({**details, "reason": "start", "alexander": (0, 1)})
    for d in variants:
        text = SPEAKER.refusal(code, d)
        assert not no_way_forward(text), f"{code}: no way forward in {text!r}"
        assert wrong_forms(text, markup=False) == [], (code, text)


def test_a_refusal_without_its_card_still_reads() -> None:
    from tests.bot.wrong_forms import wrong_forms

    for code, details in (
        ("move/not-in-hand", {"card": None}),
        ("levy/not-in-hand", {"card": None}),
        ("levy/card-not-matching", {"card": None, "allowed": ["horse"]}),
    ):
        text = SPEAKER.refusal(code, details)
        assert "a card card" not in text and "such card matches" not in text, text
        assert wrong_forms(text, markup=False) == [] and code not in text, text


def test_plurals_and_articles_are_made_by_one_helper() -> None:
    """words.count and words.a decide; no module makes its own "s" or "an" (issue 15)."""
    own = re.compile(r"""['"]s['"] if |['"]an ['"] if |\{['"]s['"] if""")
    bot = pathlib.Path(__file__).parents[2] / "bot"
    offenders = [
        f"{p.relative_to(bot)}:{i}"
        for p in sorted(bot.rglob("*.py"))
        if p.relative_to(bot).as_posix() != "words/words.py"
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if own.search(line)
    ]
    assert offenders == []
