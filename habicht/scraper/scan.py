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

A failed page fails only the watches that needed it. Page 1 is needed by all: its failure
fails the whole search for this cycle, and nothing is recorded. A deeper page is needed by the
watches still reading when it failed — a baseline (a new or resumed watch), or a baselined
watch that had found no advert it knows on the pages before: those get nothing this cycle,
so the adverts of the pages that did arrive are judged for them again, with the rest, next
cycle (recording them alone would stop their next scan above the adverts the failed page
held, and those would never be seen). Every other watch is judged on the pages that arrived.
A missing page is never "those adverts are gone". A baseline whose deeper page failed
`FAILING_AFTER` scans in a row is taken, incomplete, from the pages that arrived, so one odd
page cannot keep a watch from starting. The search's health counts the cycle as failed only
when a baselined watch went without (page 1, or a page it needed).

Pages read one after the other can shift: adverts deleted above a page boundary between two
fetches move the rest up, and the advert at the boundary is on neither page. The next page
then holds no advert of the previous one and `rowsFound` fell; such a read (`_joined`) is not
*complete*, whatever it counted, so a baseline taken from it is incomplete.

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
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Protocol

import aiosqlite

from habicht.clock import Clock
from habicht.db import Database, DatabaseError
from habicht.market.history import (
    PricePoint,
    lowest_prices,
    price_paths,
    record_hits,
    record_prices,
    record_shown,
)
from habicht.market.places import refresh_places
from habicht.market.reposts import repost_drop
from habicht.model import ErrorKind, Listing, money
from habicht.queue import Buttons, Kind, Outgoing, Source, enqueue_within
from habicht.scraper.coverage import FeedOff, check_coverage
from habicht.scraper.errors import ScrapeError
from habicht.scraper.fetch import WillhabenClient
from habicht.scraper.parse import SearchPage
from habicht.scraper.urls import PAGE_ROWS
from habicht.storage import log_database_error
from habicht.watches.diff import BumpedListing, NewListing, PriceDrop, diff
from habicht.watches.filters import WatchFilter
from habicht.watches.notes import NO_NOTES, AlertNotes, SearchFacts, search_facts, watch_notes

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

    def new_listing(
        self,
        listing: Listing,
        *,
        watch_id: int,
        bumped: bool = False,
        entered: bool = False,
        notes: AlertNotes = NO_NOTES,
    ) -> Alert:
        """`bumped`: a `BumpedListing`, which the text must not call new; `entered`: an older
        advert that came into the search since the watch started (`NewListing.entered`);
        `notes`: what the alert says beside the advert (distance, going price, repost)."""
        ...

    def price_drop(
        self,
        listing: Listing,
        old: Decimal,
        new: Decimal,
        *,
        watch_id: int,
        path: Sequence[PricePoint] = (),
        entered: bool = False,
        notes: AlertNotes = NO_NOTES,
    ) -> Alert:
        """`path`: every price the advert was known at, oldest first, ending with `new`;
        `entered`: the advert came into the search by this drop (`PriceDrop.entered`)."""
        ...

    def digest_line(
        self,
        listing: Listing,
        *,
        drop: tuple[Decimal, Decimal] | None = None,
        bumped: bool = False,
        entered: bool = False,
        notes: AlertNotes = NO_NOTES,
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
    `database_error` then describes). `feeds` counts the feeds read (`scraper.feeds`),
    `feed_misses` the alerts a search's own scan sent for adverts its feed had shown, and
    `coverage_misses` the adverts a search's own scan found that its feed never showed
    (`scraper.coverage`); `feeds_off` are the feeds switched off for them (tell the owner).
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
    feeds: int = 0
    feed_misses: int = 0
    coverage_misses: int = 0
    feeds_off: list[FeedOff] = field(default_factory=list)


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
    misses: int = 0
    uncovered: int = 0
    feeds_off: list[FeedOff] = field(default_factory=list)

    def add(self, other: _Counts) -> None:
        self.new += other.new
        self.drops += other.drops
        self.baselines += other.baselines
        self.misses += other.misses
        self.uncovered += other.uncovered
        self.feeds_off += other.feeds_off


@dataclass(frozen=True, slots=True)
class _Read:
    """What the pages of one scan said: their adverts, newest first, each once; whether they
    are the whole search; and, when a deeper page failed, its error and the watches that needed
    it (they are neither judged nor recorded this cycle)."""

    listings: list[Listing]
    complete: bool
    failure: ScrapeError | None = None
    failed_page: int = 0
    unserved: frozenset[int] = frozenset()


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
    feeds: int = 0

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
            feeds=self.feeds,
            feed_misses=self.counts.misses,
            coverage_misses=self.counts.uncovered,
            feeds_off=self.counts.feeds_off,
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
        read = await _read_pages(db, client, search)
        async with db.transaction() as conn:
            streak, failure = await _record_page(
                conn,
                search,
                read,
                renderer=renderer,
                counts=found,
                now=clock(),
                max_attempts=max_attempts,
            )
    except ScrapeError as exc:
        log.warning("search %d failed (%s): %s", search.id, exc.kind, exc)
        return await _failed(db, search, exc.kind, str(exc), clock=clock, tally=tally)
    except _DATABASE_ERRORS as exc:
        log_database_error(log, exc, "search %d: database error: %s", search.id, exc)
        tally.database_error = f"{type(exc).__name__}: {exc}"
        return await _failed(db, search, "database", tally.database_error, clock=clock, tally=tally)
    except Exception as exc:  # a bug or a page we cannot handle: the next search still runs
        log.exception("search %d: unexpected error, counted as a layout failure", search.id)
        message = f"unexpected {type(exc).__name__}: {exc}"
        return await _failed(db, search, "layout", message, clock=clock, tally=tally)
    tally.counts.add(found)
    if failure is not None:
        tally.failed.append(failure)
        return failure.kind
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
        log_database_error(
            log, exc, "search %d: its failure could not be recorded: %s", search.id, exc
        )
        tally.database_error = tally.database_error or f"{type(exc).__name__}: {exc}"
        failure = SearchFailure(search.id, search.url, kind, message, search.consecutive_failures)
    tally.failed.append(failure)
    return kind


_ACTIVE_WATCHES = (
    "SELECT w.id, w.chat_id, w.label, w.baseline_at, w.baseline_complete, w.filters,"
    " w.thread_id, w.muted_until, w.baseline_failures"
    " FROM watches w"
    " JOIN chats c ON c.chat_id = w.chat_id"
    " WHERE w.search_id = ? AND w.status = 'active' AND c.status = 'active' ORDER BY w.id"
)


async def _read_pages(db: Database, client: WillhabenClient, search: _Search) -> _Read:
    """The pages worth reading (module docstring), until one fails.

    A failure of page 1 raises; a deeper one ends the read with the pages before it, naming
    the watches that were still reading.
    """
    watches = await db.fetchall(_ACTIVE_WATCHES, (search.id,))
    baselines = {watch["id"] for watch in watches if watch["baseline_at"] is None}
    open_watches = {watch["id"] for watch in watches} - baselines
    found: dict[str, Listing] = {}
    joined = True
    previous: SearchPage | None = None
    first_count = 0  # `rowsFound` as the first page said it
    for number in range(1, MAX_PAGES + 1):
        try:
            page = await client.search(search.url, page=number)
        except ScrapeError as exc:
            if previous is None:
                raise
            log.warning("search %d: page %d failed (%s): %s", search.id, number, exc.kind, exc)
            needed = frozenset(baselines | open_watches)
            return _Read(list(found.values()), False, exc, number, needed)
        if previous is not None and not _joined(previous, page):
            log.warning(
                "search %d: adverts moved up between pages %d and %d: the read is incomplete",
                search.id,
                number - 1,
                number,
            )
            joined = False
        previous = page
        first_count = first_count or page.rows_found
        for listing in page.listings:
            found.setdefault(listing.id, listing)
        if not page.listings or max(len(found), number * PAGE_ROWS) >= page.rows_found:
            # Adverts added on top since page 1 are news to every watch, not a gap.
            whole = len(found) >= min(first_count, page.rows_found)
            return _Read(list(found.values()), joined and whole)
        open_watches -= await _bounded(db, open_watches, page.listings)
        if not open_watches and not baselines:
            break
    if open_watches:  # a baseline stopping at the cap is recorded, not a loss
        log.warning(
            "search %d: page %d may still hide unseen adverts, and no more pages are read",
            search.id,
            MAX_PAGES,
        )
    return _Read(list(found.values()), complete=False)


def _joined(previous: SearchPage, page: SearchPage) -> bool:
    """Whether `page` goes on where `previous` ended: no advert can have been skipped between
    them. One can only when adverts above the boundary were deleted (more than were added on
    top) between the two fetches; then `rowsFound` fell and the pages share no advert."""
    if page.rows_found >= previous.rows_found:
        return True
    held = {listing.id for listing in previous.listings}
    return any(listing.id in held for listing in page.listings)


async def _bounded(db: Database, watch_ids: set[int], listings: list[Listing]) -> set[int]:
    """The watches whose search's own scans showed them an unbumped, active advert of this
    page: nothing new to them lies below it. What a feed showed them is no anchor: a feed
    reads only the newest adverts, and after a gap (downtime, a block, a long pass) the ones
    below its read are still unread by this search."""
    anchors = [listing.id for listing in listings if not (listing.bumped or listing.reserved)]
    if not watch_ids or not anchors:
        return set()
    rows = await db.fetchall(
        "SELECT DISTINCT watch_id FROM watch_listings"
        " WHERE watch_id IN (SELECT value FROM json_each(?))"
        " AND ad_id IN (SELECT value FROM json_each(?)) AND own",
        (json.dumps(sorted(watch_ids)), json.dumps(anchors)),
    )
    return {row["watch_id"] for row in rows}


async def _record_failure(
    db: Database, search: _Search, kind: ErrorKind, message: str, *, now: float
) -> SearchFailure:
    """Only the search's health changes: no events, every watch keeps its state."""
    async with db.transaction() as conn:
        return await _count_failure(conn, search, kind, message, now=now)


async def _count_failure(
    conn: aiosqlite.Connection, search: _Search, kind: ErrorKind, message: str, *, now: float
) -> SearchFailure:
    """One more failed cycle in the search's health, inside the caller's transaction.

    The streak is the one the database now holds (RETURNING): another scan of the same search
    may have counted a failure since this cycle read it.
    """
    async with conn.execute(
        "UPDATE searches SET last_attempt_at = ?, consecutive_failures ="
        " consecutive_failures + 1, last_error_kind = ?, last_error = ? WHERE id = ?"
        " RETURNING consecutive_failures",
        (now, kind, message, search.id),
    ) as cursor:
        row = await cursor.fetchone()
    return SearchFailure(
        search_id=search.id,
        url=search.url,
        kind=kind,
        message=message,
        consecutive_failures=search.consecutive_failures + 1 if row is None else row[0],
    )


async def _record_page(
    conn: aiosqlite.Connection,
    search: _Search,
    read: _Read,
    *,
    renderer: Renderer,
    counts: _Counts,
    now: float,
    max_attempts: int,
) -> tuple[int, SearchFailure | None]:
    """Everything one read changes, inside the caller's transaction: the failure streak this
    success ended (as the database held it), and the failure it counted instead when a
    baselined watch needed a page that failed.

    Reserved adverts are not on the page for any watch (see `diff`): they are kept in
    `listings` only. A watch keeps the last price it knew when an advert shows none.
    """
    active = await record_listings(conn, read.listings, now=now)
    await record_shown(conn, search.id, active, now=now)
    uncovered, feed_off = await check_coverage(conn, search.id, active, now=now)
    counts.uncovered += uncovered
    counts.feeds_off += [feed_off] if feed_off is not None else []
    facts = await search_facts(conn, search.id, active, now=now)
    watches = list(await conn.execute_fetchall(_ACTIVE_WATCHES, (search.id,)))
    lookups = Lookups(active, [watch["id"] for watch in watches])
    outgoing: list[Outgoing] = []
    starved = False  # a baselined watch went without: the cycle failed for the search
    for watch in watches:
        if watch["id"] in read.unserved:
            if watch["baseline_at"] is not None:
                starved = True
                continue
            if watch["baseline_failures"] + 1 < FAILING_AFTER:
                await conn.execute(
                    "UPDATE watches SET baseline_failures = baseline_failures + 1 WHERE id = ?",
                    (watch["id"],),
                )
                continue
        if watch["baseline_at"] is not None:
            outgoing += await judge(
                conn, watch, active, facts, renderer=renderer, now=now, lookups=lookups
            )
            continue
        counts.baselines += 1
        text = renderer.for_chat(watch["chat_id"]).baseline(watch["label"], len(active))
        # One note per baseline: a resumed watch is baselined (and told) again.
        key = f"baseline:{watch['id']}:{now:.3f}"
        outgoing.append(Outgoing(watch["chat_id"], "info", text, key))
        await conn.execute(
            "UPDATE watches SET baseline_at = ?, baseline_complete = ?, baseline_failures = 0"
            " WHERE id = ?",
            (now, read.complete, watch["id"]),
        )
        await _record_seen(conn, watch["id"], active, told=set(), own=True, now=now)
    counts.misses += await _feed_misses(conn, search, outgoing)
    await enqueue_counted(conn, outgoing, counts=counts, now=now, max_attempts=max_attempts)
    return await _record_health(conn, search, read, starved=starved, now=now)


async def record_listings(
    conn: aiosqlite.Connection, listings: list[Listing], *, now: float
) -> list[Listing]:
    """The latest state and price of every advert read, and the places of their postcodes
    that are due; the ones not reserved (those that are on the page for a watch)."""
    await _upsert_listings(conn, listings, now)
    await refresh_places(conn, listings, now=now)
    active = [listing for listing in listings if not listing.reserved]
    priced = [(listing.id, money(listing.price)) for listing in active]
    await record_prices(conn, [(ad_id, price) for ad_id, price in priced if price], now=now)
    return active


async def judge(
    conn: aiosqlite.Connection,
    watch: sqlite3.Row,
    active: list[Listing],
    facts: SearchFacts,
    *,
    renderer: Renderer,
    now: float,
    source: Source = "search",
    lookups: Lookups | None = None,
) -> list[Outgoing]:
    """The alerts of one baselined watch (a row of `_ACTIVE_WATCHES`) for adverts its search
    shows, and everything it saw recorded as seen; a muted watch sees, and says nothing.

    The search's own scan and a feed (for the adverts it matched to the search) judge the
    same way, so an advert is alerted once, whichever reads it first; `facts` are what the
    read told about the search (its going price, its reposts), the same for all its watches.
    `lookups` are the database's answers about `active` shared by the watches judged after
    each other on the same adverts (by default this watch's own).
    """
    chat_renderer = renderer.for_chat(watch["chat_id"])
    if lookups is None:
        lookups = Lookups(active, [watch["id"]])
    events, told = await _events(
        conn, watch, active, facts, lookups=lookups, renderer=chat_renderer, now=now, source=source
    )
    if (watch["muted_until"] or 0.0) > now:
        events, told = [], set()
    await _record_seen(conn, watch["id"], active, told=told, own=source == "search", now=now)
    return events


async def _record_seen(
    conn: aiosqlite.Connection,
    watch_id: int,
    active: list[Listing],
    *,
    told: set[str],
    own: bool,
    now: float,
) -> None:
    """`active` as seen by the watch, at their prices; `told` are the adverts its chat is now
    told of, whose price becomes what the chat knows (`told_price`); `own`: the search's own
    scan read them, so they are its anchors (`_bounded`) — a feed's sighting never is."""
    await conn.executemany(
        "INSERT INTO watch_listings (watch_id, ad_id, last_price, told_price, first_seen_at, own)"
        " VALUES (:watch, :ad, :price, :price, :now, :own) ON CONFLICT (watch_id, ad_id)"
        " DO UPDATE SET last_price = COALESCE(excluded.last_price, last_price),"
        " told_price = CASE WHEN :told THEN excluded.told_price"
        " ELSE COALESCE(told_price, excluded.told_price) END, own = max(own, excluded.own)",
        [
            {
                "watch": watch_id,
                "ad": listing.id,
                "price": money(listing.price),
                "told": listing.id in told,
                "own": own,
                "now": now,
            }
            for listing in active
        ],
    )


async def enqueue_counted(
    conn: aiosqlite.Connection,
    outgoing: list[Outgoing],
    *,
    counts: _Counts,
    now: float,
    max_attempts: int,
) -> None:
    """Enqueue `outgoing`, counting the alerts the dedupe keys let in; a chat hears of each
    cut of an advert's price once (`_once_a_cut`)."""
    drops = await _once_a_cut(conn, [item for item in outgoing if item.kind == "drop"])
    queued = {
        kind: await enqueue_within(
            conn,
            drops if kind == "drop" else [item for item in outgoing if item.kind == kind],
            now=now,
            max_attempts=max_attempts,
        )
        for kind in ("info", "new", "drop")
    }
    counts.new += queued["new"]
    counts.drops += queued["drop"]


_TOLD_CUT = """
SELECT 1 FROM notifications
WHERE chat_id = :chat AND ad_id = :ad AND kind = 'drop' AND dedupe_key LIKE :key
  AND created_at >= (SELECT max(seen_at) FROM price_history WHERE ad_id = :ad)
LIMIT 1
"""
"""Whether the chat already has a drop alert of the advert to its current price since the
price became it (the cut's first sighting, the history's latest row)."""


async def _once_a_cut(conn: aiosqlite.Connection, drops: list[Outgoing]) -> list[Outgoing]:
    """`drops` less the ones whose chat already hears of the same cut: two watches of one chat
    that knew the advert at different prices (one was told of an earlier cut, the other not)
    each make a drop to the same price, "€ 49 → € 36" and "€ 42 → € 36", with keys of their
    own — one cut, told once. A later cut to the same price (after a rise) is another drop."""
    kept: list[Outgoing] = []
    cuts: set[tuple[int, str, str]] = set()
    for item in drops:
        assert item.ad_id is not None  # every drop alert names its advert
        new = item.dedupe_key.rsplit(":", 1)[1]
        cut = (item.chat_id, item.ad_id, new)
        if cut in cuts:
            continue
        cuts.add(cut)
        key = f"drop:{item.ad_id}:{item.chat_id}:%:{new}"
        params = {"chat": item.chat_id, "ad": item.ad_id, "key": key}
        async with conn.execute(_TOLD_CUT, params) as cursor:
            if await cursor.fetchone() is None:
                kept.append(item)
    return kept


async def _feed_misses(
    conn: aiosqlite.Connection, search: _Search, outgoing: list[Outgoing]
) -> int:
    """The new-listing alerts of this scan for adverts its feed had shown at this price but
    not matched to the search: counted on the search and logged, so a maintainer sees why."""
    news = {item.ad_id: item for item in outgoing if item.kind == "new" and item.ad_id}
    if not news:
        return 0
    rows = await conn.execute_fetchall(
        "SELECT DISTINCT f.ad_id FROM searches s"
        " JOIN feed_listings f ON f.feed_id = s.feed_id"
        " JOIN listings l ON l.ad_id = f.ad_id AND l.price IS f.price"
        " WHERE s.id = ? AND f.ad_id IN (SELECT value FROM json_each(?))",
        (search.id, json.dumps(sorted(news))),
    )
    missed = [row[0] for row in rows]
    for ad_id in missed:
        log.info("feed miss: search %d alerts advert %s, which its feed showed", search.id, ad_id)
    if missed:
        await conn.execute(
            "UPDATE searches SET feed_misses = feed_misses + ? WHERE id = ?",
            (len(missed), search.id),
        )
    return len(missed)


async def _record_health(
    conn: aiosqlite.Connection, search: _Search, read: _Read, *, starved: bool, now: float
) -> tuple[int, SearchFailure | None]:
    """The search's health after a read: a success, or — when a baselined watch went without
    the page that failed — a failure naming that page. The streak a success ended is the one
    the database held."""
    if read.failure is not None and starved:
        message = f"page {read.failed_page}: {read.failure}"
        return 0, await _count_failure(conn, search, read.failure.kind, message, now=now)
    rows = await conn.execute_fetchall(
        "SELECT consecutive_failures FROM searches WHERE id = ?", (search.id,)
    )
    row = next(iter(rows), None)
    await conn.execute(
        "UPDATE searches SET last_attempt_at = ?, last_success_at = ?, consecutive_failures = 0,"
        " last_error_kind = NULL, last_error = NULL, last_count = ? WHERE id = ?",
        (now, now, len(read.listings), search.id),
    )
    return (search.consecutive_failures if row is None else row[0]), None


async def _events(
    conn: aiosqlite.Connection,
    watch: sqlite3.Row,
    listings: list[Listing],
    facts: SearchFacts,
    *,
    lookups: Lookups,
    renderer: Renderer,
    now: float,
    source: Source,
) -> tuple[list[Outgoing], set[str]]:
    """The rendered alerts of one watch for the pages read (reserved adverts left out),
    through the watch's own filter; and the adverts they tell the chat of.

    A drop's dedupe key holds both prices: each distinct (old, new) drop of an advert is one
    alert per chat, and the same pair is never sent twice. `drop N%` and `drop N€` measure
    from the price the chat was last told (`watch_listings.told_price`), and a drop below it
    shows it as the old price. A repost cheaper than its older advert's last price reads as that
    drop (`repost_drop`), but stays a new advert: kind "new", key `new:<ad>:<chat>`, so it is
    told once per chat whichever read finds it, counts where new adverts count (freshness,
    feed misses), and no price rule holds it back. What the filter holds back is noted as a
    hit of the rule that held it (for /list); the caller records it as seen like everything
    else on the pages, so loosening the filter later sends none of it.
    """
    watch_id, chat_id = watch["id"], watch["chat_id"]
    seen, told_prices = await lookups.seen(conn, watch_id)
    wanted = _maybe_news(listings, seen)
    paths = await lookups.price_paths(conn, wanted)
    unseen = [listing for listing in listings if listing.id not in seen]
    earlier = {
        listing.id: price
        for listing in unseen
        if (price := _before(paths.get(listing.id, ()), listing.price)) is not None
    }
    events = diff(
        seen,
        listings,
        baseline_at=watch["baseline_at"],
        baseline_complete=bool(watch["baseline_complete"]),
        earlier=earlier,
    )
    watch_filter = WatchFilter.from_json(watch["filters"])
    drops = [event.listing.id for event in events if isinstance(event, PriceDrop)]
    lowest = await lowest_prices(conn, drops, before=now) if watch_filter.lowest else {}
    first_seen = await lookups.first_seen(
        conn, [event.listing.id for event in events if _fresh(event)]
    )
    notes_of = await watch_notes(
        conn, watch_filter.centre, chat_id, [event.listing for event in events], facts
    )
    outgoing: list[Outgoing] = []
    hits: list[tuple[str, str]] = []
    for event in events:
        listing = event.listing
        ad_id = listing.id
        told = told_prices.get(ad_id)
        notes = notes_of[ad_id]
        held = watch_filter.hidden_by(listing, notes)
        if held is None and isinstance(event, PriceDrop):
            held = watch_filter.drop_held_by(
                event.old, event.new, told=told, lowest_before=lowest.get(ad_id)
            )
        if held is not None:
            hits.append((ad_id, held))
        elif isinstance(event, NewListing | BumpedListing):
            bumped = isinstance(event, BumpedListing)
            entered = isinstance(event, NewListing) and event.entered
            if (drop := repost_drop(listing, notes.repost)) is not None:
                alert = renderer.price_drop(listing, *drop, watch_id=watch_id, notes=notes)
                line = renderer.digest_line(listing, drop=drop, notes=notes)
            else:
                alert = renderer.new_listing(
                    listing, watch_id=watch_id, bumped=bumped, entered=entered, notes=notes
                )
                line = renderer.digest_line(listing, bumped=bumped, entered=entered, notes=notes)
            key = f"new:{ad_id}:{chat_id}"
            item = _outgoing(watch, "new", alert, key, ad_id, line, source)
            if ad_id in first_seen:
                item = replace(
                    item, first_seen_at=first_seen[ad_id], published_at=listing.published_at
                )
            outgoing.append(item)
        else:
            old = told if told is not None and told > event.new else event.old
            alert = renderer.price_drop(
                listing,
                old,
                event.new,
                watch_id=watch_id,
                path=paths[ad_id],
                entered=event.entered,
                notes=notes,
            )
            key = f"drop:{ad_id}:{chat_id}:{money(old)}:{money(event.new)}"
            line = renderer.digest_line(
                listing, drop=(old, event.new), entered=event.entered, notes=notes
            )
            outgoing.append(_outgoing(watch, "drop", alert, key, ad_id, line, source))
    if hits:
        await record_hits(conn, watch_id, hits, now=now)
    return outgoing, {item.ad_id for item in outgoing if item.ad_id is not None}


def _fresh(event: object) -> bool:
    """Whether an event is a new advert on willhaben — not bumped (its `PUBLISHED` is the
    bump), not one published before the watch started — whose alert measures freshness."""
    return isinstance(event, NewListing) and not event.entered and not event.listing.bumped


class Lookups:
    """What the watches judged on one read's adverts ask the database about them, asked once
    for them all (issue 26): a search has several watches, and each question is a round trip
    to the database's thread. Judging a watch changes no answer another watch gets: it writes
    only its own `watch_listings` rows, and the prices and first sightings of the adverts were
    recorded by the read before any watch is judged.
    """

    def __init__(self, listings: list[Listing], watch_ids: Iterable[int]) -> None:
        """`listings`: the adverts judged (`judge`'s `active`); `watch_ids`: every watch that
        may be judged on them (their seen adverts are read in one query, when the first is)."""
        self._ad_ids = json.dumps([listing.id for listing in listings])
        self._watch_ids = sorted(set(watch_ids))
        self._seen: dict[int, tuple[dict[str, Decimal | None], dict[str, Decimal]]] | None = None
        self._paths: dict[str, list[PricePoint]] = {}
        self._first_seen: dict[str, float | None] = {}

    async def seen(
        self, conn: aiosqlite.Connection, watch_id: int
    ) -> tuple[dict[str, Decimal | None], dict[str, Decimal]]:
        """Of the adverts on the pages, the ones the watch has seen with the last price it saw,
        and the price its chat was last told of each (where one is known)."""
        if self._seen is None:
            self._seen = {watch: ({}, {}) for watch in self._watch_ids}
            rows = await conn.execute_fetchall(
                "SELECT watch_id, ad_id, last_price, told_price FROM watch_listings"
                " WHERE watch_id IN (SELECT value FROM json_each(?))"
                " AND ad_id IN (SELECT value FROM json_each(?))",
                (json.dumps(self._watch_ids), self._ad_ids),
            )
            for row in rows:
                seen, told = self._seen[row["watch_id"]]
                seen[row["ad_id"]] = _decimal(row["last_price"])
                if row["told_price"]:
                    told[row["ad_id"]] = Decimal(row["told_price"])
        return self._seen[watch_id]

    async def price_paths(
        self, conn: aiosqlite.Connection, ad_ids: list[str]
    ) -> dict[str, list[PricePoint]]:
        """Each advert's known prices, oldest first (`history.price_paths`)."""
        unknown = [ad_id for ad_id in ad_ids if ad_id not in self._paths]
        if unknown:
            self._paths.update(await price_paths(conn, unknown))
        return {ad_id: self._paths[ad_id] for ad_id in ad_ids}

    async def first_seen(self, conn: aiosqlite.Connection, ad_ids: list[str]) -> dict[str, float]:
        """When habicht first read each advert on any page (`listings.first_seen_at`)."""
        unknown = [ad_id for ad_id in ad_ids if ad_id not in self._first_seen]
        if unknown:
            self._first_seen.update(dict.fromkeys(unknown))
            rows = await conn.execute_fetchall(
                "SELECT ad_id, first_seen_at FROM listings"
                " WHERE ad_id IN (SELECT value FROM json_each(?))",
                (json.dumps(unknown),),
            )
            self._first_seen.update({row[0]: row[1] for row in rows})
        return {ad_id: first for ad_id in ad_ids if (first := self._first_seen[ad_id]) is not None}


def _maybe_news(listings: list[Listing], seen: Mapping[str, Decimal | None]) -> list[str]:
    """The priced adverts whose price path the watch may need: the unseen ones (one may have
    come into the search by a drop) and the seen ones that now cost less."""
    ids = []
    for listing in listings:
        price, last = listing.price, seen.get(listing.id)
        if price is not None and (listing.id not in seen or (last is not None and price < last)):
            ids.append(listing.id)
    return ids


def _before(path: Sequence[PricePoint], price: Decimal | None) -> Decimal | None:
    """The price an advert had before its current `price`, from its path (None if none)."""
    for point in reversed(path):
        if point.price != price:
            return point.price
    return None


def _decimal(value: str | None) -> Decimal | None:
    return None if value is None else Decimal(value)


def _outgoing(
    watch: sqlite3.Row,
    kind: Kind,
    alert: Alert,
    key: str,
    ad_id: str,
    digest_line: str,
    source: Source,
) -> Outgoing:
    """An alert of `watch`, to its chat and to the forum topic it was created in; with its
    line for a digest, where it came from, and owed by the watch (removing, pausing or muting
    it cancels it)."""
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
        source=source,
    )


async def _upsert_listings(conn: aiosqlite.Connection, listings: list[Listing], now: float) -> None:
    """The latest known state of each advert; `first_seen_at` keeps its first value.

    Most adverts of a read are as the last read left them: they only get `updated_at` (still
    on the pages), and the rest of a row is written only when it changed. An update rewrites
    a row's entry in the index of every column it sets, changed or not (the seller's index
    alone: a page of its own for each advert), and the commit writes each page touched to the
    WAL: in `benchmarks/scale.py` 85 pages a search with every row rewritten, 60 without.
    """
    await conn.execute(
        "UPDATE listings SET updated_at = ? WHERE ad_id IN (SELECT value FROM json_each(?))",
        (now, json.dumps([listing.id for listing in listings])),
    )
    await conn.executemany(
        """
        INSERT INTO listings (ad_id, title, price, price_display, location, postcode, url,
                              image_url, published_at, first_seen_at, updated_at, lat, lon,
                              seller_id, body, is_private)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (ad_id) DO UPDATE SET
            title = excluded.title, price = excluded.price,
            price_display = excluded.price_display, location = excluded.location,
            postcode = excluded.postcode, url = excluded.url, image_url = excluded.image_url,
            published_at = excluded.published_at, updated_at = excluded.updated_at,
            lat = excluded.lat, lon = excluded.lon, seller_id = excluded.seller_id,
            body = excluded.body, is_private = excluded.is_private
        WHERE (title, price, price_display, location, postcode, url, image_url, published_at,
               lat, lon, seller_id, body, is_private)
           IS NOT (excluded.title, excluded.price, excluded.price_display, excluded.location,
                   excluded.postcode, excluded.url, excluded.image_url, excluded.published_at,
                   excluded.lat, excluded.lon, excluded.seller_id, excluded.body,
                   excluded.is_private)
        """,
        [
            (
                listing.id,
                listing.title,
                money(listing.price),
                listing.price_display,
                listing.location,
                listing.postcode,
                listing.url,
                listing.image_url,
                listing.published_at,
                now,
                now,
                *(listing.coordinates or (None, None)),
                listing.seller_id,
                listing.body,
                listing.is_private,
            )
            for listing in listings
        ],
    )
