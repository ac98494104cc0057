"""Coverage: a feed proves, search by search, that it lists what the search finds.

A feed (`scraper.feeds`) is an optimisation on an assumption no saved page proves: that the
marketplace's newest adverts hold every advert of each local search. Each search's own scan
checks it. A *coverage miss* is an advert the search's own read shows that its feed should
have shown and never did — all of these hold (keep in sync with docs/internals/feeds.md):

- the feed served the search when the advert was published (`searches.fed_since`), and its
  reads showed every advert it listed since then (`feeds.covered_since`: a read that did not
  reach an advert it showed before, after downtime or a flood, starts that span anew);
- a successful feed read came at least `SLACK` seconds after the advert's publication (the
  feed had its chance), and within the feed's memory of what it showed (`FEED_MEMORY`);
- the advert is not bumped (its date is the bump, not its publication) nor reserved;
- the feed never showed it (`feed_listings`).

It is not a *feed miss*, which the feed showed but could not match (a word further down the
description than the snippet): that one says the matching is cautious, a coverage miss says
the feed does not list the search at all. A search with a coverage miss goes back to plain
polling every HABICHT_SCRAPE_INTERVAL for `POLLED_FOR` and then earns the feed back, on
probation: its next miss sends it back again. A feed whose searches miss — at least
`OFF_AFTER` of them, and at least half of the searches it serves — is switched off for
`OFF_FOR`: every search of it is polled on its own, and the owner is told once (`FeedOff`).

Inside the caller's transaction; knows nothing of Telegram.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass

import aiosqlite

from habicht.model import Listing

__all__ = [
    "FEED_MEMORY",
    "OFF_AFTER",
    "OFF_FOR",
    "POLLED_FOR",
    "SLACK",
    "FeedOff",
    "check_coverage",
]

log = logging.getLogger(__name__)

FEED_MEMORY = 86400.0
"""Seconds a feed remembers an advert since it last showed it (its anchors are its newest)."""
SLACK = 120.0
"""Seconds after an advert's publication by which a feed read should have shown it."""
POLLED_FOR = 6 * 3600.0
"""Seconds a search with a coverage miss is polled on its own before its feed serves it again."""
OFF_AFTER = 2
"""Searches with a coverage miss that switch their feed off (if half of its searches or more)."""
OFF_FOR = 86400.0
"""Seconds a feed stays off once its searches kept missing."""


@dataclass(frozen=True, slots=True)
class FeedOff:
    """Feed `url` was switched off: `searches` of its searches found what it does not list."""

    url: str
    searches: int


_WINDOW = """
SELECT f.id, f.url, f.covered_since, f.last_success_at, s.fed_since
FROM searches s JOIN feeds f ON f.id = s.feed_id
WHERE s.id = ? AND s.fed_since IS NOT NULL AND f.covered_since IS NOT NULL
"""

_SHOWN = """
SELECT ad_id FROM feed_listings
WHERE feed_id = ? AND ad_id IN (SELECT value FROM json_each(?))
"""

# The searches of the feed with an active watch, and how many of them a miss sent to polling.
_MISSING = """
SELECT count(*) AS searches, coalesce(sum(s.polled_until > :now), 0) AS missing
FROM searches s
WHERE s.feed_id = :feed AND EXISTS (
    SELECT 1 FROM watches w JOIN chats c ON c.chat_id = w.chat_id
    WHERE w.search_id = s.id AND w.status = 'active' AND c.status = 'active'
)
"""


async def check_coverage(
    conn: aiosqlite.Connection, search_id: int, listings: Iterable[Listing], *, now: float
) -> tuple[int, FeedOff | None]:
    """The coverage misses among `listings` (what search `search_id`'s own read showed now),
    counted, and what follows from them (module docstring): the search polled on its own, and
    the feed switched off when this miss was one too many."""
    async with conn.execute(_WINDOW, (search_id,)) as cursor:
        feed = await cursor.fetchone()
    if feed is None or feed["last_success_at"] is None:
        return 0, None
    start = max(feed["fed_since"], feed["covered_since"], now - FEED_MEMORY + SLACK)
    end = feed["last_success_at"] - SLACK
    due = {
        listing.id
        for listing in listings
        if not (listing.bumped or listing.reserved)
        and listing.published_at is not None
        and start <= listing.published_at <= end
    }
    if not due:
        return 0, None
    async with conn.execute(_SHOWN, (feed["id"], json.dumps(sorted(due)))) as cursor:
        shown = {row[0] for row in await cursor.fetchall()}
    missed = sorted(due - shown)
    if not missed:
        return 0, None
    log.warning(
        "coverage miss: search %d finds %d advert(s) its feed %d never showed (%s); it is"
        " polled on its own again",
        search_id,
        len(missed),
        feed["id"],
        ", ".join(missed[:5]),
    )
    await conn.execute(
        "UPDATE searches SET coverage_misses = coverage_misses + ?, polled_until = ?,"
        " fed_since = NULL WHERE id = ?",
        (len(missed), now + POLLED_FOR, search_id),
    )
    await conn.execute(
        "UPDATE feeds SET coverage_misses = coverage_misses + ? WHERE id = ?",
        (len(missed), feed["id"]),
    )
    return len(missed), await _switched_off(conn, feed["id"], feed["url"], now=now)


async def _switched_off(
    conn: aiosqlite.Connection, feed_id: int, url: str, *, now: float
) -> FeedOff | None:
    """Switch the feed off when its searches keep missing (module docstring); the switch, or
    None if it stays on (or is already off)."""
    async with conn.execute(_MISSING, {"now": now, "feed": feed_id}) as cursor:
        row = await cursor.fetchone()
    assert row is not None  # an aggregate: one row, always
    if row["missing"] < OFF_AFTER or 2 * row["missing"] < row["searches"]:
        return None
    async with conn.execute(
        "UPDATE feeds SET off_until = ?, covered_since = NULL"
        " WHERE id = ? AND coalesce(off_until, 0) <= ? RETURNING id",
        (now + OFF_FOR, feed_id, now),
    ) as cursor:
        if await cursor.fetchone() is None:
            return None
    await conn.execute("UPDATE searches SET fed_since = NULL WHERE feed_id = ?", (feed_id,))
    log.warning(
        "feed %d (%s) is switched off: %d of its %d searches find adverts it does not list",
        feed_id,
        url,
        row["missing"],
        row["searches"],
    )
    return FeedOff(url, row["missing"])
