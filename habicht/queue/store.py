"""The notification outbox in SQLite: enqueue (inside the caller's transaction), and the store.

Knows nothing of Telegram or willhaben: a row is `(chat_id, text, dedupe_key)` plus its
delivery state. Every write happens inside `Database.transaction()`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

import aiosqlite

__all__ = ["Kind", "Outgoing", "enqueue_within"]

Kind = Literal["new", "drop", "info", "admin"]


@dataclass(frozen=True, slots=True)
class Outgoing:
    """A message to enqueue. `text` is the fully rendered HTML: a retry never re-renders."""

    chat_id: int
    kind: Kind
    text: str
    dedupe_key: str
    ad_id: str | None = None


# A key is skipped when it is already a row (any status) or was purged (a tombstone), so
# neither a re-run scrape nor a purge can ever let an alert be sent twice.
_INSERT = """
INSERT INTO notifications
    (chat_id, kind, ad_id, text, dedupe_key, max_attempts, next_attempt_at,
     created_at, updated_at)
SELECT :chat_id, :kind, :ad_id, :text, :dedupe_key, :max_attempts, :now, :now, :now
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
