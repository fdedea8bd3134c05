"""Whole games, 2 to 4 players, ending by walls and by 100 points, played only through interactions."""

from __future__ import annotations

import pytest

from engine.state import EndReason
from tests.bot.driver import POINTS_MAP, WALLS_MAP, bot_factory, find_seed, harness, play_whole_game

pytest_plugins = ["tests.harness.fixtures"]


@pytest.fixture(autouse=True)
def _offline(no_network):
    yield


@pytest.mark.parametrize(
    ("players", "game_map", "reason"),
    [
        (2, WALLS_MAP, EndReason.WALLS),
        (3, POINTS_MAP, EndReason.POINTS),
        (4, WALLS_MAP, EndReason.WALLS),
        (2, POINTS_MAP, EndReason.POINTS),
        (3, WALLS_MAP, EndReason.WALLS),
        (4, POINTS_MAP, EndReason.POINTS),
    ],
)
async def test_whole_game(tmp_path, players, game_map, reason):
    seed = find_seed(game_map, players, reason.value)
    async with harness(bot_factory(str(tmp_path / "games.db"), game_map, seed)) as d:
        g = await play_whole_game(d, players, ai_seed=seed)
        st = await g.state()
        assert st.result is not None and st.result.reason is reason, st.result
        assert g.stats.get("end_pings") == 1
        assert g.stats.get("menu", 0) > 0 and g.stats["Move"] > 0  # the Actions menu and moves were used
        *_, end, replay = d.channel_messages()  # the end post, then its replay (issue 16)
        assert "is over" in end.content and end.attachments
        for u in g.users:
            assert f"<@{u.id}>" in end.content
        assert replay.content.startswith(f"Replay of game {g.game_id}")
        assert [a.filename for a in replay.attachments] == ["replay.gif"]
        rated = await d.bot.store.ratings(d.guild_id)
        assert sorted(r.user_id for r in rated) == sorted(u.id for u in g.users)
