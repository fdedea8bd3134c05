"""Colour-blind safety: the players' colours, and the tints of the provinces they hold, stay apart under
simulated deuteranopia, protanopia and tritanopia (Machado et al. 2009 at full severity), as well as for
normal vision.

Distances are CIEDE2000 ΔE (tests/rendering/colour_vision.py). About 2 is the smallest difference people
notice side by side; the thresholds below ask for differences that are obvious at a glance:
- ``MARKS`` (15) for small marks in a player's colour: guards, badges' value chips, score bars, panel marks.
  They are told apart from each other and from what they are drawn on: the white rim of a guard, the white
  of a score bar, the panel, and the ink that borders every badge. (They also differ in shape.)
- ``AREAS`` (10) for land: the tints of occupied provinces between each other and against free land, dead
  land and the sea. Areas are large, bounded by walls and carry their owner's badge, so a smaller
  difference still reads.
- ``LAND`` (8) between free land and dead land (R4.4, R4.5).
"""

from __future__ import annotations

from itertools import combinations

import pytest

from rendering.theme import DEFAULT_THEME
from tests.rendering.colour_vision import MACHADO_2009, ciede2000, distance, lab, simulate

VISIONS = ["normal", *MACHADO_2009]
MARKS = 15.0
AREAS = 10.0
LAND = 8.0
PAL = DEFAULT_THEME.palette
SEATS = range(4)


@pytest.mark.parametrize("vision", VISIONS)
def test_player_colours_stay_apart(vision: str) -> None:
    for a, b in combinations(SEATS, 2):
        d = distance(PAL.player(a), PAL.player(b), vision)
        assert d >= MARKS, f"{vision}: seats {a} and {b} are only ΔE {d:.1f} apart"


@pytest.mark.parametrize("vision", VISIONS)
def test_player_colours_stand_out_on_what_they_are_drawn_on(vision: str) -> None:
    for seat in SEATS:
        for name, surface in (("white", PAL.white), ("panel", PAL.panel), ("ink", PAL.ink)):
            d = distance(PAL.player(seat), surface, vision)
            assert d >= MARKS, f"{vision}: seat {seat} on {name} is only ΔE {d:.1f}"


@pytest.mark.parametrize("vision", VISIONS)
def test_province_tints_stay_apart_and_off_free_land_dead_land_and_sea(vision: str) -> None:
    tints = [PAL.tinted_land(seat) for seat in SEATS]
    assert len(set(tints)) == 4
    for a, b in combinations(SEATS, 2):
        d = distance(tints[a], tints[b], vision)
        assert d >= AREAS, f"{vision}: the tints of seats {a} and {b} are only ΔE {d:.1f} apart"
    for seat, tint in enumerate(tints):
        for name, land in (("free land", PAL.land), ("dead land", PAL.dead_land), ("sea", PAL.sea)):
            d = distance(tint, land, vision)
            assert d >= AREAS, f"{vision}: seat {seat}'s tint and {name} are only ΔE {d:.1f} apart"


@pytest.mark.parametrize("vision", VISIONS)
def test_free_land_and_dead_land_differ(vision: str) -> None:
    assert distance(PAL.land, PAL.dead_land, vision) >= LAND


def test_ciede2000_matches_published_values() -> None:
    # Sharma, Wu and Dalal (2005), test data pairs 1, 2 and 17.
    assert ciede2000((50, 2.6772, -79.7751), (50, 0, -82.7485)) == pytest.approx(2.0425, abs=1e-4)
    assert ciede2000((50, 3.1571, -77.2803), (50, 0, -82.7485)) == pytest.approx(2.8615, abs=1e-4)
    assert ciede2000((50, 2.5, 0), (73, 25, -18)) == pytest.approx(27.1492, abs=1e-4)


def test_the_simulation_changes_what_it_should() -> None:
    # Red and green, far apart for normal vision, fall together for the red-green deficiencies; white stays.
    red, green = (220, 40, 40), (60, 160, 60)
    assert distance(red, green, "normal") > 40
    assert distance(red, green, "deuteranopia") < 20
    assert distance(red, green, "protanopia") < 25
    assert lab(simulate((255, 255, 255), "tritanopia"))[0] == pytest.approx(100, abs=0.5)
