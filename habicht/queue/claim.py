"""Which rows go out next: a claim in fair turn order, with a lease, and a digest's rows.

A claim is one `UPDATE … RETURNING` statement, so two drains racing over the same rows
never get the same row; it counts the row's `claims`, which is the claim's token: a settle
only touches a row still `sending` with the token it was claimed with, so a drain whose lease
ran out cannot overwrite the row's next owner. A claim spends no attempt: `start` counts it
(see `settle`).

Fair turns: a claim walks the waiting rows in due order, which `enqueue` made a round-robin
over chats. Edits of sent messages (`queue.edits`) come last: a claim takes them only after
every due alert, and only as many as its caller allows.
"""

from __future__ import annotations

import json
from collections.abc import Collection

import aiosqlite

from habicht.queue.rows import COLUMNS, Notification, as_notification
from habicht.queue.table import OutboxTable

__all__ = ["DIGEST_MOST", "Claims"]

# Due: pending and its turn has come, or sending whose lease ran out (its drain crashed).
# Never claimed: rows past their TTL or out of attempts — `reap` buries those — and rows of
# the chats in `:busy` (the drain has one of theirs in hand). Each branch walks its own
# partial index in due order and stops after `:scan` rows, so a claim costs the same with ten
# or ten thousand rows waiting; of those, at most `:per_chat` rows per chat are taken.
# `:pending` is the pending rows' kind: alerts (and answers) first, then edits (`_claim`).
_CLAIM = """
UPDATE notifications
SET status = 'sending', lease_until = :lease_until, claims = claims + 1, started_at = NULL,
    updated_at = :now
WHERE id IN (
    SELECT id FROM (
        SELECT id, due, row_number() OVER (PARTITION BY chat_id ORDER BY due, id) AS nth
        FROM (
            SELECT * FROM (
                SELECT id, chat_id, next_attempt_at AS due FROM notifications
                WHERE status = 'pending' AND next_attempt_at <= :now AND queued_at > :born_after
                    AND {pending}
                    AND chat_id NOT IN (SELECT value FROM json_each(:busy))
                ORDER BY next_attempt_at LIMIT :scan
            )
            UNION ALL
            SELECT * FROM (
                SELECT id, chat_id, lease_until AS due FROM notifications
                WHERE status = 'sending' AND lease_until <= :now AND queued_at > :born_after
                    AND attempts < max_attempts
                    AND chat_id NOT IN (SELECT value FROM json_each(:busy))
                ORDER BY lease_until LIMIT :scan
            )
        )
    )
    WHERE :per_chat IS NULL OR nth <= :per_chat
    ORDER BY due, id
    LIMIT :limit
)
RETURNING {columns}
"""
_CLAIM_ALERTS = _CLAIM.format(pending="kind != 'edit'", columns=COLUMNS)
_CLAIM_EDITS = _CLAIM.format(pending="kind = 'edit'", columns=COLUMNS)

_SCAN = 4
"""A claim of n rows walks at most 4n due rows per branch to find them: enough when a few
chats' rows crowd the head of the line, which the per-chat cap then thins out."""

DIGEST_MOST = 60
"""Rows one digest claim takes at most: a few messages, all sent well within one lease. A
burst of more is claimed in turns of this many as the digest goes out (`claim_digest_more`),
none held back until its own turn."""

# The rows a digest carries with a row just claimed: every other alert of the chat that waits
# now, however far off its turn — fresh (not held, or held and released by now), a retry that
# is due (a digest that failed retries as one: its rows share one backoff), and those of a
# digest cut off by a crash (`sending`, the lease over) — in turn order, on the chat's index.
_DIGEST_WAITING = """
SELECT id FROM notifications
WHERE chat_id = :chat_id AND id NOT IN (SELECT value FROM json_each(:ids))
    AND digest_line IS NOT NULL AND queued_at <= :now AND queued_at > :born_after
    AND ((status = 'pending' AND (attempts = 0 OR next_attempt_at <= :now))
         OR (status = 'sending' AND lease_until <= :now AND attempts < max_attempts))
ORDER BY next_attempt_at, id LIMIT :most
"""

_CLAIM_MORE = f"""
UPDATE notifications
SET status = 'sending', lease_until = :lease_until, claims = claims + 1, started_at = NULL,
    updated_at = :now
WHERE id IN (SELECT value FROM json_each(:ids))
RETURNING {COLUMNS}
"""

_DUE_ALERT = """
SELECT min(next_attempt_at) AS due FROM notifications INDEXED BY notifications_due_alerts
WHERE status = 'pending' AND kind != 'edit' AND queued_at > :born_after
    AND chat_id NOT IN (SELECT value FROM json_each(:busy))
"""

_NEXT_DUE = f"""
SELECT min(due) FROM (
    {_DUE_ALERT}
    UNION ALL
    SELECT min(next_attempt_at) FROM notifications INDEXED BY notifications_due_edits
    WHERE status = 'pending' AND kind = 'edit' AND queued_at > :born_after
        AND chat_id NOT IN (SELECT value FROM json_each(:busy))
)
"""


class Claims(OutboxTable):
    """Claiming due rows: alone, or with the chat's other waiting alerts as a digest."""

    async def claim(
        self,
        limit: int,
        *,
        per_chat: int | None = None,
        skip: Collection[int] = (),
        edits: int = 0,
    ) -> list[Notification]:
        """Take up to `limit` due rows for sending, earliest turn first, with a lease; at most
        `per_chat` of one chat, none of the chats in `skip`. Spends no attempt (`start` does).

        Edits of sent messages come after every due alert and answer, at most `edits` of
        them, of chats the alerts left out: an edit never takes an alert's place or its turn.
        Returned in turn order, which keeps each chat's messages in the order they were queued.
        """
        now = self.clock()
        params = {
            "now": now,
            "lease_until": now + self.lease,
            "born_after": now - self.ttl,
            "limit": limit,
            "scan": limit * _SCAN,
            "per_chat": per_chat,
            "busy": json.dumps(sorted(skip)),
        }
        async with self.db.transaction() as conn:
            rows = list(await conn.execute_fetchall(_CLAIM_ALERTS, params))
            room = min(edits, limit - len(rows))
            if room > 0:
                taken = {*skip, *(row["chat_id"] for row in rows)}
                more = {**params, "limit": room, "scan": room * _SCAN}
                more["busy"] = json.dumps(sorted(taken))
                rows += await conn.execute_fetchall(_CLAIM_EDITS, more)
        claimed = (as_notification(row) for row in rows)
        return sorted(claimed, key=lambda n: (n.kind == "edit", n.next_attempt_at, n.id))

    async def claim_digest(self, row: Notification, *, digest_after: int) -> list[Notification]:
        """`row`, just claimed, and — when its chat has more than `digest_after` alerts
        (the chat's threshold, handed in by the caller) waiting at once — the others, up to
        `DIGEST_MOST` in all, claimed with the same lease: the first rows of a digest, in
        turn order. Just `[row]` otherwise, or if `row` never goes in a digest.

        Any threshold is honoured: the count looks as far as the threshold, past the cap."""
        if row.digest_line is None or row.lease_until is None:
            return [row]
        async with self.db.transaction() as conn:
            most = max(digest_after, DIGEST_MOST - 1)
            waiting = await self._waiting(conn, row.chat_id, [row.id], most=most)
            if 1 + len(waiting) <= digest_after:
                return [row]
            more = await self._claim_ids(conn, waiting[: DIGEST_MOST - 1], row.lease_until)
        return [row, *more]

    async def claim_digest_more(
        self, chat_id: int, *, held: Collection[int], most: int = DIGEST_MOST
    ) -> list[Notification]:
        """The chat's next waiting alerts for a digest going out (its rows in hand, `held`,
        left out), up to `most`, with a fresh lease; in turn order."""
        async with self.db.transaction() as conn:
            waiting = await self._waiting(conn, chat_id, held, most=most)
            return await self._claim_ids(conn, waiting, self.clock() + self.lease)

    async def _waiting(
        self, conn: aiosqlite.Connection, chat_id: int, ids: Collection[int], *, most: int
    ) -> list[int]:
        now = self.clock()
        params = {
            "chat_id": chat_id,
            "ids": json.dumps(sorted(ids)),
            "now": now,
            "born_after": now - self.ttl,
            "most": most,
        }
        return [found[0] for found in await conn.execute_fetchall(_DIGEST_WAITING, params)]

    async def _claim_ids(
        self, conn: aiosqlite.Connection, ids: list[int], lease_until: float
    ) -> list[Notification]:
        if not ids:
            return []
        params = {"ids": json.dumps(ids), "now": self.clock(), "lease_until": lease_until}
        claimed = await conn.execute_fetchall(_CLAIM_MORE, params)
        return sorted(
            (as_notification(found) for found in claimed), key=lambda n: (n.next_attempt_at, n.id)
        )

    async def next_due(self, *, skip: Collection[int] = (), edits: bool = True) -> float | None:
        """When the earliest waiting row of a chat not in `skip` is due — of the alerts and
        answers only, without `edits` (a drain whose edit flights are all taken claims none
        until one lands, so waiting for an edit's turn would have it claim in vain, again and
        again); None if none waits."""
        params = {"born_after": self.clock() - self.ttl, "busy": json.dumps(sorted(skip))}
        row = await self.db.fetchone(_NEXT_DUE if edits else _DUE_ALERT, params)
        return None if row is None or row[0] is None else float(row[0])
