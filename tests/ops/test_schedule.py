"""bot.games.schedule: reminder timing with quiet hours, time zones and DST; deadlines; nudges; timestamps."""

from __future__ import annotations

from datetime import UTC, datetime, time
from zoneinfo import ZoneInfo

import pytest

from bot.games.schedule import (
    HOUR,
    DeadlinePolicy,
    ReminderPrefs,
    deadline_passed,
    next_nudge_at,
    next_reminder,
    nudge_allowed,
    parse_clock,
    parse_policy,
    quiet_until,
    reminder_due,
    turn_deadline,
    validate_time_zone,
)
from bot.words.words import format_timestamp

BERLIN = ZoneInfo("Europe/Berlin")
NO_PREFS = ReminderPrefs()


def at(year: int, month: int, day: int, hour: int, minute: int = 0, zone: ZoneInfo | None = None) -> float:
    return datetime(year, month, day, hour, minute, tzinfo=zone or UTC).timestamp()


T0 = at(2026, 6, 1, 12)


def test_first_reminder_comes_after_the_interval() -> None:
    assert next_reminder(T0, 24, NO_PREFS, None) == T0 + 24 * HOUR
    assert not reminder_due(T0 + 24 * HOUR - 1, T0, 24, NO_PREFS, None)
    assert reminder_due(T0 + 24 * HOUR, T0, 24, NO_PREFS, None)


def test_reminders_repeat_at_the_interval_from_the_last_one_sent() -> None:
    first = T0 + 24 * HOUR
    assert next_reminder(T0, 24, NO_PREFS, first) == first + 24 * HOUR
    late = first + 3 * HOUR  # the notice loop sent it late
    assert next_reminder(T0, 24, NO_PREFS, late) == late + 24 * HOUR


def test_never_before_the_turn_has_waited_the_interval() -> None:
    # A reminder from an earlier wait (sent before this turn began) does not count.
    assert next_reminder(T0, 24, NO_PREFS, T0 - 1 * HOUR) == T0 + 24 * HOUR
    for last in (None, T0 - 5, T0, T0 + 60, T0 + 30 * HOUR):
        due = next_reminder(T0, 24, NO_PREFS, last)
        assert due is not None and due >= T0 + 24 * HOUR


def test_user_interval_overrides_the_table() -> None:
    prefs = ReminderPrefs(interval_hours=6)
    assert next_reminder(T0, 24, prefs, None) == T0 + 6 * HOUR
    assert next_reminder(T0, 24, prefs, T0 + 6 * HOUR) == T0 + 12 * HOUR
    assert next_reminder(T0, 24, ReminderPrefs(interval_hours=0), None) is None  # reminders off
    assert next_reminder(T0, 0, NO_PREFS, None) is None
    with pytest.raises(ValueError):
        ReminderPrefs(interval_hours=-1)


def test_quiet_hours_within_a_day() -> None:
    prefs = ReminderPrefs(quiet_start=time(13), quiet_end=time(15), time_zone="UTC")
    start = at(2026, 6, 1, 10)  # due at 14:00, inside 13-15
    assert next_reminder(start, 4, prefs, None) == at(2026, 6, 1, 15)
    assert next_reminder(start, 2, prefs, None) == at(2026, 6, 1, 12)  # 12:00 is outside
    assert quiet_until(at(2026, 6, 1, 15), prefs) is None  # the end itself is not quiet
    assert quiet_until(at(2026, 6, 1, 13), prefs) == at(2026, 6, 1, 15)


def test_quiet_hours_wrapping_midnight_in_the_users_zone() -> None:
    prefs = ReminderPrefs(quiet_start=time(22), quiet_end=time(8), time_zone="Europe/Berlin")
    # Summer: Berlin is UTC+2. Due 23:30 local -> 08:00 local the next morning.
    start = at(2026, 6, 1, 23, 30, BERLIN) - 24 * HOUR
    assert next_reminder(start, 24, prefs, None) == at(2026, 6, 2, 8, 0, BERLIN)
    # Due 03:00 local (after midnight) -> 08:00 the same morning.
    start = at(2026, 6, 2, 3, 0, BERLIN) - 24 * HOUR
    assert next_reminder(start, 24, prefs, None) == at(2026, 6, 2, 8, 0, BERLIN)
    # 21:59 and 08:00 local are not quiet.
    assert quiet_until(at(2026, 6, 1, 21, 59, BERLIN), prefs) is None
    assert quiet_until(at(2026, 6, 2, 8, 0, BERLIN), prefs) is None
    assert quiet_until(at(2026, 6, 1, 22, 0, BERLIN), prefs) == at(2026, 6, 2, 8, 0, BERLIN)


def test_quiet_hours_on_the_spring_dst_change_in_berlin() -> None:
    # 2026-03-29: clocks jump from 02:00 CET to 03:00 CEST. The night 22:00-08:00 is 9 hours long.
    prefs = ReminderPrefs(quiet_start=time(22), quiet_end=time(8), time_zone="Europe/Berlin")
    due = at(2026, 3, 28, 23, 0, BERLIN)  # 22:00 UTC
    end = quiet_until(due, prefs)
    assert end == at(2026, 3, 29, 6, 0)  # 08:00 CEST is 06:00 UTC
    assert end - due == 8 * HOUR  # 23:00 CET -> 08:00 CEST: 9 hours on the wall clock, 8 real hours
    assert datetime.fromtimestamp(end, BERLIN).hour == 8
    # A due time after the jump, 05:00 CEST, also moves to 08:00 CEST.
    assert quiet_until(at(2026, 3, 29, 3, 0), prefs) == at(2026, 3, 29, 6, 0)


def test_quiet_hours_end_inside_the_dst_gap_lands_after_it() -> None:
    # Quiet hours ending at 02:30, which does not exist on 2026-03-29 in Berlin.
    prefs = ReminderPrefs(quiet_start=time(1), quiet_end=time(2, 30), time_zone="Europe/Berlin")
    due = at(2026, 3, 29, 0, 30)  # 01:30 CET
    end = quiet_until(due, prefs)
    assert end is not None and end > due
    assert end == at(2026, 3, 29, 1, 30)  # 03:30 CEST: just past the gap


def test_quiet_hours_on_the_autumn_dst_change_in_berlin() -> None:
    # 2026-10-25: clocks go back from 03:00 CEST to 02:00 CET; that night is 11 hours long.
    prefs = ReminderPrefs(quiet_start=time(22), quiet_end=time(8), time_zone="Europe/Berlin")
    due = at(2026, 10, 24, 22, 30, BERLIN)
    end = quiet_until(due, prefs)
    assert end == at(2026, 10, 25, 8, 0, BERLIN) == at(2026, 10, 25, 7, 0)
    assert end - due == 10.5 * HOUR


def test_quiet_hours_ending_in_the_repeated_autumn_hour_end_at_its_second_pass() -> None:
    # Quiet hours 00:00-02:30; 2027-10-31 02:15 CET is the second 02:15 of the night (fold=1), after
    # 02:30 CEST has passed: they end at 02:30 CET, not "now" (the worker handled such a reminder again
    # on every round until the hour was over).
    prefs = ReminderPrefs(quiet_start=time(0), quiet_end=time(2, 30), time_zone="Europe/Berlin")
    due = datetime(2027, 10, 31, 2, 15, tzinfo=BERLIN, fold=1).timestamp()
    assert quiet_until(due, prefs) == datetime(2027, 10, 31, 2, 30, tzinfo=BERLIN, fold=1).timestamp()
    assert quiet_until(due, prefs) == due + 15 * 60
    assert next_reminder(due - 24 * HOUR, 24, prefs, None) == due + 15 * 60
    first_pass = datetime(2027, 10, 31, 2, 15, tzinfo=BERLIN).timestamp()  # CEST: ends at 02:30 CEST
    assert quiet_until(first_pass, prefs) == first_pass + 15 * 60
    wrapping = ReminderPrefs(quiet_start=time(22), quiet_end=time(2, 30), time_zone="Europe/Berlin")
    assert quiet_until(due, wrapping) == due + 15 * 60


def test_interval_counted_in_real_hours_across_dst() -> None:
    # Reminders are every 24 real hours, not 24 wall-clock hours: across the spring change the
    # local hour shifts by one, and quiet hours still apply on the local clock.
    start = at(2026, 3, 28, 12, 0, BERLIN)
    due = next_reminder(start, 24, ReminderPrefs(time_zone="Europe/Berlin"), None)
    assert due == start + 24 * HOUR
    assert datetime.fromtimestamp(due, BERLIN).hour == 13


def test_prefs_from_settings_and_validation() -> None:
    prefs = ReminderPrefs.from_settings(
        {"reminder_hours": 12, "quiet_start": "22:30", "quiet_end": "7:00", "time_zone": "America/New_York"}
    )
    assert prefs == ReminderPrefs(12.0, time(22, 30), time(7), "America/New_York")
    assert ReminderPrefs.from_settings({}) == NO_PREFS
    assert not ReminderPrefs(quiet_start=time(8), quiet_end=time(8)).has_quiet_hours
    assert not ReminderPrefs(quiet_start=time(8)).has_quiet_hours
    with pytest.raises(ValueError, match="HH:MM"):
        ReminderPrefs.from_settings({"quiet_start": "25:00", "quiet_end": "07:00"})
    with pytest.raises(ValueError, match="number of hours"):
        ReminderPrefs.from_settings({"reminder_hours": "soon"})


@pytest.mark.parametrize("name", ["Mars/Olympus", "", "../etc/passwd", "/usr/share/zoneinfo/UTC", "Berlin"])
def test_bad_time_zone_names_get_a_sentence_with_an_example(name: str) -> None:
    with pytest.raises(ValueError) as err:
        validate_time_zone(name)
    assert "Europe/Berlin" in str(err.value) and str(err.value).endswith(".")
    with pytest.raises(ValueError):
        ReminderPrefs(time_zone=name)


def test_good_time_zone_names() -> None:
    for name in ("Europe/Berlin", "America/New_York", "UTC", "Asia/Kolkata"):
        assert validate_time_zone(f" {name} ") == name


def test_parse_clock() -> None:
    assert parse_clock("07:05") == time(7, 5)
    assert parse_clock("23:59") == time(23, 59)
    for bad in ("24:00", "7", "7:5", "noon", "12:60"):
        with pytest.raises(ValueError, match="22:30"):
            parse_clock(bad)


def test_deadlines() -> None:
    assert turn_deadline(T0, None) is None
    assert turn_deadline(T0, 0) is None
    assert turn_deadline(T0, 48) == T0 + 48 * HOUR
    assert not deadline_passed(T0 + 48 * HOUR - 1, T0, 48)
    assert deadline_passed(T0 + 48 * HOUR, T0, 48)
    assert not deadline_passed(T0 + 1000 * HOUR, T0, None)
    with pytest.raises(ValueError):
        turn_deadline(T0, -1)
    assert parse_policy(" Skip ") is DeadlinePolicy.SKIP
    assert parse_policy("autoplay") is DeadlinePolicy.AUTOPLAY
    with pytest.raises(ValueError, match="skip or autoplay"):
        parse_policy("kick")


def test_nudge_once_per_24_hours() -> None:
    assert nudge_allowed(None, T0)
    assert next_nudge_at(None) is None
    assert not nudge_allowed(T0, T0 + 1)
    assert not nudge_allowed(T0, T0 + 24 * HOUR - 1)
    assert nudge_allowed(T0, T0 + 24 * HOUR)
    assert next_nudge_at(T0) == T0 + 24 * HOUR


def test_timestamp_format() -> None:
    assert format_timestamp(1700000000.9) == "<t:1700000000:R>"
    assert format_timestamp(1700000000, "F") == "<t:1700000000:F>"
    for style in "tTdDfFR":
        assert format_timestamp(0, style) == f"<t:0:{style}>"
    with pytest.raises(ValueError):
        format_timestamp(0, "x")
