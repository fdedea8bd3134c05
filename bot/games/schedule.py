"""When to remind, when a turn deadline falls, and when a nudge is allowed: pure timing, no I/O.

Games last days, so the bot reminds a player whose turn has waited a while, and repeats; a player
may set their own interval, quiet hours (in their own time zone) and time zone. All times are Unix
seconds (float) passed in by the caller; nothing here reads a clock, so the bot's notice loop and
the tests decide what "now" is. The caller stores the result as a notice due time
(storage `schedule_notice` / `NewNotice`).

API
---
ReminderPrefs(interval_hours=None, quiet_start=None, quiet_end=None, time_zone="UTC")
ReminderPrefs.from_settings(settings) -> ReminderPrefs
    From a user-settings dict (storage get_user_settings). Keys: "reminder_hours" (number; 0 =
    no reminders), "quiet_start" / "quiet_end" ("HH:MM", local time), "time_zone" (IANA name).
    Bad stored values raise ValueError with a sentence.
next_reminder(turn_started_at, table_hours, prefs, last_sent_at) -> float | None
    When the next reminder for this wait is due (None: reminders are off). The first comes when
    the turn has waited the interval; then one every interval after the last one sent; a time in
    the quiet hours moves to the end of the quiet hours.
reminder_due(now, turn_started_at, table_hours, prefs, last_sent_at) -> bool
quiet_until(at, prefs) -> float | None
    The end of the quiet hours containing `at`, or None when `at` is not in quiet hours.
turn_deadline(turn_started_at, deadline_hours) -> float | None
deadline_passed(now, turn_started_at, deadline_hours) -> bool
DeadlinePolicy (SKIP | AUTOPLAY), parse_policy(text) -> DeadlinePolicy
nudge_allowed(last_nudge_at, now) -> bool, next_nudge_at(last_nudge_at) -> float | None
    Other players may nudge the waiting player once per 24 hours per game.
validate_time_zone(name) -> str, parse_clock("22:30") -> datetime.time
    Both raise ValueError with a sentence that shows a valid example.
"""

from __future__ import annotations

import functools
import math
import re
import zoneinfo
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from enum import StrEnum
from typing import Any
from zoneinfo import ZoneInfo

from ..words.i18n import _

__all__ = [
    "HOUR",
    "NUDGE_COOLDOWN",
    "DeadlinePolicy",
    "ReminderPrefs",
    "deadline_passed",
    "next_nudge_at",
    "next_reminder",
    "nudge_allowed",
    "parse_clock",
    "parse_policy",
    "quiet_until",
    "reminder_due",
    "turn_deadline",
    "validate_time_zone",
]

HOUR = 3600.0
NUDGE_COOLDOWN = 24 * HOUR
_CLOCK = re.compile(r"([01]?\d|2[0-3]):([0-5]\d)")


@functools.cache
def time_zones() -> frozenset[str]:
    """Every IANA time zone name this machine knows (the tzdata package ships them)."""
    return frozenset(zoneinfo.available_timezones())


def validate_time_zone(name: str) -> str:
    """`name` if it is an IANA time zone this machine knows, else ValueError with an example.

    Only names from the zone list are tried: ZoneInfo also opens file paths, and a folder of the zone
    database ("Europe") or a very long name makes it raise OSError instead of saying no.
    """
    name = name.strip()
    if name not in time_zones():
        shown = name if len(name) <= 40 else name[:39] + "…"
        raise ValueError(
            _(
                "{value} is not a time zone name: use an IANA name like Europe/Berlin, America/New_York "
                "or UTC."
            ).format(value=repr(shown))
        )
    return name


def parse_clock(text: str) -> time:
    """A local clock time "HH:MM" (24-hour)."""
    match = _CLOCK.fullmatch(text.strip())
    if not match:
        raise ValueError(
            _("{value} is not a time of day: write it as HH:MM on a 24-hour clock, like 22:30.").format(
                value=repr(text)
            )
        )
    return time(int(match.group(1)), int(match.group(2)))


@dataclass(frozen=True)
class ReminderPrefs:
    """One player's reminder settings. Quiet hours are off unless both ends are set and differ."""

    interval_hours: float | None = None  # None: the table's interval; 0: no reminders at all
    quiet_start: time | None = None
    quiet_end: time | None = None
    time_zone: str = "UTC"

    def __post_init__(self) -> None:
        validate_time_zone(self.time_zone)
        if self.interval_hours is not None and not (
            math.isfinite(self.interval_hours) and self.interval_hours >= 0
        ):
            raise ValueError(_("A reminder interval must be a number of hours, 0 or more, like 12."))

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.time_zone)

    @property
    def has_quiet_hours(self) -> bool:
        return (
            self.quiet_start is not None and self.quiet_end is not None and self.quiet_start != self.quiet_end
        )

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any]) -> ReminderPrefs:
        hours = settings.get("reminder_hours")
        if hours is not None and (isinstance(hours, bool) or not isinstance(hours, int | float)):
            raise ValueError(_("A reminder interval must be a number of hours, 0 or more, like 12."))
        start, end = settings.get("quiet_start"), settings.get("quiet_end")
        return cls(
            interval_hours=None if hours is None else float(hours),
            quiet_start=None if start is None else parse_clock(str(start)),
            quiet_end=None if end is None else parse_clock(str(end)),
            time_zone=str(settings.get("time_zone") or "UTC"),
        )


def quiet_until(at: float, prefs: ReminderPrefs) -> float | None:
    """The moment the quiet hours around `at` end (always later than `at`), or None if `at` is outside
    quiet hours.

    Works on the local wall clock of the player's zone, so quiet hours 22:00-08:00 end at 08:00
    local time on the day of a DST change too (that night is then 9 or 11 hours long, not 10).
    """
    if not prefs.has_quiet_hours:
        return None
    start, end = prefs.quiet_start, prefs.quiet_end
    assert start is not None and end is not None
    zone = prefs.zone
    local = datetime.fromtimestamp(at, zone)
    clock = local.time().replace(tzinfo=None)
    day = local.date()
    if start < end:  # e.g. 13:00-15:00, within one day
        if not start <= clock < end:
            return None
        end_day = day
    else:  # wraps midnight, e.g. 22:00-08:00
        if end <= clock < start:
            return None
        end_day = day + timedelta(days=1) if clock >= start else day
    # An end time that does not exist that day (inside a spring-forward gap) is read with the
    # offset from before the change, which lands just after the gap. An ambiguous one (autumn) is
    # its first occurrence, unless `at` is already past that, in the repeated hour: then its second.
    # Read the first way only, the end was in the past, the reminder was "moved" to now again and
    # again, and the worker handled it on every round until the hour was over.
    ends = datetime.combine(end_day, end, tzinfo=zone)
    ending = ends.timestamp()
    if ending <= at:
        ending = ends.replace(fold=1).timestamp()
    return ending if ending > at else None


def next_reminder(
    turn_started_at: float, table_hours: float, prefs: ReminderPrefs, last_sent_at: float | None
) -> float | None:
    """When the next reminder of this wait is due, or None if this player gets no reminders.

    `last_sent_at` is when the previous reminder of the same wait went out; one sent before this
    turn started belongs to an earlier wait and is ignored.
    """
    hours = prefs.interval_hours if prefs.interval_hours is not None else table_hours
    if not math.isfinite(hours) or hours < 0:
        raise ValueError(_("A reminder interval must be a number of hours, 0 or more, like 24."))
    if hours == 0:
        return None
    interval = hours * HOUR
    first = turn_started_at + interval
    if last_sent_at is None or last_sent_at < turn_started_at:
        due = first
    else:
        # Counted from when the last one really went out (quiet hours may have delayed it), and
        # never earlier than the first: a reminder never comes before the turn waited the interval.
        due = max(first, last_sent_at + interval)
    moved = quiet_until(due, prefs)
    return due if moved is None else moved


def reminder_due(
    now: float, turn_started_at: float, table_hours: float, prefs: ReminderPrefs, last_sent_at: float | None
) -> bool:
    due = next_reminder(turn_started_at, table_hours, prefs, last_sent_at)
    return due is not None and due <= now


class DeadlinePolicy(StrEnum):
    """What happens to a turn that runs past the table's deadline."""

    SKIP = "skip"  # the player's turn ends as it stands (no further actions)
    AUTOPLAY = "autoplay"  # a computer player finishes the turn for them


def parse_policy(text: str) -> DeadlinePolicy:
    try:
        return DeadlinePolicy(text.strip().lower())
    except ValueError:
        raise ValueError(
            _("{value} is not a deadline policy: choose {skip} or {autoplay}.").format(
                value=repr(text), skip=DeadlinePolicy.SKIP.value, autoplay=DeadlinePolicy.AUTOPLAY.value
            )
        ) from None


def turn_deadline(turn_started_at: float, deadline_hours: float | None) -> float | None:
    """When the turn's time runs out, or None for a table without a deadline (None or 0 hours).

    Deadlines are the table's, not a player's: quiet hours do not move them, so every player at
    the table can see and trust the same moment.
    """
    if deadline_hours is None or deadline_hours == 0:
        return None
    if not math.isfinite(deadline_hours) or deadline_hours < 0:
        raise ValueError(_("A turn deadline must be a number of hours, more than 0, like 48."))
    return turn_started_at + deadline_hours * HOUR


def deadline_passed(now: float, turn_started_at: float, deadline_hours: float | None) -> bool:
    deadline = turn_deadline(turn_started_at, deadline_hours)
    return deadline is not None and now >= deadline


def nudge_allowed(last_nudge_at: float | None, now: float) -> bool:
    """May another player nudge the waiting player of this game now? Once per 24 hours per game."""
    return last_nudge_at is None or now - last_nudge_at >= NUDGE_COOLDOWN


def next_nudge_at(last_nudge_at: float | None) -> float | None:
    """When the next nudge becomes allowed (None: allowed now)."""
    return None if last_nudge_at is None else last_nudge_at + NUDGE_COOLDOWN
