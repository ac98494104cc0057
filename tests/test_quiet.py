"""Quiet hours: when a chat's window holds an alert, and until when — across midnight and DST."""

from __future__ import annotations

from datetime import datetime, time
from zoneinfo import ZoneInfo

import pytest
from kit.times import VIENNA, at

from habicht.quiet import InvalidQuietHours, QuietHours, QuietReason, parse_quiet_hours


def wall(seconds: float | None, zone: ZoneInfo = VIENNA) -> str | None:
    if seconds is None:
        return None
    return datetime.fromtimestamp(seconds, zone).strftime("%Y-%m-%d %H:%M %Z")


@pytest.mark.parametrize(
    ("typed", "start", "end", "mode"),
    [
        ("22-7", time(22), time(7), "hold"),
        ("22:30-6:45 silent", time(22, 30), time(6, 45), "silent"),
        ("22.30 - 06.45 HOLD", time(22, 30), time(6, 45), "hold"),
        ("0-6", time(0), time(6), "hold"),
        ("13:00-14:00", time(13), time(14), "hold"),
    ],
)
def test_windows_are_read_as_people_type_them(
    typed: str, start: time, end: time, mode: str
) -> None:
    quiet = parse_quiet_hours(typed)
    assert (quiet.start, quiet.end, quiet.mode, quiet.zone) == (start, end, mode, "Europe/Vienna")
    assert parse_quiet_hours(quiet.text) == quiet


@pytest.mark.parametrize(
    ("typed", "reason"),
    [
        ("22", QuietReason.SYNTAX),
        ("nachts", QuietReason.SYNTAX),
        ("22-7 loud", QuietReason.SYNTAX),
        ("25-7", QuietReason.TIME),
        ("22:61-7", QuietReason.TIME),
        ("7-7", QuietReason.EMPTY),
    ],
)
def test_what_is_no_window_is_refused_with_its_reason(typed: str, reason: QuietReason) -> None:
    with pytest.raises(InvalidQuietHours) as caught:
        parse_quiet_hours(typed)
    assert caught.value.reason is reason


def test_an_unknown_zone_is_refused() -> None:
    with pytest.raises(InvalidQuietHours) as caught:
        parse_quiet_hours("22-7", zone="Mars/Olympus_Mons")
    assert caught.value.reason is QuietReason.ZONE


def test_a_window_across_midnight_holds_until_its_end_on_the_next_morning() -> None:
    quiet = parse_quiet_hours("22-7")
    assert wall(quiet.release_at(at("2026-11-30 23:10"))) == "2026-12-01 07:00 CET"
    assert wall(quiet.release_at(at("2026-12-01 02:40"))) == "2026-12-01 07:00 CET"
    assert quiet.release_at(at("2026-12-01 07:00")) is None
    assert quiet.release_at(at("2026-12-01 21:59")) is None
    assert wall(quiet.release_at(at("2026-12-01 22:00"))) == "2026-12-02 07:00 CET"


def test_a_window_within_one_day() -> None:
    quiet = QuietHours(time(13), time(14, 30))
    assert quiet.release_at(at("2026-12-01 12:59")) is None
    assert wall(quiet.release_at(at("2026-12-01 13:00"))) == "2026-12-01 14:30 CET"
    assert quiet.release_at(at("2026-12-01 14:30")) is None


def test_the_window_follows_the_wall_clock_when_summer_time_ends() -> None:
    """On 2026-10-25 Vienna's clocks go from 03:00 CEST back to 02:00 CET: the night is an
    hour longer, and 07:00 is still 07:00 on the wall."""
    quiet = parse_quiet_hours("22-7")
    release = quiet.release_at(at("2026-10-24 23:30"))
    assert wall(release) == "2026-10-25 07:00 CET"
    assert release is not None
    assert release - at("2026-10-24 23:30") == pytest.approx(8.5 * 3600)


def test_the_window_follows_the_wall_clock_when_summer_time_starts() -> None:
    """On 2026-03-29 the clocks jump from 02:00 CET to 03:00 CEST; a window ending at 02:30,
    a time that night does not have, ends late by the jump rather than early."""
    assert wall(parse_quiet_hours("22-7").release_at(at("2026-03-28 23:00"))) == (
        "2026-03-29 07:00 CEST"
    )
    gap = parse_quiet_hours("22-2:30").release_at(at("2026-03-29 01:30"))
    assert wall(gap) == "2026-03-29 03:30 CEST"


def test_an_end_the_clocks_show_twice_ends_the_first_time() -> None:
    """On 2026-10-25 02:30 happens in CEST and again in CET: the window ends at the first."""
    release = parse_quiet_hours("22-2:30").release_at(at("2026-10-25 01:00"))
    assert wall(release) == "2026-10-25 02:30 CEST"


def test_a_chat_in_another_zone_is_quiet_in_its_own_night() -> None:
    lisbon = ZoneInfo("Europe/Lisbon")
    quiet = parse_quiet_hours("22-7", zone="Europe/Lisbon")
    assert quiet.release_at(at("2026-12-01 22:30", VIENNA)) is None  # 21:30 in Lisbon
    assert wall(quiet.release_at(at("2026-12-01 22:30", lisbon)), lisbon) == (
        "2026-12-02 07:00 WET"
    )
