"""How deep one scan of a search reads: page after page while one may hide adverts a watch
has not seen, up to `MAX_PAGES`.

`read_pages` reads the search's pages newest first (`PAGE_ROWS` adverts each). A page may
hide more when, for some active watch, no advert on it is one the watch has seen and that is
not bumped (such an advert sits at its true publishing date, so everything new since the
watch saw it is above it; a bumped one may sit above new adverts), and `rowsFound` says there
are more. A watch that needs its baseline reads as deep as the cap allows.

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

A real-estate page holds entries that are no adverts of the search (`willhaben.estate.stray`): the
paid placement on top, and whatever the search's parameters rule out. They are dropped before
anything else: never recorded, judged or used as an anchor. They still count towards what
`rowsFound` promised, which counts them too: the placement by its paid entry
(`SearchPage.placements`), also where its advert is listed on the page by its own entry.

Pages read one after the other can shift: adverts deleted above a page boundary between two
fetches move the rest up, and the advert at the boundary is on neither page. The next page
then holds no advert of the previous one and `rowsFound` fell; such a read (`_joined`) is not
*complete*, whatever it counted, so a baseline taken from it is incomplete.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from habicht.db import Database
from habicht.model import Listing
from habicht.scraper.health import DueSearch
from habicht.watches.judge import active_watches, anchored
from habicht.willhaben.errors import ScrapeError
from habicht.willhaben.estate import placed, stray
from habicht.willhaben.fetch import WillhabenClient
from habicht.willhaben.parse import SearchPage
from habicht.willhaben.urls import PAGE_ROWS

__all__ = ["MAX_PAGES", "PageRead", "read_pages"]

log = logging.getLogger(__name__)

MAX_PAGES = 5
"""Pages one scan of a search reads at most (keep in sync with docs/internals/scraper.md): with
`PAGE_ROWS` = 200 a baseline knows searches of up to 1,000 adverts completely, and a search
can take 999 new or bumped adverts between two scans before one is missed."""


@dataclass(frozen=True, slots=True)
class PageRead:
    """What the pages of one scan said: their adverts, newest first, each once; whether they
    are the whole search; and, when a deeper page failed, its error and the watches that needed
    it (they are neither judged nor recorded this cycle)."""

    listings: list[Listing]
    complete: bool
    failure: ScrapeError | None = None
    failed_page: int = 0
    unserved: frozenset[int] = frozenset()


async def read_pages(db: Database, client: WillhabenClient, search: DueSearch) -> PageRead:
    """The pages worth reading (module docstring), until one fails.

    A failure of page 1 raises; a deeper one ends the read with the pages before it, naming
    the watches that were still reading.
    """
    watches = await active_watches(db.reader, [search.id])
    baselines = {watch.id for watch in watches if watch.baseline_at is None}
    open_watches = {watch.id for watch in watches} - baselines
    found: dict[str, Listing] = {}
    held: set[str] = set()  # every advert the pages listed by its own entry, strays too
    placements = 0
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
            return PageRead(list(found.values()), False, exc, number, needed)
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
        placements += page.placements
        held.update(listing.id for listing in page.listings if not placed(listing))
        kept = [listing for listing in page.listings if not stray(search.url, listing)]
        for listing in kept:
            found.setdefault(listing.id, listing)
        counted = len(held) + placements
        if not page.listings or max(counted, number * PAGE_ROWS) >= page.rows_found:
            # Adverts added on top since page 1 are news to every watch, not a gap.
            whole = counted >= min(first_count, page.rows_found)
            return PageRead(list(found.values()), joined and whole)
        open_watches -= await _bounded(db, open_watches, kept)
        if not open_watches and not baselines:
            break
    if open_watches:  # a baseline stopping at the cap is recorded, not a loss
        log.warning(
            "search %d: page %d may still hide unseen adverts, and no more pages are read",
            search.id,
            MAX_PAGES,
        )
    return PageRead(list(found.values()), complete=False)


def _joined(previous: SearchPage, page: SearchPage) -> bool:
    """Whether `page` goes on where `previous` ended: no advert can have been skipped between
    them. One can only when adverts above the boundary were deleted (more than were added on
    top) between the two fetches; then `rowsFound` fell and the pages share no advert (a paid
    placement, on top of every page, is no shared advert)."""
    if page.rows_found >= previous.rows_found:
        return True
    held = {listing.id for listing in previous.listings if not placed(listing)}
    return any(listing.id in held for listing in page.listings if not placed(listing))


async def _bounded(db: Database, watch_ids: set[int], listings: list[Listing]) -> set[int]:
    """The watches whose search's own scans showed them an unbumped, active advert of this
    page: nothing new to them lies below it. What a feed showed them is no anchor: a feed
    reads only the newest adverts, and after a gap (downtime, a block, a long pass) the ones
    below its read are still unread by this search."""
    anchors = [listing.id for listing in listings if not (listing.bumped or listing.reserved)]
    if not watch_ids or not anchors:
        return set()
    return await anchored(db.reader, watch_ids, anchors)
