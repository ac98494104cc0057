"""Parsed adverts as the scraper hands them on, for tests of what is done with one."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from habicht.model import Estate, Listing


def sofa(price: str | None, *, ad_id: str = "1622906706") -> Listing:
    """A sofa in Wien 1070 at `price` (None: price-less), as a search page lists it."""
    return Listing(
        id=ad_id,
        title="Sofa",
        price=None if price is None else Decimal(price),
        price_display=None,
        location="Wien, 07. Bezirk",
        postcode="1070",
        url=f"https://www.willhaben.at/iad/kaufen-und-verkaufen/d/sofa-{ad_id}/",
        image_url=None,
        published_at=None,
        bumped=False,
    )


def flat(estate: Estate, *, ad_id: str = "1", price: str | None = "900", **fields: Any) -> Listing:
    """A flat "Wohnung" at `price` that says `estate` of itself, as a search page lists it;
    `fields`: the rest of what the page says (the seller, the categories)."""
    return Listing(
        id=ad_id,
        title="Wohnung",
        price=None if price is None else Decimal(price),
        price_display=None,
        location=None,
        postcode=None,
        url="",
        image_url=None,
        published_at=None,
        bumped=False,
        estate=estate,
        **fields,
    )
