"""The scrape cycle: baselines, new listings, drops, idempotence, failures, shared searches."""

from __future__ import annotations

import sqlite3
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
from habicht.scraper.fetch import WillhabenClient
from habicht.scraper.scan import scan
from habicht.watches.judge import Alert
from habicht.watches.subscriptions import Subscriptions

__all__ = ["client", "run", "site"]  # the kit's fixtures this file uses


async def test_the_first_scan_is_a_silent_baseline(
    run: Any, subs: Subscriptions, site: FakeWillhabenSite, db: Database
) -> None:
    """A new watch's first scan sends no listings, only how many it now watches."""
    await subs.add_watch(1, RTX, max_watches=5)
    site.set_listings(RTX.url, [advert("102"), advert("101")])
    summary = await run()
    assert (summary.scanned, summary.baselines, summary.new, summary.drops) == (1, 1, 0, 0)
    (watch,) = await subs.watches(1)
    assert await outbox(db) == [
        (1, "info", "watching rtx: 2", f"baseline:{watch.id}:{watch.baseline_at:.3f}")
    ]
    assert (watch.baseline_at is not None, watch.listings_known) == (True, 2)
    assert await db.single_value("SELECT COUNT(*) FROM listings") == 2


async def test_new_listings_and_drops_are_enqueued_with_their_keys(
    run: Any, subs: Subscriptions, site: FakeWillhabenSite, db: Database
) -> None:
    """After the baseline an unseen id is new, a lower price a drop; each drop is its own alert."""
    await subs.add_watch(1, RTX, max_watches=5)
    site.set_listings(RTX.url, [advert("101", "400")])
    await run()
    site.set_listings(RTX.url, [advert("102", "50"), advert("101", "400")])
    summary = await run()
    assert (summary.new, summary.drops) == (1, 0)
    site.set_price("101", Decimal("350.00"))
    await run()
    site.set_price("101", Decimal("300"))
    summary = await run()
    assert (summary.new, summary.drops) == (0, 1)
    assert (await outbox(db))[1:] == [
        (1, "new", "new 102", "new:102:1"),
        (1, "drop", "drop 101 400->350", "drop:101:1:400:350"),
        (1, "drop", "drop 101 350->300 path 400->350->300", "drop:101:1:350:300"),
    ]


async def test_a_rise_is_recorded_and_the_next_drop_starts_from_it(
    run: Any, subs: Subscriptions, site: FakeWillhabenSite, db: Database
) -> None:
    """A price that went up sends nothing, but a later drop is measured from the higher price."""
    await subs.add_watch(1, RTX, max_watches=5)
    site.set_listings(RTX.url, [advert("101", "350")])
    await run()
    site.set_price("101", Decimal("380"))
    assert (await run()).drops == 0
    site.set_price("101", Decimal("360"))
    await run()
    assert [row[2] for row in await outbox(db)][1:] == ["drop 101 380->360 path 350->380->360"]


async def test_scanning_the_same_page_again_enqueues_nothing(
    run: Any, subs: Subscriptions, site: FakeWillhabenSite, db: Database
) -> None:
    """Re-running a scan over an unchanged page adds no notification."""
    await subs.add_watch(1, RTX, max_watches=5)
    site.set_listings(RTX.url, [advert("101")])
    await run()
    site.set_listings(RTX.url, [advert("102"), advert("101")])
    await run()
    before = await outbox(db)
    summary = await run()
    assert (summary.new, summary.drops, summary.baselines) == (0, 0, 0)
    assert await outbox(db) == before


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


async def test_resuming_starts_with_a_silent_baseline(
    run: Any, subs: Subscriptions, site: FakeWillhabenSite, db: Database
) -> None:
    """What appeared while a watch was paused is not sent as new; the resumed watch is told
    again how many listings it now watches."""
    await subs.add_watch(1, RTX, max_watches=5)
    site.set_listings(RTX.url, [advert("101")])
    await run()
    await subs.set_paused(1, 1, paused=True)
    site.set_listings(RTX.url, [advert("103"), advert("102"), advert("101")])
    await run()
    await subs.set_paused(1, 1, paused=False)
    summary = await run()
    assert (summary.baselines, summary.new) == (1, 0)
    assert [row[1:3] for row in await outbox(db)] == [
        ("info", "watching rtx: 1"),
        ("info", "watching rtx: 3"),
    ]


async def test_search_ids_limit_the_scan(
    run: Any, subs: Subscriptions, site: FakeWillhabenSite
) -> None:
    """Given search_ids (a new watch's immediate baseline), only those searches are fetched."""
    await subs.add_watch(1, RTX, max_watches=5)
    sofa = await subs.add_watch(1, SOFA, max_watches=5)
    summary = await run(search_ids=[sofa.search_id])
    assert (summary.scanned, fetched(site)) == (1, Counter({"sofa": 1}))


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


async def test_bumped_adverts_moving_to_the_top_are_not_new(
    run: Any, subs: Subscriptions, site: FakeWillhabenSite, db: Database
) -> None:
    """A seen advert bumped to the top sends nothing; after a baseline that read the whole
    search, an unseen bumped one was not there then and is new, whatever its id (issue 9)."""
    await subs.add_watch(1, RTX, max_watches=5)
    site.set_listings(RTX.url, [advert("503"), advert("502"), advert("501")])
    await run()
    site.set_listings(
        RTX.url,
        [
            advert("501", bumped=True),
            advert("420", bumped=True),
            advert("504"),
            advert("503"),
            advert("502"),
        ],
    )
    summary = await run()
    assert summary.new == 2
    assert [row[2] for row in await outbox(db)][1:] == ["new 420", "new 504"]
    (watch,) = await subs.watches(1)
    assert watch.listings_known == 5


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


async def test_an_older_advert_sliding_onto_a_full_page_is_not_new(
    run: Any, subs: Subscriptions, site: FakeWillhabenSite, db: Database, clock: FakeClock
) -> None:
    """When an advert on a full first page is sold, the older one that moves up (from beyond a
    baseline that could not read the whole search) is recorded silently; one published after
    the watch started is new even with a lower id (review of issue 3)."""
    await subs.add_watch(1, RTX, max_watches=5)
    # willhaben reports 5,000 found: more than any baseline reads, so the page is all it knows.
    site.intercept(
        lambda request: httpx.Response(
            200, text=render_search_page(site.listings(RTX.url), rows_found=5000)
        )
    )
    hour_ago = int((clock.now - 3600) * 1000)
    site.set_listings(
        RTX.url, [advert(str(i), published_ms=hour_ago + i) for i in range(130, 125, -1)]
    )
    await run()  # the baseline: 130..126 of more, older adverts
    site.set_listings(
        RTX.url, [advert(str(i), published_ms=hour_ago + i) for i in (130, 129, 127, 126, 125)]
    )  # 128 sold: 125 slides up
    summary = await run()
    assert summary.new == 0
    fresh = advert("124", published_ms=int(clock.now * 1000))  # an older id, published now
    site.set_listings(RTX.url, [fresh, *site.listings(RTX.url)[:4]])
    summary = await run()
    assert summary.new == 1
    assert [row[3] for row in await outbox(db) if row[1] == "new"] == ["new:124:1"]
    (watch,) = await subs.watches(1)
    assert watch.listings_known == 7


async def test_the_watches_of_a_search_ask_about_its_adverts_once(
    run: Any, subs: Subscriptions, site: FakeWillhabenSite, db: Database
) -> None:
    """What the watches of a read have seen of its adverts, the adverts' price paths and when
    they were first seen are one query each, however many watches judge them (issue 26)."""
    for chat in (1, 2, 3):
        await subs.add_watch(chat, RTX, max_watches=5)
    site.set_listings(RTX.url, [advert("101", "400")])
    await run()
    site.set_listings(RTX.url, [advert("102", "50"), advert("101", "300")])
    statements: list[str] = []
    async with db.transaction() as conn:  # the writer connection, which the scan uses
        await conn.set_trace_callback(statements.append)
    summary = await run()
    async with db.transaction() as conn:
        await conn.set_trace_callback(None)
    assert (summary.new, summary.drops) == (3, 3)
    asked = Counter(
        what
        for statement in statements
        for what, sql in (
            ("seen", "FROM watch_listings WHERE"),
            ("paths", "SELECT ad_id, seen_at, price FROM price_history"),
            ("first seen", "SELECT ad_id, first_seen_at FROM listings"),
        )
        if sql in statement
    )
    assert asked == Counter({"seen": 1, "paths": 1, "first seen": 1})


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
