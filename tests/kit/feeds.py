"""The shared feed's world as the feed tests drive it: the fake willhaben world, the real
client and scheduler on the virtual clock, a pass every 10 s as the bot's `scrape` job runs
them (issue 20, issue 26)."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Callable
from decimal import Decimal
from typing import Any

import pytest

from habicht.db import Database
from habicht.fakes import FakeAdvert
from habicht.fakes.willhaben_site import FakeWillhabenSite
from habicht.scraper.scan import ScanSummary
from habicht.scraper.schedule import FeedCadence, run_pass
from habicht.watches.subscriptions import Subscriptions
from habicht.willhaben.fetch import WillhabenClient
from habicht.willhaben.urls import parse_watch_argument
from kit.clients import willhaben_client
from kit.fakes import FakeClock, TextRenderer

MARKET = "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz"
FEED = f"{MARKET}?sort=1"
RTX = parse_watch_argument("rtx 3080")
CARDS = parse_watch_argument("3080")
GAMING = parse_watch_argument(
    f"{MARKET}/pc-komponenten/grafikkarten-5882?keyword=gaming&PRICE_TO=500"
)
AREA = parse_watch_argument(f"{MARKET}/pc-komponenten/grafikkarten-5882?areaId=900")
CADENCE = FeedCadence(interval=60, safety=1800)
INTERVAL = 300.0
PASS_EVERY = 10.0


@pytest.fixture
def world() -> FakeWillhabenSite:
    return FakeWillhabenSite(world=True)


@pytest.fixture
async def client(world: FakeWillhabenSite, clock: FakeClock) -> AsyncIterator[WillhabenClient]:
    async with willhaben_client(world.transport(), clock) as willhaben:
        yield willhaben


async def passes(
    db: Database,
    client: WillhabenClient,
    clock: FakeClock,
    seconds: float,
    *,
    interval: float = INTERVAL,
) -> list[ScanSummary]:
    """The scheduler as the bot runs it, a pass every 10 s, for `seconds` of virtual time;
    `interval` is HABICHT_SCRAPE_INTERVAL."""
    summaries = []
    end = clock() + seconds
    while clock() < end:
        clock.advance(PASS_EVERY)
        summaries.append(await one_pass(db, client, clock, interval=interval))
    return summaries


async def one_pass(
    db: Database,
    client: WillhabenClient,
    clock: FakeClock,
    progress: Callable[[], object] | None = None,
    *,
    interval: float = INTERVAL,
) -> ScanSummary:
    """One pass of the scheduler, as the bot's `scrape` job runs it."""
    return await run_pass(
        db,
        client,
        TextRenderer(),
        clock=clock,
        max_attempts=5,
        interval=interval,
        feeds=CADENCE,
        slack=PASS_EVERY,
        progress=progress,
    )


@pytest.fixture
def run(db: Database, client: WillhabenClient, clock: FakeClock) -> Callable[..., Any]:
    """`passes` on the test's database, 10 s of them unless told."""

    async def run_for(seconds: float = PASS_EVERY) -> list[ScanSummary]:
        return await passes(db, client, clock, seconds)

    return run_for


@pytest.fixture
def make(clock: FakeClock) -> Callable[..., list[FakeAdvert]]:
    """Graphics cards with random ids, published `age` seconds ago."""
    rand = random.Random(20)

    def adverts(count: int, title: str, *, age: float = 0.0, **fields: Any) -> list[FakeAdvert]:
        published = int((clock() - age) * 1000)
        return [
            FakeAdvert(
                str(rand.randrange(500_000_000, 2_200_000_000)),
                f"{title} {n}",
                fields.pop("price", Decimal(400)),
                published_ms=published + n,
                **fields,
            )
            for n in range(count)
        ]

    return adverts


async def alerts(db: Database) -> list[tuple[str, str, str | None]]:
    rows = await db.fetchall(
        "SELECT text, dedupe_key, source FROM notifications WHERE kind IN ('new', 'drop')"
        " ORDER BY id"
    )
    return [(row["text"], row["dedupe_key"], row["source"]) for row in rows]


async def started(subs: Subscriptions, run: Any, *watches: tuple[int, Any]) -> None:
    """The watches are added and their baselines taken."""
    for chat, search in watches:
        await subs.add_watch(chat, search, max_watches=5)
    await run()
