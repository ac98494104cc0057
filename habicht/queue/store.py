"""The notification outbox in SQLite: enqueue, claim with a lease, settle, inspect.

Knows nothing of Telegram or willhaben: a row is `(chat_id, text, dedupe_key)`, what else its
message carries (a photo URL, buttons, a topic, send options: `Message`), and its delivery
state (see DESIGN.md, "Notification states"). Every write goes through
`Database.transaction()`; every read returns frozen dataclasses, never sqlite rows.

A claim is one `UPDATE … RETURNING` statement, so two drains racing over the same rows
never get the same row; it counts the row's `claims`, which is the claim's token: a settle
only touches a row still `sending` with the token it was claimed with, so a drain whose lease
ran out cannot overwrite the row's next owner. A claim spends no attempt: `start` counts it,
in a tiny commit right before the send, and marks the row `started_at` — so after a crash
the rows that never reached Telegram go back unspent, and only a send that started (and may
have arrived) is repeated with its attempt spent.

Fair turns: `enqueue` gives each row a due time that is its chat's turn — the next row of a
chat with a backlog is due one pacing gap after the chat's latest waiting row, a chat with
none queues at the head of the line — so the claim's walk in due order is a round-robin over
chats, and one chat's backlog never pushes another chat's message back (DESIGN.md,
"Delivery is fair").

Quiet hours: `enqueue` reads the chat's window from `chats` in the same transaction. An alert
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
import sqlite3
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, Literal

import aiosqlite

from habicht.clock import Clock
from habicht.db import Database
from habicht.queue.pacing import chat_gap
from habicht.queue.quiet import QuietHours, stored_quiet_hours

__all__ = [
    "DEFAULT_LEASE",
    "LEASE_MARGIN",
    "Button",
    "Buttons",
    "Kind",
    "Message",
    "Notification",
    "NotificationStore",
    "Outgoing",
    "QueueStats",
    "Status",
    "TakenOver",
    "disown_within",
    "enqueue_within",
    "retime_within",
]

Kind = Literal["new", "drop", "info", "admin"]
Status = Literal["pending", "sending", "sent", "dead"]
Source = Literal["feed", "search"]

DEFAULT_LEASE = 120.0
"""Seconds a claim owns its rows, and a started send its rows again from its start (`start`
renews the lease). Sized above the worst send: the bot's send is a photo and, if Telegram
refuses the photo, the text in the same attempt — two requests of at most 20 s each (pool,
connect, write and read timeouts of 5 s) — and `drain` cuts any send off at the lease less
`LEASE_MARGIN` (90 s), so no send outlives its lease and the reaper never buries a row whose
send still runs. A crash does not wait for the lease — the restarted process takes over the
dead one's leases (`take_over_leases`) — so it bounds only how long a live drain that hangs
can hold its rows."""

LEASE_MARGIN = 30.0
"""`drain` starts no send later than this many seconds before its claim's lease ends (it
gives the row back instead), and a started send gets the lease less this to finish: the rest
is room for the settle. A lease must be at least twice this, so every claim leaves time to
send."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Button:
    """An inline button: opens `url`, or sends `data` back to the bot (at most 64 bytes)."""

    text: str
    url: str | None = None
    data: str | None = None


Buttons = tuple[tuple[Button, ...], ...]
"""Rows of inline buttons under a message."""


@dataclass(frozen=True, slots=True)
class Message:
    """What one send delivers, exactly as it was queued: the `send` callable's argument.

    `text` is HTML; with `photo_url` it is the photo's caption (the sender may fall back to
    text if Telegram cannot fetch the photo). `thread_id` is the forum topic to post in.
    `disable_notification` sends it without a notification sound (Telegram's name).
    """

    chat_id: int
    text: str
    photo_url: str | None = None
    buttons: Buttons = ()
    thread_id: int | None = None
    disable_notification: bool = False


@dataclass(frozen=True, slots=True)
class Outgoing:
    """A message to enqueue. `text` is the fully rendered HTML: a retry never re-renders.
    The fields after `ad_id` are stored with it and sent unchanged (see `Message`)."""

    chat_id: int
    kind: Kind
    text: str
    dedupe_key: str
    ad_id: str | None = None
    photo_url: str | None = None
    buttons: Buttons = ()
    thread_id: int | None = None
    disable_notification: bool = False
    digest_line: str | None = None
    """The message as one line of a digest (HTML); None: it never goes in a digest."""
    watch_id: int | None = None
    """The watch that owes this alert (None: an answer or an owner message). A second watch
    of the chat queueing the same key owes the same row too (see `disown_within`)."""
    source: Source | None = None
    """Where an alert came from (a shared feed, or its search's own scan); kept for counting."""
    first_seen_at: float | None = None
    """When what a new-listing alert tells of was first read, for a new advert only (not
    bumped, not older than its watch): the start of its freshness, kept for measuring."""
    published_at: float | None = None
    """Its `PUBLISHED` time, under the same rule (None also when the page gave none)."""


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
    claims: int
    started_at: float | None
    photo_url: str | None = None
    buttons: str | None = None
    """The buttons as JSON (`_buttons_json`); NULL on rows queued before photo alerts."""
    thread_id: int | None = None
    disable_notification: int = 0
    digest_line: str | None = None

    @property
    def message(self) -> Message:
        """The message to send, as it was queued."""
        return Message(
            chat_id=self.chat_id,
            text=self.text,
            photo_url=self.photo_url,
            buttons=_buttons(self.buttons),
            thread_id=self.thread_id,
            disable_notification=bool(self.disable_notification),
        )


def _buttons_json(buttons: Buttons) -> str | None:
    """Rows of buttons as stored: `[[{"text": …, "url": …} | {"text": …, "data": …}]]`."""
    if not buttons:
        return None
    return json.dumps(
        [
            [
                {k: v for k, v in (("text", b.text), ("url", b.url), ("data", b.data)) if v}
                for b in row
            ]
            for row in buttons
        ],
        ensure_ascii=False,
    )


def _buttons(stored: str | None) -> Buttons:
    if not stored:
        return ()
    return tuple(tuple(Button(**button) for button in row) for row in json.loads(stored))


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


@dataclass(frozen=True, slots=True)
class TakenOver:
    """What `take_over_leases` found of a process that died: rows whose send had started
    (`in_flight`: sent again, the attempt spent) and rows it had only claimed (`unsent`:
    given back, nothing spent)."""

    in_flight: int
    unsent: int


_NAMES = [f.name for f in fields(Notification)]
_COLUMNS = ", ".join(_NAMES)


def _notification(row: sqlite3.Row | tuple[Any, ...]) -> Notification:
    values = dict(zip(_NAMES, row, strict=True))
    return Notification(**values)


# A key is skipped when it is already a row (any status) or was purged (a tombstone), so
# neither a re-run scrape nor a purge can ever let an alert be sent twice. The due time is
# the row's turn: one gap after its chat's latest fresh waiting row, else the head of the line
# (the earliest waiting row, or now) — see the module docstring. Both reads walk an index.
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
               (SELECT min(next_attempt_at) FROM notifications WHERE status = 'pending'), :now
           )) AS head,
           (SELECT max(next_attempt_at) FROM notifications
            WHERE chat_id = :chat_id AND status = 'pending' AND attempts = 0
                AND (queued_at <= :now OR queued_at = :release)) AS last
)
WHERE NOT EXISTS (SELECT 1 FROM notification_tombstones WHERE dedupe_key = :dedupe_key)
ON CONFLICT (dedupe_key) DO NOTHING
"""


_QUIET_HOURS = """
SELECT chat_id, quiet_from, quiet_to, quiet_mode, quiet_zone FROM chats
WHERE quiet_mode IS NOT NULL AND chat_id IN (SELECT value FROM json_each(?))
"""

_QUIETED: frozenset[Kind] = frozenset({"new", "drop"})
"""The kinds quiet hours hold back or silence: alerts, not answers or owner messages."""


async def _quiet_hours(
    conn: aiosqlite.Connection, chat_ids: Collection[int]
) -> dict[int, QuietHours]:
    """The quiet hours of those chats that have them, as stored in `chats`."""
    rows = await conn.execute_fetchall(_QUIET_HOURS, (json.dumps(sorted(chat_ids)),))
    found = {row[0]: stored_quiet_hours(*row[1:]) for row in rows}
    return {chat_id: quiet for chat_id, quiet in found.items() if quiet is not None}


def _timing(quiet: QuietHours | None, now: float) -> tuple[float | None, bool]:
    """Under the chat's quiet hours, for a row queued now: when it is released (None: it is
    not held) and whether it is silent."""
    release = None if quiet is None else quiet.release_at(now)
    if quiet is None or release is None:
        return None, False
    return (None, True) if quiet.mode == "silent" else (release, False)


async def enqueue_within(
    conn: aiosqlite.Connection, items: Iterable[Outgoing], *, now: float, max_attempts: int
) -> int:
    """Insert `items` inside the caller's open transaction; return how many rows were new.

    The caller holds `db.transaction()`, so the alert is recorded in the same transaction
    that detected it (transactional outbox) and nothing is sent before the commit; the
    chat's quiet hours are read in it too (see the module docstring).
    """
    items = list(items)
    if not items:
        return 0
    quiet = await _quiet_hours(conn, {item.chat_id for item in items if item.kind in _QUIETED})
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
                "buttons": _buttons_json(item.buttons),
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


# Due: pending and its turn has come, or sending whose lease ran out (its drain crashed).
# Never claimed: rows past their TTL or out of attempts — `reap` buries those — and rows of
# the chats in `:busy` (the drain has one of theirs in hand). Each branch walks its own
# partial index in due order and stops after `:scan` rows, so a claim costs the same with ten
# or ten thousand rows waiting; of those, at most `:per_chat` rows per chat are taken.
_CLAIM = f"""
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
RETURNING {_COLUMNS}
"""

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

_DIGEST_AFTER = "SELECT digest_after FROM chats WHERE chat_id = ?"

_CLAIM_MORE = f"""
UPDATE notifications
SET status = 'sending', lease_until = :lease_until, claims = claims + 1, started_at = NULL,
    updated_at = :now
WHERE id IN (SELECT value FROM json_each(:ids))
RETURNING {_COLUMNS}
"""

_NEXT_DUE = """
SELECT next_attempt_at FROM notifications INDEXED BY notifications_due
WHERE status = 'pending' AND queued_at > :born_after
    AND chat_id NOT IN (SELECT value FROM json_each(:busy))
ORDER BY next_attempt_at LIMIT 1
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
        AND chat_id NOT IN (SELECT value FROM json_each(:busy))
)
RETURNING {_COLUMNS}
"""

# `claims = :claims` is the claim's token (see the module docstring).
_OWNED = "id = :id AND status = 'sending' AND claims = :claims"

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
SELECT {_COLUMNS} FROM notifications WHERE status = 'dead'
ORDER BY updated_at DESC, id DESC LIMIT ?
"""

# Two statements each (sent, then dead), every one on its own partial index.
_PURGED = (
    "FROM notifications WHERE status = 'sent' AND sent_at <= :cutoff",
    "FROM notifications WHERE status = 'dead' AND updated_at <= :cutoff",
)


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

    # -- claim, start and settle --------------------------------------------------------

    async def claim(
        self, limit: int, *, per_chat: int | None = None, skip: Collection[int] = ()
    ) -> list[Notification]:
        """Take up to `limit` due rows for sending, earliest turn first, with a lease; at most
        `per_chat` of one chat, none of the chats in `skip`. Spends no attempt (`start` does).

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
            rows = await conn.execute_fetchall(_CLAIM, params)
        return sorted((_notification(row) for row in rows), key=lambda n: (n.next_attempt_at, n.id))

    async def claim_digest(self, row: Notification, *, digest_after: int) -> list[Notification]:
        """`row`, just claimed, and — when its chat has more than `digest_after` alerts
        (the chat's own threshold if it set one) waiting at once — the others, up to
        `DIGEST_MOST` in all, claimed with the same lease: the first rows of a digest, in
        turn order. Just `[row]` otherwise, or if `row` never goes in a digest.

        Any threshold is honoured: the count looks as far as the threshold, past the cap."""
        if row.digest_line is None or row.lease_until is None:
            return [row]
        async with self.db.transaction() as conn:
            own = await conn.execute_fetchall(_DIGEST_AFTER, (row.chat_id,))
            threshold = next((found[0] for found in own if found[0] is not None), digest_after)
            most = max(threshold, DIGEST_MOST - 1)
            waiting = await self._waiting(conn, row.chat_id, [row.id], most=most)
            if 1 + len(waiting) <= threshold:
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
            (_notification(found) for found in claimed), key=lambda n: (n.next_attempt_at, n.id)
        )

    async def next_due(self, *, skip: Collection[int] = ()) -> float | None:
        """When the earliest waiting row of a chat not in `skip` is due; None if none waits."""
        params = {"born_after": self.clock() - self.ttl, "busy": json.dumps(sorted(skip))}
        row = await self.db.fetchone(_NEXT_DUE, params)
        return None if row is None else float(row[0])

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
                    f"AND started_at IS NULL RETURNING {_COLUMNS}",
                    {"now": now, "lease_until": now + self.lease, "id": n.id, "claims": n.claims},
                )
        return [_notification(row) for row in started]

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
        return [_notification(row) for row in rows]

    async def mark_sent(self, items: Iterable[Notification]) -> int:
        """Record delivery (once, with `sent_at`) of rows this claim still owns."""
        now = self.clock()
        return await self._settle(
            f"UPDATE notifications SET status = 'sent', sent_at = :now, lease_until = NULL, "
            f"updated_at = :now WHERE {_OWNED}",
            ({"now": now, "id": n.id, "claims": n.claims} for n in items),
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
                f"WHERE {where} AND status IN ('pending', 'sending') RETURNING {_COLUMNS}",
                params,
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
        rows = await self.db.fetchall(f"SELECT {_COLUMNS} FROM notifications")
        return {row[0]: _notification(row) for row in rows}

    async def dead(self, limit: int = 20) -> list[Notification]:
        """The most recently dead rows, newest first."""
        return [_notification(row) for row in await self.db.fetchall(_DEAD, (limit,))]

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
