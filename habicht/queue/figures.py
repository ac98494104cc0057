"""The outbox's figures for the parts that report on it: rows by status and delivery times
for `/metrics` (`habicht.metrics`), the times a new advert's alert kept when it was queued
for the alert-freshness figures (`habicht.scraper.alert_times`), the edits of the last day
for the following figures (`habicht.watches.follow_figures`) and the alerts a chat was sent
for a watch's figures (`habicht.watches.figures`).

A side door of its own (issue 37): the queue owns the notifications table, so the readers
of its figures ask here instead of naming the table in their SQL. Each function reads rows
after a place (`created_at` or `sent_at`, then `id`) so that a caller polling it sees each
row once, in order: two rows of one clock reading are told apart by their id.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass

from habicht.db import Database

__all__ = [
    "STATUSES",
    "AlertTimes",
    "Delivery",
    "EditCounts",
    "Waiting",
    "alert_times",
    "by_status",
    "deliveries",
    "edit_counts",
    "sent_counts",
    "waiting",
]

STATUSES = ("pending", "sending", "sent", "dead")
"""Every status an outbox row can have, in the order a reader lists them."""

_BY_STATUS = "SELECT status, count(*) FROM notifications GROUP BY status"

_DELIVERED = """
SELECT sent_at - created_at, sent_at, id FROM notifications
WHERE status = 'sent' AND sent_at >= :at AND (sent_at > :at OR id > :id)
ORDER BY sent_at, id
"""

_ALERT_TIMES = """
SELECT created_at - first_seen_at, created_at - published_at, created_at, id
FROM notifications INDEXED BY notifications_fresh
WHERE first_seen_at IS NOT NULL AND created_at >= :at AND (created_at > :at OR id > :id)
ORDER BY created_at, id
"""


async def by_status(db: Database) -> dict[str, int]:
    """Rows by status, every one of `STATUSES` present (0 when none has it): the
    `habicht_notifications` gauge, which must not keep a status's last count when its rows
    are gone."""
    counts = dict.fromkeys(STATUSES, 0)
    counts.update({row[0]: row[1] for row in await db.fetchall(_BY_STATUS)})
    return counts


# One count per partial index, never a scan of the (ever-growing) sent rows — which SQLite
# would choose (the chat_id, status index) without INDEXED BY.
_WAITING = """
SELECT (SELECT count(*) FROM notifications INDEXED BY notifications_due
        WHERE status = 'pending'),
       (SELECT count(*) FROM notifications INDEXED BY notifications_due
        WHERE status = 'pending' AND attempts > 0),
       (SELECT count(*) FROM notifications INDEXED BY notifications_lease
        WHERE status = 'sending'),
       (SELECT count(*) FROM notifications INDEXED BY notifications_dead
        WHERE status = 'dead')
"""


@dataclass(frozen=True, slots=True)
class Waiting:
    """The rows not sent: `pending` (of which `retrying` failed before), `sending` (claimed)
    and `dead`."""

    pending: int
    retrying: int
    sending: int
    dead: int


async def waiting(db: Database) -> Waiting:
    """The outbox's unsent rows by status, for `habicht health`: cheap on any outbox, since
    each count walks a partial index (never the sent rows)."""
    row = await db.fetchone(_WAITING)
    return Waiting(*(tuple(row) if row is not None else (0, 0, 0, 0)))


@dataclass(frozen=True, slots=True)
class Delivery:
    """One sent row: seconds from its `created_at` to its `sent_at` (negative when the clock
    went back; the reader decides), and its place (`sent_at`, `id`) for the next look."""

    took: float
    place: tuple[float, int]


async def deliveries(db: Database, *, after: tuple[float, int]) -> list[Delivery]:
    """The rows sent after the place `after`, in (`sent_at`, `id`) order."""
    rows = await db.fetchall(_DELIVERED, {"at": after[0], "id": after[1]})
    return [Delivery(row[0], (row[1], row[2])) for row in rows]


@dataclass(frozen=True, slots=True)
class AlertTimes:
    """One alert queued with its advert's times (migration 013: the alerts of adverts new on
    willhaben keep them): seconds from habicht's first read of the advert (`seen`) and from
    its `PUBLISHED` time (`published`, None when the page gave none) to the enqueue, as
    stored (negative when willhaben's clock ran ahead), and its place (`created_at`, `id`)."""

    seen: float
    published: float | None
    place: tuple[float, int]


async def alert_times(db: Database, *, after: tuple[float, int]) -> list[AlertTimes]:
    """The alerts queued with an advert's times after the place `after`, oldest first;
    walks the index of those alerts only, never the sent rows at large."""
    rows = await db.fetchall(_ALERT_TIMES, {"at": after[0], "id": after[1]})
    return [AlertTimes(row[0], row[1], (row[2], row[3])) for row in rows]


_EDITS = """
SELECT
    (SELECT count(*) FROM notifications INDEXED BY notifications_sent
     WHERE status = 'sent' AND sent_at > :since AND kind = 'edit'),
    (SELECT count(*) FROM notifications INDEXED BY notifications_dead
     WHERE status = 'dead' AND updated_at > :since AND kind = 'edit'
         AND dead_reason = 'message_gone')
"""


@dataclass(frozen=True, slots=True)
class EditCounts:
    """Edits since a time: `sent` (Telegram took them, or found the message already true) and
    `impossible` (dead: the message was deleted or too old to edit)."""

    sent: int
    impossible: int


async def edit_counts(db: Database, *, since: float) -> EditCounts:
    """The edits sent, and those found impossible, after `since`: what keeping sent alerts
    true achieved, for the following figures (`watches.follow_figures`), which cannot name
    the outbox's table (issue 37). Each count walks an index that leaves the other rows out."""
    row = await db.fetchone(_EDITS, {"since": since})
    assert row is not None  # scalar subqueries without FROM always yield one row
    return EditCounts(sent=row[0], impossible=row[1])


_SENT = """
SELECT kind, count(*) FROM notifications
WHERE chat_id = :chat_id AND status = 'sent' AND sent_at >= :since AND kind IN ('new', 'drop')
    AND ad_id IN (SELECT value FROM json_each(:ads))
GROUP BY kind
"""


async def sent_counts(
    db: Database, *, chat_id: int, since: float, ad_ids: Collection[str]
) -> dict[str, int]:
    """Alerts sent to `chat_id` since `since` for these adverts, by kind (`new`, `drop`; a
    kind none was sent of is left out): a watch's figures count what its chat was told of
    the adverts its search showed, by chat and advert rather than by the watch's rows, which a
    pause or mute lets go of (`watches.figures`)."""
    params = {"chat_id": chat_id, "since": since, "ads": json.dumps(sorted(set(ad_ids)))}
    return {row[0]: row[1] for row in await db.fetchall(_SENT, params)}
