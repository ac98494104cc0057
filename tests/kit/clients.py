"""The scraper's HTTP client as the scraper tests build it: virtual time, a fake site."""

from __future__ import annotations

from typing import Any

import httpx

from habicht.willhaben.fetch import WillhabenClient
from kit.fakes import FakeClock

WILLHABEN = "https://www.willhaben.at"


def willhaben_client(
    transport: httpx.AsyncBaseTransport,
    clock: FakeClock,
    *,
    base_url: str = WILLHABEN,
    fetch_gap: float = 2.0,
    attempts: int = 1,
    **options: Any,
) -> WillhabenClient:
    """A `WillhabenClient` over `transport` whose gaps, retries and pauses pass on `clock`
    (no real sleep); one attempt unless a test is about retries."""
    return WillhabenClient(
        base_url=base_url,
        fetch_gap=fetch_gap,
        clock=clock,
        sleep=clock.sleep,
        transport=transport,
        attempts=attempts,
        **options,
    )
