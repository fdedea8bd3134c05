"""Every text of every picture is readable on a phone (at least 11 px high when the picture is shown 400 px
wide), and the confirm picture says what the move will do instead of asking for a choice.

Texts are recorded as Pillow draws them (``ImageDraw.text``), with their font's pixel size.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from PIL import ImageDraw, ImageFont

from engine import GameState, rules, view
from engine.state import Phase
from rendering import (
    render_board,
    render_end,
    render_hand,
    render_move_preview,
    render_path_preview,
    render_province_preview,
)
from rendering.board import region_sprite
from tests.rendering.games import first, game_states
from tests.rendering.test_golden import _mover as golden_mover

NAMES = ("Ana", "Jürgen", "Zoë Ж")
Drawn = list[tuple[str, int]]


@contextmanager
def recording(monkeypatch: pytest.MonkeyPatch) -> Iterator[Drawn]:
    drawn: Drawn = []
    real = ImageDraw.ImageDraw.text

    def text(self: ImageDraw.ImageDraw, xy: Any, text: Any, *args: Any, **kwargs: Any) -> None:
        f = kwargs.get("font")
        assert isinstance(f, ImageFont.FreeTypeFont), f"text {text!r} drawn without a sized font"
        drawn.append((str(text), round(f.size)))
        real(self, xy, text, *args, **kwargs)

    region_sprite.cache_clear()  # region names are drawn once, then pasted
    with monkeypatch.context() as m:
        m.setattr(ImageDraw.ImageDraw, "text", text)
        yield drawn


def _states() -> list[GameState]:
    return game_states(players=3, seed=5)


def _mover() -> GameState:
    return first(_states(), lambda s: s.turn > 6 and s.phase is Phase.MOVE and rules.can_move(s))


def _pictures(width: int) -> dict[str, Callable[[], bytes]]:
    s = _mover()
    mine = view(s, s.current)
    symbol = rules.move_choices(s)[0].symbol
    targets = rules.targets(s, symbol)
    corner = max((c for t in targets for c in t.corners), key=lambda c: (c.paths, c.point))
    paths = rules.path_options(s, corner.point)
    acting = first(_states(), lambda s: s.phase is Phase.ACTIONS and s.turn > 6)
    prov = max(acting.provinces, key=lambda p: (rules.province_value(acting, p), p.id))
    plan = rules.plan_occupation(acting, acting.current, prov)
    return {
        "board": lambda: render_board(view(s), NAMES, width),
        "end": lambda: render_end(view(_states()[-1]), NAMES, width),
        "hand": lambda: render_hand(mine, NAMES[s.current], width),
        "move": lambda: render_move_preview(mine, targets, symbol, NAMES, width),
        "paths": lambda: render_path_preview(mine, corner.point, paths, NAMES, width),
        "confirm": lambda: render_path_preview(mine, corner.point, paths[:1], NAMES, width, confirm=True),
        "province": lambda: render_province_preview(
            view(acting, acting.current), prov.id, plan, NAMES, width
        ),
    }


@pytest.mark.parametrize("width", [1600, 900])
@pytest.mark.parametrize("kind", ["board", "end", "hand", "move", "paths", "confirm", "province"])
def test_every_text_is_readable_on_a_phone(kind: str, width: int, monkeypatch: pytest.MonkeyPatch) -> None:
    with recording(monkeypatch) as drawn:
        _pictures(width)[kind]()
    assert len(drawn) >= 5, "the recorder saw no text"
    small = [(t, size) for t, size in drawn if size * 400 / width < 11]
    assert not small, f"{kind} at {width} px: text below 11 px at 400 px wide: {small[:5]}"


def _caption(monkeypatch: pytest.MonkeyPatch, draw: Callable[[], bytes]) -> str:
    with recording(monkeypatch) as drawn:
        draw()
    return " ".join(t for t, _ in drawn)


def test_the_confirm_picture_says_what_will_happen(monkeypatch: pytest.MonkeyPatch) -> None:
    s = _mover()
    mine = view(s, s.current)
    targets = rules.targets(s, rules.move_choices(s)[0].symbol)
    corner = targets[0].corners[0]
    chosen = rules.path_options(s, corner.point)[:1]
    choosing = _caption(monkeypatch, lambda: render_path_preview(mine, corner.point, chosen, NAMES))
    assert "choose a path" in choosing
    confirm = _caption(
        monkeypatch, lambda: render_path_preview(mine, corner.point, chosen, NAMES, confirm=True)
    )
    assert "choose" not in confirm
    assert "Confirm the move" in confirm
    walls = len(chosen[0].new_walls)
    assert f"Places {walls} black wall" in confirm or (walls == 0 and "Places no wall" in confirm)
    assert "ends the game" not in confirm and "ends" not in confirm


def test_a_game_ending_move_is_flagged_in_its_preview(monkeypatch: pytest.MonkeyPatch) -> None:
    s = _mover()
    mine = view(s, s.current)
    corner = rules.targets(s, rules.move_choices(s)[0].symbol)[0].corners[0]
    paths = rules.path_options(s, corner.point)
    ending = _caption(
        monkeypatch,
        lambda: render_path_preview(mine, corner.point, paths[:1], NAMES, confirm=True, ends_game=True),
    )
    assert "This move ends" in ending and "the game." in ending
    listing = _caption(
        monkeypatch, lambda: render_path_preview(mine, corner.point, paths, NAMES, ends_game=True)
    )
    assert "It ends the game." in listing


def test_the_confirm_form_counts_red_walls_when_black_ones_run_short(monkeypatch: pytest.MonkeyPatch) -> None:
    from dataclasses import replace

    s = _mover()
    corner = max(
        (c for t in rules.targets(s, rules.move_choices(s)[0].symbol) for c in t.corners),
        key=lambda c: c.most_walls,
    )
    path = max(rules.path_options(s, corner.point), key=lambda p: len(p.new_walls))
    walls = len(path.new_walls)
    assert walls >= 2, "the test needs a path with at least two new walls"
    short = replace(view(s, s.current), black_left=walls - 1)  # R3.6: one red wall
    text = _caption(
        monkeypatch, lambda: render_path_preview(short, corner.point, [path], NAMES, confirm=True)
    )
    assert f"Places {walls - 1} black wall" in text and "and 1 red wall" in text
    none_left = replace(short, black_left=0)
    text = _caption(
        monkeypatch, lambda: render_path_preview(none_left, corner.point, [path], NAMES, confirm=True)
    )
    assert f"Places {walls} red walls" in text and "black wall" not in text
    # R3.7: no move fits, and the walls left are placed, no more: one black wall and no red one.
    last = replace(short, black_left=1, red_left=0)
    text = _caption(monkeypatch, lambda: render_path_preview(last, corner.point, [path], NAMES, confirm=True))
    assert "Places 1 black wall" in text and "red wall" not in text


def test_the_confirm_form_shows_one_path_only() -> None:
    s = _mover()
    corner = rules.targets(s, rules.move_choices(s)[0].symbol)[0].corners[0]
    paths = rules.path_options(s, corner.point)
    with pytest.raises(ValueError, match="one chosen path"):
        render_path_preview(view(s, s.current), corner.point, [], NAMES, confirm=True)
    if len(paths) > 1:
        with pytest.raises(ValueError, match="one chosen path"):
            render_path_preview(view(s, s.current), corner.point, paths, NAMES, confirm=True)


def test_r10_3_the_end_picture_ranks_the_players_still_in_first_and_marks_who_resigned(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The leader resigns, then another player: the last one in wins (R10.3). The ranking read
    '1. leader 2. … 3. ★ winner'; the winner now comes first, the resigned players after, marked."""
    from engine import apply
    from engine.actions import Resign

    s = first(_states(), lambda s: not s.over and len({p.score for p in s.players}) == 3 and s.turn > 8)
    leader = max(range(3), key=lambda i: s.players[i].score)
    others = [i for i in range(3) if i != leader]
    s = apply(s, Resign(leader))[0]
    s = apply(s, Resign(others[0]))[0]
    assert s.over and s.result is not None and s.result.winners == (others[1],)
    text = _caption(monkeypatch, lambda: render_end(view(s), NAMES))
    winner = text.index(f"★ {NAMES[others[1]]}")
    assert winner < text.index(f"{NAMES[leader]} (resigned)")
    assert winner < text.index(f"{NAMES[others[0]]} (resigned)")
    assert text.index("1.") < winner < text.index("2.")


def test_r3_5_the_path_legend_gives_every_numbered_paths_walls(monkeypatch: pytest.MonkeyPatch) -> None:
    """R3.5: each path numbered on the map has its new walls in the legend. With 15 paths the legend held
    7 ("5 walls" each) and "… 8 more", and paths 8-15 place 6: a player read it as 15 equal paths. Paths
    that place as many walls now share one entry ("8 – 15  6 walls")."""
    s = golden_mover()  # the path preview golden's position: a corner with 15 paths
    symbols = sorted({c.symbol for c in rules.move_choices(s)})
    options = [c for y in symbols for t in rules.targets(s, y) for c in t.corners]
    corner = max(options, key=lambda c: (c.paths, c.point))
    paths = rules.path_options(s, corner.point)
    counts = [len(p.new_walls) for p in paths]
    assert len(paths) == 15 and len(set(counts)) > 1
    mine = view(s, s.current)
    for width in (1200, 900):
        text = _caption(monkeypatch, lambda w=width: render_path_preview(mine, corner, paths, NAMES, w))
        assert "more" not in text
        for walls in set(counts):
            assert f"{walls} walls" in text
        last_of = {w: max(i for i, c in enumerate(counts) if c == w) + 1 for w in counts}
        for walls, last in last_of.items():
            first_ = counts.index(walls) + 1
            assert f"{first_} – {last} {walls} walls" in text or first_ == last
    # A few paths keep one entry each, with its line's sample.
    few = _caption(monkeypatch, lambda: render_path_preview(mine, corner, paths[:3], NAMES))
    assert "–" not in few and few.count(f"{counts[0]} walls") == 3
