"""How deep a scan reads (`habicht.scraper.pages`), through the real client, scan and SQLite
file: the next pages while one may hide new adverts, the page cap, a failed deeper page that
fails only the watches that needed it, and pages that shift between two fetches."""

from __future__ import annotations

from typing import Any

import pytest
from kit.fakes import FakeClock
from kit.paging import FLATS, alerts, baseline, client, make, on_page, pages_asked, run, site

from habicht.db import Database
from habicht.fakes.willhaben_site import FakeWillhabenSite as Site  # short for the signatures
from habicht.fakes.willhaben_site import SiteFault
from habicht.scraper.health import FAILING_AFTER
from habicht.scraper.pages import MAX_PAGES
from habicht.watches.subscriptions import Subscriptions
from habicht.willhaben.urls import PAGE_ROWS

__all__ = ["client", "make", "run", "site"]  # the kit's fixtures this file uses


async def test_more_new_adverts_than_a_page_holds_are_read_from_the_next_pages(
    db: Database, subs: Subscriptions, site: Site, run: Any, make: Any, clock: FakeClock
) -> None:
    """450 new adverts in one interval: pages 1 to 3 (200 rows each) are read — each after
    the fetch gap — until one holds an advert the watch has seen; all 450 are alerted."""
    await baseline(subs, site, run, make(100, age=86400))
    new = make(450)
    site.add(FLATS.url, *new)
    site.log.clear()
    clock.slept.clear()
    summary = await run()
    assert (summary.new, pages_asked(site)) == (450, ["1", "2", "3"])
    assert clock.slept == [2.0, 2.0]
    assert len(await alerts(db)) == 450


async def test_beyond_the_page_cap_new_adverts_are_missed_and_the_log_says_so(
    db: Database,
    subs: Subscriptions,
    site: Site,
    run: Any,
    make: Any,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The documented limit: more new adverts in one interval than MAX_PAGES pages hold —
    the newest MAX_PAGES · PAGE_ROWS are alerted, the scan warns, and the rest stay unseen."""
    await baseline(subs, site, run, make(100, age=86400))
    site.add(FLATS.url, *make(MAX_PAGES * PAGE_ROWS + 50))
    site.log.clear()
    assert (await run()).new == MAX_PAGES * PAGE_ROWS
    assert pages_asked(site) == [str(n) for n in range(1, MAX_PAGES + 1)]
    assert "may still hide unseen adverts" in caplog.text


async def test_a_failed_later_page_records_nothing_and_loses_nothing(
    db: Database, subs: Subscriptions, site: Site, run: Any, make: Any
) -> None:
    """When page 2 fails, the whole search fails this cycle: no alerts from page 1, nothing
    recorded (no advert "gone"); the next cycle alerts every one of them."""
    await baseline(subs, site, run, make(100, age=86400))
    site.add(FLATS.url, *make(300))
    on_page(site, "2", fault=SiteFault(503, "<html><body>Fehler</body></html>"))
    failed = await run()
    assert ([f.kind for f in failed.failed], failed.new) == (["fetch"], 0)
    (watch,) = await subs.watches(1)
    assert watch.listings_known == 100
    assert (await run()).new == 300
    assert len(await alerts(db)) == 300


async def test_a_failed_deep_page_fails_only_the_baseline_that_needed_it(
    db: Database, subs: Subscriptions, site: Site, run: Any, make: Any
) -> None:
    """A search of 450 adverts; chat 1 is baselined (page 1 is all it needs); chat 2 adds a
    watch, so the scan reads pages 1 to 3 for its baseline, and page 3 is odd. Chat 1 still
    hears of a new advert on page 1 and the search is not failing; chat 2's baseline waits
    for the next scan, and after FAILING_AFTER such scans it is taken, incomplete, from the
    pages that arrived."""
    old = make(450, age=30 * 86400)
    await baseline(subs, site, run, old)
    await subs.add_watch(2, FLATS, max_watches=5)
    on_page(  # an advert of unknown shape: every time
        site,
        "3",
        fault=SiteFault(200, "<html><body><main>Anzeigen</main></body></html>"),
        every_time=True,
    )
    new = make(1)[0]
    site.add(FLATS.url, new)
    first = await run()
    assert (first.new, first.baselines, first.failed) == (1, 0, [])
    assert await alerts(db) == [(f"new {new.id}", f"new:{new.id}:1")]
    (watch,) = await subs.watches(2)
    assert watch.last_error_kind is None
    for _ in range(FAILING_AFTER - 2):
        assert (await run()).baselines == 0
    assert (await run()).baselines == 1
    assert (
        await db.single_value(
            "SELECT baseline_complete FROM watches WHERE chat_id = 2 AND baseline_at IS NOT NULL"
        )
        == 0
    )
    (watch,) = await subs.watches(2)
    assert watch.listings_known == 2 * PAGE_ROWS  # pages 1 and 2


async def test_a_resume_whose_deep_page_fails_silences_no_one_else(
    db: Database, subs: Subscriptions, site: Site, run: Any, make: Any
) -> None:
    """/resume re-reads a search deep; a failure of page 2 fails only that watch's baseline:
    the other chat's alert still comes."""
    old = make(300, age=30 * 86400)
    await baseline(subs, site, run, old)
    await subs.add_watch(2, FLATS, max_watches=5)
    await run()
    await subs.set_paused(2, 1, paused=True)
    await subs.set_paused(2, 1, paused=False)
    on_page(site, "2", fault=SiteFault(503, "<html><body>Fehler</body></html>"))
    new = make(1)[0]
    site.add(FLATS.url, new)
    summary = await run()
    assert (summary.new, summary.baselines, summary.failed) == (1, 0, [])
    assert await alerts(db) == [(f"new {new.id}", f"new:{new.id}:1")]
    assert (await run()).baselines == 1


async def test_adverts_deleted_between_two_pages_make_the_baseline_incomplete(
    db: Database, subs: Subscriptions, site: Site, run: Any, make: Any, clock: FakeClock
) -> None:
    """Five adverts of page 1 go between the fetch of page 1 and page 2: the five after them
    move up onto page 1 and are on neither page read. The baseline must not count itself
    complete; when one of them is bumped later, it is "bumped, not seen", never "new"."""
    old = make(260, age=30 * 86400)
    site.set_listings(FLATS.url, old)

    def sold() -> None:
        for advert in old[100:105]:
            site.remove(FLATS.url, advert.id)

    on_page(site, "2", change=sold)
    await subs.add_watch(1, FLATS, max_watches=5)
    assert (await run()).baselines == 1
    assert await db.single_value("SELECT baseline_complete FROM watches") == 0
    skipped = old[PAGE_ROWS + 2]
    site.bump(FLATS.url, skipped.id, published_ms=int(clock() * 1000))
    await run()
    assert await alerts(db) == [(f"bumped {skipped.id}", f"new:{skipped.id}:1")]


async def test_adverts_added_between_two_pages_keep_the_baseline_complete(
    db: Database, subs: Subscriptions, site: Site, run: Any, make: Any
) -> None:
    """New adverts on top between two page fetches push the rest down: page 2 repeats the end
    of page 1, nothing is skipped, and the baseline stays complete."""
    old = make(260, age=30 * 86400)
    site.set_listings(FLATS.url, old)
    on_page(site, "2", change=lambda: site.add(FLATS.url, *make(3)))
    await subs.add_watch(1, FLATS, max_watches=5)
    await run()
    assert await db.single_value("SELECT baseline_complete FROM watches") == 1
    (watch,) = await subs.watches(1)
    assert watch.listings_known == 260
