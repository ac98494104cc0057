"""Every price an advert was seen at (`habicht.market.history`), through the real client, scan
and SQLite file: a spell without a price writes nothing, so a drop is measured from the last
price that was known."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from kit.paging import alerts, baseline, client, run, site

from habicht.db import Database
from habicht.fakes import FakeAdvert
from habicht.fakes.willhaben_site import FakeWillhabenSite as Site  # short for the signatures
from habicht.market.history import price_at, priced_since
from habicht.market.listings import record_listings
from habicht.model import Listing
from habicht.watches.subscriptions import Subscriptions

__all__ = ["client", "run", "site"]  # the kit's fixtures this file uses


async def test_a_price_less_spell_keeps_the_last_known_price(
    db: Database, subs: Subscriptions, site: Site, run: Any
) -> None:
    """500 → no price → 300 is a drop from 500: a spell without a price erases nothing."""
    flat = FakeAdvert("1339479305", "Balkon", Decimal(500))
    await baseline(subs, site, run, [flat])
    site.set_price(flat.id, None)
    assert (await run()).drops == 0
    site.set_price(flat.id, Decimal(300))
    assert (await run()).drops == 1
    assert await alerts(db, "drop") == [(f"drop {flat.id} 500->300", f"drop:{flat.id}:1:500:300")]


async def test_price_at_and_priced_since_read_an_adverts_history(db: Database) -> None:
    """Issue 37: the price an advert was seen at as of a time (None before its first), and
    when its price became what it is (adverts with no history left out)."""

    def advert(ad_id: str, price: int) -> Listing:
        return Listing(
            ad_id, "Sofa", Decimal(price), None, None, None, "https://x/", None, None, False
        )

    for now, read in [
        (100.0, [("1", 50), ("2", 10)]),
        (200.0, [("1", 40), ("2", 10)]),
        (300.0, [("1", 40)]),
    ]:
        async with db.transaction() as conn:
            await record_listings(conn, [advert(*one) for one in read], now=now)
    reader = db.reader
    assert await price_at(reader, "1", at=99.0) is None
    assert await price_at(reader, "1", at=100.0) == Decimal(50)
    assert await price_at(reader, "1", at=250.0) == Decimal(40)
    assert await price_at(reader, "never", at=250.0) is None
    assert await priced_since(reader, ["1", "2", "never"]) == {"1": 200.0, "2": 100.0}
