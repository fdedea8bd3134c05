"""Plays whole games through the offline Discord, the way users would: every engine action chosen by a
computer player is turned into the slash commands, autocomplete picks, selects and buttons a person would
use, and every public message is checked on the way (mentions, nothing secret, pictures from the public
view), every private answer for being ephemeral.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.client import make_bot
from engine import ai, rules
from engine.actions import Action, CardSource, EndTurn, Levy, Move, Occupy, TakeBack, TakeCard, TakeOver
from engine.maps import Map, parse_map
from engine.state import GameState
from engine.symbols import as_list
from tests.harness import FakeUser, InteractionResult, OfflineDiscord, StoredMessage

try:
    from bot.games.pictures import Pictures
    from bot.texts import choices as ch
except ImportError:  # benchmarks/bench_bot.py drives the old bot's tree, whose modules had no rooms yet
    from bot.pictures import Pictures  # type: ignore[import-not-found,no-redef]

    from bot import choices as ch  # type: ignore[attr-defined,no-redef]

GUILD = 424_242_424_242_424_242
CHANNEL = 535_353_535_353_535_353

WALLS_MAP = parse_map("""name: walls test
start: A1
walls: 14 black, 3 red
grid:
.T.A.H.L.S.
S.L.H.A.T..
.T.A.H.L.S.
""")

POINTS_MAP = parse_map("""name: points test
start: A1
walls: 60 black, 10 red
grid:
T.....A.....H.....L.....S.....T
..S.....L.....H.....A.....T....
....H.....T.....S.....L.....A..
A.....L.....T.....H.....S......
""")

NAMES = ("alice", "bob", "carol", "dave")
SECRET_DRAW = re.compile(r"drew a card \(")


class Clock:
    """A settable clock: every read moves it on by one second, so timestamps are distinct and stable."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def bot_factory(
    db_path: str,
    game_map: Map,
    seed: int,
    clock: Clock | None = None,
    pictures: Pictures | None = None,
    thinkers: Any = None,
    lanes: bool = True,
) -> Callable[[], Any]:
    """``lanes=False``: every post and edit through the channel routes, as for a change no interaction
    caused (a timer, another process, a token expired): the outbox's own path (bot.outbox.lanes)."""
    clock = clock or Clock()
    pics = pictures or Pictures(width=640)

    def factory() -> Any:
        return make_bot(
            db_path,
            map_provider=lambda: game_map,
            clock=clock,
            seed_source=lambda: seed,
            pictures=pics,
            thinkers=thinkers,
            lanes=lanes,
        )

    return factory


def discord_failures(caplog: Any) -> list[str]:
    """The bot's warnings that say Discord failed a request (bot.process.outages)."""
    return [
        r.getMessage()
        for r in caplog.records
        if r.levelname == "WARNING" and r.name == "bot" and "Discord failed" in r.getMessage()
    ]


def harness(factory: Callable[[], Any]) -> OfflineDiscord:
    return OfflineDiscord(
        factory, guild_id=GUILD, channel_id=CHANNEL, loggers=("bot",), watched_tasks=("alx-",)
    )


@dataclass
class Game:
    """One game at the table of an OfflineDiscord, with its players and checks."""

    d: OfflineDiscord
    users: list[FakeUser]
    game_id: int = 0
    checked: int = 0  # requests already checked
    stats: dict[str, int] = field(default_factory=dict)
    guided_every: int = 3  # every n-th move goes through the Move button flow

    @property
    def bot(self) -> Any:
        return self.d.bot

    async def state(self) -> GameState:
        table = await self.bot.pipeline.tables.by_id(self.game_id)
        assert table.state is not None
        return table.state

    async def table(self) -> Any:
        return await self.bot.pipeline.tables.by_id(self.game_id)

    def user_of_seat(self, table: Any, seat: int) -> FakeUser:
        uid = table.user_of(seat)
        return next(u for u in self.users if u.id == uid)

    # --- checks ---------------------------------------------------------------------------------------

    def check_public(self) -> None:
        """Every request since the last check: public texts name no drawn card; pings are deliberate."""
        for req in self.d.requests[self.checked :]:
            if not req.is_message:
                continue
            text = req.content or ""
            # A public post may be a follow-up of the interaction that caused it (issue 32, bot.outbox.lanes):
            # whether it is public is the message's own flag (the first follow-up after a "thinking"
            # defer would have taken the defer's ephemerality).
            stored = self.d.messages.get(req.message_id) if req.message_id is not None else None
            public = not req.ephemeral and not (stored is not None and stored.ephemeral)
            if public and req.kind in ("channel_message", "edit_message", "followup", "edit_followup"):
                assert not SECRET_DRAW.search(text), f"a public message names a drawn card: {text}"
                assert "Your hand" not in text, text
            if req.kind == "followup" and "your turn" in text:
                assert public, f"a turn post went out as an ephemeral follow-up: {text}"
            if req.kind in ("channel_message", "followup") and public and req.pinged_user_ids:
                ids = {u.id for u in self.users}
                assert req.pinged_user_ids <= ids, req.pinged_user_ids
                if "is over" in text:
                    self.stats["end_pings"] = self.stats.get("end_pings", 0) + 1
                    assert len(req.pinged_user_ids) == len(self.users)
                else:
                    assert len(req.pinged_user_ids) == 1, (req.pinged_user_ids, text)
                    (uid,) = req.pinged_user_ids
                    assert f"<@{uid}>" in text and "your turn" in text
        self.checked = len(self.d.requests)
        pics: Pictures = self.bot.pictures
        for kind, viewer in pics.calls:
            if kind in ("board", "end"):
                assert viewer is None
        assert pics.failures == 0, "the renderer failed"

    @staticmethod
    def private(r: InteractionResult) -> InteractionResult:
        assert r.ephemeral, f"expected an ephemeral answer, got {r.content!r}"
        return r

    # --- the lobby ------------------------------------------------------------------------------------

    async def open(self) -> None:
        creator = self.users[0]
        self.checked = len(self.d.requests)
        r = await self.d.slash(creator, "alexandros new")
        lobby = r.response_message
        assert lobby is not None and not r.ephemeral
        self.game_id = int(next(c for c in lobby.custom_ids if c.startswith("alx:join:")).split(":")[2])
        for u in self.users[1:]:
            r = await self.d.click(u, lobby.id, f"alx:join:{self.game_id}")
            assert f"<@{u.id}>" in self.d.message(lobby.id).content
        r = await self.d.click(creator, lobby.id, f"alx:start:{self.game_id}")
        assert r.pings == {(await self.table()).current_user}
        self.check_public()

    # --- translating actions ----------------------------------------------------------------------------

    async def offered(
        self, user: FakeUser, command: str, focused: str, value: str, options: dict[str, Any] | None = None
    ) -> None:
        got = await self.d.autocomplete(user, command, focused=focused, value=value, options=options)
        values = [c["value"] for c in got]
        assert value in values, f"/{command} {focused}: {value!r} not offered in {values}"

    def turn_message(self) -> StoredMessage:
        """The newest turn post (a board posted again with /alexandros board has buttons too)."""
        cid = f"alx:hand:{self.game_id}"
        for msg in reversed(self.d.channel_messages(CHANNEL)):
            if cid in msg.custom_ids and msg.content.startswith("**Turn "):
                return msg
        return self.d.find_message(cid)

    async def play(self, action: Action, n: int) -> None:
        table = await self.table()
        st = table.state
        user = self.user_of_seat(table, st.current)
        kind = type(action).__name__
        self.stats[kind] = self.stats.get(kind, 0) + 1
        before = table.version
        if isinstance(action, Move):
            await self.move(user, st, action, guided=n % self.guided_every == 0)
        elif isinstance(action, TakeCard | Levy | TakeBack) and n % 4 == 1:
            await self.via_actions_menu(user, st, action)
        elif isinstance(action, TakeCard):
            value = "supply" if action.source is CardSource.SUPPLY else str((action.slot or 0) + 1)
            await self.offered(user, "alexandros take", "card", value)
            self.private(await self.d.slash(user, "alexandros take", card=value))
        elif isinstance(action, Occupy | TakeOver):
            await self.province(user, st, action)
        elif isinstance(action, Levy):
            await self.offered(user, "alexandros levy", "card", action.card.value)
            self.private(await self.d.slash(user, "alexandros levy", card=action.card.value))
        elif isinstance(action, TakeBack):
            value = ch.space_code(action.space)
            await self.offered(user, "alexandros takeback", "guard", value)
            self.private(await self.d.slash(user, "alexandros takeback", guard=value))
        elif isinstance(action, EndTurn):
            if n % 2:
                msg = self.turn_message()
                self.private(await self.d.click(user, msg.id, f"alx:end:{self.game_id}:{before}"))
            else:
                self.private(await self.d.slash(user, "alexandros end"))
        else:
            raise AssertionError(action)
        after = await self.table()
        assert after.version > before, f"{action} was not applied"
        self.check_public()

    async def via_actions_menu(self, user: FakeUser, st: GameState, action: Action) -> None:
        """The Actions button, then the one select menu of every action open now."""
        msg = self.turn_message()
        r = self.private(await self.d.click(user, msg.id, f"alx:acts:{self.game_id}:{st.version}"))
        if isinstance(action, TakeCard):
            value = "take:" + (
                "supply" if action.source is CardSource.SUPPLY else str((action.slot or 0) + 1)
            )
        elif isinstance(action, Levy):
            value = f"levy:{action.card.value}"
        else:
            assert isinstance(action, TakeBack)
            value = f"back:{ch.space_code(action.space)}"
        await self.d.select(user, r.response_message.id, f"alxs:act:{self.game_id}:{st.version}", [value])
        self.stats["menu"] = self.stats.get("menu", 0) + 1

    async def move(self, user: FakeUser, st: GameState, move: Move, guided: bool) -> None:
        card, to, path = ch.move_code(st, move)
        if guided and int(path) <= 25:  # a select menu holds 25 paths (fewest walls first)
            msg = self.turn_message()
            r = self.private(await self.d.click(user, msg.id, f"alx:move:{self.game_id}:{st.version}"))
            flow = r.response_message
            r = await self.d.select(user, flow.id, f"alxs:mc:{self.game_id}:{st.version}", [card])
            r = await self.d.select(user, flow.id, f"alxs:mt:{self.game_id}:{st.version}:{card}", [to])
            flow = self.d.message(flow.id)
            if flow.component(f"alxs:mp:{self.game_id}:{st.version}:{card}:{to}") is not None:
                await self.d.select(user, flow.id, f"alxs:mp:{self.game_id}:{st.version}:{card}:{to}", [path])
            await self.d.click(user, flow.id, f"alx:mgo:{self.game_id}:{st.version}:{card}:{to}:{path}")
            assert self.d.message(flow.id).ephemeral
            return
        await self.offered(user, "alexandros move", "card", card)
        await self.offered(user, "alexandros move", "to", to, {"card": card})
        await self.offered(user, "alexandros move", "path", path, {"card": card, "to": to})
        self.private(await self.d.slash(user, "alexandros move", card=card, to=to, path=path))

    async def province(self, user: FakeUser, st: GameState, action: Occupy | TakeOver) -> None:
        command = "alexandros occupy" if isinstance(action, Occupy) else "alexandros takeover"
        pid = str(action.province)
        await self.offered(user, command, "province", pid)
        r = self.private(await self.d.slash(user, command, province=pid))
        flow = r.response_message
        assert flow is not None and flow.attachments, "a province preview picture was expected"
        cid = f"alxs:og:{self.game_id}:{st.version}:{action.province}"
        await self.d.select(user, flow.id, cid, [ch.space_code(s) for s in action.guards])
        if isinstance(action, TakeOver) and sum(action.compensation):
            flow = self.d.message(flow.id)
            tcid = next(c for c in flow.custom_ids if c.startswith("alxs:tc:"))
            options = [o["value"] for o in flow.component(tcid)["options"]]
            wanted: list[str] = []
            for sym in as_list(action.compensation):
                wanted.append(next(v for v in options if v[0] == sym.letter and v not in wanted))
            await self.d.select(user, flow.id, tcid, wanted)


async def open_lobby(
    d: OfflineDiscord, players: int = 2, users: Sequence[FakeUser] = (), **options: Any
) -> tuple[list[FakeUser], Any, int]:
    """A table opened with ``/alexandros new`` (``options``: deadline_hours, map, …): its players-to-be
    (``users``, or the first ``players`` of NAMES), its lobby message and its game id."""
    users = list(users) or [d.member(n) for n in NAMES[:players]]
    r = await d.slash(users[0], "alexandros new", **options)
    msg = r.response_message
    return users, msg, int(msg.custom_ids[0].split(":")[2])


async def open_game(
    d: OfflineDiscord, players: int = 2, users: Sequence[FakeUser] = (), **options: Any
) -> Game:
    """A started game: the table opened, joined with the buttons and started by its creator."""
    users, msg, gid = await open_lobby(d, players, users, **options)
    for u in users[1:]:
        await d.click(u, msg.id, f"alx:join:{gid}")
    await d.click(users[0], msg.id, f"alx:start:{gid}")
    return Game(d, users, game_id=gid)


def find_seed(game_map: Map, players: int, reason: str, tries: int = 60) -> int:
    """A seed whose greedy game ends for ``reason``: the bot game with that seed replays the same game
    (same deal, same decisions), so the tests stay right when the computer player changes."""
    for seed in range(1, tries + 1):
        st, _, _ = ai.play_game(game_map, players, seed, check=False)
        if st.result is not None and st.result.reason.value == reason:
            return seed
    raise AssertionError(f"no seed in 1..{tries} ends a {players}-player game on {game_map.name} by {reason}")


async def play_whole_game(
    d: OfflineDiscord,
    players: int,
    ai_seed: int = 1,
    max_actions: int = 400,
    on_action: Callable[[Game, int], Any] | None = None,
    require_end: bool = True,
) -> Game:
    users = [d.member(n) for n in NAMES[:players]]
    g = Game(d, users)
    await g.open()
    rng = random.Random(ai_seed)
    for n in range(max_actions):
        st = await g.state()
        if st.over:
            break
        action = ai.greedy_player(st, rng)
        await g.play(action, n)
        if on_action is not None:
            await on_action(g, n)
    assert (await g.state()).over or not require_end, "the game did not end"
    return g


async def _confirmed(
    d: OfflineDiscord, user: FakeUser, command: str, kind: str, label: str
) -> InteractionResult:
    """``command`` and the red button (``label``, ``alx:<kind>:…``) of its ephemeral prompt; the refusal
    when there is no button."""
    r = await d.slash(user, command)
    msg = r.response_message
    button = next((c for c in (msg.custom_ids if msg else []) if c.startswith(f"alx:{kind}:")), None)
    if button is None or msg is None:
        return r
    assert r.ephemeral and "cannot be undone" in (msg.content or "") and label in str(msg.components)
    return await d.click(user, msg.id, button)


async def abandon(d: OfflineDiscord, user: FakeUser) -> InteractionResult:
    """``/alexandros abandon`` and its confirmation button."""
    return await _confirmed(d, user, "alexandros abandon", "abandon", "Abandon the game")


async def resign(d: OfflineDiscord, user: FakeUser) -> InteractionResult:
    """``/alexandros resign`` and its confirmation button (P1)."""
    return await _confirmed(d, user, "alexandros resign", "resign", "Resign")


async def open_with_computer(
    d: OfflineDiscord, creator: FakeUser, level: str = "easy", **options: Any
) -> Game:
    """A game of ``creator`` and one computer seat, started (``options``: those of ``/alexandros new``)."""
    lobby = (await d.slash(creator, "alexandros new", **options)).response_message
    assert lobby is not None
    gid = int(lobby.custom_ids[0].split(":")[2])
    await d.slash(creator, "alexandros table add-computer", level=level)
    await d.click(creator, lobby.id, f"alx:start:{gid}")
    await d.bot.deliveries.drain()
    return Game(d, [creator], game_id=gid)


def legal_or_none(values: Iterable[str]) -> list[str]:
    return [v for v in values if v != "-"]


__all__ = [
    "POINTS_MAP",
    "WALLS_MAP",
    "Clock",
    "Game",
    "abandon",
    "open_with_computer",
    "resign",
    "bot_factory",
    "harness",
    "play_whole_game",
    "rules",
]
