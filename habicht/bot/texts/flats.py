"""Real estate in words: what a flat hunter decides on, and a real-estate search named.

A flat's alert says rent or price, living area, rooms, € per m², the free areas (`facts`) and
its district as people say it (`district`: `1070 Neubau`); `/list` names a real-estate search
from the data `habicht.willhaben.describe` reads out of its URL (`search_words`). Everything
here is plain text in one catalogue's language: `Texts` escapes it into the templates, so the
site's words (an advert's LOCATION) arrive as text.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

from habicht.bot.texts.catalog import Catalog
from habicht.bot.texts.markup import LOCATION_BUDGET, format_price, shorten
from habicht.digits import whole_number
from habicht.market.going import per_m2
from habicht.model import Estate
from habicht.willhaben.describe import Description, rooms_span
from habicht.willhaben.estate_terms import VIENNA_DISTRICTS

__all__ = ["district", "facts", "per_m2_amount", "rooms", "search_words"]

_RENT, _BUY = 2, 1
"""`adTypeId` of a flat to rent and of one to buy."""


def per_m2_amount(catalog: Catalog, amount: Decimal) -> str:
    """`€ 19,20/m²` (`€19.20/m²`)."""
    return catalog.estate_per_m2.format(price=format_price(amount, catalog.lang))


def rooms(catalog: Catalog, low: int, high: int | None) -> str:
    """`1 Zimmer`, `3 Zimmer`, `2-3 Zimmer`, `ab 10 Zimmer` (`1 room`, `2-3 rooms`, …)."""
    if high is None:
        return catalog.search_from.format(value=catalog.estate_rooms.format(rooms=low))
    if low == high == 1:
        return catalog.estate_rooms_one
    span = str(low) if low == high else catalog.search_between.format(low=low, high=high)
    return catalog.estate_rooms.format(rooms=span)


def facts(catalog: Catalog, estate: Estate, price: Decimal | None) -> str:
    """`Miete · 100 m² · 3 Zimmer · € 10,04/m² · Balkon, Terrasse`: what the advert says of
    these, in this order, leaving out what it does not say (`price` is the one the alert
    tells: a drop's new price)."""
    parts = []
    if estate.ad_type in (_RENT, _BUY):
        parts.append(catalog.estate_rent if estate.ad_type == _RENT else catalog.estate_buy)
    area = estate.living_area
    if area:
        parts.append(catalog.estate_area.format(area=area))
    span = None if estate.rooms is None else rooms_span(estate.rooms)
    if span is not None:
        parts.append(rooms(catalog, *span))
    if area and price:
        parts.append(per_m2_amount(catalog, per_m2(price, area)))
    free = [catalog.free_areas.get(key) for key in sorted(estate.free_areas, key=_number)]
    if any(free):
        parts.append(", ".join(name for name in free if name))
    return " · ".join(parts)


def district(estate: Estate, location: str | None, postcode: str | None) -> str:
    """Where a flat is as flat hunters say it: `1070 Neubau` — a Vienna district by its area
    id (`LOCATION_ID`), else the postcode and the last part of the advert's LOCATION
    ("Tirol, Innsbruck" at 6020: `6020 Innsbruck`), shortened."""
    known = VIENNA_DISTRICTS.get(estate.location_id or "")
    if known is not None:
        return f"{known.postcode} {known.name}"
    name = (location or "").rsplit(",", 1)[-1].strip()
    if postcode and postcode not in name:
        name = f"{postcode} {name}".strip()
    return shorten(name or "—", LOCATION_BUDGET)


def search_words(catalog: Catalog, search: Description) -> str:
    """`Mietwohnung · Wien 1070, 1080 · 2-3 Zimmer · bis € 1.200 · ab 50 m²`, then types,
    free areas, features, seller, keyword and "+ more filters" where the search has them."""
    lang = catalog.lang
    parts = [catalog.search_kinds[search.category]]
    places = list(search.states)
    if search.districts:
        places.append("Wien " + ", ".join(search.districts))
    if places:
        parts.append(", ".join(places))
    if search.rooms:
        spans = [rooms(catalog, low, high) for low, high in search.rooms]
        parts.append(", ".join(spans))
    price, size = _named(*search.price), _named(*search.area)
    if price != (None, None):
        parts.append(_span(catalog, *price, lambda value: format_price(value, lang)))
    if size != (None, None):
        area = catalog.estate_area
        parts.append(_span(catalog, *size, lambda value: area.format(area=_plain(value))))
    for ids, names in (
        (search.property_types, catalog.estate_types),
        (search.free_areas, catalog.free_areas),
        (search.features, catalog.estate_features),
    ):
        if ids:
            parts.append(", ".join(names[key] for key in ids))
    if search.private is not None:
        parts.append(catalog.search_private if search.private else catalog.search_company)
    if search.keyword:
        parts.append(catalog.search_keyword.format(keyword=search.keyword))
    if search.more:
        parts.append(catalog.search_more)
    return " · ".join(parts)


def _named(low: Decimal | None, high: Decimal | None) -> tuple[Decimal | None, Decimal | None]:
    """A range as it is worth saying: a lower bound of 0 says nothing (`PRICE_FROM=0` is what
    willhaben's form sends for an empty field), so it is left out."""
    return (None if low == 0 else low), high


def _span(
    catalog: Catalog, low: Decimal | None, high: Decimal | None, word: Callable[[Decimal], str]
) -> str:
    """`ab X`, `bis Y` or `X-Y`, each end worded by `word`."""
    if low is None or high is None:
        key, value = ("search_to", high) if low is None else ("search_from", low)
        return str(getattr(catalog, key)).format(value=word(value or Decimal(0)))
    return catalog.search_between.format(low=word(low), high=word(high))


def _plain(value: Decimal) -> str:
    """A number as typed: `50`, `52.5`, never `5E+1`."""
    return format(value.normalize(), "f")


def _number(key: str) -> int:
    """An id's place in willhaben's own order (ids are numbers; anything else last)."""
    number = whole_number(key)
    return 1 << 30 if number is None else number
