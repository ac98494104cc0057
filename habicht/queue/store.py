"""The notification outbox in SQLite: enqueue, claim with a lease, settle, inspect.

Knows nothing of Telegram or willhaben: a row is `(chat_id, text, dedupe_key)` plus its
delivery state (see DESIGN.md, "Notification states"). Every write goes through
`Database.transaction()`; every read returns frozen dataclasses, never sqlite rows.

A claim is one `UPDATE … RETURNING` statement, so two drains racing over the same rows
never get the same row. Each claim counts an attempt, and the attempt count doubles as the
claim's token: a settle only touches a row still `sending` with the attempt number it was
claimed with, so a drain whose lease ran out cannot overwrite the row's next owner.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, Literal

import aiosqlite

from habicht.clock import Clock
from habicht.db import Database

__all__ = [
    "DEFAULT_LEASE",
    "LEASE_MARGIN",
    "Kind",
    "Notification",
    "NotificationStore",
    "Outgoing",
    "QueueStats",
    "Status",
    "enqueue_within",
]

Kind = Literal["new", "drop", "info", "admin"]
Status = Literal["pending", "sending", "sent", "dead"]

DEFAULT_LEASE = 300.0
"""Seconds a claim owns its rows. A batch of 50 to ONE chat takes ≥49 s at one message per
second per chat, plus a send's timeouts: 300 s covers that six times over. A crash does not
wait for it — the restarted process takes over the dead one's leases (`take_over_leases`) —
so the lease bounds only how long a live drain that hangs can hold its rows."""

LEASE_MARGIN = 30.0
"""`drain` starts no send later than this many seconds before its lease ends (it gives the
row back instead): a send may take its timeouts and must settle while the claim owns it.
A lease must be at least twice this, so every claim leaves time to send."""


@dataclass(frozen=True, slots=True)
class Outgoing:
    """A message to enqueue. `text` is the fully rendered HTML: a retry never re-renders."""

    chat_id: int
    kind: Kind
    text: str
    dedupe_key: str
    ad_id: str | None = None


@dataclass(frozen=True, slots=True)
class Notification:
    """One row of the outbox, as it was when read or claimed."""

    id: int
    chat_id: int
    kind: Kind
    ad_id: str | None
    text: str
    dedupe_key: str
    status: Status
    attempts: int
    max_attempts: int
    next_attempt_at: float
    lease_until: float | None
    last_error: str | None
    dead_reason: str | None
    created_at: float
    queued_at: float
    updated_at: float
    sent_at: float | None


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
    next_due_at: float | None
    dead_by_reason: Mapping[str, int]


_COLUMNS = ", ".join(f.name for f in fields(Notification))


def _notification(row: sqlite3.Row | tuple[Any, ...]) -> Notification:
    return Notification(*row)


# A key is skipped when it is already a row (any status) or was purged (a tombstone), so
# neither a re-run scrape nor a purge can ever let an alert be sent twice.
_INSERT = """
INSERT INTO notifications
    (chat_id, kind, ad_id, text, dedupe_key, max_attempts, next_attempt_at,
     created_at, queued_at, updated_at)
SELECT :chat_id, :kind, :ad_id, :text, :dedupe_key, :max_attempts, :now, :now, :now, :now
WHERE NOT EXISTS (SELECT 1 FROM notification_tombstones WHERE dedupe_key = :dedupe_key)
ON CONFLICT (dedupe_key) DO NOTHING
"""


async def enqueue_within(
    conn: aiosqlite.Connection, items: Iterable[Outgoing], *, now: float, max_attempts: int
) -> int:
    """Insert `items` inside the caller's open transaction; return how many rows were new.

    The caller holds `db.transaction()`, so the alert is recorded in the same transaction
    that detected it (transactional outbox) and nothing is sent before the commit.
    """
    rows = [
        {
            "chat_id": item.chat_id,
            "kind": item.kind,
            "ad_id": item.ad_id,
            "text": item.text,
            "dedupe_key": item.dedupe_key,
            "max_attempts": max_attempts,
            "now": now,
        }
        for item in items
    ]
    if not rows:
        return 0
    before = conn.total_changes
    await conn.executemany(_INSERT, rows)
    return conn.total_changes - before


# Due: pending and its time has come, or sending whose lease ran out (its drain crashed).
# Never claimed: rows past their TTL or out of attempts — `reap` buries those. Each branch
# walks its own partial index in due order and stops at the limit, so a claim costs the
# same with ten or ten thousand rows waiting.
_CLAIM = f"""
UPDATE notifications
SET status = 'sending', lease_until = :lease_until, attempts = attempts + 1,
    updated_at = :now
WHERE id IN (
    SELECT id FROM (
        SELECT * FROM (
            SELECT id, next_attempt_at AS due FROM notifications
            WHERE status = 'pending' AND next_attempt_at <= :now AND queued_at > :born_after
            ORDER BY next_attempt_at LIMIT :limit
        )
        UNION ALL
        SELECT * FROM (
            SELECT id, lease_until AS due FROM notifications
            WHERE status = 'sending' AND lease_until <= :now AND queued_at > :born_after
                AND attempts < max_attempts
            ORDER BY lease_until LIMIT :limit
        )
    )
    ORDER BY due, id
    LIMIT :limit
)
RETURNING {_COLUMNS}
"""

_REAP = f"""
UPDATE notifications
SET status = 'dead', lease_until = NULL, updated_at = :now,
    dead_reason = CASE WHEN queued_at <= :born_after THEN 'expired'
                       ELSE 'attempts_exhausted' END,
    last_error = CASE WHEN queued_at <= :born_after
                      THEN coalesce(last_error, 'not delivered within the TTL')
                      ELSE coalesce(last_error || '; ', '')
                           || 'the lease of its last attempt expired mid-send' END
WHERE id IN (
    SELECT id FROM notifications
    WHERE status = 'pending' AND queued_at <= :born_after
    UNION ALL
    SELECT id FROM notifications
    WHERE status = 'sending' AND lease_until <= :now
        AND (queued_at <= :born_after OR attempts >= max_attempts)
)
RETURNING {_COLUMNS}
"""

# `attempts = :attempts` is the claim token (see the module docstring).
_OWNED = "id = :id AND status = 'sending' AND attempts = :attempts"


class NotificationStore:
    """The outbox table behind a small API; `clock` dates every write.

    `max_attempts` is stamped on each new row; `ttl` seconds after it was queued an
    undelivered row is dead (`expired`); `lease` is how long a claim owns its rows.
    """

    def __init__(
        self,
        db: Database,
        *,
        clock: Clock,
        max_attempts: int,
        ttl: float,
        lease: float = DEFAULT_LEASE,
    ) -> None:
        if max_attempts < 1 or ttl <= 0 or lease < 2 * LEASE_MARGIN:
            raise ValueError(
                f"max_attempts must be at least 1, ttl positive and lease at least "
                f"{2 * LEASE_MARGIN:g} s, got max_attempts={max_attempts}, ttl={ttl}, "
                f"lease={lease}"
            )
        self.db = db
        self.clock = clock
        self.max_attempts = max_attempts
        self.ttl = ttl
        self.lease = lease

    # -- enqueue -------------------------------------------------------------------------

    async def enqueue(self, item: Outgoing) -> bool:
        """Queue one message; False if its dedupe key was seen before (queued or purged)."""
        return await self.enqueue_many([item]) == 1

    async def enqueue_many(self, items: Iterable[Outgoing]) -> int:
        """Queue many messages in one transaction; return how many were new."""
        async with self.db.transaction() as conn:
            return await enqueue_within(
                conn, items, now=self.clock(), max_attempts=self.max_attempts
            )

    # -- claim and settle ----------------------------------------------------------------

    async def claim(self, limit: int) -> list[Notification]:
        """Take up to `limit` due rows for sending, oldest due first; each counts an attempt.

        Returned in id order, so one chat's messages go out in the order they were queued.
        """
        now = self.clock()
        params = {
            "now": now,
            "lease_until": now + self.lease,
            "born_after": now - self.ttl,
            "limit": limit,
        }
        async with self.db.transaction() as conn:
            rows = await conn.execute_fetchall(_CLAIM, params)
        return sorted((_notification(row) for row in rows), key=lambda n: n.id)

    async def take_over_leases(self) -> int:
        """End the leases of a process that died mid-send: its rows are due at once.

        Only one habicht runs on a database, so at startup every `sending` row belongs to a
        process that is gone; without this, a restart would wait out the whole lease before
        resending them. The attempt the crashed send spent stays spent. Returns the rows.
        """
        now = self.clock()
        async with self.db.transaction() as conn:
            cursor = await conn.execute(
                "UPDATE notifications SET lease_until = :now, updated_at = :now"
                " WHERE status = 'sending' AND lease_until > :now",
                {"now": now},
            )
            return cursor.rowcount

    async def reap(self) -> list[Notification]:
        """Bury what must never be sent: pending rows past their TTL (`expired`) — also those
        due only later, which could never go out in time — and rows whose last allowed
        attempt crashed mid-send (`attempts_exhausted`). Returns them, dead."""
        now = self.clock()
        async with self.db.transaction() as conn:
            rows = await conn.execute_fetchall(_REAP, {"now": now, "born_after": now - self.ttl})
        return [_notification(row) for row in rows]

    async def mark_sent(self, items: Iterable[Notification]) -> int:
        """Record delivery (once, with `sent_at`) of rows this claim still owns."""
        now = self.clock()
        return await self._settle(
            f"UPDATE notifications SET status = 'sent', sent_at = :now, lease_until = NULL, "
            f"updated_at = :now WHERE {_OWNED}",
            ({"now": now, "id": n.id, "attempts": n.attempts} for n in items),
        )

    async def mark_retry(self, item: Notification, *, at: float, error: str) -> bool:
        """Back to pending, due at `at`; the attempt stays spent and `error` is kept."""
        params = {"now": self.clock(), "at": at, "error": error}
        settled = await self._settle(
            "UPDATE notifications SET status = 'pending', next_attempt_at = :at, "
            f"lease_until = NULL, last_error = :error, updated_at = :now WHERE {_OWNED}",
            [{**params, "id": item.id, "attempts": item.attempts}],
        )
        return settled == 1

    async def mark_dead(self, items: Iterable[Notification], *, reason: str, error: str) -> int:
        """Dead with a short stable `reason` slug and the error text; never retried."""
        now = self.clock()
        return await self._settle(
            "UPDATE notifications SET status = 'dead', dead_reason = :reason, "
            f"last_error = :error, lease_until = NULL, updated_at = :now WHERE {_OWNED}",
            (
                {"now": now, "reason": reason, "error": error, "id": n.id, "attempts": n.attempts}
                for n in items
            ),
        )

    async def release(self, items: Iterable[Notification], *, until: float | None = None) -> int:
        """Give claimed rows back unsent: pending again, the attempt given back.

        Due at `until` if given (a 429's retry time), else as they were. Used at shutdown,
        on a fatal error, and when a lease is too short to start another send.
        """
        now = self.clock()
        return await self._settle(
            "UPDATE notifications SET status = 'pending', attempts = attempts - 1, "
            "next_attempt_at = max(next_attempt_at, coalesce(:until, next_attempt_at)), "
            f"lease_until = NULL, updated_at = :now WHERE {_OWNED}",
            ({"now": now, "until": until, "id": n.id, "attempts": n.attempts} for n in items),
        )

    async def abandon(self, items: Iterable[Notification]) -> int:
        """End the lease of rows whose send was cut off (a cancelled drain): claimable at once,
        as after a crash, with the attempt spent — the message may have reached Telegram."""
        now = self.clock()
        return await self._settle(
            f"UPDATE notifications SET lease_until = :now, updated_at = :now WHERE {_OWNED}",
            ({"now": now, "id": n.id, "attempts": n.attempts} for n in items),
        )

    async def postpone(self, until: float, *, chat_id: int | None = None) -> int:
        """No pending row (of `chat_id`, or of any chat) is due before `until`: a 429 pause."""
        # Two shapes rather than `:chat_id IS NULL OR …`, which no index could serve.
        one_chat = "" if chat_id is None else " AND chat_id = :chat_id"
        async with self.db.transaction() as conn:
            cursor = await conn.execute(
                "UPDATE notifications SET next_attempt_at = :until, updated_at = :now "
                f"WHERE status = 'pending' AND next_attempt_at < :until{one_chat}",
                {"until": until, "now": self.clock(), "chat_id": chat_id},
            )
            return cursor.rowcount

    async def migrate_chat(self, old_chat_id: int, new_chat_id: int) -> int:
        """Send every unsent row of a group that became a supergroup to its new chat id."""
        async with self.db.transaction() as conn:
            cursor = await conn.execute(
                "UPDATE notifications SET chat_id = :new, updated_at = :now "
                "WHERE chat_id = :old AND status IN ('pending', 'sending')",
                {"old": old_chat_id, "new": new_chat_id, "now": self.clock()},
            )
            return cursor.rowcount

    async def bury_chat(self, chat_id: int, *, reason: str, error: str) -> list[Notification]:
        """Mark every pending row of a chat that is gone (blocked us, deleted) dead; returns
        them, dead, so each can be logged."""
        async with self.db.transaction() as conn:
            rows = await conn.execute_fetchall(
                "UPDATE notifications SET status = 'dead', dead_reason = :reason, "
                "last_error = :error, updated_at = :now "
                f"WHERE chat_id = :chat_id AND status = 'pending' RETURNING {_COLUMNS}",
                {"chat_id": chat_id, "reason": reason, "error": error, "now": self.clock()},
            )
        return sorted((_notification(row) for row in rows), key=lambda n: n.id)

    async def _settle(self, sql: str, params: Iterable[Mapping[str, Any]]) -> int:
        rows = list(params)
        if not rows:
            return 0
        async with self.db.transaction() as conn:
            before = conn.total_changes
            await conn.executemany(sql, rows)
            return conn.total_changes - before

    # -- inspect and repair --------------------------------------------------------------

    async def stats(self) -> QueueStats:
        """Counts per status, retrying, sent in the last 24 h, oldest pending, next due."""
        now = self.clock()
        row = await self.db.fetchone(
            """
            SELECT
                count(*) FILTER (WHERE status = 'pending'),
                count(*) FILTER (WHERE status = 'sending'),
                count(*) FILTER (WHERE status = 'sent'),
                count(*) FILTER (WHERE status = 'dead'),
                count(*) FILTER (WHERE status = 'pending' AND attempts > 0),
                count(*) FILTER (WHERE status = 'sent' AND sent_at > :day_ago),
                min(queued_at) FILTER (WHERE status = 'pending'),
                min(next_attempt_at) FILTER (WHERE status = 'pending')
            FROM notifications
            """,
            {"day_ago": now - 86400},
        )
        assert row is not None  # an aggregate without GROUP BY always yields one row
        reasons = await self.db.fetchall(
            "SELECT dead_reason, count(*) FROM notifications WHERE status = 'dead' "
            "GROUP BY dead_reason ORDER BY count(*) DESC, dead_reason"
        )
        oldest = row[6]
        return QueueStats(
            pending=row[0],
            sending=row[1],
            sent=row[2],
            dead=row[3],
            retrying=row[4],
            sent_last_24h=row[5],
            oldest_pending_age=None if oldest is None else max(0.0, now - oldest),
            next_due_at=row[7],
            dead_by_reason={reason or "unknown": count for reason, count in reasons},
        )

    async def dead(self, limit: int = 20) -> list[Notification]:
        """The most recently dead rows, newest first."""
        rows = await self.db.fetchall(
            f"SELECT {_COLUMNS} FROM notifications WHERE status = 'dead' "
            "ORDER BY updated_at DESC, id DESC LIMIT ?",
            (limit,),
        )
        return [_notification(row) for row in rows]

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
        tombstones, so the same alert can never be enqueued again. Returns rows deleted."""
        now = self.clock()
        old = (
            "FROM notifications WHERE (status = 'sent' AND sent_at <= :cutoff) "
            "OR (status = 'dead' AND updated_at <= :cutoff)"
        )
        params = {"cutoff": now - older_than_seconds, "now": now}
        async with self.db.transaction() as conn:
            await conn.execute(
                f"INSERT INTO notification_tombstones (dedupe_key, purged_at) "
                f"SELECT dedupe_key, :now {old} ON CONFLICT (dedupe_key) DO NOTHING",
                params,
            )
            cursor = await conn.execute(f"DELETE {old}", params)
            return cursor.rowcount
