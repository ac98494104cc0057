"""A real-estate search in words, for `/list`: "Mietwohnung · Wien 1070, 1080 · 2-3 Zimmer ·
bis € 1.200 · ab 50 m²" rather than its URL.

`describe_search` reads a normalised search URL (`habicht.scraper.urls`) as willhaben does —
the category from the path, places from the path or `areaId`, and the parameters
`../shared/fixtures/willhaben/REALESTATE.md` lists — into an `EstateSearch`: language-neutral
data (ids, postcodes, ranges) that `habicht.bot.texts` words in the chat's language. What it
cannot name (a town's `areaId`, a plot area, a value it does not know) is not guessed at: it
sets `more`, which the bot says as "+ more filters". Marketplace and car searches, and
real-estate categories it does not know, are no `EstateSearch` (None): they keep their label.

Pure: no I/O, the same URL always gives the same description.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Literal, TypeVar
from urllib.parse import parse_qsl, urlsplit

from habicht.digits import whole_number

__all__ = [
    "ESTATE_FEATURES",
    "FLAT_TYPES",
    "FREE_AREAS",
    "STATES",
    "VIENNA",
    "VIENNA_DISTRICTS",
    "Category",
    "EstateSearch",
    "describe_search",
    "rooms_span",
]

Category = Literal["flat_rent", "flat_buy", "house_rent", "house_buy"]

_SECTION = "/iad/immobilien/"
_CATEGORIES: Mapping[str, Category] = {
    "mietwohnungen": "flat_rent",
    "eigentumswohnung": "flat_buy",
    "haus-mieten": "house_rent",
    "haus-kaufen": "house_buy",
}
"""The first path segment after `/iad/immobilien/` of each category habicht can name."""

VIENNA = 900
"""The `areaId` of Vienna as a whole."""
STATES: Mapping[int, str] = {
    1: "Burgenland",
    2: "Kärnten",
    3: "Niederösterreich",
    4: "Oberösterreich",
    5: "Salzburg",
    6: "Steiermark",
    7: "Tirol",
    8: "Vorarlberg",
    VIENNA: "Wien",
}
"""The Bundesländer by `areaId`, named as willhaben names them (`STATE`)."""
_STATE_SLUGS: Mapping[str, int] = {
    "burgenland": 1,
    "kaernten": 2,
    "niederoesterreich": 3,
    "oberoesterreich": 4,
    "salzburg": 5,
    "steiermark": 6,
    "tirol": 7,
    "vorarlberg": 8,
    "wien": VIENNA,
}
"""A Bundesland as a path segment (`/mietwohnungen/tirol/`)."""

_DISTRICT_NAMES = (
    "Innere Stadt",
    "Leopoldstadt",
    "Landstraße",
    "Wieden",
    "Margareten",
    "Mariahilf",
    "Neubau",
    "Josefstadt",
    "Alsergrund",
    "Favoriten",
    "Simmering",
    "Meidling",
    "Hietzing",
    "Penzing",
    "Rudolfsheim-Fünfhaus",
    "Ottakring",
    "Hernals",
    "Währing",
    "Döbling",
    "Brigittenau",
    "Floridsdorf",
    "Donaustadt",
    "Liesing",
)
VIENNA_DISTRICTS: Mapping[int, tuple[str, str]] = {
    117222 + number: (f"1{number:02d}0", name)
    for number, name in enumerate(_DISTRICT_NAMES, start=1)
}
"""Vienna's 23 districts by `areaId` (117223 … 117245): their postcode and name."""
_DISTRICT_SEGMENT = re.compile(r"wien-(1[0-2][0-9]0)-[a-z-]+")
"""A district as a path segment under `/wien/`: `wien-1070-neubau`."""

FLAT_TYPES = frozenset({"3", "100", "101", "102", "105", "110", "111", "112", "113", "16", "27"})
"""`PROPERTY_TYPE` ids of flats (Wohnung, Loft/Studio, … Sonstige)."""
FREE_AREAS = frozenset({"10", "20", "30", "40", "50", "60"})
"""`FREE_AREA/FREE_AREA_TYPE` ids (Terrasse, Balkon, Loggia, Dachterrasse, Wintergarten,
Garten); an advert's `FREE_AREA_TYPE` holds the same ids."""
ESTATE_FEATURES = frozenset({"4", "15", "23", "24", "25", "26", "27", "28", "250"})
"""`ESTATE_PREFERENCE` ids (Fahrstuhl, Parkplatz, … Keller)."""

_IGNORED = frozenset({"sort", "rows", "page", "isNavigation", "sfId", "parent_areaid"})
"""Paging and page state: not what is searched for."""
_ROOMS = re.compile(r"([0-9]+)X([0-9]*)")

Bound = Decimal | None
_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class EstateSearch:
    """A real-estate search as data to be worded.

    `states`: Bundesländer by name; `districts`: Vienna's districts by postcode ("1070");
    `rooms`: room ranges (low, high; high None: "and more"), adjacent buckets merged;
    `price` and `area`: (from, to), either None when open; `property_types`, `free_areas`,
    `features`: ids (`FLAT_TYPES`, `FREE_AREAS`, `ESTATE_FEATURES`); `private`: only private
    sellers (True), only companies (False), None: either; `keyword` as searched; `more`:
    the search has filters this description does not name.
    """

    category: Category
    states: tuple[str, ...] = ()
    districts: tuple[str, ...] = ()
    rooms: tuple[tuple[int, int | None], ...] = ()
    price: tuple[Bound, Bound] = (None, None)
    area: tuple[Bound, Bound] = (None, None)
    property_types: tuple[str, ...] = ()
    free_areas: tuple[str, ...] = ()
    features: tuple[str, ...] = ()
    private: bool | None = None
    keyword: str | None = None
    more: bool = False


def describe_search(url: str) -> EstateSearch | None:
    """The real-estate search `url` (normalised) in data to be worded; None for any other."""
    parts = urlsplit(url)
    if not parts.path.startswith(_SECTION):
        return None
    segments = [segment for segment in parts.path[len(_SECTION) :].split("/") if segment]
    category = _CATEGORIES.get(segments[0]) if segments else None
    if category is None:
        return None
    areas, more = _path_areas(segments[1:])
    params: dict[str, list[str]] = {}
    for key, value in parse_qsl(parts.query):
        params.setdefault(key, []).append(value)
    for value in params.pop("areaId", []):
        area_id = whole_number(value)
        if area_id is not None and (area_id in STATES or area_id in VIENNA_DISTRICTS):
            areas.append(area_id)
        else:
            more = True
    rooms, odd_rooms = _rooms(params.pop("NO_OF_ROOMS_BUCKET", []))
    price, odd_price = _range(params, "PRICE_FROM", "PRICE_TO")
    area, odd_area = _range(params, "ESTATE_SIZE/LIVING_AREA_FROM", "ESTATE_SIZE/LIVING_AREA_TO")
    flat = category.startswith("flat")
    types, odd_types = _known(params.pop("PROPERTY_TYPE", []), FLAT_TYPES if flat else ())
    free, odd_free = _known(params.pop("FREE_AREA/FREE_AREA_TYPE", []), FREE_AREAS)
    features, odd_features = _known(params.pop("ESTATE_PREFERENCE", []), ESTATE_FEATURES)
    private = {"1": True, "0": False}.get(params.pop("ISPRIVATE", [""])[0])
    keyword = " ".join(params.pop("keyword", [])) or None
    left = [key for key in params if key not in _IGNORED]
    return EstateSearch(
        category=category,
        states=tuple(STATES[area_id] for area_id in _unique(areas) if area_id in STATES),
        districts=tuple(
            VIENNA_DISTRICTS[area_id][0]
            for area_id in sorted(_unique(areas))
            if area_id in VIENNA_DISTRICTS
        ),
        rooms=rooms,
        price=price,
        area=area,
        property_types=types,
        free_areas=free,
        features=features,
        private=private,
        keyword=keyword,
        more=any((more, odd_rooms, odd_price, odd_area, odd_types, odd_free, odd_features, left)),
    )


def _path_areas(segments: list[str]) -> tuple[list[int], bool]:
    """The areas a path names after its category (`/wien/wien-1070-neubau/`), and whether it
    names a place beyond them (a town: not named). The `…-angebote` segment is no place."""
    areas: list[int] = []
    more = False
    for segment in segments:
        district = _DISTRICT_SEGMENT.fullmatch(segment)
        if segment.endswith("-angebote"):
            continue
        if district is not None:
            number = int(district.group(1)[1:3])
            if VIENNA in areas:
                areas.remove(VIENNA)  # the district narrows the state it sits under
            areas.append(117222 + number)
        elif segment in _STATE_SLUGS and not areas:
            areas.append(_STATE_SLUGS[segment])
        else:
            more = True
    return areas, more


def _rooms(buckets: list[str]) -> tuple[tuple[tuple[int, int | None], ...], bool]:
    """Room buckets ("2X2", "6X9", "10X") as ranges, adjacent ones merged ("2X2" and "3X3":
    2-3), and whether one was not a bucket of rooms ("0X0", no figure, is not named)."""
    spans = [rooms_span(bucket) for bucket in buckets]
    odd = None in spans
    merged: list[tuple[int, int | None]] = []
    for low, high in sorted({span for span in spans if span}, key=lambda span: span[0]):
        if merged and (merged[-1][1] is None or low <= merged[-1][1] + 1):
            first, top = merged[-1]
            merged[-1] = (first, None if high is None or top is None else max(high, top))
        else:
            merged.append((low, high))
    return tuple(merged), odd


def rooms_span(bucket: str) -> tuple[int, int | None] | None:
    """A rooms bucket as willhaben writes it (`ROOMS`, `NO_OF_ROOMS_BUCKET`) as a range:
    "3X3" (3, 3), "6X9" (6, 9), "10X" (10, None: and more); None for "0X0" (no figure) or
    anything else."""
    match = _ROOMS.fullmatch(bucket)
    if match is None or match.group(1) == "0":
        return None
    high = match.group(2)
    return int(match.group(1)), int(high) if high else None


def _range(params: dict[str, list[str]], low: str, high: str) -> tuple[tuple[Bound, Bound], bool]:
    """(from, to) of two parameters taken out of `params`, and whether one was no number."""
    bounds: list[Bound] = []
    odd = False
    for key in (low, high):
        values = params.pop(key, [])
        try:
            bound = Decimal(values[0]) if values else None
        except InvalidOperation:
            bound = None
        if bound is not None and not bound.is_finite():
            bound = None
        odd = odd or len(values) > 1 or (bool(values) and bound is None)
        bounds.append(bound)
    return (bounds[0], bounds[1]), odd


def _known(values: Iterable[str], known: Iterable[str]) -> tuple[tuple[str, ...], bool]:
    """The values among `known`, in order and once each, and whether any was not known."""
    names = frozenset(known)
    kept = _unique(value for value in values if value in names)
    return tuple(kept), len(kept) < len(_unique(values))


def _unique(values: Iterable[_T]) -> list[_T]:
    """`values` in their order, each once."""
    return list(dict.fromkeys(values))
