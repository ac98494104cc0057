"""The page builder renders the real page's structure, safely, with the adverts it is given."""

from __future__ import annotations

import json
import re
from decimal import Decimal
from typing import Any

from habicht.fakes import FakeAdvert, render_block_page, render_search_page

_NEXT_DATA = re.compile(r'<script id="__NEXT_DATA__" type="application/json">(.*?)</script>', re.S)


def _search_result(page: str) -> Any:
    match = _NEXT_DATA.search(page)
    assert match is not None
    return json.loads(match.group(1))["props"]["pageProps"]["searchResult"]


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
