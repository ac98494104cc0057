"""willhaben's real-estate vocabulary (`habicht.willhaben.estate_terms`), held against the saved
real page and REALESTATE.md: path segments, area ids, postcodes."""

from __future__ import annotations

import json
import re

from conftest import FIXTURES

from habicht.willhaben.estate_terms import (
    DISTRICT_SEGMENTS,
    STATE_SEGMENTS,
    STATES,
    VIENNA_DISTRICTS,
    segment,
)

_PAGE = (FIXTURES / "search-immobilien-mietwohnungen-wien.html").read_text(encoding="utf-8")


def _adverts() -> list[dict[str, str]]:
    script = re.search(r'<script id="__NEXT_DATA__"[^>]*>(.*?)</script>', _PAGE, re.S)
    assert script is not None
    result = json.loads(script[1])["props"]["pageProps"]["searchResult"]
    return [
        {a["name"]: a["values"][0] for a in advert["attributes"]["attribute"]}
        for advert in result["advertSummaryList"]["advertSummary"]
    ]


def test_every_district_segment_the_saved_page_links_is_its_adverts_district() -> None:
    """Each advert's SEO_URL names its district as `wien-<postcode>-<name>`: that segment is
    the district habicht derives from the name, and its area id is the advert's LOCATION_ID."""
    seen = 0
    for advert in _adverts():
        found = re.search(r"/wien/(wien-1[0-9]{2}0-[a-z-]+)/", advert["SEO_URL"])
        assert found is not None, advert["SEO_URL"]
        assert DISTRICT_SEGMENTS[found[1]] == advert["LOCATION_ID"]
        assert VIENNA_DISTRICTS[advert["LOCATION_ID"]].postcode == advert["POSTCODE"]
        seen += 1
    assert seen == 30


def test_the_districts_and_bundeslaender_are_those_of_realestate_md() -> None:
    """117222 + district number, postcode 1000 + 10 times the district; umlauts and ß written out in
    segments; the nine Bundesländer by the names their adverts carry."""
    assert len(VIENNA_DISTRICTS) == 23
    assert VIENNA_DISTRICTS["117229"].segment == "wien-1070-neubau"
    assert VIENNA_DISTRICTS["117237"].segment == "wien-1150-rudolfsheim-fuenfhaus"
    assert VIENNA_DISTRICTS["117245"].postcode == "1230"
    assert segment("Landstraße") == "landstrasse"
    assert STATE_SEGMENTS["kaernten"] == "2"
    assert STATE_SEGMENTS["wien"] == "900"
    assert STATES["7"] == "Tirol"
