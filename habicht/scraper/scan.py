"""One scrape cycle: fetch each watched search once, and record what changed in the outbox.

`scan_search` is all the work of one search. It reads the search's pages newest first
(`PAGE_ROWS` adverts each), page after page while one may hide adverts a watch has not seen,
up to `MAX_PAGES`: a page may hide more when, for some active watch, no advert on it is one the
watch has seen and that is not bumped (such an advert sits at its true publishing date, so
everything new since the watch saw it is above it; a bumped one may sit above new adverts),
and `rowsFound` says there are more. A watch that needs its baseline reads as deep as the cap
allows. Then, in ONE transaction: upsert the listings, compute the events of every watch,
render their texts, enqueue them (dedupe keys of DESIGN.md), record what each watch has seen
and the search's health. A crash before the commit loses nothing; after it, the outbox holds
the alerts and a re-run finds nothing new.

A failed page — the first or a later one — fails the whole search for this cycle: nothing is
recorded, so the adverts of the pages that did arrive are judged again, with the rest, next
cycle (recording them alone would stop the next scan above the adverts the failed page held,
and those would never be seen). A missing page is never "those adverts are gone".

A watch's first successful scan is a silent baseline: its listings are recorded, no alerts,
and one `info` message says how many listings it now watches; the watch remembers whether
the baseline read the whole search (`baseline_complete`, see `diff`). A failed fetch or a
layout error writes only the search's health — no events, and every watch's state stays as
it was. While willhaben's block backoff lasts, the remaining searches are skipped, not failed.

Any other exception while scanning one search (a bug, a renderer that raises, a page we
cannot handle) is logged with its traceback and counted as a "layout" failure of that search
— its transaction rolls back, so it changes nothing else — and the cycle goes on with the
next search: one bad search never stops the others. A database error (locked past the busy
timeout, disk full) is the database's fault, not the page's: it is counted as a "database"
failure, and the scan stops cleanly — the next searches would only fail the same way.

`scan_search` is the scan of one search; `scan` runs it over every watched search in id
order (`habicht.scraper.schedule` runs it by due time instead).
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
from habicht.db import Database, DatabaseError
from habicht.queue import Buttons, Kind, Outgoing, enqueue_within
from habicht.scraper.diff import BumpedListing, NewListing, PriceDrop, diff
from habicht.scraper.errors import ErrorKind, ScrapeError
from habicht.scraper.fetch import WillhabenClient
from habicht.scraper.filters import WatchFilter, money
from habicht.scraper.history import (
    PricePoint,
    lowest_prices,
    price_paths,
    record_hits,
    record_prices,
)
from habicht.scraper.parse import Listing

__all__ = [
    "FAILING_AFTER",
    "MAX_PAGES",
    "Alert",
    "Renderer",
    "ScanSummary",
    "SearchFailure",
    "Tally",
    "scan",
    "scan_search",
]

log = logging.getLogger(__name__)

FAILING_AFTER = 3
"""Failed cycles in a row after which a search is reported to the owner."""

MAX_PAGES = 5
"""Pages one scan of a search reads at most (keep in sync with README "Scraper"): with
`PAGE_ROWS` = 200 a baseline knows searches of up to 1,000 adverts completely, and a search
can take 999 new or bumped adverts between two scans before one is missed."""


@dataclass(frozen=True, slots=True)
class Alert:
    """A rendered alert: its text (the caption, if it has a photo) and what else its message
    carries; the scan adds where it goes (the chat and the watch's forum topic)."""

    text: str
    photo_url: str | None = None
    buttons: Buttons = ()


class Renderer(Protocol):
    """Turns events into message texts; the bot's implementation writes escaped HTML.

    `for_chat` gives the renderer of one chat's texts (its language, its alert style); the
    scan asks for it per watch, so each alert is written as its chat wants it. An alert
    names its `watch_id`, so its buttons can act on that watch.
    """

    def for_chat(self, chat_id: int) -> Renderer: ...

    def new_listing(self, listing: Listing, *, watch_id: int, bumped: bool = False) -> Alert:
        """`bumped`: a `BumpedListing`, which the text must not call new."""
        ...

    def price_drop(
        self,
        listing: Listing,
        old: Decimal,
        new: Decimal,
        *,
        watch_id: int,
        path: Sequence[PricePoint] = (),
    ) -> Alert:
        """`path`: every price the advert was known at, oldest first, ending with `new`."""
        ...

    def digest_line(
        self,
        listing: Listing,
        *,
        drop: tuple[Decimal, Decimal] | None = None,
        bumped: bool = False,
    ) -> str:
        """The alert as one line of a digest (a new listing, or a drop from `drop`)."""
        ...

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
    not tried because of it (or because a database error stopped the scan, which
    `database_error` then describes).
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
    database_error: str | None = None


@dataclass(frozen=True, slots=True)
class _Search:
    id: int
    url: str
    consecutive_failures: int


@dataclass(slots=True)
class _Counts:
    """What a scan queued: alerts actually enqueued (not ones the dedupe keys refused)."""

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
    tally = Tally()
    for search in searches:
        if client.paused_until is not None:
            tally.skipped += 1
            continue
        try:
            await scan_search(
                db, client, renderer, search, clock=clock, max_attempts=max_attempts, tally=tally
            )
        finally:
            if progress is not None:
                progress()
        if tally.database_error is not None:
            tally.skipped += len(searches) - tally.tried
            break
    return tally.summary(duration=clock() - started, paused_until=client.paused_until)


@dataclass(slots=True)
class Tally:
    """What the scans of one cycle or scheduler pass did so far; `summary()` freezes it."""

    scanned: int = 0
    skipped: int = 0
    counts: _Counts = field(default_factory=_Counts)
    failed: list[SearchFailure] = field(default_factory=list)
    recovered: list[str] = field(default_factory=list)
    database_error: str | None = None

    @property
    def tried(self) -> int:
        return self.scanned + len(self.failed)

    def summary(self, *, duration: float, paused_until: float | None) -> ScanSummary:
        failing = [f for f in self.failed if f.consecutive_failures >= FAILING_AFTER]
        return ScanSummary(
            scanned=self.scanned,
            failed=self.failed,
            skipped=self.skipped,
            new=self.counts.new,
            drops=self.counts.drops,
            baselines=self.counts.baselines,
            duration=duration,
            failing=failing,
            # The streak grows by one per failed scan, so exactly one scan crosses the mark.
            newly_failing=[f for f in failing if f.consecutive_failures == FAILING_AFTER],
            recovered=self.recovered,
            paused_until=paused_until,
            database_error=self.database_error,
        )


_DATABASE_ERRORS = (sqlite3.Error, DatabaseError)
"""Locked past the busy timeout, disk full, closed: the database's fault, not the page's."""


async def scan_search(
    db: Database,
    client: WillhabenClient,
    renderer: Renderer,
    search: _Search,
    *,
    clock: Clock,
    max_attempts: int,
    tally: Tally,
) -> ErrorKind | None:
    """Fetch one search and record what changed (see the module docstring); the kind of its
    failure, or None. A database error also sets `tally.database_error`: the caller stops."""
    found = _Counts()  # added to the tally only once the transaction commits
    try:
        listings, complete = await _read_pages(db, client, search)
        async with db.transaction() as conn:
            streak = await _record_page(
                conn,
                search,
                listings,
                complete=complete,
                renderer=renderer,
                counts=found,
                now=clock(),
                max_attempts=max_attempts,
            )
    except ScrapeError as exc:
        log.warning("search %d failed (%s): %s", search.id, exc.kind, exc)
        return await _failed(db, search, exc.kind, str(exc), clock=clock, tally=tally)
    except _DATABASE_ERRORS as exc:
        log.error("search %d: database error: %s", search.id, exc, exc_info=True)
        tally.database_error = f"{type(exc).__name__}: {exc}"
        return await _failed(db, search, "database", tally.database_error, clock=clock, tally=tally)
    except Exception as exc:  # a bug or a page we cannot handle: the next search still runs
        log.exception("search %d: unexpected error, counted as a layout failure", search.id)
        message = f"unexpected {type(exc).__name__}: {exc}"
        return await _failed(db, search, "layout", message, clock=clock, tally=tally)
    tally.counts.add(found)
    tally.scanned += 1
    if streak >= FAILING_AFTER:
        tally.recovered.append(search.url)
    return None


async def _failed(
    db: Database, search: _Search, kind: ErrorKind, message: str, *, clock: Clock, tally: Tally
) -> ErrorKind:
    """Count the failure in `tally` and, if the database lets us, in the search's health."""
    try:
        failure = await _record_failure(db, search, kind, message, now=clock())
    except _DATABASE_ERRORS as exc:
        log.error("search %d: its failure could not be recorded: %s", search.id, exc)
        tally.database_error = tally.database_error or f"{type(exc).__name__}: {exc}"
        failure = SearchFailure(search.id, search.url, kind, message, search.consecutive_failures)
    tally.failed.append(failure)
    return kind


_ACTIVE_WATCHES = (
    "SELECT w.id, w.chat_id, w.label, w.baseline_at, w.baseline_complete, w.filters,"
    " w.thread_id, w.muted_until"
    " FROM watches w"
    " JOIN chats c ON c.chat_id = w.chat_id"
    " WHERE w.search_id = ? AND w.status = 'active' AND c.status = 'active' ORDER BY w.id"
)


async def _read_pages(
    db: Database, client: WillhabenClient, search: _Search
) -> tuple[list[Listing], bool]:
    """The adverts of the pages worth reading (module docstring), newest first, each once;
    and whether they are the whole search."""
    watches = await db.fetchall(_ACTIVE_WATCHES, (search.id,))
    deep = any(watch["baseline_at"] is None for watch in watches)
    open_watches = {watch["id"] for watch in watches}
    found: dict[str, Listing] = {}
    read = 0
    for number in range(1, MAX_PAGES + 1):
        page = await client.search(search.url, page=number)
        read += len(page.listings)
        for listing in page.listings:
            found.setdefault(listing.id, listing)
        if not page.listings or read >= page.rows_found:
            return list(found.values()), read >= page.rows_found
        if not deep:
            open_watches -= await _bounded(db, open_watches, page.listings)
            if not open_watches:
                break
    if open_watches and not deep:  # a baseline stopping at the cap is recorded, not a loss
        log.warning(
            "search %d: page %d may still hide unseen adverts, and no more pages are read",
            search.id,
            MAX_PAGES,
        )
    return list(found.values()), False


async def _bounded(db: Database, watch_ids: set[int], listings: list[Listing]) -> set[int]:
    """The watches that have seen an unbumped, active advert of this page: nothing new to
    them lies below it."""
    anchors = [listing.id for listing in listings if not (listing.bumped or listing.reserved)]
    if not watch_ids or not anchors:
        return set()
    rows = await db.fetchall(
        "SELECT DISTINCT watch_id FROM watch_listings"
        " WHERE watch_id IN (SELECT value FROM json_each(?))"
        " AND ad_id IN (SELECT value FROM json_each(?))",
        (json.dumps(sorted(watch_ids)), json.dumps(anchors)),
    )
    return {row["watch_id"] for row in rows}


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
    """A price as stored and put in dedupe keys (`money`); None stays None."""
    return None if value is None else money(value)


async def _record_page(
    conn: aiosqlite.Connection,
    search: _Search,
    listings: list[Listing],
    *,
    complete: bool,
    renderer: Renderer,
    counts: _Counts,
    now: float,
    max_attempts: int,
) -> int:
    """Everything one successful read changes, inside the caller's transaction; returns the
    failure streak this success ended (as the database held it).

    Reserved adverts are not on the page for any watch (see `diff`): they are kept in
    `listings` only. A watch keeps the last price it knew when an advert shows none.
    """
    await _upsert_listings(conn, listings, now)
    active = [listing for listing in listings if not listing.reserved]
    priced = [(listing.id, _money(listing.price)) for listing in active]
    await record_prices(conn, [(ad_id, price) for ad_id, price in priced if price], now=now)
    async with conn.execute(
        "SELECT consecutive_failures FROM searches WHERE id = ?", (search.id,)
    ) as cursor:
        row = await cursor.fetchone()
    streak: int = search.consecutive_failures if row is None else row[0]
    await conn.execute(
        "UPDATE searches SET last_attempt_at = ?, last_success_at = ?, consecutive_failures = 0,"
        " last_error_kind = NULL, last_error = NULL, last_count = ? WHERE id = ?",
        (now, now, len(listings), search.id),
    )
    async with conn.execute(_ACTIVE_WATCHES, (search.id,)) as cursor:
        watches = list(await cursor.fetchall())
    outgoing: list[Outgoing] = []
    for watch in watches:
        chat_renderer = renderer.for_chat(watch["chat_id"])
        if watch["baseline_at"] is None:
            counts.baselines += 1
            text = chat_renderer.baseline(watch["label"], len(active))
            # One note per baseline: a resumed watch is baselined (and told) again.
            key = f"baseline:{watch['id']}:{now:.3f}"
            outgoing.append(Outgoing(watch["chat_id"], "info", text, key))
            await conn.execute(
                "UPDATE watches SET baseline_at = ?, baseline_complete = ? WHERE id = ?",
                (now, complete, watch["id"]),
            )
        else:
            events = await _events(conn, watch, active, renderer=chat_renderer, now=now)
            if (watch["muted_until"] or 0.0) <= now:  # a muted watch sees, and says nothing
                outgoing.extend(events)
        await conn.executemany(
            "INSERT INTO watch_listings (watch_id, ad_id, last_price, first_seen_at)"
            " VALUES (?, ?, ?, ?) ON CONFLICT (watch_id, ad_id)"
            " DO UPDATE SET last_price = COALESCE(excluded.last_price, last_price)",
            [(watch["id"], listing.id, _money(listing.price), now) for listing in active],
        )
    queued = {
        kind: await enqueue_within(
            conn,
            [item for item in outgoing if item.kind == kind],
            now=now,
            max_attempts=max_attempts,
        )
        for kind in ("info", "new", "drop")
    }
    counts.new += queued["new"]
    counts.drops += queued["drop"]
    return streak


async def _events(
    conn: aiosqlite.Connection,
    watch: sqlite3.Row,
    listings: list[Listing],
    *,
    renderer: Renderer,
    now: float,
) -> list[Outgoing]:
    """The rendered alerts of one watch for the pages read (reserved adverts left out),
    through the watch's own filter.

    A drop's dedupe key holds both prices: each distinct (old, new) drop of an advert is one
    alert per chat, and the same pair is never sent twice. What the filter holds back is
    noted as a hit of the rule that held it (for /list); the caller records it as seen like
    everything else on the pages, so loosening the filter later sends none of it.
    """
    watch_id, chat_id = watch["id"], watch["chat_id"]
    page_ids = json.dumps([listing.id for listing in listings])
    async with conn.execute(
        "SELECT ad_id, last_price FROM watch_listings"
        " WHERE watch_id = ? AND ad_id IN (SELECT value FROM json_each(?))",
        (watch_id, page_ids),
    ) as cursor:
        seen = {
            row["ad_id"]: None if row["last_price"] is None else Decimal(row["last_price"])
            for row in await cursor.fetchall()
        }
    events = diff(
        seen,
        listings,
        baseline_at=watch["baseline_at"],
        baseline_complete=bool(watch["baseline_complete"]),
    )
    watch_filter = WatchFilter.from_json(watch["filters"])
    drops = [event.listing.id for event in events if isinstance(event, PriceDrop)]
    lowest = await lowest_prices(conn, drops, before=now) if watch_filter.lowest else {}
    paths = await price_paths(conn, drops) if drops else {}
    outgoing: list[Outgoing] = []
    hits: list[tuple[str, str]] = []
    for event in events:
        listing = event.listing
        ad_id = listing.id
        held = watch_filter.hidden_by(listing)
        if held is None and isinstance(event, PriceDrop):
            held = watch_filter.drop_held_by(event.old, event.new, lowest_before=lowest.get(ad_id))
        if held is not None:
            hits.append((ad_id, held))
        elif isinstance(event, NewListing | BumpedListing):
            bumped = isinstance(event, BumpedListing)
            alert = renderer.new_listing(listing, watch_id=watch_id, bumped=bumped)
            line = renderer.digest_line(listing, bumped=bumped)
            key = f"new:{ad_id}:{chat_id}"
            outgoing.append(_outgoing(watch, "new", alert, key, ad_id, digest_line=line))
        else:
            alert = renderer.price_drop(
                listing, event.old, event.new, watch_id=watch_id, path=paths[ad_id]
            )
            key = f"drop:{ad_id}:{chat_id}:{_money(event.old)}:{_money(event.new)}"
            line = renderer.digest_line(listing, drop=(event.old, event.new))
            outgoing.append(_outgoing(watch, "drop", alert, key, ad_id, digest_line=line))
    if hits:
        await record_hits(conn, watch_id, hits, now=now)
    return outgoing


def _outgoing(
    watch: sqlite3.Row, kind: Kind, alert: Alert, key: str, ad_id: str, *, digest_line: str
) -> Outgoing:
    """An alert of `watch`, to its chat and to the forum topic it was created in; with its
    line for a digest, and owed by the watch (removing, pausing or muting it cancels it)."""
    return Outgoing(
        watch["chat_id"],
        kind,
        alert.text,
        key,
        ad_id,
        photo_url=alert.photo_url,
        buttons=alert.buttons,
        thread_id=watch["thread_id"],
        digest_line=digest_line,
        watch_id=watch["id"],
    )


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
