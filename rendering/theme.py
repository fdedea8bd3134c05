"""The look of every picture as data: one palette and one table of sizes.

Colours are RGB tuples. Player colours follow the rules (red, yellow, blue, green) in shades after
Okabe-Ito, which stay apart for the common colour-vision deficiencies (tests/rendering/test_colour_blind.py
measures them); every player also has a shape (``PLAYER_MARKS``) so that guards can be told apart without
colour. Sizes are given for a 1600-px-wide picture and scaled with it; sizes named ``*_s`` are fractions of
a triangle's side.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from engine.symbols import Symbol

RGB = tuple[int, int, int]

# The shape drawn on each seat's guards, by seat (red, yellow, blue, green).
PLAYER_MARKS: tuple[str, ...] = ("circle", "square", "triangle", "diamond")


def mix(a: RGB, b: RGB, t: float) -> RGB:
    """``a`` moved a fraction ``t`` of the way towards ``b``."""
    return (
        round(a[0] + (b[0] - a[0]) * t),
        round(a[1] + (b[1] - a[1]) * t),
        round(a[2] + (b[2] - a[2]) * t),
    )


@dataclass(frozen=True)
class Palette:
    background: RGB = (244, 238, 224)
    panel: RGB = (250, 246, 236)
    panel_line: RGB = (196, 184, 158)
    ink: RGB = (28, 28, 32)
    muted: RGB = (110, 102, 92)
    white: RGB = (255, 255, 255)
    sea: RGB = (164, 200, 226)
    sea_line: RGB = (140, 178, 206)
    # Free land: a province nobody holds (R4.4). Dead land: a province nobody can occupy (R4.5, no symbol
    # space). Occupied provinces take their owner's tint (``tinted_land``).
    land: RGB = (236, 222, 182)
    dead_land: RGB = (200, 196, 186)
    grid: RGB = (194, 174, 134)
    ruler: RGB = (70, 62, 52)
    region: RGB = (120, 92, 60)
    wall: RGB = (22, 22, 26)
    red_wall: RGB = (200, 32, 32)
    # Alexander's last walk and other highlights: reddish purple is no player's colour.
    highlight: RGB = (204, 60, 160)
    target: RGB = (255, 255, 255)
    warning: RGB = (190, 30, 30)
    good: RGB = (0, 120, 80)
    players: tuple[RGB, ...] = ((213, 94, 0), (240, 200, 40), (0, 96, 180), (0, 158, 115))
    player_names: tuple[str, ...] = ("Red", "Yellow", "Blue", "Green")
    # The land of an occupied province, by owner. Chosen (not mixed) so that the tints stay apart from each
    # other, from free and dead land and from the sea under deuteranopia, protanopia and tritanopia as well
    # (tests/rendering/test_colour_blind.py states the distances).
    tints: tuple[RGB, ...] = ((214, 157, 71), (255, 202, 122), (108, 170, 245), (147, 178, 131))
    # Symbol fills in SYMBOLS order: temple, amphora, horse, lyre, soldier.
    symbols: tuple[RGB, ...] = (
        (250, 250, 246),
        (200, 100, 50),
        (128, 84, 52),
        (226, 176, 40),
        (120, 132, 150),
    )
    crest: RGB = (178, 34, 34)
    # Distinct path styles in the path preview: colour and dash pattern (dash, gap in px at 1600 wide).
    path_colours: tuple[RGB, ...] = (
        (0, 114, 178),
        (213, 94, 0),
        (0, 158, 115),
        (204, 60, 160),
        (86, 180, 233),
        (120, 80, 20),
    )

    def player(self, seat: int) -> RGB:
        return self.players[seat % len(self.players)]

    def symbol(self, symbol: Symbol) -> RGB:
        return self.symbols[symbol.ordinal]

    def tinted_land(self, seat: int) -> RGB:
        return self.tints[seat % len(self.tints)]

    def all_colours(self) -> list[RGB]:
        """Every colour the pictures use, for the fixed PNG palette."""
        out = [
            self.background,
            self.panel,
            self.panel_line,
            self.ink,
            self.muted,
            self.white,
            self.sea,
            self.sea_line,
            self.land,
            self.dead_land,
            self.grid,
            self.ruler,
            self.region,
            self.wall,
            self.red_wall,
            self.highlight,
            self.target,
            self.warning,
            self.good,
            self.crest,
        ]
        out += list(self.players) + [self.tinted_land(i) for i in range(len(self.players))]
        out += list(self.symbols) + list(self.path_colours)
        return out


@dataclass(frozen=True)
class Sizes:
    """Sizes at a 1600-px-wide picture. Every font is at least ``Layout.text``'s phone-readable minimum
    (44 px at 1600: 11 px when Discord shows the picture 400 px wide), so most text sizes here are that."""

    width: int = 1600
    # The most: landscape (at least 1.3 times as wide as high); a wide map gets a lower picture. Lower than
    # this and the map shrinks: every text has its phone-readable size, so the map needs the room.
    height: int = 1230
    min_height: int = 700
    panel_height: int = 250  # the band under the board
    legend_height: int = 58  # the board picture's legend line, under the band
    ruler: int = 50  # the margin that holds the point-label rulers (top and left)
    pad: int = 10
    ruler_font: int = 44
    region_font: int = 44
    badge_font: int = 44  # province ids and values
    point_font: int = 44  # destination letters and path numbers
    title_font: int = 48
    text_font: int = 44
    small_font: int = 44
    big_font: int = 56
    track_h: int = 8
    # Fractions of a triangle's side.
    wall_s: float = 0.11
    wall_min: int = 5
    halo_s: float = 0.065
    icon_s: float = 0.45
    guard_s: float = 0.22  # guards and Alexander (on a corner) never overlap: 0.22 + 0.25 < 1/2
    alexander_s: float = 0.25
    target_s: float = 0.2
    max_side: int = 120


@dataclass(frozen=True)
class Theme:
    palette: Palette = field(default_factory=Palette)
    sizes: Sizes = field(default_factory=Sizes)

    def __hash__(self) -> int:
        return self._hash

    @cached_property
    def _hash(self) -> int:
        # Kept: every band's and panel part's key holds the theme (rendering.pictures), and the generated
        # hash walked all its colours and sizes each time, 2 of a band key's 2.1 us.
        return hash((self.palette, self.sizes))

    @cached_property
    def png_palette(self) -> list[int]:
        """A fixed 256-colour palette: the theme's colours, their blends with ink, white and each other
        (antialiased edges), and a grey ramp. Quantizing to a fixed palette is fast and deterministic."""
        base = self.palette.all_colours()
        colours: list[RGB] = []
        for c in base:
            if c not in colours:
                colours.append(c)
        extra: list[RGB] = []
        anchors = [self.palette.ink, self.palette.white, self.palette.land, self.palette.panel]
        for c in list(colours):
            for a in anchors:
                for t in (0.33, 0.66):
                    extra.append(mix(c, a, t))
        extra += [(g, g, g) for g in range(0, 256, 17)]
        for c in extra:
            if c not in colours and len(colours) < 256:
                colours.append(c)
        flat: list[int] = []
        for c in colours:
            flat += c
        return flat + [0] * (768 - len(flat))


DEFAULT_THEME = Theme()
