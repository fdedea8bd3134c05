"""What every store writes, as rows: JSON text, checked seats and statuses, metadata, the side rows of an
action (``ChangeRows``), and a game export turned into rows. Both backends (SQLite and PostgreSQL) build
their rows here, so they check and encode exactly alike; only their SQL differs."""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, Final, cast

from .base import (
    MAX_SEATS,
    STATUSES,
    Duty,
    GameRecord,
    InvalidGameData,
    JsonDict,
    MapRow,
    NewDuty,
    SeatError,
    Status,
    _Keep,
    snapshot_map,
)

EXPORT_FORMAT: Final[str] = "alexandros-game"
EXPORT_FORMAT_VERSION: Final[int] = 3  # 2 added "meta", 3 "duties" for "notices"; older exports import
# The kinds of an export's notices (format versions 1 and 2) that carry over, as duty kinds (= keys).
_NOTICE_KINDS: Final[dict[str, str]] = {"turn": "remind", "deadline": "deadline"}


# A game's fields as an export writes them, in this order (its "game"), and as an import writes its row.
GAME_FIELDS: Final[tuple[str, ...]] = (
    "id", "guild_id", "channel_id", "status", "options", "version", "created_by", "created_at", "updated_at",
    "waiting_on", "turn_started_at",
)  # fmt: skip
# What an export keeps of a pending duty, in this order.
_DUTY_FIELDS = ("channel_id", "user_id", "kind", "key", "due_at", "payload", "created_at")
# What a duty keeps once done (issue 32), as SQL assignments: its id (its message's nonce), game, kind,
# times, attempts and outcome (with the message's id), as the delivery log, which nothing reads
# (ARCHITECTURE, "A lean database"); when its game ends, that log is packed with its events (pack_game).
DONE_LEAN: Final[str] = (
    "payload = '{}', lease_owner = NULL, lease_until = NULL, last_error = NULL, key = NULL,"
    " not_before = NULL, guild_id = NULL, channel_id = NULL, user_id = NULL"
)
# The statuses of a game not yet over (in the lobby or in play), as SQL.
ACTIVE_SQL: Final[str] = "('lobby', 'playing')"


def dumps(value: Any) -> str:
    """Any JSON value as the stores write it. allow_nan=False: NaN is not JSON, and another backend
    (PostgreSQL jsonb) would refuse it."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def plain(text: str, limit: int = 500) -> str:
    """A free text for a plain column (a duty's outcome or error, often an exception's words): no NUL
    character, which PostgreSQL's text refuses and SQLite's keeps, and at most ``limit`` characters."""
    return text.replace("\x00", "")[:limit]


def to_json(value: Mapping[str, Any]) -> str:
    return dumps(dict(value))


def from_json(text: str) -> JsonDict:
    return cast(JsonDict, json.loads(text))


def pack(rows: Iterable[Sequence[Any]]) -> bytes:
    """Rows as the one a game over keeps of them (its events, its delivered duties): zlib of their JSON list
    (issue 32: an event's row each took 60 KB a finished game, this 6)."""
    return zlib.compress(dumps([list(r) for r in rows]).encode(), 9)


def unpack_events(blob: bytes) -> list[tuple[int, str, float]]:
    """A game's packed events, (version, body text, created_at) rows; a pack of PostgreSQL's migration is
    plain JSON (TOAST compresses it)."""
    text = blob if blob[:1] == b"[" else zlib.decompress(blob)
    return [(int(v), str(b), float(t)) for v, b, t in json.loads(text)]


def game_from_row(row: Any, seats: Iterable[tuple[int, int]]) -> GameRecord:
    """A game's record from its row (either backend's: both select the same first eleven columns and index
    alike); its ``seats`` as (seat, user) pairs, which each backend reads its own way."""
    return GameRecord(
        id=row[0],
        guild_id=row[1],
        channel_id=row[2],
        status=row[3],
        options=from_json(row[4]),
        version=row[5],
        # Times as floats from either backend (SQLite's RETURNING gives back a whole number as an int).
        created_at=float(row[6]),
        updated_at=float(row[7]),
        created_by=row[8],
        waiting_on=row[9],
        turn_started_at=_time(row[10]),
        seats=tuple(seats),
    )


def _time(value: Any) -> float | None:
    return None if value is None else float(value)


# A duty row's columns: Duty's fields, in its order (`duty_from_row` reads them by position), each read as
# it is but these: times as floats from either backend (SQLite's RETURNING gives back a whole number as an
# int), the payload as JSON.
_DUTY_NAMES: Final[tuple[str, ...]] = tuple(f.name for f in fields(Duty))
DUTY_COLUMNS: Final[str] = ", ".join(_DUTY_NAMES)
_READS: Final[dict[str, Callable[[Any], Any]]] = {
    "due_at": float, "payload": from_json, "created_at": float, "not_before": _time, "lease_until": _time,
    "done_at": _time,
}  # fmt: skip
_DUTY_READS: Final = tuple(_READS.get(name, lambda value: value) for name in _DUTY_NAMES)


def duty_from_row(row: Sequence[Any]) -> Duty:
    """A duty from its row, selected as `DUTY_COLUMNS` (either backend's row: both index alike)."""
    return Duty(*[read(value) for read, value in zip(_DUTY_READS, row, strict=True)])


def check_seats(seats: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    out = [(int(seat), int(user)) for seat, user in seats]
    if any(not 0 <= seat < MAX_SEATS for seat, _ in out):
        raise SeatError(f"seats must be 0..{MAX_SEATS - 1}")
    if len({seat for seat, _ in out}) != len(out):
        raise SeatError("a seat is given twice")
    if len({user for _, user in out}) != len(out):
        raise SeatError("a user is seated twice")
    return out


def seat_for(game: GameRecord, user_id: int, seat: int | None) -> int:
    """The seat a user joining the lobby gets: `seat`, or the lowest free one. Raises SeatError."""
    if game.seat_of(user_id) is not None:
        raise SeatError(f"user {user_id} is already seated")
    taken = {s for s, _ in game.seats}
    if seat is None:
        free = [s for s in range(MAX_SEATS) if s not in taken]
        if not free:
            raise SeatError("the table is full")
        return free[0]
    if not 0 <= seat < MAX_SEATS:
        raise SeatError(f"seats must be 0..{MAX_SEATS - 1}")
    if seat in taken:
        raise SeatError(f"seat {seat} is taken")
    return seat


def check_status(status: str) -> Status:
    if status not in STATUSES:
        raise ValueError(f"unknown status {status!r}")
    return status


def _optional_int(value: Any) -> int | None:
    return None if value is None else int(value)


# How an export's "game" is read, field by field (`GAME_FIELDS`' order).
_GAME_READS: Final[tuple[Callable[[Any], Any], ...]] = (
    int, _optional_int, int, check_status, dict, int, int, float, float, _optional_int, _time,
)  # fmt: skip


def metadata_rows(changes: Mapping[str, Any]) -> list[tuple[str, str | None]]:
    """(key, JSON text or None to delete), encoded before any lock is taken."""
    out: list[tuple[str, str | None]] = []
    for key, value in changes.items():
        if not isinstance(key, str) or not key:
            raise ValueError(f"metadata keys are non-empty strings, got {key!r}")
        out.append((key, None if value is None else dumps(value)))  # NaN refused, as everywhere
    return out


def export_document(
    game: GameRecord,
    events: Iterable[Any],
    snapshot: tuple[int, JsonDict | None] | None,
    maps: Iterable[Any],
    meta: Iterable[Any],
    duties: Iterable[Duty],
    schema_version: int,
) -> JsonDict:
    """A game's export (the format `parse_export` reads) from its rows: events as (version, body text,
    created_at), the snapshot as (version, body), maps as (digest, name, text), metadata as (key, text),
    and its pending duties."""
    return {
        "format": EXPORT_FORMAT,
        "format_version": EXPORT_FORMAT_VERSION,
        "schema_version": schema_version,
        "game": {name: getattr(game, name) for name in GAME_FIELDS},
        "seats": [[seat, user] for seat, user in game.seats],
        "events": [{"version": v, "created_at": t, "body": from_json(b)} for v, b, t in events],
        "snapshot": None if snapshot is None else {"version": snapshot[0], "body": snapshot[1]},
        "maps": [{"digest": d, "name": n, "text": t} for d, n, t in maps],
        "meta": {key: json.loads(text) for key, text in meta},
        "duties": [{name: getattr(d, name) for name in _DUTY_FIELDS} for d in duties],
    }


def export_maps(data: Mapping[str, Any]) -> list[MapRow]:
    """The maps an export carries (for a lean snapshot), checked against the snapshot's reference."""
    rows: list[MapRow] = [(str(m["digest"]), str(m["name"]), str(m["text"])) for m in data.get("maps", [])]
    snap = data.get("snapshot")
    needed = snapshot_map(snap["body"]) if isinstance(snap, Mapping) else None
    if needed is not None and needed not in {d for d, _, _ in rows}:
        raise InvalidGameData(f"the snapshot names map {needed}, which the export does not carry")
    return rows


def parse_export(
    data: Mapping[str, Any],
) -> tuple[
    JsonDict,
    list[tuple[int, int]],
    list[tuple[int, str, float]],
    tuple[int, str] | None,
    list[tuple[NewDuty, str]],
]:
    """Validate an export and turn it into rows. Raises InvalidGameData (or KeyError/TypeError/ValueError)."""
    if data.get("format") != EXPORT_FORMAT or data.get("format_version") not in (1, EXPORT_FORMAT_VERSION):
        raise InvalidGameData("not an Alexandros game export of a known format version")
    raw = data["game"]
    game: JsonDict = {name: read(raw[name]) for name, read in zip(GAME_FIELDS, _GAME_READS, strict=True)}
    try:
        seat_rows = check_seats(data["seats"])
    except SeatError as exc:
        raise InvalidGameData(str(exc)) from exc
    event_rows = [(int(e["version"]), to_json(e["body"]), float(e["created_at"])) for e in data["events"]]
    if [v for v, _, _ in event_rows] != list(range(1, game["version"] + 1)):
        raise InvalidGameData(f"events must be exactly versions 1..{game['version']}")
    snap = data.get("snapshot")
    snapshot: tuple[int, str] | None = None
    if snap is not None:
        snapshot = (int(snap["version"]), to_json(snap["body"]))
        if snapshot[0] != game["version"]:
            raise InvalidGameData(f"snapshot is at version {snapshot[0]}, the game at {game['version']}")
    elif game["version"] > 0:
        raise InvalidGameData("a game with events needs a snapshot")
    duty_rows: list[tuple[NewDuty, str]] = []
    for d in data.get("duties", []):
        duty = NewDuty(
            kind=str(d["kind"]),
            due_at=float(d["due_at"]),
            channel_id=_optional_int(d["channel_id"]),
            user_id=_optional_int(d["user_id"]),
            payload=dict(d["payload"]),
            key=None if d["key"] is None else str(d["key"]),
        )
        duty_rows.append((duty, to_json(duty.payload)))
    for n in data.get("notices", []):  # format versions 1 and 2
        kind = _NOTICE_KINDS.get(str(n["kind"]))
        if kind is not None and n["sent_at"] is None and game["status"] == "playing":
            duty = NewDuty(
                kind,
                float(n["due_at"]),
                game["channel_id"],
                _optional_int(n["user_id"]),
                dict(n["payload"]),
                kind,
            )
            duty_rows.append((duty, to_json(duty.payload)))
    return game, seat_rows, event_rows, snapshot, duty_rows


@dataclass(frozen=True)
class ChangeRows:
    """What an append or an amend writes beside the game's row, checked and encoded before any lock is
    taken: the new seating (None: unchanged), the duties with their payloads as JSON, whose turn it is
    (``set_waiting`` False: unchanged), the keys of pending duties to cancel, and the metadata changes."""

    seats: list[tuple[int, int]] | None
    duties: list[tuple[NewDuty, str]]
    set_waiting: bool
    waiting: int | None
    cancel_keys: list[str]
    meta: list[tuple[str, str | None]]

    @classmethod
    def of(
        cls,
        *,
        seats: Sequence[tuple[int, int]] | None,
        duties: Sequence[NewDuty],
        waiting_on: int | None | _Keep,
        cancel_keys: Collection[str],
        meta: Mapping[str, Any] | None,
    ) -> ChangeRows:
        keep = isinstance(waiting_on, _Keep)
        return cls(
            seats=None if seats is None else check_seats(seats),
            duties=[(d, to_json(d.payload)) for d in duties],
            set_waiting=not keep,
            waiting=None if isinstance(waiting_on, _Keep) else waiting_on,
            cancel_keys=list(cancel_keys),
            meta=metadata_rows(meta or {}),
        )
