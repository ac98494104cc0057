"""What goes into the outbox, and when its turn is: fair turns, quiet hours, owners.

Fair turns: `enqueue` gives each row a due time that is its chat's turn — the next row of a
chat with a backlog is due one pacing gap after the chat's latest waiting row, a chat with
none queues at the head of the line — so the claim's walk in due order is a round-robin over
chats, and one chat's backlog never pushes another chat's message back (DESIGN.md,
"Delivery is fair").

Quiet hours: the caller hands `enqueue` the windows of the chats that have one (the queue
reads no chat's settings: they are the watches', `watches.judge` reads them in the scan's
transaction). An alert
(`new`, `drop`) queued inside a `hold` window is *held*: an ordinary pending row whose due
time and `queued_at` are the end of the window, so its TTL counts from then, a restart
changes nothing about it, and its dedupe key stops the same alert from being queued twice
while it waits. Inside a `silent` window it is queued as usual, marked
`disable_notification`. Messages that answer someone (`info`) and owner alerts are never held.

Owners: an alert names the watch that queued it (`Outgoing.watch_id`, an opaque id to the
queue), kept in `notification_watches` — a list, because the key is per chat and two
watches of one chat may queue the same alert. `disown_within` takes watches off their unsent
rows when they are removed, paused or muted, and cancels a pending row nobody owes any more.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Mapping, Sequence

import aiosqlite

from habicht.message import Kind, Outgoing
from habicht.queue.pacing import chat_gap
from habicht.queue.rows import buttons_json
from habicht.queue.table import OutboxTable
from habicht.quiet import QuietHours

__all__ = ["Enqueues", "disown_within", "drops_told", "enqueue_within", "retime_within"]


# A key is skipped when it is already a row (any status) or was purged (a tombstone), so
# neither a re-run scrape nor a purge can ever let an alert be sent twice. The due time is
# the row's turn: one gap after its chat's latest fresh waiting row, else the head of the line
# (the earliest waiting row, or now) — see the module docstring. Both reads walk an index.
# Edits (`queue.edits`) take no turn: they go after every due alert (`claim`).
# `:release` is the end of the chat's quiet hours for a held row (NULL for any other): it is
# queued then and due no sooner, and a row queued now takes its turn after the chat's rows
# waiting now, not after those held for the morning.
_INSERT = """
INSERT INTO notifications
    (chat_id, kind, ad_id, text, dedupe_key, max_attempts, next_attempt_at,
     created_at, queued_at, updated_at, photo_url, buttons, thread_id,
     disable_notification, digest_line, source, first_seen_at, published_at)
SELECT :chat_id, :kind, :ad_id, :text, :dedupe_key, :max_attempts,
       max(coalesce(:release, head), coalesce(last + :gap, head)), :now,
       coalesce(:release, :now), :now, :photo_url, :buttons, :thread_id,
       :disable_notification, :digest_line, :source, :first_seen_at, :published_at
FROM (
    SELECT min(:now, coalesce(
               (SELECT min(next_attempt_at) FROM notifications
                WHERE status = 'pending' AND kind != 'edit'), :now
           )) AS head,
           (SELECT max(next_attempt_at) FROM notifications
            WHERE chat_id = :chat_id AND status = 'pending' AND attempts = 0 AND kind != 'edit'
                AND (queued_at <= :now OR queued_at = :release)) AS last
)
WHERE NOT EXISTS (SELECT 1 FROM notification_tombstones WHERE dedupe_key = :dedupe_key)
ON CONFLICT (dedupe_key) DO NOTHING
"""


_QUIETED: frozenset[Kind] = frozenset({"new", "drop"})
"""The kinds quiet hours hold back or silence: alerts, not answers or owner messages."""


def _timing(quiet: QuietHours | None, now: float) -> tuple[float | None, bool]:
    """Under the chat's quiet hours, for a row queued now: when it is released (None: it is
    not held) and whether it is silent."""
    release = None if quiet is None else quiet.release_at(now)
    if quiet is None or release is None:
        return None, False
    return (None, True) if quiet.mode == "silent" else (release, False)


async def enqueue_within(
    conn: aiosqlite.Connection,
    items: Iterable[Outgoing],
    *,
    now: float,
    max_attempts: int,
    quiet: Mapping[int, QuietHours] | None = None,
) -> int:
    """Insert `items` inside the caller's open transaction; return how many rows were new.

    The caller holds `db.transaction()`, so the alert is recorded in the same transaction
    that detected it (transactional outbox) and nothing is sent before the commit. `quiet`:
    the quiet hours of the chats that have them, as the caller read them in that transaction
    (see the module docstring); a chat not in it has none.
    """
    items = list(items)
    if not items:
        return 0
    quiet = quiet or {}
    rows = []
    for item in items:
        release, silent = _timing(quiet.get(item.chat_id) if item.kind in _QUIETED else None, now)
        rows.append(
            {
                "chat_id": item.chat_id,
                "kind": item.kind,
                "ad_id": item.ad_id,
                "text": item.text,
                "digest_line": item.digest_line,
                "dedupe_key": item.dedupe_key,
                "photo_url": item.photo_url,
                "buttons": buttons_json(item.buttons),
                "thread_id": item.thread_id,
                "max_attempts": max_attempts,
                "now": now,
                "release": release,
                "disable_notification": silent or item.disable_notification,
                "gap": chat_gap(item.chat_id),
                "source": item.source,
                "first_seen_at": item.first_seen_at,
                "published_at": item.published_at,
            }
        )
    before = conn.total_changes
    await conn.executemany(_INSERT, rows)
    added = conn.total_changes - before
    owed = [
        {"key": item.dedupe_key, "watch_id": item.watch_id}
        for item in items
        if item.watch_id is not None
    ]
    await conn.executemany(_OWE, owed)
    return added


# A watch owes the row of its key while the row is unsent, whether this enqueue inserted it
# or another watch of the chat had (the key is per chat).
_OWE = """
INSERT INTO notification_watches (notification_id, watch_id)
SELECT id, :watch_id FROM notifications
WHERE dedupe_key = :key AND status IN ('pending', 'sending')
ON CONFLICT DO NOTHING
"""

_OWED = """
SELECT DISTINCT notification_id FROM notification_watches
WHERE watch_id IN (SELECT value FROM json_each(:watches))
"""

_DISOWN = """
DELETE FROM notification_watches WHERE watch_id IN (SELECT value FROM json_each(:watches))
"""

# Pending rows (held ones too) that no watch owes any more; a row claimed already — a digest
# in flight — is not recalled.
_CANCEL = """
UPDATE notifications
SET status = 'dead', dead_reason = 'cancelled', last_error = :why, updated_at = :now
WHERE id IN (SELECT value FROM json_each(:rows)) AND status = 'pending'
    AND NOT EXISTS (
        SELECT 1 FROM notification_watches WHERE notification_id = notifications.id
    )
"""


async def disown_within(
    conn: aiosqlite.Connection, watch_ids: Collection[int], *, now: float, why: str
) -> int:
    """The watches stop owing their rows (removed, paused or muted; inside the caller's
    transaction, so the change and the cancel are one); returns how many rows were cancelled.

    A pending or held row that no other watch owes any more ends `dead` with the reason
    `cancelled` and `why` as its error: it is never sent, not even after a resume (a resumed
    watch starts over with a baseline). A row another watch of the chat also queued stays.
    """
    if not watch_ids:
        return 0
    watches = json.dumps(sorted(watch_ids))
    owed = [row[0] for row in await conn.execute_fetchall(_OWED, {"watches": watches})]
    await conn.execute(_DISOWN, {"watches": watches})
    if not owed:
        return 0
    cursor = await conn.execute(_CANCEL, {"rows": json.dumps(owed), "why": why, "now": now})
    return cursor.rowcount


# Held rows keep their turns (their offsets from the release) when the release moves.
_RETIME = """
UPDATE notifications
SET next_attempt_at = next_attempt_at - queued_at + :release, queued_at = :release,
    disable_notification = :silent, updated_at = :now
WHERE chat_id = :chat_id AND status = 'pending' AND queued_at > :now
"""


async def retime_within(
    conn: aiosqlite.Connection, chat_id: int, quiet: QuietHours | None, *, now: float
) -> int:
    """The chat's quiet hours changed (inside the caller's transaction): its held rows wait
    for the end of the new window, or are released now — silently, in a silent window —
    when it is off or `now` is outside it. Returns how many held rows were re-timed."""
    release, silent = _timing(quiet, now)
    cursor = await conn.execute(
        _RETIME, {"chat_id": chat_id, "release": release or now, "silent": silent, "now": now}
    )
    return cursor.rowcount


class Enqueues(OutboxTable):
    """Queueing messages through the store, each call its own transaction."""

    async def enqueue(
        self, item: Outgoing, *, quiet: Mapping[int, QuietHours] | None = None
    ) -> bool:
        """Queue one message; False if its dedupe key was seen before (queued or purged)."""
        return await self.enqueue_many([item], quiet=quiet) == 1

    async def enqueue_many(
        self, items: Iterable[Outgoing], *, quiet: Mapping[int, QuietHours] | None = None
    ) -> int:
        """Queue many messages in one transaction (with the chats' `quiet` hours, as
        `enqueue_within`); return how many were new."""
        async with self.db.transaction() as conn:
            return await enqueue_within(
                conn, items, now=self.clock(), max_attempts=self.max_attempts, quiet=quiet
            )


_TOLD = """
SELECT j.key FROM json_each(:asks) j
WHERE EXISTS (
    SELECT 1 FROM notifications n
    WHERE n.dedupe_key >= json_extract(j.value, '$[0]')
      AND n.dedupe_key < json_extract(j.value, '$[1]')
      AND n.dedupe_key LIKE json_extract(j.value, '$[2]') AND n.kind = 'drop'
      AND n.created_at >= json_extract(j.value, '$[3]')
)
"""


async def drops_told(
    conn: aiosqlite.Connection, asks: Sequence[tuple[str, str, str, float | None]]
) -> set[int]:
    """Which of `asks` — `(from, to, pattern, since)`: drop keys from `from` up to (not
    including) `to`, walked on the keys' unique index, that match the LIKE `pattern` — have a
    drop row (any status) queued at or after `since` (None: none has); by their place in
    `asks`, in one query. A scan tells a chat each price cut once (`watches.judge`, inside
    its transaction, which builds the keys); the queue owns the table, so it asks here."""
    if not asks:
        return set()
    rows = await conn.execute_fetchall(_TOLD, {"asks": json.dumps([list(ask) for ask in asks])})
    return {row[0] for row in rows}
