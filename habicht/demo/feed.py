"""What a scrape pass's feed read did, for the story: how many watches its one request
served, and how soon after the adverts appeared its alerts were queued — counted in the
database, like the rest of the demo's account."""

from __future__ import annotations

from dataclasses import dataclass

from habicht.db import Database

__all__ = ["FeedServed", "feed_served"]


@dataclass(frozen=True)
class FeedServed:
    """One feed read: `watches` of `searches` served, `alerts` new-listing alerts from it,
    the `slowest` of them queued that many seconds after its advert's `PUBLISHED`."""

    watches: int
    searches: int
    alerts: int
    slowest: float

    def story(self) -> str:
        served = f"one request served {self.watches} watches of {self.searches} searches"
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
WHERE s.feed_id = ? AND w.status = 'active' AND c.status = 'active'
  AND w.baseline_at IS NOT NULL
"""

_ALERTS = """
SELECT count(*) AS alerts, coalesce(max(n.created_at - l.published_at), 0) AS slowest
FROM notifications n JOIN listings l ON l.ad_id = n.ad_id
WHERE n.source = 'feed' AND n.kind = 'new' AND n.created_at >= ?
"""


async def feed_served(db: Database, *, since: float) -> FeedServed | None:
    """The feed read since `since`, or None when no feed was read."""
    feed = await db.fetchall("SELECT id FROM feeds WHERE last_success_at >= ?", (since,))
    if not feed:
        return None
    served = (await db.fetchall(_SERVED, (feed[0]["id"],)))[0]
    alerts = (await db.fetchall(_ALERTS, (since,)))[0]
    return FeedServed(served["watches"], served["searches"], alerts["alerts"], alerts["slowest"])
