"""Issue 15: whole games through the console on every packaged map and every player count, and the whole
transcript checked against the forms a player must never read (tests/bot/wrong_forms.py): bad articles and
plurals, raw markup, Python reprs, the generic error, and refusals without a way forward."""

from __future__ import annotations

import re

import pytest

from tests.bot.console_games import Recorder, packaged_maps, play
from tests.bot.wrong_forms import no_way_forward, wrong_forms

pytest_plugins = ["tests.harness.fixtures"]

MAPS = packaged_maps()


def test_the_packaged_maps_are_found() -> None:
    assert "empire" in MAPS


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("name", sorted(MAPS))
async def test_issue_15_a_whole_console_game_reads_right(name, players, tmp_path, no_network) -> None:
    with Recorder() as recorded:
        text, final = await play(MAPS[name], players, seed=players, folder=tmp_path)
    assert final.over and "is over" in text
    problems = wrong_forms(text)
    assert problems == [], "\n".join(problems[:20])
    assert "!!!" not in text, re.findall(r"!!!.*", text)[:5]
    # Every refusal the bot worded reached the player, and says what to do or what is allowed.
    assert len(recorded.refusals) >= 10, recorded.refusals
    for sentence in recorded.refusals:
        assert sentence.split("\n")[0][:80] in text
        assert not no_way_forward(sentence), sentence
    # The typed mistakes were answered with their reasons, not the generic "I do not understand".
    assert "It is not your turn" in text and "You must move Alexander first" in text
    assert "is not a joker" in text or "as joker" in text
    assert "You can take: `1`" in text and "The game in this channel is finished" in text
