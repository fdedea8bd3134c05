"""rendering.png: PNG files written band by band, bands reused by content. The pixels must be exactly the
picture's, the file a valid PNG any decoder reads (zlib checks the Adler-32 of the whole stream), and a band
reused only when its pixels are the same."""

from __future__ import annotations

import hashlib
import io
import os
import random
import struct
import zlib

import pytest
from PIL import Image

from engine.maps import load_map
from engine.views import view
from rendering.pictures import board_picture, encode, encode_pillow, quantized
from rendering.png import ROWS, BandCache, adler32_combine, palette_png
from rendering.samples import play

MAP = "tests/engine/maps/empire-2026.map"


def chunks(png: bytes) -> list[tuple[bytes, bytes]]:
    """(type, data) of every chunk, each CRC checked."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    out, at = [], 8
    while at < len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        kind, data = png[at + 4 : at + 8], png[at + 8 : at + 8 + length]
        (crc,) = struct.unpack(">I", png[at + 8 + length : at + 12 + length])
        assert crc == zlib.crc32(kind + data), kind
        out.append((kind, data))
        at += 12 + length
    return out


def decoded(png: bytes) -> Image.Image:
    im = Image.open(io.BytesIO(png))
    im.load()
    return im


def test_adler32_combine_is_zlibs() -> None:
    rng = random.Random(5)
    for _ in range(200):
        a = os.urandom(rng.randrange(0, 3000))
        b = os.urandom(rng.randrange(0, 70000))
        assert adler32_combine(zlib.adler32(a), zlib.adler32(b), len(b)) == zlib.adler32(a + b)


def test_a_game_of_boards_decodes_to_exactly_its_pixels() -> None:
    """Every board of a game, one after the other (later ones reuse bands of earlier ones), through Pillow
    and through zlib, which also checks the stream's Adler-32."""
    game = play(load_map(MAP), players=3, seed=7)
    cache = BandCache()
    for state in game.states[:25]:
        q = quantized(board_picture(view(state), width=640))
        png = palette_png(q, 3, cache)
        back = decoded(png)
        assert back.mode == "P" and back.size == q.size
        assert back.tobytes() == q.tobytes()
        assert back.convert("RGB").tobytes() == q.convert("RGB").tobytes()
        kinds = [k for k, _ in chunks(png)]
        assert kinds == [b"IHDR", b"PLTE", b"IDAT", b"IEND"]
        idat = b"".join(d for k, d in chunks(png) if k == b"IDAT")
        w, h = q.size
        rows = zlib.decompress(idat)  # raises on a bad stream or a wrong Adler-32
        assert rows == b"".join(b"\x00" + q.tobytes()[y * w : (y + 1) * w] for y in range(h))
    assert cache.hits > cache.misses  # consecutive boards share most of their bands


def test_a_band_is_reused_only_for_the_same_pixels() -> None:
    """Two pictures that differ in one pixel: every band but that pixel's is reused, and the changed band
    shows the new pixel."""
    base = Image.new("P", (100, 4 * ROWS), 3)
    base.putpalette([i % 256 for i in range(768)])
    cache = BandCache()
    first = palette_png(base, 3, cache)
    assert (cache.hits, cache.misses) == (3, 1)  # four bands of the same pixels: compressed once
    changed = base.copy()
    changed.putpixel((50, 2 * ROWS + 5), 7)
    misses = cache.misses
    second = palette_png(changed, 3, cache)
    assert cache.misses == misses + 1
    assert decoded(first).getpixel((50, 2 * ROWS + 5)) == 3
    assert decoded(second).getpixel((50, 2 * ROWS + 5)) == 7
    assert decoded(second).tobytes() == changed.tobytes()


def test_issue_32_a_band_unchanged_at_its_height_is_not_hashed_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """A band with the very pixels of the last band at its height is taken without its SHA-256 (compared
    byte by byte); a changed one is hashed, and every file decodes to exactly its picture's pixels."""
    hashed: list[bytes] = []
    real = hashlib.sha256

    def counting(data: bytes) -> object:
        hashed.append(data)
        return real(data)

    monkeypatch.setattr(hashlib, "sha256", counting)
    cache = BandCache()
    rng = random.Random(3)
    base = Image.frombytes("P", (40, 4 * ROWS), bytes(rng.randrange(256) for _ in range(40 * 4 * ROWS)))
    base.putpalette(list(range(256)) * 3)
    assert decoded(palette_png(base, 3, cache)).tobytes() == base.tobytes()
    assert len(hashed) == 4
    changed = base.copy()
    changed.putpixel((5, ROWS + 2), (base.getpixel((5, ROWS + 2)) + 1) % 256)  # type: ignore[operator]
    assert decoded(palette_png(changed, 3, cache)).tobytes() == changed.tobytes()
    assert len(hashed) == 5, "only the changed band is hashed"
    assert decoded(palette_png(base, 3, cache)).tobytes() == base.tobytes()  # back: found by its hash
    assert len(hashed) == 6
    cache.clear()
    assert decoded(palette_png(base, 3, cache)).tobytes() == base.tobytes()
    assert len(hashed) == 10, "a cleared cache keeps no band's pixels"


def test_widths_and_levels_do_not_share_bands() -> None:
    """The same bytes at another width are other rows; another level is another compression."""
    cache = BandCache()
    pixels = os.urandom(64 * ROWS * 2)
    a = Image.frombytes("P", (64, ROWS * 2), pixels)
    b = Image.frombytes("P", (128, ROWS), pixels)
    for im in (a, b):
        im.putpalette(list(range(256)) * 3)
    assert decoded(palette_png(a, 3, cache)).tobytes() == a.tobytes()
    assert decoded(palette_png(b, 3, cache)).tobytes() == b.tobytes()
    assert decoded(palette_png(b, 1, cache)).tobytes() == b.tobytes()
    assert cache.hits == 0


def test_the_cache_is_bounded() -> None:
    cache = BandCache(size=8)
    rng = random.Random(1)
    for _ in range(5):
        im = Image.frombytes("P", (32, ROWS * 6), bytes(rng.randrange(256) for _ in range(32 * ROWS * 6)))
        im.putpalette(list(range(256)) * 3)
        assert decoded(palette_png(im, 3, cache)).tobytes() == im.tobytes()
    assert len(cache) == 8


def test_only_palette_pictures() -> None:
    with pytest.raises(ValueError):
        palette_png(Image.new("RGB", (4, 4)), 3)


def test_the_boards_encoding_matches_pillows_pixels_and_size() -> None:
    """The bot's encoding and Pillow's writer give the same pixels, in a file at most 15 % larger."""
    game = play(load_map(MAP), players=4, seed=11)
    im = board_picture(view(game.states[len(game.states) // 2]))
    ours, pillows = encode(im), encode_pillow(im)
    assert decoded(ours).tobytes() == decoded(pillows).tobytes()
    assert len(ours) <= 1.15 * len(pillows)


@pytest.mark.parametrize(("players", "seed", "width"), [(3, 7, 1280), (4, 11, 640), (2, 3, 1000)])
def test_a_board_kept_from_before_gives_the_same_file_as_one_drawn_afresh(
    players: int, seed: int, width: int
) -> None:
    """render_board reuses the board above the panel when the pieces did not move: on every state of a game
    its file is byte for byte the file of the whole picture drawn and encoded afresh (nothing kept), its
    pixels are the picture's, and the reuse happens (a card taken, a levy, a turn ended)."""
    from rendering.pictures import BOARDS, render_board

    BOARDS.clear()
    names = ["Ada", "Bo", "Cy", "Di"][:players]
    states = play(load_map(MAP), players=players, seed=seed).states[:80]
    kept = [render_board(view(state), names, width) for state in states]
    assert BOARDS.hits > 10 and BOARDS.misses > 10
    for state, data in zip(states, kept, strict=True):
        v = view(state)
        BOARDS.clear()
        assert render_board(v, names, width) == data
        with Image.open(io.BytesIO(data)) as got:
            assert got.tobytes() == quantized(board_picture(v, names, width)).tobytes()


@pytest.mark.parametrize(("players", "seed", "width"), [(4, 5, 1280), (3, 9, 800), (4, 6, 640)])
def test_the_panels_kept_parts_give_the_pixels_of_the_panel_drawn_whole(
    players: int, seed: int, width: int
) -> None:
    """render_board draws only the panel's parts whose facts changed (rendering.panel.board_panel_parts)
    and pastes the others' kept pixels: on every state of a whole game (face-up cards taken and refilled,
    levies, turns, the end) its pixels are those of the picture drawn whole at once, and parts are reused."""
    from rendering.pictures import PANEL_PARTS, render_board

    PANEL_PARTS.clear()
    names = ["Ada", "Bo", "Cy", "Di"][:players]
    states = play(load_map(MAP), players=players, seed=seed).states
    for state in states:
        v = view(state)
        with Image.open(io.BytesIO(render_board(v, names, width))) as got:
            assert got.tobytes() == quantized(board_picture(v, names, width)).tobytes()
    assert PANEL_PARTS.hits > len(states)


def test_a_players_row_is_kept_in_three_parts_and_a_hand_that_changed_redraws_its_own_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A player's row is three parts (name and score, guards, hand, R2.5's public hand size): a board whose
    only change is one player's hand size draws that part alone, and gives the pixels drawn whole."""
    import dataclasses

    from rendering.pictures import BOARDS, PANEL_PARTS, render_board

    names = ["Ada", "Bo", "Cy"]
    v = view(play(load_map(MAP), players=3, seed=8).states[30])
    render_board(v, names, 1280)
    players = list(v.players)
    players[1] = dataclasses.replace(players[1], hand_size=players[1].hand_size + 1)
    changed = dataclasses.replace(v, players=tuple(players))
    BOARDS.clear()
    drawn: list[tuple[object, ...]] = []
    put = PANEL_PARTS.put
    monkeypatch.setattr(PANEL_PARTS, "put", lambda key, pixels: (drawn.append(key), put(key, pixels)))
    with Image.open(io.BytesIO(render_board(changed, names, 1280))) as got:
        assert got.tobytes() == quantized(board_picture(changed, names, 1280)).tobytes()
    facts = [key[5:] for key in drawn]  # after the map, layout, theme, words and box
    assert facts == [("hand", 1, players[1].hand_size, False, False, facts[0][-1])], facts


def test_with_many_games_at_once_a_games_lasting_panel_parts_are_kept_for_its_next_board(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The panel's parts are kept by their bytes (``PANEL_PARTS``), so that parts of many games at once do
    not push out a game's lasting ones. 80 games in turn (each its own players and position), then each
    game's next board on the same position: no player's name part is drawn again (one cache of 256 parts
    forgot them, when the turn's column was one part, new with nearly every action)."""
    from rendering.pictures import PANEL_PARTS, render_board

    states = [s for seed in (31, 32) for s in play(load_map(MAP), players=3, seed=seed).states[1:41]]
    games = [(view(s), [f"Ada {i}", f"Bo {i}", f"Cy {i}"]) for i, s in enumerate(states)]
    PANEL_PARTS.clear()
    for v, names in games:
        render_board(v, names, 1280)
    drawn: list[tuple[object, ...]] = []
    put = PANEL_PARTS.put
    monkeypatch.setattr(PANEL_PARTS, "put", lambda key, pixels: (drawn.append(key), put(key, pixels)))
    for v, names in games:
        render_board(v, names, 1280)
    assert [key for key in drawn if key[5] == "name"] == []


def _changed_bands(before: bytes, after: bytes, cut: int) -> list[int]:
    """The bands from the cut down (by index, ``ROWS`` rows each) whose pixels differ between two boards."""
    with Image.open(io.BytesIO(before)) as a, Image.open(io.BytesIO(after)) as b:
        width, height = a.size
        pa, pb = a.tobytes(), b.tobytes()
    step = ROWS * width
    return [
        (top - cut) // ROWS
        for top in range(cut, height, ROWS)
        if pa[top * width : top * width + step] != pb[top * width : top * width + step]
    ]


def _bands_across(box: tuple[float, float, float, float], cut: int, height: int) -> list[int]:
    """The bands from the cut down (by index) that a part's ``box`` lies across."""
    return [(top - cut) // ROWS for top in range(cut, height, ROWS) if box[1] < top + ROWS and box[3] > top]


def test_a_games_next_panel_pastes_its_changed_parts_and_compresses_only_the_bands_they_changed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A game's next board starts from the panel its last board showed (``LAST_PANELS``): the same board
    again neither assembles, hashes nor compresses any band; a board whose one change is a player's hand
    size compresses exactly the bands whose pixels that changed, all of them across that hand's part, and
    its pixels are those drawn whole."""
    import dataclasses

    import rendering.pictures as P
    from rendering.layout import layout
    from rendering.panel import board_panel_parts, panel_split

    names = ["Ada", "Bo", "Cy"]
    v = view(play(load_map(MAP), players=3, seed=8).states[30])
    P.LAST_PANELS.clear()
    first = P.render_board(v, names, 1280)
    looked: list[int] = []
    squeezed: list[bytes] = []
    band, squeeze = P.BANDS.band, P.compressed
    monkeypatch.setattr(P.BANDS, "band", lambda px, *rest: (looked.append(len(px)), band(px, *rest))[1])
    monkeypatch.setattr(P, "compressed", lambda px, *rest: (squeezed.append(px), squeeze(px, *rest))[1])
    monkeypatch.setattr(P, "_panel_pixels", None)  # nothing assembled
    assert P.render_board(v, names, 1280) == first
    assert looked == [] and squeezed == []
    players = list(v.players)
    players[1] = dataclasses.replace(players[1], hand_size=players[1].hand_size + 1)
    changed = dataclasses.replace(v, players=tuple(players))
    after = P.render_board(changed, names, 1280)
    with Image.open(io.BytesIO(after)) as got:
        assert got.tobytes() == quantized(board_picture(changed, names, 1280)).tobytes()
    lay = layout(v.map, 1280, P.DEFAULT_THEME)
    (hand,) = [
        part
        for part in board_panel_parts(
            Image.new("RGB", (1, 1)), changed, lay, names, P.DEFAULT_THEME, pieces=True
        )
        if part.facts[:2] == ("hand", 1)
    ]
    cut = panel_split(lay) // ROWS * ROWS
    across = _bands_across(hand.box, cut, lay.height)
    differ = _changed_bands(first, after, cut)
    assert 1 <= len(differ) and set(differ) <= set(across), (differ, across)
    assert looked == [] and len(squeezed) == len(differ)


def test_the_turns_lines_are_parts_and_a_new_status_redraws_its_line_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The turn's column is a part for each line (its title, status, walls, supply and discard): a board
    whose only change is the status (an action used, R3) draws the status line alone, compresses exactly
    the bands whose pixels that changed, all across that line, and gives the pixels drawn whole."""
    import dataclasses

    import rendering.pictures as P
    from engine.state import ActionKind, Phase
    from rendering.layout import layout
    from rendering.panel import board_panel_parts, panel_split

    names = ["Ada", "Bo", "Cy"]
    states = play(load_map(MAP), players=3, seed=8).states
    v = next(view(s) for s in states[20:] if s.phase is Phase.ACTIONS and not s.actions_taken)
    first = P.render_board(v, names, 1280)
    drawn: list[tuple[object, ...]] = []
    squeezed: list[bytes] = []
    put, squeeze = P.PANEL_PARTS.put, P.compressed
    monkeypatch.setattr(P.PANEL_PARTS, "put", lambda key, pixels: (drawn.append(key[5:]), put(key, pixels)))
    monkeypatch.setattr(P, "compressed", lambda px, *rest: (squeezed.append(px), squeeze(px, *rest))[1])
    changed = dataclasses.replace(v, actions_taken=(ActionKind.LEVY,))
    after = P.render_board(changed, names, 1280)
    with Image.open(io.BytesIO(after)) as got:
        assert got.tobytes() == quantized(board_picture(changed, names, 1280)).tobytes()
    assert drawn == [("status", "1 left · used levy")], drawn
    lay = layout(v.map, 1280, P.DEFAULT_THEME)
    parts = board_panel_parts(Image.new("RGB", (1, 1)), changed, lay, names, P.DEFAULT_THEME, pieces=True)
    assert [part.facts[0] for part in parts if part.box[0] > 0 and part.facts[0] in LINES] == list(LINES)
    (said,) = [part for part in parts if part.facts[0] == "status"]
    cut = panel_split(lay) // ROWS * ROWS
    across = _bands_across(said.box, cut, lay.height)
    differ = _changed_bands(first, after, cut)
    assert 1 <= len(differ) and set(differ) <= set(across), (differ, across)
    assert len(squeezed) == len(differ)


LINES = ("title", "status", "walls", "stock")


@pytest.mark.parametrize("width", [900, 1280])
def test_a_turns_line_whose_ink_would_leave_its_rows_keeps_the_column_one_part(width: int) -> None:
    """A stack of accents ("Ấ") reaches above its line's top, into the line above: a language that writes
    one in the turn's column has the column as one part, and its pixels are those drawn whole."""
    from rendering.layout import layout
    from rendering.panel import board_panel_parts
    from rendering.pictures import DEFAULT_THEME, forget_kept, render_board
    from rendering.words import Words

    names = ["Ada", "Bo", "Cy"]
    v = view(play(load_map(MAP), players=3, seed=8).states[30])
    words = Words({"Supply {supply} · discard {discard}": "Ấ {supply} · {discard}"}, language="xx")
    lay = layout(v.map, width, DEFAULT_THEME)
    parts = board_panel_parts(Image.new("RGB", (1, 1)), v, lay, names, DEFAULT_THEME, words, pieces=True)
    turn = [part.facts for part in parts if part.facts[0] in (*LINES, "turn")]
    assert [facts[0] for facts in turn] == ["turn"] and len(turn[0]) == 5, turn
    english = board_panel_parts(Image.new("RGB", (1, 1)), v, lay, names, DEFAULT_THEME, pieces=True)
    assert [part.facts[0] for part in english if part.facts[0] in (*LINES, "turn")] == list(LINES)
    forget_kept()
    for w in (words, Words()):
        with Image.open(io.BytesIO(render_board(v, names, width, words=w))) as got:
            assert got.tobytes() == quantized(board_picture(v, names, width, words=w)).tobytes()


def test_a_board_that_reaches_into_the_panels_rows_gives_the_pixels_drawn_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A board is drawn from the cut down only as far as a piece reaches (rendering.band_keys); where one
    reaches below the panel's split (Alexander or a badge at the map's bottom edge), the panel is drawn over
    the board, on the map layer's rows below the board's last: the pixels are those drawn whole."""
    import random

    import rendering.pictures as P
    from engine.ai import greedy_player
    from engine.game import apply, new_game
    from engine.maps import packaged_map

    over: list[int] = []
    board_panel = P.board_panel
    monkeypatch.setattr(P, "board_panel", lambda *args: (over.append(1), board_panel(*args))[1])
    rng = random.Random(11)
    state, _ = new_game(packaged_map("empire"), 2, 11)
    for _ in range(30):  # the panel is drawn over the board at actions 13-16 and 21-24
        v = view(state)
        drawn = len(over)
        with Image.open(io.BytesIO(P.render_board(v, None, 1000))) as got:
            if len(over) > drawn:
                assert got.tobytes() == quantized(board_picture(v, None, 1000)).tobytes()
        state, _ = apply(state, greedy_player(state, rng))
    assert len(over) >= 4


def test_a_boards_band_is_taken_as_kept_only_where_it_shows_the_same_pixels() -> None:
    """render_board keeps each band of a board by what it shows (rendering.band_keys: the pieces drawn
    across its rows) and compresses only bands with a new key: over whole games one after the other on one
    map (two to four players, two widths, walls, guards, badges moving, the games' ends), every file's pixels
    are those of the picture drawn whole, and most bands were kept."""
    from rendering.pictures import BOARD_BANDS, BOARDS, render_board

    BOARD_BANDS.clear()
    for players, seed, width in ((4, 21, 1280), (2, 22, 1280), (3, 23, 800), (4, 24, 800)):
        names = ["Ada", "Bo", "Cy", "Di"][:players]
        for state in play(load_map(MAP), players=players, seed=seed).states:
            v = view(state)
            BOARDS.clear()  # every board drawn, none kept whole
            with Image.open(io.BytesIO(render_board(v, names, width))) as got:
                assert got.tobytes() == quantized(board_picture(v, names, width)).tobytes()
    assert BOARD_BANDS.hits > 2 * BOARD_BANDS.misses


def test_a_font_that_keeps_its_texts_draws_the_very_pixels_freetype_draws() -> None:
    """rendering.fonts.KeptFont keeps the masks and lengths of the texts it drew lately: the boards of a
    game (panel, badges, region names, at many fractions of a pixel), drawn with its texts kept, are byte
    for byte the boards drawn with plain FreeType fonts, and the kept masks are used."""
    from PIL import ImageFont

    from rendering import fonts

    states = play(load_map(MAP), players=3, seed=7).states[::9]
    names = ["Ada", "Bo", "Cy"]
    kept = [board_picture(view(s), names, 1280).tobytes() for s in states]
    again = [board_picture(view(s), names, 1280).tobytes() for s in states]
    ours = [f for f in fonts._local.fonts.values() if f._masks]
    assert ours and kept == again
    saved = fonts._local.fonts
    plain: dict[tuple[int, bool, bool], ImageFont.FreeTypeFont] = {}
    for size, bold, condensed in saved:
        data = io.BytesIO(fonts._data(bold, condensed))
        plain[size, bold, condensed] = ImageFont.truetype(data, size, layout_engine=ImageFont.Layout.BASIC)
    try:
        fonts._local.fonts = plain
        freetype = [board_picture(view(s), names, 1280).tobytes() for s in states]
    finally:
        fonts._local.fonts = saved
    assert freetype == kept
