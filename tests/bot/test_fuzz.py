"""The fuzz test of issue 11 (tests/bot/fuzz.py): random slash commands, buttons, selects and modal submits,
with random, long, unicode and stale values, from random members in two channels of one server and one of
another. Every interaction is answered, refusals are private, nobody changes what they may not, and the
generic error never appears. Seeded and bounded (about a second a seed); benchmarks/bench_fuzz.py runs
more."""

from __future__ import annotations

import pytest

from tests.bot.fuzz import run_fuzz

pytest_plugins = ["tests.harness.fixtures"]


@pytest.fixture(autouse=True)
def _offline(no_network):
    yield


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_random_interactions_are_answered_and_change_only_what_they_may(tmp_path, seed):
    counts = await run_fuzz(seed, 300, str(tmp_path / "fuzz.db"), seconds=20)
    print(counts.summary())
    assert counts.problems == [], "\n".join(counts.problems[:20])
    assert counts.interactions >= 250 or counts.seconds > 20
    # The run reached the kinds of interaction it is for.
    for kind in ("slash", "button", "autocomplete", "modal"):
        assert counts.kinds[kind] > 0, counts.kinds
    assert counts.kinds["stale-button"] + counts.kinds["stale-select"] > 0
    assert counts.changed > 0 and counts.games > 0
    assert sum(counts.answers.values()) == counts.interactions
