"""Turn what the demo saw into its story: the outbox before and after a step, plus the
attempts and fetches recorded meanwhile, become time-ordered entries — detected, sent,
retried (with its delay), held back by a 429, dead (and why).

An edit of a sent alert (issue 34) is told under the alert's own number — `edit #15 Lena
🔒 reserviert …`, then `send #15 Lena ✓ edited in place, silently (edit #20)` — so the reader
follows one alert from its detection to its last edit; the edit's own row is named in its send.

Pure: no clock, no database, no output; `run` reads the outbox and prints the entries.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal
from zoneinfo import ZoneInfo

from habicht.demo.observe import Attempt, Fetch
from habicht.demo.terminal import one_line
from habicht.queue import Notification
from habicht.quiet import DEFAULT_ZONE

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
        label = {"new": "detected", "drop": "detected", "edit": "edit"}.get(row.kind, "queued")
        rank = _ALERT if row.kind == "admin" else _DETECT
        text = one_line(row.text, TEXT_WIDTH)
        if row.queued_at > row.created_at:  # quiet hours: held until they end
            until = datetime.fromtimestamp(row.queued_at, ZoneInfo(DEFAULT_ZONE))
            text = one_line(f"⏸ held until {until:%H:%M}: {row.text}", TEXT_WIDTH)
        entries.append(Entry(row.created_at, rank, label, _who(row, names, after), text))
    for row_id in sorted(after.keys() & before.keys()):  # a pending edit says something newer
        row, old = after[row_id], before[row_id]
        if row.kind == "edit" and row.status == "pending" and row.text != old.text:
            text = one_line(row.text, TEXT_WIDTH)
            entries.append(Entry(row.updated_at, _DETECT, "edit", _who(row, names, after), text))
    entries += _sends(before, after, attempts, names)
    entries += _settled_unsent(before, after, attempts, names)
    return sorted(entries, key=lambda entry: (entry.at, entry.rank))


def _sends(
    before: Outbox, after: Outbox, attempts: Sequence[Attempt], names: Mapping[int, str]
) -> list[Entry]:
    """A line per attempt; a failed one says what became of its row (if it was its last)."""
    row_of = _matcher(after)
    matched = [(attempt, row_of(attempt)) for attempt in attempts]
    last = {row.id: i for i, (_, row) in enumerate(matched) if row is not None}
    entries = []
    for i, (attempt, row) in enumerate(matched):
        name = names.get(attempt.chat_id, str(attempt.chat_id))
        if row is not None and row.kind == "edit":
            entries.append(_edit_sent(attempt, row, before, after, names, last=last[row.id] == i))
            continue
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
        entries.append(Entry(attempt.at, _SEND, "send", _who(row, names, after), text, tone))
    return entries


def _matcher(after: Outbox) -> Callable[[Attempt], Notification | None]:
    """Finds the row an attempt sent: an edit row of the message it edits (the one with its
    text, else the newest), or a row that is no edit with its chat and text; None for a
    reply or a digest, which no row's text is."""
    rows = {(row.chat_id, row.text): row for row in after.values() if row.kind != "edit"}
    edits: dict[tuple[int, int | None], list[Notification]] = {}
    for row in sorted(after.values(), key=lambda row: row.id):
        if row.kind == "edit":
            edits.setdefault((row.chat_id, row.message_id), []).append(row)

    def row_of(attempt: Attempt) -> Notification | None:
        if attempt.edits is None:
            return rows.get((attempt.chat_id, attempt.text))
        of_message = edits.get((attempt.chat_id, attempt.edits), [])
        same = [row for row in of_message if row.text == attempt.text]
        candidates = same or of_message
        return candidates[-1] if candidates else None

    return row_of


def _edit_sent(
    attempt: Attempt,
    row: Notification,
    before: Outbox,
    after: Outbox,
    names: Mapping[int, str],
    *,
    last: bool,
) -> Entry:
    """An edit's attempt, under its alert's number: what Telegram made of it, and of a gone
    advert's alert that its title is struck and its link button gone."""
    tone: Tone
    if attempt.error is None or (row.status == "sent" and last):  # "not modified" is done
        text, tone = f"✓ edited in place, silently (edit #{row.id})", "good"
        alert = _alert_of(row, after)
        gone = []
        if alert is not None and row.text.count("<s>") > alert.text.count("<s>"):
            gone.append("title struck through")
        if alert is not None and _links(row) < _links(alert):
            gone.append("open button removed")
        if gone:
            text += ": " + ", ".join(gone)
    elif not last:
        text, tone = f"✗ {attempt.error} → tried again", "warn"
    else:
        fate, tone = _fate(before.get(row.id), row, at=attempt.at)
        text = f"✗ {attempt.error} → {fate} (edit #{row.id})"
    return Entry(attempt.at, _SEND, "send", _who(row, names, after), text, tone)


def _links(row: Notification) -> int:
    """How many buttons under the row's message open a link."""
    return sum(button.url is not None for line in row.message.buttons for button in line)


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
            who = _who(row, names, after)
            entries.append(Entry(row.updated_at, _SETTLE, "dead", who, text, "bad"))
        elif row.status == "pending" and row.next_attempt_at > was_due:
            wait = row.next_attempt_at - row.updated_at
            text = f"⏸ held back {wait:.0f} s with its chat"
            who = _who(row, names, after)
            entries.append(Entry(row.updated_at, _SETTLE, "held", who, text, "warn"))
    return entries


def _who(row: Notification, names: Mapping[int, str], outbox: Outbox) -> str:
    """`#7 Anna`: the row's number and chat — an edit's, the alert's it edits."""
    alert = _alert_of(row, outbox) if row.kind == "edit" else None
    return f"#{(alert or row).id} {names.get(row.chat_id, str(row.chat_id))}"


def _alert_of(edit: Notification, outbox: Outbox) -> Notification | None:
    """The alert whose message an edit row edits (a digest's: the first it carried)."""
    alerts = [
        row
        for row in outbox.values()
        if row.kind in ("new", "drop")
        and (row.chat_id, row.message_id) == (edit.chat_id, edit.message_id)
    ]
    return min(alerts, key=lambda row: row.id, default=None)


def _tone(status: int) -> Tone:
    return "good" if status == 200 else "warn" if status in (429, 500, 502, 503) else "bad"
