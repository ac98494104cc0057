"""Real-estate searches habicht can decide itself: flats to rent and flats to buy, by place,
price, living area, rooms, type, free areas and features.

Built on exactly what real pages prove (`../shared/fixtures/willhaben/REALESTATE.md`: each URL
parameter, the advert attribute that decides it, and how sure that is). A flat search is
*local* (`estate_search`) when every parameter is decidable there; then its category's feed —
every flat of the category, newest first — shows every advert it may list, and `EstateSearch
.matches` says which. As for the marketplace (`scraper.local`) the answer must never be "yes"
where willhaben would say "no", so wherever habicht cannot be sure it says "no", and the
search's own scan, which still runs, finds the rest:

- **Category** by the path: `/iad/immobilien/mietwohnungen/…` rents a flat (`adTypeId` 2),
  `/iad/immobilien/eigentumswohnung/…` buys one (1); the category root may end in its
  `…-angebote` segment (`mietwohnung-angebote`, `eigentumswohnung-angebote`). Houses stay
  plain: no saved page shows what their adverts carry.
- **Place**: a Bundesland (path `/wien/` … `/vorarlberg/`, or `areaId` 1 to 8, 900) is the advert's
  `STATE`; a Vienna district (path `/wien/wien-1070-neubau/`, or `areaId` 117223 to 117245) its
  `LOCATION_ID`. Several `areaId`s are any of them. A Bundesland mixed with districts, a
  district outside Vienna, a town, a place in the path beside another `areaId` (whether
  willhaben adds them, intersects them or takes one is not known): not decidable.
- **Price** (`PRICE_FROM`/`PRICE_TO`, cents allowed) and **living area**
  (`ESTATE_SIZE/LIVING_AREA_FROM`/`_TO`): both ends inclusive, on `PRICE` and
  `ESTATE_SIZE/LIVING_AREA`.
- **Rooms** (`NO_OF_ROOMS_BUCKET`) and **type** (`PROPERTY_TYPE`): the advert's `ROOMS` bucket
  and `PROPERTY_TYPE_ID`, several values any of them.
- **Free areas** (`FREE_AREA/FREE_AREA_TYPE`) and **features** (`ESTATE_PREFERENCE`): one value
  is verified; whether several mean all or any is not known, so a local match needs all of
  them (never wrong either way).
- **Seller** (`ISPRIVATE`): the advert's `ISPRIVATE`.
- `sort=1`, `rows`, `page`, `isNavigation`, `sfId`, `parent_areaid` are page state; anything
  else (`keyword`, `AVAILABLETODAY`, `PLOT/AREA_*`, `AT_TYPE`, `periode`, an unknown name)
  keeps the search plain.

An advert without the attribute a bound needs is no local match. The paid placement (trap 1:
shown on top of every filtered page whatever the filters) and building projects (trap 2:
listed through units the page does not show) are never local matches: the search's own scan
finds a project, and judges a placement like every advert that fits.

`ruled_out` is the other side: whether a real-estate search's decidable parameters certainly
exclude an advert its own page shows — a placement that does not fit, even where the marker is
missing. Its own scan drops such an entry (`scraper.pages`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from urllib.parse import parse_qsl, urlsplit

from habicht.model import Estate, Listing
from habicht.scraper.estate_terms import (
    BUY,
    CATEGORY_ROOTS,
    DISTRICT_SEGMENTS,
    ESTATE_FEEDS,
    FEATURES,
    FLAT_CATEGORIES,
    FLAT_TYPES,
    FREE_AREAS,
    IMMOBILIEN,
    PAGE_STATE,
    RENT,
    ROOM_BUCKETS,
    STATE_SEGMENTS,
    STATES,
    VIENNA_DISTRICTS,
)

__all__ = [
    "EstateSearch",
    "estate_search",
    "placed",
    "ruled_out",
    "stray",
]

_STATE_NAMES = frozenset(STATES.values())
_SELLER = {"1": True, "0": False}
_AMOUNT = re.compile(r"[0-9]{1,9}(?:\.[0-9]{1,2})?")
"""A bound as willhaben's links write it: euros or m², cents allowed ("949.99")."""
_MULTI = {
    "NO_OF_ROOMS_BUCKET": ROOM_BUCKETS,
    "PROPERTY_TYPE": FLAT_TYPES,
    "FREE_AREA/FREE_AREA_TYPE": FREE_AREAS,
    "ESTATE_PREFERENCE": FEATURES,
}
"""Parameters that may repeat, and the values each may take."""
_BOUNDS = ("PRICE_FROM", "PRICE_TO", "ESTATE_SIZE/LIVING_AREA_FROM", "ESTATE_SIZE/LIVING_AREA_TO")


@dataclass(frozen=True, slots=True)
class _Area:
    """Where a search looks: Bundesländer by `STATE` name, or Vienna districts by
    `LOCATION_ID` (never both); both empty: all of Austria."""

    states: frozenset[str] = frozenset()
    districts: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class EstateSearch:
    """What a local flat search asks of an advert (module docstring); `feed` is its
    category's newest-first page for all of Austria (`ESTATE_FEEDS`).

    All of Austria, not a Bundesland at a time: captures show the Vienna rental page moving
    about 12 entries an hour and ≈ 19,000 rental and ≈ 40,000 sale flats in all, so one
    200-row page a minute covers a whole category with a wide margin (REALESTATE.md). One
    feed per category costs one request a feed interval for every flat search of it; a feed
    per Bundesland would cost nine.
    """

    feed: str
    ad_type: int
    """`RENT` or `BUY`: the `adTypeId` of the category's adverts."""
    states: frozenset[str] = frozenset()
    """`STATE` names, any of them; empty: no Bundesland bound."""
    districts: frozenset[str] = frozenset()
    """Vienna districts' `LOCATION_ID`s, any of them; empty: no district bound."""
    price_from: Decimal | None = None
    price_to: Decimal | None = None
    area_from: Decimal | None = None
    area_to: Decimal | None = None
    rooms: frozenset[str] = frozenset()
    property_types: frozenset[str] = frozenset()
    free_areas: frozenset[str] = frozenset()
    """Every one of them (several: all, the choice that is never wrong)."""
    features: frozenset[str] = frozenset()
    """Every one of them, as `free_areas`."""
    private: bool | None = None

    def matches(self, listing: Listing) -> bool:
        """Whether willhaben's search lists `listing`, as far as habicht can be sure: never
        for a placement, a building project, an advert of the other category or one that
        does not say what a bound needs."""
        estate = listing.estate
        if (
            estate is None
            or estate.placement
            or estate.project
            or estate.ad_type != self.ad_type
            or (self.states and estate.state not in self.states)
            or (self.districts and estate.location_id not in self.districts)
            or (self.rooms and estate.rooms not in self.rooms)
            or (self.property_types and estate.property_type not in self.property_types)
            or not estate.free_areas >= self.free_areas
            or not estate.features >= self.features
            or (self.private is not None and listing.is_private is not self.private)
        ):
            return False
        return _within(listing.price, self.price_from, self.price_to) is True and (
            _within(estate.living_area, self.area_from, self.area_to) is True
        )

    @property
    def places(self) -> frozenset[str]:
        """What `FeedMatcher` indexes the search by: its `STATE` names or district ids, or
        "" for all of Austria (an advert is tried under "", its state and its district)."""
        return self.states | self.districts or frozenset({""})


def _within(value: Decimal | int | None, low: Decimal | None, high: Decimal | None) -> bool | None:
    """Whether `value` lies within the inclusive bounds; None when a bound is set and the
    advert does not say (unknown: no match, and nothing ruled out)."""
    if low is None and high is None:
        return True
    if value is None:
        return None
    return (low is None or value >= low) and (high is None or value <= high)


@dataclass(frozen=True, slots=True)
class _Parameters:
    """What a real-estate search URL says, decided or not: the category, the area (None:
    not decidable), each decidable parameter's values, and whether anything was not."""

    ad_type: int
    area: _Area | None
    values: Mapping[str, tuple[str, ...]]
    undecidable: bool


@functools.lru_cache(maxsize=16384)
def _parameters(url: str) -> _Parameters | None:
    """The parameters of a flat search `url`; None for any other URL. Remembered: the own
    scan asks `ruled_out` for every advert of every page."""
    parts = urlsplit(url)
    path = parts.path.rstrip("/")
    if not path.startswith(IMMOBILIEN):
        return None
    category, *places = path.removeprefix(IMMOBILIEN).split("/")
    ad_type = FLAT_CATEGORIES.get(category)
    if ad_type is None:
        return None
    if places == [CATEGORY_ROOTS[category]]:
        places = []
    path_area = _path_area(places)
    values: dict[str, list[str]] = {}
    undecidable = path_area is None
    for name, value in parse_qsl(parts.query, keep_blank_values=True):
        if name in PAGE_STATE and (name != "sort" or value == "1"):
            continue
        if name == "areaId" or name in _MULTI or name in _BOUNDS or name == "ISPRIVATE":
            values.setdefault(name, []).append(value)
        else:
            undecidable = True
    given_areas = values.pop("areaId", [])
    area = _area(given_areas or path_area or ()) if path_area is not None else None
    if path_area and given_areas and set(given_areas) != set(path_area):
        area = None  # a place in the path and another in the query: meaning not known
    decided: dict[str, tuple[str, ...]] = {}
    for name, given in values.items():
        if _decidable(name, given):
            decided[name] = tuple(given)
        else:
            undecidable = True
    return _Parameters(ad_type, area, decided, undecidable or area is None)


def _decidable(name: str, given: list[str]) -> bool:
    """Whether parameter `name` with the values `given` means what REALESTATE.md says: known
    values of a parameter that may repeat, one plain bound, one seller type."""
    allowed = _MULTI.get(name)
    if allowed is not None:
        return set(given) <= allowed
    if len(given) != 1:
        return False
    return given[0] in _SELLER if name == "ISPRIVATE" else bool(_AMOUNT.fullmatch(given[0]))


def _path_area(places: list[str]) -> list[str] | None:
    """The `areaId`s the path's places stand for: none, a Bundesland, or a Vienna district
    under `/wien/`; None for a place habicht cannot tie to an area."""
    if not places:
        return []
    if len(places) == 1 and places[0] in STATE_SEGMENTS:
        return [STATE_SEGMENTS[places[0]]]
    if len(places) == 2 and places[0] == "wien" and places[1] in DISTRICT_SEGMENTS:
        return [DISTRICT_SEGMENTS[places[1]]]
    return None


def _area(area_ids: Iterable[str]) -> _Area | None:
    """Bundesländer or Vienna districts, any of them; None for a town's or another district's
    id, or a Bundesland mixed with districts (REALESTATE.md trap 5)."""
    ids = set(area_ids)
    if ids <= STATES.keys():
        return _Area(states=frozenset(STATES[area] for area in ids))
    if ids <= VIENNA_DISTRICTS.keys():
        return _Area(districts=frozenset(ids))
    return None


def estate_search(url: str) -> EstateSearch | None:
    """The local form of the normalised flat search `url`, or None when habicht cannot decide
    every parameter (module docstring) or `url` is no flat search."""
    parameters = _parameters(url)
    if parameters is None or parameters.undecidable or parameters.area is None:
        return None
    given = parameters.values
    seller = given.get("ISPRIVATE")
    return EstateSearch(
        feed=f"https://{urlsplit(url).hostname}{ESTATE_FEEDS[parameters.ad_type]}?sort=1",
        ad_type=parameters.ad_type,
        states=parameters.area.states,
        districts=parameters.area.districts,
        price_from=_bound(given, "PRICE_FROM"),
        price_to=_bound(given, "PRICE_TO"),
        area_from=_bound(given, "ESTATE_SIZE/LIVING_AREA_FROM"),
        area_to=_bound(given, "ESTATE_SIZE/LIVING_AREA_TO"),
        rooms=frozenset(given.get("NO_OF_ROOMS_BUCKET", ())),
        property_types=frozenset(given.get("PROPERTY_TYPE", ())),
        free_areas=frozenset(given.get("FREE_AREA/FREE_AREA_TYPE", ())),
        features=frozenset(given.get("ESTATE_PREFERENCE", ())),
        private=None if seller is None else _SELLER[seller[0]],
    )


def _bound(given: Mapping[str, tuple[str, ...]], name: str) -> Decimal | None:
    value = given.get(name)
    return None if value is None else Decimal(value[0])


def ruled_out(url: str, listing: Listing) -> bool:
    """Whether the decidable parameters of the flat search `url` certainly exclude `listing`,
    whether or not the search is local (a Tirol search with a keyword still excludes a Vienna
    flat). True only by what REALESTATE.md holds verified or certain: the category (a flat to
    buy on a search for rent, or the other way round; an advert of any other `adTypeId` is
    not known to be absent), the Bundesland, the Vienna district, price, living area, rooms
    bucket and type; of several free areas or features only an advert with none of them.
    `ISPRIVATE` never rules out (its effect is unverified), nor does anything an advert does
    not say. A building
    project is ruled out by its place only: willhaben lists it through units the page does
    not show, in whichever category, price, size, rooms and type they have. False for every
    URL but a flat search, and for an advert that is not real estate."""
    estate = listing.estate
    parameters = _parameters(url)
    if estate is None or parameters is None:
        return False
    if parameters.area is not None and _elsewhere(parameters.area, estate):
        return True
    if estate.project:
        return False
    given = parameters.values
    return (
        (estate.ad_type in (RENT, BUY) and estate.ad_type != parameters.ad_type)
        or _outside(given, "PRICE", listing.price)
        or _outside(given, "ESTATE_SIZE/LIVING_AREA", estate.living_area)
        or _other(given.get("NO_OF_ROOMS_BUCKET"), estate.rooms)
        or _other(given.get("PROPERTY_TYPE"), estate.property_type)
        or _none_of(given.get("FREE_AREA/FREE_AREA_TYPE"), estate.free_areas)
        or _none_of(given.get("ESTATE_PREFERENCE"), estate.features)
    )


def placed(listing: Listing) -> bool:
    """Whether `listing` is a paid placement: on top of every filtered page, whatever the
    filters, wherever its advert really is (REALESTATE.md trap 1)."""
    return listing.estate is not None and listing.estate.placement


def stray(url: str, listing: Listing) -> bool:
    """Whether `listing`, an entry of the page of search `url` (a search's or a feed's), is no
    advert of that search: the paid placement (the issue's "the paid placement is not a flat
    of your search"), or an advert the search's parameters rule out (`ruled_out`: a placement
    without the marker). Dropped from a read before anything else — never recorded as the
    search's, never an anchor, never alerted, never in its going price; where the advert fits,
    its own entry is judged like every advert."""
    return placed(listing) or ruled_out(url, listing)


def _elsewhere(area: _Area, estate: Estate) -> bool:
    """Whether the advert is certainly outside `area`: in another Bundesland it names, or in
    another Vienna district."""
    if estate.state in _STATE_NAMES and area.states and estate.state not in area.states:
        return True
    if area.districts:
        if estate.state in _STATE_NAMES and estate.state != "Wien":
            return True
        return estate.location_id in VIENNA_DISTRICTS and estate.location_id not in area.districts
    return False


def _outside(given: Mapping[str, tuple[str, ...]], name: str, value: Decimal | int | None) -> bool:
    low, high = _bound(given, f"{name}_FROM"), _bound(given, f"{name}_TO")
    return _within(value, low, high) is False


def _other(wanted: tuple[str, ...] | None, value: str | None) -> bool:
    return wanted is not None and value is not None and value not in wanted


def _none_of(wanted: tuple[str, ...] | None, values: frozenset[str]) -> bool:
    return wanted is not None and values.isdisjoint(wanted)
