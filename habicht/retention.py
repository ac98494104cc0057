"""Retention: what the daily `retention` job deletes, so the database stays bounded.

- Sent and dead notifications settled more than HABICHT_RETENTION_DAYS ago go, through the
  outbox's own purge (the same as `/queue purge`): their dedupe keys stay as tombstones, so
  an alert once queued is not queued again.
- A tombstone goes once it can no longer stop anything: an alert's (`new:…`, `drop:…`) once
  its advert has not been on any page for HABICHT_RETENTION_DAYS — an advert back after
  that (within `LISTING_DAYS`) is still known to its watches, which call it new no more — and
  any other key (time-stamped answers and owner messages, never queued twice) that many days
  after its purge. So the tombstones level off with the adverts on the pages, instead of
  growing with every alert ever sent.
- Adverts no search has returned for `LISTING_DAYS` days are forgotten, with what every
  watch had seen of them. Should one come back after that, a watch may call it new once
  more; an alert already sent for it stays deduplicated by its key.
- What following sent alerts learnt (issue 34): the log of page checks after `CHECK_DAYS`
  (the owner's figures count the last day), and an advert's state once neither a read nor a
  page check touched it for `STATE_DAYS` — longer than any alert is followed
  (HABICHT_FOLLOW_DAYS is at most 30).

Each part is one write transaction; the listings part holds the write lock for one scan of
`watch_listings` (about a second at a million rows, once a day).
"""

from __future__ import annotations

from dataclasses import dataclass

from habicht.db import Database
from habicht.queue import NotificationStore

__all__ = ["CHECK_DAYS", "LISTING_DAYS", "STATE_DAYS", "Retained", "retain"]

LISTING_DAYS = 90
CHECK_DAYS = 2
STATE_DAYS = 31
_DAY = 86400.0

_STALE = "SELECT ad_id FROM listings WHERE updated_at < :cutoff"

# One pass over the alert tombstones, each a lookup of its advert's primary key.
_GONE_TOMBSTONES = (
    "DELETE FROM notification_tombstones WHERE ad_id IS NULL AND purged_at < :kept",
    "DELETE FROM notification_tombstones WHERE ad_id IS NOT NULL AND NOT EXISTS ("
    " SELECT 1 FROM listings WHERE listings.ad_id = notification_tombstones.ad_id"
    " AND listings.updated_at >= :kept)",
)


@dataclass(frozen=True, slots=True)
class Retained:
    """How many rows one retention run deleted."""

    notifications: int
    listings: int
    tombstones: int
    page_checks: int = 0
    advert_states: int = 0


async def retain(db: Database, store: NotificationStore, *, now: float, days: int) -> Retained:
    """Purge old notifications (keys kept), let tombstones go that can stop nothing any more,
    and forget adverts unseen for `LISTING_DAYS`."""
    purged = await store.purge(days * _DAY)
    tombstones = 0
    async with db.transaction() as conn:
        for sql in _GONE_TOMBSTONES:
            cursor = await conn.execute(sql, {"kept": now - days * _DAY})
            tombstones += cursor.rowcount
    params = {"cutoff": now - LISTING_DAYS * _DAY}
    async with db.transaction() as conn:
        await conn.execute(f"DELETE FROM watch_listings WHERE ad_id IN ({_STALE})", params)
        cursor = await conn.execute("DELETE FROM listings WHERE updated_at < :cutoff", params)
        forgotten = cursor.rowcount
    async with db.transaction() as conn:
        checks = await conn.execute(
            "DELETE FROM page_checks WHERE checked_at < ?", (now - CHECK_DAYS * _DAY,)
        )
        states = await conn.execute(
            "DELETE FROM advert_states WHERE max(seen_at, coalesce(checked_at, 0)) < ?",
            (now - STATE_DAYS * _DAY,),
        )
    return Retained(
        notifications=purged,
        listings=forgotten,
        tombstones=tombstones,
        page_checks=checks.rowcount,
        advert_states=states.rowcount,
    )
