"""The replay GIF (issue 16): one frame per turn from public views, under Discord's smallest upload limit
(8 MiB) on a long game, and shrunk (narrower, then fewer frames) when a bound is tighter."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from engine import serialize
from engine.ai import play_game
from engine.maps import default_map
from engine.views import view
from rendering.replay import MAX_BYTES, public_frames, render_replay, render_replay_events, thin

DISCORD_SMALLEST_UPLOAD = 8 * 1024 * 1024


@pytest.fixture(scope="module")
def long_game():
    """The longest of a few 4-player games on the default map."""
    games = [play_game(default_map(), 4, seed, check=False) for seed in range(1, 4)]
    return max(games, key=lambda g: g[2].turns)


def test_a_long_game_fits_discords_smallest_upload(long_game):
    st, events, stats = long_game
    assert stats.turns >= 30, "a long game was expected"
    data = render_replay_events([serialize.dump(e) for e in events], ["alice", "bob", "carol", "dave"])
    assert data[:6] == b"GIF89a" and len(data) <= MAX_BYTES < DISCORD_SMALLEST_UPLOAD
    im = Image.open(io.BytesIO(data))
    assert im.n_frames == stats.turns + 1  # one frame per turn, and the final board
    assert im.is_animated and im.info.get("loop") == 0


def test_a_game_six_times_as_long_still_fits(long_game):
    """Longer than any game the computer players make: 6 x the frames must be shrunk to fit (4 x came to
    7.43 MB at full width once region names stopped covering symbol spaces: just under the cap)."""
    frames = public_frames(long_game[1]) * 6
    data = render_replay(frames, ["alice", "bob", "carol", "dave"])
    assert len(data) <= MAX_BYTES
    im = Image.open(io.BytesIO(data))
    assert im.n_frames >= 2 and (im.width < 900 or im.n_frames < len(frames))


def test_frames_are_public_views_and_a_hand_is_refused(long_game):
    st, events, _ = long_game
    frames = public_frames(events)
    assert all(v.viewer is None for v in frames)
    assert frames[-1] == view(st, None)
    with pytest.raises(ValueError, match="public"):
        render_replay([view(st, 0)], ["alice", "bob"])


def test_a_tight_bound_shrinks_the_frames_then_their_number(long_game):
    _, events, _ = long_game
    frames = public_frames(events)
    data = render_replay(frames, ["alice", "bob"], max_bytes=150_000)
    assert len(data) <= 150_000
    im = Image.open(io.BytesIO(data))
    assert 2 <= im.n_frames < len(frames) and im.width == 340
    with pytest.raises(ValueError, match="over"):
        render_replay(frames, ["alice", "bob"], max_bytes=1_000)


def test_thin_keeps_the_first_and_the_last():
    picks = thin(list(range(50)), 7)  # type: ignore[arg-type]
    assert picks[0] == 0 and picks[-1] == 49 and len(picks) == 7
    assert thin([1, 2], 5) == [1, 2]  # type: ignore[list-item]


def test_the_first_frame_is_the_deal_and_the_next_ones_close_their_turns(long_game, monkeypatch) -> None:
    """Frame 0 is the deal (it read "Turn 0"); frame k is the board at the end of turn k."""
    from PIL import ImageDraw

    from rendering import replay

    frames = public_frames(long_game[1])
    assert frames[0].turn == 0 and frames[1].turn == 1 and frames[2].turn == 2
    drawn: list[str] = []
    real = ImageDraw.ImageDraw.text

    def text(self: ImageDraw.ImageDraw, xy: object, t: object, *args: object, **kwargs: object) -> None:
        drawn.append(str(t))
        real(self, xy, t, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ImageDraw.ImageDraw, "text", text)
    replay._frame(frames[0], ["alice", "bob", "carol", "dave"], 900, replay.DEFAULT_THEME, last=False)
    assert "The deal" in drawn and "Turn 0" not in drawn
    drawn.clear()
    replay._frame(frames[1], ["alice", "bob", "carol", "dave"], 900, replay.DEFAULT_THEME, last=False)
    assert "Turn 1" in drawn
