"""A search's health (`habicht.scraper.health`) through real scans: a failed scan counts a
failure and changes nothing else, the third in a row is reported once — in a baseline too, and
as written, not as the cycle began — and so is the recovery."""

from __future__ import annotations

import sqlite3
from typing import Any

import httpx
import pytest
from kit.fakes import FakeClock
from kit.scans import RTX, advert, client, outbox, run, site

from habicht.db import Database
from habicht.fakes.willhaben_site import FakeWillhabenSite, SiteFault
from habicht.watches.subscriptions import Subscriptions

__all__ = ["client", "run", "site"]  # the kit's fixtures this file uses


@pytest.mark.parametrize(
    ("failure", "kind"),
    [
        (SiteFault(503), "fetch"),
        (SiteFault(200, "<html>Wartung</html>"), "layout"),
        (SiteFault.block_page(), "blocked"),
    ],
    ids=["5xx", "layout", "block-page"],
)
async def test_a_failed_scan_changes_nothing_but_the_search_health(
    run: Any,
    subs: Subscriptions,
    site: FakeWillhabenSite,
    db: Database,
    clock: FakeClock,
    failure: SiteFault,
    kind: str,
) -> None:
    """A failed fetch yields no events, keeps what the watch saw, and counts a failure."""
    await subs.add_watch(1, RTX, max_watches=5)
    site.set_listings(RTX.url, [advert("101")])
    await run()
    site.set_listings(RTX.url, [advert("102"), advert("101")])
    site.intercept(failure)
    summary = await run()
    assert (summary.scanned, summary.new) == (0, 0)
    assert [(f.kind, f.consecutive_failures) for f in summary.failed] == [(kind, 1)]
    (watch,) = await subs.watches(1)
    assert (watch.listings_known, watch.consecutive_failures, watch.last_error_kind) == (1, 1, kind)
    assert len(await outbox(db)) == 1
    site.intercept(None)
    clock.advance(24 * 3600)  # past any block backoff
    summary = await run()
    assert (summary.scanned, summary.new) == (1, 1)
    (watch,) = await subs.watches(1)
    assert (watch.consecutive_failures, watch.last_error_kind) == (0, None)
    assert watch.last_success_at == clock.now


async def test_repeated_failures_are_reported_once_and_so_is_recovery(
    run: Any, subs: Subscriptions, site: FakeWillhabenSite
) -> None:
    """The third failure in a row makes a search newly failing; the next success recovers it."""
    await subs.add_watch(1, RTX, max_watches=5)
    site.intercept(SiteFault(500))
    summaries = [await run() for _ in range(4)]
    assert [len(s.failing) for s in summaries] == [0, 0, 1, 1]
    assert [len(s.newly_failing) for s in summaries] == [0, 0, 1, 0]
    site.intercept(None)
    assert (await run()).recovered == [RTX.url]
    assert (await run()).recovered == []


async def test_a_streak_crossing_in_a_baseline_scan_is_reported_there_once(
    run: Any, subs: Subscriptions, site: FakeWillhabenSite
) -> None:
    """Issue 4: baseline scans count failures too; the scan whose failure brings the streak to
    FAILING_AFTER reports it, be it a baseline, and no later cycle reports it again."""
    watch = await subs.add_watch(1, RTX, max_watches=5)
    site.intercept(SiteFault(500))
    cycles = [await run() for _ in range(2)]
    baseline = await run(search_ids=[watch.search_id])
    later = [await run() for _ in range(2)]
    assert [len(s.newly_failing) for s in [*cycles, baseline, *later]] == [0, 0, 1, 0, 0]
    assert baseline.newly_failing[0].consecutive_failures == 3
    site.intercept(None)
    assert (await run(search_ids=[watch.search_id])).recovered == [RTX.url]


async def test_the_streak_is_read_as_written_not_as_the_cycle_began(
    run: Any, subs: Subscriptions, site: FakeWillhabenSite, db: Database
) -> None:
    """A streak that another scan moved across the mark after this cycle read its searches
    (a baseline beside it, which reported it) is not reported a second time."""
    await subs.add_watch(1, RTX, max_watches=5)
    site.intercept(SiteFault(500))
    for _ in range(2):
        await run()

    def baseline_failed_meanwhile(request: httpx.Request) -> SiteFault:
        # the cycle has read the streak (2) by now
        with sqlite3.connect(db.path) as other:
            other.execute("UPDATE searches SET consecutive_failures = 3")
        site.intercept(SiteFault(500))
        return SiteFault(500)

    site.intercept(baseline_failed_meanwhile)
    summary = await run()
    assert [f.consecutive_failures for f in summary.failed] == [4]
    assert summary.newly_failing == []
