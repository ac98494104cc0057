"""Real-estate search pages built from the saved real one (issue 29): flats with chosen ids and
attributes, in exactly the JSON shape of `search-immobilien-mietwohnungen-wien.html`, and a
hook that lets the fake willhaben serve them (`FakeWillhabenSite.intercept`).

Each flat is the saved page's first advert with its own id and attributes, so everything the
tests do not choose — the other attributes, the images, the links — is as the real page has
it; a page is the saved page's `__NEXT_DATA__` with these flats and their `rowsFound`.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

import httpx
from conftest import FIXTURES

from habicht.fakes.willhaben_site import SiteFault

__all__ = ["FlatPages", "flat", "flats_page"]

_SAVED = (FIXTURES / "search-immobilien-mietwohnungen-wien.html").read_text(encoding="utf-8")
_SCRIPT = re.compile(r'(<script id="__NEXT_DATA__" type="application/json">)(.*?)(</script>)', re.S)
_DATA = json.loads(_SCRIPT.search(_SAVED)[2])  # type: ignore[index]
_TEMPLATE = _DATA["props"]["pageProps"]["searchResult"]["advertSummaryList"]["advertSummary"][0]


def flat(
    ad_id: str,
    price: str = "900",
    *,
    state: str = "Wien",
    district: str = "117229",
    area: str = "50",
    rooms: str = "2X2",
    kind: str = "3",
    free: str | None = "20",
    features: str | None = "27",
    ad_type: int = 2,
    placement: bool = False,
    published_ms: int | None = None,
    bumped: bool = False,
) -> dict[str, Any]:
    """One flat as the saved page writes an advert: `price` its rent (`PRICE`), `district` its
    `LOCATION_ID`, `area` its `ESTATE_SIZE/LIVING_AREA`, `rooms` its `ROOMS` bucket, `kind`
    its `PROPERTY_TYPE_ID`, `free` and `features` ids joined by ", " (None: left out),
    `ad_type` its `adTypeId` (16: a building project), `placement` the paid placement
    (`REFERER` "pp")."""
    advert = copy.deepcopy(_TEMPLATE)
    advert["id"] = ad_id
    advert["adTypeId"] = ad_type
    advert["children"] = None
    advert["selfLink"] = f"https://api.willhaben.at/restapi/v2/atverz/{ad_id}"
    values = {entry["name"]: entry["values"][0] for entry in advert["attributes"]["attribute"]}
    values.update(
        {
            "ADID": ad_id,
            "ADTYPE_ID": str(ad_type),
            "STATE": state,
            "LOCATION_ID": district,
            "ESTATE_SIZE/LIVING_AREA": area,
            "ESTATE_SIZE": area,
            "ROOMS": rooms,
            "PROPERTY_TYPE_ID": kind,
            "PRICE": price,
            "RENT/PER_MONTH_LETTINGS": f"{Decimal(price):.1f}",
            "PRICE_FOR_DISPLAY": f"€ {price}",
            "SEO_URL": f"immobilien/d/mietwohnungen/wien/wohnung-{ad_id}/",
            "IS_BUMPED": "1" if bumped else "0",
            "UPSELLING_AD_SEARCHRESULT": "true" if bumped else "false",
        }
    )
    for name, value in (("FREE_AREA_TYPE", free), ("ESTATE_PREFERENCE", features)):
        if value is None:
            values.pop(name, None)
        else:
            values[name] = value
    if published_ms is not None:
        values["PUBLISHED"] = str(published_ms)
    if placement:
        values["REFERER"] = "pp"
    advert["attributes"]["attribute"] = [
        {"name": name, "values": [value]} for name, value in values.items()
    ]
    return advert


def flats_page(adverts: Sequence[dict[str, Any]], *, rows_found: int | None = None) -> str:
    """The saved page with `adverts` as its result; `rows_found` defaults to their count."""
    data = copy.deepcopy(_DATA)
    result = data["props"]["pageProps"]["searchResult"]
    result["advertSummaryList"]["advertSummary"] = list(adverts)
    result["rowsFound"] = len(adverts) if rows_found is None else rows_found
    result["rowsReturned"] = len(adverts)
    script = json.dumps(data, ensure_ascii=False).replace("<", "\\u003c")
    return _SCRIPT.sub(lambda match: match[1] + script + match[3], _SAVED, count=1)


class FlatPages:
    """Real-estate pages the fake willhaben serves by path: install with
    `site.intercept(pages)`; `show(path, adverts)` sets what the path lists from now on (one
    page: fewer than 200 adverts). Other requests go to the site as usual."""

    def __init__(self) -> None:
        self.pages: dict[str, str] = {}

    def show(self, path: str, adverts: Sequence[dict[str, Any]], **kwargs: Any) -> None:
        self.pages[path] = flats_page(adverts, **kwargs)

    def __call__(self, request: httpx.Request) -> httpx.Response | SiteFault | None:
        page = self.pages.get(request.url.path)
        if page is None:
            return None
        return httpx.Response(200, text=page, headers={"content-type": "text/html"})
