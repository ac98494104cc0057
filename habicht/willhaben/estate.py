"""Real-estate searches habicht can decide itself: flats to rent and flats to buy, by place,
price, living area, rooms, type, free areas, features, seller and search words.

Built on exactly what real pages prove (`../shared/fixtures/willhaben/REALESTATE.md`: each URL
parameter, the advert attribute that decides it, and how sure that is). A flat search is
*local* (`estate_search`) when every parameter is decidable there; then its category's feed —
every flat of the category, newest first — shows every advert it may list, and `EstateSearch
.matches` says which. As for the marketplace (`willhaben.local`) the answer must never be "yes"
where willhaben would say "no", so wherever habicht cannot be sure it says "no", and the
search's own scan, which still runs, finds the rest:

- **Category** by the path: `/iad/immobilien/mietwohnungen/…` rents a flat (`adTypeId` 2),
  `/iad/immobilien/eigentumswohnung/…` buys one (1); the category root may end in its
  `…-angebote` segment (`mietwohnung-angebote`, `eigentumswohnung-angebote`). Houses stay
  plain: no saved page shows what their adverts carry.
- **Place**: a Bundesland (path `/wien/` … `/vorarlberg/`, or `areaId` 1 to 8, 900) is the advert's
  `STATE`; a Vienna district (path `/wien/wien-1070-neubau/`, or `areaId` 117223 to 117245) its
  `LOCATION_ID`. Several `areaId`s are any of them. Any other `areaId`s — a town's, a Bezirk's
  outside Vienna, a Bundesland mixed with districts (trap 5), several of them — are an area
  *learned* from the search's own reads (`scraper.places`): a `LOCATION_ID` a flat the search
  listed carries belongs to it for good, and a flat is a local match only in a place learned
  so; a new search of that kind matches nothing until its first read has listed flats, and a
  flat in a place not yet learned comes by its own scan. That rests on one assumption, stated
  here because it bites nowhere else: a search's area holds a `LOCATION_ID` whole or not at
  all (true in Vienna, where a district's `LOCATION_ID` is its `areaId`, the finest there is).
  A town in the path below its Bundesland (`/steiermark/graz`) is learned the same way, within
  that Bundesland's `STATE`. A place in the path beside an `areaId` (whether willhaben adds
  them, intersects them or takes one is not known), or deeper than that: not decidable.
- **Price** (`PRICE_FROM`/`PRICE_TO`, cents allowed) and **living area**
  (`ESTATE_SIZE/LIVING_AREA_FROM`/`_TO`): both ends inclusive, on `PRICE` and
  `ESTATE_SIZE/LIVING_AREA`.
- **Rooms** (`NO_OF_ROOMS_BUCKET`) and **type** (`PROPERTY_TYPE`): the advert's `ROOMS` bucket
  and `PROPERTY_TYPE_ID`, several values any of them.
- **Free areas** (`FREE_AREA/FREE_AREA_TYPE`) and **features** (`ESTATE_PREFERENCE`): one value
  is verified; whether several mean all or any is not known, so a local match needs all of
  them (never wrong either way).
- **Seller** (`ISPRIVATE`): the advert's `ISPRIVATE`.
- **Search words** (`keyword`): read as the marketplace reads them (`willhaben.words`, the rules
  in `willhaben.local`): every word a whole word of the title or the snippet (`BODY_DYN`, the
  start of the description, which every advert of the saved page carries, cut with "...");
  a keyword the marketplace cannot decide (quotes, a minus, an operator) keeps the search
  plain. willhaben may find more (words further down the description, perhaps the address):
  its own scan sends those.
- `sort=1`, `rows`, `page`, `isNavigation`, `sfId`, `parent_areaid` are page state; anything
  else (`AVAILABLETODAY`, `PLOT/AREA_*`, `AT_TYPE`, `periode`, an unknown name) keeps the
  search plain.

An advert without the attribute a bound needs is no local match. The paid placement (trap 1:
shown on top of every filtered page whatever the filters) is never one: its own scan judges
it like every advert that fits.

**Building projects** (trap 2: `adTypeId` 16, no rooms, type, living area or price of their
own, listed through their units) are a local match when their place fits (as a flat's) and
one of the units the page lists (`Estate.units`, its `children`) fits every other decidable
parameter by what the unit itself says: its own `adTypeId` for the category, its price
(`PRICE_FOR_DISPLAY`), living area and rooms (`NUMBER_OF_ROOMS`). Units never carry a type,
free areas or features, so a search naming any of them, or search words (whose text a project
is found by is not known), lists no project locally; nor does a unit that does not say what a
bound needs. Checked against the one real page with `children`
(`search-immobilien-mietwohnungen-wien.html`): it holds no `adTypeId` 16 entry — its 7
entries with `children` are flats of their own (`adTypeId` 2, each decided by its own
attributes as every flat; their 6 `children` are siblings in the same project, the same 6
under each of its entries, not the units the entry is listed by) — and its units carry
exactly `adTypeId`, `ESTATE_SIZE/LIVING_AREA`, `NUMBER_OF_ROOMS` and `PRICE_FOR_DISPLAY` of
what a parameter needs; every advert of the page shows its `PRICE` as that display ("€ 1.149")
and its `ROOMS` bucket from that figure, which is how a unit is read. The page's filter counts
(`navigatorGroups`, over all 4,864 flats of its search, of which it shows 30) count no project
by its units: 103 entries are in no rooms bucket and of no type — projects and the placement.
That willhaben *lists* a project under a filter one of its units fits rests on trap 2's
capture, which REALESTATE.md describes; a page that shows a project otherwise (no category on
its units, a price not written as one price) leaves it to the search's own scan.

`ruled_out` is the other side: whether a real-estate search's decidable parameters certainly
exclude an advert its own page shows — a placement that does not fit, even where the marker is
missing. Its own scan drops such an entry (`scraper.pages`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from decimal import Decimal
from urllib.parse import parse_qsl, urlsplit

from habicht.model import Estate, EstateUnit, Listing
from habicht.willhaben.estate_terms import (
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
from habicht.willhaben.words import advert_words, keyword_words

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
_DECIDED = frozenset({"areaId", "ISPRIVATE", "keyword", *_MULTI, *_BOUNDS})
"""Parameters an advert's attributes (or, for `keyword`, its words) may decide."""


_AREA_ID = re.compile(r"[0-9]{1,9}")
"""An `areaId` as willhaben writes one: a Bundesland's, a district's, a town's."""
_SEGMENT = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
"""A place's path segment, as willhaben writes one: `graz`, `salzburg-stadt`."""


@dataclass(frozen=True, slots=True)
class _Area:
    """Where a search looks: Bundesländer by `STATE` name, or Vienna districts by
    `LOCATION_ID` (never both), or places it learns (`learned`); all empty: all of Austria."""

    states: frozenset[str] = frozenset()
    districts: frozenset[str] = frozenset()
    learned: bool = False


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
    words: tuple[str, ...] = ()
    """The keyword's words (`words.keyword_words`): each a word of the title or the snippet."""
    learned: bool = False
    """Whether its area is learned from its own reads (a town's or a Bezirk's `areaId`,
    several of them, a Bundesland mixed with districts): then only a flat in one of
    `locations` is a match (`scraper.places`)."""
    locations: frozenset[str] = frozenset()
    """The `LOCATION_ID`s learned so far, any of them (`learning`); empty: matches nothing."""

    def matches(self, listing: Listing, *, found: frozenset[str] | None = None) -> bool:
        """Whether willhaben's search lists `listing`, as far as habicht can be sure: never
        for a placement, an advert of the other category, one that does not say what a bound
        needs, nor a building project none of whose listed units fits (`_unit_fits`).
        `found`: the advert's words (`words.advert_words`), when the caller read them
        already."""
        estate = listing.estate
        if (
            estate is None
            or estate.placement
            or (self.states and estate.state not in self.states)
            or (self.districts and estate.location_id not in self.districts)
            or (self.learned and estate.location_id not in self.locations)
            or (self.private is not None and listing.is_private is not self.private)
        ):
            return False
        if self.words:
            if estate.project:  # found by its own text or by its units'? not known
                return False
            if found is None:
                found = advert_words(listing.title, listing.body)
            if not found.issuperset(self.words):
                return False
        if estate.project:
            return any(self._unit_fits(unit) for unit in estate.units)
        if (
            estate.ad_type != self.ad_type
            or (self.rooms and estate.rooms not in self.rooms)
            or (self.property_types and estate.property_type not in self.property_types)
            or not estate.free_areas >= self.free_areas
            or not estate.features >= self.features
        ):
            return False
        return _within(listing.price, self.price_from, self.price_to) is True and (
            _within(estate.living_area, self.area_from, self.area_to) is True
        )

    def _unit_fits(self, unit: EstateUnit) -> bool:
        """Whether a building project's unit fits every parameter a flat's own attributes
        would decide: its own category, price, living area and rooms. A unit never says its
        type, free areas or features, so a search naming any of them lists no project
        locally."""
        if (
            unit.ad_type != self.ad_type
            or self.property_types
            or self.free_areas
            or self.features
            or (self.rooms and unit.rooms not in self.rooms)
        ):
            return False
        return _within(unit.price, self.price_from, self.price_to) is True and (
            _within(unit.living_area, self.area_from, self.area_to) is True
        )

    def learning(self, locations: Iterable[str]) -> EstateSearch:
        """The search with the `LOCATION_ID`s its own reads taught it (`scraper.places`); a
        search whose area is known stays as it is."""
        return replace(self, locations=frozenset(locations)) if self.learned else self

    @property
    def places(self) -> frozenset[str]:
        """What `FeedMatcher` indexes the search by: its `STATE` names, district ids or
        learned `LOCATION_ID`s (none yet: no entry, it matches nothing), or "" for all of
        Austria (an advert is tried under "", its state and its `LOCATION_ID`)."""
        if self.learned:
            return self.locations
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
    town = _town(places) if path_area is None else None
    values: dict[str, list[str]] = {}
    undecidable = path_area is None and town is None
    for name, value in parse_qsl(parts.query, keep_blank_values=True):
        if name in PAGE_STATE and (name != "sort" or value == "1"):
            continue
        if name in _DECIDED:
            values.setdefault(name, []).append(value)
        else:
            undecidable = True
    given_areas = values.pop("areaId", [])
    area = _area(given_areas or path_area or ()) if path_area is not None else None
    if path_area and given_areas and set(given_areas) != set(path_area):
        area = None  # a place in the path and another in the query: meaning not known
    if town is not None:
        area = None if given_areas else town
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
    if name == "keyword":
        return keyword_words(given[0]) is not None
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


def _town(places: list[str]) -> _Area | None:
    """A place below a Bundesland in the path that is no Vienna district — a town, as
    subscribers paste them (`/steiermark/graz`, `/oberoesterreich/linz`): in that Bundesland
    (its `STATE`), its places learned as a town's `areaId`'s are; None for any other path."""
    if (
        len(places) != 2
        or places[0] not in STATE_SEGMENTS.keys() - {"wien"}  # Vienna's are its districts
        or not _SEGMENT.fullmatch(places[1])
        or places[1].endswith("-angebote")  # a category's root, not a place
    ):
        return None
    return _Area(states=frozenset({STATES[STATE_SEGMENTS[places[0]]]}), learned=True)


def _area(area_ids: Iterable[str]) -> _Area | None:
    """Bundesländer or Vienna districts, any of them; an area to learn (`_Area.learned`) for
    any other `areaId`s — a town's, a Bezirk's, a Bundesland mixed with districts
    (REALESTATE.md trap 5), several of them —, whatever willhaben makes of several: what a
    search lists is in its area, however that is drawn; None for one that is no `areaId`."""
    ids = set(area_ids)
    if ids <= STATES.keys():
        return _Area(states=frozenset(STATES[area] for area in ids))
    if ids <= VIENNA_DISTRICTS.keys():
        return _Area(districts=frozenset(ids))
    if all(_AREA_ID.fullmatch(area) for area in ids):
        return _Area(learned=True)
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
        words=_words(given.get("keyword")),
        learned=parameters.area.learned,
    )


def _words(keyword: tuple[str, ...] | None) -> tuple[str, ...]:
    """The words of a decidable `keyword` (`_decidable` has read them once), none without."""
    return () if keyword is None else keyword_words(keyword[0]) or ()


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
