"""A real-estate search's own scan: the paid placement is not a flat of your search, and a
building project comes by the search's own scan (issue 29).

Real scans (`scan`, a real SQLite file, real httpx over loopback) against the fake willhaben
serving pages built from the saved real-estate page (`kit.flat_pages`)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from decimal import Decimal
from typing import Any

import httpx
import pytest
from kit import willhaben_client
from kit.fakes import FakeClock, TextRenderer
from kit.flat_pages import FlatPages, flat, flats_page

from habicht.db import Database
from habicht.fakes.willhaben_site import FakeWillhabenSite
from habicht.market.going import going_price
from habicht.model import Listing, Search
from habicht.scraper.feeds import Feed, assign_feeds, scan_feed
from habicht.scraper.scan import ScanSummary, Tally, scan
from habicht.watches.subscriptions import Subscriptions
from habicht.willhaben.fetch import WillhabenClient
from habicht.willhaben.local import local_search
from habicht.willhaben.parse import parse_search_page
from habicht.willhaben.urls import parse_watch_argument

TIROL_PATH = "/iad/immobilien/mietwohnungen/tirol"
TIROL = parse_watch_argument(f"https://www.willhaben.at{TIROL_PATH}?PRICE_TO=1150")
"""The issue's Tirol search capped at € 1,150, on whose page a € 1,695 Vienna flat is paid
to stand on top."""
NEUBAU_PATH = "/iad/immobilien/mietwohnungen/wien/wien-1070-neubau"
NEUBAU = parse_watch_argument(f"https://www.willhaben.at{NEUBAU_PATH}?NO_OF_ROOMS_BUCKET=2X2")


def tirol(ad_id: str, price: str = "900") -> dict[str, Any]:
    return flat(ad_id, price, state="Tirol", district="70101")


def vienna_placement(ad_id: str) -> dict[str, Any]:
    return flat(ad_id, "1695", placement=True)


@pytest.fixture
def pages() -> FlatPages:
    return FlatPages()


@pytest.fixture
def site(pages: FlatPages) -> FakeWillhabenSite:
    site = FakeWillhabenSite()
    site.intercept(pages)
    return site


@pytest.fixture
def server(site: FakeWillhabenSite) -> Iterator[str]:
    with site.serve() as loopback:
        yield loopback.base_url


@pytest.fixture
async def client(server: str, clock: FakeClock) -> AsyncIterator[WillhabenClient]:
    async with willhaben_client(httpx.AsyncHTTPTransport(), clock, base_url=server) as willhaben:
        yield willhaben


@pytest.fixture
def run(db: Database, client: WillhabenClient, clock: FakeClock) -> Any:
    async def run_scan() -> ScanSummary:
        clock.advance(300)
        return await scan(db, client, TextRenderer(), clock=clock, max_attempts=5)

    return run_scan


def parsed(advert: dict[str, Any]) -> Listing:
    """`advert` as the parser reads it from a page of its own."""
    (listing,) = parse_search_page(flats_page([advert])).listings
    return listing


async def alerts(db: Database) -> list[str]:
    rows = await db.fetchall("SELECT text FROM notifications WHERE kind != 'info' ORDER BY id")
    return [row["text"] for row in rows]


async def shown(db: Database, search: Search) -> set[str]:
    """The adverts recorded as the search's listings (what its going price reads)."""
    rows = await db.fetchall(
        "SELECT l.ad_id FROM search_listings l JOIN searches s ON s.id = l.search_id"
        " WHERE s.url = ?",
        (search.url,),
    )
    return {row["ad_id"] for row in rows}


async def test_the_placement_is_never_alerted_to_a_search_it_does_not_fit(
    run: Any, subs: Subscriptions, pages: FlatPages, db: Database
) -> None:
    """A Vienna flat paid onto the Tirol search's page after its baseline is no new flat of
    the search, nor is one without the marker that the search's place and price exclude; the
    Tirol flat beside them is."""
    await subs.add_watch(1, TIROL, max_watches=5)
    pages.show(TIROL_PATH, [tirol("1")])
    await run()
    unmarked = flat("3", "1695")  # a placement whose marker is missing: Wien, € 1,695
    pages.show(TIROL_PATH, [vienna_placement("2"), unmarked, tirol("4"), tirol("1")], rows_found=4)
    summary = await run()
    assert (summary.new, await alerts(db)) == (1, ["new 4"])
    assert await shown(db, TIROL) == {"1", "4"}


async def test_a_rotating_placement_is_never_alerted_nor_in_the_going_price(
    run: Any, subs: Subscriptions, pages: FlatPages, db: Database, clock: FakeClock
) -> None:
    """The issue's case: the placement rotates between two reads of a search it does not
    fit; neither is announced, and the going price counts only the Tirol flats ("Median von
    25" in Tirol no longer counts the Vienna flat)."""
    await subs.add_watch(1, TIROL, max_watches=5)
    flats = [tirol(str(n), str(800 + n)) for n in range(10, 22)]
    pages.show(TIROL_PATH, [vienna_placement("2"), *flats])
    await run()
    pages.show(TIROL_PATH, [vienna_placement("3"), *flats])
    await run()
    pages.show(TIROL_PATH, [vienna_placement("2"), *flats])
    await run()
    assert await alerts(db) == []
    assert await shown(db, TIROL) == {str(n) for n in range(10, 22)}
    search_id = await db.single_value("SELECT id FROM searches WHERE url = ?", (TIROL.url,))
    async with db.transaction() as conn:
        stats = await going_price(conn, search_id, now=clock())
    assert stats is not None
    # Per m² (flats compare like with like): the Tirol flats' median rent over their 50 m².
    assert (stats.count, stats.median, stats.per_m2) == (12, Decimal("815.5") / 50, True)


async def test_a_placement_that_fits_is_judged_by_its_own_entry_once(
    run: Any, subs: Subscriptions, pages: FlatPages, db: Database
) -> None:
    """A page may hold the same flat twice, paid on top and in its own place: it is one new
    flat of the search, alerted once; and a baseline that saw every entry rowsFound counted
    is complete."""
    await subs.add_watch(1, TIROL, max_watches=5)
    pages.show(TIROL_PATH, [tirol("9", "1000"), tirol("1")], rows_found=2)
    await run()
    placement = tirol("5", "1100")
    placement["attributes"]["attribute"].append({"name": "REFERER", "values": ["pp"]})
    pages.show(TIROL_PATH, [placement, tirol("5", "1100"), tirol("9", "1000"), tirol("1")])
    await run()
    await run()
    assert await alerts(db) == ["new 5"]
    (watch,) = await subs.watches(1)
    complete = await db.single_value(
        "SELECT baseline_complete FROM watches WHERE id = ?", (watch.id,)
    )
    assert complete == 1


async def test_a_building_project_is_never_local_but_its_search_still_alerts_it(
    run: Any, subs: Subscriptions, pages: FlatPages, db: Database, clock: FakeClock
) -> None:
    """Trap 2: a project listed through its units has no rooms of its own, so the local
    search never matches it; the search's own scan sends it like any new flat."""
    search = local_search(NEUBAU.url)
    project = flat("16", "213000", ad_type=16, rooms="0X0")
    assert search is not None
    assert search.matches(parsed(flat("1")))
    await subs.add_watch(1, NEUBAU, max_watches=5)
    pages.show(NEUBAU_PATH, [flat("1")])
    await run()
    pages.show(NEUBAU_PATH, [project, flat("1")])
    await run()
    assert await alerts(db) == ["new 16"]
    assert not search.matches(parsed(project))
    await assign_feeds(db, now=clock())
    assert await db.single_value("SELECT local FROM searches WHERE url = ?", (NEUBAU.url,)) == 1


async def test_a_flat_search_with_a_keyword_only_the_marketplace_decides_is_fed(
    subs: Subscriptions, db: Database, clock: FakeClock
) -> None:
    """The same district search is served by the rental feed, with a keyword too (issue 36:
    its words, by the marketplace's rules), and with a keyword the marketplace cannot decide
    (an exclusion) polled on its own."""
    worded = parse_watch_argument(f"https://www.willhaben.at{NEUBAU_PATH}?keyword=altbau")
    excluded = parse_watch_argument(f"https://www.willhaben.at{NEUBAU_PATH}?keyword=-altbau")
    for search in (NEUBAU, worded, excluded):
        await subs.add_watch(1, search, max_watches=5)
    await assign_feeds(db, now=clock())
    rows = await db.fetchall(
        "SELECT s.url, s.local, f.url AS feed FROM searches s LEFT JOIN feeds f"
        " ON f.id = s.feed_id ORDER BY s.id"
    )
    feed = "https://www.willhaben.at/iad/immobilien/mietwohnungen/mietwohnung-angebote?sort=1"
    assert [(row["url"], row["local"], row["feed"]) for row in rows] == [
        (NEUBAU.url, 1, feed),
        (worded.url, 1, feed),
        (excluded.url, 0, None),
    ]


async def test_a_feed_read_drops_the_placement_and_judges_its_own_entry(
    run: Any,
    subs: Subscriptions,
    pages: FlatPages,
    db: Database,
    client: WillhabenClient,
    clock: FakeClock,
) -> None:
    """The rental feed's placement is neither matched nor remembered as shown (no anchor):
    when the flat later stands in its own place on the feed, it is judged as every advert,
    and its search hears of it from the feed."""
    await subs.add_watch(1, NEUBAU, max_watches=5)
    await subs.add_watch(2, TIROL, max_watches=5)
    pages.show(NEUBAU_PATH, [])
    pages.show(TIROL_PATH, [])
    await run()
    await assign_feeds(db, now=clock())
    row = (await db.fetchall("SELECT id, url FROM feeds"))[0]
    feed = Feed(row["id"], row["url"])
    feed_path = "/iad/immobilien/mietwohnungen/mietwohnung-angebote"
    pages.show(feed_path, [vienna_placement("2"), flat("1")], rows_found=2)
    await read_feed(db, client, feed, clock)
    assert await alerts(db) == ["new 1"]
    shown_by_feed = await db.fetchall("SELECT ad_id FROM feed_listings")
    assert [row["ad_id"] for row in shown_by_feed] == ["1"]
    pages.show(feed_path, [vienna_placement("3"), flat("2", "1695"), flat("1")], rows_found=3)
    await read_feed(db, client, feed, clock)
    assert await alerts(db) == ["new 1", "new 2"]


async def read_feed(db: Database, client: WillhabenClient, feed: Feed, clock: FakeClock) -> None:
    clock.advance(60)
    tally = Tally()
    kind = await scan_feed(
        db, client, TextRenderer(), feed, clock=clock, max_attempts=5, tally=tally
    )
    assert (kind, tally.feeds) == (None, 1)
