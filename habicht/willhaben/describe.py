"""A real-estate search in words, for `/list`: "Mietwohnung · Wien 1070, 1080 · 2-3 Zimmer ·
bis € 1.200 · ab 50 m²" rather than its URL.

`describe_search` reads a normalised search URL (`habicht.willhaben.urls`) as willhaben does —
the category from the path, places from the path or `areaId`, and the parameters
`../shared/fixtures/willhaben/REALESTATE.md` lists — into a `Description`: language-neutral
data (ids, postcodes, ranges) that `habicht.bot.texts` words in the chat's language. What it
cannot name (a town's `areaId`, a plot area, a value it does not know) is not guessed at: it
sets `more`, which the bot says as "+ more filters". Marketplace and car searches, and
real-estate categories it does not know, have no `Description` (None): they keep their label.

Pure: no I/O, the same URL always gives the same description.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Literal, TypeVar
from urllib.parse import parse_qsl, urlsplit

from habicht.willhaben.estate_terms import (
    FEATURES,
    FLAT_TYPES,
    FREE_AREAS,
    IMMOBILIEN,
    PAGE_STATE,
    STATE_SEGMENTS,
    STATES,
    VIENNA,
    VIENNA_DISTRICTS,
)

__all__ = ["Category", "Description", "describe_search", "rooms_span"]

Category = Literal["flat_rent", "flat_buy", "house_rent", "house_buy"]

_CATEGORIES: Mapping[str, Category] = {
    "mietwohnungen": "flat_rent",
    "eigentumswohnung": "flat_buy",
    "haus-mieten": "house_rent",
    "haus-kaufen": "house_buy",
}
"""The first path segment after `/iad/immobilien/` of each category habicht can name."""
_DISTRICT_SEGMENT = re.compile(r"wien-(1[0-2][0-9]0)-[a-z-]+")
"""A district as a path segment under `/wien/`: `wien-1070-neubau`."""
_DISTRICT_OF_POSTCODE = {district.postcode: area for area, district in VIENNA_DISTRICTS.items()}
_ROOMS = re.compile(r"([0-9]+)X([0-9]*)")

Bound = Decimal | None
_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class Description:
    """A real-estate search as data to be worded.

    `states`: Bundesländer by name; `districts`: Vienna's districts by postcode ("1070");
    `rooms`: room ranges (low, high; high None: "and more"), adjacent buckets merged;
    `price` and `area`: (from, to), either None when open; `property_types`, `free_areas`,
    `features`: ids (`FLAT_TYPES`, `FREE_AREAS`, `FEATURES`); `private`: only private
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


def describe_search(url: str) -> Description | None:
    """The real-estate search `url` (normalised) in data to be worded; None for any other."""
    parts = urlsplit(url)
    if not parts.path.startswith(IMMOBILIEN):
        return None
    segments = [segment for segment in parts.path[len(IMMOBILIEN) :].split("/") if segment]
    category = _CATEGORIES.get(segments[0]) if segments else None
    if category is None:
        return None
    areas, more = _path_areas(segments[1:])
    params: dict[str, list[str]] = {}
    for key, value in parse_qsl(parts.query):
        params.setdefault(key, []).append(value)
    for area_id in params.pop("areaId", []):
        if area_id in STATES or area_id in VIENNA_DISTRICTS:
            areas.append(area_id)
        else:
            more = True
    rooms, odd_rooms = _rooms(params.pop("NO_OF_ROOMS_BUCKET", []))
    price, odd_price = _range(params, "PRICE_FROM", "PRICE_TO")
    area, odd_area = _range(params, "ESTATE_SIZE/LIVING_AREA_FROM", "ESTATE_SIZE/LIVING_AREA_TO")
    flat = category.startswith("flat")
    types, odd_types = _known(params.pop("PROPERTY_TYPE", []), FLAT_TYPES if flat else ())
    free, odd_free = _known(params.pop("FREE_AREA/FREE_AREA_TYPE", []), FREE_AREAS)
    features, odd_features = _known(params.pop("ESTATE_PREFERENCE", []), FEATURES)
    private = {"1": True, "0": False}.get(params.pop("ISPRIVATE", [""])[0])
    keyword = " ".join(params.pop("keyword", [])) or None
    left = [key for key in params if key not in PAGE_STATE]
    return Description(
        category=category,
        states=tuple(STATES[area_id] for area_id in _unique(areas) if area_id in STATES),
        districts=tuple(
            VIENNA_DISTRICTS[area_id].postcode
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


def _path_areas(segments: list[str]) -> tuple[list[str], bool]:
    """The areas a path names after its category (`/wien/wien-1070-neubau/`), and whether it
    names a place beyond them (a town: not named). The `…-angebote` segment is no place."""
    areas: list[str] = []
    more = False
    for segment in segments:
        district = _DISTRICT_SEGMENT.fullmatch(segment)
        if segment.endswith("-angebote"):
            continue
        if district is not None and district.group(1) in _DISTRICT_OF_POSTCODE:
            if VIENNA in areas:
                areas.remove(VIENNA)  # the district narrows the state it sits under
            areas.append(_DISTRICT_OF_POSTCODE[district.group(1)])
        elif segment in STATE_SEGMENTS and not areas:
            areas.append(STATE_SEGMENTS[segment])
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
