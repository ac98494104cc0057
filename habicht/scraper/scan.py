"""One scrape cycle: fetch each watched search once, and record what changed in the outbox.

Per search, everything happens in ONE transaction: upsert the listings, compute the events of
every watch on it, render their texts, enqueue them (dedupe keys of DESIGN.md), record what
each watch has seen and the search's health. A crash before the commit loses nothing; after
it, the outbox holds the alerts and a re-run finds nothing new.

A watch's first successful scan is a silent baseline: its listings are recorded, no alerts,
and one `info` message says how many listings it now watches. A failed fetch or a layout
error writes only the search's health — no events, and every watch's state stays as it was.
While willhaben's block backoff lasts, the remaining searches are skipped, not failed.

Any other exception while scanning one search (a bug, a renderer that raises, a page we
cannot handle) is logged with its traceback and counted as a "layout" failure of that search
— its transaction rolls back, so it changes nothing else — and the cycle goes on with the
next search: one bad search never stops the others.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Protocol

import aiosqlite

from habicht.clock import Clock
from habicht.db import Database
from habicht.queue import Outgoing, enqueue_within
from habicht.scraper.diff import NewListing, diff
from habicht.scraper.errors import ErrorKind, ScrapeError
from habicht.scraper.fetch import WillhabenClient
from habicht.scraper.parse import Listing, SearchPage

__all__ = ["FAILING_AFTER", "Renderer", "ScanSummary", "SearchFailure", "scan"]

log = logging.getLogger(__name__)

FAILING_AFTER = 3
"""Failed cycles in a row after which a search is reported to the owner."""


class Renderer(Protocol):
    """Turns events into message texts; the bot's implementation writes escaped HTML.

    `for_chat` gives the renderer of one chat's texts (its language, its alert style); the
    scan asks for it per watch, so each alert is written as its chat wants it.
    """

    def for_chat(self, chat_id: int) -> Renderer: ...

    def new_listing(self, listing: Listing) -> str: ...

    def price_drop(self, listing: Listing, old: Decimal, new: Decimal) -> str: ...

    def baseline(self, label: str, count: int) -> str: ...


@dataclass(frozen=True, slots=True)
class SearchFailure:
    """A search whose scan failed this cycle, and how many cycles in a row it has failed."""

    search_id: int
    url: str
    kind: ErrorKind
    message: str
    consecutive_failures: int


@dataclass(frozen=True, slots=True)
class ScanSummary:
    """What one cycle did.

    `failing` are the searches that have now failed `FAILING_AFTER` or more cycles in a row;
    `newly_failing` those whose streak reached it in this scan (alert the owner once), and
    `recovered` the URLs of searches that succeeded after such a streak. Both read the streak
    as the database holds it when this scan writes it, so a baseline scan of the same search
    running beside a cycle neither hides nor repeats a crossing: exactly one scan sees it.
    `paused_until` is set while the site-wide block backoff lasts; `skipped` searches were
    not tried because of it.
    """

    scanned: int = 0
    failed: list[SearchFailure] = field(default_factory=list)
    skipped: int = 0
    new: int = 0
    drops: int = 0
    baselines: int = 0
    duration: float = 0.0
    failing: list[SearchFailure] = field(default_factory=list)
    newly_failing: list[SearchFailure] = field(default_factory=list)
    recovered: list[str] = field(default_factory=list)
    paused_until: float | None = None


@dataclass(frozen=True, slots=True)
class _Search:
    id: int
    url: str
    consecutive_failures: int


@dataclass(slots=True)
class _Counts:
    new: int = 0
    drops: int = 0
    baselines: int = 0

    def add(self, other: _Counts) -> None:
        self.new += other.new
        self.drops += other.drops
        self.baselines += other.baselines


_DUE = """
SELECT s.id, s.url, s.consecutive_failures FROM searches s
WHERE EXISTS (
    SELECT 1 FROM watches w JOIN chats c ON c.chat_id = w.chat_id
    WHERE w.search_id = s.id AND w.status = 'active' AND c.status = 'active'
)
ORDER BY s.id
"""


async def scan(
    db: Database,
    client: WillhabenClient,
    renderer: Renderer,
    *,
    clock: Clock,
    max_attempts: int,
    search_ids: Sequence[int] | None = None,
    progress: Callable[[], object] | None = None,
) -> ScanSummary:
    """Scan every search with an active watch of an active chat (or only `search_ids`).

    `max_attempts` is HABICHT_MAX_ATTEMPTS, stored on each enqueued notification.
    `progress` is called after each search tried, so a long cycle of many searches can show
    that it is getting somewhere (the bot's heartbeat and watchdog).
    """
    started = clock()
    rows = await db.fetchall(_DUE)
    searches = [_Search(row["id"], row["url"], row["consecutive_failures"]) for row in rows]
    if search_ids is not None:
        wanted = set(search_ids)
        searches = [search for search in searches if search.id in wanted]
    scanned = skipped = 0
    counts = _Counts()
    failed: list[SearchFailure] = []
    recovered: list[str] = []
    for search in searches:
        if client.paused_until is not None:
            skipped += 1
            continue
        found = _Counts()  # added to the cycle's counts only once the transaction commits
        try:
            page = await client.search(search.url)
            async with db.transaction() as conn:
                streak = await _record_page(
                    conn,
                    search,
                    page,
                    renderer=renderer,
                    counts=found,
                    now=clock(),
                    max_attempts=max_attempts,
                )
        except ScrapeError as exc:
            log.warning("search %d failed (%s): %s", search.id, exc.kind, exc)
            failed.append(await _record_failure(db, search, exc.kind, str(exc), now=clock()))
            continue
        except Exception as exc:  # a bug or a page we cannot handle: the next search still runs
            log.exception("search %d: unexpected error, counted as a layout failure", search.id)
            message = f"unexpected {type(exc).__name__}: {exc}"
            failed.append(await _record_failure(db, search, "layout", message, now=clock()))
            continue
        finally:
            if progress is not None:
                progress()
        counts.add(found)
        scanned += 1
        if streak >= FAILING_AFTER:
            recovered.append(search.url)
    failing = [f for f in failed if f.consecutive_failures >= FAILING_AFTER]
    return ScanSummary(
        scanned=scanned,
        failed=failed,
        skipped=skipped,
        new=counts.new,
        drops=counts.drops,
        baselines=counts.baselines,
        duration=clock() - started,
        failing=failing,
        # The streak grows by one per failed scan, so exactly one scan crosses the mark.
        newly_failing=[f for f in failing if f.consecutive_failures == FAILING_AFTER],
        recovered=recovered,
        paused_until=client.paused_until,
    )


async def _record_failure(
    db: Database, search: _Search, kind: ErrorKind, message: str, *, now: float
) -> SearchFailure:
    """Only the search's health changes: no events, every watch keeps its state.

    The streak is the one the database now holds (RETURNING): another scan of the same search
    may have counted a failure since this cycle read it.
    """
    async with (
        db.transaction() as conn,
        conn.execute(
            "UPDATE searches SET last_attempt_at = ?, consecutive_failures ="
            " consecutive_failures + 1, last_error_kind = ?, last_error = ? WHERE id = ?"
            " RETURNING consecutive_failures",
            (now, kind, message, search.id),
        ) as cursor,
    ):
        row = await cursor.fetchone()
    return SearchFailure(
        search_id=search.id,
        url=search.url,
        kind=kind,
        message=message,
        consecutive_failures=search.consecutive_failures + 1 if row is None else row[0],
    )


def _money(value: Decimal | None) -> str | None:
    """A price as stored and put in dedupe keys: `400`, never `4E+2` or `400.00`."""
    return None if value is None else format(value.normalize(), "f")


async def _record_page(
    conn: aiosqlite.Connection,
    search: _Search,
    page: SearchPage,
    *,
    renderer: Renderer,
    counts: _Counts,
    now: float,
    max_attempts: int,
) -> int:
    """Everything one successful fetch changes, inside the caller's transaction; returns the
    failure streak this success ended (as the database held it)."""
    await _upsert_listings(conn, page.listings, now)
    async with conn.execute(
        "SELECT consecutive_failures FROM searches WHERE id = ?", (search.id,)
    ) as cursor:
        row = await cursor.fetchone()
    streak: int = search.consecutive_failures if row is None else row[0]
    await conn.execute(
        "UPDATE searches SET last_attempt_at = ?, last_success_at = ?, consecutive_failures = 0,"
        " last_error_kind = NULL, last_error = NULL, last_count = ? WHERE id = ?",
        (now, now, len(page.listings), search.id),
    )
    async with conn.execute(
        "SELECT w.id, w.chat_id, w.label, w.baseline_at FROM watches w"
        " JOIN chats c ON c.chat_id = w.chat_id"
        " WHERE w.search_id = ? AND w.status = 'active' AND c.status = 'active' ORDER BY w.id",
        (search.id,),
    ) as cursor:
        watches = list(await cursor.fetchall())
    outgoing: list[Outgoing] = []
    for watch in watches:
        chat_renderer = renderer.for_chat(watch["chat_id"])
        if watch["baseline_at"] is None:
            counts.baselines += 1
            text = chat_renderer.baseline(watch["label"], len(page.listings))
            # One note per baseline: a resumed watch is baselined (and told) again.
            key = f"baseline:{watch['id']}:{now:.3f}"
            outgoing.append(Outgoing(watch["chat_id"], "info", text, key))
            await conn.execute(
                "UPDATE watches SET baseline_at = ? WHERE id = ?", (now, watch["id"])
            )
        else:
            outgoing.extend(await _events(conn, watch, page, renderer=chat_renderer, counts=counts))
        await conn.executemany(
            "INSERT INTO watch_listings (watch_id, ad_id, last_price, first_seen_at)"
            " VALUES (?, ?, ?, ?)"
            " ON CONFLICT (watch_id, ad_id) DO UPDATE SET last_price = excluded.last_price",
            [(watch["id"], listing.id, _money(listing.price), now) for listing in page.listings],
        )
    await enqueue_within(conn, outgoing, now=now, max_attempts=max_attempts)
    return streak


async def _events(
    conn: aiosqlite.Connection,
    watch: sqlite3.Row,
    page: SearchPage,
    *,
    renderer: Renderer,
    counts: _Counts,
) -> list[Outgoing]:
    """The rendered alerts of one watch for this page."""
    watch_id, chat_id = watch["id"], watch["chat_id"]
    page_ids = json.dumps([listing.id for listing in page.listings])
    async with conn.execute(
        "SELECT ad_id, last_price FROM watch_listings"
        " WHERE watch_id = ? AND ad_id IN (SELECT value FROM json_each(?))",
        (watch_id, page_ids),
    ) as cursor:
        seen = {
            row["ad_id"]: None if row["last_price"] is None else Decimal(row["last_price"])
            for row in await cursor.fetchall()
        }
    async with conn.execute(
        "SELECT MIN(CAST(ad_id AS INTEGER)) FROM watch_listings"
        " WHERE watch_id = ? AND ad_id NOT GLOB '*[^0-9]*'",
        (watch_id,),
    ) as cursor:
        row = await cursor.fetchone()
    oldest_seen = None if row is None else row[0]
    outgoing: list[Outgoing] = []
    events = diff(seen, page.listings, oldest_seen=oldest_seen, baseline_at=watch["baseline_at"])
    for event in events:
        ad_id = event.listing.id
        if isinstance(event, NewListing):
            counts.new += 1
            text = renderer.new_listing(event.listing)
            outgoing.append(Outgoing(chat_id, "new", text, f"new:{ad_id}:{chat_id}", ad_id))
        else:
            counts.drops += 1
            text = renderer.price_drop(event.listing, event.old, event.new)
            key = f"drop:{ad_id}:{chat_id}:{_money(event.new)}"
            outgoing.append(Outgoing(chat_id, "drop", text, key, ad_id))
    return outgoing


async def _upsert_listings(
    conn: aiosqlite.Connection, listings: Iterable[Listing], now: float
) -> None:
    """The latest known state of each advert; `first_seen_at` keeps its first value."""
    await conn.executemany(
        """
        INSERT INTO listings (ad_id, title, price, price_display, location, postcode, url,
                              image_url, published_at, first_seen_at, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (ad_id) DO UPDATE SET
            title = excluded.title, price = excluded.price,
            price_display = excluded.price_display, location = excluded.location,
            postcode = excluded.postcode, url = excluded.url, image_url = excluded.image_url,
            published_at = excluded.published_at, updated_at = excluded.updated_at
        """,
        [
            (
                listing.id,
                listing.title,
                _money(listing.price),
                listing.price_display,
                listing.location,
                listing.postcode,
                listing.url,
                listing.image_url,
                listing.published_at,
                now,
                now,
            )
            for listing in listings
        ],
    )
