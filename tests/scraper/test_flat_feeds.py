"""Issue 29: flat searches served by the rent feed — one request a feed interval for 200 of
them, each watch told exactly what willhaben's own search lists, and a flat published while
the feed was down still told once — through the real client, scheduler and SQLite file,
against the fake willhaben world (which puts its paid placement on top of every page)."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from typing import Any

import httpx
import pytest
from kit.fakes import FakeClock
from kit.feeds import PASS_EVERY, client, passes, world
from kit.flats import random_searches

from habicht.db import Database
from habicht.fakes import FakeAdvert
from habicht.fakes.willhaben_estate import RENT
from habicht.fakes.willhaben_flats import PLACEMENTS, flat, random_flat, random_id
from habicht.fakes.willhaben_site import FakeWillhabenSite, SiteFault
from habicht.fakes.willhaben_world import lister
from habicht.model import Search
from habicht.scraper.scan import ScanSummary
from habicht.watches.subscriptions import Subscriptions
from habicht.willhaben.fetch import WillhabenClient
from habicht.willhaben.urls import parse_watch_argument

__all__ = ["client", "world"]  # the kit's fixtures this file uses

SITE = "https://www.willhaben.at"
RENT_FEED = f"{SITE}/iad/immobilien/mietwohnungen/mietwohnung-angebote?sort=1"
"""The rent feed as the fake world counts its reads (`hits`: without `rows` and `page`)."""
FEED_INTERVAL = 60.0
"""HABICHT_FEED_INTERVAL's default (kit.feeds' cadence)."""
SCRAPE = 1800.0
"""HABICHT_SCRAPE_INTERVAL here, as the safety net: the searches' own scans are not due in
the minutes these tests watch, so every request and alert there is the feed's."""
OUTAGE = 5
"""Reads of the rent feed that fail in a row: five minutes down."""


@pytest.fixture
def rand() -> random.Random:
    """The test's flats and ids, the same every run whatever ran before."""
    return random.Random(2929)


@pytest.fixture
def run(db: Database, client: WillhabenClient, clock: FakeClock) -> Callable[..., Any]:
    """The scheduler as the bot runs it, a pass every 10 s, for `seconds` (10 unless told)."""

    async def run_for(seconds: float = PASS_EVERY) -> list[ScanSummary]:
        return await passes(db, client, clock, seconds, interval=SCRAPE)

    return run_for


def rent_searches(count: int) -> list[Search]:
    """`count` distinct flat searches to rent with every parameter decidable (districts,
    Bundesländer, path places, price, living area, rooms, type, one free area or feature,
    seller), drawn as subscribers paste them (`kit.flats`)."""
    searches: dict[str, Search] = {}
    for drawn in random_searches(29, 1500):
        if "/mietwohnungen/" in drawn.url and drawn.undecidable is None and not drawn.several:
            search = parse_watch_argument(drawn.url)
            searches.setdefault(search.url, search)
    assert len(searches) >= count
    return list(searches.values())[:count]


def rentals(rand: random.Random, count: int, published: float) -> list[FakeAdvert]:
    """`count` random flats to rent that say all a search may ask (rooms, area, type),
    published at `published`."""
    drawn: list[FakeAdvert] = []
    while len(drawn) < count:
        advert = random_flat(rand, category=RENT, published_ms=int(published * 1000))
        if advert.estate is not None and advert.estate.rooms is not None:
            drawn.append(advert)
    return drawn


SCANNED_SINCE = "SELECT count(*) FROM searches WHERE last_success_at > ?"
"""The searches whose own scan succeeded since a moment."""


async def told(db: Database) -> list[tuple[int, str, str | None]]:
    """(chat, advert, source) of every new-flat alert queued, in order."""
    rows = await db.fetchall(
        "SELECT chat_id, ad_id, source FROM notifications WHERE kind = 'new' ORDER BY id"
    )
    return [(row["chat_id"], row["ad_id"], row["source"]) for row in rows]


def truth(watches: dict[int, Search], adverts: list[FakeAdvert]) -> list[tuple[int, str]]:
    """(chat, advert) for every chat whose search willhaben lists the advert in."""
    return sorted(
        (chat, advert.id)
        for chat, search in watches.items()
        for lists in [lister(httpx.URL(search.url))]
        for advert in adverts
        if lists(advert)
    )


async def watched(
    subs: Subscriptions,
    run: Any,
    world: FakeWillhabenSite,
    rand: random.Random,
    searches: Iterable[Search],
    *,
    now: float,
) -> dict[int, Search]:
    """500 flats to rent in the world from the last 30 days; a chat watching each search,
    one watch each, with its baseline taken and the feed read since."""
    ages = [rand.uniform(3600, 30 * 86400) for _ in range(500)]
    world.publish(*[random_flat(rand, published_ms=int((now - age) * 1000)) for age in ages])
    watches = {1000 + n: search for n, search in enumerate(searches)}
    for chat, search in watches.items():
        await subs.add_watch(chat, search, max_watches=5)
    await run(len(watches) * 2.0 + 2 * FEED_INTERVAL)  # a baseline costs a fetch gap, 2 s
    return watches


async def ran_until(run: Any, condition: Callable[[], bool], what: str) -> None:
    """Passes of the scheduler until `condition` holds, for at most 10 feed intervals."""
    for _ in range(int(10 * FEED_INTERVAL / PASS_EVERY)):
        if condition():
            return
        await run()
    pytest.fail(f"no {what} within 10 feed intervals")


async def test_one_request_per_feed_interval_serves_200_flat_searches(
    db: Database,
    subs: Subscriptions,
    world: FakeWillhabenSite,
    run: Any,
    clock: FakeClock,
    rand: random.Random,
) -> None:
    """200 flat searches to rent, baselined: over one feed interval the scheduler makes one
    request, the rent feed's read, and every watch whose search lists one of 40 new flats
    (the truth: willhaben's own search, `lister`) is told each such flat once, from the
    feed; no other watch is told anything. The paid placement on top of every page — the
    feed's and each search's own, rotating — is told to nobody it does not fit, and the
    searches' own scans later (the safety net) add nothing (before issue 29 every flat search
    was plain: no request and no alert within the minute, and the rotated placement came as a
    new flat to every search at its next own scan)."""
    watches = await watched(subs, run, world, rand, rent_searches(200), now=clock())
    world.hits.clear()
    new = rentals(rand, 40, clock())
    world.publish(*new)
    await run(FEED_INTERVAL)
    assert dict(world.hits) == {RENT_FEED: 1}
    expected = truth(watches, new)
    assert len(expected) > 100  # not vacuous: many watches told, many not
    assert 50 < len({chat for chat, _ in expected}) < 150
    assert sorted(await told(db)) == [(chat, ad_id, "feed") for chat, ad_id in expected]
    published = clock()
    await run(SCRAPE + len(watches) * 2.0)  # the safety net: a scan of every search
    assert await db.single_value(SCANNED_SINCE, (published,)) == len(watches)
    placed = {placement.id for placement in PLACEMENTS}
    alerts = await told(db)
    fitting = truth(watches, list(PLACEMENTS))
    assert [(c, a) for c, a, _ in alerts if a in placed and (c, a) not in fitting] == []
    assert sorted((c, a, s) for c, a, s in alerts if a not in placed) == [
        (chat, ad_id, "feed") for chat, ad_id in expected
    ]


NEUBAU = parse_watch_argument(f"{SITE}/iad/immobilien/mietwohnungen/wien/wien-1070-neubau")
TWO_ROOMS = parse_watch_argument(
    f"{SITE}/iad/immobilien/mietwohnungen/mietwohnung-angebote?areaId=900"
    "&NO_OF_ROOMS_BUCKET=2X2&PRICE_TO=1200"
)
LEOPOLDSTADT = parse_watch_argument(
    f"{SITE}/iad/immobilien/mietwohnungen/mietwohnung-angebote?areaId=117224"
)
TIROL = parse_watch_argument(f"{SITE}/iad/immobilien/mietwohnungen/tirol?PRICE_TO=1150")


async def test_a_flat_published_while_the_feed_was_down_arrives_once(
    db: Database,
    subs: Subscriptions,
    world: FakeWillhabenSite,
    run: Any,
    clock: FakeClock,
    rand: random.Random,
) -> None:
    """The rent feed fails five reads in a row (willhaben answers 500); two minutes into it a
    2-room Neubau flat at € 990 is published. The feed's first read after it recovers tells
    the two chats whose searches list it — within one feed interval, not at their own scans
    half an hour later — and nothing tells them twice, the searches' own scans included;
    the chats whose searches do not list it hear nothing."""
    searches = [NEUBAU, TWO_ROOMS, LEOPOLDSTADT, TIROL]
    watches = await watched(subs, run, world, rand, searches, now=clock())
    world.fail_next(*[SiteFault.server_error()] * OUTAGE, url=RENT_FEED)
    await ran_until(run, lambda: world.faults_pending(RENT_FEED) == OUTAGE - 2, "two failures")
    rental = flat(
        random_id(rand),
        "Altbauwohnung nahe Siebensterngasse",
        990,
        place=7,
        living_area=55,
        rooms=2,
        published_ms=int(clock() * 1000),
    )
    world.publish(rental)
    await ran_until(run, lambda: world.faults_pending(RENT_FEED) == 0, "the last failure")
    failures = "SELECT consecutive_failures FROM feeds WHERE url = ?"
    assert await db.single_value(failures, (RENT_FEED,)) == OUTAGE
    assert await told(db) == []
    await run(FEED_INTERVAL)
    assert await db.single_value(failures, (RENT_FEED,)) == 0
    expected = [(1000, rental.id, "feed"), (1001, rental.id, "feed")]
    assert sorted(await told(db)) == expected
    assert truth(watches, [rental]) == [(chat, ad_id) for chat, ad_id, _ in expected]
    recovered = clock()
    await run(SCRAPE)
    assert await db.single_value(SCANNED_SINCE, (recovered,)) == len(watches)
    assert sorted(await told(db)) == expected
