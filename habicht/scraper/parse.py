"""A willhaben search result page → its listings.

The data sits in `<script id="__NEXT_DATA__" type="application/json">` under
`props.pageProps.searchResult`. The page is a few hundred kB of markup around it, so the fast
path finds the tag by plain string search and hands only its text to `json.loads`; a full
BeautifulSoup parse runs only when the fast path finds no tag (attributes in an unusual form).

A page without the data is never read as "no listings": it is `Blocked` when it says the IP
is blocked, otherwise a `LayoutError`. `rowsFound: 0` is a valid empty result.

Every value is type-checked before use: an advert entry of an unknown shape (attributes that
are not an object, an id that is not a string or number) makes the whole page a
`LayoutError` rather than being skipped. Skipping would be unsafe: the skipped advert would
be missing from what a watch records, and the day it parsed again it would be sent as "new".
An entry without any id is not an advert (willhaben interleaves other items) and is left out.
The `children` of a building project (other units of the same advert, without `PRICE` or
`PUBLISHED`) are not adverts of the search either: only the project itself is a listing.

Ids and links are bounded here (texts are shortened where they are rendered): an id longer
than `MAX_ID` is an unknown shape (`LayoutError`), and a link longer than `MAX_URL` is replaced
by the advert's short `object?adId=` link, so no page can make a message or a dedupe key grow
without limit.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from bs4 import BeautifulSoup

from habicht.scraper.errors import Blocked, LayoutError

__all__ = ["Listing", "SearchPage", "parse_search_page"]

AD_BASE = "https://www.willhaben.at/iad/"
IMAGE_BASE = "https://cache.willhaben.at/mmo/"
_MARKER = "__NEXT_DATA__"
_OPEN_TAG = re.compile(r"<script\b[^>]*\bid\s*=\s*[\"']?__NEXT_DATA__[\"'\s>]", re.IGNORECASE)
_DECODER = json.JSONDecoder()
_PREFIX = '{"props":{"pageProps":{"searchResult":{'
_PRICE = re.compile(r"[0-9]{1,12}(?:\.[0-9]{1,4})?")
_NESTING = re.compile(r"[{}\[\]]")
_BLOCK_MARKERS = ("IP-Adresse wurde blockiert", "Zugriff verweigert", "Access denied")
_RESERVED = "reserved"
_RESERVED_PREFIX = "(reserviert) "
MAX_ID = 40
"""Characters an advert id may have (real ids have 9 or 10 digits)."""
MAX_URL = 500
"""Characters an advert link may have before the short `object?adId=` link replaces it."""


@dataclass(frozen=True, slots=True)
class Listing:
    """One advert of a search page.

    `price` is None for price-less adverts ("zu verschenken", "VB", "auf Anfrage");
    `published_at` is epoch seconds from `PUBLISHED` (bumping refreshes it, so it is no
    measure of "new"); `bumped` marks bumped or promoted adverts shown on top; `reserved`
    one a seller has marked reserved (`advertStatus.id`), whose title then loses willhaben's
    "(reserviert) " prefix so that it reads the same once the advert is active again;
    `body` the start of its description (`BODY_DYN`) where the page has it; `is_private`
    whether a private person (True) or a company (False) sells it, None if the page says not.
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
    reserved: bool = False
    body: str | None = None
    is_private: bool | None = None


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
        except (ValueError, RecursionError) as exc:
            raise LayoutError(f"__NEXT_DATA__ is not valid JSON: {exc}") from exc
        try:
            result = data["props"]["pageProps"]["searchResult"]
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
    just the two values we need halves the work. The values are taken only where they provably
    belong to `props.pageProps.searchResult`, as on the real page: the script opens with
    exactly `{"props":{"pageProps":{"searchResult":{`, and no `{ } [ ]` stands between that
    brace and either key, so the key is a direct member of searchResult, not of some nested
    or later object (a `recommendations` list would otherwise pass for the search's adverts).
    A quoted key cannot occur inside a JSON string (its quotes would be escaped), so the match
    is a real key. More adverts than `rowsFound` is a contradiction this shortcut does not
    judge. In every doubtful case it returns None and the caller decodes the whole script.
    """
    body = html.find(_PREFIX, start, end)
    if body == -1 or html[start:body].strip():
        return None
    members = body + len(_PREFIX)
    found: dict[str, Any] = {}
    for key in ("rowsFound", "advertSummaryList"):
        position = html.find(f'"{key}":', members, end)
        if position == -1 or _NESTING.search(html, members, position):
            return None
        try:
            found[key], _ = _DECODER.raw_decode(html, position + len(key) + 3)
        except (ValueError, RecursionError):
            return None
    rows_found, advert_list = found["rowsFound"], found["advertSummaryList"]
    summaries = advert_list.get("advertSummary") if isinstance(advert_list, dict) else None
    if isinstance(rows_found, int) and isinstance(summaries, list) and len(summaries) > rows_found:
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
    """One advertSummary as a Listing; None for an entry without an id (not an advert).

    `LayoutError` for an entry of any other unknown shape (see the module docstring).
    """
    if not isinstance(summary, dict):
        raise LayoutError(f"an advertSummary entry is not an object: {type(summary).__name__}")
    raw_id = summary.get("id")
    if raw_id is None or raw_id == "":
        return None
    if isinstance(raw_id, bool) or not isinstance(raw_id, str | int):
        raise LayoutError(f"an advert id is not a string or number: {raw_id!r}")
    ad_id = str(raw_id)
    if len(ad_id) > MAX_ID:
        raise LayoutError(f"an advert id is longer than {MAX_ID} characters: {ad_id[:MAX_ID]}…")
    attributes = _attributes(summary, ad_id)
    seo_url = attributes.get("SEO_URL")
    image = attributes.get("MMO")
    published = attributes.get("PUBLISHED")
    description = summary.get("description")
    title = description if isinstance(description, str) and description else None
    reserved = _status(summary, ad_id) == _RESERVED
    if reserved and title is not None:
        title = title.removeprefix(_RESERVED_PREFIX)
    url = AD_BASE + seo_url.lstrip("/") if seo_url else ""
    return Listing(
        id=ad_id,
        title=(title or attributes.get("HEADING") or "").strip(),
        price=_decimal(attributes.get("PRICE") or attributes.get("PRICE/AMOUNT")),
        price_display=attributes.get("PRICE_FOR_DISPLAY"),
        location=attributes.get("LOCATION"),
        postcode=attributes.get("POSTCODE"),
        url=url if url and len(url) <= MAX_URL else f"{AD_BASE}object?adId={ad_id}",
        image_url=IMAGE_BASE + image.lstrip("/") if image else None,
        published_at=_epoch_ms(published),
        bumped=_flag(attributes.get("IS_BUMPED"))
        or _flag(attributes.get("UPSELLING_AD_SEARCHRESULT")),
        reserved=reserved,
        body=attributes.get("BODY_DYN"),
        is_private=_seller(attributes.get("ISPRIVATE")),
    )


def _seller(value: str | None) -> bool | None:
    """`ISPRIVATE` "1" (a private person) or "0" (a company); anything else is not known."""
    return {"1": True, "0": False}.get(value or "")


def _status(summary: dict[str, Any], ad_id: str) -> str | None:
    """`advertStatus.id` ("active", "reserved"); None when the page has none (older pages).

    A status of another shape is a `LayoutError`: guessing "active" could announce a
    reserved advert, guessing "reserved" could hide a new one.
    """
    status = summary.get("advertStatus")
    if status is None:
        return None
    value = status.get("id") if isinstance(status, dict) else None
    if not isinstance(value, str):
        raise LayoutError(f"advert {ad_id}: advertStatus has no id string: {status!r:.80}")
    return value


def _attributes(summary: dict[str, Any], ad_id: str) -> dict[str, str]:
    """`attributes.attribute[]` as name → first value.

    The containers must be an object and a list (`LayoutError` otherwise); a single entry of
    another shape, or whose first value is not a string, is an attribute we do not know and
    is skipped — every attribute we read is a string on the real page.
    """
    container = summary.get("attributes")
    if container is None:
        return {}
    if not isinstance(container, dict):
        raise LayoutError(f"advert {ad_id}: attributes is not an object")
    entries = container.get("attribute")
    if entries is None:
        return {}
    if not isinstance(entries, list):
        raise LayoutError(f"advert {ad_id}: attributes.attribute is not a list")
    found: dict[str, str] = {}
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        name, values = entry.get("name"), entry.get("values")
        first = values[0] if isinstance(values, list) and values else None
        if isinstance(name, str) and isinstance(first, str):
            found.setdefault(name, first)
    return found


def _epoch_ms(text: str | None) -> float | None:
    """`PUBLISHED` (epoch milliseconds) as epoch seconds; None unless plain ASCII digits."""
    if text is None or not (text.isascii() and text.isdigit()):
        return None
    return int(text) / 1000


def _decimal(text: str | None) -> Decimal | None:
    """A price as willhaben writes it ("120", "676.22"); None for anything else.

    Only plain digits: `Decimal` would also take "1E+999999", which becomes a million-digit
    string when stored.
    """
    if text is None or not _PRICE.fullmatch(text.strip()):
        return None
    return Decimal(text.strip())


def _flag(text: str | None) -> bool:
    return text is not None and text.strip().lower() not in ("", "0", "false")
