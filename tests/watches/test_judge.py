"""Judging a watch (`habicht.watches.judge`) through real scans: the silent baseline, new
listings and drops with their keys, rises, idempotence, resumed watches, bumped and sliding
adverts, and one query per question however many watches judge a read."""

from __future__ import annotations

from collections import Counter
from decimal import Decimal
from typing import Any

import httpx
from kit.fakes import FakeClock
from kit.scans import RTX, advert, client, outbox, run, site

from habicht.db import Database
from habicht.fakes import render_search_page
from habicht.fakes.willhaben_site import FakeWillhabenSite
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
            ("seen", "CROSS JOIN watch_listings w"),
            ("paths", "SELECT ad_id, seen_at, price FROM price_history"),
            ("first seen", "SELECT ad_id, first_seen_at FROM listings"),
        )
        if sql in statement
    )
    assert asked == Counter({"seen": 1, "paths": 1, "first seen": 1})
