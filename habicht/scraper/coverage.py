"""Coverage: a feed proves, search by search, that it lists what the search finds.

A feed (`scraper.feeds`) is an optimisation on an assumption no saved page proves: that the
category's newest adverts hold every advert of each local search. Each search's own read
checks it, and a *coverage miss* is proven, never inferred from a date (issue 36): an advert
counts against a feed only when a read of that feed, made after the advert was visible,
should have shown it and did not. Keep in sync with docs/internals/feeds.md:

- *visible*: known for sure only from a read that showed it. The search's own read at `t`
  notes the adverts it shows that the feed has not shown (`note_candidates`): not bumped nor
  reserved (their place in the feed is not their date), published while the feed served the
  search (`searches.fed_since`) and above the date its last read reached
  (`feeds.shown_since`: one dated below, the next read — which stops at an advert it showed
  before — would not reach either);
- *should have shown it*: the feed's next read that started after `t` (`settle`) reached its
  date — it showed every advert the feed lists dated above its `floor`, the oldest unbumped
  advert at the bottom of the deepest page it read, or it read the whole feed. Shown: cleared.
  Not reached (an advert below the feed's first page, published late): not proven — the own
  read alerted it anyway — and cleared. Not shown though reached: *suspected* (`missed_at`);
  one the feed does not read within `PROOF_WINDOW` is dropped unproven;
- *and still there*: a suspect is a proven miss only when the search's next own read shows it
  again (`note_candidates`), so it was on willhaben before and after the feed read that did
  not show it. One taken down, reserved or sunk meanwhile is dropped: a seller who deletes an
  advert a minute after putting it up never counts against the feed.

So late visibility (an advert shows minutes after its `PUBLISHED`: the feed lists it from
then on), an advert published below the feed's first page, a clock skew (dates are only
compared with dates of the same site) and an advert taken down in between never count. The
proof costs the search's next own read: a feed that lists nothing is switched off one scrape
interval later than a date would have told.

It is not a *feed miss*, which the feed showed but could not match (a word further down the
description than the snippet): that one says the matching is cautious, a coverage miss says
the feed does not list the search at all. A search with a coverage miss goes back to plain
polling every HABICHT_SCRAPE_INTERVAL for `POLLED_FOR` and then earns the feed back, on
probation: its next miss sends it back again. A feed whose searches miss — at least
`OFF_AFTER` of them, and at least half of the searches it serves — is switched off for
`OFF_FOR`: every search of it is polled on its own, and the owner is told once (`FeedOff`).

Cheap at any number of searches: an own read costs one look-up of what the feed showed and
writes only its candidates (few: the feed shows nearly every new advert first); a feed read
takes its candidates in one statement, by index. Inside the caller's transaction; knows
nothing of Telegram.
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
    "PROOF_WINDOW",
    "FeedOff",
    "FeedReach",
    "note_candidates",
    "settle",
]

log = logging.getLogger(__name__)

FEED_MEMORY = 86400.0
"""Seconds a feed remembers an advert since it last showed it (its anchors are its newest)."""
PROOF_WINDOW = 600.0
"""Seconds after an own read saw an advert within which a feed read may prove it missing: the
longer the wait, the likelier the advert was taken down in between (then no read shows it)."""
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


@dataclass(frozen=True, slots=True)
class FeedReach:
    """What one feed read proves: begun at `started`, it showed the adverts `shown` and every
    advert the feed lists dated after `floor` (None: it read the whole feed)."""

    started: float
    shown: frozenset[str]
    floor: float | None

    def reached(self, published_at: float) -> bool:
        """Whether the read should have shown an advert dated `published_at`."""
        return self.floor is None or published_at > self.floor


_FED = """
SELECT s.feed_id, s.fed_since, f.shown_since
FROM searches s JOIN feeds f ON f.id = s.feed_id
WHERE s.id = ? AND s.fed_since IS NOT NULL
"""

_SHOWN = """
SELECT ad_id FROM feed_listings
WHERE feed_id = ? AND ad_id IN (SELECT value FROM json_each(?))
"""


async def note_candidates(
    conn: aiosqlite.Connection, search_id: int, listings: Iterable[Listing], *, now: float
) -> tuple[int, FeedOff | None]:
    """Prove the suspects of search `search_id` its own read shows again (`listings`, the
    active ones), and note what it shows now that its feed has not shown: the feed's next
    read settles them (module docstring). The proven misses, counted, and what follows from
    them: the search polled on its own, and the feed switched off when this miss was one too
    many. The search's candidates older than `PROOF_WINDOW` go: no read settled them in
    time."""
    listings = list(listings)
    proven = await _proven(conn, search_id, {listing.id for listing in listings}, now=now)
    async with conn.execute(_FED, (search_id,)) as cursor:
        fed = await cursor.fetchone()
    if fed is None:
        return proven
    await conn.execute(
        "DELETE FROM coverage_candidates WHERE search_id = ? AND seen_at < ? AND missed_at IS NULL",
        (search_id, now - PROOF_WINDOW),
    )
    floor = fed["shown_since"]
    low = fed["fed_since"] if floor is None else max(fed["fed_since"], floor)
    dated = {
        listing.id: listing.published_at
        for listing in listings
        if not (listing.bumped or listing.reserved)
        and listing.published_at is not None
        and listing.published_at >= low
    }
    if not dated:
        return proven
    async with conn.execute(_SHOWN, (fed["feed_id"], json.dumps(sorted(dated)))) as cursor:
        shown = {row[0] for row in await cursor.fetchall()}
    await conn.executemany(
        "INSERT INTO coverage_candidates (search_id, ad_id, feed_id, published_at, seen_at)"
        " VALUES (?, ?, ?, ?, ?) ON CONFLICT (search_id, ad_id) DO NOTHING",
        [
            (search_id, ad_id, fed["feed_id"], published_at, now)
            for ad_id, published_at in dated.items()
            if ad_id not in shown
        ],
    )
    return proven


async def _proven(
    conn: aiosqlite.Connection, search_id: int, showing: set[str], *, now: float
) -> tuple[int, FeedOff | None]:
    """The search's suspects (`settle`) its own read shows again (`showing`) are proven
    misses: counted, the search polled on its own, its feed switched off when they were one
    too many. Every suspect of the search is settled here, proven or dropped."""
    async with conn.execute(
        "DELETE FROM coverage_candidates WHERE search_id = ? AND missed_at IS NOT NULL"
        " RETURNING ad_id, feed_id",
        (search_id,),
    ) as cursor:
        suspects = list(await cursor.fetchall())
    missed = sorted(row["ad_id"] for row in suspects if row["ad_id"] in showing)
    if not missed:
        return 0, None
    feed_id = suspects[0]["feed_id"]
    log.warning(
        "coverage miss: search %d finds %d advert(s) a read of its feed %d reached and did"
        " not show (%s); it is polled on its own again",
        search_id,
        len(missed),
        feed_id,
        ", ".join(missed[:5]),
    )
    await conn.execute(
        "UPDATE searches SET coverage_misses = coverage_misses + ?, polled_until = ?,"
        " fed_since = NULL WHERE id = ?",
        (len(missed), now + POLLED_FOR, search_id),
    )
    await conn.execute(
        "UPDATE feeds SET coverage_misses = coverage_misses + ? WHERE id = ?",
        (len(missed), feed_id),
    )
    async with conn.execute("SELECT url FROM feeds WHERE id = ?", (feed_id,)) as cursor:
        feed = await cursor.fetchone()
    assert feed is not None  # a candidate's feed: deleting it deletes its candidates
    return len(missed), await _switched_off(conn, feed_id, feed["url"], now=now)


# The searches of the feed with an active watch, and how many of them a miss sent to polling.
_MISSING = """
SELECT count(*) AS searches, coalesce(sum(s.polled_until > :now), 0) AS missing
FROM searches s
WHERE s.feed_id = :feed AND EXISTS (SELECT 1 FROM watched_searches v WHERE v.search_id = s.id)
"""


async def settle(conn: aiosqlite.Connection, feed_id: int, reach: FeedReach) -> None:
    """Settle the candidates of feed `feed_id` that own reads saw before this read of it
    began (`reach`): the ones it reached and did not show, seen within `PROOF_WINDOW`, are
    suspected (their search's next own read proves or drops them, `note_candidates`); the
    rest are cleared (module docstring)."""
    async with conn.execute(
        "DELETE FROM coverage_candidates WHERE feed_id = ? AND seen_at < ? AND missed_at IS NULL"
        " RETURNING search_id, ad_id, published_at, seen_at",
        (feed_id, reach.started),
    ) as cursor:
        candidates = await cursor.fetchall()
    suspects = [
        (
            candidate["search_id"],
            candidate["ad_id"],
            feed_id,
            candidate["published_at"],
            candidate["seen_at"],
            reach.started,
        )
        for candidate in candidates
        if candidate["ad_id"] not in reach.shown
        and candidate["seen_at"] >= reach.started - PROOF_WINDOW
        and reach.reached(candidate["published_at"])
    ]
    await conn.executemany(
        "INSERT INTO coverage_candidates"
        " (search_id, ad_id, feed_id, published_at, seen_at, missed_at)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        suspects,
    )


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
        "UPDATE feeds SET off_until = ? WHERE id = ? AND coalesce(off_until, 0) <= ? RETURNING id",
        (now + OFF_FOR, feed_id, now),
    ) as cursor:
        if await cursor.fetchone() is None:
            return None
    await conn.execute("UPDATE searches SET fed_since = NULL WHERE feed_id = ?", (feed_id,))
    await conn.execute("DELETE FROM coverage_candidates WHERE feed_id = ?", (feed_id,))
    log.warning(
        "feed %d (%s) is switched off: %d of its %d searches find adverts it does not list",
        feed_id,
        url,
        row["missing"],
        row["searches"],
    )
    return FeedOff(url, row["missing"])
