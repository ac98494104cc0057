"""The pipeline's figures (`habicht.scraper.figures`, issue 11): freshness and its watch,
and what the politeness budget fits; the budget's work and alert times have their own files
(test_budget.py, test_alert_times.py)."""

from __future__ import annotations

import math
from collections.abc import AsyncIterator

import pytest
from kit import willhaben_client
from kit.fakes import FakeClock, TextRenderer

from habicht.db import Database
from habicht.fakes.willhaben_site import FakeWillhabenSite
from habicht.scraper.figures import (
    FailingSearch,
    Freshness,
    FreshnessWatch,
    capacity,
    failing_searches,
    freshness,
)
from habicht.scraper.schedule import FeedCadence, run_pass
from habicht.watches.subscriptions import Subscriptions
from habicht.willhaben.fetch import WillhabenClient
from habicht.willhaben.urls import parse_watch_argument

INTERVAL = 100.0


@pytest.fixture
async def client(site: FakeWillhabenSite, clock: FakeClock) -> AsyncIterator[WillhabenClient]:
    """A client of `site` one second a fetch."""
    async with willhaben_client(site.transport(), clock, fetch_gap=1.0) as willhaben:
        yield willhaben


async def watch(subs: Subscriptions, *keywords: str) -> None:
    for keyword in keywords:
        await subs.add_watch(1, parse_watch_argument(keyword), max_watches=1000)


async def one_pass(db: Database, client: WillhabenClient, clock: FakeClock) -> None:
    await run_pass(
        db, client, TextRenderer(), clock=clock, max_attempts=5, interval=INTERVAL, slack=10.0
    )


async def test_freshness_is_the_wait_since_the_last_scan(
    db: Database, subs: Subscriptions, clock: FakeClock, client: WillhabenClient
) -> None:
    """The stalest active search and the 95th percentile; a never-scanned search counts
    from its creation, a paused one not at all."""
    assert await freshness(db, now=clock(), interval=INTERVAL) == Freshness(0, None, None, INTERVAL)
    await watch(subs, *(f"s{n}" for n in range(20)))
    await one_pass(db, client, clock)
    clock.advance(50)
    await watch(subs, "late")
    clock.advance(500)
    await subs.set_paused(1, 21, paused=True)
    fresh = await freshness(db, now=clock(), interval=INTERVAL)
    assert fresh.searches == 20
    assert fresh.stalest == pytest.approx(550 + 19)  # s0 was fetched first, 1 s apart
    assert fresh.p95 == pytest.approx(550 + 19 - 1)
    assert fresh.behind


def test_the_freshness_watch_tells_once_after_an_interval_and_once_when_back() -> None:
    """Behind must last an interval before it is told, is told once, and its end once."""
    watch = FreshnessWatch()
    behind, fresh = Freshness(5, 250.0, 200.0, 100.0), Freshness(5, 90.0, 80.0, 100.0)
    assert watch.update(behind, now=0) is None
    assert watch.update(behind, now=99) is None
    assert watch.update(behind, now=100) == "behind"
    assert watch.update(behind, now=500) is None
    assert watch.update(fresh, now=600) == "recovered"
    assert watch.update(fresh, now=700) is None
    assert watch.update(behind, now=800) is None  # a new episode waits its interval again


def test_capacity_is_interval_over_gap_plus_fetch_time() -> None:
    """searches per interval ≈ interval / (gap + fetch time); what gap or interval would fit."""
    fits = capacity(200, interval=300, fetch_gap=2.0, seconds_per_search=2.3)
    assert fits.fits == 130
    assert fits.interval_needed == pytest.approx(460)
    assert fits.gap_that_fits == pytest.approx(300 / 200 - 0.3)
    assert capacity(2000, interval=300, fetch_gap=2.0, seconds_per_search=2.3).gap_that_fits is None


def test_a_polled_search_waits_a_round_the_interval_or_what_the_budget_stretches_it_to() -> None:
    """Issue 29: a new flat of a plain search waits a whole round — the interval while the
    budget fits every polled search, else the interval they need; none fits beside feeds and
    safety nets that fill the budget."""
    assert capacity(100, interval=300, fetch_gap=2.0, seconds_per_search=2.3).round == 300
    assert capacity(200, interval=300, fetch_gap=2.0, seconds_per_search=2.3).round == (
        pytest.approx(460)
    )
    full = FeedCadence(interval=2, safety=1800)
    crowded = capacity(
        5, interval=300, fetch_gap=2.0, seconds_per_search=2.3, feeds=1, cadence=full
    )
    assert crowded.round == math.inf


def test_a_saturated_budget_makes_every_search_equally_late_past_its_own_interval() -> None:
    """The scheduler takes the due search latest against its own interval: when the safety
    nets and the polled searches do not fit, the polled round is the interval plus the
    lateness L at which both rounds use up what the feeds leave, the fed searches' own scans
    come every safety interval plus the same L. At flats.py --full's shape (150 polled, 2,050
    fed, three feeds, 2 s a request) that is about 59 min, where the fed ones' safety nets
    alone would have made it infinite."""
    cadence = FeedCadence(interval=60, safety=1800)
    fits = capacity(
        150,
        interval=300,
        fetch_gap=2.0,
        seconds_per_search=2.0,
        fed=2050,
        feeds=3,
        cadence=cadence,
    )
    late = fits.round - 300
    scans = (1 - 2.0 * 3 / 60) / 2.0
    assert 150 / fits.round + 2050 / (1800 + late) == pytest.approx(scans)
    assert fits.round == pytest.approx(3530, rel=0.01)
    assert fits.interval_needed == math.inf
    roomy = capacity(
        10,
        interval=300,
        fetch_gap=2.0,
        seconds_per_search=2.0,
        fed=50,
        feeds=1,
        cadence=cadence,
    )
    assert roomy.round == 300


def test_capacity_counts_the_safety_net_and_the_feed_reads() -> None:
    """requests per interval = polled + fed · interval / safety + feeds · interval / feed
    interval; the interval the polled searches need is what the feeds and safety net leave."""
    cadence = FeedCadence(interval=60, safety=1800)
    fits = capacity(
        5, interval=100, fetch_gap=20, seconds_per_search=20, fed=2, feeds=1, cadence=cadence
    )
    assert fits.requests == pytest.approx(5 + 2 * 100 / 1800 + 100 / 60)
    assert fits.gap_that_fits == pytest.approx(1 / (5 / 100 + 2 / 1800 + 1 / 60))
    assert fits.interval_needed == pytest.approx(5 * 20 / (1 - 20 * (2 / 1800 + 1 / 60)))
    crowded = capacity(
        0, interval=100, fetch_gap=20, seconds_per_search=80, fed=2, feeds=1, cadence=cadence
    )
    assert crowded.interval_needed == float("inf")
    assert crowded.gap_that_fits is None


async def test_failing_searches_are_the_watched_ones_worst_first(
    db: Database, subs: Subscriptions
) -> None:
    """Issue 37: `habicht health` asks here for the searches whose latest scans failed and
    that an active watch still wants, the most failures first."""
    await watch(subs, "one", "two", "three")
    async with db.transaction() as conn:
        for failures, keyword in ((2, "one"), (5, "two"), (7, "three")):
            await conn.execute(
                "UPDATE searches SET consecutive_failures = ?, last_error_kind = 'blocked',"
                " last_error = 'x' WHERE url LIKE ?",
                (failures, f"%keyword={keyword}%"),
            )
    await subs.set_paused(1, 3, paused=True)
    failing = await failing_searches(db)
    assert [(search.failures, search.error_kind, search.error) for search in failing] == [
        (5, "blocked", "x"),
        (2, "blocked", "x"),
    ]
    assert all(isinstance(search, FailingSearch) for search in failing)
    assert failing[0].last_success_at is None
