"""The page builder renders the real page's structure, safely, with the adverts it is given."""

from __future__ import annotations

import json
import re
from decimal import Decimal
from typing import Any

import pytest
from conftest import FIXTURES

from habicht.fakes import FakeAdvert, render_block_page, render_search_page
from habicht.fakes.willhaben_flats import flat
from habicht.fakes.willhaben_pages import render_advert_page

_NEXT_DATA = re.compile(r'<script id="__NEXT_DATA__" type="application/json">(.*?)</script>', re.S)


def _search_result(page: str) -> Any:
    return _page_props(page)["searchResult"]


def _page_props(page: str) -> Any:
    match = _NEXT_DATA.search(page)
    assert match is not None
    return json.loads(match.group(1))["props"]["pageProps"]


def _attributes(summary: dict[str, Any]) -> dict[str, str]:
    return {a["name"]: a["values"][0] for a in summary["attributes"]["attribute"]}


def test_adverts_appear_in_order_with_their_attributes() -> None:
    """Each advert becomes an advertSummary with id, title, price and SEO_URL, in order."""
    page = render_search_page(
        [FakeAdvert("101", "RTX 3070", Decimal("400")), FakeAdvert("102", "Sofa", None)],
        rows_found=838,
    )
    result = _search_result(page)
    assert (result["rowsFound"], result["rowsReturned"]) == (838, 2)
    first, second = result["advertSummaryList"]["advertSummary"]
    assert (first["id"], first["description"]) == ("101", "RTX 3070")
    assert _attributes(first)["PRICE"] == "400"
    assert _attributes(first)["SEO_URL"] == "kaufen-und-verkaufen/d/rtx-3070-101/"
    assert "PRICE" not in _attributes(second)
    assert _attributes(second)["PRICE_FOR_DISPLAY"] == "zu verschenken"


def test_titles_cannot_break_out_of_the_script_tag() -> None:
    """A title with `</script>` and `&` is escaped in the JSON and still round-trips."""
    title = "Tisch </script><b>&amp; Stühle"
    page = render_search_page([FakeAdvert("7", title, Decimal("12.50"), bumped=True)])
    (summary,) = _search_result(page)["advertSummaryList"]["advertSummary"]
    assert summary["description"] == title
    assert _attributes(summary)["PRICE"] == "12.50"
    assert _attributes(summary)["IS_BUMPED"] == "1"


def test_block_page_has_no_data() -> None:
    """The block page explains the block and carries no __NEXT_DATA__."""
    page = render_block_page()
    assert "IP-Adresse wurde blockiert" in page
    assert "__NEXT_DATA__" not in page


REAL_DETAILS = _page_props(
    (FIXTURES / "advert-immobilien-haus-kaufen-wien-1140.html").read_text(encoding="utf-8")
)["advertDetails"]


def test_an_advert_page_has_the_real_advert_page_s_shape() -> None:
    """`render_advert_page` puts the advert at `props.pageProps.advertDetails` with only
    keys the saved advert page has, of the same types: id, title, attributes with PRICE and
    PRICE_FOR_DISPLAY, the active status as willhaben writes it, the canonical URL."""
    advert = FakeAdvert("123456789", "RTX 3070", Decimal(400), published_ms=1_700_000_000_000)
    details = _page_props(render_advert_page(advert))["advertDetails"]
    assert {key: type(details[key]) for key in details} == {
        key: type(REAL_DETAILS[key]) for key in details
    }
    assert (details["id"], details["description"]) == ("123456789", "RTX 3070")
    assert details["advertStatus"] == REAL_DETAILS["advertStatus"]
    assert (_attributes(details)["PRICE"], _attributes(details)["PRICE_FOR_DISPLAY"]) == (
        "400",
        "€ 400",
    )
    assert details["seoMetaData"]["canonicalUrl"] == advert.url
    assert advert.url == "https://www.willhaben.at/iad/kaufen-und-verkaufen/d/rtx-3070-123456789/"
    assert details["publishedDate"] == "2023-11-14T23:13:20+0100"


@pytest.mark.parametrize("reserved", [False, True])
def test_an_advert_page_shows_the_status_a_search_page_shows(reserved: bool) -> None:
    """Active or reserved as on the search page, with the same title and attributes."""
    advert = FakeAdvert("7", "Tisch </script>&", Decimal("12.50"), reserved=reserved)
    details = _page_props(render_advert_page(advert))["advertDetails"]
    (summary,) = _search_result(render_search_page([advert]))["advertSummaryList"]["advertSummary"]
    shared = ("advertStatus", "description", "attributes")
    assert {key: details[key] for key in shared} == {key: summary[key] for key in shared}
    assert details["advertStatus"]["id"] == ("reserved" if reserved else "active")


def test_a_flat_s_page_is_under_immobilien() -> None:
    """A real-estate advert's page is at its real-estate `SEO_URL`, with its price."""
    home = flat("55", "Altbau", 990)
    details = _page_props(render_advert_page(home))["advertDetails"]
    assert home.url.startswith("https://www.willhaben.at/iad/immobilien/d/mietwohnungen/")
    assert (details["seoMetaData"]["canonicalUrl"], details["verticalId"]) == (home.url, 2)
    assert _attributes(details)["PRICE"] == "990"
