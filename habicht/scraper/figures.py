"""The pipeline's figures, for whoever reports on it — `habicht health`, the metrics, the
owner's `/stats` and the "behind" alert — from one place: outside `habicht.scraper`, the
figures are imported from here only.

- **Freshness** (`freshness`): how long the active searches have waited since their last
  scan — the stalest and the 95th percentile — and `FreshnessWatch`, which says when it
  stayed more than `BEHIND_FACTOR` intervals behind for an interval, and when it came back.
- **Capacity** (`capacity`): what the politeness budget fits per interval, and what gap or
  interval would fit every request that competes for it.
- **The budget's work** (`workload`, `feed_loads`, `feed_name`; computed in
  `scraper.budget`): what it serves, searches polled and fed apart, and each feed.
- **Alert times** (`latency`, `samples`; computed in `scraper.alert_times`): how long a new
  advert took to its alert's enqueue.

Capacity (keep in sync with docs/internals/scheduling.md): one interval fits about
`interval / (fetch_gap + fetch time)` searches. With more, the achieved interval stretches,
and `freshness` shows it.

Reads only; knows nothing of Telegram, like the rest of the scraper.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from habicht.db import Database
from habicht.scraper.alert_times import Latency, latency, samples
from habicht.scraper.budget import (
    FeedKind,
    FeedLoad,
    FeedName,
    Workload,
    feed_loads,
    feed_name,
    workload,
)
from habicht.scraper.schedule import ACTIVE, FED, FeedCadence

__all__ = [
    "BEHIND_FACTOR",
    "Capacity",
    "FeedKind",
    "FeedLoad",
    "FeedName",
    "Freshness",
    "FreshnessWatch",
    "Latency",
    "Workload",
    "capacity",
    "feed_loads",
    "feed_name",
    "freshness",
    "latency",
    "samples",
    "workload",
]

BEHIND_FACTOR = 2.0
"""Freshness is behind when the stalest search waited more than this many intervals."""

_SINCE_SCAN = f"""
SELECT :now - max(coalesce(s.last_attempt_at, s.created_at),
                  CASE WHEN {FED} THEN coalesce(f.last_success_at, 0) ELSE 0 END)
FROM searches s LEFT JOIN feeds f ON f.id = s.feed_id
WHERE {ACTIVE}
"""


@dataclass(frozen=True, slots=True)
class Freshness:
    """How long the active searches have waited since their last scan (a never-scanned one
    since it was created), in seconds; `stalest` and `p95` are None without searches."""

    searches: int
    stalest: float | None
    p95: float | None
    interval: float

    @property
    def behind(self) -> bool:
        """Whether the stalest search waited more than `BEHIND_FACTOR` intervals."""
        return self.stalest is not None and self.stalest > BEHIND_FACTOR * self.interval

    def as_dict(self) -> dict[str, float | int | bool | None]:
        """The JSON `habicht health` prints (seconds rounded to 0.1)."""

        def rounded(seconds: float | None) -> float | None:
            return None if seconds is None else round(seconds, 1)

        return {
            "searches": self.searches,
            "stalest_seconds": rounded(self.stalest),
            "p95_seconds": rounded(self.p95),
            "interval_seconds": self.interval,
            "behind": self.behind,
        }


async def freshness(db: Database, *, now: float, interval: float) -> Freshness:
    """The freshness of every search with an active watch of an active chat, now: a search a
    live feed serves counts from the feed's last successful read when that is later."""
    ages = sorted(max(0.0, row[0]) for row in await db.fetchall(_SINCE_SCAN, {"now": now}))
    if not ages:
        return Freshness(0, None, None, interval)
    rank = max(1, math.ceil(0.95 * len(ages)))  # nearest rank
    return Freshness(len(ages), ages[-1], ages[rank - 1], interval)


class FreshnessWatch:
    """Says once when freshness has been behind for a whole interval, and once when it is
    back: `update` returns "behind" or "recovered" at those moments, else None."""

    def __init__(self) -> None:
        self._behind_since: float | None = None
        self.told = False

    def update(self, fresh: Freshness, *, now: float) -> Literal["behind", "recovered"] | None:
        if not fresh.behind:
            self._behind_since = None
            if self.told:
                self.told = False
                return "recovered"
            return None
        if self._behind_since is None:
            self._behind_since = now
        if not self.told and now - self._behind_since >= fresh.interval:
            self.told = True
            return "behind"
        return None


@dataclass(frozen=True, slots=True)
class Capacity:
    """What the politeness budget allows: `fits` requests per interval at the measured
    `seconds_per_search` (per scan: a search's or a feed's, pages and gaps included);
    `interval_needed` for all polled `searches` beside the feeds and safety nets (`math.inf`
    when those alone take the whole budget); the largest fetch gap that would fit every
    request (None when even no gap would); `requests` that compete per interval; `round`:
    how long a polled search waits between two of its scans — the interval, or longer when
    the budget cannot fit every search: then every one is about equally late past its own
    interval, the fed ones past their safety net (`math.inf` when the feeds leave nothing for
    the searches). A new advert of a plain search (one no feed can serve: a flat searched "ab
    sofort", say) waits that long at worst, where a local one's comes with its feed's next
    read."""

    searches: int
    seconds_per_search: float
    fits: int
    interval_needed: float
    gap_that_fits: float | None
    requests: float = 0.0
    round: float = 0.0


def capacity(
    searches: int,
    *,
    interval: float,
    fetch_gap: float,
    seconds_per_search: float,
    fed: int = 0,
    feeds: int = 0,
    cadence: FeedCadence | None = None,
) -> Capacity:
    """requests per interval ≈ interval / (gap + fetch time), where `seconds_per_search`
    (measured: a pass's duration per scan) is the gap plus the fetch time. The requests that
    compete are the `searches` polled every interval and, with `cadence`, the safety-net scans
    of the `fed` searches and the reads of `feeds` feeds (keep in sync with
    docs/internals/scheduling.md):

        requests = searches + fed * interval / safety + feeds * interval / feed interval
    """
    per_search = max(seconds_per_search, fetch_gap, 1e-3)
    fetch_time = per_search - fetch_gap
    fixed = 0.0 if cadence is None else fed / cadence.safety + feeds / cadence.interval
    rate = searches / interval + fixed  # requests per second
    gap = 1 / rate - fetch_time if rate else fetch_gap
    left = 1 - per_search * fixed  # the share of the budget the polled searches get
    needed = searches * per_search / left if left > 0 else math.inf
    feed_share = 0.0 if cadence is None else per_search * feeds / cadence.interval
    late = _lateness(
        searches,
        0 if cadence is None else fed,
        interval=interval,
        safety=interval if cadence is None else cadence.safety,
        scans=(1 - feed_share) / per_search,
    )
    return Capacity(
        searches=searches,
        seconds_per_search=per_search,
        fits=int(interval / per_search),
        interval_needed=needed,
        gap_that_fits=gap if gap >= 0 else None,
        requests=rate * interval,
        round=interval + late,
    )


def _lateness(polled: int, fed: int, *, interval: float, safety: float, scans: float) -> float:
    """How late every due search is past its own interval when the scheduler, which takes
    the latest first (`schedule`), has more due than the budget clears: the `L` at which the
    polled searches' round `interval + L` and the fed ones' `safety + L` use exactly the
    `scans` a second the feeds leave — polled / (interval + L) + fed / (safety + L) = scans,
    a quadratic in L. 0 while they all fit; `math.inf` when the feeds leave nothing."""
    if scans <= 0:
        return math.inf
    if polled / interval + fed / safety <= scans:
        return 0.0
    b = scans * (interval + safety) - polled - fed
    c = scans * interval * safety - polled * safety - fed * interval  # < 0: they do not fit
    return (-b + math.sqrt(b * b - 4 * scans * c)) / (2 * scans)


# The searches whose latest scans failed and that someone still watches (the watches' view
# `watched_searches`), worst first.
_FAILING = f"""
SELECT s.url, s.consecutive_failures, s.last_error_kind, s.last_error, s.last_success_at
FROM searches s
WHERE s.consecutive_failures > 0 AND {ACTIVE}
ORDER BY s.consecutive_failures DESC, s.url
"""


@dataclass(frozen=True, slots=True)
class FailingSearch:
    """A watched search whose latest `failures` scans failed, the last with `error_kind`
    and `error`; `last_success_at` None if it never succeeded."""

    url: str
    failures: int
    error_kind: str | None
    error: str | None
    last_success_at: float | None


async def failing_searches(db: Database) -> list[FailingSearch]:
    """The searches with an active watch whose latest scans failed, the most failures first
    (`habicht health`); the scraper owns `searches`, so health asks here."""
    return [FailingSearch(*row) for row in await db.fetchall(_FAILING)]
