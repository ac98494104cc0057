"""Issue 20: one shared feed serves every local search, matched locally, within a feed
interval; each search's own scan is the safety net — through the real client, scheduler and
SQLite file, against the fake willhaben world."""

from __future__ import annotations

import logging
import random
from collections import Counter
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from kit.fakes import FakeClock, TextRenderer
from kit.feeds import (
    AREA,
    CADENCE,
    CARDS,
    FEED,
    GAMING,
    INTERVAL,
    MARKET,
    PASS_EVERY,
    RTX,
    alerts,
    client,
    make,
    one_pass,
    passes,
    run,
    started,
    world,
)

from habicht.db import Database
from habicht.fakes import FakeAdvert
from habicht.fakes.willhaben_estate import PLACES, FakeUnit, Place
from habicht.fakes.willhaben_flats import PLACEMENTS, flat, project
from habicht.fakes.willhaben_site import FakeWillhabenSite, SiteFault
from habicht.scraper.schedule import run_pass
from habicht.watches.filters import WatchFilter
from habicht.watches.subscriptions import Subscriptions
from habicht.willhaben.fetch import WillhabenClient
from habicht.willhaben.urls import parse_watch_argument

__all__ = ["client", "make", "run", "world"]  # the kit's fixtures this file uses

RENTALS = "https://www.willhaben.at/iad/immobilien/mietwohnungen"
VIENNA = parse_watch_argument(f"{RENTALS}/wien")
NEUBAU = parse_watch_argument(f"{RENTALS}/wien/wien-1070-neubau")
"""Two flat searches to rent, served by the rent feed."""


async def test_a_keyword_watch_and_a_url_watch_share_one_feed_request_a_minute(
    db: Database, subs: Subscriptions, world: FakeWillhabenSite, run: Any, make: Any
) -> None:
    """`/watch rtx 3080` and a category URL with a keyword and a price cap: one request for
    the marketplace's newest adverts a minute serves both; their own scans use the budget
    that is left, every scrape interval (issue 26). A new matching advert is alerted from the
    feed within the minute, once per chat, and the own scans later send nothing more."""
    world.publish(*make(30, "Grafikkarte alt", age=30 * 86400))
    await started(subs, run, (1, RTX), (2, GAMING), (3, RTX))
    world.hits.clear()
    await run(600)
    assert world.hits[FEED] == 10
    assert world.hits[RTX.url] == world.hits[GAMING.url] == 600 / INTERVAL
    card = make(1, "Gigabyte RTX 3080 Gaming OC")[0]
    world.publish(card)
    await run(60)
    assert sorted(await alerts(db)) == [
        (f"new {card.id}", f"new:{card.id}:1", "feed"),
        (f"new {card.id}", f"new:{card.id}:2", "feed"),
        (f"new {card.id}", f"new:{card.id}:3", "feed"),
    ]
    summaries = await run(CADENCE.safety)
    assert len(await alerts(db)) == 3
    assert sum(summary.feed_misses for summary in summaries) == 0


async def test_a_watch_with_an_area_is_polled_as_before(
    db: Database, subs: Subscriptions, world: FakeWillhabenSite, run: Any, make: Any
) -> None:
    """A search with a parameter habicht does not model is not local: scanned every
    HABICHT_SCRAPE_INTERVAL, and the feed never alerts for it."""
    world.publish(*make(5, "RTX 3080 alt", age=86400, params=(("areaId", "900"),)))
    await started(subs, run, (1, RTX), (2, CARDS), (3, AREA))
    world.hits.clear()
    await run(900)
    assert world.hits[AREA.url] == 3
    card = make(1, "RTX 3080", params=(("areaId", "900"),))[0]
    world.publish(card)
    await run(60)
    assert [(key, source) for _, key, source in await alerts(db)] == [
        (f"new:{card.id}:1", "feed"),
        (f"new:{card.id}:2", "feed"),
    ]
    await run(INTERVAL)
    assert (f"new {card.id}", f"new:{card.id}:3", "search") in await alerts(db)


async def test_a_word_beyond_the_snippet_arrives_by_the_safety_net_as_one_feed_miss(
    db: Database,
    subs: Subscriptions,
    world: FakeWillhabenSite,
    run: Any,
    make: Any,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """willhaben finds "gaming" further down the description than the page's snippet shows:
    the feed shows the advert but cannot match it; the search's own scan sends it, counted
    and logged as one feed miss."""
    await started(subs, run, (1, GAMING), (2, RTX))
    hidden = make(1, "Grafikkarte", body="Top Zustand. " + "x " * 150 + "Ideal zum Gaming.")[0]
    world.publish(hidden)
    await run(60)
    assert await alerts(db) == []
    with caplog.at_level(logging.INFO, logger="habicht.scraper.scan"):
        summaries = await run(CADENCE.safety)
    assert await alerts(db) == [(f"new {hidden.id}", f"new:{hidden.id}:1", "search")]
    assert sum(summary.feed_misses for summary in summaries) == 1
    assert (
        await db.single_value("SELECT feed_misses FROM searches WHERE url = ?", (GAMING.url,)) == 1
    )
    assert f"feed miss: search 1 alerts advert {hidden.id}" in caplog.text


async def test_an_old_advert_a_watch_has_seen_stays_silent_when_bumped_into_the_feed(
    db: Database,
    subs: Subscriptions,
    world: FakeWillhabenSite,
    run: Any,
    make: Any,
    clock: FakeClock,
) -> None:
    """A bumped old advert tops the feed with a fresh date; the watches saw it in their
    baselines, so it is silent — and a drop of its price is a drop."""
    old = make(20, "RTX 3080 gebraucht", age=40 * 86400)
    world.publish(*old)
    await started(subs, run, (1, RTX), (2, CARDS))
    world.bump(None, old[5].id, published_ms=int(clock() * 1000))
    await run(60)
    assert await alerts(db) == []
    world.set_price(old[5].id, Decimal(350))
    await run(60)
    assert [(key, source) for _, key, source in await alerts(db)] == [
        (f"drop:{old[5].id}:1:400:350", "feed"),
        (f"drop:{old[5].id}:2:400:350", "feed"),
    ]


async def test_under_load_the_search_latest_against_its_own_interval_goes_first(
    db: Database,
    subs: Subscriptions,
    world: FakeWillhabenSite,
    client: WillhabenClient,
    clock: FakeClock,
    run: Any,
) -> None:
    """Due searches go by how late each is against its own interval, not by their last scan:
    a plain search 700 s past HABICHT_SCRAPE_INTERVAL goes before fed ones 100 s past their
    safety net, though they were scanned longer ago. Ordered by the last scan, a saturated
    budget made the plain searches wait a whole round behind every fed one, later than with
    feeds off (benchmarks/flats.py --full, issue 36's note)."""
    await started(subs, run, (1, RTX), (2, CARDS), (3, AREA))
    now = clock()
    late = {RTX.url: now - CADENCE.safety - 100, CARDS.url: now - CADENCE.safety - 100}
    late[AREA.url] = now - INTERVAL - 700
    async with db.transaction() as conn:
        await conn.executemany(
            "UPDATE searches SET last_attempt_at = ? WHERE url = ?",
            [(at, url) for url, at in late.items()],
        )
    world.log.clear()
    await one_pass(db, client, clock)
    read = [
        str(request.url.copy_remove_param("rows").copy_remove_param("page"))
        for request in world.log
    ]
    assert [url for url in read if url != FEED] == [AREA.url, RTX.url, CARDS.url]


async def test_a_failing_feed_delays_nothing_beyond_the_safety_net(
    db: Database, subs: Subscriptions, world: FakeWillhabenSite, run: Any, make: Any
) -> None:
    """While the feed fails, its searches still get their safety-net scans, and what they
    find arrives then."""
    await started(subs, run, (1, RTX), (2, CARDS))
    card = make(1, "RTX 3080")[0]
    world.publish(card)
    world.fail_next(*[SiteFault.server_error()] * 200, url=FEED)
    await run(CADENCE.safety)
    assert [(key, source) for _, key, source in await alerts(db)] == [
        (f"new:{card.id}:1", "search"),
        (f"new:{card.id}:2", "search"),
    ]
    failures = await db.single_value("SELECT consecutive_failures FROM feeds")
    assert failures > 20


async def test_a_restart_keeps_the_feeds_anchors(
    tmp_path: Path, world: FakeWillhabenSite, client: WillhabenClient, clock: FakeClock, make: Any
) -> None:
    """After a restart the feed still knows what it showed: 300 new adverts in one minute are
    read over two pages, down to the advert it showed last, and all alerted from the feed."""
    path = tmp_path / "habicht.sqlite3"
    world.publish(*make(50, "RTX 3080 alt", age=86400))

    async with Database(path) as db:
        subs = Subscriptions(db, clock=clock)
        await subs.add_watch(1, RTX, max_watches=5)
        await subs.add_watch(2, CARDS, max_watches=5)
        await passes(db, client, clock, 120)
    burst = make(300, "RTX 3080 neu")
    world.publish(*burst)
    async with Database(path) as db:
        await passes(db, client, clock, 60)
        sources = await db.fetchall(
            "SELECT source, count(*) AS n FROM notifications WHERE kind = 'new' GROUP BY source"
        )
    assert {row["source"]: row["n"] for row in sources} == {"feed": 600}


async def test_one_local_search_alone_is_polled_on_its_own(
    db: Database, subs: Subscriptions, world: FakeWillhabenSite, run: Any, make: Any
) -> None:
    """A feed pays only when it replaces requests: a single local search (however many
    watches it has) is scanned every HABICHT_SCRAPE_INTERVAL and no feed is read."""
    world.publish(*make(5, "RTX 3080", age=86400))
    await started(subs, run, (1, RTX), (2, RTX))
    world.hits.clear()
    await run(900)
    assert (world.hits[FEED], world.hits[RTX.url]) == (0, 3)


async def test_a_muted_watch_sees_the_feed_and_says_nothing(
    db: Database,
    subs: Subscriptions,
    world: FakeWillhabenSite,
    run: Any,
    make: Any,
    clock: FakeClock,
) -> None:
    """What the feed shows a muted watch is recorded as seen, not sent: nothing floods in
    when the mute ends, while the other chat hears of it at once."""
    await started(subs, run, (1, RTX), (2, CARDS))
    (muted,) = await subs.watches(1)
    await subs.mute(muted.id, until=clock() + 3600)
    card = make(1, "RTX 3080")[0]
    world.publish(card)
    await run(60)
    assert [key for _, key, _ in await alerts(db)] == [f"new:{card.id}:2"]
    clock.advance(3600)
    await run(CADENCE.safety)
    assert [key for _, key, _ in await alerts(db)] == [f"new:{card.id}:2"]


async def test_a_feed_goes_with_the_last_search_that_used_it(
    db: Database, subs: Subscriptions, world: FakeWillhabenSite, run: Any
) -> None:
    """Feeds are rows created with the searches that use them and dropped with the last."""
    await started(subs, run, (1, RTX), (2, CARDS))
    assert await db.single_value("SELECT count(*) FROM feeds") == 1
    await subs.remove_watch(1, 1)
    await subs.remove_watch(2, 1)
    await run()
    assert await db.single_value("SELECT count(*) FROM feeds") == 0


async def test_the_feed_is_read_every_interval_while_a_long_pass_scans_searches(
    db: Database,
    subs: Subscriptions,
    world: FakeWillhabenSite,
    client: WillhabenClient,
    clock: FakeClock,
    run: Any,
    make: Any,
) -> None:
    """Issue 20 (found by benchmarks/freshness.py): while more searches are due than the
    fetch budget clears in a minute, one pass lasts minutes; the feed is still read every
    HABICHT_FEED_INTERVAL inside it, not once a pass, so a new advert for a local watch
    arrives within the minute however many plain searches wait."""
    areas = [
        parse_watch_argument(f"{MARKET}/pc-komponenten/grafikkarten-5882?areaId={900 + n}")
        for n in range(100)
    ]
    await started(subs, run, (1, RTX), (2, CARDS), *[(10 + n, a) for n, a in enumerate(areas)])
    clock.advance(INTERVAL)  # every search and the feed due at once
    card = make(1, "RTX 3080 neu")[0]
    hits = world.hits[FEED]
    published: list[float] = []

    def progress() -> None:
        """Publish the card just after the pass's first read of the feed."""
        if not published and world.hits[FEED] > hits:
            published.append(clock())
            world.publish(replace(card, published_ms=int(clock() * 1000)))

    summary = await one_pass(db, client, clock, progress)
    # One long pass: the plain searches were due at once, then the budget left scanned the
    # two the feed serves (issue 26).
    assert summary.scanned == 102
    assert world.hits[FEED] - hits == 4  # 200 s: at 0, 60, 120 and 180 s
    enqueued = await db.fetchall(
        "SELECT created_at, source FROM notifications WHERE ad_id = ? ORDER BY id", (card.id,)
    )
    assert [row["source"] for row in enqueued] == ["feed", "feed"]
    assert enqueued[0]["created_at"] - published[0] <= CADENCE.interval + 2 * 2.0


@pytest.mark.parametrize(
    ("fault", "paused_for"),
    [(SiteFault.forbidden(), 600.0), (SiteFault.rate_limited(3600), 3600.0)],
    ids=["403", "429 with Retry-After"],
)
async def test_a_block_of_the_feeds_own_request_pauses_the_feed_not_the_bot(
    db: Database,
    subs: Subscriptions,
    world: FakeWillhabenSite,
    client: WillhabenClient,
    run: Any,
    make: Any,
    clock: FakeClock,
    fault: SiteFault,
    paused_for: float,
) -> None:
    """Issue 36: only the feed's request is refused (403, or 429 with a Retry-After): the
    client is not paused, the feed is off for its backoff (at least the Retry-After), its
    searches are scanned on their own at the scrape interval meanwhile — a new advert comes
    by them — and the feed is read again once the backoff is over."""
    await started(subs, run, (1, RTX), (2, CARDS))
    world.fail_next(*[fault] * 10, url=FEED)
    blocked_at = clock()
    await run(60)
    assert client.paused_until is None, "willhaben as a whole is not backed off from"
    until = await db.single_value("SELECT blocked_until FROM feeds")
    assert until >= blocked_at + paused_for
    world.hits.clear()
    card = make(1, "RTX 3080")[0]
    world.publish(card)
    await run(INTERVAL + 20)
    assert world.hits[FEED] == 0
    assert world.hits[RTX.url] >= 1
    assert [(key, source) for _, key, source in await alerts(db)] == [
        (f"new:{card.id}:1", "search"),
        (f"new:{card.id}:2", "search"),
    ]
    clock.advance(until - clock())
    world.hits.clear()
    await run(60)
    assert world.hits[FEED] >= 1, "read again after its backoff"


async def test_a_town_search_is_fed_once_its_own_reads_taught_it_the_place(
    db: Database, subs: Subscriptions, world: FakeWillhabenSite, run: Any, clock: FakeClock
) -> None:
    """Issue 36: a flat search for two towns (`areaId`s no advert attribute decides) shares
    the rent feed with a Vienna district search. Its baseline listed a flat in Mödling, so
    Mödling is its place: a new flat there comes from the feed within the minute (before,
    the search was plain: its own scan, at the scrape interval). A new flat in
    Perchtoldsdorf, where it listed none yet, is no feed match — it comes by the search's
    own scan, which teaches the place — and the next one there comes from the feed."""
    rent = "https://www.willhaben.at/iad/immobilien/mietwohnungen"
    moedling, perchtoldsdorf = (
        next(place for place in PLACES if place.name == name)
        for name in ("Mödling", "Perchtoldsdorf")
    )
    towns = parse_watch_argument(
        f"{rent}/mietwohnung-angebote?areaId={moedling.location_id}"
        f"&areaId={perchtoldsdorf.location_id}&PRICE_TO=1200"
    )
    neubau = parse_watch_argument(f"{rent}/wien/wien-1070-neubau")

    def published(ad_id: str, place: Place, age: float = 0.0) -> FakeAdvert:
        at = int((clock() - age) * 1000)
        return flat(ad_id, f"Wohnung in {place.name}", 990, place=place, published_ms=at)

    world.publish(published("900000001", moedling, age=86400))
    await started(subs, run, (1, towns), (2, neubau))
    learned = await db.fetchall("SELECT location_id FROM search_places")
    assert [row["location_id"] for row in learned] == [moedling.location_id]
    world.publish(published("900000002", moedling), published("900000003", perchtoldsdorf))
    await run(60)
    assert [(text, source) for text, _, source in await alerts(db)] == [("new 900000002", "feed")]
    await run(INTERVAL)
    assert [(text, source) for text, _, source in await alerts(db)][1:] == [
        ("new 900000003", "search")
    ]
    world.publish(published("900000004", perchtoldsdorf))
    await run(60)
    assert [(text, source) for text, _, source in await alerts(db)][2:] == [
        ("new 900000004", "feed")
    ]


async def test_a_building_project_comes_from_the_feed_when_a_listed_unit_fits(
    db: Database, subs: Subscriptions, world: FakeWillhabenSite, run: Any
) -> None:
    """Issue 36's fifth row: a new building project in Donaustadt, one of whose units fits two
    fed flat searches to buy (price, rooms): it comes from the buy feed within the minute
    (before, only by each search's own scan: 5 to 30 minutes). A search naming a type of flat,
    which no unit says, still gets it — by its own scan, as with feeds off."""
    buy = "https://www.willhaben.at/iad/immobilien/eigentumswohnung/eigentumswohnung-angebote"
    rooms = parse_watch_argument(f"{buy}?areaId=117244&PRICE_TO=400000&NO_OF_ROOMS_BUCKET=3X3")
    cheap = parse_watch_argument(f"{buy}?areaId=117244&PRICE_TO=450000")
    typed = parse_watch_argument(f"{buy}?areaId=117244&PRICE_TO=450000&PROPERTY_TYPE=3")
    await started(subs, run, (1, rooms), (2, cheap), (3, typed))
    units = (FakeUnit("7001", Decimal(390000), 72, rooms=3), FakeUnit("7002", Decimal(520000), 95))
    world.publish(project("900000010", "Wohnprojekt an der Alten Donau", units, place=22))
    await run(60)
    assert sorted((text, key.split(":")[2], source) for text, key, source in await alerts(db)) == [
        ("new 900000010", "1", "feed"),
        ("new 900000010", "2", "feed"),
    ]
    await run(INTERVAL)
    assert ("new 900000010", "search") in {
        (text, source) for text, key, source in await alerts(db) if key.endswith(":3")
    }


async def test_a_flat_search_with_a_word_is_fed_for_what_the_title_and_snippet_say(
    db: Database, subs: Subscriptions, world: FakeWillhabenSite, run: Any, clock: FakeClock
) -> None:
    """Issue 36's sixth row, search words: two Neubau searches with `keyword=altbau` share
    the rent feed. A new Altbau flat (the word in its title) comes from the feed within the
    minute (before, a flat search with a word was plain: its own scan, at the scrape
    interval)."""
    altbau = parse_watch_argument(f"{RENTALS}/wien/wien-1070-neubau?keyword=altbau")
    cheap = parse_watch_argument(f"{RENTALS}/wien/wien-1070-neubau?keyword=altbau&PRICE_TO=1500")
    await started(subs, run, (1, altbau), (2, cheap))
    at = int(clock() * 1000)
    world.publish(flat("900000020", "Altbau mit Flügeltüren", 990, place=7, published_ms=at))
    await run(60)
    assert sorted((text, source) for text, _, source in await alerts(db)) == [
        ("new 900000020", "feed"),
        ("new 900000020", "feed"),
    ]


SOFA = parse_watch_argument("sofa")


@pytest.mark.parametrize("feeds", [True, False], ids=["feeds on", "feeds off"])
async def test_a_sofa_taken_down_and_put_up_again_is_a_repost_through_the_feed_too(
    db: Database,
    subs: Subscriptions,
    world: FakeWillhabenSite,
    client: WillhabenClient,
    clock: FakeClock,
    run: Any,
    feeds: bool,
) -> None:
    """Issue 36: ten times, at random moments, a seller takes a sofa down and puts it up again
    at once, € 300 → € 250; two chats watch `sofa`, chat 2 with `-reposts`. Each chat gets
    what it gets with feeds off — chat 1 the drop 300 → 250 ten times, chat 2 nothing — and
    with feeds on within the feed's latency (chat 2 was told 10 of 10, chat 1 a plain "new":
    the feed took the old sofa, shown at the search's latest scan, for still there)."""

    async def advance(seconds: float) -> None:
        if feeds:
            await run(seconds)
            return
        end = clock() + seconds
        while clock() < end:
            clock.advance(PASS_EVERY)
            await run_pass(
                db, client, TextRenderer(), clock=clock, max_attempts=5, interval=INTERVAL
            )

    def sofa(seller: int, price: int) -> FakeAdvert:
        published = int(clock() * 1000)
        return FakeAdvert(
            str(rand.randrange(500_000_000, 2_200_000_000)),
            f"Sofa Modell {seller}",
            Decimal(price),
            published_ms=published,
            categories=("4800", "4863"),
            seller=f"s{seller}",
        )

    rand = random.Random(36)
    sofas = [sofa(n, 300) for n in range(10)]
    world.publish(*sofas)
    for chat, search in ((1, SOFA), (2, SOFA), (3, RTX)):
        await subs.add_watch(chat, search, max_watches=5)
    await advance(PASS_EVERY)
    await subs.set_filter(2, 1, WatchFilter().with_rules(["-reposts"]))
    await advance(INTERVAL)
    reposted: dict[str, float] = {}
    for old in sofas:
        await advance(rand.uniform(30, 900))
        world.take_down(old.id)
        new = sofa(int(old.title.rsplit(" ", 1)[1]), 250)
        world.publish(new)
        reposted[new.id] = clock()
    await advance(INTERVAL + 3 * PASS_EVERY)
    rows = await db.fetchall(
        "SELECT chat_id, ad_id, text, created_at FROM notifications WHERE kind IN ('new', 'drop')"
    )
    assert [row["chat_id"] for row in rows] == [1] * 10
    assert {row["ad_id"]: row["text"] for row in rows} == {
        ad_id: f"drop {ad_id} 300->250" for ad_id in reposted
    }
    if feeds:
        waits = [row["created_at"] - reposted[row["ad_id"]] for row in rows]
        assert max(waits) <= CADENCE.interval + 3 * PASS_EVERY


async def test_a_feed_read_judges_all_its_searches_in_one_pass(
    db: Database, subs: Subscriptions, world: FakeWillhabenSite, run: Any, make: Any
) -> None:
    """Issue 36: a card that three searches list, each with its watches, is judged for all of
    them with one query per question — what the watches have seen, the price paths, the
    first sightings, the reposts, the going prices, the watches — not one per search (a
    whole read at 10,000 searches took 13 s of CPU)."""
    await started(subs, run, (1, RTX), (2, CARDS), (3, GAMING), (4, RTX), (5, CARDS))
    card = make(1, "RTX 3080 Gaming")[0]
    world.publish(card)
    statements: list[str] = []
    async with db.transaction() as conn:  # the writer connection, which the feed read uses
        await conn.set_trace_callback(statements.append)
    summaries = await run(60)
    async with db.transaction() as conn:
        await conn.set_trace_callback(None)
    assert (sum(s.feeds for s in summaries), sum(s.scanned for s in summaries)) == (1, 0)
    assert sorted(key for _, key, _ in await alerts(db)) == sorted(
        f"new:{card.id}:{chat}" for chat in (1, 2, 3, 4, 5)
    )
    asked = Counter(
        what
        for statement in statements
        for what, sql in (
            ("seen", "CROSS JOIN watch_listings w"),
            ("paths", "SELECT ad_id, seen_at, price FROM price_history"),
            ("first seen", "SELECT ad_id, first_seen_at FROM listings"),
            ("reposts", "WITH fresh"),
            ("going", "FROM search_listings s JOIN listings l"),
            ("watches", "FROM watches w JOIN chats c ON c.chat_id = w.chat_id WHERE w.search_id"),
        )
        if sql in statement
    )
    assert asked == Counter(
        dict.fromkeys(["seen", "paths", "first seen", "reposts", "going", "watches"], 1)
    )


@pytest.mark.parametrize(("stock", "bottom"), [(300, 198), (150, None)])
async def test_a_feed_read_reaches_the_bottom_of_its_page_not_the_placement(
    db: Database,
    subs: Subscriptions,
    world: FakeWillhabenSite,
    run: Any,
    clock: FakeClock,
    stock: int,
    bottom: int | None,
) -> None:
    """Issue 36: a read of the rent feed reaches down to the date of the last flat of its
    page — 200 rows: the paid placement on top, dated a year back, and the 199 newest flats —
    the date a coverage miss is proven against (`feeds.shown_since`); the placement is no part
    of the page's order and does not take it down to its own date. A feed whose page holds
    every flat is read whole: no date bounds what it showed."""
    world.placements = [replace(PLACEMENTS[0], published_ms=int((clock() - 365 * 86400) * 1000))]
    flats = [
        flat(
            str(1_000_000_000 + n), f"Wohnung {n}", 900, published_ms=int((clock() - 60 * n) * 1000)
        )
        for n in range(1, stock + 1)
    ]
    world.publish(*flats)
    await started(subs, run, (1, VIENNA), (2, NEUBAU))
    await run(60)
    reached = None if bottom is None else (flats[bottom].published_ms or 0) / 1000
    assert await db.single_value("SELECT shown_since FROM feeds") == reached
