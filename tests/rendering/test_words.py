"""The words drawn in pictures come from a ``Words`` value (issue 16, item 7): every one of them, in every
kind of picture; ``MESSAGES`` lists exactly what Babel extracts from rendering/; a ``Words`` pickles, falls
back to English, and follows its language's plural rule."""

from __future__ import annotations

import pickle
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

import pytest
from babel.messages.extract import extract_from_dir
from PIL import ImageDraw

from engine import GameState, rules, view
from engine.state import Phase
from rendering import (
    RenderRequest,
    Words,
    render_board,
    render_end,
    render_hand,
    render_move_preview,
    render_path_preview,
    render_province_preview,
    render_request,
)
from rendering.board import region_sprite
from rendering.replay import render_replay
from rendering.words import ENGLISH, MESSAGES, key
from tests.rendering.games import first, game_states
from tools import catalogs

NAMES = ("Ana", "Jürgen", "Zoë")
MARK = "Ŧ"  # starts every line of a pseudo-translation, so a line drawn without it was not translated


def pseudo() -> Words:
    """Every message of rendering "translated": its English with MARK before each line."""

    def mark(text: str) -> str:
        return MARK + text.replace("\n", "\n" + MARK)

    texts: dict[str, str] = {}
    plurals: dict[str, tuple[str, ...]] = {}
    for context, message in MESSAGES:
        if isinstance(message, tuple):
            plurals[message[0]] = (mark(message[0]), mark(message[1]))
        else:
            texts[key(message, context)] = mark(message)
    return Words(texts, plurals, "(n != 1)", "xx")


@contextmanager
def recording(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    drawn: list[str] = []
    real = ImageDraw.ImageDraw.text

    def text(self: ImageDraw.ImageDraw, xy: Any, text: Any, *args: Any, **kwargs: Any) -> None:
        drawn.append(str(text))
        real(self, xy, text, *args, **kwargs)

    region_sprite.cache_clear()
    with monkeypatch.context() as m:
        m.setattr(ImageDraw.ImageDraw, "text", text)
        yield drawn


def _states() -> list[GameState]:
    return game_states(players=3, seed=5)


def _pictures(words: Words) -> dict[str, Callable[[], bytes]]:
    """Every kind of picture, with captions of every kind: resigned players, red walls, a game-ending move,
    an occupation that is not possible and one that is."""
    states = _states()
    s = first(states, lambda s: s.turn > 6 and s.phase is Phase.MOVE and rules.can_move(s))
    mine = view(s, s.current)
    symbol = rules.move_choices(s)[0].symbol
    targets = rules.targets(s, symbol)
    corner = max((c for t in targets for c in t.corners), key=lambda c: (c.most_walls, c.point))
    paths = rules.path_options(s, corner.point)
    path = max(paths, key=lambda p: len(p.new_walls))
    short = replace(mine, black_left=max(0, len(path.new_walls) - 1))  # R3.6: red walls too
    acting = first(states, lambda s: s.phase is Phase.ACTIONS and s.turn > 6 and len(s.actions_taken) == 1)
    prov = max(acting.provinces, key=lambda p: (rules.province_value(acting, p), p.id))
    plan = rules.plan_occupation(acting, acting.current, prov)
    over = view(states[-1])
    resigned = replace(
        view(acting), players=tuple(replace(p, resigned=p.seat == 1) for p in view(acting).players)
    )
    width = 900
    return {
        "board": lambda: render_board(view(acting), NAMES, width, words=words),
        "board, resigned and unnamed": lambda: render_board(resigned, (), width, words=words),
        "end": lambda: render_end(over, NAMES, width, words=words),
        "hand": lambda: render_hand(mine, "", width, words=words),
        "move": lambda: render_move_preview(mine, targets, symbol, NAMES, width, words=words),
        "move, nowhere": lambda: render_move_preview(mine, [], symbol, NAMES, width, words=words),
        "paths": lambda: render_path_preview(
            mine, corner.point, paths, NAMES, width, ends_game=True, words=words
        ),
        "confirm": lambda: render_path_preview(
            short, corner.point, [path], NAMES, width, confirm=True, ends_game=True, words=words
        ),
        "province": lambda: render_province_preview(
            view(acting, acting.current), prov.id, plan, NAMES, width, words=words
        ),
        "province, not possible": lambda: render_province_preview(
            view(acting, acting.current), prov.id, None, NAMES, width, words=words
        ),
    }


def _translated(text: str) -> bool:
    return text.lstrip("▶★ ").startswith(MARK)


def _not_a_message(text: str) -> bool:
    """Names, region names, point and province labels, numbers and counts: what no catalog translates."""
    bare = text.strip("▶★ ")
    return (
        bare == ""  # a marker
        or bare in NAMES
        or bare.rstrip("…") in {n[: len(bare) - 1] for n in NAMES}
        or re.fullmatch(r"[A-Z ]+|[A-Z]{1,2}\d*|P\d+|\d+\.?|×\d+|…|[\d–]+", bare) is not None
    )


@pytest.mark.parametrize("kind", list(_pictures(ENGLISH)))
def test_every_word_drawn_comes_from_the_words_given(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with recording(monkeypatch) as drawn:
        _pictures(pseudo())[kind]()
    assert len(drawn) >= 3, "the recorder saw no text"
    untranslated = [t for t in drawn if not _translated(t) and not _not_a_message(t)]
    assert not untranslated, f"{kind}: drawn without the catalogs: {untranslated}"
    assert any(t.startswith(MARK) for t in drawn)


def test_english_is_the_default_and_draws_the_same_picture() -> None:
    for kind, draw in _pictures(Words()).items():
        assert draw() == _pictures(ENGLISH)[kind](), kind
    s = _states()[40]
    assert render_board(view(s), NAMES, 640) == render_board(view(s), NAMES, 640, words=Words())


def test_the_messages_are_what_babel_extracts_from_rendering() -> None:
    extracted = {
        (context, message)
        for _, _, message, _, context in extract_from_dir(
            catalogs.ROOT / "rendering", method_map=[("**.py", "python")], keywords=catalogs.KEYWORDS
        )
    }
    assert extracted == set(MESSAGES), (
        f"not listed: {extracted - set(MESSAGES)}; stale: {set(MESSAGES) - extracted}"
    )
    assert len(MESSAGES) == len(set(MESSAGES))


def test_words_fall_back_to_english_and_follow_their_plural_rule() -> None:
    assert ENGLISH.tr("Walls") == "Walls"
    assert ENGLISH.ntr("{n} wall", "{n} walls", 1) == "{n} wall"
    assert ENGLISH.ntr("{n} wall", "{n} walls", 0) == "{n} walls"
    assert ENGLISH.ptr("symbol", "temple") == "temple"
    # A rule with three forms (as Polish has): 1; 2-4 (not 12-14); the rest.
    rule = "(n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2)"
    pl = Words(
        {key("temple", "symbol"): "świątynia"}, {"{n} wall": ("{n} mur", "{n} mury", "{n} murów")}, rule, "pl"
    )
    forms = [pl.ntr("{n} wall", "{n} walls", n).format(n=n) for n in (1, 2, 5, 12, 22)]
    assert forms == ["1 mur", "2 mury", "5 murów", "12 murów", "22 mury"]
    assert pl.ptr("symbol", "temple") == "świątynia" and pl.tr("temple") == "temple"  # context matters
    assert pl.tr("Walls") == "Walls" and pl.ntr("{n} card", "{n} cards", 5) == "{n} cards"  # missing: English


def test_words_pickle_with_a_request_and_draw_the_same_picture() -> None:
    words = pseudo()
    assert pickle.loads(pickle.dumps(words)) == words
    assert hash(pickle.loads(pickle.dumps(words))) == hash(words)
    s = _states()[40]
    req = RenderRequest.board(view(s), NAMES, 640, words=words)
    back = pickle.loads(pickle.dumps(req))
    assert back == req and back.words == words
    assert render_request(back) == render_board(view(s), NAMES, 640, words=words)
    assert render_request(back) != render_board(view(s), NAMES, 640)


def test_a_replay_speaks_its_words(monkeypatch: pytest.MonkeyPatch) -> None:
    frames = [view(s) for s in _states()[::200]] + [view(_states()[-1])]
    with recording(monkeypatch) as drawn:
        render_replay(frames, NAMES, widths=(340,), words=pseudo())
    assert any(t.startswith(MARK + "Turn") for t in drawn) and any(t == MARK + "Game over" for t in drawn)
    assert not [t for t in drawn if not _translated(t) and not _not_a_message(t)]
