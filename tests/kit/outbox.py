"""The outbox's own tests (tests/queue/test_<part>.py): a time, a row, its statuses, a store."""

from __future__ import annotations

from habicht.db import Database
from habicht.message import Outgoing
from habicht.queue import NotificationStore
from kit.fakes import FakeClock

NOW = 1_700_000_000.0
"""When the outbox tests start: where the kit's `clock` (a fresh `FakeClock`) stands."""


def item(key: str, *, chat_id: int = 1, text: str = "<b>hi</b>") -> Outgoing:
    return Outgoing(chat_id=chat_id, kind="new", text=text, dedupe_key=key, ad_id="ad-1")


async def statuses(store: NotificationStore) -> dict[str, str]:
    rows = await store.db.fetchall("SELECT dedupe_key, status FROM notifications ORDER BY id")
    return {key: status for key, status in rows}


def small_outbox(db: Database, clock: FakeClock) -> NotificationStore:
    """A store whose limits the claim and settle tests count on: a lease of 300 s (not the
    default), three attempts; a day to live."""
    return NotificationStore(db, clock=clock, max_attempts=3, ttl=86400, lease=300)
