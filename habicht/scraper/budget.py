"""What the scheduler's one politeness budget serves, feeds and searches apart: for the
owner's `/stats`, the "behind" alert's advice and `habicht health`.

With feeds on (`FeedCadence`), a search with an active watch is either *fed* — a live feed
serves it (`scraper.feeds`: two or more searches share it), and it is scanned on its own only
every HABICHT_SAFETY_INTERVAL — or *polled* on its own every HABICHT_SCRAPE_INTERVAL. With
feeds off every search is polled. The requests that compete for the budget are the polled
searches, the safety-net scans and the feed reads (`capacity`).

Knows nothing of Telegram, like the rest of the scraper.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from habicht.db import Database
from habicht.scraper.schedule import _ACTIVE, _LIVE_FEEDS, FeedCadence

__all__ = ["Workload", "workload"]

_WORKLOAD = f"""
SELECT
    (SELECT count(*) FROM searches s WHERE {_ACTIVE}) AS searches,
    (SELECT count(*) FROM searches s WHERE s.feed_id IN live AND {_ACTIVE}) AS fed,
    (SELECT count(*) FROM live) AS feeds,
    (SELECT max(:now - coalesce(f.last_success_at, f.created_at)) FROM feeds f
     WHERE f.id IN live) AS feed_age,
    (SELECT coalesce(max(f.consecutive_failures), 0) FROM feeds f WHERE f.id IN live)
        AS feed_failures,
    (SELECT coalesce(sum(feed_misses), 0) FROM searches) AS misses
"""


@dataclass(frozen=True, slots=True)
class Workload:
    """`polled` searches scanned on their own every interval; `fed` ones served by `feeds`
    live feeds, whose stalest successful read (or creation, if never read) is `feed_age`
    seconds ago (None without feeds) and whose worst failure streak is `feed_failures`;
    `misses`: the feed misses counted on the searches that exist (`scraper.scan`)."""

    polled: int
    fed: int = 0
    feeds: int = 0
    feed_age: float | None = None
    feed_failures: int = 0
    misses: int = 0

    def as_dict(self) -> dict[str, Any]:
        """The JSON `habicht health` prints."""
        return {
            "searches_polled": self.polled,
            "searches_fed": self.fed,
            "feeds": self.feeds,
            "feed_age_seconds": None if self.feed_age is None else round(self.feed_age, 1),
            "feed_failures": self.feed_failures,
            "feed_misses": self.misses,
        }


async def workload(db: Database, *, now: float, cadence: FeedCadence | None) -> Workload:
    """The budget's work now; with `cadence` None (feeds off) every search is polled."""
    sql = f"WITH live AS ({_LIVE_FEEDS}) {_WORKLOAD}"
    row = await db.fetchone(sql, {"now": now})
    assert row is not None  # one row, always
    if cadence is None:
        return Workload(polled=row["searches"], misses=row["misses"])
    return Workload(
        polled=row["searches"] - row["fed"],
        fed=row["fed"],
        feeds=row["feeds"],
        feed_age=row["feed_age"],
        feed_failures=row["feed_failures"],
        misses=row["misses"],
    )
