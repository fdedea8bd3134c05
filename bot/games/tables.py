"""A game as the bot sees it (``Table``), how it is found and loaded, and the values actions return.

No Discord here. ``Tables`` finds a game's record (by channel or id) without touching its state, so the
pipeline can check the seat and the version first, and loads the state only for someone allowed to act.
States live in a bounded cache (least recently used out), and the per-game locks are dropped as soon as
nobody holds or waits for them: memory does not grow with the number of games ever touched.

Snapshots are lean (engine.snapshot): they name their map by the digest of its text, and ``MapBook``
finds the map in the store (once per process and map) to load them. Old snapshots, with the map inside,
still load; the game's next action writes its snapshot lean.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from engine.actions import Action
from engine.events import Event, TurnStarted
from engine.maps import Map, parse_map
from engine.snapshot import SnapshotError, dumps_state, load_state, loads_state
from engine.state import GameState
from storage import GameRecord, GameStore, JsonDict, MapRow

from ..words import i18n
from ..words.words import Speaker


class Refused(Exception):
    """An action or request the bot turns down; ``code`` is an engine or ``bot/`` code of bot.words.words.

    ``speaker`` words it with the game's names, when the refusal is raised before anything else is known.
    """

    def __init__(self, code: str, speaker: Speaker | None = None, **details: Any) -> None:
        super().__init__(code)
        self.code = code
        self.details = details
        self.speaker = speaker


def locale_of(record: GameRecord) -> str:
    """The language of a game's public posts, from its record (stored when the game was made; an older
    game speaks English)."""
    return str(record.options.get("locale") or i18n.SOURCE)


@dataclass(frozen=True)
class Table:
    """One game as the bot sees it: its record, its state (None in the lobby) and its players' names."""

    record: GameRecord
    state: GameState | None
    names: tuple[str, ...]

    @property
    def id(self) -> int:
        return self.record.id

    @property
    def version(self) -> int:
        return self.record.version

    @property
    def locale(self) -> str:
        """The language of the game's public posts: the server's preferred locale when the game was made."""
        return locale_of(self.record)

    @property
    def speaker(self) -> Speaker:
        return Speaker(self.names, self.state.map if self.state is not None else None)

    def seat_of(self, user_id: int) -> int | None:
        return self.record.seat_of(user_id)

    def user_of(self, seat: int) -> int | None:
        for s, uid in self.record.seats:
            if s == seat:
                return uid
        return None

    @property
    def current_user(self) -> int | None:
        if self.state is None or self.state.over:
            return None
        return self.user_of(self.state.current)

    def playing(self) -> GameState:
        """The state of a game in play, or the refusal that says why there is none."""
        status = self.record.status
        if status == "lobby":
            raise Refused("bot/not-started")
        if status != "playing" or self.state is None:
            raise Refused("bot/closed", status=status)
        return self.state


# {seat: [the user ids of the seat's earlier holders, first first]} (bot.commands.seats). Ids, not names:
# their names stay in "names", which forget-me renames (storage.privacy), as it scrubs the ids.
OPT_FORMER = "former_holders"


def replay_names(record: GameRecord) -> tuple[str, ...]:
    """The seats' names for a replay, whose frames go back before any hand-over: a seat that changed
    hands is every holder's name in turn ("bob → carol"); the others as ``names_of``."""
    former: dict[str, list[int]] = record.options.get(OPT_FORMER) or {}
    names: dict[str, str] = record.options.get("names", {})
    return tuple(
        " → ".join([*(names.get(str(uid), "?") for uid in former.get(str(seat), [])), name])
        for (seat, _), name in zip(sorted(record.seats), names_of(record), strict=True)
    )


def names_of(record: GameRecord) -> tuple[str, ...]:
    names: dict[str, str] = record.options.get("names", {})
    out: list[str] = []
    for _, uid in sorted(record.seats):
        out.append(names.get(str(uid), f"player {len(out) + 1}"))
    return tuple(out)


@dataclass(frozen=True)
class Outcome:
    """What one committed change did: the table before and after, and the events between."""

    before: Table
    table: Table
    events: tuple[Event, ...]
    base_version: int  # the version before these events; event i has version base_version + i + 1
    actions: tuple[Action, ...] = ()
    by_computer: bool = False

    @property
    def state(self) -> GameState:
        assert self.table.state is not None
        return self.table.state

    @property
    def new_turn_version(self) -> int | None:
        """The version of the TurnStarted event of a turn that began with this change, if any."""
        for i, e in enumerate(self.events):
            if isinstance(e, TurnStarted):
                return self.base_version + i + 1
        return None


# The current turn: the version of its TurnStarted event (None before the first) and its events so far.
Turn = tuple[int | None, tuple[Event, ...]]


class StateCache:
    """The last ``size`` game states used, by game id and version (least recently used out).

    Two tiers: the ``hot`` most recent as GameState objects (with the current turn's events, so that a
    commit need not read them back), the rest as lean snapshot text (engine.snapshot, ~2 KB instead of
    ~40 KB of objects, decoded in ~0.3 ms on use). Text is invisible to the garbage collector, so a full
    collection stays short however many games are cached.
    """

    def __init__(self, size: int, hot: int | None = None) -> None:
        self.size = max(1, size)
        self.hot = max(1, min(self.size, hot if hot is not None else max(64, self.size // 16)))
        self._items: OrderedDict[int, tuple[int, GameState, Turn | None]] = OrderedDict()
        self._cold: OrderedDict[int, tuple[int, str, Map]] = OrderedDict()

    def get(self, game_id: int, version: int) -> GameState | None:
        item = self._items.get(game_id)
        if item is not None and item[0] == version:
            self._items.move_to_end(game_id)
            return item[1]
        cold = self._cold.get(game_id)
        if cold is None or cold[0] != version:
            return None
        game_map = cold[2]
        state = loads_state(cold[1], lambda _digest: game_map)
        self.put(game_id, version, state)
        return state

    def turn(self, game_id: int, version: int) -> Turn | None:
        item = self._items.get(game_id)
        return item[2] if item is not None and item[0] == version else None

    def put(self, game_id: int, version: int, state: GameState, turn: Turn | None = None) -> None:
        self._cold.pop(game_id, None)
        self._items[game_id] = (version, state, turn)
        self._items.move_to_end(game_id)
        while len(self._items) > self.hot:
            old_id, (old_version, old_state, _) = self._items.popitem(last=False)
            if self.size > self.hot:  # else there is no cold tier: it just goes
                self._cold[old_id] = (old_version, dumps_state(old_state), old_state.map)
        while len(self._items) + len(self._cold) > self.size and self._cold:
            self._cold.popitem(last=False)

    def drop(self, game_id: int) -> None:
        self._items.pop(game_id, None)
        self._cold.pop(game_id, None)

    def __len__(self) -> int:
        return len(self._items) + len(self._cold)


class GameLocks:
    """One asyncio lock per game, kept only while someone holds it or waits for it."""

    def __init__(self) -> None:
        self._locks: dict[int, tuple[asyncio.Lock, int]] = {}

    @contextlib.asynccontextmanager
    async def hold(self, game_id: int) -> AsyncIterator[None]:
        lock, users = self._locks.get(game_id, (asyncio.Lock(), 0))
        self._locks[game_id] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._locks[game_id]
            if users == 1:
                del self._locks[game_id]
            else:
                self._locks[game_id] = (lock, users - 1)

    def __len__(self) -> int:
        return len(self._locks)


class MapBook:
    """The maps of lean snapshots and duties, by digest: read from the store once per process and map.

    ``rows_to_store`` says which maps a commit must store with it (those this process has not yet seen
    stored); a map is stored once per distinct map, whatever the number of games on it.
    """

    def __init__(self, store: GameStore) -> None:
        self.store = store
        self._maps: dict[str, Map] = {}
        self._stored: set[str] = set()

    async def get(self, digest: str) -> Map:
        found = self._maps.get(digest)
        if found is None:
            row = await self.store.get_map(digest)
            if row is None:
                raise SnapshotError(f"the store has no map with digest {digest}")
            name, text = row
            found = parse_map(text, name)
            if found.digest != digest:
                raise SnapshotError(f"the stored map {digest} has digest {found.digest}")
            self._maps[digest] = found
            self._stored.add(digest)
        return found

    def rows_to_store(self, game_map: Map) -> list[MapRow]:
        digest = game_map.digest
        self._maps.setdefault(digest, game_map)
        return [] if digest in self._stored else [(digest, game_map.name, game_map.text)]

    def stored(self, digest: str) -> None:
        """A commit stored this map (or found it there)."""
        self._stored.add(digest)

    async def is_stored(self, game_map: Map) -> bool:
        digest = game_map.digest
        if digest not in self._stored and await self.store.get_map(digest) is not None:
            self._stored.add(digest)
        return digest in self._stored

    async def state(self, body: JsonDict) -> GameState:
        """The state of a stored snapshot: lean (its map from here) or old (the map inside)."""
        ref = body.get("map")
        if "lean" in body and isinstance(ref, list) and len(ref) == 2:
            game_map = await self.get(str(ref[1]))
            return load_state(body, lambda _digest: game_map)
        # An old snapshot parses its whole map text: slow enough to keep it off the event loop.
        return await asyncio.to_thread(load_state, body)


class Tables:
    """Finds games and loads their states through the store."""

    def __init__(self, store: GameStore, cache_size: int = 2000) -> None:
        self.store = store
        self.cache = StateCache(cache_size)
        self.locks = GameLocks()
        self.maps = MapBook(store)

    async def record_in(self, channel_id: int) -> GameRecord:
        """The channel's game in the lobby or in play, or the refusal that says there is none."""
        record = await self.store.game_by_channel(channel_id)
        if record is None:
            latest = await self.store.latest_game_in_channel(channel_id)
            if latest is not None:
                raise Refused("bot/game-over", status=latest.status, game=latest.id)
            raise Refused("bot/no-game")
        return record

    async def record_of(self, game_id: int) -> GameRecord:
        record = await self.store.game_by_id(game_id)
        if record is None:
            raise Refused("bot/unknown-game", game=game_id)
        return record

    async def latest_in(self, channel_id: int) -> Table:
        """The channel's newest game whatever its status, so a game that just ended can still be shown."""
        record = await self.store.latest_game_in_channel(channel_id)
        if record is None:
            raise Refused("bot/no-game")
        return await self.load(record)

    async def by_id(self, game_id: int) -> Table:
        return await self.load(await self.record_of(game_id))

    async def load(self, record: GameRecord) -> Table:
        """The record with its state. Only call this for someone entitled to what it holds."""
        state: GameState | None = None
        if record.status != "lobby":
            state = self.cache.get(record.id, record.version)
            if state is None:
                snap = await self.store.load_snapshot(record.id)
                if snap is not None:
                    version, body = snap
                    loaded = await self.maps.state(body)
                    state = loaded
                    self.cache.put(record.id, version, loaded)
                    if version != record.version:
                        # A write slipped in between the two reads: the record must name the version of
                        # the state it goes with, so that saving after it is checked against the right one.
                        record = await self.record_of(record.id)
                        if record.version != version:
                            raise Refused("game/stale", expected=version, actual=record.version)
        return Table(record, state, names_of(record))
