"""What a read keeps of its adverts for issue 21: where each is and who sells it, which adverts
each search showed and when, and the going price its alerts carry."""

from __future__ import annotations

import random
from decimal import Decimal

import pytest
from kit.fakes import FakeClock, TextRenderer

from habicht.db import Database
from habicht.fakes import FakeAdvert
from habicht.fakes.willhaben_site import MARKETPLACE, FakeWillhabenSite
from habicht.market.listings import (
    Stored,
    count_listings,
    first_seen,
    latest_shown,
    prices,
    record_listings,
    record_shown,
    shown_ads,
    stored,
    take_back_shown,
)
from habicht.model import Listing
from habicht.scraper.scan import scan
from habicht.watches.subscriptions import Subscriptions
from habicht.willhaben.fetch import WillhabenClient
from habicht.willhaben.urls import parse_watch_argument

SOFA = parse_watch_argument("sofa")


def page_of_30(clock: FakeClock) -> list[FakeAdvert]:
    """A real-shaped page: 30 adverts with random ids, three bumped, one reserved, one
    without coordinates, prices around € 300."""
    rand = random.Random(21)
    ids = rand.sample(range(500_000_000, 2_200_000_000), 30)
    published = int(clock() * 1000)
    return [
        FakeAdvert(
            str(ad_id),
            f"Sofa {n}",
            Decimal(250 + 5 * n),
            published_ms=published,
            bumped=n < 3,
            reserved=n == 5,
            coordinates=None if n == 7 else (48.2 + n / 1000, 16.3),
            seller=f"{4000 + n}",
            private=n % 2 == 0,
        )
        for n, ad_id in enumerate(ids)
    ]


@pytest.fixture
async def adverts(
    db: Database,
    subs: Subscriptions,
    site: FakeWillhabenSite,
    client: WillhabenClient,
    clock: FakeClock,
    renderer: TextRenderer,
) -> list[FakeAdvert]:
    """The page of 30 on willhaben, watched and read once (the baseline)."""
    adverts = page_of_30(clock)
    site.set_listings(MARKETPLACE, adverts)
    await subs.add_watch(1, SOFA, max_watches=5)
    await scan(db, client, renderer, clock=clock, max_attempts=5)
    return adverts


@pytest.fixture
def renderer() -> TextRenderer:
    return TextRenderer()


async def test_a_read_keeps_the_place_seller_and_text_of_each_advert_and_what_its_search_showed(
    db: Database,
    site: FakeWillhabenSite,
    client: WillhabenClient,
    clock: FakeClock,
    adverts: list[FakeAdvert],
) -> None:

    rows = {
        row["ad_id"]: tuple(row)[1:]
        for row in await db.fetchall(
            "SELECT ad_id, lat, lon, seller_id, body, is_private FROM listings"
        )
    }
    first, no_place = adverts[0], adverts[7]
    assert rows[first.id] == (48.2, 16.3, "4000", first.description, 1)
    assert rows[no_place.id][:3] == (None, None, "4007")
    shown = await db.fetchall("SELECT ad_id, first_seen_at, last_seen_at FROM search_listings")
    # The reserved advert is not on the page for any watch, so the search did not show it.
    assert {row["ad_id"] for row in shown} == {a.id for a in adverts} - {adverts[5].id}
    assert {(row["first_seen_at"], row["last_seen_at"]) for row in shown} == {(clock(),) * 2}

    started = clock()
    clock.advance(300)
    site.remove(MARKETPLACE, adverts[10].id)
    await scan(db, client, TextRenderer(), clock=clock, max_attempts=5)
    shown = await db.fetchall("SELECT ad_id, first_seen_at, last_seen_at FROM search_listings")
    times = {row["ad_id"]: (row["first_seen_at"], row["last_seen_at"]) for row in shown}
    assert times[adverts[10].id] == (started, started)  # gone: last shown at the first read
    assert times[adverts[11].id] == (started, clock())


async def test_alerts_carry_the_going_price_of_their_search(
    db: Database,
    site: FakeWillhabenSite,
    client: WillhabenClient,
    clock: FakeClock,
    adverts: list[FakeAdvert],
    renderer: TextRenderer,
) -> None:
    clock.advance(300)
    fresh = FakeAdvert("77", "Sofa neu", Decimal(200), published_ms=int(clock() * 1000))
    site.add(MARKETPLACE, fresh)
    await scan(db, client, renderer, clock=clock, max_attempts=5)

    going = renderer.notes[fresh.id].going
    assert going is not None
    # 29 shown adverts of the first read (the reserved one is not shown) and the new one.
    assert going.count == 30
    assert going.percent_under(Decimal(200)) > 0


async def test_prices_are_the_latest_stored_and_leave_unread_adverts_out(
    db: Database, adverts: list[FakeAdvert]
) -> None:
    """Issue 37: each read advert's price as stored (the scan's feed misses compare it with
    the feed's), and an advert never read is not there."""
    known = await prices(db.reader, [adverts[0].id, adverts[1].id, "never-read"])
    assert known == {adverts[0].id: "250", adverts[1].id: "255"}


async def test_take_back_shown_undoes_only_the_sightings_since_a_time(
    db: Database, clock: FakeClock, adverts: list[FakeAdvert]
) -> None:
    """Issue 37: a sighting first recorded at or after `since` is taken back (the feed leaves
    the advert to its search's own scan); an older one stays."""
    (search_id,) = {row[0] for row in await db.fetchall("SELECT search_id FROM search_listings")}
    clock.advance(60)
    new = Listing("1234567", "Sofa", None, None, None, None, "https://x/1", None, None, False)
    async with db.transaction() as conn:
        await record_listings(conn, [new], now=clock())
        await record_shown(conn, search_id, [new], now=clock())
        await take_back_shown(conn, {search_id: {new.id, adverts[0].id}}, since=clock())
    shown = {row[0] for row in await db.fetchall("SELECT ad_id FROM search_listings")}
    assert new.id not in shown
    assert adverts[0].id in shown


async def test_shown_ads_and_latest_shown_answer_what_a_search_showed(
    db: Database, site: FakeWillhabenSite, clock: FakeClock, adverts: list[FakeAdvert]
) -> None:
    """Issue 37: the watches ask here which adverts a search ever showed (each once) and
    which it showed since a time, as last read and the newest in the search first."""
    (search_id,) = {row[0] for row in await db.fetchall("SELECT search_id FROM search_listings")}
    started = clock()
    clock.advance(60)
    new = Listing("1234567", "Sofa", Decimal(99), None, None, None, "https://x/1", None, None, True)
    async with db.transaction() as conn:
        await record_listings(conn, [new], now=clock())
        await record_shown(conn, search_id, [new], now=clock())

    shown = await shown_ads(db.reader, search_id)
    assert sorted(shown) == sorted({a.id for a in adverts} - {adverts[5].id} | {new.id})
    assert await shown_ads(db.reader, search_id + 1) == []

    (latest,) = await latest_shown(db.reader, search_id, since=clock())
    assert (latest.id, latest.price, latest.url, latest.bumped) == (new.id, 99, new.url, False)
    every = await latest_shown(db.reader, search_id, since=started)
    assert every[0].id == new.id
    assert len(every) == len(shown)
    first = next(listing for listing in every if listing.id == adverts[0].id)
    assert (first.coordinates, first.seller_id, first.is_private) == ((48.2, 16.3), "4000", True)


async def test_stored_first_seen_and_count_answer_what_the_market_keeps_of_adverts(
    db: Database, clock: FakeClock, adverts: list[FakeAdvert]
) -> None:
    """Issue 37: the watches ask here for adverts as last read, when each was first read and
    how many are kept; an advert never read is left out."""
    first = adverts[0]
    known = await stored(db.reader, [first.id, "never-read"])
    assert known == {
        first.id: Stored(first.id, first.title, known[first.id].url, Decimal(250), "€ 250")
    }
    assert first.id in known[first.id].url
    assert await first_seen(db.reader, [first.id, "never-read"]) == {first.id: clock()}
    assert await count_listings(db.reader) == 30
