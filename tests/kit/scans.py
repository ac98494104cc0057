"""One scan over the fake willhaben, as the scan, judge and search-health tests drive it: the
searches RTX and SOFA (empty until a test fills them), a client that tries twice, a scan five
minutes after the last, and the outbox and adverts as those tests read them."""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator
from decimal import Decimal
from typing import Any

import pytest

from habicht.db import Database
from habicht.fakes import FakeAdvert
from habicht.fakes.willhaben_site import FakeWillhabenSite
from habicht.scraper.scan import ScanSummary, scan
from habicht.willhaben.fetch import WillhabenClient
from habicht.willhaben.urls import parse_watch_argument
from kit.clients import willhaben_client
from kit.fakes import FakeClock, TextRenderer

BASE = "http://127.0.0.1:8099"
RTX = parse_watch_argument("rtx")
SOFA = parse_watch_argument("sofa")


@pytest.fixture
def site() -> FakeWillhabenSite:
    """The fake willhaben with the searches RTX and SOFA, empty so far."""
    site = FakeWillhabenSite()
    site.set_listings(RTX.url, [])
    site.set_listings(SOFA.url, [])
    return site


def fetched(site: FakeWillhabenSite) -> Counter[str]:
    """The requests the site received, per keyword."""
    return Counter(request.url.params["keyword"] for request in site.log)


@pytest.fixture
async def client(site: FakeWillhabenSite, clock: FakeClock) -> AsyncIterator[WillhabenClient]:
    async with willhaben_client(site.transport(), clock, base_url=BASE, attempts=2) as willhaben:
        yield willhaben


@pytest.fixture
def run(db: Database, client: WillhabenClient, clock: FakeClock) -> Any:
    async def run_scan(**kwargs: Any) -> ScanSummary:
        clock.advance(300)
        return await scan(db, client, TextRenderer(), clock=clock, max_attempts=5, **kwargs)

    return run_scan


async def outbox(db: Database) -> list[tuple[int, str, str, str]]:
    rows = await db.fetchall(
        "SELECT chat_id, kind, text, dedupe_key FROM notifications ORDER BY id"
    )
    return [(row[0], row[1], row[2], row[3]) for row in rows]


def advert(ad_id: str, price: str | None = "100", **kwargs: Any) -> FakeAdvert:
    return FakeAdvert(
        ad_id, f"Anzeige {ad_id}", None if price is None else Decimal(price), **kwargs
    )
