"""What a scrape pass's feed reads did, for the story: for each feed read, how many watches
its one request served, and how soon after the adverts appeared its alerts were queued —
counted in the database, like the rest of the demo's account.

The demo has two feeds once Lena watches her flats: the marketplace's newest adverts (the
graphics cards and the sofas) and the newest flats to rent (her two searches); each reads
its own line.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qsl, urlsplit

from habicht.db import Database
from habicht.scraper.figures import FeedKind
from habicht.scraper.figures import feed_name as feed_kind

__all__ = ["FeedServed", "feed_name", "feeds_served"]

_STORY_NAMES: dict[FeedKind, str] = {
    "marketplace": "the marketplace's newest",
    "rent": "the newest flats to rent",
    "buy": "the newest flats to buy",
}


def feed_name(url: str) -> str | None:
    """The story's name of a feed's URL (a category's newest-first page without filters:
    nothing in the query but `sort`, `rows` and `page`), or None for any other URL."""
    parts = urlsplit(url)
    if {name for name, _ in parse_qsl(parts.query)} - {"sort", "rows", "page"}:
        return None
    kind = feed_kind(url).kind
    return None if kind is None else _STORY_NAMES[kind]


@dataclass(frozen=True)
class FeedServed:
    """One feed read: the feed's `name`, `watches` of `searches` served, `alerts` new-listing
    alerts from it, the `slowest` of them queued that many seconds after its advert's
    `PUBLISHED`."""

    name: str
    watches: int
    searches: int
    alerts: int
    slowest: float

    def story(self) -> str:
        served = (
            f"{self.name}: one request served {self.watches} watches of {self.searches} searches"
        )
        if not self.alerts:
            return f"{served}: nothing new for them"
        alerts = "1 alert" if self.alerts == 1 else f"{self.alerts} alerts"
        soon = " — within the minute" if self.slowest <= 60 else ""
        return (
            f"{served}: {alerts} from the feed, the slowest queued {self.slowest:.0f} s after"
            f" its advert appeared{soon}"
        )


_SERVED = """
SELECT count(*) AS watches, count(DISTINCT s.id) AS searches
FROM watches w JOIN searches s ON s.id = w.search_id JOIN chats c ON c.chat_id = w.chat_id
WHERE s.feed_id = :feed AND w.status = 'active' AND c.status = 'active'
  AND w.baseline_at IS NOT NULL
"""

_ALERTS = """
SELECT count(*) AS alerts, coalesce(max(n.created_at - l.published_at), 0) AS slowest
FROM notifications n JOIN listings l ON l.ad_id = n.ad_id
WHERE n.source = 'feed' AND n.kind = 'new' AND n.created_at >= :since
  AND EXISTS (
    SELECT 1 FROM notification_watches nw
    JOIN watches w ON w.id = nw.watch_id JOIN searches s ON s.id = w.search_id
    WHERE nw.notification_id = n.id AND s.feed_id = :feed
  )
"""


async def feeds_served(db: Database, *, since: float) -> list[FeedServed]:
    """The feeds read since `since`, in the order they were made (none: no feed was read)."""
    feeds = await db.fetchall(
        "SELECT id, url FROM feeds WHERE last_success_at >= ? ORDER BY id", (since,)
    )
    served = []
    for feed in feeds:
        args = {"feed": feed["id"], "since": since}
        watches = (await db.fetchall(_SERVED, args))[0]
        alerts = (await db.fetchall(_ALERTS, args))[0]
        served.append(
            FeedServed(
                feed_name(feed["url"]) or feed["url"],
                watches["watches"],
                watches["searches"],
                alerts["alerts"],
                alerts["slowest"],
            )
        )
    return served
