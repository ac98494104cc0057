"""The vocabulary every part of habicht shares: an advert (`Listing`) and what a real-estate
advert says of itself (`Estate`), a watchable search (`Search`), what a failed scan records
(`ErrorKind`), and an amount as text (`money`).

It sits below willhaben, scraper, watches and market (the import contracts in pyproject.toml),
so that each of them can speak of adverts and searches without importing another: willhaben's
page parser makes `Listing`s, the watches judge them and the market remembers them.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Literal, overload

__all__ = ["ESTATE_PROJECT", "ErrorKind", "Estate", "EstateUnit", "Listing", "Search", "money"]

ErrorKind = Literal["fetch", "blocked", "layout", "database"]
"""What `searches.last_error_kind` records: a `ScrapeError`'s kind, or "database" when
SQLite failed while a scan recorded its page (locked past the busy timeout, disk full) —
never the page's fault, so never "layout"."""


ESTATE_PROJECT = 16
"""The `adTypeId` of a building project: listed through its units, never an advert of its own
rooms, type or size (`../shared/fixtures/willhaben/REALESTATE.md`, trap 2)."""


@dataclass(frozen=True, slots=True)
class EstateUnit:
    """One unit of a building project as the project's `children` entry on a search page says
    it: its own `adTypeId` (2 to rent, 1 to buy), its price (the page shows it only as
    `PRICE_FOR_DISPLAY`, "€ 1.149"), its living area (`ESTATE_SIZE/LIVING_AREA`) and its rooms
    bucket (from `NUMBER_OF_ROOMS`, "2" → "2X2"). None where the entry does not say: no
    type, free areas or features, which units never carry."""

    ad_type: int | None = None
    price: Decimal | None = None
    living_area: int | None = None
    rooms: str | None = None


@dataclass(frozen=True, slots=True)
class Estate:
    """What a real-estate advert says of itself, in the attributes a real-estate search's
    parameters are decided by (`../shared/fixtures/willhaben/REALESTATE.md`).

    `ad_type` is `adTypeId` (2 a flat to rent, 1 a flat to buy, `ESTATE_PROJECT` a building
    project); `state` the Bundesland (`STATE`, "Wien"); `location_id` the area id of a Vienna
    district (`LOCATION_ID`, "117229" for 1070 Neubau); `living_area` whole m²
    (`ESTATE_SIZE/LIVING_AREA`); `rooms` the rooms bucket as willhaben writes it (`ROOMS`,
    "2X2", "6X9", "10X", "0X0"); `property_type` `PROPERTY_TYPE_ID` ("3" Wohnung); `free_areas`
    and `features` the ids of `FREE_AREA_TYPE` and `ESTATE_PREFERENCE` ("10, 30");
    `placement` a paid placement (`REFERER` "pp"), shown on top of every filtered page whatever
    the filters; `units` a building project's units its page lists (`children`), empty for
    every other advert. None where the advert does not say.
    """

    ad_type: int | None = None
    state: str | None = None
    location_id: str | None = None
    living_area: int | None = None
    rooms: str | None = None
    property_type: str | None = None
    free_areas: frozenset[str] = frozenset()
    features: frozenset[str] = frozenset()
    placement: bool = False
    units: tuple[EstateUnit, ...] = ()

    @property
    def project(self) -> bool:
        """A building project (trap 2): listed through its units, never by rooms, type or size
        of its own."""
        return self.ad_type == ESTATE_PROJECT


@dataclass(frozen=True, slots=True)
class Listing:
    """One advert of a search page.

    `price` is None for price-less adverts ("zu verschenken", "VB", "auf Anfrage");
    `published_at` is epoch seconds from `PUBLISHED` (bumping refreshes it, so it is no
    measure of "new"); `bumped` marks bumped or promoted adverts shown on top; `reserved`
    one a seller has marked reserved (`advertStatus.id`), whose title then loses willhaben's
    "(reserviert) " prefix so that it reads the same once the advert is active again;
    `body` the start of its description (`BODY_DYN`) where the page has it; `is_private`
    whether a private person (True) or a company (False) sells it, None if the page says not;
    `category_ids` its category and every one above it (`categorytreeids`, "5824;5878;5882");
    `coordinates` where it is (`COORDINATES` "48.38488,16.20766": latitude, longitude), None
    if the page does not say or says nonsense; `seller_id` who sells it (`ORGID`, which
    private sellers have too), None if the page does not say; `estate` what a real-estate
    advert says of itself, None for every other advert.
    """

    id: str
    title: str
    price: Decimal | None
    price_display: str | None
    location: str | None
    postcode: str | None
    url: str
    image_url: str | None
    published_at: float | None
    bumped: bool
    reserved: bool = False
    body: str | None = None
    is_private: bool | None = None
    category_ids: tuple[str, ...] = ()
    coordinates: tuple[float, float] | None = None
    seller_id: str | None = None
    estate: Estate | None = None


@dataclass(frozen=True, slots=True)
class Search:
    """A watchable search: its normalised URL and a short human label for lists."""

    url: str
    label: str


@overload
def money(value: Decimal) -> str: ...
@overload
def money(value: None) -> None: ...
@overload
def money(value: Decimal | None) -> str | None: ...
def money(value: Decimal | None) -> str | None:
    """An amount as stored, put in dedupe keys and shown in rules: `400`, `99.9`, never
    `4E+2` or `400.00`; None (an advert without a price) stays None."""
    return None if value is None else format(value.normalize(), "f")
