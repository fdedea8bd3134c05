"""The words drawn in pictures speak the bot's languages (issue 16, item 7): the game's language in public
pictures (board, end, replay), the asking user's in private ones (hand, previews); built from the catalogs."""

from __future__ import annotations

import io
import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from PIL import Image, ImageDraw

import rendering
import rendering.board
import rendering.pictures
import rendering.replay
from bot.games.pictures import Pictures, plural_rule, words_for
from bot.words import i18n
from engine import ai, view
from engine.game import new_game
from engine.maps import default_map
from engine.rules import move_choices, targets
from engine.state import Phase
from rendering.words import MESSAGES
from tests.bot.driver import WALLS_MAP, bot_factory, harness, open_game
from tools import catalogs

pytest_plugins = ["tests.harness.fixtures"]

NAMES = ("Ana", "Jürgen")


@pytest.fixture(autouse=True)
def _offline(no_network: Any) -> Iterator[None]:
    yield


@contextmanager
def drawing(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every text Pillow draws inside the block."""
    drawn: list[str] = []
    real = ImageDraw.ImageDraw.text

    def text(self: ImageDraw.ImageDraw, xy: Any, text: Any, *args: Any, **kwargs: Any) -> None:
        drawn.append(str(text))
        real(self, xy, text, *args, **kwargs)

    rendering.board.region_sprite.cache_clear()
    # Pictures kept from earlier tests in this process would be pasted, not drawn: their words unseen.
    rendering.pictures.forget_kept()
    with monkeypatch.context() as m:
        m.setattr(ImageDraw.ImageDraw, "text", text)
        yield drawn


def requests(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """(kind, language of its words) of every picture the bot asks for from here on."""
    seen: list[tuple[str, str]] = []
    real_request = rendering.render_request
    real_public = rendering.render_public
    real_replay = rendering.replay.render_replay_events

    def request(req: rendering.RenderRequest) -> bytes:
        seen.append((req.kind, req.words.language))
        return real_request(req)

    def public(req: rendering.PublicPicture) -> bytes:  # the outbox's board and end pictures
        seen.append((req.kind, req.words.language))
        return real_public(req)

    def replay(events: Any, names: Any, max_bytes: int, words: rendering.Words) -> bytes:
        seen.append(("replay", words.language))
        return real_replay(events, names, max_bytes, words)

    monkeypatch.setattr(rendering, "render_request", request)
    monkeypatch.setattr(rendering, "render_public", public)
    monkeypatch.setattr(rendering.replay, "render_replay_events", replay)
    return seen


def test_german_words_come_from_the_catalog_complete() -> None:
    de = catalogs._read(i18n.catalog_path("de"), "de")
    same = set()  # names that German writes as English does (regions: Gandhara, Indus)
    for context, message in MESSAGES:
        singular = message if isinstance(message, str) else message[0]
        entry = de.get(singular, context=context)
        assert entry is not None and catalogs._translated(entry), f"no German for {message!r}"
        if entry.string == singular:
            same.add((context, singular))
        forms = (entry.string,) if isinstance(entry.string, str) else tuple(entry.string)
        for form in forms:
            assert catalogs.placeholders(form) == catalogs.placeholders(singular), (message, form)
    words = words_for("de")
    assert plural_rule("de") == (2, "(n != 1)") and words.plural_rule == "(n != 1)"
    assert same == {("region", "Gandhara"), ("region", "Indus")}
    assert len(words.texts) + len(words.plurals) == len(MESSAGES) - len(same), "a word is English in German"
    assert words.tr("Turn {turn}").format(turn=3) == "Zug 3"
    assert [words.ntr("{n} wall", "{n} walls", n).format(n=n) for n in (1, 2)] == ["1 Mauer", "2 Mauern"]
    assert words.ptr("symbol", "temple") == "Tempel"
    assert words_for("de-DE") is words and words_for("en-US") == rendering.Words() == words_for("fr")


@pytest.mark.parametrize("width", [800, 1280])
def test_german_boards_kept_in_parts_give_the_pixels_drawn_whole(width: int) -> None:
    """The panel's kept parts (rendering.pictures) in German, where the turn's lines are parts of their own
    at 1,280 px and its column one part at 800 (the "g" of "Zug" reaches the status line's first row there):
    on every state of a whole game the pixels are those of the board drawn whole at once."""
    from engine.maps import load_map
    from rendering.layout import layout
    from rendering.panel import board_panel_parts
    from rendering.pictures import DEFAULT_THEME, board_picture, quantized
    from rendering.samples import play

    de = words_for("de")
    rendering.pictures.forget_kept()
    for state in play(load_map("tests/engine/maps/empire-2026.map"), players=2, seed=4).states:
        v = view(state)
        parts = board_panel_parts(
            Image.new("RGB", (1, 1)), v, layout(v.map, width, DEFAULT_THEME), list(NAMES), DEFAULT_THEME, de
        )
        turn = [part.facts[0] for part in parts if part.facts[0] in ("turn", "title", "status")]
        assert turn == (["turn"] if width == 800 else ["title", "status"]), turn
        with Image.open(io.BytesIO(rendering.render_board(v, NAMES, width, words=de))) as got:
            assert got.tobytes() == quantized(board_picture(v, NAMES, width, words=de)).tobytes()


async def test_a_public_picture_speaks_the_games_language_and_a_private_one_the_askers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    state = new_game(default_map(), 2, 3)[0]
    pictures = Pictures(width=640)
    with i18n.speaking("de"):  # a German user asks, in a game on an English server
        with drawing(monkeypatch) as drawn:
            await pictures.board(view(state, None), NAMES, language="en")
        assert "Turn 1" in drawn and "Zug 1" not in drawn
        with drawing(monkeypatch) as drawn:
            await pictures.hand(view(state, 0), "Ana")
        assert "Hand von Ana" in drawn and "Tempel" in drawn
    with drawing(monkeypatch) as drawn:  # an English user, in a game on a German server
        await pictures.board(view(state, None), NAMES, language="de")
    assert "Zug 1" in drawn and "Mauern" in drawn and "Turn 1" not in drawn
    with drawing(monkeypatch) as drawn:
        await pictures.hand(view(state, 0), "Ana")
    assert "Ana's hand" in drawn and "temple" in drawn
    st = state
    symbol = move_choices(st)[0].symbol
    with i18n.speaking("de"), drawing(monkeypatch) as drawn:
        await pictures.move_preview(view(st, st.current), targets(st, symbol), None, NAMES)
    assert any(t.startswith("Ziehen: ") for t in drawn) and "Ana: wähle einen Punkt" in drawn
    assert pictures.failures == 0


async def test_the_channel_sees_the_games_language_and_each_player_their_own(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = requests(monkeypatch)
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        g = await open_game(d)  # the offline server's preferred locale is en-US by default
        table = await g.table()
        assert table.locale == "en"
        mover = g.user_of_seat(table, table.state.current)
        mover.locale = "de"
        st = await g.state()
        assert st.phase is Phase.MOVE
        seen.clear()
        await g.move(mover, st, ai.greedy_player(st, random.Random(0)), guided=True)
        await d.bot.deliveries.drain()
        assert ("move", "de") in seen and ("path", "de") in seen, seen
        assert ("board", "en") in seen and ("board", "de") not in seen, seen
        seen.clear()
        await d.slash(mover, "alexandros hand")
        await d.slash(mover, "alexandros board")
        await d.slash(mover, "alexandros replay")
        await d.bot.deliveries.drain()
        assert seen == [("hand", "de"), ("board", "en"), ("replay", "en")], seen
        assert d.bot.pictures.failures == 0


async def test_a_game_on_a_german_server_posts_german_pictures(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = requests(monkeypatch)
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        d.set_guild_locale("de")  # a German server: its games store "de" when they are made
        with drawing(monkeypatch) as drawn:
            g = await open_game(d)
            await d.bot.deliveries.drain()
        # (The bot's warm-up draws one unrecorded English board at its start, not for any channel.)
        assert ("board", "de") in seen and "Zug 1" in drawn and "Erst Alexander ziehen" in drawn
        st = await g.state()
        table = await g.table()
        english = g.user_of_seat(table, st.current)
        seen.clear()
        await g.move(english, st, ai.greedy_player(st, random.Random(0)), guided=True)
        await d.bot.deliveries.drain()
        assert ("move", "en") in seen and ("board", "de") in seen and ("board", "en") not in seen, seen
        seen.clear()
        await d.slash(english, "alexandros board")
        await d.slash(english, "alexandros replay")
        assert seen == [("board", "de"), ("replay", "de")], seen
        assert d.bot.pictures.failures == 0
