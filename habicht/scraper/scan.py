"""One scrape cycle: fetch each watched search once, and record what changed in the outbox.

`scan_search` is all the work of one search: it reads the search's pages as deep as its
watches need (`scraper.pages`). Then, in ONE transaction, it stores the adverts read and what
the search showed (`market.listings`) — and the places a flat search whose area is learned
learns from them (`scraper.places`) —, judges every watch on them into alerts
(`watches.judge`: events, filter, rendered texts, dedupe keys of DESIGN.md), enqueues them,
records what each watch has seen, and writes the search's health (`scraper.health`). A crash
before the commit loses nothing; after it, the outbox holds the alerts and a re-run finds
nothing new.

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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import aiosqlite

from habicht.clock import Clock
from habicht.db import Database
from habicht.market.listings import prices, record_listings, record_shown
from habicht.message import Outgoing
from habicht.model import ErrorKind
from habicht.scraper.coverage import FeedOff, note_candidates
from habicht.scraper.health import (
    DATABASE_ERRORS,
    FAILING_AFTER,
    DueSearch,
    SearchFailure,
    count_failure,
    record_failure,
    record_success,
)
from habicht.scraper.pages import PageRead, read_pages
from habicht.scraper.places import learn_places
from habicht.storage import log_database_error
from habicht.watches.follow import Following, observe
from habicht.watches.judge import (
    Renderer,
    WatchRead,
    active_watches,
    baseline,
    baseline_failed,
    enqueue_alerts,
    judge,
)
from habicht.watches.notes import search_facts
from habicht.willhaben.errors import ScrapeError
from habicht.willhaben.fetch import WillhabenClient

__all__ = ["Counts", "ScanSummary", "Tally", "scan", "scan_search"]

log = logging.getLogger(__name__)


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
    `coverage_misses` the adverts a search's own scan found that a read of its feed reached
    and did not show (`scraper.coverage`); `feeds_off` are the feeds switched off for them
    (tell the owner).
    `page_checks` counts the alerted adverts looked up on their own page (`page_checks`).
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
    page_checks: int = 0


@dataclass(slots=True)
class Counts:
    """What a scan queued: alerts actually enqueued (not ones the dedupe keys refused)."""

    new: int = 0
    drops: int = 0
    baselines: int = 0
    misses: int = 0
    uncovered: int = 0
    feeds_off: list[FeedOff] = field(default_factory=list)

    def add(self, other: Counts) -> None:
        self.new += other.new
        self.drops += other.drops
        self.baselines += other.baselines
        self.misses += other.misses
        self.uncovered += other.uncovered
        self.feeds_off += other.feeds_off


_DUE = """
SELECT s.id, s.url, s.consecutive_failures FROM searches s
WHERE EXISTS (SELECT 1 FROM watched_searches v WHERE v.search_id = s.id)
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
    searches = [DueSearch(row["id"], row["url"], row["consecutive_failures"]) for row in rows]
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
    counts: Counts = field(default_factory=Counts)
    failed: list[SearchFailure] = field(default_factory=list)
    recovered: list[str] = field(default_factory=list)
    database_error: str | None = None
    feeds: int = 0
    page_checks: int = 0

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
            page_checks=self.page_checks,
        )


async def scan_search(
    db: Database,
    client: WillhabenClient,
    renderer: Renderer,
    search: DueSearch,
    *,
    clock: Clock,
    max_attempts: int,
    tally: Tally,
    following: Following | None = None,
) -> ErrorKind | None:
    """Fetch one search and record what changed (see the module docstring); the kind of its
    failure, or None. A database error also sets `tally.database_error`: the caller stops.
    With `following`, the read also keeps the alerts of the adverts it shows true."""
    found = Counts()  # added to the tally only once the transaction commits
    try:
        read = await read_pages(db, client, search)
        async with db.transaction() as conn:
            streak, failure = await _record_page(
                conn,
                search,
                read,
                renderer=renderer,
                counts=found,
                now=clock(),
                max_attempts=max_attempts,
                following=following,
            )
    except ScrapeError as exc:
        log.warning("search %d failed (%s): %s", search.id, exc.kind, exc)
        return await _failed(db, search, exc.kind, str(exc), clock=clock, tally=tally)
    except DATABASE_ERRORS as exc:
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
    db: Database, search: DueSearch, kind: ErrorKind, message: str, *, clock: Clock, tally: Tally
) -> ErrorKind:
    """Count the failure in `tally` and, if the database lets us, in the search's health."""
    try:
        failure = await record_failure(db, search, kind, message, now=clock())
    except DATABASE_ERRORS as exc:
        log_database_error(
            log, exc, "search %d: its failure could not be recorded: %s", search.id, exc
        )
        tally.database_error = tally.database_error or f"{type(exc).__name__}: {exc}"
        failure = SearchFailure(search.id, search.url, kind, message, search.consecutive_failures)
    tally.failed.append(failure)
    return kind


async def _record_page(
    conn: aiosqlite.Connection,
    search: DueSearch,
    read: PageRead,
    *,
    renderer: Renderer,
    counts: Counts,
    now: float,
    max_attempts: int,
    following: Following | None,
) -> tuple[int, SearchFailure | None]:
    """Everything one read changes, inside the caller's transaction: the failure streak this
    success ended (as the database held it), and the failure it counted instead when a
    baselined watch needed a page that failed.

    Reserved adverts are not on the page for any watch (see `diff`): they are kept in
    `listings` only. A watch keeps the last price it knew when an advert shows none.
    """
    active = await record_listings(conn, read.listings, now=now)
    await record_shown(conn, search.id, active, now=now)
    await learn_places(conn, search.id, search.url, read.listings, now=now)
    if following is not None:
        await observe(conn, read.listings, renderer, now=now, following=following)
    uncovered, feed_off = await note_candidates(conn, search.id, active, now=now)
    counts.uncovered += uncovered
    counts.feeds_off += [feed_off] if feed_off is not None else []
    facts = await search_facts(conn, search.id, active, now=now)
    watches = await active_watches(conn, [search.id])
    judged: list[WatchRead] = []
    outgoing: list[Outgoing] = []
    starved = False  # a baselined watch went without: the cycle failed for the search
    for watch in watches:
        if watch.id in read.unserved:
            if watch.baseline_at is not None:
                starved = True
                continue
            if watch.baseline_failures + 1 < FAILING_AFTER:
                await baseline_failed(conn, watch)
                continue
        if watch.baseline_at is not None:
            judged.append(WatchRead(watch, active, facts))
            continue
        counts.baselines += 1
        outgoing.append(
            await baseline(
                conn,
                watch,
                active,
                url=search.url,
                complete=read.complete,
                renderer=renderer,
                now=now,
            )
        )
    outgoing += await judge(conn, judged, renderer=renderer, now=now)
    counts.misses += await _feed_misses(conn, search, outgoing)
    new, drops = await enqueue_alerts(
        conn, outgoing, now=now, max_attempts=max_attempts, following=following
    )
    counts.new += new
    counts.drops += drops
    return await _record_health(conn, search, read, starved=starved, now=now)


async def _feed_misses(
    conn: aiosqlite.Connection, search: DueSearch, outgoing: list[Outgoing]
) -> int:
    """The new-listing alerts of this scan for adverts its feed had shown at this price but
    not matched to the search: counted on the search and logged, so a maintainer sees why."""
    news = {item.ad_id: item for item in outgoing if item.kind == "new" and item.ad_id}
    if not news:
        return 0
    shown = await conn.execute_fetchall(
        "SELECT f.ad_id, f.price FROM searches s"
        " JOIN feed_listings f ON f.feed_id = s.feed_id"
        " WHERE s.id = ? AND f.ad_id IN (SELECT value FROM json_each(?))",
        (search.id, json.dumps(sorted(news))),
    )
    known = await prices(conn, (row[0] for row in shown))
    missed = [ad_id for ad_id, price in shown if ad_id in known and known[ad_id] == price]
    for ad_id in missed:
        log.info("feed miss: search %d alerts advert %s, which its feed showed", search.id, ad_id)
    if missed:
        await conn.execute(
            "UPDATE searches SET feed_misses = feed_misses + ? WHERE id = ?",
            (len(missed), search.id),
        )
    return len(missed)


async def _record_health(
    conn: aiosqlite.Connection, search: DueSearch, read: PageRead, *, starved: bool, now: float
) -> tuple[int, SearchFailure | None]:
    """The search's health after a read: a success, or — when a baselined watch went without
    the page that failed — a failure naming that page. The streak a success ended is the one
    the database held."""
    if read.failure is not None and starved:
        message = f"page {read.failed_page}: {read.failure}"
        return 0, await count_failure(conn, search, read.failure.kind, message, now=now)
    return await record_success(conn, search, len(read.listings), now=now), None
