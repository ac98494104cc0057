"""Real-estate adverts of the fake willhaben: what a flat says of itself, in willhaben's own
attributes and value formats (`../shared/fixtures/willhaben/REALESTATE.md` and the saved page
`search-immobilien-mietwohnungen-wien.html`).

Written from those facts alone, apart from habicht's scraper, so that the fake world's answer
to a real-estate search is a truth a local matcher can be held against. `FakeEstate` is what a
`FakeAdvert` carries in `estate`; `estate_attributes` and `unit_summary` render it as the real
page does. Places (`Place`) are Vienna's 23 districts and a few towns of each Bundesland.
"""

from __future__ import annotations

import re
import struct
import unicodedata
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

__all__ = [
    "BUY",
    "DISTRICTS",
    "ESTATE_CATEGORY",
    "FEATURES",
    "FREE_AREAS",
    "PATHS",
    "PLACES",
    "PROJECT",
    "PROPERTY_TYPES",
    "RENT",
    "ROOM_BUCKETS",
    "SEGMENTS",
    "STATES",
    "FakeEstate",
    "FakeUnit",
    "Place",
    "district",
    "estate_attributes",
    "euros",
    "price_display",
    "price_text",
    "rooms_bucket",
    "slug",
    "unit_summary",
]

RENT = 2
"""`adTypeId` of a flat to rent."""
BUY = 1
"""`adTypeId` of a flat to buy."""
PROJECT = 16
"""`adTypeId` of a building project: units, no rooms, type or living area of its own."""
ESTATE_CATEGORY = "7276"
"""`categorytreeids` of every flat, rented or bought alike: it does not tell them apart."""
SEGMENTS = {RENT: "mietwohnungen", BUY: "eigentumswohnung"}
"""The path segment after `/iad/immobilien/` of each category (and of its `SEO_URL`)."""
PATHS = {
    RENT: "/iad/immobilien/mietwohnungen/mietwohnung-angebote",
    BUY: "/iad/immobilien/eigentumswohnung/eigentumswohnung-angebote",
}
"""Each category's search path without a place."""

STATES = {
    "1": "Burgenland",
    "2": "Kärnten",
    "3": "Niederösterreich",
    "4": "Oberösterreich",
    "5": "Salzburg",
    "6": "Steiermark",
    "7": "Tirol",
    "8": "Vorarlberg",
    "900": "Wien",
}
"""The Bundesländer by `areaId`, named as `STATE` names them."""
DISTRICTS = (
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
"""Vienna's districts, the first one district 1."""
PROPERTY_TYPES = {
    "3": "Wohnung",
    "100": "Loft/Studio",
    "101": "Maisonette",
    "102": "Penthousewohnung",
    "105": "Erdgeschoßwohnung",
    "110": "Dachgeschoßwohnung",
    "111": "Garconniere",
    "112": "Rohdachboden",
    "113": "Genossenschaftswohnung",
    "16": "Zimmer/WG",
    "27": "Sonstige",
}
"""`PROPERTY_TYPE_ID` → `PROPERTY_TYPE` of a flat."""
FREE_AREAS = {
    "10": "Terrasse",
    "20": "Balkon",
    "30": "Loggia",
    "40": "Dachterrasse",
    "50": "Wintergarten",
    "60": "Garten",
}
"""`FREE_AREA_TYPE` ids and their names."""
FEATURES = {
    "4": "Fahrstuhl",
    "15": "Parkplatz",
    "23": "Garage",
    "24": "Abstellraum",
    "25": "Barrierefrei",
    "26": "Carport",
    "27": "Einbauküche",
    "28": "(Teil)möbliert",
    "250": "Keller",
}
"""`ESTATE_PREFERENCE` ids and their names."""
ROOM_BUCKETS = ("1X1", "2X2", "3X3", "4X4", "5X5", "6X9", "10X", "0X0")
"""Every `ROOMS` bucket (`NO_OF_ROOMS_BUCKET`); "0X0" is a flat that names no figure."""

_FOLD = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss"})


def slug(text: str) -> str:
    """A name as willhaben's URLs write it: "Rudolfsheim-Fünfhaus" → "rudolfsheim-fuenfhaus",
    "Rosé" → "rose"."""
    folded = unicodedata.normalize("NFKD", text.lower().translate(_FOLD))
    bare = "".join(c for c in folded if not unicodedata.combining(c))
    return re.sub(r"[^a-z0-9]+", "-", bare).strip("-")


@dataclass(frozen=True)
class Place:
    """Where a flat is: a Vienna district or a town of a Bundesland.

    `state_area` is the Bundesland's `areaId` ("900"), `location_id` the advert's
    `LOCATION_ID` (a district's area id, 117223 …; a town's own id outside Vienna, where no
    real page has shown one), `county` the area id of the Bezirk a town lies in (None in
    Vienna): a search for it lists every town of it. `location` is `LOCATION`, `segment` the
    place's part of an `SEO_URL` and of a search path (`wien-1070-neubau`, `innsbruck`).
    """

    state_area: str
    location_id: str
    county: str | None
    name: str
    postcode: str
    location: str
    segment: str

    @property
    def state(self) -> str:
        return STATES[self.state_area]

    @property
    def district(self) -> int | None:
        """Vienna's district number, None for a town."""
        return int(self.location_id) - 117222 if self.county is None else None


def _vienna(number: int) -> Place:
    name = DISTRICTS[number - 1]
    postcode = str(1000 + number * 10)
    return Place(
        "900",
        str(117222 + number),
        None,
        name,
        postcode,
        f"Wien, {number:02d}. Bezirk, {name}",
        f"wien-{postcode}-{slug(name)}",
    )


_TOWNS = (  # Bundesland, Bezirk, town id, name, postcode
    ("1", "101", "10101", "Eisenstadt", "7000"),
    ("1", "107", "10705", "Neusiedl am See", "7100"),
    ("2", "201", "20101", "Klagenfurt", "9020"),
    ("2", "202", "20201", "Villach", "9500"),
    ("3", "317", "31703", "Mödling", "2340"),
    ("3", "317", "31712", "Perchtoldsdorf", "2380"),
    ("3", "302", "30201", "St. Pölten", "3100"),
    ("3", "306", "30601", "Baden", "2500"),
    ("4", "401", "40101", "Linz", "4020"),
    ("4", "403", "40301", "Wels", "4600"),
    ("4", "410", "41003", "Leonding", "4060"),
    ("5", "501", "50101", "Salzburg", "5020"),
    ("5", "502", "50203", "Hallein", "5400"),
    ("6", "601", "60101", "Graz", "8010"),
    ("6", "606", "60611", "Gratwein-Straßengel", "8112"),
    ("6", "611", "61102", "Leoben", "8700"),
    ("7", "701", "70101", "Innsbruck", "6020"),
    ("7", "705", "70507", "Kufstein", "6330"),
    ("7", "705", "70531", "Wörgl", "6300"),
    ("8", "803", "80301", "Dornbirn", "6850"),
    ("8", "802", "80207", "Feldkirch", "6800"),
)


def _town_segment(name: str) -> str:
    """A town's path segment: its name, or `<name>-stadt` where that is also a Bundesland's
    (`/salzburg/` is the Bundesland, as every Bundesland's segment is; the town is
    `/salzburg/salzburg-stadt/`)."""
    segment = slug(name)
    return f"{segment}-stadt" if name in STATES.values() else segment


PLACES = tuple(_vienna(n) for n in range(1, 24)) + tuple(
    Place(state, town, county, name, postcode, name, _town_segment(name))
    for state, county, town, name, postcode in _TOWNS
)
"""Every place of the fake world: Vienna's districts first (`PLACES[n - 1]` is district n)."""


def district(number: int) -> Place:
    """Vienna's district `number` (7: 1070 Neubau)."""
    return PLACES[number - 1]


def rooms_bucket(rooms: int | None) -> str:
    """`ROOMS` of a flat with `rooms` rooms: "2X2", "6X9", "10X", or "0X0" without a figure."""
    if rooms is None or rooms < 1:
        return "0X0"
    if rooms <= 5:
        return f"{rooms}X{rooms}"
    return "6X9" if rooms <= 9 else "10X"


@dataclass(frozen=True)
class FakeUnit:
    """One unit of a building project (a `children` entry): a flat of its own, listed only
    through its project. It carries no `PRICE` or `PUBLISHED` on the page, only the shown
    price; the world still filters on what it is."""

    id: str
    price: Decimal
    living_area: int
    rooms: int | None = 2
    property_type: str = "3"
    free_areas: tuple[str, ...] = ()
    features: tuple[str, ...] = ()
    floor: int = 1


@dataclass(frozen=True)
class FakeEstate:
    """What a real-estate `FakeAdvert` is beside its title, price and seller.

    `category` is `RENT` or `BUY` (the search path it is listed under); `project` makes it a
    building project (`adTypeId` 16) whose `units` are its flats — it then has no living area,
    rooms, type, free areas or features of its own, and its price is "ab €" its cheapest
    unit's. `place` is where it is; `rooms` None is "0X0"; `free_areas` and `features` hold
    `FREE_AREA_TYPE` and `ESTATE_PREFERENCE` ids. `placement` marks a paid placement
    (`REFERER` "pp"): the site shows it on top of every page of its category, never in the
    list itself. `available_today` answers `AVAILABLETODAY`, which no attribute on the page tells.
    """

    category: int = RENT
    place: Place = PLACES[6]
    living_area: int | None = 50
    rooms: int | None = 2
    property_type: str | None = "3"
    free_areas: tuple[str, ...] = ()
    features: tuple[str, ...] = ()
    placement: bool = False
    project: bool = False
    units: tuple[FakeUnit, ...] = ()
    available_today: bool = False

    @property
    def ad_type(self) -> int:
        return PROJECT if self.project else self.category

    def seo_path(self, title: str, ad_id: str) -> str:
        """`SEO_URL`: immobilien/d/mietwohnungen/wien/wien-1070-neubau/<title>-<id>/."""
        place = self.place
        return (
            f"immobilien/d/{SEGMENTS[self.category]}/{slug(place.state)}/{place.segment}/"
            f"{slug(title) or 'wohnung'}-{ad_id}/"
        )


def euros(amount: Decimal) -> str:
    """A price as the page shows it: "€ 1.149", "€ 1.038,82" (German separators)."""
    whole = amount == amount.to_integral_value()
    text = f"{amount:,.0f}" if whole else f"{amount:,.2f}"
    return "€ " + text.replace(",", "_").replace(".", ",").replace("_", ".")


def _decimal_text(amount: Decimal) -> str:
    """`PRICE`: "3500", "1038.82"."""
    return str(amount.quantize(Decimal(1))) if amount == amount.to_integral_value() else str(amount)


def _joined(ids: tuple[str, ...], *, numeric: bool) -> str:
    """Ids as the page joins them: "20, 30" (free areas in number order), "15, 23, 250, 4"
    (features, ordered as text, as the saved page orders them)."""
    ordered = sorted(set(ids), key=int) if numeric else sorted(set(ids))
    return ", ".join(ordered)


def _float32(value: float) -> float:
    return float(struct.unpack("f", struct.pack("f", value))[0])


def _per_square_metre(price: Decimal, area: int) -> dict[str, str]:
    """€ per m² as the saved page writes it: computed in single precision and printed in the
    fewest digits that read back as the same single ("22.875816", "20.625", "23.0") — the
    page's 30 values all come out so."""
    value = _float32(_float32(float(price)) / _float32(float(area)))
    text = next(
        shortest
        for shortest in (f"{value:.{digits}g}" for digits in range(1, 10))
        if _float32(float(shortest)) == value
    )
    shown = euros(Decimal(price / area).quantize(Decimal("0.01"), ROUND_HALF_UP))
    if "," not in shown:
        shown += ",00"
    return {
        "PRICE/SQUARE_METER": text if "." in text else f"{text}.0",
        "PRICE/SQUARE_METER_FOR_DISPLAY": shown,
        "PRICE/SQUARE_METER_FOR_DISPLAY_WITH_UNIT": f"{shown}/m²",
    }


def estate_attributes(estate: FakeEstate, price: Decimal | None) -> dict[str, str]:
    """The attributes only a real-estate advert has, values as the saved page writes them."""
    place = estate.place
    values = {
        "DISTRICT": place.state if place.county is None else place.name,
        "LOCATION_ID": place.location_id,
        "ADTYPE_ID": str(estate.ad_type),
        "PRODUCT_ID": "227",
        "COUNTRY": "Österreich",
    }
    if estate.project:
        values["NUMBER_OF_CHILDREN"] = str(len(estate.units))
        values["PROJECT_ID"] = f"7{place.postcode}"
        return values
    if estate.living_area is not None:
        values["ESTATE_SIZE/LIVING_AREA"] = values["ESTATE_SIZE"] = str(estate.living_area)
        if price is not None and estate.living_area > 0:
            values.update(_per_square_metre(price, estate.living_area))
    if estate.rooms is not None:
        values["NUMBER_OF_ROOMS"] = str(estate.rooms)
    values["ROOMS"] = rooms_bucket(estate.rooms)
    if estate.property_type is not None:
        values["PROPERTY_TYPE_ID"] = estate.property_type
        values["PROPERTY_TYPE"] = PROPERTY_TYPES.get(estate.property_type, "Wohnung")
        values["PROPERTY_TYPE_FLAT"] = "true"
    if estate.free_areas:
        values["FREE_AREA_TYPE"] = _joined(estate.free_areas, numeric=True)
        first = values["FREE_AREA_TYPE"].split(", ")[0]
        values["FREE_AREA_TYPE_NAME"] = FREE_AREAS.get(first, "Freifläche")
    if estate.features:
        values["ESTATE_PREFERENCE"] = _joined(estate.features, numeric=False)
    if price is not None and estate.category == RENT:
        values["RENT/PER_MONTH_LETTINGS"] = f"{price:.1f}" if price == int(price) else str(price)
    if estate.placement:
        values["REFERER"] = "pp"
    return values


def price_display(estate: FakeEstate, price: Decimal | None) -> str:
    """`PRICE_FOR_DISPLAY`: "€ 1.149"; a building project's "ab € 213.000"; "auf Anfrage"."""
    if price is None:
        return "Preis auf Anfrage"
    return f"ab {euros(price)}" if estate.project else euros(price)


def price_text(price: Decimal) -> str:
    """`PRICE` as willhaben writes it."""
    return _decimal_text(price)


def unit_summary(unit: FakeUnit, estate: FakeEstate, title: str) -> dict[str, object]:
    """A building project's unit as a `children` entry of the saved page: its own id,
    `SEO_URL` and shown price, its size and rooms, no `PRICE` and no `PUBLISHED`."""
    image = f"{unit.id[-1]}/{unit.id[-9:-6]}/{unit.id[-6:-3]}/{unit.id[-3:]}_1.jpg"
    attributes = {
        "FLOOR": str(unit.floor),
        "SEO_URL": estate.seo_path(f"{title} top {unit.floor}", unit.id),
        "ESTATE_SIZE/LIVING_AREA": str(unit.living_area),
        "NUMBER_OF_ROOMS": "" if unit.rooms is None else str(unit.rooms),
        "ADVERTISER_REF": unit.id[-6:],
        "UNIT_NUMBER": str(unit.floor * 10),
        "PRICE_FOR_DISPLAY": euros(unit.price),
        "UNIT_TITLE": f"Etage {unit.floor}/Top {unit.floor * 10}",
    }
    if unit.rooms is None:
        del attributes["NUMBER_OF_ROOMS"]
    return {
        "id": unit.id,
        "verticalId": 2,
        "adTypeId": estate.category,
        "productId": 0,
        "advertStatus": None,
        "description": None,
        "attributes": {"attribute": [{"name": k, "values": [v]} for k, v in attributes.items()]},
        "advertImageList": {
            "advertImage": [
                {
                    "id": 1,
                    "name": image,
                    "description": "Cover Image",
                    "referenceImageUrl": f"https://cache.willhaben.at/mmo/{image}",
                }
            ],
            "floorPlans": [],
        },
        "selfLink": None,
        "teaserAttributes": [
            {"prefix": None, "value": str(unit.living_area), "postfix": "m²"},
            {"prefix": None, "value": str(unit.rooms or ""), "postfix": "Zimmer"},
        ],
        "children": None,
    }
