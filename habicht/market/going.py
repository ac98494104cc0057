"""A search's going price: what the adverts it showed in the last 30 days cost.

Each advert counts once, at its latest price (`listings.price`), when the search showed it
(its own scan or its feed's local match, `search_listings`) within `WINDOW`. Placeholder
prices say nothing about the market and are left out: price-less adverts ("zu verschenken",
"VB") have none, and € 0 and € 1 (`PLACEHOLDER_MAX`) are how sellers type "free" or "make an
offer" where a price is required.

Robust to outliers in two steps. First, prices more than `SPREAD` times away from the median
of all of them (a € 5 "Tausch gegen …", a mistyped € 45,000 for a € 450 sofa) are dropped;
then the rest is summed up by its median and quartiles, which a few wild prices cannot move
(up to a quarter of them could be absurd and the quartiles would still be real prices).
Means and standard deviations are never used: one € 99,999 advert would shift them for a
month.

Real estate is compared per m² (issue 29): a 100 m² flat at € 1,004 is no dear flat among
45 m² flats at € 864. Adverts that say their living area (`listings.living_area`, only real
estate has one) are summed up by their price per m² and the rest of the search's adverts are
left out, so a real-estate search compares like with like; a search none of whose adverts has
an area (the marketplace, cars) keeps the plain price. `PriceStats.per_m2` says which, and
`PriceStats.measure` turns an advert's price into what is compared.

An advert is compared with the going price (`PriceStats.comparable`) only when its price is
one the going price would have counted: above the placeholders and within `SPREAD` of the
median. A € 1 "make an offer" is not "100 % under the median", and a € 5 "Tausch" in a
€ 450 search is no deal: such an advert gets no line in its alert, and `deal` passes it over.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import ROUND_DOWN, ROUND_HALF_UP, Decimal

import aiosqlite

__all__ = [
    "MIN_PRICES",
    "PLACEHOLDER_MAX",
    "SHOWN_PRICES",
    "SPREAD",
    "WINDOW",
    "PriceStats",
    "Shown",
    "going_of",
    "going_price",
    "going_prices",
    "per_m2",
    "summarize",
]

WINDOW = 30 * 86400.0
"""How far back a search's adverts count (seconds)."""
MIN_PRICES = 10
"""Prices a search needs before its median is worth telling (an alert's line, `deal`)."""
PLACEHOLDER_MAX = Decimal(1)
"""Prices up to this are placeholders, not prices."""
SPREAD = Decimal(10)
"""A price this many times above or below the median of all is an outlier."""
_HUNDRED = Decimal(100)

SHOWN_PRICES = (
    "SELECT l.price, l.living_area FROM search_listings s JOIN listings l ON l.ad_id = s.ad_id"
    " WHERE s.search_id = ? AND s.last_seen_at >= ?"
)
"""The latest price (NULL: none) and the living area (NULL: none) of each advert a search
showed since a time: one row an advert, however often it was shown or repriced (`going_prices`
asks the same of many searches at once)."""

Shown = tuple[Decimal, int | None]
"""A priced advert as the going price reads it: its price, and its living area in m² (None:
not real estate, or it does not say)."""


@dataclass(frozen=True, slots=True)
class PriceStats:
    """How many prices there were, their median and their quartiles (`low` ≤ median ≤ `high`)."""

    count: int
    median: Decimal
    low: Decimal
    high: Decimal
    per_m2: bool = False
    """Whether the figures are € per m² of living area (real estate), not prices."""

    @property
    def enough(self) -> bool:
        """Whether there are enough prices to tell (`MIN_PRICES`)."""
        return self.count >= MIN_PRICES

    def measure(self, price: Decimal | None, living_area: int | None) -> Decimal | None:
        """What this going price compares of an advert at `price` with `living_area` m²: its
        price, or per m² its price per m²; None when it has no price, or no area to divide by."""
        if price is None or not self.per_m2:
            return price
        return None if not living_area else per_m2(price, living_area)

    def percent_under(self, price: Decimal) -> int:
        """How many percent `price` is under the median (negative: over it), rounded."""
        share = (self.median - price) * _HUNDRED / self.median
        return int(share.quantize(Decimal(1), rounding=ROUND_HALF_UP))

    def comparable(self, price: Decimal) -> bool:
        """Whether `price` is one the going price would count: no placeholder, and within
        `SPREAD` of the median (module docstring)."""
        return price > PLACEHOLDER_MAX and self.median / SPREAD <= price <= self.median * SPREAD

    def under_by(self, price: Decimal, percent: Decimal) -> bool:
        """Whether `price` is comparable and at least `percent` % under the median, exactly
        (not the rounded percent `percent_under` says): `price <= median * (1 - percent / 100)`."""
        return self.comparable(price) and price * _HUNDRED <= self.median * (_HUNDRED - percent)

    def threshold(self, percent: Decimal) -> Decimal:
        """The highest price that is at least `percent` % under the median, to the cent."""
        return _cents(self.median * (_HUNDRED - percent) / _HUNDRED, rounding=ROUND_DOWN)


def per_m2(price: Decimal, living_area: int) -> Decimal:
    """`price` per m² of `living_area` (m² > 0), to the cent."""
    return _cents(price / living_area)


def going_of(shown: Iterable[Shown]) -> PriceStats | None:
    """The going price of priced adverts a search showed: per m² of the ones with a living
    area if any has one, else of their prices (module docstring)."""
    adverts = list(shown)
    sized = [per_m2(price, area) for price, area in adverts if area]
    if sized:
        return summarize(sized, per_m2=True)
    return summarize(price for price, _ in adverts)


def summarize(prices: Iterable[Decimal], *, per_m2: bool = False) -> PriceStats | None:
    """The median and quartiles of `prices` (€ per m² if `per_m2`) without placeholders and
    outliers (module docstring); None when none is left."""
    real = sorted(price for price in prices if price > PLACEHOLDER_MAX)
    if not real:
        return None
    middle = statistics.median(real)
    kept = [price for price in real if middle / SPREAD <= price <= middle * SPREAD]
    if len(kept) < 2:
        only = _cents(kept[0])
        return PriceStats(1, only, only, only, per_m2)
    low, median, high = statistics.quantiles(kept, n=4, method="inclusive")
    return PriceStats(len(kept), _cents(median), _cents(low), _cents(high), per_m2)


def _cents(value: Decimal, *, rounding: str = ROUND_HALF_UP) -> Decimal:
    """`value` to the cent, and whole euros without cents (`350`, not `350.00` or `3.5E+2`)."""
    cents = value.quantize(Decimal("0.01"), rounding=rounding)
    return cents.quantize(Decimal(1)) if cents == cents.to_integral_value() else cents


async def going_price(
    conn: aiosqlite.Connection, search_id: int, *, now: float, window: float = WINDOW
) -> PriceStats | None:
    """The going price of the adverts search `search_id` showed within `window` before `now`."""
    return (await going_prices(conn, [search_id], now=now, window=window))[search_id]


async def going_prices(
    conn: aiosqlite.Connection, search_ids: Iterable[int], *, now: float, window: float = WINDOW
) -> dict[int, PriceStats | None]:
    """`going_price` of each of `search_ids`, in one query for them all (a feed read judges
    many searches at once)."""
    shown: dict[int, list[Shown]] = {search_id: [] for search_id in search_ids}
    rows = await conn.execute_fetchall(
        "SELECT s.search_id, l.price, l.living_area"
        " FROM search_listings s JOIN listings l ON l.ad_id = s.ad_id"
        " WHERE s.search_id IN (SELECT value FROM json_each(?)) AND s.last_seen_at >= ?",
        (json.dumps(sorted(shown)), now - window),
    )
    for search_id, price, area in rows:
        if price is not None:
            shown[search_id].append((Decimal(price), area))
    return {search_id: going_of(adverts) for search_id, adverts in shown.items()}
