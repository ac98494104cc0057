"""The scrape cycle: shared searches fetched once, whom a cycle reads for, progress, blocks and
failures that stay in their search (judging its adverts: tests/watches/test_judge.py; a
search's health: tests/scraper/test_health.py)."""

from __future__ import annotations

from collections import Counter
from decimal import Decimal
from typing import Any

import httpx
import pytest
from kit.fakes import FakeClock, TextRenderer
from kit.scans import RTX, SOFA, advert, client, fetched, outbox, run, site

from habicht.db import Database
from habicht.fakes import FakeAdvert, render_search_page
from habicht.fakes.willhaben_site import FakeWillhabenSite, SiteFault
from habicht.model import Listing
from habicht.scraper.scan import scan
from habicht.watches.judge import Alert
from habicht.watches.subscriptions import Subscriptions
from habicht.willhaben.fetch import WillhabenClient

__all__ = ["client", "run", "site"]  # the kit's fixtures this file uses


async def test_a_shared_search_is_fetched_once_for_all_its_watchers(
    run: Any, subs: Subscriptions, site: FakeWillhabenSite, db: Database
) -> None:
    """Two chats watching the same search cost one request, and each gets its own alert."""
    await subs.add_watch(1, RTX, max_watches=5)
    await subs.add_watch(2, RTX, max_watches=5)
    await subs.add_watch(2, SOFA, max_watches=5)
    site.set_listings(RTX.url, [advert("101")])
    await run()
    assert fetched(site) == Counter({"rtx": 1, "sofa": 1})
    site.set_listings(RTX.url, [advert("102"), advert("101")])
    summary = await run()
    assert (summary.scanned, summary.new) == (2, 2)
    assert fetched(site) == Counter({"rtx": 2, "sofa": 2})
    assert [(row[0], row[3]) for row in await outbox(db) if row[1] == "new"] == [
        (1, "new:102:1"),
        (2, "new:102:2"),
    ]


async def test_paused_watches_and_blocked_chats_are_not_fetched_for(
    run: Any, subs: Subscriptions, site: FakeWillhabenSite, db: Database
) -> None:
    """A search whose only watchers are paused or blocked is not fetched; no alerts for them."""
    await subs.add_watch(1, RTX, max_watches=5)
    await subs.add_watch(2, SOFA, max_watches=5)
    await subs.add_watch(3, SOFA, max_watches=5)
    await subs.set_paused(1, None, paused=True)
    await subs.block_chat(2)
    site.set_listings(SOFA.url, [advert("201")])
    summary = await run()
    assert fetched(site) == Counter({"sofa": 1})
    assert (summary.scanned, summary.baselines) == (1, 1)
    assert [row[0] for row in await outbox(db)] == [3]


async def test_search_ids_limit_the_scan(
    run: Any, subs: Subscriptions, site: FakeWillhabenSite
) -> None:
    """Given search_ids (a new watch's immediate baseline), only those searches are fetched."""
    await subs.add_watch(1, RTX, max_watches=5)
    sofa = await subs.add_watch(1, SOFA, max_watches=5)
    summary = await run(search_ids=[sofa.search_id])
    assert (summary.scanned, fetched(site)) == (1, Counter({"sofa": 1}))


async def test_progress_is_told_after_each_search_tried(
    run: Any, subs: Subscriptions, site: FakeWillhabenSite
) -> None:
    """The progress callback runs once per search fetched or failed, never for one skipped
    while willhaben blocks us."""
    await subs.add_watch(1, RTX, max_watches=5)
    await subs.add_watch(1, SOFA, max_watches=5)
    calls = 0

    def progress() -> None:
        nonlocal calls
        calls += 1

    await run(progress=progress)
    assert calls == 2
    site.intercept(SiteFault(403))
    summary = await run(progress=progress)
    assert (summary.skipped, calls) == (1, 3)


async def test_a_block_skips_the_rest_of_the_cycle(
    run: Any, subs: Subscriptions, site: FakeWillhabenSite
) -> None:
    """After willhaben blocks, the cycle's remaining searches are skipped, not failed."""
    await subs.add_watch(1, RTX, max_watches=5)
    await subs.add_watch(1, SOFA, max_watches=5)
    site.intercept(SiteFault(403))
    summary = await run()
    assert ([f.kind for f in summary.failed], summary.skipped) == (["blocked"], 1)
    assert summary.paused_until is not None
    assert len(site.log) == 1


async def test_one_odd_advert_fails_its_search_and_the_cycle_goes_on(
    run: Any, subs: Subscriptions, site: FakeWillhabenSite, db: Database
) -> None:
    """An advert of an unknown shape fails only its own search, as "layout", changing none of
    its state; the next search is still scanned and alerts (review of issue 3)."""
    await subs.add_watch(1, RTX, max_watches=5)
    await subs.add_watch(1, SOFA, max_watches=5)
    site.set_listings(RTX.url, [advert("101")])
    site.set_listings(SOFA.url, [advert("201")])
    await run()
    odd = render_search_page([advert("102"), advert("101")]).replace(
        '"attributes":{"attribute":[', '"attributes":[{"attribute":[', 1
    )
    odd = odd.replace(']},"advertImageList"', ']}],"advertImageList"', 1)
    site.intercept(
        lambda request: (
            httpx.Response(200, text=odd) if request.url.params["keyword"] == "rtx" else None
        )
    )
    site.set_listings(SOFA.url, [advert("202"), advert("201")])
    summary = await run()
    assert (summary.scanned, summary.new) == (1, 1)
    assert [(f.url, f.kind, f.consecutive_failures) for f in summary.failed] == [
        (RTX.url, "layout", 1)
    ]
    assert [row[3] for row in await outbox(db) if row[1] == "new"] == ["new:202:1"]
    rtx, _ = await subs.watches(1)
    assert (rtx.listings_known, rtx.last_error_kind) == (1, "layout")


class FailingRenderer(TextRenderer):
    """Raises for one advert, as a renderer bug would."""

    def new_listing(self, listing: Listing, *, watch_id: int, **kwargs: Any) -> Alert:
        if listing.id == "102":
            raise KeyError("no template")
        return super().new_listing(listing, watch_id=watch_id, **kwargs)


async def test_an_unexpected_error_fails_its_search_and_the_cycle_goes_on(
    subs: Subscriptions,
    site: FakeWillhabenSite,
    db: Database,
    client: WillhabenClient,
    clock: FakeClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A renderer that raises rolls back its search's whole transaction, counts a "layout"
    failure with the traceback logged, and the next search is still scanned."""
    await subs.add_watch(1, RTX, max_watches=5)
    await subs.add_watch(1, SOFA, max_watches=5)
    site.set_listings(RTX.url, [advert("101")])
    site.set_listings(SOFA.url, [advert("201")])
    renderer = FailingRenderer()
    await scan(db, client, renderer, clock=clock, max_attempts=5)
    site.set_listings(RTX.url, [advert("102"), advert("101")])
    site.set_listings(SOFA.url, [advert("202"), advert("201")])
    clock.advance(300)
    summary = await scan(db, client, renderer, clock=clock, max_attempts=5)
    assert (summary.scanned, summary.new) == (1, 1)
    ((failure),) = summary.failed
    assert (failure.url, failure.kind) == (RTX.url, "layout")
    assert failure.message == "unexpected KeyError: 'no template'"
    assert [row[3] for row in await outbox(db) if row[1] == "new"] == ["new:202:1"]
    rtx, _ = await subs.watches(1)
    assert rtx.listings_known == 1  # 102 was not recorded: the transaction rolled back
    assert any(record.exc_info for record in caplog.records)


async def test_a_read_dates_every_advert_and_rewrites_only_what_changed(
    run: Any, subs: Subscriptions, site: FakeWillhabenSite, db: Database, clock: FakeClock
) -> None:
    """Each read stamps every advert it shows as still on the pages (`updated_at`) and stores
    what changed; an unchanged advert keeps the rest of its row as it was (issue 26)."""
    await subs.add_watch(1, RTX, max_watches=5)
    site.set_listings(RTX.url, [advert("102"), advert("101")])
    await run()
    first = clock.now
    edited = FakeAdvert("102", "Anzeige 102, neu", Decimal(100))
    site.set_listings(RTX.url, [edited, advert("101")])
    await run()
    rows = await db.fetchall(
        "SELECT ad_id, title, first_seen_at, updated_at FROM listings ORDER BY ad_id"
    )
    assert [tuple(row) for row in rows] == [
        ("101", "Anzeige 101", first, clock.now),
        ("102", "Anzeige 102, neu", first, clock.now),
    ]
