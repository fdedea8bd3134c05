"""Who holds a seat's duties, and when: pauses and vacations as plain facts of a game's options (no I/O).

Kept in the game's options (``GameRecord.options``), so the pipeline, the timers and the turn post read
them from the record they already have: ``paused`` ({"by": user id, "at": time}) while the creator paused
the game; ``vacations`` ({user id: until}) for players whose deadlines and reminders wait.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .schedule import turn_deadline

OPT_PAUSED = "paused"
OPT_VACATIONS = "vacations"
MAX_VACATION_DAYS = 14
DAY = 24 * 3600.0


def is_paused(options: Mapping[str, Any]) -> bool:
    return bool(options.get(OPT_PAUSED))


def vacations(options: Mapping[str, Any]) -> dict[int, float]:
    raw = options.get(OPT_VACATIONS)
    if not isinstance(raw, dict):
        return {}
    return {int(uid): float(until) for uid, until in raw.items()}


def vacation_until(options: Mapping[str, Any], user_id: int | None, now: float) -> float | None:
    """The end of ``user_id``'s vacation, if it is still running at ``now``."""
    if user_id is None:
        return None
    until = vacations(options).get(user_id)
    return until if until is not None and until > now else None


def turn_due(options: Mapping[str, Any], user_id: int | None, started: float | None) -> float | None:
    """When the turn that started at ``started`` runs out of time (P2), or None without a deadline: the
    table's deadline, or, for a player whose vacation ends after the turn started, a whole deadline counted
    from their return when that is later. Coming back (when the vacation runs out, or early with
    ``days:0``, which sets its end to that moment), a player has the table's whole time to play, as with
    ``/alexandros back``; a deadline at the very moment of the return would skip their turn at once."""
    if started is None:
        return None
    hours = options.get("deadline_hours")
    due = turn_deadline(started, None if hours is None else float(hours))
    back = vacations(options).get(user_id) if user_id is not None else None
    if due is None or back is None or back <= started:
        return due
    return max(due, back + (due - started))


def with_vacation(options: Mapping[str, Any], user_id: int, until: float | None) -> dict[str, Any]:
    """The options with ``user_id``'s vacation set (or ended, with None)."""
    current = {str(u): t for u, t in vacations(options).items() if u != user_id}
    if until is not None:
        current[str(user_id)] = until
    out = dict(options)
    if current:
        out[OPT_VACATIONS] = current
    else:
        out.pop(OPT_VACATIONS, None)
    return out


def is_rated_table(options: Mapping[str, Any]) -> bool:
    """A practice game (bot.commands.practice) or a game with hints (bot.commands.hints) is never
    rated (issue 29)."""
    return not options.get("practice") and not options.get("hints")


META_HINTS = "hints"  # {user id: hints used} in the game's metadata (bot.commands.hints)


def hints_allowed(options: Mapping[str, Any]) -> bool:
    """Players may ask for hints (issue 29): a practice game, or a table opened with ``hints:True``."""
    return bool(options.get("hints"))


def hint_counts(meta: Mapping[str, Any]) -> dict[int, int]:
    raw = meta.get(META_HINTS)
    return {int(u): int(n) for u, n in raw.items()} if isinstance(raw, dict) else {}
