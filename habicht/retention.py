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

Each part is one write transaction; the listings part holds the write lock for one scan of
`watch_listings` (about a second at a million rows, once a day).
"""

from __future__ import annotations

from dataclasses import dataclass

from habicht.db import Database
from habicht.queue import NotificationStore

__all__ = ["LISTING_DAYS", "Retained", "retain"]

LISTING_DAYS = 90
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
    return Retained(notifications=purged, listings=forgotten, tombstones=tombstones)
