"""Issue 32: Discord's global limit is the bot's ceiling. A whole game, played through the offline
Discord, must make at most 0.6 requests counted against a bot's global limit (the channel routes: posts,
edits, pins, deletions under /channels/…) per engine action. Interaction callbacks and follow-ups (the
interaction's token) are not counted by Discord, and are not counted here."""

from __future__ import annotations

import pytest

from engine.state import EndReason
from tests.bot.driver import POINTS_MAP, WALLS_MAP, bot_factory, find_seed, harness, play_whole_game

pytest_plugins = ["tests.harness.fixtures"]

CEILING = 0.6  # channel requests per engine action over a whole game


@pytest.fixture(autouse=True)
def _offline(no_network):
    yield


def channel_requests(requests) -> list:
    """The requests Discord counts against the bot's global limit: writes to the channel routes."""
    return [
        r
        for r in requests
        if r.seam == "http"
        and r.method in ("POST", "PATCH", "PUT", "DELETE")
        and r.path.startswith("/channels/")
    ]


@pytest.mark.parametrize(
    ("players", "game_map", "reason"),
    [(2, WALLS_MAP, EndReason.WALLS), (3, POINTS_MAP, EndReason.POINTS)],
)
async def test_channel_requests_per_action_over_a_whole_game(tmp_path, players, game_map, reason):
    seed = find_seed(game_map, players, reason.value)
    async with harness(bot_factory(str(tmp_path / "games.db"), game_map, seed)) as d:
        start = len(d.requests)
        g = await play_whole_game(d, players, ai_seed=seed)
        # What is still waiting (the status message's last edit, due a few seconds on) is counted too.
        await d.bot.deliveries.drain(now=d.bot.pipeline.clock() + 120)
        actions = sum(n for k, n in g.stats.items() if k[:1].isupper())
        counted = channel_requests(d.requests[start:])
        per_action = len(counted) / actions
        kinds: dict[str, int] = {}
        for r in counted:
            kinds[f"{r.method} {r.path}"] = kinds.get(f"{r.method} {r.path}", 0) + 1
        print(f"\n{players} players: {len(counted)} channel requests / {actions} actions = {per_action:.3f}")
        for k, n in sorted(kinds.items(), key=lambda kv: -kv[1]):
            print(f"  {n:4d} {k}")
        st = await g.state()
        assert st.over
        # Every turn still pings its player with a new public message (a follow-up or a channel post).
        pings = [q for q in d.requests[start:] if q.pinged_user_ids and "your turn" in (q.content or "")]
        print(f"  turn pings: {len(pings)} for {st.turn} turns")
        # The worker paces only what Discord counts (its pacer holds the global limit): the rest is not
        # held back by it. Every paced delivery makes at least one channel request.
        paced = d.bot.deliveries.paced
        print(f"  paced deliveries: {paced} ({paced / actions:.3f} per action)")
        assert paced <= len(counted), (paced, len(counted))
        assert len(pings) == st.turn and all(not q.ephemeral for q in pings)
        assert per_action <= CEILING, f"{per_action:.3f} channel requests per action (at most {CEILING})"
