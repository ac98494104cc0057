"""The fake site's world (`habicht.fakes.willhaben_world`): any search answered from one
catalogue, as willhaben's own search would list it (issue 20); real-estate searches filtered as
willhaben does (REALESTATE.md; issue 29): every parameter, each end of every range, OR within a
parameter, AND across."""

from __future__ import annotations

from decimal import Decimal

import httpx
import pytest

from habicht.fakes import FakeAdvert
from habicht.fakes.willhaben_estate import BUY, PLACES, FakeUnit
from habicht.fakes.willhaben_flats import flat, project
from habicht.fakes.willhaben_site import FakeWillhabenSite
from habicht.fakes.willhaben_world import EstateQuery, listed
from habicht.willhaben.parse import parse_search_page

MARKET = "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz"
GRAPHICS = f"{MARKET}/pc-komponenten/grafikkarten-5882"
SOFAS = ("5387", "5388")


def world_ids(site: FakeWillhabenSite, url: str) -> list[str]:
    response = site.handle(httpx.Request("GET", url))
    return [listing.id for listing in parse_search_page(response.content).listings]


def test_the_world_answers_every_search_from_one_catalogue_newest_first() -> None:
    """Published adverts are listed by every search that would list them on willhaben: the
    marketplace root holds all, a category path its tree, keywords and price bounds select,
    newest first by `PUBLISHED`; a bump moves an advert up by its new date; a withdrawn one
    is gone everywhere."""
    site = FakeWillhabenSite()
    gpu = FakeAdvert("11", "RTX 3070 Gaming", Decimal(350), published_ms=3000)
    cheap = FakeAdvert("12", "GTX 760", Decimal(60), published_ms=2000)
    sofa = FakeAdvert("13", "Sofa", Decimal(300), published_ms=4000, categories=SOFAS)
    site.publish(gpu, cheap, sofa)
    assert world_ids(site, f"{MARKET}?sort=1") == ["13", "11", "12"]
    assert world_ids(site, f"{GRAPHICS}?sort=1") == ["11", "12"]
    assert world_ids(site, f"{MARKET}?keyword=rtx+3070&sort=1") == ["11"]
    assert world_ids(site, f"{GRAPHICS}?PRICE_FROM=100&PRICE_TO=400&sort=1") == ["11"]
    site.bump(None, cheap.id, published_ms=5000)
    assert world_ids(site, f"{GRAPHICS}?sort=1") == ["12", "11"]
    site.withdraw(gpu.id)
    assert world_ids(site, f"{MARKET}?sort=1") == ["12", "13"]


def test_a_keyword_further_down_than_the_snippet_is_found_by_the_search_only() -> None:
    """The page shows at most the first 250 characters of the description (`BODY_DYN`);
    willhaben's search reads all of it."""
    site = FakeWillhabenSite()
    long = FakeAdvert("21", "Grafikkarte", Decimal(200), body="x " * 200 + "Abholung in Linz")
    site.publish(long)
    assert world_ids(site, f"{MARKET}?keyword=linz&sort=1") == ["21"]
    response = site.handle(httpx.Request("GET", f"{MARKET}?keyword=linz&sort=1"))
    (listing,) = parse_search_page(response.content).listings
    assert listing.body == "x " * 124 + "x..."


@pytest.mark.parametrize(
    ("description", "shown"),
    [
        ("kurz und gut", "kurz und gut"),
        ("a" * 250, "a" * 250),
        ("a" * 244 + " Grafikkarte", "a" * 244 + "..."),
        ("a" * 243 + " Karte, OVP", "a" * 243 + " Karte,..."),
        ("a" * 244 + " Karte neu", "a" * 244 + " Karte..."),
        ("a" * 300, "a" * 250 + "..."),
    ],
    ids=[
        "whole",
        "exactly 250",
        "a word over the edge",
        "a comma kept",
        "a word ending at 250",
        "one long word",
    ],
)
def test_a_long_description_is_cut_after_a_whole_word(description: str, shown: str) -> None:
    """Issue 26: as on the real pages ("...in a 2.7 slot form..."), a snippet is cut after
    the last whole word that fits and marked with "...", never inside a word."""
    site = FakeWillhabenSite()
    site.publish(FakeAdvert("22", "Grafikkarte", Decimal(200), body=description))
    response = site.handle(httpx.Request("GET", f"{MARKET}?sort=1"))
    (listing,) = parse_search_page(response.content).listings
    assert listing.body == shown


def test_sellers_other_parameters_and_paths_select_in_the_world() -> None:
    site = FakeWillhabenSite()
    company = FakeAdvert("31", "RTX", Decimal(300), private=False, params=(("areaId", "900"),))
    private = FakeAdvert("32", "RTX", Decimal(300))
    flat = FakeAdvert("33", "Altbau", Decimal(900), path="/iad/immobilien/mietwohnungen/wien")
    site.publish(company, private, flat)
    site.placements = ()  # only what the paths select (placements: test_willhaben_site.py)
    assert world_ids(site, f"{MARKET}?ISPRIVATE=0&keyword=rtx&sort=1") == ["31"]
    assert world_ids(site, f"{MARKET}?areaId=900&keyword=rtx&sort=1") == ["31"]
    assert world_ids(site, "https://www.willhaben.at/iad/immobilien/mietwohnungen?sort=1") == ["33"]
    assert world_ids(site, "https://www.willhaben.at/iad/immobilien/mietwohnungen/wien") == ["33"]
    assert sorted(world_ids(site, f"{MARKET}?sort=1")) == ["31", "32"]


RENT_PATH = "https://www.willhaben.at/iad/immobilien/mietwohnungen/mietwohnung-angebote"
BUY_PATH = "https://www.willhaben.at/iad/immobilien/eigentumswohnung/eigentumswohnung-angebote"
INNSBRUCK, KUFSTEIN, WOERGL = (
    next(p for p in PLACES if p.name == n) for n in ("Innsbruck", "Kufstein", "Wörgl")
)

NEUBAU = flat("1", "Altbau Neubau", 1000, place=7, living_area=50, rooms=2)
LEOPOLDSTADT = flat("2", "Leopoldstadt", Decimal("599.99"), place=2, living_area=30, rooms=1)
TIROL = flat("3", "Innsbruck", 1150, place=INNSBRUCK, living_area=70, rooms=3)
FOR_SALE = flat("4", "Eigentum Neubau", 420000, category=BUY, place=7)


def lists(url: str, *adverts: FakeAdvert, all_of: bool = False) -> list[str]:
    return [a.id for a in adverts if listed(a, httpx.URL(url), all_of=all_of)]


ALL = (NEUBAU, LEOPOLDSTADT, TIROL, FOR_SALE)


@pytest.mark.parametrize(
    ("url", "ids"),
    [
        (RENT_PATH, ["1", "2", "3"]),
        (BUY_PATH, ["4"]),
        (f"{RENT_PATH}?areaId=117229", ["1"]),
        (f"{RENT_PATH}?areaId=117229&areaId=117224", ["1", "2"]),
        (f"{RENT_PATH}?areaId=900", ["1", "2"]),
        (f"{RENT_PATH}?areaId=7", ["3"]),
        (f"{RENT_PATH}?areaId=7&areaId=900", ["1", "2", "3"]),
        (f"{BUY_PATH}?areaId=117229", ["4"]),
        ("https://www.willhaben.at/iad/immobilien/mietwohnungen/wien", ["1", "2"]),
        ("https://www.willhaben.at/iad/immobilien/mietwohnungen/wien/wien-1070-neubau/", ["1"]),
        ("https://www.willhaben.at/iad/immobilien/mietwohnungen/tirol", ["3"]),
        ("https://www.willhaben.at/iad/immobilien/mietwohnungen/wien?areaId=117224", ["2"]),
        ("https://www.willhaben.at/iad/immobilien/mietwohnungen/tirol?areaId=117224", []),
        ("https://www.willhaben.at/iad/immobilien/mietwohnungen/atlantis", []),
        ("https://www.willhaben.at/iad/immobilien/haus-mieten/haus-angebote", []),
        ("https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz", []),
    ],
)
def test_categories_places_and_areas(url: str, ids: list[str]) -> None:
    """Rent and buy apart; a district by `LOCATION_ID`, a Bundesland by `STATE`, several
    `areaId` any of them; a path place is one more area (with `areaId`: both); an unknown
    place, houses and the marketplace list no flat."""
    assert lists(url, *ALL) == ids


def test_towns_and_counties_outside_vienna() -> None:
    """Not decidable by REALESTATE.md, answered all the same: a town's id is its
    `LOCATION_ID`; a Bezirk's lists every town of it, which no attribute says."""
    kufstein = flat("5", "Kufstein", 900, place=KUFSTEIN)
    woergl = flat("6", "Wörgl", 900, place=WOERGL)
    assert lists(f"{RENT_PATH}?areaId={KUFSTEIN.location_id}", kufstein, woergl, TIROL) == ["5"]
    assert lists(f"{RENT_PATH}?areaId={KUFSTEIN.county}", kufstein, woergl, TIROL) == ["5", "6"]
    assert lists(f"{RENT_PATH}?areaId=7", kufstein, woergl, TIROL) == ["5", "6", "3"]


@pytest.mark.parametrize(
    ("query", "ids"),
    [
        ("PRICE_TO=1000", ["1", "2"]),
        ("PRICE_TO=999.99", ["2"]),
        ("PRICE_TO=599.99", ["2"]),
        ("PRICE_TO=599.98", []),
        ("PRICE_FROM=599.99", ["1", "2", "3"]),
        ("PRICE_FROM=1000&PRICE_TO=1150", ["1", "3"]),
        ("ESTATE_SIZE/LIVING_AREA_FROM=50", ["1", "3"]),
        ("ESTATE_SIZE/LIVING_AREA_TO=50", ["1", "2"]),
        ("ESTATE_SIZE/LIVING_AREA_FROM=31&ESTATE_SIZE/LIVING_AREA_TO=69", ["1"]),
        ("NO_OF_ROOMS_BUCKET=2X2", ["1"]),
        ("NO_OF_ROOMS_BUCKET=1X1&NO_OF_ROOMS_BUCKET=3X3", ["2", "3"]),
        ("NO_OF_ROOMS_BUCKET=0X0", []),
        ("areaId=900&PRICE_TO=1000&NO_OF_ROOMS_BUCKET=2X2", ["1"]),
    ],
)
def test_price_size_and_rooms_both_ends_inclusive(query: str, ids: list[str]) -> None:
    assert lists(f"{RENT_PATH}?{query}", *ALL) == ids


def test_a_flat_without_a_figure_is_not_listed_under_its_filter() -> None:
    bare = flat("7", "Auf Anfrage", None, living_area=None, rooms=None, property_type=None)
    assert lists(RENT_PATH, bare) == ["7"]
    assert lists(f"{RENT_PATH}?NO_OF_ROOMS_BUCKET=0X0", bare) == ["7"]
    for query in ("PRICE_TO=5000", "ESTATE_SIZE/LIVING_AREA_FROM=1", "PROPERTY_TYPE=3"):
        assert lists(f"{RENT_PATH}?{query}", bare) == []


def test_property_types_any_of_them() -> None:
    roof = flat("8", "Dachgeschoß", 1200, property_type="110")
    plain = flat("9", "Wohnung", 1200, property_type="3")
    assert lists(f"{RENT_PATH}?PROPERTY_TYPE=110", roof, plain) == ["8"]
    assert lists(f"{RENT_PATH}?PROPERTY_TYPE=110&PROPERTY_TYPE=3", roof, plain) == ["8", "9"]


@pytest.mark.parametrize("name", ["FREE_AREA/FREE_AREA_TYPE", "ESTATE_PREFERENCE"])
def test_free_areas_and_features_one_value_and_several(name: str) -> None:
    """One value: the flat has it. Several: any of them — or all of them with `all_of`
    (REALESTATE.md knows one value only)."""
    field = "free_areas" if name.startswith("FREE") else "features"
    both = flat("10", "Beides", 900, **{field: ("20", "30")})
    one = flat("11", "Eins", 900, **{field: ("30",)})
    none = flat("12", "Nichts", 900)
    adverts = (both, one, none)
    assert lists(f"{RENT_PATH}?{name}=20", *adverts) == ["10"]
    assert lists(f"{RENT_PATH}?{name}=20&{name}=30", *adverts) == ["10", "11"]
    assert lists(f"{RENT_PATH}?{name}=20&{name}=30", *adverts, all_of=True) == ["10"]


def test_seller_keyword_and_availability() -> None:
    """`ISPRIVATE`; `keyword` over the title and the whole description (a word past the
    page's snippet counts); `AVAILABLETODAY`, which no attribute on the page shows."""
    hidden = "Schöne Lage. " * 30 + "Fernwärme"
    private = flat("13", "Privat", 900, private=True, body=hidden, available_today=True)
    company = flat("14", "Firma Altbau", 900)
    assert lists(f"{RENT_PATH}?ISPRIVATE=1", private, company) == ["13"]
    assert lists(f"{RENT_PATH}?ISPRIVATE=0", private, company) == ["14"]
    assert lists(f"{RENT_PATH}?keyword=fernwaerme", private, company) == ["13"]
    assert lists(f"{RENT_PATH}?keyword=altbau", private, company) == ["14"]
    assert lists(f"{RENT_PATH}?AVAILABLETODAY=true", private, company) == ["13"]


def test_paging_parameters_are_ignored_and_page_two_is_anchored() -> None:
    old = flat("15", "Alt", 900, published_ms=1_000)
    new = flat("16", "Neu", 900, published_ms=2_000)
    query = "sort=1&rows=200&page=3&isNavigation=true&sfId=x&parent_areaid=900"
    assert lists(f"{RENT_PATH}?{query}", old, new) == ["15", "16"]
    assert lists(f"{RENT_PATH}?publishedDateTo=1500", old, new) == ["15"]


def test_a_placement_is_never_one_of_the_listed_flats() -> None:
    """The site puts it on top itself (`test_willhaben_site.py`), whatever it fits."""
    paid = flat("17", "Bezahlt", 900, place=7, placement=True)
    assert lists(RENT_PATH, paid) == []


def test_a_building_project_is_listed_through_a_unit_that_fits_every_filter() -> None:
    """Trap 2: the project has no rooms or area of its own; a unit must fit all unit
    filters at once (a 2-room unit and a 90 m² unit do not make a 90 m² 2-room flat)."""
    units = (
        FakeUnit("181", Decimal(213000), 48, 2, free_areas=("20",)),
        FakeUnit("182", Decimal(405000), 90, 4, property_type="102"),
    )
    park = project("18", "Wohnpark", units, category=BUY, place=22)
    url = f"{BUY_PATH}?areaId=117244"
    assert lists(url, park) == ["18"]
    assert lists(f"{url}&NO_OF_ROOMS_BUCKET=2X2", park) == ["18"]
    assert lists(f"{url}&NO_OF_ROOMS_BUCKET=2X2&ESTATE_SIZE/LIVING_AREA_FROM=90", park) == []
    assert lists(f"{url}&PRICE_TO=300000&FREE_AREA/FREE_AREA_TYPE=20", park) == ["18"]
    assert lists(f"{url}&PROPERTY_TYPE=102&PRICE_TO=400000", park) == []
    assert lists(f"{BUY_PATH}?areaId=117229", park) == []
    query = EstateQuery(httpx.URL(f"{url}&ESTATE_SIZE/LIVING_AREA_FROM=60"))
    assert [unit.id for unit in query.units(park)] == ["182"]


def test_other_parameters_are_named_by_the_advert() -> None:
    garage = flat("19", "Mit Stellplatz", 900, params=(("AT_TYPE", "5"),))
    assert lists(f"{RENT_PATH}?AT_TYPE=5", garage, NEUBAU) == ["19"]


def test_a_bundesland_segment_is_the_bundesland_and_its_namesake_town_has_its_own() -> None:
    """`/mietwohnungen/salzburg` is the Bundesland (REALESTATE.md: `/burgenland/` …
    `/vorarlberg/` ≡ `areaId` 1 … 8), so it lists a flat in Hallein; the town of Salzburg is
    `/salzburg/salzburg-stadt`, which does not."""
    hallein = next(p for p in PLACES if p.name == "Hallein")
    salzburg = next(p for p in PLACES if p.name == "Salzburg")
    in_hallein = flat("61", "Hallein", 900, place=hallein)
    in_town = flat("62", "Stadt", 900, place=salzburg)
    state = RENT_PATH.replace("mietwohnung-angebote", "salzburg")
    assert lists(state, in_hallein, in_town) == ["61", "62"]
    assert lists(f"{state}/salzburg-stadt", in_hallein, in_town) == ["62"]
