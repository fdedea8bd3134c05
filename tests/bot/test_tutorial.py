"""Issue 29, the tutorial: ``/alexandros learn tutorial`` is a private lesson of ten steps on scripted
positions; every step is answered wrong (explained, with a picture, asked again) and right (Next), the
lesson can be left and resumed, it ends with a practice game, and it speaks German too."""

from __future__ import annotations

import pytest

from bot.words import lessons
from engine import rules
from engine.actions import Levy
from engine.game import apply
from engine.symbols import Symbol
from tests.bot.driver import WALLS_MAP, bot_factory, harness

pytest_plugins = ["tests.harness.fixtures"]


@pytest.fixture(autouse=True)
def _offline(no_network):
    yield


def _buttons(msg) -> list[str]:
    return [c for c in msg.custom_ids if c.startswith("alx:tut")]


async def test_the_tutorial_played_through_every_step_wrong_then_right(tmp_path):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 2)) as d:
        alice = d.member("alice")
        r = await d.slash(alice, "alexandros learn tutorial")
        assert r.ephemeral and "ten steps" in r.content
        msg = r.response_message
        await d.click(alice, msg.id, "alx:tutgo:0")
        steps = lessons.steps()
        assert len(steps) == 10
        for i, lesson in enumerate(steps):
            shown = d.message(msg.id)
            assert shown.ephemeral and f"({i + 1}/10)" in shown.content and shown.attachments, shown.content
            answers = [c for c in _buttons(shown) if c.startswith(f"alx:tut:{i}:")]
            assert len(answers) == len(lesson.choices()) >= 2
            wrong = next(v for v, _label in lesson.choices() if v not in lesson.right)
            await d.click(alice, msg.id, f"alx:tut:{i}:{wrong}")
            shown = d.message(msg.id)
            assert "❌" in shown.content and lesson.explain(wrong) in shown.content and shown.attachments
            assert f"alx:tut:{i}:{wrong}" in shown.custom_ids, "asked again"
            assert "alx:tutgo:" not in " ".join(shown.custom_ids), "no Next after a wrong answer"
            right = sorted(lesson.right)[0]
            await d.click(alice, msg.id, f"alx:tut:{i}:{right}")
            shown = d.message(msg.id)
            assert "✅" in shown.content and f"alx:tutgo:{i + 1}" in shown.custom_ids
            if i == 4:  # left in the middle: the command resumes at the next step
                again = await d.slash(alice, "alexandros learn tutorial")
                assert again.ephemeral and "Welcome back: step 6 of 10" in again.content
                assert "(6/10)" in again.content and "alx:tutgo:0" in again.response_message.custom_ids
            await d.click(alice, msg.id, f"alx:tutgo:{i + 1}")
        end = d.message(msg.id)
        assert "Well done" in end.content and "alx:tutplay:0" in end.custom_ids
        assert (await d.bot.store.get_user_settings(alice.id))["tutorial"] == 10
        r = await d.click(alice, msg.id, "alx:tutplay:0")
        assert r.ephemeral and "practice game is open" in r.content


def test_each_lessons_right_answer_is_the_engines():
    by_key = {s.key: s for s in lessons.steps()}
    closest = by_key["closest"]
    _distance, spaces = rules.closest_targets(closest.state, Symbol.TEMPLE)
    labels = dict(closest.choices())
    assert {labels[v] for v in closest.right} == {lessons._space_label(s) for s in spaces}
    joker = by_key["joker"]
    assert joker.right == {"0"} and joker.state.face_up[0] is Symbol.SOLDIER
    levy = by_key["levy"]
    (guard,) = levy.state.players[0].guards
    after, _ = apply(levy.state, Levy(0, levy.state.map.symbol[guard]))
    assert levy.right == {str(after.players[0].score - levy.state.players[0].score)}
    assert by_key["red"].right == {"red"} and by_key["hundred"].right == {"end"}


async def test_the_tutorial_in_german(tmp_path):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 2)) as d:
        alice = d.member("alice")
        alice.locale = "de"
        r = await d.slash(alice, "alexandros learn tutorial")
        assert r.ephemeral and "zehn Schritten" in r.content, r.content
        await d.click(alice, r.response_message.id, "alx:tutgo:0")
        shown = d.message(r.response_message.id)
        assert "Das nächste Symbol" in shown.content and "closest" not in shown.content
        await d.click(alice, shown.id, "alx:tut:0:0")
        assert "Nicht ganz" in d.message(shown.id).content


async def test_the_tutorial_through_the_console(tmp_path, no_network):
    """The console presses the lesson's buttons by number, as a person at the terminal would."""
    import argparse
    import io

    from bot.console import run

    script = ["alice: /alexandros learn tutorial", "alice: press 1"]
    for lesson in lessons.steps():
        values = [v for v, _label in lesson.choices()]
        wrong = next(v for v in values if v not in lesson.right)
        right = sorted(lesson.right)[0]
        script += [f"alice: press {values.index(wrong) + 1}", f"alice: press {values.index(right) + 1}"]
        script.append("alice: press 1")  # Next
    lines = io.StringIO("\n".join([*script, "quit", ""]))
    out = io.StringIO()
    args = argparse.Namespace(players="alice,bob", db=str(tmp_path / "c.db"), out=str(tmp_path / "p"), seed=3)
    assert await run(args, lines, out) == 0
    text = out.getvalue()
    assert text.count("✅") == 10 and text.count("❌") == 10, text[-3000:]
    assert "(10/10)" in text and "Well done" in text and "[only alice]" in text
    assert any("tutorial" in p.name for p in (tmp_path / "p").glob("*.png"))


async def test_an_answer_no_step_offers_now_shows_the_step_again(tmp_path):
    """A button an older lesson left (found by the fuzzer: ``alx:tut:0:400``) is no answer: the step is shown
    again as it is now, without an error."""
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 2)) as d:
        alice = d.member("alice")
        msg = (await d.slash(alice, "alexandros learn tutorial")).response_message
        await d.click(alice, msg.id, "alx:tutgo:0")
        shown = d.message(msg.id)
        comp = next(c for c in shown.walk_components() if c.get("custom_id", "").startswith("alx:tut:0:"))
        cid, comp["custom_id"] = comp["custom_id"], "alx:tut:0:400"
        try:
            r = await d.click(alice, msg.id, "alx:tut:0:400")
        finally:
            comp["custom_id"] = cid
        assert not r.errors, r.errors
        shown = d.message(msg.id)
        assert "(1/10)" in shown.content and "❌" not in shown.content and shown.attachments
        first = lessons.steps()[0]
        assert _buttons(shown) == [f"alx:tut:0:{v}" for v, _label in first.choices()]
        assert (await d.bot.store.get_user_settings(alice.id)).get("tutorial", 0) == 0
        comp = next(c for c in shown.walk_components() if c.get("custom_id", "").startswith("alx:tut:0:"))
        cid, comp["custom_id"] = comp["custom_id"], "alx:tutgo:400"  # a Next of a longer lesson
        try:
            r = await d.click(alice, msg.id, "alx:tutgo:400")
        finally:
            comp["custom_id"] = cid
        assert not r.errors and "Well done" in d.message(msg.id).content
        assert (await d.bot.store.get_user_settings(alice.id))["tutorial"] == len(lessons.steps())
