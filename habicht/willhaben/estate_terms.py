"""What willhaben's real-estate URLs and adverts call things, in one place: the flat
categories and their feeds, the Bundesländer and Vienna's districts (area ids, path segments,
names, postcodes), the ids a room bucket, a flat type, a free area or a feature may take, and
the parameters that are page state rather than a filter
(`../shared/fixtures/willhaben/REALESTATE.md`).

Two readers share it: `willhaben.estate`, which decides whether a search lists an advert, and
`willhaben.describe`, which says a search in words — so that what one knows the other knows too.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

__all__ = [
    "BUY",
    "CATEGORY_ROOTS",
    "DISTRICT_SEGMENTS",
    "ESTATE_FEEDS",
    "FEATURES",
    "FLAT_CATEGORIES",
    "FLAT_TYPES",
    "FREE_AREAS",
    "IMMOBILIEN",
    "PAGE_STATE",
    "RENT",
    "ROOM_BUCKETS",
    "STATES",
    "STATE_SEGMENTS",
    "VIENNA",
    "VIENNA_DISTRICTS",
    "District",
    "room_bucket",
    "segment",
]

IMMOBILIEN = "/iad/immobilien/"
"""Where every real-estate search's path starts."""
RENT, BUY = 2, 1
"""`adTypeId` of a flat to rent and a flat to buy."""
FLAT_CATEGORIES: Mapping[str, int] = {"mietwohnungen": RENT, "eigentumswohnung": BUY}
"""The path segment of each flat category and the `adTypeId` its adverts carry."""
CATEGORY_ROOTS: Mapping[str, str] = {
    "mietwohnungen": "mietwohnung-angebote",
    "eigentumswohnung": "eigentumswohnung-angebote",
}
"""Each flat category's own `…-angebote` segment: the category root, Austria-wide."""
ESTATE_FEEDS: Mapping[int, str] = {
    RENT: "/iad/immobilien/mietwohnungen/mietwohnung-angebote",
    BUY: "/iad/immobilien/eigentumswohnung/eigentumswohnung-angebote",
}
"""The newest-first page of each flat category by `adTypeId`: the feed of its local searches."""

VIENNA = "900"
"""The `areaId` of Vienna as a whole."""
STATES: Mapping[str, str] = {
    "1": "Burgenland",
    "2": "Kärnten",
    "3": "Niederösterreich",
    "4": "Oberösterreich",
    "5": "Salzburg",
    "6": "Steiermark",
    "7": "Tirol",
    "8": "Vorarlberg",
    VIENNA: "Wien",
}
"""The Bundesländer by `areaId`, named as their adverts' `STATE` names them."""

_UMLAUTS = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss", " ": "-"})


def segment(name: str) -> str:
    """A place's name as a path segment: "Rudolfsheim-Fünfhaus" → `rudolfsheim-fuenfhaus`,
    "Kärnten" → `kaernten`, "Innere Stadt" → `innere-stadt` (as the saved pages link them)."""
    return name.lower().translate(_UMLAUTS)


STATE_SEGMENTS: Mapping[str, str] = {segment(name): area for area, name in STATES.items()}
"""A Bundesland's path segment (`/mietwohnungen/tirol/`) and its `areaId`."""


@dataclass(frozen=True, slots=True)
class District:
    """One of Vienna's districts: its `areaId` (which its adverts carry as `LOCATION_ID`), its
    postcode, its name, and its path segment under `/wien/` (`wien-1070-neubau`)."""

    area_id: str
    postcode: str
    name: str

    @property
    def segment(self) -> str:
        return f"wien-{self.postcode}-{segment(self.name)}"


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
VIENNA_DISTRICTS: Mapping[str, District] = {
    str(117222 + number): District(str(117222 + number), f"1{number:02d}0", name)
    for number, name in enumerate(_DISTRICT_NAMES, start=1)
}
"""Vienna's 23 districts by `areaId`, 117223 (1010 Innere Stadt) … 117245 (1230 Liesing)."""
DISTRICT_SEGMENTS: Mapping[str, str] = {
    district.segment: area for area, district in VIENNA_DISTRICTS.items()
}
"""A district's path segment under `/wien/` and its `areaId`."""

ROOM_BUCKETS = frozenset({"1X1", "2X2", "3X3", "4X4", "5X5", "6X9", "10X", "0X0"})
"""`NO_OF_ROOMS_BUCKET` values, which an advert's `ROOMS` holds as they are."""


def room_bucket(rooms: int) -> str | None:
    """The `ROOMS` bucket of a flat of `rooms` rooms: 1 … 5 "1X1" … "5X5", 6 to 9 "6X9", 10
    or more "10X" (the rooms navigator's "1" … "5", "6-9", "ab 10"); None for 0, whose bucket
    ("0X0", "keine Angaben") is a flat that names no figure — not one that names 0. On the
    saved page every advert's `NUMBER_OF_ROOMS` gives its `ROOMS` so (30 of 30): what a
    building project's unit, which carries only the figure, is read by."""
    if rooms < 1:
        return None
    if rooms <= 5:
        return f"{rooms}X{rooms}"
    return "6X9" if rooms <= 9 else "10X"


FLAT_TYPES = frozenset({"3", "100", "101", "102", "105", "110", "111", "112", "113", "16", "27"})
"""`PROPERTY_TYPE` ids of flats (3 Wohnung, 100 Loft/Studio, … 27 Sonstige)."""
FREE_AREAS = frozenset({"10", "20", "30", "40", "50", "60"})
"""`FREE_AREA/FREE_AREA_TYPE` ids (Terrasse, Balkon, Loggia, Dachterrasse, Wintergarten,
Garten); an advert's `FREE_AREA_TYPE` holds the same ids."""
FEATURES = frozenset({"4", "15", "23", "24", "25", "26", "27", "28", "250"})
"""`ESTATE_PREFERENCE` ids (Fahrstuhl, Parkplatz, … Keller), on searches and adverts alike."""
PAGE_STATE = frozenset({"sort", "rows", "page", "isNavigation", "sfId", "parent_areaid"})
"""Paging and page state: not what is searched for (`sort` is newest first, always)."""
