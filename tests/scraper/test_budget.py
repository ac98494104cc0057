"""What the politeness budget serves (`habicht.scraper.budget`): feeds and searches apart
(issue 20) — a feed miss in /stats, the health JSON and the metrics, and the "behind" alert
counting only the requests that compete, over the real Application and the fake willhaben
world — and per feed (issue 29): each feed named in words from its path, the searches it is
for and the ones it serves now, its misses and whether it is switched off, and the plain
searches with the real-estate ones counted apart, on a real SQLite file holding several feeds
as the scraper records them."""

from __future__ import annotations

from pathlib import Path

import pytest
from kit.bot import BOB, OWNER
from kit.fakes import FakeClock
from kit.feeding import CARDS, CAROL, FEED, fed, feeding, health
from kit.flat_feeds import (
    ALTBAU,
    AREA_CARDS,
    BUY,
    BUY_SEARCHES,
    CARS,
    MARKET,
    RENT,
    RENT_SEARCHES,
    classify,
    feed_of,
    switch_off,
)

from habicht.db import Database
from habicht.fakes.willhaben_site import SiteFault
from habicht.metrics import Metrics
from habicht.scraper.alert_times import latency
from habicht.scraper.budget import FeedName, feed_name, is_real_estate, workload
from habicht.scraper.feeds import assign_feeds
from habicht.scraper.schedule import FeedCadence
from habicht.watches.subscriptions import Subscriptions
from habicht.willhaben.urls import parse_watch_argument


async def test_a_feed_miss_shows_in_stats_health_and_the_metrics(tmp_path: Path) -> None:
    """An advert whose keyword is only beyond the snippet reaches Bob by his search's own
    scan: one feed miss in /stats, in the health JSON and in habicht_feed_misses_total —
    and, the budget having room, within one scrape interval of its publication, not at the
    safety net (issue 26)."""
    async with feeding(tmp_path) as world:
        await fed(world)
        services = world.bot.app.bot_data
        metrics = services.metrics = Metrics(since=world.bot.clock())
        body = "Top Zustand. " + "x " * 150 + "Ideal zum Gaming."
        hidden = world.advert("Grafikkarte", age=5, body=body)
        world.site.publish(hidden)
        await world.ticks(60)
        assert not [m for m in world.bot.api.messages(BOB) if "Grafikkarte" in m.text]
        await world.ticks(300)
        assert any(hidden.title in m.text for m in world.bot.api.messages(BOB))

        await world.bot.say(OWNER, "/stats")
        assert "Feed-Fehltreffer: 1" in world.bot.last(OWNER)
        feeds = (await health(world))["feeds"]
        assert feeds["feed_misses"] == 1
        assert (feeds["searches_fed"], feeds["searches_polled"], feeds["feeds"]) == (2, 0, 1)
        assert feeds["feed_failures"] == 0
        assert feeds["feed_age_seconds"] <= 60
        assert metrics.registry.get_sample_value("habicht_feed_misses_total") == 1.0
        late = await latency(services.db, now=world.bot.clock())
        assert late.alerts == 1
        assert late.published_p95 is not None
        assert late.published_p95 <= 300 + 60  # its search's own scan, one interval late


async def test_stats_and_health_tell_feeds_and_searches_apart(tmp_path: Path) -> None:
    """/stats and the health JSON say how many searches the live feed serves, how many are
    polled on their own, and the feed's last read and failing streak."""
    async with feeding(tmp_path) as world:
        await fed(world)
        await world.bot.say(CAROL, f"/watch {CARDS}?areaId=900")
        await world.bot.baseline()
        world.site.fail_next(*[SiteFault.server_error()] * 300, url=FEED)
        await world.ticks(180)
        await world.bot.say(OWNER, "/stats")
        text = world.bot.last(OWNER)
        feeds = (await health(world))["feeds"]
        assert (feeds["searches_fed"], feeds["searches_polled"]) == (2, 1)
        assert feeds["feed_failures"] >= 2
        assert feeds["feed_age_seconds"] >= 180
        assert feeds["polled_stalest_seconds"] <= 300
        assert feeds["safety_stalest_seconds"] >= 180  # the safety net is due every 30 min
        assert "1 Suchen einzeln abgefragt (älteste vor " in text
        assert "; 1 Feed(s) bedienen 2 Suchen (gelesen vor 3 min" in text
        streak = f"{feeds['feed_failures']} Mal in Folge fehlgeschlagen"
        assert f"{streak}), deren eigene Abfrage alle 30 min (älteste vor " in text


async def test_the_behind_alert_counts_only_the_requests_that_compete(tmp_path: Path) -> None:
    """Twelve searches polled on their own every 100 s at a 20 s gap do not fit beside the
    feed (every minute) and the safety net of the two searches it serves: the owner is told
    the searches and the feed apart, the 14 requests an interval that compete for 5 places,
    and what would fit them all: a gap of 1 / (12/100 + 2/1800 + 1/60) ≈ 7.3 s, or the
    interval the feed and safety net leave for twelve searches, 12 · 20 / (1 - 20 · (2/1800
    + 1/60)) ≈ 372 s."""
    async with feeding(tmp_path, scrape_interval=100.0, fetch_gap=20.0) as world:
        await fed(world)
        for n in range(12):
            await world.bot.say(CAROL, f"/watch {CARDS}?areaId={900 + n}")
        await world.ticks(1500)
        told = [m.text for m in world.bot.api.messages(OWNER) if "hinken nach" in m.text]
        assert len(told) == 1
        assert "12 Suchen einzeln abgefragt (älteste vor " in told[0]
        assert "; 1 Feed(s) bedienen 2 Suchen (gelesen vor " in told[0]
        assert "Bei 20.0 s pro Abruf passen 5 Abrufe in ein Intervall, 14 stehen an" in told[0]
        assert "HABICHT_FETCH_GAP=7.3 oder HABICHT_SCRAPE_INTERVAL ≥ 6 min" in told[0]


CADENCE = FeedCadence(interval=60, safety=1800)
DAY = 86400.0


@pytest.mark.parametrize(
    ("url", "name"),
    [
        (feed_of(MARKET), FeedName("marketplace", "/iad/kaufen-und-verkaufen/marktplatz")),
        (
            f"{RENT}/?sort=1&rows=200",
            FeedName("rent", "/iad/immobilien/mietwohnungen/mietwohnung-angebote"),
        ),
        (
            feed_of(BUY),
            FeedName("buy", "/iad/immobilien/eigentumswohnung/eigentumswohnung-angebote"),
        ),
        (feed_of(CARS), FeedName(None, "/iad/gebrauchtwagen/auto/gebrauchtwagenboerse")),
    ],
)
def test_a_feed_is_named_by_its_path(url: str, name: FeedName) -> None:
    """The marketplace, flats to rent, flats to buy — the query and a trailing slash aside;
    a path this code does not know is named by itself."""
    assert feed_name(url) == name


def test_a_feeds_words_are_its_kind_or_its_path() -> None:
    assert [feed_name(feed_of(url)).words for url in (MARKET, RENT, BUY, CARS)] == [
        "marketplace",
        "flats to rent",
        "flats to buy",
        "/iad/gebrauchtwagen/auto/gebrauchtwagenboerse",
    ]


def test_a_real_estate_search_is_one_whose_path_starts_with_immobilien() -> None:
    assert is_real_estate(parse_watch_argument(ALTBAU).url)
    assert is_real_estate(RENT_SEARCHES[0])
    assert not is_real_estate(AREA_CARDS)
    assert not is_real_estate(f"{MARKET}?keyword=immobilien")
    assert not is_real_estate(f"{MARKET}/iad/immobilien/")  # not where the path starts


async def watched(subs: Subscriptions, *urls: str) -> None:
    """Each of `urls` watched by a chat of its own."""
    for chat, url in enumerate(urls, start=1):
        await subs.add_watch(chat, parse_watch_argument(url), max_watches=5)


async def several_feeds(db: Database, subs: Subscriptions, clock: FakeClock) -> None:
    """The marketplace feed for two keyword searches (classified by the scraper itself); the
    rent feed for two flat searches; the buy feed for two, switched off for a day after a
    coverage miss on each; a car feed for one search alone; and two plain searches, a flat
    search with a keyword and graphics cards in an area."""
    now = clock()
    await watched(subs, "rtx 3080", "gtx 1080", *RENT_SEARCHES, *BUY_SEARCHES)
    await watched(subs, f"{CARS}?CAR_MODEL/MAKE=1065", ALTBAU, AREA_CARDS)
    await classify(db, RENT_SEARCHES, feed=feed_of(RENT), now=now)
    await classify(db, BUY_SEARCHES, feed=feed_of(BUY), now=now)
    await classify(db, [f"{CARS}?CAR_MODEL/MAKE=1065"], feed=feed_of(CARS), now=now)
    await classify(db, [ALTBAU, AREA_CARDS], feed=None, now=now)
    await assign_feeds(db, now=now)  # the marketplace's searches
    await switch_off(db, feed_of(BUY), urls=BUY_SEARCHES, until=now + DAY)


async def test_the_workload_shows_each_feed_and_the_plain_real_estate_searches(
    db: Database, subs: Subscriptions, clock: FakeClock
) -> None:
    """Per feed: its name, the searches it is for and the ones it serves (none while it is
    switched off, none for a search alone), its misses and how long it stays off; two plain
    searches, one of them real estate."""
    await several_feeds(db, subs, clock)
    async with db.transaction() as conn:
        await conn.execute("UPDATE searches SET feed_misses = 3 WHERE url LIKE '%rtx%'")
    clock.advance(600)
    load = await workload(db, now=clock(), cadence=CADENCE)
    assert (load.plain, load.plain_real_estate) == (2, 1)
    assert [feed.as_dict() for feed in load.by_feed] == [
        {
            "name": "flats to rent",
            "url": feed_of(RENT),
            "searches": 2,
            "searches_served": 2,
            "coverage_misses": 0,
            "feed_misses": 0,
            "off": False,
            "off_for_seconds": None,
        },
        {
            "name": "flats to buy",
            "url": feed_of(BUY),
            "searches": 2,
            "searches_served": 0,
            "coverage_misses": 2,
            "feed_misses": 0,
            "off": True,
            "off_for_seconds": DAY - 600,
        },
        {
            "name": "/iad/gebrauchtwagen/auto/gebrauchtwagenboerse",
            "url": feed_of(CARS),
            "searches": 1,
            "searches_served": 0,
            "coverage_misses": 0,
            "feed_misses": 0,
            "off": False,
            "off_for_seconds": None,
        },
        {
            "name": "marketplace",
            "url": "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz?sort=1",
            "searches": 2,
            "searches_served": 2,
            "coverage_misses": 0,
            "feed_misses": 3,
            "off": False,
            "off_for_seconds": None,
        },
    ]
    assert (load.fed, load.feeds, load.feeds_off) == (4, 2, 1)
    data = load.as_dict()
    assert (data["searches_plain"], data["searches_plain_real_estate"]) == (2, 1)
    assert len(data["per_feed"]) == 4


async def test_a_paused_search_is_not_counted_and_the_day_off_ends(
    db: Database, subs: Subscriptions, clock: FakeClock
) -> None:
    """A search without an active watch is neither plain nor a feed's; after its day off the
    buy feed serves its searches again (their own polling time over too)."""
    await several_feeds(db, subs, clock)
    altbau = await db.single_value(
        "SELECT chat_id FROM watches JOIN searches ON searches.id = watches.search_id"
        " WHERE url = ?",
        (parse_watch_argument(ALTBAU).url,),
    )
    await subs.set_paused(altbau, None, paused=True)
    clock.advance(DAY + 1)
    load = await workload(db, now=clock(), cadence=CADENCE)
    assert (load.plain, load.plain_real_estate) == (1, 0)
    buy = next(feed for feed in load.by_feed if feed.name.kind == "buy")
    assert (buy.searches, buy.served, buy.off_for) == (2, 2, None)


async def test_with_feeds_off_no_search_is_plain_and_no_feed_shown(
    db: Database, subs: Subscriptions, clock: FakeClock
) -> None:
    """HABICHT_FEED_INTERVAL=0: every search is polled on its own, whatever the rows say."""
    await several_feeds(db, subs, clock)
    load = await workload(db, now=clock(), cadence=None)
    assert (load.polled, load.plain, load.plain_real_estate, load.by_feed) == (9, 0, 0, ())
    assert load.as_dict()["per_feed"] == []
