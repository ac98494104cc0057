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
