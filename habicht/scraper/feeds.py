"""Shared category feeds: one request for a category's newest adverts serves every local
search of that category, matched here.

A search is *local* when habicht can decide for itself whether it lists an advert
(`habicht.scraper.local`); its feed is its category's newest-first page (the marketplace root
for keyword watches). `classify` gives every search its kind, once, and creates or drops the
feeds. A feed is *live* while two or more searches with an active watch share it — one search
alone is cheaper polled on its own, and a feed only pays when it replaces requests. A live
feed is due every HABICHT_FEED_INTERVAL, ahead of the searches (it serves many); a search a
live feed serves is still scanned on its own every HABICHT_SAFETY_INTERVAL, the safety net.

`scan_feed` reads a feed as deep as its anchors need: page after page until one holds an
advert the feed showed before (not bumped, not reserved: it sits at its true date, so all that
is new is above it), up to `MAX_PAGES`; the first read of a feed is page 1. Then, in ONE
transaction, it judges the adverts each local search matches for every baselined watch of
that search exactly as the search's own scan would (`scan.judge`: new or seen, bumped,
reserved, drops, the watch's filter, muting, quiet hours, the same dedupe keys), records them
as seen for that watch and enqueues the alerts with source `feed`. So the search's own scan
later finds nothing new in them, and what the feed did not match — a word further down the
description than the snippet, a parameter habicht does not model — its own scan still sends
(a *feed miss*, counted on the search). Baselines stay the search's own: a feed knows only
the newest adverts. A failed feed read changes nothing but the feed's health; the searches
it serves wait no longer than their safety net.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass

import aiosqlite

from habicht.clock import Clock
from habicht.db import Database
from habicht.queue import Outgoing
from habicht.scraper.errors import ErrorKind, ScrapeError
from habicht.scraper.fetch import WillhabenClient
from habicht.scraper.history import record_shown
from habicht.scraper.local import local_search
from habicht.scraper.notes import search_facts
from habicht.scraper.parse import Listing
from habicht.scraper.scan import (
    _ACTIVE_WATCHES,
    _DATABASE_ERRORS,
    MAX_PAGES,
    Renderer,
    Tally,
    _Counts,
    _money,
    enqueue_counted,
    judge,
    record_listings,
)
from habicht.scraper.urls import PAGE_ROWS

__all__ = ["FEED_MEMORY", "Feed", "classify", "scan_feed"]

log = logging.getLogger(__name__)

FEED_MEMORY = 86400.0
"""Seconds a feed remembers an advert since it last showed it (its anchors are its newest)."""


@dataclass(frozen=True, slots=True)
class Feed:
    id: int
    url: str


async def classify(db: Database, *, now: float) -> None:
    """Give every search not yet classified its kind — local, with its category's feed, or
    plain — and drop the feeds no search uses any more."""
    rows = await db.fetchall("SELECT id, url FROM searches WHERE local IS NULL")
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
        await conn.execute(
            "DELETE FROM feeds WHERE NOT EXISTS (SELECT 1 FROM searches WHERE feed_id = feeds.id)"
        )


async def scan_feed(
    db: Database,
    client: WillhabenClient,
    renderer: Renderer,
    feed: Feed,
    *,
    clock: Clock,
    max_attempts: int,
    tally: Tally,
) -> ErrorKind | None:
    """Read one feed and judge what it shows for its local searches (module docstring); the
    kind of its failure, or None. A database error sets `tally.database_error`."""
    found = _Counts()
    try:
        listings = await _read(db, client, feed)
        async with db.transaction() as conn:
            await _record(conn, feed, listings, renderer, found, clock(), max_attempts)
    except ScrapeError as exc:
        log.warning("feed %d failed (%s): %s", feed.id, exc.kind, exc)
        return await _failed(db, feed, exc.kind, str(exc), now=clock(), tally=tally)
    except _DATABASE_ERRORS as exc:
        log.error("feed %d: database error: %s", feed.id, exc, exc_info=True)
        tally.database_error = f"{type(exc).__name__}: {exc}"
        return "database"
    except Exception as exc:  # a bug or a page we cannot handle: the searches still run
        log.exception("feed %d: unexpected error, counted as a layout failure", feed.id)
        message = f"unexpected {type(exc).__name__}: {exc}"
        return await _failed(db, feed, "layout", message, now=clock(), tally=tally)
    tally.counts.add(found)
    tally.feeds += 1
    return None


async def _read(db: Database, client: WillhabenClient, feed: Feed) -> list[Listing]:
    """The feed's adverts, newest first, each once: pages until one holds an anchor."""
    known = await db.single_value(
        "SELECT EXISTS (SELECT 1 FROM feed_listings WHERE feed_id = ?)", (feed.id,)
    )
    found: dict[str, Listing] = {}
    for number in range(1, MAX_PAGES + 1):
        page = await client.search(feed.url, page=number)
        for listing in page.listings:
            found.setdefault(listing.id, listing)
        if not known or not page.listings or number * PAGE_ROWS >= page.rows_found:
            break
        anchors = [listing.id for listing in page.listings if not listing.bumped]
        if await _anchored(db, feed, anchors):
            break
    return list(found.values())


async def _anchored(db: Database, feed: Feed, ad_ids: list[str]) -> bool:
    """Whether the feed showed any of `ad_ids` before."""
    rows = await db.fetchall(
        "SELECT 1 FROM feed_listings WHERE feed_id = ? AND ad_id IN"
        " (SELECT value FROM json_each(?)) LIMIT 1",
        (feed.id, json.dumps(ad_ids)),
    )
    return bool(rows)


_FED_SEARCHES = """
SELECT s.id, s.url FROM searches s
WHERE s.feed_id = ? AND EXISTS (
    SELECT 1 FROM watches w JOIN chats c ON c.chat_id = w.chat_id
    WHERE w.search_id = s.id AND w.status = 'active' AND c.status = 'active'
)
ORDER BY s.id
"""


async def _record(
    conn: aiosqlite.Connection,
    feed: Feed,
    listings: list[Listing],
    renderer: Renderer,
    counts: _Counts,
    now: float,
    max_attempts: int,
) -> None:
    """Everything one feed read changes, inside the caller's transaction."""
    active = await record_listings(conn, listings, now=now)
    outgoing: list[Outgoing] = []
    async with conn.execute(_FED_SEARCHES, (feed.id,)) as cursor:
        searches = list(await cursor.fetchall())
    for search in searches:
        local = local_search(search["url"])
        matched = [listing for listing in active if local is not None and local.matches(listing)]
        if not matched:
            continue
        await record_shown(conn, search["id"], matched, now=now)
        facts = await search_facts(conn, search["id"], matched, now=now)
        async with conn.execute(_ACTIVE_WATCHES, (search["id"],)) as cursor:
            watches = [watch for watch in await cursor.fetchall() if watch["baseline_at"]]
        for watch in watches:
            outgoing += await judge(
                conn, watch, matched, facts, renderer=renderer, now=now, source="feed"
            )
    await enqueue_counted(conn, outgoing, counts=counts, now=now, max_attempts=max_attempts)
    await conn.executemany(
        "INSERT INTO feed_listings (feed_id, ad_id, price, seen_at) VALUES (?, ?, ?, ?)"
        " ON CONFLICT (feed_id, ad_id) DO UPDATE SET price = excluded.price,"
        " seen_at = excluded.seen_at",
        [(feed.id, listing.id, _money(listing.price), now) for listing in active],
    )
    await conn.execute(
        "DELETE FROM feed_listings WHERE feed_id = ? AND seen_at < ?", (feed.id, now - FEED_MEMORY)
    )
    await conn.execute(
        "UPDATE feeds SET last_attempt_at = ?, last_success_at = ?, consecutive_failures = 0,"
        " last_error = NULL WHERE id = ?",
        (now, now, feed.id),
    )


async def _failed(
    db: Database, feed: Feed, kind: ErrorKind, message: str, *, now: float, tally: Tally
) -> ErrorKind:
    """Only the feed's health changes; its searches wait for their safety net."""
    try:
        async with db.transaction() as conn:
            await conn.execute(
                "UPDATE feeds SET last_attempt_at = ?, consecutive_failures ="
                " consecutive_failures + 1, last_error = ? WHERE id = ?",
                (now, f"{kind}: {message}", feed.id),
            )
    except _DATABASE_ERRORS as exc:
        tally.database_error = tally.database_error or f"{type(exc).__name__}: {exc}"
    return kind
