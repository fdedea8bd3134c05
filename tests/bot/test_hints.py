"""Issue 29, hints: ``/alexandros learn hint`` and the Hint button answer the player on turn privately with
the hard player's choice (from their own view), a sentence why and its preview picture; a rated game
without hints refuses; the end post counts each player's hints; German too."""

from __future__ import annotations

import pytest

from engine import advice
from engine.actions import Move
from engine.game import apply
from tests.bot.driver import WALLS_MAP, Clock, bot_factory, harness, open_game, open_with_computer
from tests.bot.test_stale_clicks import CARD_WORDS

pytest_plugins = ["tests.harness.fixtures"]


@pytest.fixture(autouse=True)
def _offline(no_network):
    yield


@pytest.fixture
def suggested(monkeypatch):
    """Every action the hint handler was given by the engine, in order (to check that apply accepts it)."""
    seen: list = []
    real = advice.suggest

    def recording(v, rng, deadline=None):
        action = real(v, rng, deadline)
        seen.append((v, action))
        return action

    monkeypatch.setattr(advice, "suggest", recording)
    return seen


async def _practice(d, user):
    r = await d.slash(user, "alexandros learn practice", level="easy")
    thread = r.of_kind("thread")[0].channel_id
    record = await d.bot.store.game_by_channel(thread)
    await d.bot.deliveries.drain()
    return thread, record.id


def _turn_post(d, thread, gid):
    return next(m for m in reversed(d.channel_messages(thread)) if f"alx:hand:{gid}" in m.custom_ids)


async def test_a_hint_is_private_legal_pictured_counted_and_in_the_end_post(tmp_path, suggested):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 2, clock=Clock())) as d:
        alice = d.member("alice")
        thread, gid = await _practice(d, alice)
        table = await d.bot.pipeline.tables.by_id(gid)
        assert table.current_user == alice.id
        seat = table.seat_of(alice.id)
        mark = d.mark()
        r = await d.slash(alice, "alexandros learn hint", channel_id=thread)
        assert r.ephemeral and r.content.startswith("**Hint**"), r.content
        assert "You have used 1 hint in this game." in r.content
        ((v, action),) = suggested
        assert v.viewer == seat and v.hand is not None, "decided from the presser's own view"
        assert isinstance(action, Move) and r.response_message.attachments, (
            "a move comes with its path picture"
        )
        assert d.bot.pictures.calls[-1] == ("path", seat), "the picture is drawn from the presser's view"
        state = (await d.bot.pipeline.tables.by_id(gid)).state
        apply(state, action)  # legal: apply accepts it
        public = [
            (q.kind, q.content)
            for q in d.requests_since(mark)
            if q.kind in ("channel_message", "edit_message")
        ]
        assert not public, public
        # The move is played as hinted; then the Actions menu has a Hint button, which hints again.
        from bot.outbox.pipeline import Ask

        await d.bot.pipeline.act(Ask(alice.id, game_id=gid), lambda st, s: action)
        await d.bot.deliveries.drain()
        version = (await d.bot.pipeline.tables.by_id(gid)).version
        post = _turn_post(d, thread, gid)
        menu = (await d.click(alice, post.id, f"alx:acts:{gid}:{version}")).response_message
        assert f"alx:hint:{gid}:{version}" in menu.custom_ids
        r = await d.click(alice, menu.id, f"alx:hint:{gid}:{version}")
        assert r.ephemeral and "You have used 2 hints in this game." in r.content
        apply((await d.bot.pipeline.tables.by_id(gid)).state, suggested[-1][1])
        # A stale Hint (the game moved on) is out of date, not a hint for another state.
        await d.slash(alice, "alexandros end", channel_id=thread)
        await d.bot.deliveries.drain()
        r = await d.click(alice, menu.id, f"alx:hint:{gid}:{version}")
        assert r.ephemeral and "out of date" in r.content and "**Hint**" not in r.content, r.content
        assert not CARD_WORDS.search(r.content), "a stale Hint names no card"
        r = await d.slash(alice, "alexandros resign", channel_id=thread)
        button = next(c for c in r.response_message.custom_ids if c.startswith("alx:resign:"))
        await d.click(alice, r.response_message.id, button)
        await d.bot.deliveries.drain()
        end = next(m for m in d.channel_messages(thread) if "**Game" in m.content and "is over" in m.content)
        assert "Hints used: <@" in end.content and f"<@{alice.id}> 2" in end.content, end.content
        assert "Computer" not in end.content.split("Hints used:")[1], "computers ask for no hints"


async def test_a_rated_game_without_hints_refuses_a_hint_and_shows_no_hint_button(tmp_path):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 2)) as d:
        g = await open_game(d, 2)
        table = await g.table()
        user = g.user_of_seat(table, table.state.current)
        r = await d.slash(user, "alexandros learn hint")
        assert r.ephemeral and "played without hints, since it is rated" in r.content
        post = g.turn_message()
        step = (await d.click(user, post.id, f"alx:move:{g.game_id}:{table.version}")).response_message
        assert not [c for c in step.custom_ids if c.startswith("alx:hint:")]
        assert not (await d.bot.store.get_game_meta(g.game_id)).get("hints"), "a refused hint is not counted"


async def test_a_table_opened_with_hints_offers_them_and_is_not_rated(tmp_path):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 2)) as d:
        g = await open_game(d, 2, hints=True)
        table = await g.table()
        assert table.record.options["hints"] is True
        user = g.user_of_seat(table, table.state.current)
        step = (
            await d.click(user, g.turn_message().id, f"alx:move:{g.game_id}:{table.version}")
        ).response_message
        hint = f"alx:hint:{g.game_id}:{table.version}"
        assert hint in step.custom_ids, "the guided move has a Hint button"
        r = await d.click(user, step.id, hint)
        assert r.ephemeral and r.content.startswith("**Hint**")
        other = g.users[1] if user is g.users[0] else g.users[0]
        r = await d.slash(other, "alexandros learn hint")
        assert r.ephemeral and "It is not your turn" in r.content, "a hint for the player on turn only"


async def test_a_hint_in_german(tmp_path):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 2)) as d:
        alice = d.member("alice")
        alice.locale = "de"
        thread, gid = await _practice(d, alice)
        r = await d.slash(alice, "alexandros learn hint", channel_id=thread)
        assert r.ephemeral and r.content.startswith("**Tipp**"), r.content
        assert "Du hast in diesem Spiel 1 Tipp genutzt." in r.content
        assert any(w in r.content for w in ("Ziehe mit", "Nimm die offene Karte")), r.content
        assert "closest" not in r.content and "Move with" not in r.content


async def test_a_table_of_one_person_and_computers_has_hints_on_by_default(tmp_path):
    """Such a game is never rated (bot.outbox.ratings: two people at least), so the start turns hints on."""
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 2)) as d:
        alice = d.member("alice")
        g = await open_with_computer(d, alice)
        table = await g.table()
        assert table.record.options["hints"] is True and table.current_user == alice.id
        r = await d.slash(alice, "alexandros learn hint")
        assert r.ephemeral and r.content.startswith("**Hint**"), r.content
