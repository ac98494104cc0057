"""Plain-text views of the queue for its owners: `habicht queue …` prints them, and the bot's
admin commands can send them (HTML-escaped, in `<pre>`). Also the one parser of "ids or all"."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Literal
from zoneinfo import ZoneInfo

from habicht.digits import row_id
from habicht.queue.rows import Notification
from habicht.queue.upkeep import QueueStats
from habicht.quiet import DEFAULT_ZONE

__all__ = ["describe_dead", "describe_stats", "parse_ids"]


def _span(seconds: float) -> str:
    """A duration the way a person says it: 42 s, 5 min, 3 h, 2 d."""
    seconds = max(0.0, seconds)
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:.0f} {unit}"
    return f"{seconds:.0f} s"


def describe_stats(stats: QueueStats, *, now: float, zone: str = DEFAULT_ZONE) -> str:
    """Counts per status with what matters beside each: retries, age, next due, dead reasons;
    held rows (quiet hours) apart from the pending ones, by release time in `zone`."""
    pending_notes = [f"{stats.retrying} retrying"]
    if stats.next_due_at is not None:
        due = stats.next_due_at - now
        pending_notes.append("next due now" if due <= 0 else f"next due in {_span(due)}")
    if stats.oldest_pending_age is not None:
        pending_notes.append(f"oldest queued {_span(stats.oldest_pending_age)} ago")
    reasons = ", ".join(f"{reason} {count}" for reason, count in stats.dead_by_reason.items())
    held = sum(stats.held.values())
    lines = [
        ("pending", stats.pending - held, "; ".join(pending_notes)),
        ("sending", stats.sending, ""),
        ("sent", stats.sent, f"{stats.sent_last_24h} in the last 24 h"),
        ("dead", stats.dead, reasons),
    ]
    tz = ZoneInfo(zone)
    return "\n".join(
        [f"{name:<8}{count:>7}" + (f"  ({note})" if note else "") for name, count, note in lines]
        + [
            f"held until {datetime.fromtimestamp(release, tz):%H:%M}: {count}"
            for release, count in stats.held.items()
        ]
    )


def describe_dead(rows: Sequence[Notification], *, now: float) -> str:
    """Each dead notification: id, chat, reason, when, attempts, and the error that killed it."""
    if not rows:
        return "no dead notifications"
    return "\n".join(
        f"#{n.id}  chat {n.chat_id}  {n.dead_reason or 'unknown'}  "
        f"{_span(now - n.updated_at)} ago  attempts {n.attempts}\n"
        f"    {n.last_error or '(no error recorded)'}"
        for n in rows
    )


def parse_ids(words: Iterable[str]) -> list[int] | Literal["all"]:
    """`["all"]` or notification ids; a ValueError says what was wrong."""
    words = list(words)
    if words == ["all"]:
        return "all"
    if not words:
        raise ValueError("give notification ids, or 'all'")
    ids = [row_id(word.removeprefix("#")) for word in words]
    if None in ids:
        raise ValueError(f"expected notification ids or 'all', got {' '.join(words)!r}")
    return [i for i in ids if i is not None]
