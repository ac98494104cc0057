"""A search of many pages on the fake willhaben, as the detection and page-depth tests drive
it: FLATS with adverts of random ids, a client and a scan five minutes after the last, which
pages were asked for, a page that fails or changes the site when it is asked for, a baseline."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Callable
from decimal import Decimal
from typing import Any

import httpx
import pytest

from habicht.db import Database
from habicht.fakes import FakeAdvert
from habicht.fakes.willhaben_site import FakeWillhabenSite as Site  # short for the signatures
from habicht.fakes.willhaben_site import SiteFault
from habicht.scraper.scan import ScanSummary, scan
from habicht.watches.subscriptions import Subscriptions
from habicht.willhaben.fetch import WillhabenClient
from habicht.willhaben.urls import parse_watch_argument
from kit.clients import willhaben_client
from kit.fakes import FakeClock, TextRenderer

FLATS = parse_watch_argument("https://www.willhaben.at/iad/immobilien/mietwohnungen/wien")


def page_number(request: httpx.Request) -> str:
    return request.url.params.get("page", "1")


def pages_asked(site: Site) -> list[str]:
    """The page number of each request the site received, in order."""
    return [page_number(request) for request in site.log]


def on_page(
    site: Site,
    page: str,
    *,
    fault: SiteFault | None = None,
    change: Callable[[], None] | None = None,
    every_time: bool = False,
) -> None:
    """When `page` is asked for next: `change` the site just before answering it (the site
    changing between two pages), or answer `fault` instead — once, or `every_time`."""

    def hook(request: httpx.Request) -> SiteFault | None:
        if page_number(request) != page:
            return None
        if not every_time:
            site.intercept(None)
        if change is not None:
            change()
        return fault

    site.intercept(hook)


@pytest.fixture
def site() -> Site:
    return Site()


@pytest.fixture
async def client(site: Site, clock: FakeClock) -> AsyncIterator[WillhabenClient]:
    async with willhaben_client(site.transport(), clock) as willhaben:
        yield willhaben


@pytest.fixture
def run(db: Database, client: WillhabenClient, clock: FakeClock) -> Callable[[], Any]:
    async def run_scan() -> ScanSummary:
        clock.advance(300)
        return await scan(db, client, TextRenderer(), clock=clock, max_attempts=5)

    return run_scan


@pytest.fixture
def make(clock: FakeClock) -> Callable[..., list[FakeAdvert]]:
    """Adverts with random ids (as on real pages: about 5·10^8 to 2.2·10^9), published `age`
    seconds before now."""
    rand = random.Random(9)

    def adverts(count: int, *, age: float = 0.0, price: int = 700) -> list[FakeAdvert]:
        ids = rand.sample(range(500_000_000, 2_200_000_000), count)
        published = int((clock() - age) * 1000)
        return [
            FakeAdvert(str(ad_id), f"Wohnung {ad_id}", Decimal(price), published_ms=published)
            for ad_id in ids
        ]

    return adverts


async def alerts(db: Database, kind: str = "new") -> list[tuple[str, str]]:
    rows = await db.fetchall(
        "SELECT text, dedupe_key FROM notifications WHERE kind = ? ORDER BY id", (kind,)
    )
    return [(row["text"], row["dedupe_key"]) for row in rows]


async def baseline(
    subs: Subscriptions, site: Site, run: Callable[[], Any], adverts: list[FakeAdvert]
) -> ScanSummary:
    """Chat 1 watches FLATS, which holds `adverts` (newest first); its baseline is taken."""
    site.set_listings(FLATS.url, adverts)
    await subs.add_watch(1, FLATS, max_watches=5)
    summary: ScanSummary = await run()
    assert summary.baselines == 1
    return summary
