"""/preview's judgement (issue 21): what a watch's filter did with its search's latest read,
from the database alone and through the scan's own code."""

from __future__ import annotations

import random
from decimal import Decimal
from typing import Any

import pytest
from kit.fakes import FakeClock, TextRenderer

from habicht.db import Database
from habicht.fakes import FakeAdvert, render_search_page
from habicht.fakes.willhaben_site import MARKETPLACE
from habicht.fakes.willhaben_site import FakeWillhabenSite as Site  # short for the signatures
from habicht.market.listings import record_shown
from habicht.scraper.scan import scan
from habicht.watches.filters import WatchFilter
from habicht.watches.preview import EXAMPLES
from habicht.watches.subscriptions import Subscriptions
from habicht.willhaben.fetch import WillhabenClient
from habicht.willhaben.parse import parse_search_page
from habicht.willhaben.urls import parse_watch_argument

SOFA = parse_watch_argument("sofa")
CHAT = 4242
RULES = ("+sofa", "-defekt", "max 500", "priced", "private", "drop 10%", "lowest")


@pytest.fixture
def run(db: Database, client: WillhabenClient, clock: FakeClock) -> Any:
    async def run_scan() -> None:
        clock.advance(300)
        await scan(db, client, TextRenderer(), clock=clock, max_attempts=5)

    return run_scan


def page(rand: random.Random) -> list[FakeAdvert]:
    """A real-shaped page of 30 adverts with random 10-digit ids: most pass the filter of
    `RULES`, the others are hidden each by a different first rule; two are reserved, two
    bumped to the top."""
    ids = iter(str(rand.randrange(10**9, 10**10)) for _ in range(40))

    def sofa(title: str = "Sofa", price: int | None = 300, **details: Any) -> FakeAdvert:
        return FakeAdvert(next(ids), title, None if price is None else Decimal(price), **details)

    adverts = [
        sofa("Ecksofa, gebraucht", 250, bumped=True),
        sofa("Sofa mit Bettfunktion", 420, bumped=True),
        *(sofa(f"Sofa Nr. {n}", 200 + 10 * n) for n in range(14)),
        sofa("Sofa reserviert", 100, reserved=True),
        sofa("Sofa, auch reserviert", 700, reserved=True),
        sofa("Sessel", 80),  # +sofa
        sofa("Stuhl", 90),  # +sofa
        sofa("Sofa, DEFEKT", 50),  # -defekt
        sofa("Schlafsofa", 60, body="leider defekte Feder"),  # -defekt, in the snippet
        sofa("Defektes Sofa", 900),  # -defekt comes before max 500
        sofa("Designersofa", 1200),  # max 500
        sofa("Ledersofa", 800),  # max 500
        sofa("Samtsofa", 650),  # max 500
        sofa("Sofa zu verschenken", None),  # priced
        sofa("Händlersofa", 300, private=False),  # private
        sofa("Händlersofa 2", 310, private=False),  # private
        sofa("Händlersofa 3", 320, private=False),  # private
    ]
    assert len(adverts) == 30
    return adverts


async def test_a_preview_counts_what_the_scan_would_alert_and_what_each_rule_hid(
    run: Any, subs: Subscriptions, site: Site, db: Database, clock: FakeClock
) -> None:
    """On a 30-advert page with reserved and bumped adverts, the preview lets through exactly
    the adverts the scan alerted, and counts under each rule the adverts the scan noted it
    hid (the first rule that hid each); reserved adverts are in neither."""
    await subs.add_watch(CHAT, SOFA, max_watches=5)
    await run()  # the baseline, of an empty search
    await subs.set_filter(CHAT, 1, WatchFilter().with_rules(RULES))
    site.set_listings(MARKETPLACE, page(random.Random(21)))
    await run()
    alerted = {row[0] for row in await db.fetchall("SELECT ad_id FROM notifications")}
    alerted.discard(None)
    hits = await db.fetchall("SELECT rule, COUNT(*) FROM filter_hits GROUP BY rule")

    preview = await subs.preview(CHAT, 1)

    assert preview is not None
    assert preview.scanned_at == clock()
    assert preview.adverts == 28  # 30 less the two reserved
    assert preview.alerted.count == 16 == len(alerted)
    assert {example.listing.id for example in preview.alerted.examples} <= alerted
    assert [(outcome.rule, outcome.count) for outcome in preview.hidden] == [
        ("+sofa", 2),
        ("-defekt", 3),
        ("max 500", 3),
        ("priced", 1),
        ("private", 3),
    ]
    assert {outcome.rule: outcome.count for outcome in preview.hidden} == dict(
        (row[0], row[1]) for row in hits
    )
    for outcome in (preview.alerted, *preview.hidden):
        assert len(outcome.examples) == min(EXAMPLES, outcome.count)
    titles = {example.listing.title for example in preview.hidden[1].examples}
    assert titles == {"Sofa, DEFEKT", "Schlafsofa", "Defektes Sofa"}
    assert preview.price_rules == ("drop 10%", "lowest")


async def test_the_adverts_come_back_as_the_scan_read_them(
    run: Any, subs: Subscriptions, site: Site, client: WillhabenClient
) -> None:
    """Every field a rule may judge is rebuilt from the database as the page had it: title,
    price, description, seller type, place, coordinates and seller."""
    site.set_listings(MARKETPLACE, page(random.Random(3)))
    await subs.add_watch(CHAT, SOFA, max_watches=5)
    await run()
    read = parse_search_page(render_search_page(site.listings(MARKETPLACE)).encode())
    expected = {listing.id: listing for listing in read.listings if not listing.reserved}

    preview = await subs.preview(CHAT, 1)

    assert preview is not None
    assert preview.alerted.count == 28
    for example in preview.alerted.examples:
        listing, original = example.listing, expected[example.listing.id]
        for name in (
            "title",
            "price",
            "price_display",
            "location",
            "postcode",
            "url",
            "body",
            "is_private",
            "coordinates",
            "seller_id",
        ):
            assert getattr(listing, name) == getattr(original, name), name


async def test_a_watch_whose_search_was_never_scanned_has_nothing_to_preview(
    subs: Subscriptions, site: Site
) -> None:
    await subs.add_watch(CHAT, SOFA, max_watches=5)
    preview = await subs.preview(CHAT, 1)
    assert preview is not None
    assert (preview.scanned_at, preview.adverts, preview.alerted.count) == (None, 0, 0)
    assert preview.hidden == ()
    assert len(site.log) == 0


async def test_no_such_watch_is_none(subs: Subscriptions) -> None:
    await subs.add_watch(CHAT, SOFA, max_watches=5)
    assert await subs.preview(CHAT, 2) is None
    assert await subs.preview(CHAT + 1, 1) is None


async def test_only_the_latest_read_counts_and_what_the_feed_matched_since(
    run: Any, subs: Subscriptions, site: Site, db: Database, clock: FakeClock
) -> None:
    """An advert gone from the pages by the latest scan is not previewed; one the search's
    feed matched after it is (it is as much the search's as the scan's own pages), and no
    request is made for the preview."""
    rand = random.Random(5)
    old, kept, fed = (FakeAdvert(str(rand.randrange(10**9, 10**10)), t) for t in "ABC")
    site.set_listings(MARKETPLACE, [old, kept])
    await subs.add_watch(CHAT, SOFA, max_watches=5)
    await run()
    site.set_listings(MARKETPLACE, [kept])
    await run()
    requests = len(site.log)
    clock.advance(60)
    async with db.transaction() as conn:  # the feed's local match, as `feeds._record` notes it
        (listing,) = parse_search_page(render_search_page([fed]).encode()).listings
        await conn.execute(
            "INSERT INTO listings (ad_id, title, url, first_seen_at, updated_at)"
            " VALUES (?, ?, ?, ?, ?)",
            (listing.id, listing.title, listing.url, clock(), clock()),
        )
        await record_shown(conn, 1, [listing], now=clock())

    preview = await subs.preview(CHAT, 1)

    assert preview is not None
    assert [example.listing.id for example in preview.alerted.examples] == [fed.id, kept.id]
    assert len(site.log) == requests


async def test_examples_are_the_newest_in_the_search_and_carry_the_alerts_notes(
    run: Any, subs: Subscriptions, site: Site, clock: FakeClock
) -> None:
    """The examples are the adverts the search showed most recently first (of a watch
    without a filter, which lets all through); their notes are the ones an alert would carry
    (here the going price of a search with 27 prices)."""
    adverts = page(random.Random(8))
    site.set_listings(MARKETPLACE, adverts[16:])
    await subs.add_watch(CHAT, SOFA, max_watches=5)
    await run()
    site.set_listings(MARKETPLACE, adverts)  # the first 16 come new, after the others
    await run()

    preview = await subs.preview(CHAT, 1)

    assert preview is not None
    assert preview.alerted.count == 28
    shown = [example.listing.id for example in preview.alerted.examples]
    assert len(shown) == EXAMPLES
    assert set(shown) <= {advert.id for advert in adverts[:16]}
    going = preview.alerted.examples[0].notes.going
    assert going is not None
    assert going.count == 27  # the price-less one has none


async def test_a_paused_or_muted_watch_previews_too(
    run: Any, subs: Subscriptions, site: Site, clock: FakeClock
) -> None:
    site.set_listings(MARKETPLACE, page(random.Random(13)))
    await subs.add_watch(CHAT, SOFA, max_watches=5)
    await run()
    (watch,) = await subs.watches(CHAT)
    await subs.mute(watch.id, until=clock() + 3600)
    muted = await subs.preview(CHAT, 1)
    assert muted is not None
    assert (muted.muted_until, muted.alerted.count) == (clock() + 3600, 28)

    await subs.set_paused(CHAT, 1, paused=True)
    paused = await subs.preview(CHAT, 1)
    assert paused is not None
    assert (paused.watch.paused, paused.alerted.count) == (True, 28)

    clock.advance(3601)
    over = await subs.preview(CHAT, 1)
    assert over is not None
    assert over.muted_until is None
