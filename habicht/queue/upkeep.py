"""The owner's view of the outbox and its repairs: counts, the dead rows, requeue, purge."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from habicht.queue.rows import COLUMNS, Notification, as_notification
from habicht.queue.table import OutboxTable

__all__ = ["QueueStats", "Upkeep"]


@dataclass(frozen=True, slots=True)
class QueueStats:
    """The queue at a glance; times are epoch seconds, ages seconds."""

    pending: int
    sending: int
    sent: int
    dead: int
    retrying: int
    """Pending rows that already failed at least once."""
    sent_last_24h: int
    oldest_pending_age: float | None
    """Of the rows waiting to be sent now; a held row waits for its release, not in line."""
    next_due_at: float | None
    dead_by_reason: Mapping[str, int]
    held: Mapping[float, int]
    """Held rows (quiet hours; counted in `pending` too) by when they are released."""
    next_retry_at: float | None = None
    """When the next retry is due (a pending row that failed before); None without one —
    `next_due_at` is any pending row's, a held one's too."""


# Each count walks a partial index (or, for all rows, SQLite's count of b-tree entries), so
# `/queue` and `habicht health` answer in milliseconds however many sent rows the table
# holds; `sent` is the rest of all rows. Without INDEXED BY, SQLite would rather scan the
# (chat_id, status) index — every row. Checked with EXPLAIN QUERY PLAN in the tests.
_STATS = """
SELECT
    (SELECT count(*) FROM notifications INDEXED BY notifications_due WHERE status = 'pending'),
    (SELECT count(*) FROM notifications INDEXED BY notifications_lease WHERE status = 'sending'),
    (SELECT count(*) FROM notifications INDEXED BY notifications_dead WHERE status = 'dead'),
    (SELECT count(*) FROM notifications),
    (SELECT count(*) FROM notifications INDEXED BY notifications_due
     WHERE status = 'pending' AND attempts > 0),
    (SELECT count(*) FROM notifications WHERE status = 'sent' AND sent_at > :day_ago),
    (SELECT min(queued_at) FROM notifications WHERE status = 'pending' AND queued_at <= :now),
    (SELECT min(next_attempt_at) FROM notifications WHERE status = 'pending'),
    (SELECT min(next_attempt_at) FROM notifications INDEXED BY notifications_due
     WHERE status = 'pending' AND attempts > 0)
"""

# Held rows are the pending rows queued (released) later than now: the TTL's index.
_HELD = """
SELECT queued_at, count(*) FROM notifications INDEXED BY notifications_age
WHERE status = 'pending' AND queued_at > :now GROUP BY queued_at ORDER BY queued_at
"""

_DEAD_BY_REASON = """
SELECT dead_reason, count(*) FROM notifications WHERE status = 'dead'
GROUP BY dead_reason ORDER BY count(*) DESC, dead_reason
"""

_DEAD = f"""
SELECT {COLUMNS} FROM notifications WHERE status = 'dead'
ORDER BY updated_at DESC, id DESC LIMIT ?
"""

# Two statements each (sent, then dead), every one on its own partial index.
_PURGED = (
    "FROM notifications WHERE status = 'sent' AND sent_at <= :cutoff",
    "FROM notifications WHERE status = 'dead' AND updated_at <= :cutoff",
)


class Upkeep(OutboxTable):
    """Inspecting and repairing the outbox: `/queue`, `habicht queue …`, retention."""

    async def stats(self) -> QueueStats:
        """Counts per status, retrying, sent in the last 24 h, oldest pending, next due."""
        now = self.clock()
        row = await self.db.fetchone(_STATS, {"day_ago": now - 86400, "now": now})
        assert row is not None  # scalar subqueries without FROM always yield one row
        pending, sending, dead, total = row[0], row[1], row[2], row[3]
        reasons = await self.db.fetchall(_DEAD_BY_REASON)
        held = await self.db.fetchall(_HELD, {"now": now})
        oldest = row[6]
        return QueueStats(
            pending=pending,
            sending=sending,
            sent=total - pending - sending - dead,
            dead=dead,
            retrying=row[4],
            sent_last_24h=row[5],
            oldest_pending_age=None if oldest is None else max(0.0, now - oldest),
            next_due_at=row[7],
            dead_by_reason={reason or "unknown": count for reason, count in reasons},
            held={release: count for release, count in held},
            next_retry_at=row[8],
        )

    async def every_row(self) -> dict[int, Notification]:
        """Every row by id: the whole outbox, for `habicht demo`'s small database only."""
        rows = await self.db.fetchall(f"SELECT {COLUMNS} FROM notifications")
        return {row[0]: as_notification(row) for row in rows}

    async def dead(self, limit: int = 20) -> list[Notification]:
        """The most recently dead rows, newest first."""
        return [as_notification(row) for row in await self.db.fetchall(_DEAD, (limit,))]

    async def requeue(self, ids: Sequence[int] | Literal["all"]) -> int:
        """Dead rows back to pending: attempts reset, due now, a fresh TTL. Returns how many."""
        now = self.clock()
        sql = (
            "UPDATE notifications SET status = 'pending', attempts = 0, dead_reason = NULL, "
            "next_attempt_at = :now, queued_at = :now, updated_at = :now "
            "WHERE status = 'dead'"
        )
        async with self.db.transaction() as conn:
            if ids == "all":
                cursor = await conn.execute(sql, {"now": now})
                return cursor.rowcount
            before = conn.total_changes
            await conn.executemany(f"{sql} AND id = :id", ({"now": now, "id": i} for i in ids))
            return conn.total_changes - before

    async def purge(self, older_than_seconds: float) -> int:
        """Delete sent and dead rows settled longer ago than that; their keys stay as
        tombstones (an alert's with its advert, so retention can let it go once the advert
        is gone for good), so the same alert is not enqueued again. Returns rows deleted."""
        now = self.clock()
        params = {"cutoff": now - older_than_seconds, "now": now}
        deleted = 0
        async with self.db.transaction() as conn:
            for old in _PURGED:
                await conn.execute(
                    "INSERT INTO notification_tombstones (dedupe_key, purged_at, ad_id) "
                    f"SELECT dedupe_key, :now, CASE WHEN kind IN ('new', 'drop') THEN ad_id END "
                    f"{old} ON CONFLICT (dedupe_key) DO NOTHING",
                    params,
                )
                cursor = await conn.execute(f"DELETE {old}", params)
                deleted += cursor.rowcount
        return deleted
