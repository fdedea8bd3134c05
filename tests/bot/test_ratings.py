"""Ratings, the leaderboard and replays (issue 16), through the offline Discord: a game's end rates its
players once and posts its replay; computer players and abandoned games are not rated; ratings can be
recomputed from the stored games."""

from __future__ import annotations

import asyncio
import io
import random
from dataclasses import replace

import pytest
from PIL import Image

from bot.__main__ import main as bot_main
from bot.outbox import ratings as rt
from engine import ai
from engine.game import new_game
from engine.state import GameState, PlayerState
from engine.symbols import NO_CARDS
from storage import Duty, GameRecord, open_store
from tests.bot.driver import NAMES, WALLS_MAP, Clock, Game, abandon, bot_factory, harness, play_whole_game

pytest_plugins = ["tests.harness.fixtures"]

HOUR = 3600.0


@pytest.fixture(autouse=True)
def _offline(no_network):
    yield


def _state(scores: list[int], resigned: tuple[int, ...] = ()) -> GameState:
    st, _ = new_game(WALLS_MAP, len(scores), 1)
    players = tuple(PlayerState(NO_CARDS, frozenset(), s, i in resigned) for i, s in enumerate(scores))
    return replace(st, players=players)


def test_final_ranks_share_ties_and_put_resigned_players_last() -> None:
    # D9: tied scores share a rank; a resigned player ranks last whatever their score.
    assert rt.final_ranks(_state([10, 30, 10, 50], resigned=(3,))) == {1: 1, 0: 2, 2: 2, 3: 4}
    assert rt.final_ranks(_state([5, 5])) == {0: 1, 1: 1}


def _record(status: str = "finished", guild: int | None = 1) -> GameRecord:
    return GameRecord(1, guild, 2, status, {}, 9, 0.0, 0.0, 11, None, None, ((0, 11), (1, 12), (2, 13)))  # type: ignore[arg-type]


def test_who_is_rated() -> None:
    from dataclasses import replace

    from engine.state import EndReason, GameResult, Phase

    playing = _state([40, 20, 30])
    over = replace(playing, phase=Phase.OVER, result=GameResult(EndReason.WALLS, (0,), (40, 20, 30)))
    places = rt.placements(_record(), over, {})
    assert [(p.user_id, p.rank, p.won) for p in places] == [(11, 1, True), (12, 3, False), (13, 2, False)]
    # The computer's seat is left out; the others are rated among themselves.
    assert [p.user_id for p in rt.placements(_record(), over, {rt.META_COMPUTER: [12]})] == [11, 13]
    # Not rated: one human left, an abandoned game, a game outside a server, a game not over.
    assert rt.placements(_record(), over, {rt.META_COMPUTER: [12, 13]}) == []
    assert rt.placements(_record("abandoned"), over, {}) == []
    assert rt.placements(_record(guild=None), over, {}) == []
    assert rt.placements(_record(), playing, {}) == []


def test_the_winner_gains_and_the_loser_loses() -> None:
    places = [rt.Placement(1, 1, True), rt.Placement(2, 2, False)]
    a, b = rt.rated(5, places, {}, 0.0)
    assert a.mu > rt.MU > b.mu and a.sigma < rt.SIGMA and (a.games, a.wins, b.games, b.wins) == (1, 1, 1, 0)
    tie = rt.rated(5, [rt.Placement(1, 1, True), rt.Placement(2, 1, True)], {}, 0.0)
    assert tie[0].mu == pytest.approx(tie[1].mu)


def distinct_scores_seed(players: int) -> int:
    """A seed whose greedy game on WALLS_MAP ends with every score different: the ranks tell apart."""
    for seed in range(1, 60):
        st, _, _ = ai.play_game(WALLS_MAP, players, seed, check=False)
        if len({p.score for p in st.players}) == players:
            return seed
    raise AssertionError("no seed with distinct scores")


async def test_a_finished_game_is_rated_once_and_its_replay_posted(tmp_path):
    seed = distinct_scores_seed(3)
    db = str(tmp_path / "g.db")
    async with harness(bot_factory(db, WALLS_MAP, seed)) as d:
        g = await play_whole_game(d, 3, ai_seed=seed)
        st = await g.state()
        assert st.result is not None
        store = d.bot.store
        *_, end, replay = d.channel_messages()
        assert "is over" in end.content
        (gif,) = replay.attachments
        assert gif.filename == "replay.gif" and gif.data[:6] == b"GIF89a" and len(gif.data) < 8 * 2**20
        frames = Image.open(io.BytesIO(gif.data)).n_frames
        assert frames == st.turn + 1, "one frame per turn and the final board"
        assert ("replay", None) in d.bot.pictures.calls  # drawn from the public view only

        board = await store.ratings(d.guild_id)
        assert len(board) == 3 and all(r.games == 1 for r in board)
        winners = {g.user_of_seat(await g.table(), s).id for s in st.result.winners}
        assert {r.user_id for r in board if r.wins} == winners
        assert board[0].user_id in winners and board[0].mu > rt.MU > board[-1].mu
        by_score = sorted(range(3), key=lambda seat: -st.players[seat].score)
        table = await g.table()
        assert [r.user_id for r in board] == [table.user_of(seat) for seat in by_score]
        assert await store.rated_games(d.guild_id) == [g.game_id]

        # The duty handed out again (a worker died after rating, before finishing it): nothing changes.
        duty = Duty(999, g.game_id, d.guild_id, None, None, rt.RATE, None, 0.0, {"game": g.game_id}, 0.0)
        assert await d.bot.handlers.ratings.handle(duty, 0.0) == "dropped: already rated"
        assert await store.ratings(d.guild_id) == board

        # The leaderboard and the stats, public and pinging nobody.
        r = await d.slash(g.users[0], "alexandros ratings leaderboard")
        assert not r.ephemeral and not r.pings
        lines = [line for line in r.content.splitlines() if line[:1].isdigit()]
        assert [line.split("<@")[1].split(">")[0] for line in lines] == [str(x.user_id) for x in board]
        loser = board[-1]
        r = await d.slash(g.users[0], "alexandros ratings stats", {"user": loser.user_id})
        assert not r.ephemeral and not r.pings
        assert (
            f"<@{loser.user_id}>" in r.content
            and "1 game, 0 wins" in r.content
            and "Place 3 of 3" in r.content
        )
        stranger = d.member("erin")
        r = await d.slash(stranger, "alexandros ratings stats")
        assert "no rated game" in r.content

        # /alexandros replay: the same game again, on demand.
        r = await d.slash(stranger, "alexandros replay")
        assert not r.ephemeral and r.response_message is not None
        (again,) = r.response_message.attachments
        assert again.filename == "replay.gif" and Image.open(io.BytesIO(again.data)).n_frames == frames
        # The next table opened in the channel (a lobby): the replay is still the finished game's.
        r = await d.slash(stranger, "alexandros new")
        assert r.response_message is not None and not r.ephemeral
        r = await d.slash(stranger, "alexandros replay")
        assert not r.ephemeral and f"game {g.game_id}" in r.content
        (again,) = r.response_message.attachments
        assert Image.open(io.BytesIO(again.data)).n_frames == frames
        assert await d.bot.store.game_by_channel(d.channel_id) is not None  # the lobby is still open

        # Recomputed from the stored games: the same ratings (the admin command).
        admin = d.member("admin", permissions=1 << 5)  # Manage Server
        r = await d.slash(admin, "alexandros-admin recompute-ratings")
        assert r.ephemeral and "1 rated game" in r.content and "3 players" in r.content
        again_board = await store.ratings(d.guild_id)
        assert [(x.user_id, x.games, x.wins) for x in again_board] == [
            (x.user_id, x.games, x.wins) for x in board
        ]
        for x, y in zip(again_board, board, strict=True):
            assert x.mu == pytest.approx(y.mu) and x.sigma == pytest.approx(y.sigma)
        guild = d.guild_id

    # And from the command line of the host, with the bot stopped.
    before = await _ratings_of(db, guild)
    assert await asyncio.to_thread(bot_main, ["ratings", "--recompute", "--db", db]) == 0
    after = await _ratings_of(db, guild)
    # pytest.approx compares flat sequences only (pytest 9 refuses nested ones): ids and counts exactly,
    # then each row's mu and sigma approximately.
    assert [(u, g, w) for u, _, _, g, w in after] == [(u, g, w) for u, _, _, g, w in before]
    for row, old_row in zip(after, before, strict=True):
        assert row[1:3] == pytest.approx(old_row[1:3])


async def _ratings_of(db: str, guild: int) -> list[tuple[int, float, float, int, int]]:
    store = await open_store(db)
    try:
        return [(r.user_id, r.mu, r.sigma, r.games, r.wins) for r in await store.ratings(guild)]
    finally:
        await store.close()


async def test_a_recompute_after_forget_me_keeps_the_others_results(tmp_path):
    """A player asks to be forgotten after a rated game; a recomputation later (after a database move, or
    by an admin) gives the others the results the live rating gave them. It dropped the game when only one
    real player was left, and changed the others' results in bigger games."""
    for players in (2, 3):
        seed = distinct_scores_seed(players)
        clock = Clock()
        db = tmp_path / f"g{players}.db"
        async with harness(bot_factory(str(db), WALLS_MAP, seed, clock=clock)) as d:
            g = await play_whole_game(d, players, ai_seed=seed)
            await d.bot.deliveries.drain(clock.now + 5)
            store = d.bot.store
            live = {r.user_id: r for r in await store.ratings(d.guild_id)}
            assert len(live) == players
            gone = g.users[0]
            r = await d.slash(gone, "alexandros me forget")
            r = await d.click(gone, r.response_message.id, f"alx:forget:{gone.id}")
            assert "Done" in r.content
            assert await store.rating_of(d.guild_id, gone.id) is None
            assert await d.bot.handlers.ratings.recompute(d.guild_id, clock()) == (1, players - 1)
            after = {r.user_id: r for r in await store.ratings(d.guild_id)}
            assert set(after) == set(live) - {gone.id}
            for uid, r in after.items():
                assert (r.games, r.wins) == (live[uid].games, live[uid].wins)
                assert r.mu == pytest.approx(live[uid].mu) and r.sigma == pytest.approx(live[uid].sigma)
            assert all(uid > 0 for uid in after)


async def test_an_abandoned_game_is_not_rated_and_has_no_replay_post(tmp_path):
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        users = [d.member(n) for n in NAMES[:2]]
        g = Game(d, users)
        await g.open()
        await g.play(ai.greedy_player(await g.state(), random.Random(0)), 0)
        r = await abandon(d, users[0])  # the command, then its confirmation button (issue 15)
        assert "You abandoned" in r.content
        await d.bot.deliveries.drain()
        assert (await d.bot.store.game_by_id(g.game_id)).status == "abandoned"
        assert await d.bot.store.ratings(d.guild_id) == []
        assert not any(m.content.startswith("Replay of game") for m in d.channel_messages())
        r = await d.slash(users[0], "alexandros ratings leaderboard")
        assert "No game on this server has been rated yet" in r.content


async def test_a_seat_the_computer_played_at_the_end_is_not_rated(tmp_path):
    clock = Clock()
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1, clock=clock)) as d:
        users = [d.member(n) for n in NAMES[:2]]
        r = await d.slash(users[0], "alexandros new", deadline_hours=2, deadline_policy="autoplay")
        gid = int(r.response_message.custom_ids[0].split(":")[2])
        await d.click(users[1], r.response_message.id, f"alx:join:{gid}")
        await d.click(users[0], r.response_message.id, f"alx:start:{gid}")
        g = Game(d, users, game_id=gid)
        table = await g.table()
        absent = g.user_of_seat(table, table.state.current)
        clock.now += 2 * HOUR + 5
        await d.bot.deliveries.drain(clock.now)  # the deadline passes: the computer plays for them
        rng = random.Random(3)
        for n in range(400):
            st = await g.state()
            if st.over:
                break
            table = await g.table()
            if table.current_user == absent.id:
                await d.bot.deliveries.drain(clock.now)  # their turn is due at once: the computer plays it
                continue
            await g.play(ai.greedy_player(st, rng), n)
        assert (await g.state()).over
        await d.bot.deliveries.drain(clock.now)
        meta = await d.bot.store.get_game_meta(gid)
        assert meta[rt.META_COMPUTER] == [absent.id] and meta.get("absent") is None
        # One human left: the game is not rated (and a recomputation decides the same).
        assert await d.bot.store.ratings(d.guild_id) == []
        assert await d.bot.handlers.ratings.recompute(d.guild_id, clock.now) == (0, 0)
        assert any(m.content.startswith(f"Replay of game {gid}") for m in d.channel_messages())


async def test_a_game_rated_while_ratings_are_recomputed_is_counted_once(tmp_path):
    seed = distinct_scores_seed(2)
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, seed)) as d:
        first = await play_whole_game(d, 2, ai_seed=seed)
        second = await play_whole_game(d, 2, ai_seed=seed)
        store = d.bot.store
        assert await store.rated_games(d.guild_id) == [first.game_id, second.game_id]
        rater = d.bot.handlers.ratings
        real_list = store.list_games
        calls = 0

        async def listed_before_the_second_ended(*args, **kwargs):
            nonlocal calls
            calls += 1
            games = await real_list(*args, **kwargs)
            return [g for g in games if g.id != second.game_id] if calls == 1 else games

        rater.store = _Proxy(store, list_games=listed_before_the_second_ended)
        assert await rater.recompute(d.guild_id, 0.0) == (2, 2)
        assert await store.rated_games(d.guild_id) == [first.game_id, second.game_id]
        assert all(r.games == 2 for r in await store.ratings(d.guild_id))


class _Proxy:
    """The store, with some methods replaced."""

    def __init__(self, inner, **methods):
        self._inner, self._methods = inner, methods

    def __getattr__(self, name):
        return self._methods.get(name) or getattr(self._inner, name)


async def test_the_replay_is_posted_once_through_a_lost_reply(tmp_path):
    """Discord made the replay's message but its answer was lost: the retry meets the same message."""
    clock = Clock()
    seed = distinct_scores_seed(2)
    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, seed, clock=clock)) as d:

        def is_replay(q) -> bool:
            return isinstance(q.payload, dict) and str(q.payload.get("content", "")).startswith("Replay of")

        d.fail("channel_message", "503", times=2, lost_reply=True, when=is_replay)
        g = await play_whole_game(d, 2, ai_seed=seed)
        for k in range(1, 11):  # let the worker's back-offs pass
            await d.bot.deliveries.drain(clock.now + 10 * k)
        replays = [m for m in d.channel_messages() if m.content.startswith(f"Replay of game {g.game_id}")]
        assert len(replays) == 1 and replays[0].attachments
        assert len(d.faults[0].hits) == 2
        assert any(q.deduplicated for q in d.requests), "the retry met the message Discord had made"
        assert [x for x in await d.bot.store.pending_duties(g.game_id) if x.kind == "replay"] == []
        assert [r.games for r in await d.bot.store.ratings(d.guild_id)] == [1, 1]


async def test_a_replay_is_drawn_in_the_worker_processes(tmp_path):
    """The bot's pool of render processes (not the event loop's thread) draws the replay."""
    from bot.games.pictures import Pictures

    st, events, _ = ai.play_game(WALLS_MAP, 2, 1, check=False)
    pictures = Pictures(width=640, workers=1)
    pictures.start()
    try:
        from engine import serialize

        data = await pictures.replay([serialize.dump(e) for e in events], ["alice", "bob"], language="en")
    finally:
        pictures.close()
    assert data[:6] == b"GIF89a" and Image.open(io.BytesIO(data)).n_frames == st.turn + 1


async def test_a_refusal_after_a_public_defer_never_shows_its_words_to_everyone(tmp_path, caplog):
    """Discord makes the first followup after a public defer replace the public "thinking" message, whatever
    its ephemeral flag (the offline Discord does the same). A refusal raised after such a defer (a bug: the
    checks come first) would have gone public, naming the asker's cards: the answer is the generic apology,
    and the bug is logged."""
    from bot.games.tables import Refused
    from engine.symbols import Symbol

    async with harness(bot_factory(str(tmp_path / "g.db"), WALLS_MAP, 1)) as d:
        alice = d.member("alice")

        async def refusing(*args, **kwargs):
            raise Refused("move/not-in-hand", card=Symbol.SOLDIER, allowed="hand: soldier (special)")

        d.bot.store.ratings = refusing
        with caplog.at_level("ERROR", logger="bot"):
            r = await d.slash(alice, "alexandros ratings leaderboard", check=False)  # the bug is logged
        assert "soldier" not in r.content.lower() and "went wrong" in r.content.lower(), r.content
        assert any("after a public defer" in rec.getMessage() for rec in caplog.records)


def test_equal_ratings_share_a_place_on_the_leaderboard() -> None:
    """Two players with the same rating were ranked 1 and 2."""
    from bot.texts import posts
    from storage import PlayerRating

    players = ((11, 27.6, 1), (12, 27.6, 1), (13, 22.4, 0))
    a, b, c = (PlayerRating(1, u, mu, 8.333, 1, w, 0.0) for u, mu, w in players)
    assert posts.places([a, b, c]) == [1, 1, 3]
    board = posts.leaderboard_text([a, b, c], "en")
    assert "\n1. <@11>" in board and "\n1. <@12>" in board and "\n3. <@13>" in board


async def test_the_command_line_recompute_of_a_database_with_no_finished_game_says_so(tmp_path, capsys):
    from storage import open_database

    db = str(tmp_path / "fresh.db")
    store = await open_database(db)
    await store.close()
    assert await asyncio.to_thread(bot_main, ["ratings", "--recompute", "--db", db]) == 0
    assert "nothing to rate" in capsys.readouterr().out
