"""Render willhaben search result pages with chosen adverts, shaped like the real site.

The real page (tests/fixtures/willhaben/) is a Next.js page of a few hundred kB: tracking and
chunk `<script>` tags, an `application/ld+json` item list, the rendered result cards, and the
data in `<script id="__NEXT_DATA__" type="application/json">` under
`props.pageProps.searchResult`. This builder reproduces that structure so the parser, the fake
willhaben site and the demo exercise the same paths as the real page — never fetch live pages.

An advert's own page (`render_advert_page`, at `FakeAdvert.url`) is built the same way, with
the data under `props.pageProps.advertDetails` as on the saved
`advert-immobilien-haus-kaufen-wien-1140.html`.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

from habicht.fakes.willhaben_estate import (
    ESTATE_CATEGORY,
    FakeEstate,
    estate_attributes,
    price_display,
    unit_summary,
)

__all__ = ["AD_BASE", "FakeAdvert", "render_advert_page", "render_block_page", "render_search_page"]

_SEARCH_PATH = "/iad/kaufen-und-verkaufen/marktplatz"
AD_BASE = "https://www.willhaben.at/iad/"
"""What an advert's `SEO_URL` is relative to: its page is there (`FakeAdvert.url`)."""
SNIPPET = 250
"""Characters of an advert's description a result page shows at most (`BODY_DYN`), before
the "..." that marks a cut."""
_WHOLE_WORDS = re.compile(r".*\S(?=\s)", re.S)
"""The longest start of a text that ends with a whole word (whitespace follows it)."""
_ACTIVE = {"id": "active", "description": "aktiv", "statusId": 50}
_RESERVED = {"id": "reserved", "description": "reserviert", "statusId": 55}
_VIENNA = ZoneInfo("Europe/Vienna")


@dataclass(frozen=True)
class FakeAdvert:
    """One advert as the page lists it; `price=None` is a price-less advert ("zu verschenken").

    `bumped` marks a bumped/promoted advert (`IS_BUMPED`); where it sits is the site's order.
    `reserved` shows it as the real page shows a reserved advert: `advertStatus` "reserved"
    and the title prefixed "(reserviert) " (the `HEADING` keeps the plain title).
    `price_display` overrides the shown price text (e.g. "VB"); by default it is "€ <price>".
    `published_ms` is `PUBLISHED` (and `CHANGED`), epoch milliseconds. By default both are left
    out: the publish time is then unknown and only the id decides whether an advert is new —
    a fixed default date would make every advert look older than any watch started later,
    which the scan records silently as a slide-in.
    `body` is the whole description (by default one made from the title); the page shows its
    start as `BODY_DYN`, cut as willhaben's are (`snippet`). `private` says whether
    a private person sells it (`ISPRIVATE` "1") or a company ("0"), `categories` its category
    tree, top first (`categorytreeids`; by default the saved page's Computer / Software,
    PC-Komponenten, Grafikkarten). In the fake site's world, `path` is the search path it is
    listed under and `params` the other search parameters it satisfies (`areaId=900`).
    `coordinates` (latitude, longitude) is its `COORDINATES` (None: the page leaves them out),
    `seller` its `ORGID` (by default one of its own, as every real advert has a seller).
    `estate` makes it a real-estate advert (`habicht.fakes.willhaben_estate`; build one with
    `habicht.fakes.willhaben_flats.flat`): its `price` is the rent or the purchase price, and
    the page shows the real-estate attributes, `SEO_URL` and price format.
    """

    id: str
    title: str
    price: Decimal | None = None
    location: str = "Wien, 07. Bezirk, Neubau"
    postcode: str = "1070"
    bumped: bool = False
    published_ms: int | None = None
    price_display: str | None = None
    state: str = "Wien"
    reserved: bool = False
    body: str | None = None
    private: bool = True
    categories: tuple[str, ...] = ("5824", "5878", "5882")
    path: str = _SEARCH_PATH
    params: tuple[tuple[str, str], ...] = ()
    coordinates: tuple[float, float] | None = (48.2, 16.35)
    seller: str | None = None
    estate: FakeEstate | None = None

    @property
    def seo_url(self) -> str:
        if self.estate is not None:
            return self.estate.seo_path(self.title, self.id)
        slug = re.sub(r"[^a-z0-9]+", "-", self.title.lower()).strip("-") or "anzeige"
        return f"kaufen-und-verkaufen/d/{slug}-{self.id}/"

    @property
    def url(self) -> str:
        """The advert's own page, as `Listing.url` and its `seoMetaData.canonicalUrl` say."""
        return AD_BASE + self.seo_url

    @property
    def image_path(self) -> str:
        digits = self.id.rjust(9, "0")
        return f"4/{digits[:3]}/{digits[3:6]}/{digits[6:]}_-1.jpg"

    @property
    def description(self) -> str:
        return self.body or f"Verkaufe {self.title}. Abholung oder Versand."

    def shown_price(self) -> str:
        if self.price_display is not None:
            return self.price_display
        if self.estate is not None:
            return price_display(self.estate, self.price)
        return "zu verschenken" if self.price is None else f"€ {_price_text(self.price)}"


def _price_text(price: Decimal) -> str:
    """willhaben writes whole prices without decimals ("120") and others with ("676.22")."""
    return str(price.quantize(Decimal(1))) if price == price.to_integral_value() else str(price)


def snippet(description: str) -> str:
    """The start of `description` a result page shows: whole, if it has at most `SNIPPET`
    characters; else cut after the last whole word that fits, with "..." after it, as the
    saved pages' snippets are ("...in a 2.7 slot form...", "durchdachten,..."). A first word
    longer than `SNIPPET` is cut inside, as nothing else would fit."""
    if len(description) <= SNIPPET:
        return description
    whole = _WHOLE_WORDS.match(description, 0, SNIPPET + 1)
    return (description[:SNIPPET] if whole is None else whole[0]) + "..."


def _attributes(advert: FakeAdvert) -> list[dict[str, Any]]:
    values: dict[str, str] = {
        "LOCATION": advert.location,
        "p2penabled": "true",
        "POSTCODE": advert.postcode,
        "BODY_DYN": snippet(advert.description),
        "STATE": advert.state,
        "HEADING": advert.title,
        "COUNTRY": "Österreich",
        "ADTYPE_ID": "67",
        "ADID": advert.id,
        "SEO_URL": advert.seo_url,
        "ALL_IMAGE_URLS": advert.image_path,
        "ISPRIVATE": "1" if advert.private else "0",
        "categorytreeids": ";".join(advert.categories),
        "PRODUCT_ID": "67",
        "MMO": advert.image_path,
        "ORGID": advert.seller or f"9{advert.id}",
        "PRICE_FOR_DISPLAY": advert.shown_price(),
    }
    if advert.coordinates is not None:
        values["COORDINATES"] = "{:.5f},{:.5f}".format(*advert.coordinates)
    if advert.published_ms is not None:
        values["CHANGED"] = values["PUBLISHED"] = str(advert.published_ms)
    if advert.price is not None:
        values["PRICE/AMOUNT"] = f"{advert.price:.1f}"
        values["PRICE"] = _price_text(advert.price)
    if advert.bumped:
        values["IS_BUMPED"] = "1"
        values["UPSELLING_AD_SEARCHRESULT"] = "true"
    if advert.estate is not None:
        del values["p2penabled"]
        values.pop("PRICE/AMOUNT", None)  # the saved real-estate page has none
        values["categorytreeids"] = ESTATE_CATEGORY
        values.update(estate_attributes(advert.estate, advert.price))
    return [{"name": name, "values": [value]} for name, value in values.items()]


def _advert_summary(advert: FakeAdvert) -> dict[str, Any]:
    image = f"https://cache.willhaben.at/mmo/{advert.image_path}"
    estate = advert.estate
    self_link = f"https://api.willhaben.at/restapi/v2/atverz/{advert.id}"
    children = None
    if estate is not None:
        self_link += "?referer=pp" if estate.placement else ""
        if estate.project:
            children = [unit_summary(unit, estate, advert.title) for unit in estate.units]
    return {
        "id": advert.id,
        "verticalId": 5 if estate is None else 2,
        "adTypeId": 67 if estate is None else estate.ad_type,
        "productId": 67 if estate is None else 227,
        "advertStatus": _RESERVED if advert.reserved else _ACTIVE,
        "description": f"(reserviert) {advert.title}" if advert.reserved else advert.title,
        "attributes": {"attribute": _attributes(advert)},
        "advertImageList": {
            "advertImage": [
                {
                    "id": 1,
                    "name": advert.image_path,
                    "description": "Cover Image",
                    "mainImageUrl": image.replace(".jpg", "_hoved.jpg"),
                    "thumbnailImageUrl": image.replace(".jpg", "_thumb.jpg"),
                    "referenceImageUrl": image,
                }
            ]
        },
        "selfLink": self_link,
        "advertiserInfo": {"label": None, "iconSVG": None, "iconPNG": None, "iconType": "NONE"},
        "upsellingOrganisationLogo": None,
        "children": children,
    }


_DETAILS = (
    "id",
    "verticalId",
    "adTypeId",
    "productId",
    "description",
    "attributes",
    "advertImageList",
    "advertStatus",
)
"""What an advert's page says of it as a search page's `advertSummary` does."""


def _advert_details(advert: FakeAdvert) -> dict[str, Any]:
    """`advertDetails`: what the search page says of the advert, and what only its own page
    has (its canonical URL, dates, `disposed`), in the saved advert page's shape."""
    summary = _advert_summary(advert)
    details = {key: summary[key] for key in _DETAILS}
    details["seoMetaData"] = {"canonicalUrl": advert.url, "title": advert.title}
    details["contextLinkList"] = {
        "contextLink": [{"id": "selfLink", "uri": summary["selfLink"].partition("?")[0]}]
    }
    details["disposed"] = 0
    if advert.published_ms is not None:
        when = datetime.fromtimestamp(advert.published_ms / 1000, _VIENNA)
        details["publishedDate"] = details["changedDate"] = when.strftime("%Y-%m-%dT%H:%M:%S%z")
    return details


@dataclass(frozen=True)
class _Section:
    """What a page says of the part of willhaben it searches."""

    search_id: int
    vertical: int
    name: str
    path: str
    page: str


_MARKETPLACE = _Section(
    301, 5, "Marktplatz", _SEARCH_PATH, "/iad/kaufen-und-verkaufen/marktplatz/[[...seopath]]"
)
_REAL_ESTATE = _Section(131, 2, "Immobilien", "/iad/immobilien", "/iad/immobilien/[...seopath]")


def _next_data(
    adverts: Sequence[FakeAdvert], rows_found: int, rows_requested: int, page: int
) -> str:
    section = _REAL_ESTATE if any(a.estate is not None for a in adverts) else _MARKETPLACE
    search_result = {
        "id": section.search_id,
        "description": "Alle Anzeigen",
        "heading": f"Anzeigen in {section.name}",
        "verticalId": section.vertical,
        "searchId": section.search_id,
        "rowsRequested": rows_requested,
        "rowsFound": rows_found,
        "rowsReturned": len(adverts),
        "pageRequested": page,
        "searchDate": "2026-11-30T09:00:00+0100",
        "advertSummaryList": {"advertSummary": [_advert_summary(a) for a in adverts]},
        "breadcrumbs": [{"displayName": section.name, "seoUrl": f"{section.path}/"}],
        "pagingLinksList": {"contextLink": []},
        "sortOrderList": {
            "contextLink": [{"id": "published.descending", "description": "Aktualität"}]
        },
        "searchTitle": section.name,
    }
    data = {
        "props": {
            "pageProps": {
                "searchResult": search_result,
                "searchTerms": None,
                "defaultViewMode": "list",
            },
            "isSSG": False,
            "is404": False,
        },
        "page": section.page,
        "query": {"sort": "1", "rows": str(rows_requested), "page": str(page)},
        "buildId": "439650",
        "isFallback": False,
        "customServer": True,
        "gip": True,
        "appGip": True,
    }
    return _script_json(data)


def _script_json(data: Any) -> str:
    """JSON safe inside a `<script>`: Next.js escapes `<`, `>` and `&` the same way."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def _card(advert: FakeAdvert) -> str:
    title = html.escape(advert.title)
    return (
        f'<div class="Box-sc-wfmb7k-0 ResultListAdRowLayout___StyledDiv-sc-1rmys2w-0">'
        f'<a id="search-result-entry-header-{advert.id}" href="/iad/{advert.seo_url}" '
        f'data-testid="search-result-entry-header-{advert.id}" class="sc-1l5ml1x-0 eYiEzA">'
        f'<img src="https://cache.willhaben.at/mmo/{advert.image_path}" alt="{title}" '
        f'loading="lazy"><h3 class="Text-sc-10o2fdq-0 dVBfXc">{title}</h3>'
        f'<span class="Text-sc-10o2fdq-0 bSbZKt" data-testid="search-result-entry-price-'
        f'{advert.id}">{html.escape(advert.shown_price())}</span>'
        f'<span class="Text-sc-10o2fdq-0 hAVbNB">{html.escape(advert.postcode)} '
        f"{html.escape(advert.location)}</span></a></div>"
    )


_HEAD = (
    '<head><script type="text/javascript" async="" '
    'src="https://static.criteo.net/js/ld/publishertag.prebid.116.js"></script>'
    '<script async="" src="//c.amazon-adsystem.com/aax2/apstag.js"></script>'
    '<link rel="preconnect" href="https://cache.willhaben.at">'
    '<meta charset="utf-8"><meta name="viewport" content="width=device-width">'
    "<title>{title}</title>"
    "<style type=\"text/css\">@font-face {{ font-family: 'Open Sans'; font-weight: 400; }}"
    ".eYiEzA {{ display: flex; }} .dVBfXc {{ font-weight: 600; }}</style>"
    '<script nomodule="" src="/_next/static/assets/minified.95bb72a2469a8129765e70e29aaa3d5c.js">'
    "</script>"
    '<script type="text/javascript">window.dataLayer = window.dataLayer || [];</script>'
    "</head>"
)

_CHUNKS = "".join(
    f'<script src="/_next/static/chunks/{name}.js" async=""></script>'
    for name in ("main-733365bb336d1d9e2dec", "webpack-a98885aacd6cf4425fde", "framework.c1d0acf5")
)


def render_search_page(
    adverts: Sequence[FakeAdvert],
    *,
    rows_found: int | None = None,
    rows_requested: int = 30,
    page: int = 1,
) -> str:
    """A search result page listing `adverts` in order; `rows_found` defaults to their count.

    `rows_requested` and `page` are only reported (`rowsRequested`, `pageRequested`): which
    adverts a page holds is the caller's choice (the fake site slices its catalogue).
    """
    found = len(adverts) if rows_found is None else rows_found
    item_list = {
        "@context": "https://schema.org",
        "@type": "ItemList",
        "itemListElement": [
            {"@type": "ListItem", "position": i, "url": f"/iad/{a.seo_url}"}
            for i, a in enumerate(adverts)
        ],
    }
    cards = "".join(_card(a) for a in adverts)
    return (
        '<!DOCTYPE html><html lang="de">'
        + _HEAD.format(title=f"{found} Anzeigen in Marktplatz - willhaben")
        + '<body id="wh-body" data-ad-application="bbx"><div id="__next">'
        '<header class="Box-sc-wfmb7k-0"><div id="main-header" data-testid="main-header">'
        '<a href="/iad">willhaben</a></div></header>'
        '<main id="skip-to-content"><div class="Box-sc-wfmb7k-0">'
        f'<script type="application/ld+json">{_script_json(item_list)}</script>'
        f'<h1 class="Text-sc-10o2fdq-0">{found} Anzeigen in Marktplatz</h1>'
        f'<div id="skip-to-resultlist" class="Box-sc-wfmb7k-0 ResultList">{cards}</div>'
        "</div></main></div>"
        f'<script id="__NEXT_DATA__" type="application/json">'
        f"{_next_data(adverts, found, rows_requested, page)}</script>"
        f"{_CHUNKS}</body></html>"
    )


def render_advert_page(advert: FakeAdvert) -> str:
    """The advert's own page, `props.pageProps.advertDetails` in its `__NEXT_DATA__` script
    (a reserved advert shown as reserved, as on search pages)."""
    vertical = "immobilien" if advert.estate is not None else "kaufen-und-verkaufen"
    data = {
        "props": {
            "pageProps": {"advertDetails": _advert_details(advert), "seoSearchTerms": None},
            "isSSG": False,
            "is404": False,
        },
        "page": f"/iad/{vertical}/d/[...seopath]",
        "query": {"seopath": advert.seo_url.strip("/").split("/")[2:]},
        "buildId": "439650",
        "isFallback": False,
        "gssp": True,
        "appGip": True,
    }
    title = html.escape(advert.title)
    return (
        '<!DOCTYPE html><html lang="de">'
        + _HEAD.format(title=f"{title} - willhaben")
        + '<body id="wh-body"><div id="__next"><main id="skip-to-content">'
        f'<h1 data-testid="ad-detail-header">{title}</h1>'
        f'<span data-testid="contact-box-price-box-price-value-0">'
        f"{html.escape(advert.shown_price())}</span></main></div>"
        f'<script id="__NEXT_DATA__" type="application/json">{_script_json(data)}</script>'
        f"{_CHUNKS}</body></html>"
    )


def render_block_page() -> str:
    """The page a blocked client gets: no `__NEXT_DATA__`, only an explanation."""
    return (
        '<!DOCTYPE html><html lang="de"><head><meta charset="utf-8">'
        "<title>willhaben - Zugriff verweigert</title>"
        '<script src="/_next/static/chunks/main-733365bb336d1d9e2dec.js" async=""></script>'
        '</head><body><div class="blocked"><h1>Zugriff verweigert</h1>'
        "<p>Deine IP-Adresse wurde blockiert, weil ungewöhnlich viele Anfragen von ihr kamen.</p>"
        "<p>Bitte versuche es später noch einmal.</p></div></body></html>"
    )
