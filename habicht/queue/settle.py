"""What became of a claimed row: its send started, sent, retried, dead, given back.

A claim is one `UPDATE … RETURNING` statement, so two drains racing over the same rows
never get the same row; it counts the row's `claims`, which is the claim's token: a settle
only touches a row still `sending` with the token it was claimed with, so a drain whose lease
ran out cannot overwrite the row's next owner. A claim spends no attempt: `start` counts it,
in a tiny commit right before the send, and marks the row `started_at` — so after a crash
the rows that never reached Telegram go back unspent, and only a send that started (and may
have arrived) is repeated with its attempt spent.

The rows no send will settle end here too: a dead process's leases taken over, rows past
their TTL reaped, the unsent rows of a chat or topic that is gone buried.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from habicht.message import Delivered
from habicht.queue.rows import COLUMNS, Notification, SentAs, as_notification
from habicht.queue.table import OutboxTable

__all__ = ["Settles", "TakenOver"]


@dataclass(frozen=True, slots=True)
class TakenOver:
    """What `take_over_leases` found of a process that died: rows whose send had started
    (`in_flight`: sent again, the attempt spent) and rows it had only claimed (`unsent`:
    given back, nothing spent)."""

    in_flight: int
    unsent: int


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
        AND chat_id NOT IN (SELECT value FROM json_each(:busy))
)
RETURNING {COLUMNS}
"""

# `claims = :claims` is the claim's token (see the module docstring).
_OWNED = "id = :id AND status = 'sending' AND claims = :claims"


class Settles(OutboxTable):
    """Starting and settling claimed rows, and burying those no send will settle."""

    async def start(self, items: Iterable[Notification]) -> list[Notification]:
        """Count the attempt of claimed rows whose send starts now (one small commit right
        before it) and renew their lease, so the send has the whole lease however long the
        rows waited for their turn; returns them as they are now, without the rows this
        claim lost."""
        now = self.clock()
        started: list[sqlite3.Row] = []
        async with self.db.transaction() as conn:
            for n in items:
                started += await conn.execute_fetchall(
                    "UPDATE notifications SET attempts = attempts + 1, started_at = :now, "
                    f"lease_until = :lease_until, updated_at = :now WHERE {_OWNED} "
                    f"AND started_at IS NULL RETURNING {COLUMNS}",
                    {"now": now, "lease_until": now + self.lease, "id": n.id, "claims": n.claims},
                )
        return [as_notification(row) for row in started]

    async def take_over_leases(self) -> TakenOver:
        """End the leases of a process that died: rows it had only claimed are pending again,
        their attempt never spent; rows whose send had started are due at once, the attempt
        spent (the message may have arrived: it is sent again).

        Only one habicht runs on a database, so at startup every `sending` row belongs to a
        process that is gone; without this, a restart would wait out the whole lease.
        """
        now = self.clock()
        async with self.db.transaction() as conn:
            unsent = await conn.execute(
                "UPDATE notifications SET status = 'pending', lease_until = NULL, "
                "updated_at = :now WHERE status = 'sending' AND started_at IS NULL",
                {"now": now},
            )
            in_flight = await conn.execute(
                "UPDATE notifications SET lease_until = min(lease_until, :now), updated_at = :now"
                " WHERE status = 'sending'",
                {"now": now},
            )
            return TakenOver(in_flight=in_flight.rowcount, unsent=unsent.rowcount)

    async def reap(self, *, busy: Collection[int] = ()) -> list[Notification]:
        """Bury what must never be sent: pending rows past their TTL (`expired`) — also those
        due only later, which could never go out in time — and rows whose last allowed
        attempt crashed mid-send (`attempts_exhausted`). Returns them, dead.

        A claimed row of a chat in `busy` is the caller's, in hand however old its lease (a
        drain waiting out a storage fault holds a send's outcome): never buried here."""
        now = self.clock()
        params = {"now": now, "born_after": now - self.ttl, "busy": json.dumps(sorted(busy))}
        async with self.db.transaction() as conn:
            rows = await conn.execute_fetchall(_REAP, params)
        return [as_notification(row) for row in rows]

    async def mark_sent(
        self,
        items: Iterable[Notification],
        *,
        delivered: Delivered | None = None,
        digest: bool = False,
        text: str | None = None,
    ) -> int:
        """Record delivery (once, with `sent_at`) of rows this claim still owns, and what
        Telegram made of the message (`delivered`, kept so an alert can be edited later; a
        `digest` carried all of `items`, and its `text` as sent is kept on the first). An
        edit row keeps the message it edited."""
        now = self.clock()
        rows = list(items)
        sent_text = text if digest and delivered is not None else None
        sent_as: SentAs | None = None
        if delivered is not None:
            sent_as = "digest" if digest else "photo" if delivered.as_photo else "text"
        return await self._settle(
            f"UPDATE notifications SET status = 'sent', sent_at = :now, lease_until = NULL, "
            f"updated_at = :now, message_id = coalesce(message_id, :message_id), "
            f"sent_as = coalesce(sent_as, :sent_as), sent_text = :sent_text WHERE {_OWNED}",
            (
                {
                    "now": now,
                    "id": n.id,
                    "claims": n.claims,
                    "message_id": None if delivered is None else delivered.message_id,
                    "sent_as": sent_as,
                    "sent_text": sent_text if index == 0 else None,
                }
                for index, n in enumerate(rows)
            ),
        )

    async def mark_retry(self, item: Notification, *, at: float, error: str) -> bool:
        """Back to pending, due at `at`; the attempt stays spent and `error` is kept."""
        params = {"now": self.clock(), "at": at, "error": error}
        settled = await self._settle(
            "UPDATE notifications SET status = 'pending', next_attempt_at = :at, "
            "lease_until = NULL, started_at = NULL, last_error = :error, updated_at = :now "
            f"WHERE {_OWNED}",
            [{**params, "id": item.id, "claims": item.claims}],
        )
        return settled == 1

    async def mark_dead(self, items: Iterable[Notification], *, reason: str, error: str) -> int:
        """Dead with a short stable `reason` slug and the error text; never retried."""
        now = self.clock()
        return await self._settle(
            "UPDATE notifications SET status = 'dead', dead_reason = :reason, "
            f"last_error = :error, lease_until = NULL, updated_at = :now WHERE {_OWNED}",
            (
                {"now": now, "reason": reason, "error": error, "id": n.id, "claims": n.claims}
                for n in items
            ),
        )

    async def release(self, items: Iterable[Notification], *, until: float | None = None) -> int:
        """Give claimed rows back unsent: pending again, with no attempt spent (a started
        row's is given back: a 429, or a token Telegram refused, delivered nothing).

        Due at `until` if given (a 429's retry time), else at their turn. Used at shutdown,
        on a fatal error, and when a lease is too short to start another send.
        """
        now = self.clock()
        return await self._settle(
            "UPDATE notifications SET status = 'pending', "
            "attempts = attempts - (started_at IS NOT NULL), started_at = NULL, "
            "next_attempt_at = max(next_attempt_at, coalesce(:until, next_attempt_at)), "
            f"lease_until = NULL, updated_at = :now WHERE {_OWNED}",
            ({"now": now, "until": until, "id": n.id, "claims": n.claims} for n in items),
        )

    async def abandon(self, items: Iterable[Notification]) -> int:
        """End the lease of rows whose send was cut off (a cancelled drain): claimable at once,
        as after a crash, with the attempt spent — the message may have reached Telegram."""
        now = self.clock()
        return await self._settle(
            f"UPDATE notifications SET lease_until = :now, updated_at = :now WHERE {_OWNED}",
            ({"now": now, "id": n.id, "claims": n.claims} for n in items),
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
        """Mark every unsent row of a chat that is gone (blocked us, deleted) dead — pending,
        and claimed too: the later messages of a digest whose first one got the 403 — and
        return them, dead, so each can be logged."""
        return await self._bury_where("chat_id = :chat_id", chat_id, reason=reason, error=error)

    async def bury_topic(
        self, chat_id: int, thread_id: int, *, reason: str, error: str
    ) -> list[Notification]:
        """`bury_chat` for one forum topic that is gone (deleted, closed): the chat's rows to
        that topic only."""
        return await self._bury_where(
            "chat_id = :chat_id AND thread_id = :thread_id",
            chat_id,
            thread_id=thread_id,
            reason=reason,
            error=error,
        )

    async def _bury_where(
        self, where: str, chat_id: int, *, reason: str, error: str, thread_id: int | None = None
    ) -> list[Notification]:
        params = {
            "chat_id": chat_id,
            "thread_id": thread_id,
            "reason": reason,
            "error": error,
            "now": self.clock(),
        }
        async with self.db.transaction() as conn:
            rows = await conn.execute_fetchall(
                "UPDATE notifications SET status = 'dead', dead_reason = :reason, "
                "last_error = :error, lease_until = NULL, updated_at = :now "
                f"WHERE {where} AND status IN ('pending', 'sending') RETURNING {COLUMNS}",
                params,
            )
        return sorted((as_notification(row) for row in rows), key=lambda n: n.id)

    async def _settle(self, sql: str, params: Iterable[Mapping[str, Any]]) -> int:
        rows = list(params)
        if not rows:
            return 0
        async with self.db.transaction() as conn:
            before = conn.total_changes
            await conn.executemany(sql, rows)
            return conn.total_changes - before
