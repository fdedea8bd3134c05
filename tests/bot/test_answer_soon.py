"""An action's answer comes at once, and a defer only when the work is slow (bot.commands.answers.defer_soon):
through the offline Discord in strict mode, which fails an interaction not answered within Discord's 3 s."""

from __future__ import annotations

import asyncio
import random

import pytest

from bot.commands import answers
from bot.texts import choices as ch
from engine import ai
from engine.actions import Move
from engine.state import Phase
from tests.bot.driver import NAMES, WALLS_MAP, Game, bot_factory, discord_failures, harness, open_lobby

pytest_plugins = ["tests.harness.fixtures"]


@pytest.fixture(autouse=True)
def _offline(no_network):
    yield


async def started(d) -> Game:
    g = Game(d, [d.member(n) for n in NAMES[:2]])
    await g.open()
    return g


def answers_of(r) -> list[str]:
    """The interaction's own requests to Discord, in order: callbacks by type, then edits and follow-ups."""
    out = []
    for q in r.requests:
        if q.kind == "callback":
            out.append(f"callback {q.callback_type}")
        elif q.kind == "edit_original" or (q.kind == "followup" and q.ephemeral):
            out.append(q.kind)
    return out


def slowed(g: Game, monkeypatch, seconds: float) -> None:
    """The pipeline's actions take ``seconds`` longer (a slow disk, a busy writer), and defer_soon waits
    0.05 s instead of a whole second."""
    pipeline = g.bot.pipeline
    act = pipeline.act

    async def slow_act(*args, **kwargs):
        await asyncio.sleep(seconds)
        return await act(*args, **kwargs)

    monkeypatch.setattr(pipeline, "act", slow_act)
    monkeypatch.setattr(answers, "DEFER_AFTER", 0.05)


async def current(g: Game):
    table = await g.table()
    return g.user_of_seat(table, table.state.current), table


def first_move(table) -> dict[str, str]:
    """The options of ``/alexandros move`` for the greedy first move (a game starts with a move)."""
    move = ai.greedy_player(table.state, random.Random(1))
    assert isinstance(move, Move)
    card, to, path = ch.move_code(table.state, move)
    return {"card": card, "to": to, "path": path}


async def test_a_quick_action_is_answered_once_privately_and_its_turn_post_follows(tmp_path):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        g = await started(d)
        user, table = await current(g)
        r = await d.slash(user, "alexandros move", **first_move(table))
        assert answers_of(r)[0] == "callback 4", answers_of(r)  # no "thinking" first, no edit of it
        assert "callback 5" not in answers_of(r) and "edit_original" not in answers_of(r)
        assert r.ephemeral and r.content
        after = await g.table()
        assert after.version > table.version
        g.check_public()  # the change's public posts: follow-ups of this press, public, no card named


async def test_a_slow_action_is_deferred_in_time_then_its_answer_replaces_the_thinking(tmp_path, monkeypatch):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        g = await started(d)
        slowed(g, monkeypatch, 0.4)
        user, table = await current(g)
        r = await d.slash(user, "alexandros move", **first_move(table))
        assert answers_of(r)[:2] == ["callback 5", "edit_original"], answers_of(r)
        assert r.latency is not None and r.latency < 0.4  # the defer went before the action was done
        assert r.ephemeral and r.content and "thinking" not in r.content.lower()
        assert (await g.table()).version > table.version
        g.check_public()


async def test_a_refusal_before_the_defer_is_the_presses_own_answer(tmp_path, monkeypatch):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        g = await started(d)
        user, table = await current(g)
        other = next(u for u in g.users if u.id != user.id)
        r = await d.slash(other, "alexandros move", **first_move(table))  # not their turn
        assert answers_of(r) == ["callback 4"] and r.ephemeral and r.content
        # A path that does not exist is refused inside the pipeline's action: slow, after the defer, as its
        # edit, still private.
        slowed(g, monkeypatch, 0.3)
        r = await d.slash(user, "alexandros move", **{**first_move(table), "path": "99"})
        assert answers_of(r) == ["callback 5", "edit_original"], answers_of(r)
        assert r.ephemeral and r.content
        assert (await g.table()).version == table.version


async def guided_move(g: Game, d, rng: random.Random):
    """Play greedy actions until a move, then open the guided move's flow message; its user and state."""
    for n in range(1, 40):
        st = await g.state()
        action = ai.greedy_player(st, rng)
        if st.phase is Phase.MOVE and isinstance(action, Move):
            user, _ = await current(g)
            r = await d.click(user, g.turn_message().id, f"alx:move:{g.game_id}:{st.version}")
            return user, st, r.response_message
        await g.play(action, 2 * n + 1)  # odd: no guided move of the driver's own
    raise AssertionError("no move in 40 actions")


@pytest.mark.parametrize("slow", [False, True])
async def test_a_guided_step_replaces_its_flow_message_at_once_or_after_a_deferred_update(
    tmp_path, monkeypatch, slow
):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        g = await started(d)
        user, st, flow = await guided_move(g, d, random.Random(5))
        assert flow is not None and flow.ephemeral
        if slow:
            monkeypatch.setattr(answers, "DEFER_AFTER", 0.0)  # the preview takes longer than no time
        card = next(c for c in flow.custom_ids if c.startswith("alxs:mc:"))
        options = [o["value"] for o in flow.component(card)["options"]]
        r = await d.select(user, flow.id, card, options[:1])
        expected = ["callback 6", "edit_original"] if slow else ["callback 7"]
        assert answers_of(r)[: len(expected)] == expected, answers_of(r)
        shown = d.message(flow.id)
        assert shown.ephemeral and shown.attachments, "the flow message shows the move's preview"
        assert any(c.startswith("alxs:mt:") for c in shown.custom_ids), shown
        assert not r.followups  # no message of its own: the flow message was replaced


async def test_an_action_slower_than_discords_deadline_is_deferred_within_it(tmp_path, monkeypatch):
    """The real ``DEFER_AFTER`` against the offline Discord's 3 s deadline (strict: a later first answer
    fails the interaction, as Discord would)."""
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        g = await started(d)
        pipeline, act = g.bot.pipeline, g.bot.pipeline.act

        async def very_slow_act(*args, **kwargs):
            await asyncio.sleep(3.2)
            return await act(*args, **kwargs)

        monkeypatch.setattr(pipeline, "act", very_slow_act)
        user, table = await current(g)
        r = await d.slash(user, "alexandros move", **first_move(table))
        assert answers_of(r)[:2] == ["callback 5", "edit_original"], answers_of(r)
        assert r.latency is not None and answers.DEFER_AFTER <= r.latency < 2.0
        assert not r.violations and (await g.table()).version > table.version


@pytest.mark.parametrize(("fault", "lost"), [("503", False), ("timeout", True)])
async def test_an_answer_that_fails_after_the_commit_ends_in_a_sentence_and_loses_nothing(
    tmp_path, caplog, fault, lost
):
    """The answer at once comes after the commit: when Discord fails it (a 5xx; or a timeout after Discord
    took it), the action stays applied, its turn post still goes out, and the presser still reads a private
    sentence: the apology, or the answer Discord took."""
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        g = await started(d)
        user, table = await current(g)
        d.fail("callback", fault, times=1, lost_reply=lost, when=lambda q: q.callback_type == 4)
        r = await d.slash(user, "alexandros move", **first_move(table), check=False)
        # Logged as Discord's failure (bot.process.outages): a warning, not an error of ours.
        assert not r.errors and discord_failures(caplog), "the failed answer is logged"
        assert r.ephemeral and r.content
        # 503: Discord took nothing, and the apology is the answer; a lost reply: the answer Discord took.
        # The apology does not say "try again": the action is applied, and trying it again would be refused.
        assert ("went through" in r.content.lower()) is not lost, r.content
        assert "try again" not in r.content.lower() and "went wrong" not in r.content.lower(), r.content
        after = await g.table()
        assert after.version > table.version  # nothing lost
        posted = [m for m in d.channel_messages() if any(f":{after.version}" in c for c in m.custom_ids)]
        assert posted and not posted[-1].ephemeral, "the new turn post is in the channel"
        g.check_public()  # and it names no drawn card


async def test_a_start_whose_answer_fails_says_the_game_started(tmp_path, caplog):
    """Start commits the deal, then answers by replacing the lobby message (type 7): when Discord fails that
    answer, the creator reads that it went through, not "try again" (a second Start would be refused), and
    the first turn post is in the channel."""
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        users, lobby, gid = await open_lobby(d)
        await d.click(users[1], lobby.id, f"alx:join:{gid}")
        d.fail("callback", "503", times=1, when=lambda q: q.callback_type == 7)
        r = await d.click(users[0], lobby.id, f"alx:start:{gid}", check=False)
        assert not r.errors and discord_failures(caplog) and r.ephemeral, r.content
        assert "went through" in r.content.lower() and "try again" not in r.content.lower(), r.content
        g = Game(d, users, game_id=gid)
        assert (await g.table()).record.status == "playing"
        assert any(m.content.startswith("**Turn 1") for m in d.channel_messages()), "the first turn post"


async def test_an_error_before_the_commit_still_says_try_again(tmp_path, monkeypatch):
    """Only a change that was committed is apologised for as done: an error before the commit leaves the game
    as it was, and the apology asks to try again."""
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        g = await started(d)
        user, table = await current(g)

        async def broken(*args, **kwargs):
            raise RuntimeError("the disk is gone")

        monkeypatch.setattr(g.bot.pipeline, "act", broken)
        r = await d.slash(user, "alexandros move", **first_move(table), check=False)
        assert r.errors and r.ephemeral
        assert "try again" in r.content.lower() and "went through" not in r.content.lower(), r.content
        assert (await g.table()).version == table.version
