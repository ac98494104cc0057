"""The due-time scheduler: which search to scan next.

Every search with an active watch of an active chat is due `interval` seconds
(HABICHT_SCRAPE_INTERVAL) after its last scan — `last_attempt_at`, a success or a failure,
so a failing search waits its turn like any other. A pass (`run_pass`) takes one search at a
time, choosing again after each scan:

1. searches a command asked for (`scan_requested_at`: a new watch's baseline, a resumed
   watch, a chat back from a block) or a feed read did (a possible repost it leaves to the
   search's own scan, `scraper.feeds`: no chat behind it, so it waits behind no other
   request), oldest request first — the request is cleared as the scan starts, so asking
   again while it is pending changes nothing;
2. due searches, the latest first against its own interval (never scanned before all
   others): a fed search is late past its safety net, a plain one past the interval, so
   under load every search is about equally late against what it was promised.

Requested scans get a fair share, not the whole budget (keep in sync with
docs/internals/scheduling.md):

- **one per chat at a time**: only each chat's oldest request (`scan_requested_by`) is a
  candidate; its other requests join it and wait behind it. When one is served, the chat's
  other requests go to the back of the queue (just after the latest request), behind every
  other chat's — so twenty `/resume`s of one chat delay another chat's new watch by one scan.
- **at most half the fetch budget while due searches wait**: a `RequestShare` counts the
  seconds requested and due scans took since nothing was last waiting; while a due search
  waits, a request goes next only while its side has taken no more than the due side. With
  nothing due the requests take what they need, and the count starts over. A pause-resume
  loop so costs the other searches at most the scan under way, not their turn.

With shared feeds (`scraper.feeds`, `FeedCadence`), a live feed that is due is read before
either: one read serves every local search. A search a live feed serves (and no coverage
miss sent back to polling) is due every HABICHT_SAFETY_INTERVAL (its own scan is the safety
net), a plain one every interval; its freshness counts from the feed's last successful read
when that is later. When neither a request nor a due search waits, the served searches whose
own scan is older than the interval are scanned too (*spare* scans, least recently scanned
first, counted in neither side of the requests' share): their drops, the words beyond a
snippet and what the feed does not list come at the interval while the budget has room, and
the safety interval is only the longest they wait under load. A pass that
outlasts a feed interval (more searches due than the budget clears in one) reads the feed
again one interval after its last read, never sooner: else its local searches would wait for
the pass's end — an hour at 2,000 searches (`benchmarks/freshness.py`).

It ends when nothing is due, when willhaben's block backoff starts — then every search stays
due in the same order, so the pass after the block starts with the searches latest against
their interval, and a block delays everyone equally instead of starving the same tail — or at a
database error. Politeness is the `WillhabenClient`'s: one request at a time, the fetch gap
and the block backoff per request, so every page fetched counts in the same budget.

How fresh the searches are and whether the budget keeps up are the pipeline's figures
(`scraper.figures`: freshness, capacity).

Knows nothing of Telegram, like the rest of the scraper.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from habicht.clock import Clock
from habicht.db import Database
from habicht.model import ErrorKind
from habicht.scraper.feeds import Feed, assign_feeds, scan_feed
from habicht.scraper.health import DATABASE_ERRORS, DueSearch
from habicht.scraper.page_checks import check_next_page
from habicht.scraper.scan import ScanSummary, Tally, scan_search
from habicht.watches.follow import Following
from habicht.watches.judge import Renderer
from habicht.willhaben.fetch import WillhabenClient

__all__ = [
    "ACTIVE",
    "FED",
    "LIVE_FEEDS",
    "FeedCadence",
    "RequestShare",
    "run_pass",
]

_CANDIDATES = 8
"""Searches read per choice; a search tried in this pass is skipped (normally it is no
longer due, having just been scanned)."""


def _active(search: str) -> str:
    """SQL: the search aliased `search` has an active watch of an active chat: the watches'
    view `watched_searches` (migration 027), which SQLite flattens into the query."""
    return f"EXISTS (SELECT 1 FROM watched_searches v WHERE v.search_id = {search}.id)"


ACTIVE = _active("s")
"""SQL: the search aliased `s` has an active watch of an active chat."""

_SERVED = "coalesce(s.polled_until, 0) <= :now"
"""SQL: the search aliased `s` is not polled on its own after a coverage miss."""

LIVE_FEEDS = f"""
SELECT s.feed_id FROM searches s JOIN feeds f ON f.id = s.feed_id
WHERE {_SERVED} AND coalesce(f.off_until, 0) <= :now AND coalesce(f.blocked_until, 0) <= :now
    AND {ACTIVE}
GROUP BY s.feed_id HAVING count(*) >= 2
"""
"""The feeds that serve two or more searches with an active watch, and are not switched off
nor backing off from a block of their own request
(`scraper.feeds`, `scraper.coverage`)."""

FED = f"s.feed_id IN ({LIVE_FEEDS}) AND {_SERVED}"
"""SQL: a live feed serves the search aliased `s`."""

_DUE_FEEDS = f"""
SELECT f.id, f.url FROM feeds f
WHERE f.id IN ({LIVE_FEEDS}) AND (f.last_attempt_at IS NULL OR f.last_attempt_at < :horizon)
ORDER BY f.last_attempt_at, f.id LIMIT {_CANDIDATES}
"""

# Strictly before the horizon: a pass every `slack` seconds then reads a feed once per
# interval, never sooner, however quickly its read followed the pass's start.

_HORIZON = f"""CASE WHEN {FED} THEN :safety_horizon ELSE :horizon END"""
"""When a search was last scanned if it is due now: a search a live feed serves may wait for
its safety net (it is scanned sooner with budget to spare: `_SPARE`)."""

# Each chat's oldest pending request only: one per chat waits at the front at a time.
_REQUESTED = f"""
SELECT s.id, s.url, s.consecutive_failures, s.scan_requested_at, s.scan_requested_by
FROM searches s
WHERE s.scan_requested_at IS NOT NULL AND {ACTIVE}
  AND NOT EXISTS (
    SELECT 1 FROM searches o
    WHERE o.scan_requested_by = s.scan_requested_by AND o.scan_requested_at IS NOT NULL
      AND (o.scan_requested_at, o.id) < (s.scan_requested_at, s.id) AND {_active("o")}
  )
ORDER BY s.scan_requested_at, s.id LIMIT {_CANDIDATES}
"""

# Each kind is walked on the index of last scans up to its own horizon (the latest of a kind
# is its least recently scanned), so a choice reads a few rows however many searches there
# are, due or not, and the heads are merged by lateness; never scanned goes first.


def _due_of(kind: str, horizon: str | None) -> str:
    """SQL: the first searches of `kind` (a condition on `s`) last scanned by `horizon`, by
    last scan, each with how late it is (`late`); `horizon` None: the never scanned."""
    scanned, late = (
        ("s.last_attempt_at IS NULL", "NULL")
        if horizon is None
        else (f"s.last_attempt_at <= {horizon}", f"s.last_attempt_at - {horizon}")
    )
    return f"""SELECT * FROM (
    SELECT s.id, s.url, s.consecutive_failures, s.scan_requested_at, s.scan_requested_by,
        {late} AS late
    FROM searches s INDEXED BY searches_by_last_attempt
    WHERE {scanned} AND {kind} AND s.scan_requested_at IS NULL AND {ACTIVE}
    ORDER BY s.last_attempt_at, s.id LIMIT {_CANDIDATES}
)"""


_FED_LIVE = f"s.feed_id IN live AND {_SERVED}"
"""SQL: `FED`, with the live feeds worked out once for the statement (`live`)."""

# A search with a pending request is served as one (within the requests' share), not here:
# else a chat's requests behind its first would bypass the share as due scans. The latest
# first, each against its own interval: a plain search an hour overdue goes before a fed one
# a minute past its safety net, though the fed one was scanned longer ago.
_DUE = f"""
WITH live AS ({LIVE_FEEDS})
{_due_of("TRUE", None)}
UNION ALL
{_due_of(f"NOT coalesce({_FED_LIVE}, 0)", ":horizon")}
UNION ALL
{_due_of(_FED_LIVE, ":safety_horizon")}
ORDER BY late, id LIMIT {_CANDIDATES}
"""

# A search a live feed serves, due by the scrape interval but not yet by its safety net:
# scanned when nothing else waits, so its drops and words beyond the snippet come on time.
_SPARE = f"""
SELECT s.id, s.url, s.consecutive_failures, s.scan_requested_at, s.scan_requested_by
FROM searches s
WHERE s.last_attempt_at <= :horizon AND s.scan_requested_at IS NULL AND {FED} AND {ACTIVE}
ORDER BY s.last_attempt_at, s.id LIMIT {_CANDIDATES}
"""

_COUNT_DUE = f"""
SELECT count(*) FROM searches s
WHERE (s.scan_requested_at IS NOT NULL OR s.last_attempt_at IS NULL
       OR s.last_attempt_at <= {_HORIZON}) AND {ACTIVE}
"""


@dataclass(frozen=True, slots=True)
class FeedCadence:
    """How often feeds are read (HABICHT_FEED_INTERVAL) and the searches they serve are
    scanned on their own (HABICHT_SAFETY_INTERVAL), in seconds."""

    interval: float
    safety: float


async def _next_feed(db: Database, *, now: float, horizon: float, tried: set[int]) -> Feed | None:
    """The live feed due longest that is not in `tried` (read within the last interval by
    this pass), or None."""
    for row in await db.fetchall(_DUE_FEEDS, {"now": now, "horizon": horizon}):
        if row["id"] not in tried:
            return Feed(row["id"], row["url"])
    return None


@dataclass(slots=True)
class RequestShare:
    """Seconds of the fetch budget that requested and due scans took since nothing was
    last waiting; while a due search waits, a request goes next only while `requested <=
    due` (module docstring). One lives as long as the scheduler, across passes."""

    requested: float = 0.0
    due: float = 0.0


@dataclass(frozen=True, slots=True)
class _Choice:
    search: DueSearch
    kind: Literal["requested", "due", "spare"]


async def _first(db: Database, sql: str, params: dict[str, Any], tried: set[int]) -> Any:
    rows: list[sqlite3.Row] = await db.fetchall(sql, params)
    return next((row for row in rows if row["id"] not in tried), None)


async def _next(
    db: Database, *, now: float, horizons: dict[str, float], tried: set[int], share: RequestShare
) -> _Choice | None:
    """The search to scan next (module docstring), its request cleared; None if none is due."""
    requested = await _first(db, _REQUESTED, {}, tried)
    due = await _first(db, _DUE, horizons, tried)
    if due is None:  # nobody waits: the requests owe nothing
        share.requested = share.due = 0.0
    kind: Literal["requested", "due", "spare"]
    if requested is not None and (due is None or share.requested <= share.due):
        row, kind = requested, "requested"
    elif due is not None:
        row, kind = due, "due"
    elif (spare := await _first(db, _SPARE, horizons, tried)) is not None:
        row, kind = spare, "spare"
    else:
        return None
    if row["scan_requested_at"] is not None:  # served, whichever way it was chosen
        async with db.transaction() as conn:
            await conn.execute(
                "UPDATE searches SET scan_requested_at = NULL, scan_requested_by = NULL"
                " WHERE id = ?",
                (row["id"],),
            )
            # The chat's other requests go behind every other chat's: just after the latest.
            async with conn.execute("SELECT max(scan_requested_at) FROM searches") as cursor:
                (latest,) = await cursor.fetchone() or (None,)
            behind = math.nextafter(max(now, latest or now), math.inf)
            await conn.execute(
                "UPDATE searches SET scan_requested_at = ?"
                " WHERE scan_requested_by = ? AND scan_requested_at IS NOT NULL",
                (behind, row["scan_requested_by"]),
            )
    search = DueSearch(row["id"], row["url"], row["consecutive_failures"])
    return _Choice(search, kind)


async def run_pass(
    db: Database,
    client: WillhabenClient,
    renderer: Renderer,
    *,
    clock: Clock,
    max_attempts: int,
    interval: float,
    feeds: FeedCadence | None = None,
    slack: float = 0.0,
    progress: Callable[[], object] | None = None,
    on_scanned: Callable[[ErrorKind | Literal["ok"]], object] | None = None,
    share: RequestShare | None = None,
    following: Following | None = None,
) -> ScanSummary:
    """Scan every search that is due, in the scheduler's order (module docstring); with
    `feeds`, read every live feed that is due first (each serves many searches), and scan the
    searches they serve every `interval` seconds with what budget is left after the others,
    every `feeds.safety` seconds at the latest.

    A search counts as due `slack` seconds early: the caller runs a pass every `slack`
    seconds, and a search due before the next one is better scanned now than late.
    `progress` is called after each search or feed tried (the bot's heartbeat and watchdog),
    `on_scanned` with a search's outcome (the fetch metrics). `skipped` counts the searches
    still due when a block or a database error ended the pass. `share` is the requests' share
    of the budget, kept across passes by the caller (a pass of its own without it).

    With `following`, the reads keep the alerts of the adverts they show true, and once
    nothing else is due the pass spends the spare budget on page checks of alerted adverts
    no read shows any more (`scraper.page_checks`), one at a time, choosing again after each:
    a feed or a search that falls due meanwhile goes next. It spends at most `slack` seconds
    (a tick) on them before it ends, so that delivery is kicked for what its reads queued and
    the next pass starts afresh; a long run of checks never holds an alert back.
    """
    started = clock()
    tally = Tally()
    tried: set[int] = set()
    read_feeds: dict[int, float] = {}  # feed id -> when this pass last tried it
    share = share or RequestShare()

    def horizons(now: float) -> dict[str, float]:
        safety = interval if feeds is None else feeds.safety
        return {
            "now": now,
            "horizon": now + slack - interval,
            "safety_horizon": now + slack - safety,
        }

    prune = True  # the feeds no search uses any more go once a pass
    checking_since: float | None = None  # when this pass began its page checks
    while client.paused_until is None and tally.database_error is None:
        now = clock()
        try:
            feed = None
            if feeds is not None:
                # Before every choice: a watch added during a long pass is served by its
                # feed from the feed's next read, not from the next pass.
                await assign_feeds(db, now=now, prune=prune)
                prune = False
                # A pass can outlast a feed interval (more searches due than the budget
                # clears): a feed it read is read again one interval later, never sooner.
                horizon = now + slack - feeds.interval
                fresh = {key for key, at in read_feeds.items() if now - at < feeds.interval}
                feed = await _next_feed(db, now=now, horizon=horizon, tried=fresh)
            choice = None
            if feed is None:
                choice = await _next(db, now=now, horizons=horizons(now), tried=tried, share=share)
            if feed is None and choice is None:  # the budget's spare room: a page check
                checking_since = now if checking_since is None else checking_since
                if (
                    following is None
                    # At most a tick of them: the pass ends, delivery is kicked for what its
                    # reads queued, and the next pass (its feeds due afresh) checks on.
                    or now - checking_since > slack
                    or not await _idle(db, horizons(now))
                    or not await _check_page(
                        db, client, renderer, clock=clock, following=following, tally=tally
                    )
                ):
                    break
                if progress is not None:
                    progress()
                continue
        except DATABASE_ERRORS as exc:
            tally.database_error = f"{type(exc).__name__}: {exc}"
            break
        if feed is not None:
            read_feeds[feed.id] = now
            try:
                await scan_feed(
                    db,
                    client,
                    renderer,
                    feed,
                    clock=clock,
                    max_attempts=max_attempts,
                    tally=tally,
                    following=following,
                )
            finally:
                if progress is not None:
                    progress()
            continue
        if choice is None:
            break
        tried.add(choice.search.id)
        try:
            kind = await scan_search(
                db,
                client,
                renderer,
                choice.search,
                clock=clock,
                max_attempts=max_attempts,
                tally=tally,
                following=following,
            )
        finally:
            if choice.kind == "requested":
                share.requested += clock() - now
            elif choice.kind == "due":
                share.due += clock() - now
            if progress is not None:
                progress()
        if on_scanned is not None:
            on_scanned(kind or "ok")
    if client.paused_until is not None:
        tally.skipped = await db.single_value(_COUNT_DUE, horizons(clock()))
    return tally.summary(duration=clock() - started, paused_until=client.paused_until)


async def _idle(db: Database, horizons: dict[str, float]) -> bool:
    """Whether no search waits at all — requested, due or spare, tried in this pass or not:
    a pass that outlasts the interval has searches due again that it tried already, and a
    page check must not keep them waiting."""
    for sql in (_REQUESTED, _DUE, _SPARE):
        if await _first(db, sql, horizons, set()) is not None:
            return False
    return True


async def _check_page(
    db: Database,
    client: WillhabenClient,
    renderer: Renderer,
    *,
    clock: Clock,
    following: Following,
    tally: Tally,
) -> bool:
    """One page check if one is due (counted in `tally`); whether one was made."""
    if await check_next_page(db, client, renderer, clock=clock, following=following) is None:
        return False
    tally.page_checks += 1
    return True
