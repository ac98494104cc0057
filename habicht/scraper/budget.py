"""What the scheduler's one politeness budget serves, feeds and searches apart: for the
owner's `/stats`, the "behind" alert's advice and `habicht health`.

With feeds on (`FeedCadence`), a search with an active watch is either *fed* — a live feed
serves it (`scraper.feeds`: two or more searches share it, and no coverage miss sent it back
to polling), and its own scans need come only every HABICHT_SAFETY_INTERVAL (they come every
HABICHT_SCRAPE_INTERVAL with budget to spare) — or *polled* on its own every
HABICHT_SCRAPE_INTERVAL. With feeds off every search is polled. The requests that compete for
the budget are the polled searches, the safety-net scans and the feed reads (`capacity`): the
fed searches' scans beyond their safety net only use what is left.

Knows nothing of Telegram, like the rest of the scraper.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from habicht.db import Database
from habicht.scraper.schedule import ACTIVE, FED, LIVE_FEEDS, FeedCadence

__all__ = ["Workload", "workload"]

_WORKLOAD = f"""
SELECT
    (SELECT count(*) FROM searches s WHERE {ACTIVE}) AS searches,
    (SELECT max(:now - coalesce(s.last_attempt_at, s.created_at)) FROM searches s
     WHERE {ACTIVE}) AS all_age,
    (SELECT count(*) FROM searches s WHERE {FED} AND {ACTIVE}) AS fed,
    (SELECT max(:now - coalesce(s.last_attempt_at, s.created_at)) FROM searches s
     WHERE NOT coalesce({FED}, 0) AND {ACTIVE}) AS polled_age,
    (SELECT max(:now - coalesce(s.last_attempt_at, s.created_at)) FROM searches s
     WHERE {FED} AND {ACTIVE}) AS safety_age,
    (SELECT count(*) FROM live) AS feeds,
    (SELECT max(:now - coalesce(f.last_success_at, f.created_at)) FROM feeds f
     WHERE f.id IN live) AS feed_age,
    (SELECT coalesce(max(f.consecutive_failures), 0) FROM feeds f WHERE f.id IN live)
        AS feed_failures,
    (SELECT coalesce(sum(feed_misses), 0) FROM searches) AS misses,
    (SELECT coalesce(sum(coverage_misses), 0) FROM searches) AS uncovered,
    (SELECT count(*) FROM feeds WHERE off_until > :now) AS feeds_off
"""


@dataclass(frozen=True, slots=True)
class Workload:
    """`polled` searches scanned on their own every interval, the stalest `polled_age`
    seconds ago; `fed` ones served by `feeds` live feeds, whose own scans (the safety net)
    are the stalest `safety_age` seconds ago — the net's real cadence — and whose feeds'
    stalest successful read (or creation, if never read) is `feed_age` seconds ago and worst
    failure streak `feed_failures`; `misses`: the feed misses counted on the searches that
    exist (`scraper.scan`), `uncovered` their coverage misses (`scraper.coverage`), and
    `feeds_off` the feeds switched off for them. Ages are None where there is nothing to
    age."""

    polled: int
    polled_age: float | None = None
    fed: int = 0
    safety_age: float | None = None
    feeds: int = 0
    feed_age: float | None = None
    feed_failures: int = 0
    misses: int = 0
    uncovered: int = 0
    feeds_off: int = 0

    def as_dict(self) -> dict[str, Any]:
        """The JSON `habicht health` prints."""
        return {
            "searches_polled": self.polled,
            "polled_stalest_seconds": _rounded(self.polled_age),
            "searches_fed": self.fed,
            "safety_stalest_seconds": _rounded(self.safety_age),
            "feeds": self.feeds,
            "feed_age_seconds": _rounded(self.feed_age),
            "feed_failures": self.feed_failures,
            "feed_misses": self.misses,
            "coverage_misses": self.uncovered,
            "feeds_off": self.feeds_off,
        }


def _rounded(seconds: float | None) -> float | None:
    return None if seconds is None else round(max(0.0, seconds), 1)


async def workload(db: Database, *, now: float, cadence: FeedCadence | None) -> Workload:
    """The budget's work now; with `cadence` None (feeds off) every search is polled."""
    sql = f"WITH live AS ({LIVE_FEEDS}) {_WORKLOAD}"
    row = await db.fetchone(sql, {"now": now})
    assert row is not None  # one row, always
    if cadence is None:
        return Workload(
            polled=row["searches"],
            polled_age=row["all_age"],
            misses=row["misses"],
            uncovered=row["uncovered"],
        )
    return Workload(
        polled=row["searches"] - row["fed"],
        polled_age=row["polled_age"],
        fed=row["fed"],
        safety_age=row["safety_age"],
        feeds=row["feeds"],
        feed_age=row["feed_age"],
        feed_failures=row["feed_failures"],
        misses=row["misses"],
        uncovered=row["uncovered"],
        feeds_off=row["feeds_off"],
    )
