"""Golden images: one per kind of picture, from a fixed test map and a seeded game.

Compared with a small tolerance, since font rasterising may differ by a few pixels between FreeType
builds. After an intended change of the look, regenerate them with ``pytest --update-goldens`` and look at
every picture in tests/rendering/golden/ before committing.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest
from PIL import Image, ImageChops

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
from tests.rendering.games import first, game_states

GOLDEN = Path(__file__).parent / "golden"
WIDTH = 1200
NAMES = ("Ana", "Jürgen", "Zoë Ж")
# A pixel counts as changed when its channels differ by more than this in sum...
PIXEL_TOLERANCE = 48
# ...and a picture matches when at most this fraction of its pixels changed.
CHANGED_FRACTION = 0.003


@cache
def _states() -> list[GameState]:
    return game_states(players=3, seed=5)


def _mid() -> GameState:
    return first(
        _states(),
        lambda s: (
            s.phase is Phase.ACTIONS
            and s.last_move is not None
            and sum(bool(p.guards) for p in s.players) >= 2
        ),
    )


def _mover() -> GameState:
    mid = _mid()
    return first(_states(), lambda s: s.version > mid.version and s.phase is Phase.MOVE and rules.can_move(s))


def _move_preview() -> bytes:
    s = _mover()
    symbol = max(sorted({c.symbol for c in rules.move_choices(s)}), key=lambda y: len(rules.targets(s, y)))
    return render_move_preview(view(s, s.current), rules.targets(s, symbol), symbol, NAMES, WIDTH)


def _path_preview() -> bytes:
    s = _mover()
    options = [
        c
        for y in sorted({c.symbol for c in rules.move_choices(s)})
        for t in rules.targets(s, y)
        for c in t.corners
    ]
    corner = max(options, key=lambda c: (c.paths, c.point))
    return render_path_preview(view(s, s.current), corner, rules.path_options(s, corner.point), NAMES, WIDTH)


def _province_preview(take_over: bool) -> bytes:
    def wanted(s: GameState) -> bool:
        if s.phase is not Phase.ACTIONS:
            return False
        owners = [rules.province_owner(s, p) for p in s.provinces]
        return (
            any(o not in (None, s.current) for o in owners)
            if take_over
            else any(
                o is None and rules.province_symbol_spaces(s, p)
                for o, p in zip(owners, s.provinces, strict=True)
            )
        )

    s = first(_states(), wanted)
    owner = rules.province_owner
    pool = [
        p
        for p in s.provinces
        if (owner(s, p) not in (None, s.current) if take_over else owner(s, p) is None)
        and rules.province_symbol_spaces(s, p)
    ]
    prov = max(pool, key=lambda p: (rules.province_value(s, p), p.id))
    plan = rules.plan_occupation(s, s.current, prov)
    return render_province_preview(view(s, s.current), prov.id, plan, NAMES, WIDTH)


def _hand() -> bytes:
    s = first(_states(), lambda s: sum(1 for n in s.players[s.current].hand if n) >= 3)
    return render_hand(view(s, s.current), NAMES[s.current], WIDTH)


PICTURES: dict[str, Callable[[], bytes]] = {
    "board-start": lambda: render_board(view(_states()[0]), NAMES, WIDTH),
    "board-mid": lambda: render_board(view(_mid()), NAMES, WIDTH),
    "move-preview": _move_preview,
    "path-preview": _path_preview,
    "province-occupy": lambda: _province_preview(take_over=False),
    "province-take-over": lambda: _province_preview(take_over=True),
    "hand": _hand,
    "end": lambda: render_end(view(_states()[-1]), NAMES, WIDTH),
}


def changed_fraction(a: Image.Image, b: Image.Image) -> float:
    """The fraction of pixels whose colour differs by more than PIXEL_TOLERANCE (summed over channels)."""
    diff = ImageChops.difference(a.convert("RGB"), b.convert("RGB"))
    r, g, bl = diff.split()
    total = ImageChops.add(ImageChops.add(r, g), bl)  # saturates at 255, which is above the tolerance
    hist = total.histogram()
    return sum(hist[PIXEL_TOLERANCE + 1 :]) / (a.width * a.height)


@pytest.mark.parametrize("name", sorted(PICTURES))
def test_picture_matches_golden(name: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    png = PICTURES[name]()
    golden = GOLDEN / f"{name}.png"
    if request.config.getoption("--update-goldens"):
        GOLDEN.mkdir(exist_ok=True)
        golden.write_bytes(png)
        return
    assert golden.exists(), f"{golden} is missing: run pytest --update-goldens and look at it"
    actual = Image.open(io.BytesIO(png))
    expected = Image.open(golden)
    assert actual.size == expected.size, f"{name}: size {actual.size} != golden {expected.size}"
    fraction = changed_fraction(actual, expected)
    if fraction > CHANGED_FRACTION:
        out = tmp_path / f"{name}.png"
        out.write_bytes(png)
        pytest.fail(
            f"{name}: {fraction:.2%} of pixels differ from the golden image; the new picture is {out}"
        )


def test_the_comparison_sees_a_real_change() -> None:
    a = Image.open(io.BytesIO(render_board(view(_states()[0]), NAMES, WIDTH)))
    b = Image.open(io.BytesIO(render_board(view(_mid()), NAMES, WIDTH)))
    assert changed_fraction(a, a) == 0
    assert changed_fraction(a, b) > CHANGED_FRACTION
