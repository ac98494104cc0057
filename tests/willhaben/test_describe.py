"""Issue 29: a real-estate search read out of its URL for /list — category, path places and
`areaId`s, and the parameters REALESTATE.md lists; what it cannot name is `more`, and every
other search is no real-estate search."""

from __future__ import annotations

from decimal import Decimal

import pytest

from habicht.willhaben.describe import Description, describe_search, rooms_span
from habicht.willhaben.urls import normalise_search_url

RENT = "https://www.willhaben.at/iad/immobilien/mietwohnungen/mietwohnung-angebote"
BUY = "https://www.willhaben.at/iad/immobilien/eigentumswohnung/eigentumswohnung-angebote"


def described(url: str) -> Description | None:
    """`url` as a subscriber pastes it, normalised as /watch stores it, then described."""
    return describe_search(normalise_search_url(url))


def test_the_issues_example_search() -> None:
    """Two districts, two room buckets, a price cap and a least size, as willhaben writes them."""
    url = (
        f"{RENT}?areaId=117229&areaId=117230&NO_OF_ROOMS_BUCKET=2X2&NO_OF_ROOMS_BUCKET=3X3"
        "&PRICE_TO=1200&ESTATE_SIZE/LIVING_AREA_FROM=50&isNavigation=true&sfId=abc&page=2"
    )
    assert described(url) == Description(
        category="flat_rent",
        districts=("1070", "1080"),
        rooms=((2, 3),),
        price=(None, Decimal(1200)),
        area=(Decimal(50), None),
    )


@pytest.mark.parametrize(
    ("path", "states", "districts"),
    [
        ("wien/", ("Wien",), ()),
        ("wien/wien-1020-leopoldstadt/", (), ("1020",)),
        ("tirol", ("Tirol",), ()),
        ("niederoesterreich/", ("Niederösterreich",), ()),
    ],
)
def test_places_in_the_path_are_areas(
    path: str, states: tuple[str, ...], districts: tuple[str, ...]
) -> None:
    """`/mietwohnungen/wien/` is Vienna, `/wien/wien-1020-leopoldstadt/` its 2nd district and
    `/tirol/` the Bundesland (REALESTATE.md)."""
    search = described(f"https://www.willhaben.at/iad/immobilien/mietwohnungen/{path}")
    assert search is not None
    assert (search.states, search.districts, search.more) == (states, districts, False)


def test_every_named_parameter_and_what_is_left_over() -> None:
    """Types, free areas, features, seller and keyword are named; a plot area, an unknown
    property type and a town's `areaId` are not, and say so (`more`)."""
    url = (
        f"{BUY}?areaId=7&areaId=70701&PROPERTY_TYPE=102&PROPERTY_TYPE=999"
        "&FREE_AREA/FREE_AREA_TYPE=20&FREE_AREA/FREE_AREA_TYPE=10&ESTATE_PREFERENCE=4"
        "&ISPRIVATE=1&keyword=Altbau&NO_OF_ROOMS_BUCKET=10X&PRICE_FROM=200000&PRICE_TO=350000.50"
        "&ESTATE_SIZE/LIVING_AREA_FROM=50&ESTATE_SIZE/LIVING_AREA_TO=80"
    )
    search = described(url)
    assert search == Description(
        category="flat_buy",
        states=("Tirol",),
        rooms=((10, None),),
        price=(Decimal(200000), Decimal("350000.50")),
        area=(Decimal(50), Decimal(80)),
        property_types=("102",),
        free_areas=("10", "20"),
        features=("4",),
        private=True,
        keyword="altbau",
        more=True,
    )


@pytest.mark.parametrize(
    "query",
    ["PLOT/AREA_FROM=300", "AVAILABLETODAY=true", "NO_OF_ROOMS_BUCKET=0X0", "PRICE_TO=cheap"],
)
def test_what_cannot_be_named_is_more(query: str) -> None:
    search = described(f"{RENT}?areaId=900&{query}")
    assert search is not None
    assert search.states == ("Wien",)
    assert search.more


def test_room_buckets_merge_where_they_touch() -> None:
    """1, 2 and 3 rooms are 1-3, 5 stays apart, 10+ too; 5, 6-9 and 10+ are "5 and more"."""
    for buckets, rooms in (
        ("3X3 1X1 2X2 5X5 10X", ((1, 3), (5, 5), (10, None))),
        ("10X 5X5 6X9", ((5, None),)),
    ):
        query = "&".join(f"NO_OF_ROOMS_BUCKET={bucket}" for bucket in buckets.split())
        search = described(f"{RENT}?{query}")
        assert search is not None
        assert search.rooms == rooms
    assert (rooms_span("6X9"), rooms_span("10X"), rooms_span("0X0")) == ((6, 9), (10, None), None)


@pytest.mark.parametrize(
    "url",
    [
        "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz?keyword=sofa",
        "https://www.willhaben.at/iad/gebrauchtwagen/auto/gebrauchtwagenboerse",
        "https://www.willhaben.at/iad/immobilien/grundstuecke/grundstueck-angebote",
    ],
)
def test_other_searches_keep_their_label(url: str) -> None:
    assert described(url) is None
