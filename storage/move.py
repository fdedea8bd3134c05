"""Moving a whole database from one store to another, e.g. from SQLite to PostgreSQL when scaling out.

Every game goes across with `export_game`/`import_game`, keeping its id: its seats, its whole event log,
its latest snapshot, its metadata and its pending duties (reminders, deadlines, posts not yet delivered).
Then every user's settings. Duties already delivered are history and stay behind. Afterwards the two
stores are compared game by game, and the target's integrity is checked.

Stop the bot first: a game changed during the move would be copied as it was before the change.
Run it as `python -m storage move --from data/alexandros.db --to postgresql://user:pw@host/db`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .base import GameStore, JsonDict, StoreError


class MoveRefused(StoreError):
    """The target already holds data, and the caller did not say to write over it."""


@dataclass(frozen=True)
class MoveReport:
    games: int
    events: int
    pending_duties: int
    users: int
    statuses: dict[str, int]

    def __str__(self) -> str:
        by_status = ", ".join(f"{n} {s}" for s, n in sorted(self.statuses.items()))
        return (
            f"moved {self.games} games ({by_status or 'none'}), {self.events} events,"
            f" {self.pending_duties} pending duties and the settings of {self.users} users; verified"
        )


def _comparable(export: JsonDict) -> JsonDict:
    # The schema version numbers each backend's own migrations, so it differs between backends.
    return {k: v for k, v in export.items() if k != "schema_version"}


async def move_database(
    source: GameStore,
    target: GameStore,
    *,
    replace: bool = False,
    progress: Callable[[str], Any] | None = None,
) -> MoveReport:
    """Copy every game and every user's settings from `source` to `target`, then verify the copy.

    Raises MoveRefused if the target already has games or settings, unless `replace` (then games of the
    same ids are replaced, others are kept). Raises StoreError if the verification finds a difference.
    """
    say = progress or (lambda _: None)
    users = await source.all_user_settings()
    if not replace:
        if await target.list_games(limit=1) or await target.all_user_settings():
            raise MoveRefused(
                "the target database already holds games or settings: move into an empty database, "
                "or pass --replace to write over games of the same ids"
            )
    games = await source.list_games()
    say(f"{len(games)} games and {len(users)} users to move")
    statuses: Counter[str] = Counter()
    events = duties = 0
    # Oldest first, so that a channel's finished games are in before its unfinished one.
    for n, game in enumerate(sorted(games, key=lambda g: (g.updated_at, g.id)), start=1):
        data = await source.export_game(game.id)
        await target.import_game(data, replace=replace, keep_id=True)
        statuses[game.status] += 1
        events += len(data["events"])
        duties += len(data["duties"])
        if n % 500 == 0:
            say(f"{n} games moved")
    for user_id, settings, updated_at in users:
        await target.set_user_settings(user_id, settings, updated_at)

    # Verify: the same games, each exporting exactly as it did from the source, the same settings.
    for game in games:
        before = _comparable(await source.export_game(game.id))
        after = _comparable(await target.export_game(game.id))
        if before != after:
            raise StoreError(f"game {game.id} differs after the move")
    if not replace and len(await target.list_games()) != len(games):
        raise StoreError("the target holds a different number of games than the source")
    for user_id, settings, _ in users:
        if await target.get_user_settings(user_id) != settings:
            raise StoreError(f"user {user_id}'s settings differ after the move")
    report = await target.integrity_check()
    if not report:
        raise StoreError(f"the target fails its integrity check:\n{report}")
    return MoveReport(len(games), events, duties, len(users), dict(statuses))
