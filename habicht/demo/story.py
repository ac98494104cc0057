"""Turn what the demo saw into its story: the outbox before and after a step, plus the
attempts and fetches recorded meanwhile, become time-ordered entries — detected, sent,
retried (with its delay), held back by a 429, dead (and why).

Pure: no clock, no database, no output; `run` reads the outbox and prints the entries.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal
from zoneinfo import ZoneInfo

from habicht.demo.observe import Attempt, Fetch
from habicht.demo.terminal import one_line
from habicht.queue import DEFAULT_ZONE, Notification

__all__ = ["Entry", "Outbox", "Tone", "narrate"]

Outbox = Mapping[int, Notification]
"""The outbox's rows by id, as read at one moment."""

Tone = Literal["plain", "good", "warn", "bad"]

TEXT_WIDTH = 66

# Order of entries at the same virtual time: a fetch, what it detected, sends, settles, and
# the owner's alert about what a drain buried (queued after the drain).
_FETCH, _DETECT, _SEND, _SETTLE, _ALERT = range(5)


@dataclass(frozen=True)
class Entry:
    """One line of the story: at `at`, `label` (fetch, detected, send …) about `who`."""

    at: float
    rank: int
    label: str
    who: str
    text: str
    tone: Tone = "plain"


def narrate(
    before: Outbox,
    after: Outbox,
    attempts: Sequence[Attempt],
    fetches: Sequence[Fetch],
    *,
    names: Mapping[int, str],
) -> list[Entry]:
    """The entries of one step, in the order they happened."""
    entries = [
        Entry(f.at, _FETCH, "fetch", "willhaben", f'"{f.search}" → {f.status}', _tone(f.status))
        for f in fetches
    ]
    for row in (after[i] for i in sorted(after.keys() - before.keys())):
        label = "detected" if row.kind in ("new", "drop") else "queued"
        rank = _ALERT if row.kind == "admin" else _DETECT
        text = one_line(row.text, TEXT_WIDTH)
        if row.queued_at > row.created_at:  # quiet hours: held until they end
            until = datetime.fromtimestamp(row.queued_at, ZoneInfo(DEFAULT_ZONE))
            text = one_line(f"⏸ held until {until:%H:%M}: {row.text}", TEXT_WIDTH)
        entries.append(Entry(row.created_at, rank, label, _who(row, names), text))
    entries += _sends(before, after, attempts, names)
    entries += _settled_unsent(before, after, attempts, names)
    return sorted(entries, key=lambda entry: (entry.at, entry.rank))


def _sends(
    before: Outbox, after: Outbox, attempts: Sequence[Attempt], names: Mapping[int, str]
) -> list[Entry]:
    """A line per attempt; a failed one says what became of its row (if it was its last)."""
    rows = {(row.chat_id, row.text): row for row in after.values()}
    matched = [(attempt, rows.get((attempt.chat_id, attempt.text))) for attempt in attempts]
    last = {row.id: i for i, (_, row) in enumerate(matched) if row is not None}
    entries = []
    for i, (attempt, row) in enumerate(matched):
        name = names.get(attempt.chat_id, str(attempt.chat_id))
        carried = [
            row
            for row in after.values()
            if row.chat_id == attempt.chat_id
            and row.digest_line
            and row.digest_line in attempt.text
        ]
        if row is None and carried:  # a digest: one message for several rows
            text = (
                f"✓ one digest of {len(carried)} alerts" if attempt.error is None else attempt.error
            )
            entries.append(Entry(attempt.at, _SEND, "digest", name, text, _tone(attempt.status)))
            continue
        if row is None:  # a reply to a command, which does not go through the outbox
            text = one_line(attempt.text, TEXT_WIDTH) if attempt.error is None else attempt.error
            entries.append(Entry(attempt.at, _SEND, "reply", name, text, _tone(attempt.status)))
            continue
        tone: Tone
        if attempt.error is None:
            text, tone = ("✓ delivered as a photo" if attempt.photo else "✓ delivered"), "good"
        elif attempt.photo and attempt.status == 400 and last[row.id] != i:
            text, tone = f"✗ {attempt.error} → sent as text at once", "warn"
        elif last[row.id] != i:
            text, tone = f"✗ {attempt.error} → tried again", "warn"
        else:
            fate, tone = _fate(before.get(row.id), row, at=attempt.at)
            text = f"✗ {attempt.error} → {fate}"
        entries.append(Entry(attempt.at, _SEND, "send", _who(row, names), text, tone))
    return entries


def _fate(old: Notification | None, row: Notification, *, at: float) -> tuple[str, Tone]:
    """What the queue decided after a failed attempt, read from the row."""
    wait = row.next_attempt_at - at
    if row.status == "dead":
        return f"dead: {row.dead_reason}", "bad"
    if row.status == "pending" and row.attempts > (old.attempts if old else 0):
        return f"retry in {wait:.0f} s (attempt {row.attempts} of {row.max_attempts})", "warn"
    if row.status == "pending":
        return f"held back {wait:.0f} s, attempt not counted", "warn"
    return row.status, "plain"


def _settled_unsent(
    before: Outbox, after: Outbox, attempts: Sequence[Attempt], names: Mapping[int, str]
) -> list[Entry]:
    """Rows settled without an attempt of their own: buried with their chat, or held back
    with it after a 429."""
    attempted = {(attempt.chat_id, attempt.text) for attempt in attempts}
    entries = []
    for row_id in sorted(after):
        row, old = after[row_id], before.get(row_id)
        if (row.chat_id, row.text) in attempted:
            continue
        if old is None and row.queued_at > row.created_at:
            continue  # held for quiet hours: its detection says until when
        was_due = row.created_at if old is None else old.next_attempt_at
        if row.status == "dead" and (old is None or old.status != "dead"):
            text = f"✗ dead unsent: {row.dead_reason} ({row.last_error})"
            entries.append(Entry(row.updated_at, _SETTLE, "dead", _who(row, names), text, "bad"))
        elif row.status == "pending" and row.next_attempt_at > was_due:
            wait = row.next_attempt_at - row.updated_at
            text = f"⏸ held back {wait:.0f} s with its chat"
            entries.append(Entry(row.updated_at, _SETTLE, "held", _who(row, names), text, "warn"))
    return entries


def _who(row: Notification, names: Mapping[int, str]) -> str:
    return f"#{row.id} {names.get(row.chat_id, str(row.chat_id))}"


def _tone(status: int) -> Tone:
    return "good" if status == 200 else "warn" if status in (429, 500, 502, 503) else "bad"
