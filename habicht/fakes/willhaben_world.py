"""What willhaben's own search lists, as the fake site's world answers it: the truth that
habicht's local matching (`habicht.willhaben.local`) is held against.

Written apart from the scraper on purpose — a fake that shared habicht's matching code would
agree with every mistake in it. A search path and its query select adverts of one catalogue:

- the path: the marketplace root holds every marketplace advert; a marketplace path ending in
  a category id (`…/grafikkarten-5882`) holds the adverts whose category tree holds that id;
  any other path holds the adverts listed under it or below it (`FakeAdvert.path`);
- `keyword`: every word is a whole word of the title or the *whole* description (the page
  shows only its start, so a word further down is one only willhaben's search finds), case,
  accents and umlauts aside. Words are read as a generous search would: the text unescaped
  (`&nbsp;` is a space, as on the real pages), split at everything but letters and digits
  ("1.6" is 1 and 6), "ä" folded to "ae". habicht's local matching reads them more strictly
  (`habicht.willhaben.words`), so that it never says "yes" where some plausible reading says
  "no" — held against this world, it must find a subset of what the world lists;
- `PRICE_FROM`, `PRICE_TO`: the price, inclusive; a price-less advert is not listed then;
- `ISPRIVATE`: the seller type;
- any other parameter but `sort`, `rows` and `page`: the advert names it among its `params`.

A flat (`FakeAdvert.estate`) is listed only by real-estate paths (`/iad/immobilien/…`), as
`EstateQuery` reads them from REALESTATE.md; an advert without `estate` is listed as above on
any path, a real-estate one too (the older tests' flats, known by their `path` alone).

Newest first, as `sort=1` asks: by `PUBLISHED` (a bump refreshes it), undated adverts last.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import lru_cache

import httpx

from habicht.fakes.willhaben_estate import (
    PATHS,
    PLACES,
    SEGMENTS,
    STATES,
    FakeEstate,
    FakeUnit,
    rooms_bucket,
    slug,
)
from habicht.fakes.willhaben_pages import FakeAdvert

__all__ = ["EstateQuery", "listed", "lister", "newest_first"]

_MARKETPLACE = "/iad/kaufen-und-verkaufen/marktplatz"
_CATEGORY_ID = re.compile(r"-([0-9]+)$")
_PAGING = frozenset({"sort", "rows", "page"})
_WORD = re.compile(r"[^\W_]+")
_UMLAUTS = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss"})


def listed(advert: FakeAdvert, url: httpx.URL, *, all_of: bool = False) -> bool:
    """Whether willhaben's search `url` lists `advert` (module docstring; `all_of`: see
    `EstateQuery`)."""
    return lister(url, all_of=all_of)(advert)


def lister(url: httpx.URL, *, all_of: bool = False) -> Callable[[FakeAdvert], bool]:
    """`listed` for one search, its URL read once: what the site and the benchmarks call for
    every advert of a catalogue of thousands."""
    by_path = _path_lister(url)
    if not EstateQuery.covers(url):
        return by_path
    estates = EstateQuery(url, all_of=all_of).lists
    return lambda advert: estates(advert) if advert.estate is not None else by_path(advert)


def _path_lister(url: httpx.URL) -> Callable[[FakeAdvert], bool]:
    """The lister of adverts that are not flats: by their `path`, `categories` and `params`."""
    path = url.path.rstrip("/")
    params = [(name, value) for name, value in url.params.multi_items() if name not in _PAGING]
    category = _CATEGORY_ID.search(path) if path.startswith(_MARKETPLACE + "/") else None
    below = path + "/"

    def in_path(advert: FakeAdvert) -> bool:
        if advert.estate is not None:
            return False
        if category is not None:
            return category[1] in advert.categories
        return advert.path == path or advert.path.startswith(below)

    return lambda advert: (
        in_path(advert) and all(_satisfies(advert, name, value) for name, value in params)
    )


def newest_first(adverts: Iterable[FakeAdvert]) -> list[FakeAdvert]:
    return sorted(adverts, key=lambda advert: -(advert.published_ms or -1))


def _satisfies(advert: FakeAdvert, name: str, value: str) -> bool:
    if name == "keyword":
        return _words(value) <= _words(f"{advert.title} {advert.description}")
    if name in ("PRICE_FROM", "PRICE_TO"):
        bound = _decimal(value)
        if advert.price is None or bound is None:
            return False
        return advert.price >= bound if name == "PRICE_FROM" else advert.price <= bound
    if name == "ISPRIVATE":
        return value == ("1" if advert.private else "0")
    return (name, value) in advert.params


@lru_cache(maxsize=65536)
def _words(text: str) -> frozenset[str]:
    lowered = html.unescape(text).casefold().translate(_UMLAUTS)
    bare = "".join(
        c for c in unicodedata.normalize("NFKD", lowered) if not unicodedata.combining(c)
    )
    return frozenset(_WORD.findall(bare))


def _decimal(text: str) -> Decimal | None:
    try:
        return Decimal(text)
    except InvalidOperation:
        return None


# ----------------------------------------------------------------- real estate

_REAL_ESTATE = "/iad/immobilien/"
_ESTATE_PAGING = frozenset({"sort", "rows", "page", "isNavigation", "sfId", "parent_areaid"})
_CATEGORIES = {segment: category for category, segment in SEGMENTS.items()}
_LISTS = {path.rsplit("/", 1)[1] for path in PATHS.values()}
_PLACE_AREAS = {
    **{slug(name): area for area, name in STATES.items()},
    **{place.segment: place.location_id for place in PLACES},
}
"""A path's place segment → the `areaId` it means (`/wien/` 900, `/wien-1070-neubau/`
117229, `/tirol/` 7, `/innsbruck/` the town's id)."""
_UNIT_FILTERS = frozenset(
    {
        "PRICE_FROM",
        "PRICE_TO",
        "ESTATE_SIZE/LIVING_AREA_FROM",
        "ESTATE_SIZE/LIVING_AREA_TO",
        "NO_OF_ROOMS_BUCKET",
        "PROPERTY_TYPE",
        "FREE_AREA/FREE_AREA_TYPE",
        "ESTATE_PREFERENCE",
    }
)
"""The parameters a building project is listed under when one of its units satisfies them
all (REALESTATE.md, trap 2); a flat is its own one unit."""


@dataclass(frozen=True, slots=True)
class _Unit:
    """The facts a unit filter reads, of a flat or of one unit of a project."""

    price: Decimal | None
    area: int | None
    rooms: str
    type: str | None
    free_areas: tuple[str, ...]
    features: tuple[str, ...]

    @classmethod
    def of_flat(cls, advert: FakeAdvert, estate: FakeEstate) -> _Unit:
        return cls(
            advert.price,
            estate.living_area,
            rooms_bucket(estate.rooms),
            estate.property_type,
            estate.free_areas,
            estate.features,
        )

    @classmethod
    def of_unit(cls, unit: FakeUnit) -> _Unit:
        return cls(
            unit.price,
            unit.living_area,
            rooms_bucket(unit.rooms),
            unit.property_type,
            unit.free_areas,
            unit.features,
        )


class EstateQuery:
    """A real-estate search URL as the fake willhaben answers it, read once.

    The path names the category (`/mietwohnungen/…` flats to rent, `/eigentumswohnung/…`
    flats to buy; any other — houses — lists nothing) and may name a place, which is one more
    area the flat must lie in (`/mietwohnungen/wien/wien-1070-neubau`; a place segment not
    known lists nothing). Parameters, each name a condition of its own, all of them to hold:

    - `areaId` (several: any of them): a Bundesland's id (`STATE`), a Vienna district's
      (`LOCATION_ID`), a town's (`LOCATION_ID` outside Vienna), or a Bezirk's (every town of
      it; no attribute says which Bezirk a town is in);
    - `PRICE_FROM` / `PRICE_TO` and `ESTATE_SIZE/LIVING_AREA_FROM` / `_TO`: both ends
      inclusive, a flat without the figure not listed;
    - `NO_OF_ROOMS_BUCKET` and `PROPERTY_TYPE` (several: any of them);
    - `FREE_AREA/FREE_AREA_TYPE` and `ESTATE_PREFERENCE`: one value, the flat has it; several
      values, the flat has *any* of them — or, with `all_of`, all of them (REALESTATE.md knows
      one value only: a sound matcher is right under either);
    - a building project is listed when one of its units satisfies every one of these
      (`units` are the ones that do);
    - `ISPRIVATE`: the seller; `keyword`: the marketplace's reading of words, over title and
      whole description; `AVAILABLETODAY`: the flat is free today (no attribute says it);
      `publishedDateTo` (epoch ms, page 2's anchor): published no later; `PLOT/AREA_*`:
      nothing, a flat has no plot;
    - `sort`, `rows`, `page`, `isNavigation`, `sfId`, `parent_areaid`: ignored;
    - anything else: the advert names it among its `params`.

    A paid placement is never one of the listed flats: the site shows it above them.
    """

    def __init__(self, url: httpx.URL, *, all_of: bool = False) -> None:
        segments = url.path.strip("/").split("/")[2:]
        self.category = _CATEGORIES.get(segments[0]) if segments else None
        """`RENT`, `BUY`, or None: a path that lists no flats."""
        places = [segment for segment in segments[1:] if segment not in _LISTS]
        self._areas: list[frozenset[str]] = []
        if places:
            self._areas.append(frozenset({_PLACE_AREAS.get(places[-1], "unknown place")}))
        self._all_of = all_of
        self._flat: list[tuple[str, str]] = []
        self._unit: list[tuple[str, list[str]]] = []
        grouped: dict[str, list[str]] = {}
        for name, value in url.params.multi_items():
            if name not in _ESTATE_PAGING:
                grouped.setdefault(name, []).append(value)
        for name, values in grouped.items():
            if name == "areaId":
                self._areas.append(frozenset(values))
            elif name in _UNIT_FILTERS:
                self._unit.append((name, values))
            else:
                self._flat.extend((name, value) for value in values)

    @staticmethod
    def covers(url: httpx.URL) -> bool:
        """Whether `url` is a real-estate search."""
        return url.path.startswith(_REAL_ESTATE)

    def lists(self, advert: FakeAdvert) -> bool:
        estate = advert.estate
        if estate is None or estate.placement or estate.category != self.category:
            return False
        place = estate.place
        for areas in self._areas:
            if not (
                place.location_id in areas or place.state_area in areas or place.county in areas
            ):
                return False
        if not all(self._flat_satisfies(advert, estate, n, v) for n, v in self._flat):
            return False
        if estate.project:
            return bool(self.units(advert))
        return self._fits(_Unit.of_flat(advert, estate))

    def units(self, advert: FakeAdvert) -> tuple[FakeUnit, ...]:
        """The units of a building project that satisfy the search (its `children` then)."""
        assert advert.estate is not None
        return tuple(u for u in advert.estate.units if self._fits(_Unit.of_unit(u)))

    def _fits(self, unit: _Unit) -> bool:
        return all(self._unit_satisfies(unit, name, values) for name, values in self._unit)

    def _unit_satisfies(self, unit: _Unit, name: str, values: list[str]) -> bool:
        if name in ("FREE_AREA/FREE_AREA_TYPE", "ESTATE_PREFERENCE"):
            has = unit.free_areas if name.startswith("FREE_AREA") else unit.features
            wanted = [value in has for value in values]
            return all(wanted) if self._all_of else any(wanted)
        if name == "NO_OF_ROOMS_BUCKET":
            return unit.rooms in values
        if name == "PROPERTY_TYPE":
            return unit.type in values
        figure = unit.price if name.startswith("PRICE") else unit.area
        for value in values:
            bound = _decimal(value)
            if figure is None or bound is None:
                return False
            if not (figure >= bound if name.endswith("_FROM") else figure <= bound):
                return False
        return True

    @staticmethod
    def _flat_satisfies(advert: FakeAdvert, estate: FakeEstate, name: str, value: str) -> bool:
        if name == "AVAILABLETODAY":
            return estate.available_today or value.lower() not in ("1", "true")
        if name.startswith("PLOT/AREA"):
            return True  # a flat has no plot: the filter is one for houses and plots
        if name == "publishedDateTo":
            bound = _decimal(value)
            return bound is not None and (advert.published_ms or 0) <= bound
        return _satisfies(advert, name, value)
