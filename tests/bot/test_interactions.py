"""Refusals, double clicks, restarts and Discord's limits, through the offline Discord in strict mode."""

from __future__ import annotations

import asyncio
import random

import pytest

from engine import ai, rules
from engine.actions import EndTurn, Levy, Move
from engine.state import Phase
from offline.limits import check_command_tree
from tests.bot.driver import (
    CHANNEL,
    NAMES,
    POINTS_MAP,
    WALLS_MAP,
    Game,
    abandon,
    bot_factory,
    harness,
    open_game,
    play_whole_game,
    resign,
)
from tests.harness import HarnessError

pytest_plugins = ["tests.harness.fixtures"]


@pytest.fixture(autouse=True)
def _offline(no_network):
    yield


async def started(d, players: int = 2) -> Game:
    g = Game(d, [d.member(n) for n in NAMES[:players]])
    await g.open()
    return g


async def current_user(g: Game):
    table = await g.table()
    return g.user_of_seat(table, table.state.current), [u for u in g.users if u.id != table.current_user]


async def step(g: Game, n: int) -> None:
    """One greedy action, as a user would make it."""
    st = await g.state()
    await g.play(ai.greedy_player(st, random.Random(n)), n)


async def test_command_tree_is_within_discords_limits(tmp_path):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        for scope, payload in d.tree_payload.items():
            assert check_command_tree(payload) == [], scope
        paths = d.command_paths()
        for sub in (
            "new",
            "table join",
            "table leave",
            "table start",
            "me reminders",
            "me waiting",
            "me games",
            "ratings leaderboard",
            "move",
            "take",
            "occupy",
            "takeover",
            "levy",
            "takeback",
            "end",
            "hand",
            "board",
            "status",
            "log",
            "rules",
            "resign",
            "abandon",
            "agree",
        ):
            assert f"alexandros {sub}" in paths
        assert "alexandros-admin sync" in paths
        # Syncing is never done at start: only the login and the application info went out.
        assert not [r for r in d.requests if r.kind == "sync_commands"]


async def test_refusals_are_ephemeral_sentences(tmp_path):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        alice = d.member("alice")
        # A game that does not exist.
        r = await d.slash(alice, "alexandros status")
        assert r.ephemeral and "no game in this channel" in r.content
        r = await d.slash(alice, "alexandros end")
        assert r.ephemeral and "no game in this channel" in r.content

        g = await started(d)
        me, (other,) = await current_user(g)
        # A channel that already has one.
        r = await d.slash(alice, "alexandros new")
        assert r.ephemeral and "already has an unfinished game" in r.content
        # A non-player pressing a button.
        eve = d.member("eve")
        msg = g.turn_message()
        r = await d.click(eve, msg.id, f"alx:hand:{g.game_id}")
        assert r.ephemeral and "not playing in this game" in r.content
        st = await g.state()
        r = await d.click(eve, msg.id, f"alx:move:{g.game_id}:{st.version}")
        assert r.ephemeral and "not playing" in r.content
        # A player acting out of turn.
        r = await d.slash(other, "alexandros end")
        assert r.ephemeral and "not your turn" in r.content and me.name in r.content
        r = await d.click(other, msg.id, f"alx:move:{g.game_id}:{st.version}")
        assert r.ephemeral and "not your turn" in r.content
        # Autocomplete for the wrong player offers nothing to pick, only a hint.
        got = await d.autocomplete(other, "alexandros move", focused="card", value="")
        assert [c["value"] for c in got] == ["-"] and "turn" in got[0]["name"]
        # Actions before the move.
        r = await d.slash(me, "alexandros take", card="1")
        assert r.ephemeral and "move Alexander first" in r.content
        # An illegal target, with its distance against the closest.
        mc = rules.move_choices(st)[0]
        closest, spaces = rules.closest_targets(st, mc.symbol)
        farther = [
            s
            for s in rules.empty_spaces(st)
            if st.map.symbol[s] is mc.symbol and rules.space_distance(st, s) > closest
        ]
        from bot.texts import choices as ch
        from bot.words.words import count
        from engine.geometry import corners, point_label

        if farther:
            far = farther[0]
            corner = max(corners(far), key=lambda p: st.map.distance[st.alexander][p])
            dist = rules.space_distance(st, far)
            r = await d.slash(me, "alexandros move", card=ch.card_code(mc), to=point_label(corner), path="1")
            assert (
                r.ephemeral
                and f"{count(dist, 'side')} away" in r.content
                and f"closest empty {mc.symbol.value} space is {count(closest, 'side')} away" in r.content
            ), r.content
        r = await d.slash(me, "alexandros move", card=ch.card_code(mc), to="Z99", path="1")
        assert r.ephemeral and "not a point of this map" in r.content
        # Not enough cards, listing what is missing: the whole map as one province is far too dear.
        await step(g, 0)  # the move
        st = await g.state()
        free = [p for p in rules.province_infos(st) if p.owner is None and len(p.symbol_spaces) > 6]
        if free:
            r = await d.slash(me, "alexandros occupy", province=str(free[0].id))
            assert r.ephemeral and "Not enough cards" in r.content and "missing" in r.content, r.content
        r = await d.slash(me, "alexandros occupy", province="999")
        assert r.ephemeral and "no province 999" in r.content
        r = await d.slash(me, "alexandros levy", card="horse")
        assert r.ephemeral and r.content
        assert (await g.state()).version == st.version  # nothing was applied by any refusal
        g.check_public()


async def test_second_levy_and_stale_flow_are_refused(tmp_path):
    seen = {"levy": 0, "stale": 0}

    async def probe(g: Game, n: int) -> None:
        st = await g.state()
        if st.over:
            return
        table = await g.table()
        user = g.user_of_seat(table, st.current)
        seat = st.current
        if (
            st.phase is Phase.ACTIONS
            and rules.actions_left(st) == 2
            and rules.levy_cards(st, seat)
            and not seen["levy"]
        ):
            card = rules.levy_cards(st, seat)[0].value
            r = await g.d.slash(user, "alexandros levy", card=card)
            assert r.ephemeral and "You levied taxes" in r.content
            if (await g.state()).over:
                return
            r = await g.d.slash(user, "alexandros levy", card="horse")
            assert r.ephemeral and "already levied" in r.content
            seen["levy"] += 1
        if st.phase is Phase.MOVE and not seen["stale"] and n > 3:
            # Open the guided move, then move by command: the old menu is out of date.
            r = await g.d.click(user, g.turn_message().id, f"alx:move:{g.game_id}:{st.version}")
            flow = r.response_message
            move = ai.greedy_player(st, random.Random(n))
            assert isinstance(move, Move)
            from bot.texts import choices as ch

            card, to, path = ch.move_code(st, move)
            await g.d.slash(user, "alexandros move", card=card, to=to, path=path)
            r = await g.d.select(user, flow.id, f"alxs:mc:{g.game_id}:{st.version}", [card])
            # Refused before anything was deferred: the refusal is the press's own answer, a message of its
            # own (type 4), and the flow message stays as it was.
            assert r.type == 4 and r.ephemeral and "out of date" in (r.content or ""), r
            assert "step" not in (r.content or "")  # no version counters in a player's words
            seen["stale"] += 1

    async with harness(bot_factory(str(tmp_path / "g.db"), POINTS_MAP, 1)) as d:
        await play_whole_game(d, 2, ai_seed=1, on_action=probe)
    assert seen == {"levy": 1, "stale": 1}


async def test_double_click_applies_once(tmp_path):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        g = await started(d)
        await step(g, 0)  # the move; now End turn is live
        st = await g.state()
        me, _ = await current_user(g)
        msg = g.turn_message()
        cid = f"alx:end:{g.game_id}:{st.version}"
        first, second = await asyncio.gather(d.click(me, msg.id, cid), d.click(me, msg.id, cid))
        after = await g.state()
        assert after.turn == st.turn + 1  # one turn ended, not two
        answers = sorted([first.content, second.content])
        assert all(r.ephemeral for r in (first, second))
        assert any("already done or is out of date" in a for a in answers), answers
        assert any(a.startswith("Your turn is over") for a in answers), answers
        # Exactly one new turn message, pinging the next player once.
        pings = [r for r in first.sent + second.sent if r.pinged_user_ids]
        assert len(pings) == 1
        g.check_public()


async def test_restart_mid_game_keeps_buttons_and_commands_working(tmp_path):
    restarted = []

    async def restart(g: Game, n: int) -> None:
        if n in (5, 9) and not (await g.state()).over:
            old_turn = g.turn_message().id
            await g.d.restart()
            restarted.append(n)
            st = await g.state()
            table = await g.table()
            user = g.user_of_seat(table, st.current)
            r = await g.d.click(user, old_turn, f"alx:hand:{g.game_id}")  # a button from the old process
            assert r.ephemeral and r.files and "Your hand" in r.content

    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 3)) as d:
        g = await play_whole_game(d, 3, ai_seed=3, on_action=restart)
        assert (await g.state()).over
    assert restarted == [5, 9]


async def test_information_commands(tmp_path):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        g = await started(d, 3)
        for n in range(6):
            await step(g, n)
        me, others = await current_user(g)
        r = await d.slash(me, "alexandros hand")
        assert r.ephemeral and r.files and "Your hand" in r.content
        r = await d.slash(others[0], "alexandros status")
        assert r.ephemeral and "Turn" in r.content and "Walls left" in r.content and "<t:" in r.content
        r = await d.slash(others[0], "alexandros log", count=5)
        assert r.ephemeral and r.content.count("•") <= 5
        r = await d.slash(d.member("eve"), "alexandros board")
        assert not r.ephemeral and r.files and [c for c in r.response_message.custom_ids if "hand" in c]
        r = await d.slash(d.member("eve"), "alexandros rules")
        assert r.ephemeral and "ALEXANDROS.md" in r.content and len(r.content) <= 2000
        # The log names a drawn card only to the one who drew it.
        g.check_public()


async def test_resign_agree_and_abandon(tmp_path):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        g = await started(d, 3)
        await step(g, 0)
        me, others = await current_user(g)
        r = await d.slash(me, "alexandros resign")  # P1: asked first, and nothing changes until confirmed
        assert r.ephemeral and "cannot be undone" in r.content
        assert any(c.startswith("alx:resign:") for c in r.response_message.custom_ids)
        assert not any(p.resigned for p in (await g.state()).players)
        r = await resign(d, me)
        assert r.ephemeral and "resigned" in r.content
        st = await g.state()
        assert st.players[(await g.table()).seat_of(me.id)].resigned and not st.over
        # The two others agree to end it.
        r = await d.slash(others[0], "alexandros agree")
        assert r.ephemeral and "waiting for" in r.content.lower()
        r = await d.slash(others[0], "alexandros agree")
        assert r.ephemeral and "already agreed" in r.content
        r = await d.slash(others[1], "alexandros agree")
        assert r.ephemeral
        st = await g.state()
        assert st.over and st.result.reason.value == "agreed"
        *_, end, replay = d.channel_messages()  # the end post, then its replay (issue 16)
        assert "is over" in end.content and replay.content.startswith("Replay of game")
        # Rated (issue 16): the player who resigned ranks last, below both who agreed.
        board = await d.bot.store.ratings(d.guild_id)
        assert len(board) == 3 and board[-1].user_id == me.id and board[-1].mu < min(r.mu for r in board[:2])
        g.check_public()
        # Abandon: a stranger may not, the creator may; the channel is free again.
        g2 = await started(d, 2)
        r = await d.slash(d.member("eve"), "alexandros abandon")
        assert r.ephemeral and "Only the game's creator" in r.content
        r = await abandon(d, g2.users[0])
        assert r.ephemeral and "You abandoned" in r.content
        assert "was abandoned by" in d.last_message().content and not d.last_message().ephemeral
        r = await d.slash(g2.users[0], "alexandros new")
        assert not r.ephemeral


async def test_p3_a_second_vote_agrees_and_p1_a_resignation_that_ends_the_game_is_answered(tmp_path):
    """P3: the second player to agree is announced as agreeing, not as proposing again. P1: the last but
    one resigns, which ends the game; they read that they resigned (they read that the game is over: the
    vote count that followed asked the finished table, and its refusal replaced the answer)."""
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        g = await started(d, 3)
        a, b, _ = g.users
        await d.slash(a, "alexandros agree")
        assert f"{a.name} proposes to end the game" in d.last_message().content
        await d.slash(b, "alexandros agree")
        # The newest announcement (the status message, due 20 s after the start, may be posted meanwhile).
        said = [m for m in d.channel_messages() if not m.content.startswith("📌")][-1].content
        assert said.startswith(f"{b.name} agrees to end the game too (waiting for"), said
    async with harness(bot_factory(str(tmp_path / "g2.db"), WALLS_MAP, 1)) as d:
        g = await started(d, 2)
        r = await resign(d, g.users[0])
        assert r.ephemeral and "resigned" in r.content and "finished" not in r.content, r.content
        assert (await g.state()).over


async def test_p3_p1_a_resignation_that_leaves_only_players_who_agreed_ends_the_game(tmp_path):
    """P3, P1: two of three agreed to end, then the third resigns. Everyone left has agreed, so the game
    ends then (it used to go on, and each further /agree was refused as "already agreed"). The channel reads
    the resignation before the game's end: both are written by the one commit, in that order."""
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        g = await started(d, 3)
        a, b, c = g.users
        for u in (a, b):
            r = await d.slash(u, "alexandros agree")
            assert r.ephemeral and "waiting for" in r.content.lower()
        r = await resign(d, c)
        assert r.ephemeral and "resigned" in r.content
        st = await g.state()
        assert st.over and st.result.reason.value == "agreed"
        texts = [m.content for m in d.channel_messages()]
        resigned = next(i for i, x in enumerate(texts) if "resigned" in x)
        over = next(i for i, x in enumerate(texts) if "is over" in x)
        assert resigned < over, texts[resigned:]
        r = await d.slash(a, "alexandros agree")
        assert r.ephemeral and "already agreed" not in r.content


async def test_board_log_and_status_still_answer_after_the_game(tmp_path):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        g = await started(d, 2)
        await step(g, 0)
        a, b = g.users
        await d.slash(a, "alexandros agree")
        await d.slash(b, "alexandros agree")
        assert (await g.state()).over
        # Showing commands find the game that just ended in this channel ...
        r = await d.slash(d.member("eve"), "alexandros board")
        assert not r.ephemeral and r.files and not r.response_message.custom_ids
        assert f"game {g.game_id}** (finished)" in r.content
        r = await d.slash(a, "alexandros status")
        assert r.ephemeral and "(finished)" in r.content and "Scores" in r.content
        assert "Turn " not in r.content
        # How it ended, as the refusals below promise: the reason and the winners.
        assert "is over** — the players agreed to end it; " in r.content
        assert " won with " in r.content or " share the win with " in r.content
        r = await d.slash(a, "alexandros log", count=3)
        assert r.ephemeral and r.content.count("•") == 3
        # ... while turn commands say the game ended, where to see how, and how to start another.
        for command in ("alexandros end", "alexandros hand", "alexandros agree"):
            r = await d.slash(a, command)
            assert r.ephemeral and "is finished" in r.content and "/alexandros status" in r.content
            assert "/alexandros new" in r.content
        # An abandoned game shows too, as abandoned; a table closed in the lobby shows its lobby text.
        g2 = await started(d, 2)
        turn = next(m for m in reversed(d.channel_messages(CHANNEL)) if m.custom_ids)
        await abandon(d, g2.users[0])
        assert not d.message(turn.id).custom_ids  # the turn message (found in the metadata) lost its buttons
        r = await d.slash(a, "alexandros status")
        assert r.ephemeral and f"game {g2.game_id}** (abandoned)" in r.content and "Turn " not in r.content
        r = await d.slash(a, "alexandros board")
        assert not r.ephemeral and r.files and not r.response_message.custom_ids
        r = await d.slash(a, "alexandros end")
        assert r.ephemeral and "is abandoned" in r.content and "/alexandros new" in r.content
        await d.slash(a, "alexandros new")
        r = await d.slash(a, "alexandros board")
        assert r.ephemeral and "not started" in r.content.lower()
        await abandon(d, a)
        r = await d.slash(a, "alexandros board")
        assert r.ephemeral and "was closed" in r.content
        g.check_public()


async def test_lobby_buttons_and_thread(tmp_path):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        alice, bob = d.member("alice"), d.member("bob")
        r = await d.slash(alice, "alexandros new", thread=True)
        assert r.ephemeral and "<#" in r.content
        thread_id = r.of_kind("thread")[0].channel_id if r.of_kind("thread") else None
        assert thread_id is not None
        lobby = d.channel_messages(thread_id)[0]
        gid = int(lobby.custom_ids[0].split(":")[2])
        r = await d.click(alice, lobby.id, f"alx:start:{gid}")
        assert r.ephemeral and "at least 2 players" in r.content
        await d.click(bob, lobby.id, f"alx:join:{gid}")
        r = await d.click(bob, lobby.id, f"alx:join:{gid}")
        assert r.ephemeral and "already seated" in r.content
        r = await d.click(bob, lobby.id, f"alx:start:{gid}")
        assert r.ephemeral and "Only alice" in r.content
        await d.click(bob, lobby.id, f"alx:leave:{gid}")
        assert f"<@{bob.id}>" not in d.message(lobby.id).content
        await d.click(bob, lobby.id, f"alx:join:{gid}")
        r = await d.click(alice, lobby.id, f"alx:start:{gid}")
        turn = d.channel_messages(thread_id)[-1]
        assert turn.attachments and "your turn" in turn.content
        assert not d.message(lobby.id).custom_ids  # the lobby's buttons are gone
        assert isinstance(EndTurn, type) and isinstance(Levy, type)


async def test_a_failed_post_keeps_the_game_and_board_posts_it_again(tmp_path):
    import types

    import discord

    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        g = await started(d)
        real = d.bot.http.request

        async def down(route, **kwargs):
            if route.path.startswith("/channels/{channel_id}/messages") and route.method in ("POST", "PATCH"):
                raise discord.HTTPException(
                    types.SimpleNamespace(status=503, reason="down"),
                    {"code": 0, "message": "Discord is down"},
                )
            return await real(route, **kwargs)

        d.bot.http.request = down
        before = await g.state()
        await step(g, 0)  # the move is answered privately and saved, though nothing reached the channel
        after = await g.state()
        assert after.version > before.version
        d.bot.http.request = real
        r = await d.slash(d.member("eve"), "alexandros board")
        assert not r.ephemeral and r.files
        assert f"alx:acts:{g.game_id}:{after.version}" in r.response_message.custom_ids
        me, _ = await current_user(g)
        r = await d.click(me, r.response_message.id, f"alx:acts:{g.game_id}:{after.version}")
        assert r.ephemeral and r.response_message.custom_ids == [f"alxs:act:{g.game_id}:{after.version}"]


async def test_a_waiting_player_is_reminded_once_per_interval(tmp_path):
    from tests.bot.driver import Clock

    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        g = await started(d)
        me, _ = await current_user(g)

        async def reminders(now: float) -> list:
            mark = d.mark()
            await d.bot.deliveries.drain(now)
            # The pinned status message (bot.commands.dashboard) is a channel message too, but no reminder.
            sent = [r for r in d.requests_since(mark) if r.kind == "channel_message"]
            return [r for r in sent if not (r.content or "").startswith("📌")]

        assert await reminders(clock.now + 3600) == []  # not yet: the table's interval is 24 h
        (sent,) = await reminders(clock.now + 25 * 3600)
        assert sent.pinged_user_ids == {me.id} and "a reminder" in sent.content
        assert await reminders(clock.now + 26 * 3600) == []  # the next one comes a day later
        (again,) = await reminders(clock.now + 50 * 3600)
        assert again.pinged_user_ids == {me.id} and "a reminder" in again.content
        g.check_public()


async def test_a_button_from_an_older_turn_is_refused_as_out_of_date(tmp_path):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        g = await started(d)
        await step(g, 0)  # the move
        me, (other,) = await current_user(g)
        old = await d.slash(other, "alexandros board")  # a public board with this turn's buttons
        st = await g.state()
        end_cid = f"alx:end:{g.game_id}:{st.version}"
        assert end_cid in old.response_message.custom_ids
        await d.slash(me, "alexandros end")
        r = await d.click(me, old.response_message.id, end_cid)  # pressed after the turn ended
        assert r.ephemeral and "out of date" in r.content
        assert (await g.state()).turn == st.turn + 1
        # The closed turn message has lost its buttons; the new one has them.
        closed = d.message(g.turn_message().id)
        assert f"alx:end:{g.game_id}:{st.version}" not in closed.custom_ids


async def test_commands_are_synced_only_when_asked(tmp_path):
    from bot.client import make_bot

    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        r = await d.slash(d.owner, "alexandros-admin sync")
        assert r.ephemeral and "no copies of the commands" in r.content
        assert [q for q in d.requests if q.kind == "sync_commands"]

    def syncing():
        return make_bot(str(tmp_path / "h.db"), map_provider=lambda: WALLS_MAP, sync=True, sync_guild=123)

    async with harness(syncing) as d:
        synced = [q for q in d.requests if q.kind == "sync_commands"]
        assert len(synced) == 1 and "123" in synced[0].url


async def test_public_pictures_need_the_public_view():
    from bot.games.pictures import Pictures, PublicViewRequired
    from engine.game import new_game
    from engine.views import view

    state, _ = new_game(WALLS_MAP, 2, 1)
    pics = Pictures(width=480)
    with pytest.raises(PublicViewRequired):
        await pics.board(view(state, 0), ["a", "b"], language="en")
    with pytest.raises(PublicViewRequired):
        await pics.end(view(state, 1), ["a", "b"], language="en")
    png = await pics.board(view(state, None), ["a", "b"], language="en")
    assert png.startswith(b"\x89PNG") and pics.calls == [("board", None)] and pics.failures == 0


async def test_a_turn_past_the_tables_deadline_is_skipped(tmp_path):
    from tests.bot.driver import Clock

    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        alice, bob = d.member("alice"), d.member("bob")
        r = await d.slash(alice, "alexandros new", deadline_hours=2)
        assert "Turn deadline: 2 hours" in r.response_message.content
        gid = int(r.response_message.custom_ids[0].split(":")[2])
        await d.click(bob, r.response_message.id, f"alx:join:{gid}")
        await d.click(alice, r.response_message.id, f"alx:start:{gid}")
        g = Game(d, [alice, bob], game_id=gid)
        before = await g.state()
        first = (await g.table()).current_user
        assert "skipped <t:" in g.turn_message().content
        await d.bot.deliveries.drain(clock.now + 3600)  # within the deadline: nothing happens
        assert (await g.state()).turn == before.turn
        mark = d.mark()
        clock.now += 2 * 3600 + 5
        await d.bot.deliveries.drain(clock.now)
        after = await g.state()
        assert after.turn == before.turn + 1 and (await g.table()).current_user != first
        sent = [q for q in d.requests_since(mark) if q.public_post]
        assert any("deadline and was skipped" in (q.content or "") for q in sent)
        pinged = [q for q in sent if q.pinged_user_ids]
        assert len(pinged) == 1 and pinged[0].pinged_user_ids == {(await g.table()).current_user}
        await d.bot.deliveries.drain(clock.now + 10)  # the skip happens once; the next turn has its own time
        assert (await g.state()).turn == after.turn


async def test_players_set_their_own_reminders(tmp_path):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        ann = d.member("ann")
        r = await d.slash(ann, "alexandros me reminders")
        assert r.ephemeral and "the table's interval" in r.content
        r = await d.slash(
            ann, "alexandros me reminders", hours=12, quiet="22:00-08:00", time_zone="Europe/Paris"
        )
        assert r.ephemeral and "every 12 hours" in r.content and "22:00-08:00" in r.content
        assert "Europe/Paris" in r.content
        r = await d.slash(ann, "alexandros me reminders", time_zone="Mars/Olympus")
        assert r.ephemeral and "Mars/Olympus" in r.content and "Saved" not in r.content
        r = await d.slash(ann, "alexandros me reminders", quiet="late")
        assert r.ephemeral and "22:00-08:00" in r.content  # an example of what is allowed
        settings = await d.bot.store.get_user_settings(ann.id)
        assert settings["reminder_hours"] == 12 and settings["time_zone"] == "Europe/Paris"
        # Whole hours: 0.001 (a channel reminder every 3.6 seconds, "every 0 hours") is refused by the
        # Discord client, as any value outside the option's type and range.
        for hours in (0.001, 0.5, 169):
            with pytest.raises(HarnessError):
                await d.slash(ann, "alexandros me reminders", hours=hours)
        assert (await d.bot.store.get_user_settings(ann.id))["reminder_hours"] == 12


async def test_autocomplete_explains_a_missing_earlier_option(tmp_path):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        g = await started(d)
        me, _ = await current_user(g)
        got = await d.autocomplete(me, "alexandros move", focused="to", value="")
        assert [c["value"] for c in got] == ["-"] and "card" in got[0]["name"].lower()
        r = await d.slash(me, "alexandros move", card="-", to="-")
        assert r.ephemeral and "card" in r.content


async def test_the_bot_asks_discord_for_the_guilds_intent_only(tmp_path) -> None:
    """It reads nothing but interactions (which need no intent) and the servers' channels and threads: the
    default intents would also have Discord send it, and discord.py parse, every message, edit, typing and
    reaction of every channel it can see."""
    import discord

    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        assert d.bot.intents == discord.Intents(guilds=True)
        g = await open_game(d)  # and a game still opens, starts and posts its turn
        assert (await g.table()).record.status == "playing"


async def test_a_component_or_form_no_handler_knows_is_answered_privately_and_a_command_starts_no_fallback(
    tmp_path,
):
    """bot.commands.fallback (issue 11): a button whose custom_id no handler matches (an older version's) and
    a form the bot no longer knows get a private answer, not "This interaction failed". Slash commands and
    autocomplete, which always have a handler, do not start the fallback at all (it cost a task each)."""
    import bot.client
    from bot.commands import fallback
    from bot.texts import private

    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        g = await started(d)
        calls = []
        real = fallback.answer_unknown

        async def counted(interaction):
            calls.append(interaction.type.name)
            await real(interaction)

        bot.client.answer_unknown = counted
        try:
            await d.slash(g.users[0], "alexandros status")
            await d.autocomplete(g.users[0], "alexandros take", focused="card", value="")
            assert calls == []
            msg = g.turn_message()
            comp = next(c for c in msg.walk_components() if c.get("custom_id", "").startswith("alx:hand:"))
            cid, comp["custom_id"] = comp["custom_id"], "alx-old:hand:1"
            try:
                r = await d.click(g.users[0], msg.id, "alx-old:hand:1")
            finally:
                comp["custom_id"] = cid
            assert r.ephemeral and r.content == private.button_retired()
            form = {"custom_id": "alxm:old:1", "components": [
                {"type": 1, "components": [{"type": 4, "custom_id": "f", "value": "x"}]}]}  # fmt: skip
            r = await d.stale(g.users[0], 5, form, channel_id=CHANNEL)
            assert r.ephemeral and r.content == private.form_retired()
            assert calls == ["component", "modal_submit"]
        finally:
            bot.client.answer_unknown = real
