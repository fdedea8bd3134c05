"""The backend-neutral face of the store: records, errors and the `GameStore` protocol.

Callers (the bot, tools, tests) depend on this module only, so that a PostgreSQL backend can be
added beside the SQLite one without touching them.
"""

from __future__ import annotations

import contextlib
import enum
import os
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal, Protocol, TypeAlias

JsonDict: TypeAlias = dict[str, Any]
Status: TypeAlias = Literal["lobby", "playing", "finished", "abandoned"]

STATUSES: Final[tuple[Status, ...]] = ("lobby", "playing", "finished", "abandoned")
ACTIVE_STATUSES: Final[tuple[Status, ...]] = ("lobby", "playing")
TERMINAL_STATUSES: Final[tuple[Status, ...]] = ("finished", "abandoned")
MAX_SEATS: Final[int] = 4


MapRow: TypeAlias = tuple[str, str, str]
"""A map as the store keeps it, once per distinct map: (digest of its text, name, text)."""


def snapshot_map(snapshot: Mapping[str, Any] | None) -> str | None:
    """The digest of the map a lean snapshot names (``"map": [name, digest]``), else None.

    The one thing the store reads inside a snapshot: an export carries the map its snapshot needs.
    """
    ref = None if snapshot is None else snapshot.get("map")
    if isinstance(ref, list | tuple) and len(ref) == 2 and all(isinstance(x, str) for x in ref):
        return str(ref[1])
    return None


class _Keep(enum.Enum):
    KEEP = "KEEP"


KEEP: Final = _Keep.KEEP
"""Default for `append(waiting_on=...)`: leave the stored value as it is."""


class StoreError(Exception):
    """Base class of every error the store raises on purpose."""


class GameNotFound(StoreError, LookupError):
    def __init__(self, game_id: int) -> None:
        super().__init__(f"no game with id {game_id}")
        self.game_id = game_id


class VersionConflict(StoreError):
    """The game moved on since the caller read it: reload, and apply the action again or drop it."""

    def __init__(self, game_id: int, expected: int, actual: int) -> None:
        super().__init__(f"game {game_id}: expected version {expected}, found {actual}")
        self.game_id = game_id
        self.expected = expected
        self.actual = actual


class DatabaseUnreachable(StoreError):
    """The database server could not be reached or refused this program (PostgreSQL). str() is one
    sentence: which database (its password hidden), what went wrong and what to check."""


def redact_url(url: str) -> str:
    """A database URL with its password hidden, for messages and logs."""
    if "://" in url and "@" in url:
        scheme, rest = url.split("://", 1)
        credentials, host = rest.rsplit("@", 1)
        if ":" in credentials:
            return f"{scheme}://{credentials.split(':', 1)[0]}:***@{host}"
    return url


class LeaseLost(StoreError):
    """A delivery wrote on behalf of a duty it no longer holds (its lease ran out and another worker took
    the duty over, or finished it): nothing was written."""

    def __init__(self, duty_id: int, owner: str) -> None:
        super().__init__(f"duty {duty_id} is no longer leased to {owner}")
        self.duty_id = duty_id
        self.owner = owner


class ChannelBusy(StoreError):
    """The channel or thread already has a game in the lobby or in play."""

    def __init__(self, channel_id: int, game_id: int | None = None) -> None:
        super().__init__(f"channel {channel_id} already has an unfinished game ({game_id})")
        self.channel_id = channel_id
        self.game_id = game_id


class GameClosed(StoreError):
    """The game is finished or abandoned; it takes no more actions."""

    def __init__(self, game_id: int, status: str) -> None:
        super().__init__(f"game {game_id} is {status}")
        self.game_id = game_id
        self.status = status


class SeatError(StoreError):
    """A lobby change that cannot be made: seat taken, user seated twice, lobby closed, table full."""


class GameExists(StoreError):
    """`import_game` found a game with the same id and was not asked to replace it."""


class SchemaTooNew(RuntimeError):
    """The database was written by a newer version of this program (either backend's migrations say so):
    opening it could corrupt it."""


class InvalidGameData(StoreError, ValueError):
    """An exported game that does not hold together (gaps in versions, snapshot from another version...)."""


class StillSeated(SeatError):  # storage/privacy.py
    """`forget_user` refused: the user sits in a game in the lobby or in play (resign or leave first)."""

    def __init__(self, user_id: int, game_ids: Collection[int]) -> None:
        super().__init__(f"user {user_id} is seated in unfinished games {sorted(game_ids)}")
        self.user_id = user_id
        self.game_ids = tuple(sorted(game_ids))


@dataclass(frozen=True)
class ForgetReport:
    games: int  # games whose record now names a former player instead of the user
    settings: bool  # the user had settings, now deleted
    duties: int  # outbox rows deleted or rewritten
    named: int = 0  # other games whose records named the user (a moderator's pause, a seat offer, a post)


@dataclass(frozen=True)
class GameRecord:
    """One game's row plus its seats, as of `version`. Immutable: reload to see changes."""

    id: int
    guild_id: int | None
    channel_id: int
    status: Status
    options: JsonDict
    version: int
    created_at: float
    updated_at: float
    created_by: int
    waiting_on: int | None
    turn_started_at: float | None
    seats: tuple[tuple[int, int], ...] = ()

    @property
    def active(self) -> bool:
        return self.status in ACTIVE_STATUSES

    def seat_of(self, user_id: int) -> int | None:
        for seat, uid in self.seats:
            if uid == user_id:
                return seat
        return None

    @property
    def user_ids(self) -> tuple[int, ...]:
        return tuple(uid for _, uid in self.seats)


@dataclass(frozen=True)
class NewDuty:
    """A duty for the outbox, written in the same transaction as the change that causes it.

    A duty is something the bot owes the outside world after a commit: a public post, a ping, an edit,
    a reminder or a deadline. ``channel_id`` orders duties: a channel's due duties are handed out one at
    a time, oldest due first (``claim_duties``). ``key`` makes a duty replaceable: a new pending duty with
    the same game and key replaces the old one (one reminder and one deadline per game), and
    ``cancel_keys`` removes pending ones. Finishing or abandoning a game drops its keyed pending duties
    (timers) and keeps the unkeyed ones (posts), which are still delivered.
    """

    kind: str
    due_at: float
    channel_id: int | None = None
    user_id: int | None = None
    payload: JsonDict = field(default_factory=dict)
    key: str | None = None


@dataclass(frozen=True)
class Duty:
    """A duty as stored. ``lease_owner`` holds it while ``lease_until`` has not passed; ``done_at`` is set
    once, by ``finish_duty``, with an ``outcome`` ("sent", "dropped", "failed: ...")."""

    id: int
    game_id: int | None
    guild_id: int | None
    channel_id: int | None
    user_id: int | None
    kind: str
    key: str | None
    due_at: float
    payload: JsonDict
    created_at: float
    attempts: int = 0
    not_before: float | None = None
    lease_owner: str | None = None
    lease_until: float | None = None
    done_at: float | None = None
    outcome: str | None = None
    last_error: str | None = None


@dataclass(frozen=True)
class ShardSlice:
    """The shards one process serves: duties of guilds on other shards are left to other processes.

    Discord's rule: guild -> shard is ``(guild_id >> 22) % count``; direct messages belong to shard 0.
    """

    count: int
    ids: tuple[int, ...]

    def owns(self, guild_id: int | None) -> bool:
        shard = 0 if guild_id is None else (guild_id >> 22) % self.count
        return shard in self.ids


@dataclass(frozen=True)
class IntegrityReport:
    """Result of `integrity_check`. Truthy when everything is fine."""

    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.problems

    def __bool__(self) -> bool:
        return self.ok

    def __str__(self) -> str:
        return "ok" if self.ok else "\n".join(self.problems)


@dataclass(frozen=True)
class PlayerRating:
    """One player's rating on one server (openskill's ``mu`` and ``sigma``), with games rated and won."""

    guild_id: int
    user_id: int
    mu: float
    sigma: float
    games: int = 0
    wins: int = 0
    updated_at: float = 0.0

    @property
    def ordinal(self) -> float:
        """The conservative skill the leaderboard sorts by: ``mu - 3 sigma``."""
        return self.mu - 3.0 * self.sigma


RateFn: TypeAlias = Callable[[Mapping[int, "PlayerRating | None"]], Sequence["PlayerRating"]]
"""Given the current ratings of a game's rated users (None: not rated yet), their new ratings."""


class GameStore(Protocol):
    """What the bot needs from persistent storage. Every method is safe to call concurrently.

    Times are floats (Unix seconds) passed in by the caller; the store reads no clock.
    Events and snapshots are opaque JSON-able dicts; the store never interprets them.
    Invariant kept by every backend: a game at version V has exactly the events 1..V, and its
    snapshot (if any) is the state after event V. A game over keeps its events, and the log of the duties
    it delivered, packed (issue 32; one compressed row): every read gives them as before.
    """

    async def create_game(
        self,
        guild_id: int | None,
        channel_id: int,
        created_by: int,
        options: Mapping[str, Any],
        now: float,
        snapshot: Mapping[str, Any] | None = None,
        seats: Sequence[tuple[int, int]] = (),
    ) -> GameRecord:
        """A new game in the lobby at version 0. Raises ChannelBusy if the channel has an unfinished game."""

    async def join_seat(self, game_id: int, user_id: int, now: float, seat: int | None = None) -> GameRecord:
        """Seat a user in the lobby: the given seat, or the lowest free one. Raises SeatError."""

    async def leave_seat(self, game_id: int, user_id: int, now: float) -> GameRecord:
        """Take a user out of the lobby. Raises SeatError if they are not seated or the game has begun."""

    async def update_lobby(
        self,
        game_id: int,
        now: float,
        *,
        options: Mapping[str, Any] | None = None,
        seats: Sequence[tuple[int, int]] | None = None,
    ) -> GameRecord:
        """Replace the options and/or the seating of a game still in the lobby."""

    async def append(
        self,
        game_id: int,
        expected_version: int,
        events: Sequence[Mapping[str, Any]],
        snapshot: Mapping[str, Any] | str,
        now: float,
        *,
        status: Status | None = None,
        waiting_on: int | None | _Keep = KEEP,
        seats: Sequence[tuple[int, int]] | None = None,
        duties: Sequence[NewDuty] = (),
        cancel_keys: Collection[str] = (),
        meta: Mapping[str, Any] | None = None,
        maps: Sequence[MapRow] = (),
    ) -> GameRecord:
        """Record one action atomically: its events, the new snapshot, the version, its duties (the outbox)
        and the side changes. ``maps`` are stored once each (by digest) in the same transaction, for lean
        snapshots that name their map. ``snapshot`` may come as its JSON text
        (``engine.snapshot.dumps_state``, which keeps it with the state), written as it is.

        The game must be at `expected_version`, or VersionConflict is raised and nothing is written (two
        racing writers: one commit wins). The new version is expected_version + len(events). `waiting_on`
        (whose turn it is) restarts `turn_started_at` only when it names someone new. Finishing or
        abandoning the game clears `waiting_on` and deletes the game's pending keyed duties (its timers),
        before `duties` are added; its pending posts stay. Pending duties with a key in `cancel_keys` are
        deleted too, e.g. the last turn's reminder. `meta` changes are merged as `set_game_meta` does.
        Raises GameClosed (finished or abandoned) and GameNotFound too, writing nothing."""

    async def amend(
        self,
        game_id: int,
        expected_version: int,
        now: float,
        *,
        waiting_on: int | None | _Keep = KEEP,
        seats: Sequence[tuple[int, int]] | None = None,
        duties: Sequence[NewDuty] = (),
        cancel_keys: Collection[str] = (),
        meta: Mapping[str, Any] | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> GameRecord:
        """A change to a game in play that has no engine event (a seat handed over, a pause): seats,
        waiting_on, duties, cancelled keys, meta and the options (replaced whole when given) in one
        transaction, as `append` writes them, at `expected_version` (else VersionConflict); the version,
        events and snapshot stay as they are."""

    async def get_map(self, digest: str) -> tuple[str, str] | None:
        """(name, text) of a map stored by ``append(maps=...)``, or None."""

    async def abandon_game(self, game_id: int, now: float, duties: Sequence[NewDuty] = ()) -> GameRecord:
        """Mark an unfinished game abandoned (no event, no version change), with the duties that tells.
        Idempotent: a game already finished or abandoned is returned as it is, and no duty is added."""

    async def load_snapshot(self, game_id: int) -> tuple[int, JsonDict] | None:
        """(version, snapshot) of the latest state, or None if the game has no snapshot yet. Pass that
        version to `append` as expected_version. Raises GameNotFound."""

    async def game_by_id(self, game_id: int) -> GameRecord | None: ...

    async def game_by_channel(self, channel_id: int) -> GameRecord | None:
        """The channel's game in the lobby or in play, if any (finished games are history)."""

    async def latest_game_in_channel(self, channel_id: int, *, started: bool = False) -> GameRecord | None:
        """The channel's newest game, whatever its status, so a game just ended can still be shown; with
        ``started``, the newest that was started (not a lobby, nor one abandoned in the lobby)."""

    async def get_game_meta(self, game_id: int) -> JsonDict:
        """The game's metadata: a JSON value per key ({} when there is none)."""

    async def set_game_meta(
        self, game_id: int, changes: Mapping[str, Any], now: float, *, leased: tuple[int, str] | None = None
    ) -> JsonDict:
        """Merge ``changes`` into the game's metadata (a None value removes the key); the result. With
        ``leased`` (a duty's id and its worker), only while that worker still holds that duty, undone:
        LeaseLost otherwise, and nothing written (a worker that stalled past its lease must not record
        what it did over what the worker that took over did since). Raises GameNotFound; metadata may
        change in any status, finished games included."""

    async def games_waiting_on(self, user_id: int) -> list[GameRecord]:
        """Games in play whose turn belongs to `user_id`, longest-waiting first."""

    async def games_of_user(self, user_id: int, active_only: bool = True) -> list[GameRecord]:
        """Games where `user_id` has a seat, newest first."""

    async def list_games(
        self,
        status: Status | Collection[Status] | None = None,
        guild_id: int | None = None,
        limit: int | None = None,
    ) -> list[GameRecord]:
        """Games filtered by status (one or several) and guild, most recently updated first."""

    async def events(
        self, game_id: int, since_version: int = 0, limit: int | None = None
    ) -> list[tuple[int, JsonDict]]:
        """Events after `since_version`, oldest first; with `limit`, only the last `limit` of them."""

    # --- the outbox: duties written with a commit, delivered by a worker that retries -------------------

    async def add_duties(
        self,
        game_id: int | None,
        duties: Sequence[NewDuty],
        now: float,
        *,
        cancel_keys: Collection[str] = (),
        meta: Mapping[str, Any] | None = None,
        at_version: int | None = None,
    ) -> list[Duty]:
        """Write duties, cancel keyed ones and merge meta, in one transaction outside an action. With
        ``at_version``, only while the game is still at that version: VersionConflict otherwise, and
        nothing is written (a timer replacing itself must not replace what a newer commit planned)."""

    async def claim_duties(
        self, now: float, owner: str, lease_seconds: float, limit: int = 50, shards: ShardSlice | None = None
    ) -> list[Duty]:
        """Lease up to `limit` due duties (of guilds on `shards`) to `owner` until now + lease_seconds,
        earliest first. A channel's duties go out in order: a duty is handed out only when no earlier due
        duty of its channel (by due time, then id) is still undone, whether leased, backing off or waiting.
        A duty whose lease ran out (its worker died) is handed out again; `attempts` counts the hand-outs.
        Claimers in other processes never wait on each other nor take the same duty."""

    async def renew_duties(self, duty_ids: Sequence[int], owner: str, until: float) -> set[int]:
        """Extend `owner`'s leases of these undone duties to `until` (never shortening one); returns the ids
        still held. A worker renews what it is delivering, so that a short lease (a dead worker's duties go
        out again soon) never runs out under a long delivery (which would then be sent twice)."""

    async def finish_duty(self, duty_id: int, owner: str, now: float, outcome: str = "sent") -> bool:
        """Mark a leased duty done. False (and nothing changed) when the lease is no longer `owner`'s."""

    async def retry_duty(self, duty_id: int, owner: str, not_before: float, error: str) -> bool:
        """Give a leased duty back, to be tried again from `not_before`; False when the lease was lost."""

    async def pending_duties(
        self, game_id: int | None, *, kind: str | None = None, after: int | None = None
    ) -> list[Duty]:
        """Undone duties of a game (None: of no game), in delivery order; only those of ``kind`` and with an
        id greater than ``after``, when given (the delivery worker asks whether a later edit is waiting)."""

    async def cancel_duties(self, game_id: int, keys: Collection[str] | None = None) -> int:
        """Delete a game's pending duties with these keys (None: all of them). Returns how many."""

    async def next_duty_at(self, shards: ShardSlice | None = None) -> float | None:
        """When a duty can next be handed out: the earliest ready time (due, back-off and lease over) of the
        first undone duty of each channel (each DM on its own), for a worker to sleep until."""

    async def listen_for_duties(self, shards: ShardSlice | None, wake: Callable[[], None]) -> bool:
        """Have ``wake()`` called whenever another process commits a duty for a guild on ``shards`` (None:
        any), and each time listening (re)starts. Returns whether this backend hears other processes:
        PostgreSQL does (LISTEN/NOTIFY); a SQLite file has one bot process, whose own commits wake it."""

    async def listen_for_changes(self, wake: Callable[[], None]) -> bool:
        """Have ``wake()`` called whenever any process (this one too) commits a duty, whatever its guild
        (every change to a game writes one): the web face's live pages look then. Returns whether this
        backend hears other processes (PostgreSQL does; a SQLite file has one bot process, which pokes its
        own pages)."""

    async def purge_done_duties(self, done_before: float) -> int:
        """Delete duties done before `done_before` (housekeeping). Undone ones are never touched, nor the
        log a game over packed of those it delivered before its end."""

    def exclusive(self, name: str) -> contextlib.AbstractAsyncContextManager[bool]:
        """``async with store.exclusive(name) as mine``: ``mine`` is True for the one holder of ``name``
        among every process on this database, False (at once, without waiting) while another holds it.
        Released on leaving the block, and by the database itself when the holder dies (PostgreSQL: an
        advisory lock of the holder's connection; SQLite: a lock on a file beside the database)."""

    async def get_user_settings(self, user_id: int) -> JsonDict: ...

    async def set_user_settings(self, user_id: int, settings: Mapping[str, Any], now: float) -> None:
        """Replace all of a user's settings."""

    async def update_user_settings(self, user_id: int, changes: Mapping[str, Any], now: float) -> JsonDict:
        """Merge `changes` into a user's settings (a None value removes the key). Returns the result. Two
        processes' updates of one user both land."""

    async def all_user_settings(self) -> list[tuple[int, JsonDict, float]]:
        """(user id, settings, updated_at) of every user, for moving a database (`python -m bot move`)."""

    # --- ratings per server (bot.ratings decides who is rated and computes; the store keeps) -------------

    async def rate_game(
        self, game_id: int, guild_id: int, user_ids: Sequence[int], rate: RateFn, now: float
    ) -> bool:
        """Rate one finished game exactly once: in one transaction (serialised per server), read the
        users' ratings, call ``rate`` (pure and quick) and write what it returns, and mark the game rated.
        False, and nothing written, when the game was already rated."""

    async def ratings(self, guild_id: int, limit: int | None = None) -> list[PlayerRating]:
        """The server's ratings, best first (highest ``mu - 3 sigma``, then more games, then user id)."""

    async def rating_of(self, guild_id: int, user_id: int) -> PlayerRating | None: ...

    async def rated_games(self, guild_id: int) -> list[int]:
        """The ids of the server's games that count in its ratings, in id order."""

    async def replace_ratings(
        self, guild_id: int, ratings: Sequence[PlayerRating], game_ids: Sequence[int], now: float
    ) -> None:
        """Replace all of a server's ratings and its rated games at once (a recomputation)."""

    # --- users' data (issue 11; storage/privacy.py): forget a user, purge old finished games ------------

    async def forget_user(
        self, user_id: int, pseudonym: int, now: float, names: Collection[str] = ()
    ) -> ForgetReport:
        """Put `pseudonym` in the user's place in every record, remove their id and `names` (the names the
        bot knows them by) from every record that holds them, delete their settings (storage/privacy.py);
        then leave no copy of the old rows in the database's files where the backend allows it (SQLite:
        secure_delete and a truncating WAL checkpoint). Raises StillSeated, changing nothing, while they sit
        in a game in the lobby or in play. `now` is not written: a forgotten user does not make an old game
        look recent (purge_games reads that time)."""

    async def purge_games(self, before: float, guild_id: int | None = None) -> int:
        """Delete finished and abandoned games last changed before `before` (of one server, if given),
        with everything of theirs (seats, events, snapshots, meta, outbox). Returns how many. A game id is
        never used twice."""

    async def backup(self, dest_path: str | os.PathLike[str]) -> None:
        """Copy the whole database to `dest_path` (SQLite: a verified file copy, `copy_database`;
        PostgreSQL: pg_dump --format=custom), written as <dest_path>.partial and renamed into place: a
        failed copy removes its partial file."""

    async def integrity_check(self) -> IntegrityReport:
        """The database's own checks where it has them and the store's invariants (truthy when ok)."""

    async def export_game(self, game_id: int) -> JsonDict:
        """One game as a JSON-able dict, read in one snapshot: game row, seats, events, the latest snapshot
        and its map, metadata, its pending duties. Both backends write the same format."""

    async def import_game(
        self, data: Mapping[str, Any], *, replace: bool = False, keep_id: bool = True
    ) -> GameRecord:
        """Load a game written by `export_game` (of either backend), checking that it holds together first.

        keep_id: reuse the exported id (raises GameExists if taken, unless `replace`, which first deletes
        the stored game of that id with everything it owns). keep_id=False gives it a new id, e.g. to move
        a game into another database. Pending duties get new ids (older exports' pending reminders and
        deadlines become duties). Raises ChannelBusy if the game is unfinished and its channel already has
        another unfinished game, InvalidGameData if the export does not hold together; nothing is written
        then."""

    async def close(self) -> None: ...
