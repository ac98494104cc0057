"""A willhaben search result page → its listings.

The data sits in `<script id="__NEXT_DATA__" type="application/json">` under
`props.pageProps.searchResult`. The page is a few hundred kB of markup around it, so the fast
path finds the tag by plain string search and hands only its text to `json.loads`; a full
BeautifulSoup parse runs only when the fast path finds no tag (attributes in an unusual form).

A page without the data is never read as "no listings": it is `Blocked` when it says the IP
is blocked, otherwise a `LayoutError`. `rowsFound: 0` is a valid empty result.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from bs4 import BeautifulSoup

from habicht.scraper.errors import Blocked, LayoutError

__all__ = ["Listing", "SearchPage", "parse_search_page"]

AD_BASE = "https://www.willhaben.at/iad/"
IMAGE_BASE = "https://cache.willhaben.at/mmo/"
_MARKER = "__NEXT_DATA__"
_OPEN_TAG = re.compile(r"<script\b[^>]*\bid\s*=\s*[\"']?__NEXT_DATA__[\"'\s>]", re.IGNORECASE)
_DECODER = json.JSONDecoder()
_BLOCK_MARKERS = ("IP-Adresse wurde blockiert", "Zugriff verweigert", "Access denied")


@dataclass(frozen=True, slots=True)
class Listing:
    """One advert of a search page.

    `price` is None for price-less adverts ("zu verschenken", "VB", "auf Anfrage");
    `published_at` is epoch seconds from `PUBLISHED` (bumping refreshes it, so it is no
    measure of "new"); `bumped` marks bumped or promoted adverts shown on top.
    """

    id: str
    title: str
    price: Decimal | None
    price_display: str | None
    location: str | None
    postcode: str | None
    url: str
    image_url: str | None
    published_at: float | None
    bumped: bool


@dataclass(frozen=True, slots=True)
class SearchPage:
    """The listings of one result page, in page order, and how many the search has in all."""

    listings: list[Listing]
    rows_found: int


def parse_search_page(html: str) -> SearchPage:
    """The listings of a search result page; `LayoutError`/`Blocked` if it has no data."""
    span = _next_data_span(html)
    if span is None:
        script = _next_data_soup(html)
        if script is None:
            if any(marker in html for marker in _BLOCK_MARKERS):
                raise Blocked("willhaben answered with its block page")
            raise LayoutError("the page has no __NEXT_DATA__ script")
        html, span = script, (0, len(script))
    result = _search_result_in_place(html, *span)
    if result is None:
        try:
            data = json.loads(html[span[0] : span[1]])
            result = data["props"]["pageProps"]["searchResult"]
        except ValueError as exc:
            raise LayoutError(f"__NEXT_DATA__ is not valid JSON: {exc}") from exc
        except (KeyError, TypeError) as exc:
            raise LayoutError(f"no props.pageProps.searchResult: {exc!r}") from exc
    return _search_page(result)


def _next_data_span(html: str) -> tuple[int, int] | None:
    """Where the `__NEXT_DATA__` script's text is, by string search alone; None if unsure."""
    start = html.find(_MARKER)
    while start != -1:
        tag_start = html.rfind("<", 0, start)
        match = _OPEN_TAG.match(html, tag_start) if tag_start != -1 else None
        if match is not None:
            body_start = html.find(">", match.end() - 1) + 1
            body_end = html.find("</script>", body_start)
            return (body_start, body_end) if body_end != -1 else None
        start = html.find(_MARKER, start + len(_MARKER))
    return None


def _next_data_soup(html: str) -> str | None:
    """The slow, forgiving way: a real HTML parse, for markup the fast path does not know."""
    tag = BeautifulSoup(html, "html.parser").find("script", id=_MARKER)
    return None if tag is None else tag.get_text()


def _search_result_in_place(html: str, start: int, end: int) -> dict[str, Any] | None:
    """`rowsFound` and `advertSummaryList` of the searchResult, decoding only those values.

    Half of `__NEXT_DATA__` is other things (navigators, tracking, feature flags); decoding
    just the two values we need, where the keys first follow `"searchResult":`, halves the
    work. A quoted key cannot occur inside a JSON string (its quotes would be escaped), so the
    match is a real key. None if the keys are not there in this compact form: the caller
    then decodes the whole script.
    """
    anchor = html.find('"searchResult":', start, end)
    if anchor == -1:
        return None
    found: dict[str, Any] = {}
    for key in ("rowsFound", "advertSummaryList"):
        position = html.find(f'"{key}":', anchor, end)
        if position == -1:
            return None
        try:
            found[key], _ = _DECODER.raw_decode(html, position + len(key) + 3)
        except ValueError:
            return None
    return found


def _search_page(result: Any) -> SearchPage:
    """A decoded `searchResult` as a SearchPage, or `LayoutError` if its shape is unknown."""
    if not isinstance(result, dict):
        raise LayoutError(f"searchResult is not an object: {type(result).__name__}")
    rows_found = result.get("rowsFound")
    if not isinstance(rows_found, int) or isinstance(rows_found, bool):
        raise LayoutError(f"searchResult.rowsFound is not a number: {rows_found!r}")
    advert_list = result.get("advertSummaryList")
    summaries = advert_list.get("advertSummary") if isinstance(advert_list, dict) else None
    if summaries is None and rows_found == 0:
        summaries = []
    if not isinstance(summaries, list):
        raise LayoutError("no advertSummaryList.advertSummary list in searchResult")
    listings: dict[str, Listing] = {}
    for summary in summaries:
        listing = _listing(summary)
        if listing is not None:
            listings.setdefault(listing.id, listing)
    if summaries and not listings:
        raise LayoutError(f"none of the {len(summaries)} adverts has an id")
    return SearchPage(listings=list(listings.values()), rows_found=rows_found)


def _listing(summary: Any) -> Listing | None:
    """One advertSummary as a Listing; None for an entry without an id (not an advert)."""
    if not isinstance(summary, dict) or not summary.get("id"):
        return None
    ad_id = str(summary["id"])
    attributes = _attributes(summary)
    seo_url = attributes.get("SEO_URL")
    image = attributes.get("MMO")
    published = attributes.get("PUBLISHED")
    title = summary.get("description") or attributes.get("HEADING") or ""
    return Listing(
        id=ad_id,
        title=str(title).strip(),
        price=_decimal(attributes.get("PRICE") or attributes.get("PRICE/AMOUNT")),
        price_display=attributes.get("PRICE_FOR_DISPLAY"),
        location=attributes.get("LOCATION"),
        postcode=attributes.get("POSTCODE"),
        url=AD_BASE + seo_url.lstrip("/") if seo_url else f"{AD_BASE}object?adId={ad_id}",
        image_url=IMAGE_BASE + image.lstrip("/") if image else None,
        published_at=int(published) / 1000 if published and published.isdigit() else None,
        bumped=_flag(attributes.get("IS_BUMPED"))
        or _flag(attributes.get("UPSELLING_AD_SEARCHRESULT")),
    )


def _attributes(summary: dict[str, Any]) -> dict[str, str]:
    """`attributes.attribute[]` as name → first value; entries of another shape are skipped."""
    entries = (summary.get("attributes") or {}).get("attribute") or []
    found: dict[str, str] = {}
    for entry in entries:
        if isinstance(entry, dict) and isinstance(entry.get("values"), list) and entry["values"]:
            found.setdefault(str(entry.get("name")), str(entry["values"][0]))
    return found


def _decimal(text: str | None) -> Decimal | None:
    if text is None:
        return None
    try:
        value = Decimal(text.strip())
    except InvalidOperation:
        return None
    return value if value.is_finite() and value >= 0 else None


def _flag(text: str | None) -> bool:
    return text is not None and text.strip().lower() not in ("", "0", "false")
