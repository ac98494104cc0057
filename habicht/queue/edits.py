"""Edits of sent messages: what keeps a sent alert true is an outbox row of its own.

An edit row (kind `edit`) names the message it edits by `message_id` and how that message went
out (`sent_as`: its text or its caption changes); its `text` and `buttons` are the message's
whole new content. It has the alerts' guarantees — written before any send, retried with the
same backoff, dead with a reason, never lost — and goes below them: a claim takes edits only
after every due alert (`claim`), and they take no turn in a chat's fair order (`enqueue`).
Quiet hours hold no edit back: an edit rings no phone.

One pending edit per message at most: a newer state replaces the text of an edit not yet
sent, so a message that changed three times while its chat was paused by a 429 is edited once,
to what is true now. An edit already in flight is not recalled; the newer one follows it.

Knows nothing of adverts or Telegram: what an edit says is its caller's (`watches.follow`).
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass

import aiosqlite

from habicht.message import Buttons
from habicht.queue.rows import COLUMNS, Notification, SentAs, as_notification, buttons_json

__all__ = ["Edit", "edit_within", "message_rows", "owed_by", "sent_alerts", "shown_text"]


@dataclass(frozen=True, slots=True)
class Edit:
    """The new content of a sent message: `text` (HTML; its caption if it went out as a
    photo) and `buttons`, for message `message_id` of `chat_id`, which went out as `sent_as`
    in forum topic `thread_id`; `ad_id` the advert it tells of (None: a digest's several)."""

    chat_id: int
    message_id: int
    sent_as: SentAs
    text: str
    buttons: Buttons = ()
    thread_id: int | None = None
    ad_id: str | None = None


_REPLACE = """
UPDATE notifications SET text = :text, buttons = :buttons, updated_at = :now
WHERE kind = 'edit' AND chat_id = :chat_id AND message_id = :message_id AND status = 'pending'
"""

# The key counts the message's edits: `edit:<chat>:<message>:<n>`, unique like every key.
_INSERT = """
INSERT INTO notifications
    (chat_id, kind, ad_id, text, dedupe_key, max_attempts, next_attempt_at, created_at,
     queued_at, updated_at, buttons, thread_id, disable_notification, message_id, sent_as)
SELECT :chat_id, 'edit', :ad_id, :text,
       'edit:' || :chat_id || ':' || :message_id || ':' || (count(*) + 1),
       :max_attempts, :now, :now, :now, :now, :buttons, :thread_id, 1, :message_id, :sent_as
FROM notifications
WHERE kind = 'edit' AND chat_id = :chat_id AND message_id = :message_id
"""

# What a message shows, or will once its edits are sent: its newest edit that is not dead.
_SHOWN = """
SELECT text FROM notifications
WHERE chat_id = ? AND message_id = ? AND kind = 'edit' AND status != 'dead'
ORDER BY id DESC LIMIT 1
"""


async def edit_within(
    conn: aiosqlite.Connection, edit: Edit, *, now: float, max_attempts: int
) -> None:
    """Queue `edit` inside the caller's transaction: the text of the message's pending edit
    becomes this one's, or a new edit row is due now (module docstring)."""
    params = {
        "chat_id": edit.chat_id,
        "message_id": edit.message_id,
        "sent_as": edit.sent_as,
        "text": edit.text,
        "buttons": buttons_json(edit.buttons),
        "thread_id": edit.thread_id,
        "ad_id": edit.ad_id,
        "now": now,
        "max_attempts": max_attempts,
    }
    replaced = await conn.execute(_REPLACE, params)
    if replaced.rowcount == 0:
        await conn.execute(_INSERT, params)


async def shown_text(conn: aiosqlite.Connection, chat_id: int, message_id: int) -> str | None:
    """The text message `message_id` shows once its queued edits are sent: its newest edit's
    that is not dead; None if it has none (it shows what it was sent with)."""
    async with conn.execute(_SHOWN, (chat_id, message_id)) as cursor:
        row = await cursor.fetchone()
    return None if row is None else str(row[0])


# A message is no longer followed once an edit of it found it deleted (or too old to edit).
_EDITABLE = """NOT EXISTS (
    SELECT 1 FROM notifications e
    WHERE e.chat_id = n.chat_id AND e.message_id = n.message_id AND e.kind = 'edit'
        AND e.status = 'dead' AND e.dead_reason = 'message_gone'
)"""

_SENT_ALERTS = f"""
SELECT {", ".join(f"n.{column}" for column in COLUMNS.split(", "))}
FROM notifications n INDEXED BY notifications_followed
WHERE n.ad_id IN (SELECT value FROM json_each(:ads)) AND n.message_id IS NOT NULL
    AND n.kind IN ('new', 'drop') AND n.sent_at >= :since AND {_EDITABLE}
ORDER BY n.id
"""

_MESSAGE_ROWS = f"""
SELECT {COLUMNS} FROM notifications
WHERE chat_id = ? AND message_id = ? AND kind IN ('new', 'drop')
ORDER BY id
"""


async def sent_alerts(
    conn: aiosqlite.Connection, ad_ids: Collection[str], *, since: float
) -> list[Notification]:
    """The alerts of these adverts sent since `since` whose messages can still be edited (no
    edit of theirs found them deleted): what a change of the adverts may have to correct."""
    params = {"ads": json.dumps(sorted(ad_ids)), "since": since}
    return [as_notification(row) for row in await conn.execute_fetchall(_SENT_ALERTS, params)]


_OWED_BY = """
SELECT notification_id, watch_id FROM notification_watches
WHERE notification_id IN (SELECT value FROM json_each(?))
"""


async def owed_by(conn: aiosqlite.Connection, ids: Collection[int]) -> dict[int, set[int]]:
    """The watches that owe each of these rows, by row id (a row no watch owes is left out):
    a sent alert is followed only while a watch of its is active, and the watches are not
    the queue's to judge, so `watches.follow` asks here and decides (issue 37)."""
    owed: dict[int, set[int]] = {}
    for notification_id, watch_id in await conn.execute_fetchall(
        _OWED_BY, (json.dumps(sorted(ids)),)
    ):
        owed.setdefault(notification_id, set()).add(watch_id)
    return owed


async def message_rows(
    conn: aiosqlite.Connection, chat_id: int, message_id: int
) -> list[Notification]:
    """Every alert one message carried, in order: one, or a digest's."""
    rows = await conn.execute_fetchall(_MESSAGE_ROWS, (chat_id, message_id))
    return [as_notification(row) for row in rows]
