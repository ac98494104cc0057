"""Shared category feeds: one request for a category's newest adverts serves every local
search of that category, matched here.

A search is *local* when habicht can decide for itself whether it lists an advert
(`habicht.willhaben.local`); its feed is its category's newest-first page (the marketplace root
for keyword watches). `assign_feeds` gives every search its kind and creates or drops the
feeds; the scheduler calls it before every choice, so a new watch's search is served from the
feed's first read after its baseline. A feed is *live* while two or more searches with an active
watch share it and it serves them — one search alone is cheaper polled on its own, a search
with a coverage miss is polled on its own for a while, and a feed whose searches keep missing
is switched off (`scraper.coverage`). A live feed is due every HABICHT_FEED_INTERVAL, ahead
of the searches (it serves many).

A feed is an optimisation, never the truth: the searches it serves are still scanned on their
own — every HABICHT_SCRAPE_INTERVAL while the budget has room, every HABICHT_SAFETY_INTERVAL
at the latest (`scraper.schedule`) — and what a feed read records never shortens such a scan
(`pages._bounded` anchors only on what the search's own scans showed).

A real-estate feed's page may hold the paid placement on top (and nothing else that is not
the category's, `willhaben.estate.stray`): it is dropped before anything else — never matched, never
an anchor, never remembered as shown.

`scan_feed` reads a feed as deep as its anchors need: page after page until one holds an
advert the feed showed before (not bumped, not reserved: it sits at its true date, so all that
is new is above it), up to `MAX_PAGES`; the first read of a feed is page 1. The date it
reached down to (`feeds.shown_since`) and what it showed settle the coverage candidates own
reads noted before it began (`coverage.settle`: a miss is proven by a read). Then the
adverts it has not shown before as they are now (`_unjudged`: new, cheaper or dearer, active
again) are matched to the searches the feed serves — outside the write transaction, in a
worker thread — and in ONE transaction it judges the adverts each search matches for every
baselined watch of that search exactly as the search's own scan would (`watches.judge`: new or
seen, bumped, reserved, drops, the watch's filter, muting, quiet hours, the same dedupe keys),
records them as seen by a feed for that watch and enqueues the alerts with source `feed` —
every search and watch of the read in one pass, a query per question for them all, not one
per search (`_judged`, issue 36). An advert that may repost one the search showed since its
latest own scan is left to that scan, requested at once (`reposts.feed_reposts`): only the
search's pages tell whether the older advert has left. So the search's own scan later finds
nothing new in them, and what the feed did not match — a word further down the description
than the snippet, a parameter habicht does not model — its own scan still sends (a *feed
miss*, counted on the search). The feed keeps what it needs to
judge: every advert it showed, by id and price, for `FEED_MEMORY` (its anchors, and what
tells a feed miss and a coverage miss apart), and the full adverts only of those some search
matched. Baselines stay the search's own: a feed knows only the newest adverts. A failed feed
read changes nothing but the feed's health.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass

import aiosqlite

from habicht.clock import Clock
from habicht.db import Database
from habicht.market.going import going_prices
from habicht.market.listings import record_listings, record_shown_by, take_back_shown
from habicht.market.reposts import feed_reposts
from habicht.message import Outgoing
from habicht.model import ErrorKind, Listing, money
from habicht.scraper.coverage import FEED_MEMORY, FeedReach, settle
from habicht.scraper.health import DATABASE_ERRORS
from habicht.scraper.pages import MAX_PAGES
from habicht.scraper.places import with_learned
from habicht.scraper.scan import Counts, Tally
from habicht.storage import log_database_error
from habicht.watches.follow import Following, observe
from habicht.watches.judge import (
    Renderer,
    WatchRead,
    active_watches,
    enqueue_alerts,
    judge,
)
from habicht.watches.notes import SearchFacts
from habicht.willhaben.errors import Blocked, ScrapeError
from habicht.willhaben.estate import stray
from habicht.willhaben.fetch import WillhabenClient
from habicht.willhaben.local import FeedMatcher, local_search
from habicht.willhaben.urls import PAGE_ROWS

__all__ = ["Feed", "assign_feeds", "scan_feed"]

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Feed:
    id: int
    url: str


async def assign_feeds(db: Database, *, now: float, prune: bool = False) -> None:
    """Give every search not yet classified its kind — local, with its category's feed, or
    plain; with `prune`, also drop the feeds no search uses any more."""
    rows = await db.fetchall("SELECT id, url FROM searches WHERE local IS NULL")
    if not rows and not prune:
        return
    async with db.transaction() as conn:
        for row in rows:
            search = local_search(row["url"])
            if search is None:
                await conn.execute("UPDATE searches SET local = 0 WHERE id = ?", (row["id"],))
                continue
            await conn.execute(
                "INSERT INTO feeds (url, created_at) VALUES (?, ?) ON CONFLICT (url) DO NOTHING",
                (search.feed, now),
            )
            await conn.execute(
                "UPDATE searches SET local = 1,"
                " feed_id = (SELECT id FROM feeds WHERE url = ?) WHERE id = ?",
                (search.feed, row["id"]),
            )
        if prune:
            await conn.execute(
                "DELETE FROM feeds"
                " WHERE NOT EXISTS (SELECT 1 FROM searches WHERE feed_id = feeds.id)"
            )


@dataclass(frozen=True, slots=True)
class _Read:
    """A feed read: its adverts, newest first, each once; and what it proves of the feed
    (`coverage.FeedReach`: when it began, what it showed, how deep it reached)."""

    listings: list[Listing]
    reach: FeedReach


FEED_BLOCK_BASE = 600.0
"""Seconds a feed whose own request was blocked waits before its next read, doubled for each
block in a row (as `WillhabenClient` backs off from willhaben as a whole)."""
FEED_BLOCK_CAP = 6 * 3600.0
"""The longest a blocked feed waits, whatever `Retry-After` says."""


async def scan_feed(
    db: Database,
    client: WillhabenClient,
    renderer: Renderer,
    feed: Feed,
    *,
    clock: Clock,
    max_attempts: int,
    tally: Tally,
    following: Following | None = None,
) -> ErrorKind | None:
    """Read one feed and judge what it shows for the searches it serves (module docstring);
    the kind of its failure, or None. A database error sets `tally.database_error`. With
    `following`, the read also keeps the alerts of the adverts it shows true."""
    found = Counts()
    try:
        read = await _read(db, client, feed, now=clock())
        searches = await db.fetchall(_SERVED, {"feed": feed.id, "now": clock()})
        matched = await asyncio.to_thread(_match, searches, await _unjudged(db, feed, read))
        async with db.transaction() as conn:
            now = clock()
            await _record(
                conn,
                feed,
                read,
                searches,
                matched,
                renderer,
                found,
                now,
                max_attempts,
                following,
            )
            if following is not None:
                await observe(conn, read.listings, renderer, now=now, following=following)
    except ScrapeError as exc:
        log.warning("feed %d failed (%s): %s", feed.id, exc.kind, exc)
        # Its own request refused, while willhaben as a whole is not backed off from.
        own = exc if isinstance(exc, Blocked) and client.paused_until is None else None
        return await _failed(db, feed, exc.kind, str(exc), now=clock(), tally=tally, block=own)
    except DATABASE_ERRORS as exc:
        log_database_error(log, exc, "feed %d: database error: %s", feed.id, exc)
        tally.database_error = f"{type(exc).__name__}: {exc}"
        return "database"
    except Exception as exc:  # a bug or a page we cannot handle: the searches still run
        log.exception("feed %d: unexpected error, counted as a layout failure", feed.id)
        message = f"unexpected {type(exc).__name__}: {exc}"
        return await _failed(db, feed, "layout", message, now=clock(), tally=tally)
    tally.counts.add(found)
    tally.feeds += 1
    return None


async def _read(db: Database, client: WillhabenClient, feed: Feed, *, now: float) -> _Read:
    """The feed's adverts, newest first, each once: pages until one holds an anchor. The read
    reached down to the date of the last unbumped advert of its deepest page (the page is
    sorted by date; a bumped advert may sit at its bump, and the paid placement on top,
    dropped as `stray`, sits at none) — or the whole feed when its pages held every row
    there is (`coverage.FeedReach`)."""
    known = await db.single_value(
        "SELECT EXISTS (SELECT 1 FROM feed_listings WHERE feed_id = ?)", (feed.id,)
    )
    found: dict[str, Listing] = {}
    floor = math.inf  # no dated advert read: it proves no date reached
    for number in range(1, MAX_PAGES + 1):
        page = await client.search(feed.url, page=number, own_block=True)
        kept = [listing for listing in page.listings if not stray(feed.url, listing)]
        for listing in kept:
            found.setdefault(listing.id, listing)
        if number * PAGE_ROWS >= page.rows_found:
            return _Read(list(found.values()), FeedReach(now, frozenset(found), None))
        dated = [listing.published_at for listing in kept if not listing.bumped]
        floor = next((date for date in reversed(dated) if date is not None), floor)
        if not page.listings or not known:
            break
        anchors = [listing.id for listing in kept if not listing.bumped]
        if await _anchored(db, feed, anchors):
            break
    return _Read(list(found.values()), FeedReach(now, frozenset(found), floor))


async def _unjudged(db: Database, feed: Feed, read: _Read) -> list[Listing]:
    """The active adverts of `read` the feed has not shown as they are now: new to it, at
    another price, or reserved when it last showed them. Only those can tell a watch anything
    a previous read did not (what a watch has seen stays seen); the rest — most of a read, the
    same newest adverts a minute later — are not matched nor judged again."""
    active = [listing for listing in read.listings if not listing.reserved]
    rows = await db.fetchall(
        "SELECT ad_id, price, reserved FROM feed_listings WHERE feed_id = ? AND ad_id IN"
        " (SELECT value FROM json_each(?))",
        (feed.id, json.dumps([listing.id for listing in active])),
    )
    shown = {row["ad_id"]: row["price"] for row in rows if not row["reserved"]}
    return [
        listing
        for listing in active
        if listing.id not in shown or shown[listing.id] != money(listing.price)
    ]


async def _anchored(db: Database, feed: Feed, ad_ids: list[str]) -> bool:
    """Whether the feed showed any of `ad_ids` before."""
    rows = await db.fetchall(
        "SELECT 1 FROM feed_listings WHERE feed_id = ? AND ad_id IN"
        " (SELECT value FROM json_each(?)) LIMIT 1",
        (feed.id, json.dumps(ad_ids)),
    )
    return bool(rows)


_SERVED = """
SELECT s.id, s.url, s.last_success_at,
    (SELECT group_concat(p.location_id, ' ') FROM search_places p WHERE p.search_id = s.id)
        AS places
FROM searches s
WHERE s.feed_id = :feed AND coalesce(s.polled_until, 0) <= :now
    AND EXISTS (SELECT 1 FROM watched_searches v WHERE v.search_id = s.id)
ORDER BY s.id
"""
"""The searches a feed read serves, with the places each learned (`scraper.places`; one
query for all): its own with an active watch, but for those a coverage
miss sent back to polling (`scraper.coverage`)."""


def _match(searches: Sequence[aiosqlite.Row], listings: list[Listing]) -> dict[int, list[Listing]]:
    """The adverts each search of `searches` lists, of `listings`, by search id (searches that
    list none left out), a flat search whose area is learned in the places it learned: CPU
    work, run in a worker thread (`FeedMatcher`)."""
    local = [
        (row["id"], with_learned(search, row["places"]))
        for row in searches
        if (search := local_search(row["url"]))
    ]
    return FeedMatcher(local).match(listings)


async def _record(
    conn: aiosqlite.Connection,
    feed: Feed,
    read: _Read,
    searches: Sequence[aiosqlite.Row],
    matched: dict[int, list[Listing]],
    renderer: Renderer,
    counts: Counts,
    now: float,
    max_attempts: int,
    following: Following | None,
) -> None:
    """Everything one feed read changes, inside the caller's transaction: `searches` are
    the ones it serves (`_SERVED`), `matched` the adverts each lists."""
    kept = {listing.id: listing for hits in matched.values() for listing in hits}
    await record_listings(conn, list(kept.values()), now=now)
    showing = {listing.id for listing in read.listings if not listing.reserved}
    outgoing = await _judged(conn, searches, matched, showing=showing, renderer=renderer, now=now)
    new, drops = await enqueue_alerts(
        conn, outgoing, now=now, max_attempts=max_attempts, following=following
    )
    counts.new += new
    counts.drops += drops
    await conn.execute(
        "UPDATE searches SET fed_since = :now WHERE feed_id = :feed AND fed_since IS NULL"
        " AND coalesce(polled_until, 0) <= :now",
        {"now": now, "feed": feed.id},
    )
    await conn.executemany(
        "INSERT INTO feed_listings (feed_id, ad_id, price, seen_at, reserved)"
        " VALUES (?, ?, ?, ?, ?) ON CONFLICT (feed_id, ad_id) DO UPDATE SET"
        " price = excluded.price, seen_at = excluded.seen_at, reserved = excluded.reserved",
        [
            (feed.id, listing.id, money(listing.price), now, listing.reserved)
            for listing in read.listings
        ],
    )
    await conn.execute(
        "DELETE FROM feed_listings WHERE feed_id = ? AND seen_at < ?", (feed.id, now - FEED_MEMORY)
    )
    await conn.execute(
        "UPDATE feeds SET last_attempt_at = :now, last_success_at = :now,"
        " consecutive_failures = 0, last_error = NULL, shown_since = :floor WHERE id = :feed",
        {"now": now, "floor": read.reach.floor, "feed": feed.id},
    )
    await settle(conn, feed.id, read.reach)


async def _judged(
    conn: aiosqlite.Connection,
    searches: Sequence[aiosqlite.Row],
    matched: dict[int, list[Listing]],
    *,
    showing: set[str],
    renderer: Renderer,
    now: float,
) -> list[Outgoing]:
    """The alerts of one feed read: the adverts it matched to each search of `searches`
    judged for every baselined watch of them, all in one pass — a statement for all the
    searches, not one a search (issue 36) — and its possible reposts left to their searches'
    own scans (`reposts.feed_reposts`; `showing`: the active adverts the read shows)."""
    reads = {row["id"]: hits for row in searches if (hits := matched.get(row["id"]))}
    if not reads:
        return []
    await record_shown_by(conn, reads, now=now)
    scanned_at = {row["id"]: min(now, row["last_success_at"] or now) for row in searches}
    reposts, possible = await feed_reposts(
        conn, reads, showing=showing, scanned_at=scanned_at, now=now
    )
    if any(possible.values()):
        await _leave_to_own_scans(conn, possible, now=now)
        reads = {
            search_id: [listing for listing in hits if listing.id not in possible[search_id]]
            for search_id, hits in reads.items()
        }
    going = await going_prices(conn, reads, now=now)
    facts = {search_id: SearchFacts(going[search_id], reposts[search_id]) for search_id in reads}
    watches = await active_watches(conn, reads)
    judged = [
        WatchRead(watch, reads[watch.search_id], facts[watch.search_id])
        for watch in watches
        if watch.baseline_at and reads[watch.search_id]
    ]
    return await judge(conn, judged, renderer=renderer, now=now, source="feed")


async def _leave_to_own_scans(
    conn: aiosqlite.Connection, possible: dict[int, set[str]], *, now: float
) -> None:
    """Leave each search's `possible` reposts to its own scan: their sighting, which this read
    just recorded (they are new to the search), is taken back — so the own scan shows them
    for the first time and judges them as new for its watches, reposts or not — and the
    search's own scan is requested at once (a request no chat made: `scraper.schedule`). The
    feed itself never judges them again: it has shown them at their price (`_unjudged`)."""
    await take_back_shown(conn, possible, since=now)
    await conn.execute(
        "UPDATE searches SET scan_requested_at = coalesce(scan_requested_at, ?)"
        " WHERE id IN (SELECT value FROM json_each(?))",
        (now, json.dumps(sorted(search_id for search_id, ads in possible.items() if ads))),
    )
    for search_id, ads in possible.items():
        for ad_id in sorted(ads):
            log.info(
                "feed: advert %s may repost one of search %d: its own scan judges it",
                ad_id,
                search_id,
            )


async def _failed(
    db: Database,
    feed: Feed,
    kind: ErrorKind,
    message: str,
    *,
    now: float,
    tally: Tally,
    block: Blocked | None = None,
) -> ErrorKind:
    """Only the feed's health changes; its searches are scanned on their own as ever. A
    `block` of its own request (with its `Retry-After`, if any) pauses the feed alone: not
    live until then, the n-th failure in a row for `FEED_BLOCK_BASE · 2^(n-1)` seconds, at
    least its `Retry-After`, at most `FEED_BLOCK_CAP`."""
    try:
        async with db.transaction() as conn:
            await conn.execute(
                "UPDATE feeds SET last_attempt_at = :now, consecutive_failures ="
                " consecutive_failures + 1, last_error = :error,"
                " blocked_until = CASE WHEN :blocked THEN :now + min(:cap, max(:retry_after,"
                " :base * (1 << min(consecutive_failures, 16)))) ELSE blocked_until END"
                " WHERE id = :id",
                {
                    "now": now,
                    "error": f"{kind}: {message}",
                    "blocked": block is not None,
                    "retry_after": (block.retry_after if block is not None else None) or 0.0,
                    "base": FEED_BLOCK_BASE,
                    "cap": FEED_BLOCK_CAP,
                    "id": feed.id,
                },
            )
    except DATABASE_ERRORS as exc:
        tally.database_error = tally.database_error or f"{type(exc).__name__}: {exc}"
    return kind
