"""What the scheduler's one politeness budget serves, feeds and searches apart: for the
owner's `/stats`, the "behind" alert's advice and `habicht health`.

With feeds on (`FeedCadence`), a search with an active watch is either *fed* — a live feed
serves it (`scraper.feeds`: two or more searches share it, and no coverage miss sent it back
to polling), and its own scans need come only every HABICHT_SAFETY_INTERVAL (they come every
HABICHT_SCRAPE_INTERVAL with budget to spare) — or *polled* on its own every
HABICHT_SCRAPE_INTERVAL. With feeds off every search is polled. The requests that compete for
the budget are the polled searches, the safety-net scans and the feed reads (`capacity`): the
fed searches' scans beyond their safety net only use what is left.

Per feed (`FeedLoad`): what it reads, in words (`feed_name`: the marketplace, flats to rent,
flats to buy — a path habicht does not know is shown as it is), the searches it is for and
the ones it serves now, its coverage misses and whether it is switched off. And the *plain*
searches — the ones no feed can serve (`searches.local` 0) — with the real-estate ones among
them counted apart (`is_real_estate`): a new flat of those waits a whole polling round, where
a flat of a local search comes with its feed's next read.

Knows nothing of Telegram, like the rest of the scraper.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import urlsplit

from habicht.db import Database
from habicht.scraper.schedule import ACTIVE, FED, LIVE_FEEDS, FeedCadence
from habicht.willhaben.estate_terms import BUY, ESTATE_FEEDS, IMMOBILIEN, RENT

__all__ = [
    "FEED_WORDS",
    "FeedKind",
    "FeedLoad",
    "FeedName",
    "Workload",
    "feed_loads",
    "feed_name",
    "is_real_estate",
    "workload",
]

FeedKind = Literal["marketplace", "rent", "buy"]

_FEED_PATHS: dict[str, FeedKind] = {
    "/iad/kaufen-und-verkaufen/marktplatz": "marketplace",
    ESTATE_FEEDS[RENT]: "rent",
    ESTATE_FEEDS[BUY]: "buy",
}
"""The newest-first pages habicht reads as feeds, by path (docs/internals/feeds.md)."""

FEED_WORDS: dict[FeedKind, str] = {
    "marketplace": "marketplace",
    "rent": "flats to rent",
    "buy": "flats to buy",
}
"""Each kind of feed in English words: the health JSON's `name` and the metrics' `feed`
label (the owner's /stats says it in the owner's language)."""


@dataclass(frozen=True, slots=True)
class FeedName:
    """What a feed reads, from its URL's path: a `kind` habicht knows, or None (a feed of a
    path this code does not know, named by its `path`)."""

    kind: FeedKind | None
    path: str

    @property
    def words(self) -> str:
        """In English words, or the path itself."""
        return self.path if self.kind is None else FEED_WORDS[self.kind]


def feed_name(url: str) -> FeedName:
    """The name of the feed at `url`, from its path (a trailing slash ignored)."""
    path = urlsplit(url).path.rstrip("/") or "/"
    return FeedName(_FEED_PATHS.get(path), path)


def is_real_estate(url: str) -> bool:
    """Whether the search at `url` is a real-estate one (its path starts `/iad/immobilien/`)."""
    return urlsplit(url).path.startswith(IMMOBILIEN)


@dataclass(frozen=True, slots=True)
class FeedLoad:
    """One feed: `searches` with an active watch that are its (local, `searches.feed_id`),
    `served` of them a read of it serves now — none while it is switched off or has one
    search alone (`LIVE_FEEDS`), fewer when a coverage miss sent some back to polling —
    the coverage misses counted on it (`feeds.coverage_misses`), the feed misses counted on
    its searches, and `off_for`: the seconds it stays switched off (None while it is on)."""

    id: int
    url: str
    searches: int
    served: int
    coverage_misses: int
    feed_misses: int
    off_for: float | None

    @property
    def name(self) -> FeedName:
        return feed_name(self.url)

    def as_dict(self) -> dict[str, Any]:
        """One feed in the JSON `habicht health` prints."""
        return {
            "name": self.name.words,
            "url": self.url,
            "searches": self.searches,
            "searches_served": self.served,
            "coverage_misses": self.coverage_misses,
            "feed_misses": self.feed_misses,
            "off": self.off_for is not None,
            "off_for_seconds": _rounded(self.off_for),
        }


_FEEDS = f"""
SELECT f.id, f.url, f.coverage_misses,
    CASE WHEN f.off_until > :now THEN f.off_until - :now END AS off_for,
    (SELECT count(*) FROM searches s WHERE s.feed_id = f.id AND {ACTIVE}) AS searches,
    (SELECT count(*) FROM searches s WHERE s.feed_id = f.id AND {FED} AND {ACTIVE}) AS served,
    (SELECT coalesce(sum(s.feed_misses), 0) FROM searches s WHERE s.feed_id = f.id)
        AS feed_misses
FROM feeds f ORDER BY f.id
"""

_PLAIN = f"SELECT s.url FROM searches s WHERE s.local = 0 AND {ACTIVE}"
"""The plain searches with an active watch: no feed can serve them."""


async def feed_loads(db: Database, *, now: float) -> list[FeedLoad]:
    """Every feed habicht keeps (one per category its local searches share), oldest first."""
    return [
        FeedLoad(
            id=row["id"],
            url=row["url"],
            searches=row["searches"],
            served=row["served"],
            coverage_misses=row["coverage_misses"],
            feed_misses=row["feed_misses"],
            off_for=row["off_for"],
        )
        for row in await db.fetchall(_FEEDS, {"now": now})
    ]


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
    `feeds_off` the feeds switched off for them. `plain` searches no feed can serve,
    `plain_real_estate` of them real-estate ones, and `by_feed` each feed (`FeedLoad`) —
    these three with feeds on only. Ages are None where there is nothing to age."""

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
    plain: int = 0
    plain_real_estate: int = 0
    by_feed: Sequence[FeedLoad] = field(default_factory=tuple)

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
            "searches_plain": self.plain,
            "searches_plain_real_estate": self.plain_real_estate,
            "per_feed": [feed.as_dict() for feed in self.by_feed],
        }


def _rounded(seconds: float | None) -> float | None:
    return None if seconds is None else round(max(0.0, seconds), 1)


async def workload(db: Database, *, now: float, cadence: FeedCadence | None) -> Workload:
    """The budget's work now; with `cadence` None (feeds off) every search is polled, and
    none is plain or fed."""
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
    plain = [url for (url,) in await db.fetchall(_PLAIN)]
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
        plain=len(plain),
        plain_real_estate=sum(map(is_real_estate, plain)),
        by_feed=await feed_loads(db, now=now),
    )
