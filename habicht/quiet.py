"""A chat's quiet hours: when its alerts are held (or arrive silently), in its own time zone.

Pure: the caller passes the time. A quiet window is a span of wall-clock time that repeats
every day (`22:00-07:00` crosses midnight); it is judged in the chat's zone (Europe/Vienna
unless the chat sets another), so a DST change moves the window with the clocks, as a
person expects: quiet until 07:00 means 07:00 on the wall, whatever the offset that night.

`hold` keeps alerts in the outbox until the window ends (an ordinary pending row whose due
time is `release_at`); `silent` sends them at once with `disable_notification`.

A chat's setting, not the outbox's: the bot parses and stores it (`/quiet`, `/settings`), the
watches read it with the chat's alerts and hand it to the outbox (`habicht.queue.enqueue`),
which reads no chat's settings. A foundation beside `clock` and `digits`: it imports no part.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from enum import StrEnum
from typing import Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from habicht.digits import whole_number

__all__ = [
    "DEFAULT_ZONE",
    "InvalidQuietHours",
    "QuietHours",
    "QuietMode",
    "QuietReason",
    "parse_quiet_hours",
    "stored_quiet_hours",
]

DEFAULT_ZONE = "Europe/Vienna"

QuietMode = Literal["hold", "silent"]

# `22-7`, `22:30-6:45`, `22.30 - 06.45`, then an optional mode. ASCII digits only
# (`habicht.digits`): `\d` would take Arabic-Indic digits too.
_WINDOW = re.compile(
    r"(?P<from>[0-9]{1,2}(?:[:.][0-9]{2})?)\s*-\s*(?P<to>[0-9]{1,2}(?:[:.][0-9]{2})?)"
    r"(?:\s+(?P<mode>hold|silent))?",
    re.IGNORECASE,
)


class QuietReason(StrEnum):
    """Why `/quiet` was refused: a stable code the bot turns into a de/en text."""

    SYNTAX = "syntax"  # not `<from>-<to> [hold|silent]`
    TIME = "time"  # an hour above 23 or minutes above 59
    EMPTY = "empty"  # from and to are the same time: a window of no length
    ZONE = "zone"  # an unknown time zone


class InvalidQuietHours(ValueError):
    """`/quiet` got something that is not a window; `given` is what was typed."""

    def __init__(self, reason: QuietReason, given: str) -> None:
        super().__init__(f"{reason}: {given!r}")
        self.reason = reason
        self.given = given


def _clock_time(text: str, given: str) -> time:
    hours, _, minutes = text.replace(".", ":").partition(":")
    hour, minute = whole_number(hours, max_digits=2), whole_number(minutes or "0", max_digits=2)
    if hour is None or minute is None:  # the pattern let only ASCII digits through
        raise InvalidQuietHours(QuietReason.SYNTAX, given)
    if hour > 23 or minute > 59:
        raise InvalidQuietHours(QuietReason.TIME, given)
    return time(hour, minute)


def _zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise InvalidQuietHours(QuietReason.ZONE, name) from exc


@dataclass(frozen=True, slots=True)
class QuietHours:
    """Quiet from `start` to `end` (wall-clock times in `zone`; `end` before `start` means
    the window crosses midnight)."""

    start: time
    end: time
    mode: QuietMode = "hold"
    zone: str = DEFAULT_ZONE

    def __post_init__(self) -> None:
        if self.start == self.end:
            raise InvalidQuietHours(QuietReason.EMPTY, self.text)
        _zone(self.zone)

    @property
    def text(self) -> str:
        """`22:00-07:00 hold`, as `/quiet` shows it and takes it back."""
        return f"{self.start:%H:%M}-{self.end:%H:%M} {self.mode}"

    def release_at(self, now: float) -> float | None:
        """When the window `now` falls in ends (epoch seconds); None outside quiet hours.

        An end time the clocks skip that night (02:30 when they jump from 02:00 to 03:00) is
        read with the offset before the jump, so the window ends at 03:30 summer time: late
        by the jump, never early. An end time the clocks show twice ends the first time.
        """
        zone = _zone(self.zone)
        local = datetime.fromtimestamp(now, zone)
        wall = local.time().replace(tzinfo=None)
        crosses_midnight = self.end < self.start
        if crosses_midnight:
            quiet = wall >= self.start or wall < self.end
        else:
            quiet = self.start <= wall < self.end
        if not quiet:
            return None
        day = local.date()
        if crosses_midnight and wall >= self.start:
            day += timedelta(days=1)
        return max(datetime.combine(day, self.end, tzinfo=zone).timestamp(), now)


def stored_quiet_hours(
    start: str | None, end: str | None, mode: str | None, zone: str | None
) -> QuietHours | None:
    """A chat's window from its `chats` columns (`quiet_from`, `quiet_to` as `HH:MM`,
    `quiet_mode`, `quiet_zone`); None when it has none (`quiet_mode` NULL)."""
    if start is None or end is None or mode not in ("hold", "silent"):
        return None
    return QuietHours(
        start=time.fromisoformat(start),
        end=time.fromisoformat(end),
        mode="silent" if mode == "silent" else "hold",
        zone=zone or DEFAULT_ZONE,
    )


def parse_quiet_hours(text: str, *, zone: str = DEFAULT_ZONE) -> QuietHours:
    """`22-7`, `22:30-6:45 silent` … as `/quiet` takes them (the mode defaults to hold)."""
    match = _WINDOW.fullmatch(text.strip())
    if match is None:
        raise InvalidQuietHours(QuietReason.SYNTAX, text)
    mode: QuietMode = "silent" if (match["mode"] or "").lower() == "silent" else "hold"
    start, end = _clock_time(match["from"], text), _clock_time(match["to"], text)
    try:
        return QuietHours(start=start, end=end, mode=mode, zone=zone)
    except InvalidQuietHours as exc:  # name what was typed, not what it was read as
        raise InvalidQuietHours(exc.reason, text) from None
