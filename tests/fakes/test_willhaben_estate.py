"""A fake flat is rendered with the attributes and value formats of the saved real page
(`tests/fixtures/willhaben/search-immobilien-mietwohnungen-wien.html`, issue 29)."""

from __future__ import annotations

import json
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from habicht.fakes import render_search_page
from habicht.fakes.willhaben_estate import BUY, FakeUnit, district, euros, rooms_bucket
from habicht.fakes.willhaben_flats import flat, project
from habicht.willhaben.parse import parse_search_page

SAVED = Path(__file__).parents[1] / "fixtures/willhaben/search-immobilien-mietwohnungen-wien.html"
_NEXT_DATA = re.compile(r'<script id="__NEXT_DATA__" type="application/json">(.*?)</script>', re.S)


def _summaries(page: str) -> list[dict[str, Any]]:
    match = _NEXT_DATA.search(page)
    assert match is not None
    result = json.loads(match.group(1))["props"]["pageProps"]["searchResult"]
    return list(result["advertSummaryList"]["advertSummary"])


def _attributes(summary: dict[str, Any]) -> dict[str, str]:
    return {a["name"]: a["values"][0] for a in summary["attributes"]["attribute"]}


def _real(ad_id: str) -> dict[str, Any]:
    (summary,) = [s for s in _summaries(SAVED.read_text()) if s["id"] == ad_id]
    return summary


def _fake(advert: Any) -> dict[str, Any]:
    (summary,) = _summaries(render_search_page([advert]))
    return summary


PALAIS = flat(
    "1339479305",
    "Helle 2-Zimmer-Wohnung, Balkon & Grünblick im Palais Rosé",
    1149,
    place=3,
    living_area=44,
    rooms=2,
    free_areas=("30", "20"),
    features=("4", "15", "23", "24", "27"),
    bumped=True,
)
"""The saved page's advert 1339479305, built by hand."""
DONAUINSEL = flat(
    "1720448872",
    "ruhige 2 Zimmer Wohnung nähe Donauinsel",
    Decimal("1038.82"),
    place=20,
    living_area=65,
    rooms=2,
    free_areas=("30",),
    features=("27", "24", "4"),
    bumped=True,
)
"""Advert 1720448872: a rent with cents."""
DECIDING = (
    "ADTYPE_ID",
    "STATE",
    "LOCATION",
    "LOCATION_ID",
    "POSTCODE",
    "DISTRICT",
    "ESTATE_SIZE/LIVING_AREA",
    "ESTATE_SIZE",
    "NUMBER_OF_ROOMS",
    "ROOMS",
    "PROPERTY_TYPE_ID",
    "PROPERTY_TYPE",
    "FREE_AREA_TYPE",
    "FREE_AREA_TYPE_NAME",
    "ESTATE_PREFERENCE",
    "ISPRIVATE",
    "PRICE",
    "PRICE_FOR_DISPLAY",
    "RENT/PER_MONTH_LETTINGS",
    "PRICE/SQUARE_METER",
    "PRICE/SQUARE_METER_FOR_DISPLAY",
    "categorytreeids",
    "IS_BUMPED",
    "SEO_URL",
    "HEADING",
)
"""The attributes a real-estate search is decided by, and those a flat alert shows."""


@pytest.mark.parametrize("advert", [PALAIS, DONAUINSEL], ids=lambda a: a.id)
def test_a_hand_built_flat_reads_as_the_saved_page_writes_it(advert: Any) -> None:
    """Every deciding attribute of two saved adverts, rebuilt by hand, has the real value
    and format: "€ 1.149", "€ 1.038,82", "1038.82", "2X2", "20, 30", "15, 23, 24, 27, 4",
    "26.113636", the SEO path with the district — and the summary's verticalId, adTypeId.
    (Both are units of a project on the real page too, whose `children` are not rebuilt.)"""
    real, fake = _real(advert.id), _fake(advert)
    shown = {name: _attributes(fake).get(name) for name in DECIDING}
    assert shown == {name: _attributes(real).get(name) for name in DECIDING}
    keys = ("verticalId", "adTypeId", "description")
    assert {k: fake[k] for k in keys} == {k: real[k] for k in keys}


def test_every_attribute_of_a_fake_flat_is_one_the_real_page_has() -> None:
    real_names = {name for s in _summaries(SAVED.read_text()) for name in _attributes(s)}
    assert set(_attributes(_fake(PALAIS))) - real_names == set()


def test_the_real_parser_reads_a_fake_flat_page() -> None:
    (listing,) = parse_search_page(render_search_page([DONAUINSEL]).encode()).listings
    assert (listing.id, listing.price, listing.price_display) == (
        "1720448872",
        Decimal("1038.82"),
        "€ 1.038,82",
    )
    assert listing.url.endswith(
        "/wien/wien-1200-brigittenau/ruhige-2-zimmer-wohnung-naehe-donauinsel-1720448872/"
    )


@pytest.mark.parametrize(
    ("rooms", "bucket"),
    [(1, "1X1"), (5, "5X5"), (6, "6X9"), (9, "6X9"), (10, "10X"), (None, "0X0")],
)
def test_rooms_fall_into_willhabens_buckets(rooms: int | None, bucket: str) -> None:
    assert rooms_bucket(rooms) == bucket


def test_prices_for_display_use_german_separators() -> None:
    assert [euros(Decimal(v)) for v in ("745", "3500", "976.19", "689000")] == [
        "€ 745",
        "€ 3.500",
        "€ 976,19",
        "€ 689.000",
    ]


def test_a_flat_for_sale_has_no_rent_and_its_own_path() -> None:
    advert = flat("5", "Eigentum in Tirol", 319000, category=BUY, place=district(7))
    attributes = _attributes(_fake(advert))
    assert attributes["ADTYPE_ID"] == "1"
    assert "RENT/PER_MONTH_LETTINGS" not in attributes
    assert attributes["SEO_URL"].startswith("immobilien/d/eigentumswohnung/wien/wien-1070-neubau/")


def test_a_placement_says_referer_pp() -> None:
    """REALESTATE.md, trap 1: `REFERER` "pp", and the 2025 form's `?referer=pp` self link."""
    summary = _fake(flat("9", "Bezahlt", 1695, place=1, placement=True))
    assert _attributes(summary)["REFERER"] == "pp"
    assert summary["selfLink"].endswith("?referer=pp")
    assert "REFERER" not in _attributes(_fake(PALAIS))


def test_a_building_project_has_units_but_no_rooms_type_or_area_of_its_own() -> None:
    """Trap 2: `adTypeId` 16, "ab €" its cheapest unit, `children` shaped as the saved page's
    (own id, SEO_URL, shown price, size, rooms; no PRICE, no PUBLISHED)."""
    units = (FakeUnit("701", Decimal(213000), 48, 2), FakeUnit("702", Decimal(405000), 94, 4))
    summary = _fake(project("700", "Wohnpark Donaustadt", units, published_ms=1))
    attributes = _attributes(summary)
    assert (summary["adTypeId"], attributes["ADTYPE_ID"]) == (16, "16")
    assert attributes["PRICE_FOR_DISPLAY"] == "ab € 213.000"
    for absent in ("ROOMS", "NUMBER_OF_ROOMS", "PROPERTY_TYPE_ID", "ESTATE_SIZE/LIVING_AREA"):
        assert absent not in attributes
    real_child = next(s for s in _summaries(SAVED.read_text()) if s["children"])["children"][0]
    child = summary["children"][1]
    assert set(_attributes(child)) == set(_attributes(real_child))
    assert (child["id"], _attributes(child)["PRICE_FOR_DISPLAY"]) == ("702", "€ 405.000")
    assert _attributes(child)["ESTATE_SIZE/LIVING_AREA"] == "94"
