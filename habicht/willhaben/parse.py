"""A willhaben search result page → its listings.

The data sits in `<script id="__NEXT_DATA__" type="application/json">` under
`props.pageProps.searchResult`. The page is a few hundred kB of markup around it (over a MB
at 200 adverts), so the fast path finds the tag by plain string search in the page's UTF-8
bytes and hands only its text to a typed `msgspec` decoder. When the fast path finds no tag
(attributes in an unusual form: an entity in the id, an upper-case end tag), one pass over
the page's script tags finds it as an HTML parser would (`_span_by_tags`); there is no full
HTML parse, which cost a 6.25 MB page without the data 14.5 s and 433 MB (issue 35).

Nothing a page says can make reading it slow or large (issue 35; the client caps the page's
size, `habicht.willhaben.fetch`): finding the script is linear in the page, whatever it holds,
and the decoder builds at most about one object per `{`, `[` or `,` of the script — members
it does not read are skipped unbuilt, and members read as a scalar (a title, a vertical) stay
undecoded (`Raw`) until read, so a value nested a thousand deep where a title belongs costs
nothing. A script with more than `MAX_TOKENS` of those, or a page with more than
`MAX_ENTRIES` adverts, is a `LayoutError` before anything is built.

A page without the data is never read as "no listings": it is `Blocked` when it says the IP
is blocked, otherwise a `LayoutError`. `rowsFound: 0` is a valid empty result.

The decoder's schema (`NextData` down to `_Attribute`) names only what habicht reads, so
everything else — navigators, tracking, recommended adverts, even keys of the same name in
other objects — is skipped unbuilt, and `rowsFound` and `advertSummaryList` count only as
direct members of `searchResult` (of a key repeated there, the last value, as JSON means
it). It type-checks every value before use: an advert entry of
an unknown shape (attributes that are not an object, an id that is not a string or integer,
a status without an id string) makes the whole page a `LayoutError`, whose message says
where, rather than being skipped. Skipping would be unsafe: the skipped advert would be
missing from what a watch records, and the day it parsed again it would be sent as "new".
An entry without any id is not an advert (willhaben interleaves other items) and is left out.
The `children` of an entry (other units of the same building project, without `PRICE` or
`PUBLISHED`) are not adverts of the search either: only the entry itself is a listing. A
building project's (`adTypeId` 16) are read as its units (`Estate.units`, `_units`), which
decide whether a flat search lists it (`willhaben.estate`); a unit entry of an unknown shape is
left out (one unit fewer can only make a local match rarer), and so is every unit after the
first `MAX_UNITS`. The saved page's entries with `children` are flats of their own
(`adTypeId` 2, with every attribute a flat has): their `children` are siblings, not what the
entry is listed by, and are not read.

A real-estate advert also carries what it says of itself (`Listing.estate`, `_estate`): the
attributes a real-estate search's parameters are decided by
(`../shared/fixtures/willhaben/REALESTATE.md`), and whether it is the paid placement willhaben
shows on top of every filtered page. The placement may be on the page twice, once paid and
once where it belongs: the advert's own entry is the listing then, at its own place, and
`SearchPage.placements` counts the paid entries (`rowsFound` counts them too).

Ids and links are bounded here (texts are shortened where they are rendered): an id longer
than `MAX_ID` is an unknown shape (`LayoutError`), and a link longer than `MAX_URL` is replaced
by the advert's short `object?adId=` link, so no page can make a message or a dedupe key grow
without limit.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Generic, TypeVar
from urllib.parse import parse_qsl

import msgspec

from habicht.digits import ascii_digits, whole_number
from habicht.model import ESTATE_PROJECT, Estate, EstateUnit, Listing
from habicht.willhaben.errors import Blocked, LayoutError
from habicht.willhaben.estate import placed
from habicht.willhaben.estate_terms import room_bucket
from habicht.willhaben.urls import PAGE_ROWS

__all__ = [
    "MAX_ENTRIES",
    "MAX_TOKENS",
    "MAX_UNITS",
    "RESERVED",
    "AdvertStatus",
    "Attributes",
    "NextData",
    "SearchPage",
    "advert_id",
    "attribute_map",
    "decode_next_data",
    "listing_price",
    "listing_title",
    "next_data_script",
    "next_data_span",
    "parse_search_page",
    "price_display",
]

AD_BASE = "https://www.willhaben.at/iad/"
IMAGE_BASE = "https://cache.willhaben.at/mmo/"
_MARKER = b"__NEXT_DATA__"
_TAG_REACH = 4096
"""Bytes an opening `<script …>` tag may span: real ones have under 100; a longer one is not
read as a tag, so that no search for its end can run through the page."""
_OPEN_TAG = re.compile(
    rb"<script\b[^<>]{0,%d}\bid\s*=\s*[\"']?__NEXT_DATA__[\"'\s>]" % _TAG_REACH, re.IGNORECASE
)
_SCRIPT_OPEN = re.compile(rb"<script(?=[\s/>])", re.IGNORECASE)
_SCRIPT_CLOSE = re.compile(rb"</\s*script\s*>", re.IGNORECASE)
"""The end of a script's text as Python's HTML parser finds it (any case, spaces inside)."""
_ATTRIBUTE = re.compile(rb"""([^\s/>=][^\s/>=]*)(?:\s*=+\s*('[^']*'|"[^"]*"|(?!['"])[^\s>]*))?""")
_PRICE = re.compile(r"[0-9]{1,12}(?:\.[0-9]{1,4})?")
_COORDINATE = re.compile(r"-?[0-9]{1,3}(?:\.[0-9]{1,12})?")
_END_TAG = b"</script>"
_NOT_TOKENS = bytes(byte for byte in range(256) if byte not in b"{[,")
_COUNTED = 256 * 1024
_BLOCK_MARKERS = (b"IP-Adresse wurde blockiert", b"Zugriff verweigert", b"Access denied")
RESERVED = "reserved"
"""`advertStatus.id` of a reserved advert (as "active" is of an active one)."""
_RESERVED_PREFIX = "(reserviert) "
_SELLERS = {"1": True, "0": False}
_ESTATE_VERTICAL = 2
"""`verticalId` of real estate: every advert of the saved real-estate page carries 2, every
advert of the saved marketplace page 5 (and `searchResult.verticalId` says the same)."""
_ROOMS = re.compile(r"[0-9]{1,2}X[0-9]{0,2}")
"""A rooms bucket as `ROOMS` writes it: "2X2", "6X9", "10X", "0X0"."""
_PLACEMENT = "pp"
"""`REFERER` of a paid placement, and its `selfLink`'s `referer` in 2025."""
_SHOWN_PRICE = re.compile(r"€ ([0-9]{1,3}(?:\.[0-9]{3}){0,3})(?:,([0-9]{2}))?")
"""`PRICE_FOR_DISPLAY` of one price, German separators: "€ 1.149", "€ 1.038,82" — not
"ab € 213.000" nor "Preis auf Anfrage"."""
MAX_UNITS = 100
"""A building project's units read at most: the matching of a feed read tries each against
the searches that may list the project, so a page must not make that unbounded (the saved
page's entries list 6 of up to 63)."""
MAX_ID = 40
"""Characters an advert id may have (real ids have 9 or 10 digits)."""
MAX_URL = 500
"""Characters an advert link may have before the short `object?adId=` link replaces it."""
MAX_TOKENS = 500_000
"""`{`, `[` and `,` a `__NEXT_DATA__` script may hold: an upper bound on the objects its
decoding builds (about one for each), so on its time and memory. Real scripts hold one per
22 to 24 bytes (`benchmarks/parse.py`'s pages): 46,000 for 200 marketplace adverts, 92,000
for 200 flats, so 500,000 is 5 times the largest real page, and about what a real page would
hold at the client's size cap (8 MiB). The costliest scripts within the bound (a quarter of a
million adverts with only an id; one attribute with 166,000 values) take ≈ 30 ms in the
decoder's one C call, which holds the GIL, and 35 to 41 MB (`benchmarks/stall.py`); at the
size cap, without the bound, a script of empty lists built 2.8 million objects: 230 MB and,
with the garbage collector walking them, up to a second holding the GIL."""
MAX_ENTRIES = 5 * PAGE_ROWS
"""`advertSummary` entries a search page may list: willhaben sends at most `PAGE_ROWS` (200)
adverts a page, and a paid placement or two beside them; a list five times that long is no
page we know, and its adverts would only flood a watch."""


@dataclass(frozen=True, slots=True)
class SearchPage:
    """The listings of one result page, in page order, and how many the search has in all.

    `placements` counts the page's paid-placement entries (module docstring), also those whose
    advert `listings` holds by its own entry instead: what `rowsFound` counts beside the
    search's own adverts."""

    listings: list[Listing]
    rows_found: int
    placements: int = 0


# The decoder's schema: only the members habicht reads, named as the page names them
# (`rename="camel"`). `gc=False`: decoded JSON holds no reference cycles, and 200 adverts of
# ~27 attributes each are thousands of objects the garbage collector need not track.
_NotAnObject = str | int | float | bool | list[msgspec.Raw] | None
"""Every JSON value but an object, a list's items left undecoded: an attribute entry of that
shape is skipped, not fatal, and costs one object however deep it is."""
_NULL = msgspec.Raw(b"null")


class _Attribute(msgspec.Struct, frozen=True, gc=False):
    """An `attributes.attribute[]` entry. Its `values` stay undecoded JSON (`Raw`, a view of
    the page) until one is read: habicht reads about 11 of an advert's ~27 attributes, and
    the rest (image lists, description texts) would only be decoded to be thrown away."""

    name: str | int | float | bool | None = None
    values: msgspec.Raw = _NULL


class Attributes(msgspec.Struct, frozen=True, gc=False):
    """`attributes`, as search pages and an advert's own page (`habicht.willhaben.advert`) carry
    them; read through `attribute_map`."""

    attribute: list[_Attribute | _NotAnObject] | None = None


class AdvertStatus(msgspec.Struct, frozen=True, gc=False):
    """`advertStatus`, on search pages and advert pages: a status without an id string is a
    `LayoutError` — guessing "active" could announce a reserved advert, guessing "reserved"
    could hide a new one."""

    id: str


class _Summary(msgspec.Struct, frozen=True, gc=False, rename="camel"):
    """An `advertSummary` entry; an id may be a string or an integer (never a bool). The
    members read as one scalar stay undecoded until read (`_text_of`, `_whole`)."""

    id: str | int | None = None
    description: msgspec.Raw = _NULL
    advert_status: AdvertStatus | None = None
    attributes: Attributes | None = None
    vertical_id: msgspec.Raw = _NULL
    ad_type_id: msgspec.Raw = _NULL
    self_link: msgspec.Raw = _NULL
    children: msgspec.Raw = _NULL
    """Left undecoded: read only for a building project (`_units`)."""


class _Unit(msgspec.Struct, frozen=True, gc=False, rename="camel"):
    """A `children` entry: a building project's unit, read as `_units` says."""

    ad_type_id: msgspec.Raw = _NULL
    attributes: Attributes | None = None


class _SummaryList(msgspec.Struct, frozen=True, gc=False, rename="camel"):
    advert_summary: list[_Summary] | None = None


class _SearchResult(msgspec.Struct, frozen=True, gc=False, rename="camel"):
    rows_found: int
    advert_summary_list: _SummaryList | None = None
    vertical_id: msgspec.Raw = _NULL


class _PageProps(msgspec.Struct, frozen=True, gc=False, rename="camel"):
    search_result: _SearchResult


_P = TypeVar("_P")


class _Props(msgspec.Struct, Generic[_P], frozen=True, gc=False, rename="camel"):
    page_props: _P


class NextData(msgspec.Struct, Generic[_P], frozen=True, gc=False):
    """`__NEXT_DATA__` down to `props.pageProps`, of the schema `_P`: a search page's here,
    an advert page's in `habicht.willhaben.advert` (read by `decode_next_data`)."""

    props: _Props[_P]


_DECODER = msgspec.json.Decoder(NextData[_PageProps])
_Shallow = str | int | float | bool | list[msgspec.Raw] | dict[str, msgspec.Raw] | None
_VALUES = msgspec.json.Decoder(list[_Shallow])
"""An attribute's `values`: a list, each value one object, whatever it holds."""
_TEXT = msgspec.json.Decoder(str)
_WHOLE = msgspec.json.Decoder(int | str)
_CHILDREN = msgspec.json.Decoder(list[msgspec.Raw] | None)
_UNIT = msgspec.json.Decoder(_Unit)
_V = TypeVar("_V")


def parse_search_page(page: bytes | str) -> SearchPage:
    """The listings of a search result page; `LayoutError`/`Blocked` if it has no data.

    `page` is best the body as it came (UTF-8 bytes, as willhaben sends them): text is encoded
    first, and at 200 adverts decoding a page into text and back costs as much as the parse.
    """
    props = decode_next_data(next_data_script(page), _DECODER, what="a search result")
    return _search_page(props.search_result)


def next_data_script(page: bytes | str) -> bytes | memoryview:
    """The text of a willhaben page's `__NEXT_DATA__` script (a search page's or an advert's
    own page's); `Blocked` for the block page, `LayoutError` for any other page without it
    and for a script of more than `MAX_TOKENS` (`_count_tokens`)."""
    if isinstance(page, str):
        page = page.encode("utf-8", "replace")
    span = next_data_span(page) or _span_by_tags(page)
    if span is None:
        if any(marker in page for marker in _BLOCK_MARKERS):
            raise Blocked("willhaben answered with its block page")
        raise LayoutError("the page has no __NEXT_DATA__ script")
    start, end = span
    tokens = _count_tokens(page, start, end)
    if tokens > MAX_TOKENS:
        raise LayoutError(
            f"__NEXT_DATA__ holds more than {MAX_TOKENS:,} JSON values, more than any "
            "willhaben page comes near; not decoded"
        )
    return memoryview(page)[start:end]


def _count_tokens(page: bytes, start: int, end: int) -> int:
    """The `{`, `[` and `,` in `page[start:end]`, counted only as far as needed: a script
    shorter than `MAX_TOKENS` bytes cannot hold more, so real pages of up to 500 kB are not
    counted at all, and counting stops past `MAX_TOKENS`. One pass that deletes every other
    byte (0.6 ms a MB; three `count`s take twice that), a slice of `_COUNTED` bytes at a time
    so that the copies stay small."""
    tokens = 0
    if end - start > MAX_TOKENS:
        for at in range(start, end, _COUNTED):
            tokens += len(page[at : min(at + _COUNTED, end)].translate(None, _NOT_TOKENS))
            if tokens > MAX_TOKENS:
                break
    return tokens


def decode_next_data(
    script: bytes | memoryview, decoder: msgspec.json.Decoder[NextData[_P]], *, what: str
) -> _P:
    """The script's `props.pageProps` by `decoder`'s schema; `LayoutError` if it is no JSON or
    not of the schema's shape ("__NEXT_DATA__ is not <what>").

    Invalid UTF-8 is replaced, as decoding the page into text would have done, and the
    script decoded again: one bad byte in some title must not make the whole page unreadable.
    """
    try:
        return decoder.decode(script).props.page_props
    except msgspec.ValidationError as exc:
        raise LayoutError(f"__NEXT_DATA__ is not {what}: {exc}") from exc
    except (msgspec.DecodeError, RecursionError) as exc:
        repaired = bytes(script).decode("utf-8", "replace").encode()
        if repaired == script:
            raise LayoutError(f"__NEXT_DATA__ is not valid JSON: {exc}") from exc
        return decode_next_data(repaired, decoder, what=what)


def next_data_span(page: bytes) -> tuple[int, int] | None:
    """Where the `__NEXT_DATA__` script's text is, by string search alone; None if unsure.

    The end is the first `</script>`, found through the first "<" after the tag: a single
    byte is searched for many times faster than the whole end tag, and the script itself
    normally has none (Next.js writes "<" in it as `\\u003c`).

    Each "<" before a marker is tried as the tag's start once, and looked for only back to
    the marker before (anything further back was seen from there) and `_TAG_REACH` bytes: a
    page of nothing but markers costs one pass, not one pass for each (it cost 22 s for
    16,000 markers in 224 kB before issue 35).
    """
    start = page.find(_MARKER)
    seen = 0
    while start != -1:
        tag_start = page.rfind(b"<", max(seen, start - _TAG_REACH), start)
        seen = start
        match = _OPEN_TAG.match(page, tag_start) if tag_start != -1 else None
        if match is not None:
            body_start = page.find(b">", match.end() - 1) + 1
            body_end = page.find(b"<", body_start)
            while body_end != -1 and not page.startswith(_END_TAG, body_end):
                body_end = page.find(b"<", body_end + 1)
            return (body_start, body_end) if body_end != -1 else None
        start = page.find(_MARKER, start + len(_MARKER))
    return None


def _span_by_tags(page: bytes) -> tuple[int, int] | None:
    """Where the `__NEXT_DATA__` script's text is as an HTML parser would find it, for markup
    the fast path does not know; None if no script tag has that id.

    One pass from script tag to script tag, each skipped to its end tag as a parser skips a
    script's text: the tag name and end tag in any case, the `id` attribute quoted or not,
    with character references (`&#95;_NEXT_DATA__`), the last of two winning — what
    BeautifulSoup found when it was the fallback (its tests compare the two). Unlike it, a
    tag longer than `_TAG_REACH` or with a ">" inside a quoted value is not read.
    """
    at = 0
    while (opening := _SCRIPT_OPEN.search(page, at)) is not None:
        tag_end = page.find(b">", opening.end(), opening.end() + _TAG_REACH)
        if tag_end == -1:
            at = opening.end()
            continue
        closing = _SCRIPT_CLOSE.search(page, tag_end + 1)
        if closing is None:
            return None  # an unclosed script's text runs to the end: there is no other tag
        if _is_next_data(page[opening.end() : tag_end]):
            return tag_end + 1, closing.start()
        at = closing.end()
    return None


def _is_next_data(attributes: bytes) -> bool:
    """Whether a script tag's attributes give it the id `__NEXT_DATA__`."""
    found = None
    for match in _ATTRIBUTE.finditer(attributes):
        if match.group(1).lower() == b"id":
            value = match.group(2) or b""
            if value[:1] in (b"'", b'"'):
                value = value[1:-1]
            found = html.unescape(value.decode("utf-8", "replace"))
    return found == "__NEXT_DATA__"


def _search_page(result: _SearchResult) -> SearchPage:
    """A decoded `searchResult` as a SearchPage, or `LayoutError` if it lists no adverts."""
    advert_list = result.advert_summary_list
    summaries = advert_list.advert_summary if advert_list is not None else None
    if summaries is None and result.rows_found == 0:
        summaries = []
    if summaries is None:
        raise LayoutError("no advertSummaryList.advertSummary list in searchResult")
    if len(summaries) > MAX_ENTRIES:
        raise LayoutError(
            f"searchResult lists {len(summaries):,} entries; a willhaben page holds at most "
            f"{PAGE_ROWS} adverts, so more than {MAX_ENTRIES:,} is no page we know"
        )
    listings: dict[str, Listing] = {}
    placements = 0
    vertical = _whole(result.vertical_id)
    for summary in summaries:
        listing = _listing(summary, vertical)
        if listing is None:
            continue
        paid = placed(listing)
        placements += paid
        kept = listings.get(listing.id)
        if kept is None:
            listings[listing.id] = listing
        elif placed(kept) and not paid:  # its own entry, at its own place
            del listings[listing.id]
            listings[listing.id] = listing
    if summaries and not listings:
        raise LayoutError(f"none of the {len(summaries)} adverts has an id")
    return SearchPage(list(listings.values()), result.rows_found, placements)


def _listing(summary: _Summary, vertical: int | None) -> Listing | None:
    """One advertSummary as a Listing; None for an entry without an id (not an advert).
    `vertical` is the page's `verticalId`, for an advert that does not say its own."""
    ad_id = advert_id(summary.id)
    if ad_id is None:
        return None
    attributes = attribute_map(summary.attributes)
    seo_url = _value(attributes, "SEO_URL")
    image = _value(attributes, "MMO")
    reserved = summary.advert_status is not None and summary.advert_status.id == RESERVED
    title = listing_title(summary.description, reserved=reserved)
    url = AD_BASE + seo_url.lstrip("/") if seo_url else ""
    return Listing(
        id=ad_id,
        title=(title or _value(attributes, "HEADING") or "").strip(),
        price=listing_price(attributes),
        price_display=price_display(attributes),
        location=_value(attributes, "LOCATION"),
        postcode=_value(attributes, "POSTCODE"),
        url=url if url and len(url) <= MAX_URL else f"{AD_BASE}object?adId={ad_id}",
        image_url=IMAGE_BASE + image.lstrip("/") if image else None,
        published_at=_epoch_ms(_value(attributes, "PUBLISHED")),
        bumped=_flag(_value(attributes, "IS_BUMPED"))
        or _flag(_value(attributes, "UPSELLING_AD_SEARCHRESULT")),
        reserved=reserved,
        body=_value(attributes, "BODY_DYN"),
        is_private=_seller(_value(attributes, "ISPRIVATE")),
        category_ids=_categories(_value(attributes, "categorytreeids")),
        coordinates=_coordinates(_value(attributes, "COORDINATES")),
        seller_id=_seller_id(_value(attributes, "ORGID")),
        estate=_estate(summary, attributes, vertical),
    )


def _estate(
    summary: _Summary, attributes: dict[object, Any], vertical: int | None
) -> Estate | None:
    """What a real-estate advert says of itself; None for any other advert.

    An advert is real estate when its `verticalId` is 2 (`_ESTATE_VERTICAL`), or, when it
    carries none, the page's is: that is what the saved pages prove — not the attributes,
    whose names (`STATE`, `ADTYPE_ID`, `ISPRIVATE`) marketplace adverts carry too, nor the
    path, which a parser does not see. Every value the page writes otherwise than the saved
    page does reads as not said (None, or no ids): a search bound on it then never matches
    locally (`willhaben.estate`), and nothing is ruled out by it.
    """
    own = _whole(summary.vertical_id)
    if (own if own is not None else vertical) != _ESTATE_VERTICAL:
        return None
    ad_type = _ad_type(_whole(summary.ad_type_id), _whole(_value(attributes, "ADTYPE_ID")))
    return Estate(
        ad_type=ad_type,
        state=(_value(attributes, "STATE") or "").strip() or None,
        location_id=_digits(_value(attributes, "LOCATION_ID")),
        living_area=_whole(_value(attributes, "ESTATE_SIZE/LIVING_AREA")),
        rooms=_rooms(_value(attributes, "ROOMS")),
        property_type=_digits(_value(attributes, "PROPERTY_TYPE_ID")),
        free_areas=_ids(_value(attributes, "FREE_AREA_TYPE")),
        features=_ids(_value(attributes, "ESTATE_PREFERENCE")),
        placement=_placement(_value(attributes, "REFERER"), _text_of(summary.self_link)),
        units=_units(summary.children) if ad_type == ESTATE_PROJECT else (),
    )


def _units(children: msgspec.Raw) -> tuple[EstateUnit, ...]:
    """A building project's `children` as its units, the first `MAX_UNITS`; an entry of an
    unknown shape is left out (module docstring).

    A unit says its category by its own `adTypeId`, its size by `ESTATE_SIZE/LIVING_AREA`,
    its rooms only by `NUMBER_OF_ROOMS` (the bucket by `room_bucket`) and its price only by
    `PRICE_FOR_DISPLAY` (`_shown_price`; a `PRICE`, which no saved unit carries, wins).
    """
    entries = _decoded(children, _CHILDREN) or ()
    units = []
    for entry in entries[:MAX_UNITS]:
        unit = _decoded(entry, _UNIT)
        if unit is None:
            continue
        attributes = attribute_map(unit.attributes)
        rooms = _whole(_value(attributes, "NUMBER_OF_ROOMS"))
        price = listing_price(attributes)
        units.append(
            EstateUnit(
                ad_type=_whole(unit.ad_type_id),
                price=_shown_price(price_display(attributes)) if price is None else price,
                living_area=_whole(_value(attributes, "ESTATE_SIZE/LIVING_AREA")),
                rooms=None if rooms is None else room_bucket(rooms),
            )
        )
    return tuple(units)


def _shown_price(text: str | None) -> Decimal | None:
    """A price as `PRICE_FOR_DISPLAY` shows one ("€ 1.149" → 1149, "€ 1.038,82" → 1038.82);
    None for anything else. The saved page shows every advert's `PRICE` so (30 of 30)."""
    match = _SHOWN_PRICE.fullmatch((text or "").strip())
    if match is None:
        return None
    euros, cents = match.groups()
    return Decimal(euros.replace(".", "") + (f".{cents}" if cents else ""))


def _whole(member: msgspec.Raw | str | None) -> int | None:
    """A JSON integer or a string of ASCII digits as a number; None for anything else (a bool,
    a fraction "45.5", a sign, text). A member still undecoded is decoded here, as a number
    or text only (`_decoded`)."""
    value = _decoded(member, _WHOLE) if isinstance(member, msgspec.Raw) else member
    if type(value) is int:
        return value if 0 <= value < 10**15 else None
    return whole_number(value.strip(), max_digits=15) if isinstance(value, str) else None


def _ad_type(member: int | None, attribute: int | None) -> int | None:
    """`adTypeId` and the `ADTYPE_ID` attribute, which say the same on the saved page; where
    they disagree the advert's kind is not known."""
    if member is not None and attribute is not None and member != attribute:
        return None
    return member if member is not None else attribute


def _digits(text: str | None) -> str | None:
    """An id as written ("117224", "3"); None unless ASCII digits (bounded like an advert id)."""
    text = (text or "").strip()
    return text if len(text) <= MAX_ID and ascii_digits(text) else None


def _rooms(text: str | None) -> str | None:
    """`ROOMS` as its bucket ("2X2"); None for anything else."""
    text = (text or "").strip()
    return text if _ROOMS.fullmatch(text) else None


def _ids(text: str | None) -> frozenset[str]:
    """Ids joined by ", " ("10, 30") as a set; parts that are no id are left out."""
    parts = (part.strip() for part in (text or "").split(","))
    return frozenset(part for part in parts if len(part) <= MAX_ID and ascii_digits(part))


def _placement(referer: str | None, self_link: str | None) -> bool:
    """A paid placement: `REFERER` "pp", or (in 2025) a `selfLink` whose `referer` is "pp"."""
    if (referer or "").strip().lower() == _PLACEMENT:
        return True
    if not isinstance(self_link, str) or "referer" not in self_link:
        return False
    query = self_link.partition("#")[0].partition("?")[2]
    return any(key == "referer" and value == _PLACEMENT for key, value in parse_qsl(query))


def advert_id(raw: str | int | None) -> str | None:
    """An advert's `id` as text; None for none (an entry that is no advert), `LayoutError` for
    one longer than `MAX_ID`."""
    if raw is None or raw == "":
        return None
    ad_id = str(raw)
    if len(ad_id) > MAX_ID:
        raise LayoutError(f"an advert id is longer than {MAX_ID} characters: {ad_id[:MAX_ID]}…")
    return ad_id


def listing_title(description: msgspec.Raw, *, reserved: bool) -> str | None:
    """An advert's `description` as its title, without the "(reserviert) " a reserved advert's
    carries; None unless it is a non-empty string."""
    title = _text_of(description) or None
    if reserved and title is not None:
        title = title.removeprefix(_RESERVED_PREFIX)
    return title


def listing_price(attributes: dict[object, Any]) -> Decimal | None:
    """The price of an `attribute_map`: `PRICE`, else `PRICE/AMOUNT`; None without a plain
    number (`_decimal`)."""
    return _decimal(_value(attributes, "PRICE") or _value(attributes, "PRICE/AMOUNT"))


def price_display(attributes: dict[object, Any]) -> str | None:
    """The price as the page shows it (`PRICE_FOR_DISPLAY`: "€ 120", "VB") of an
    `attribute_map`."""
    return _value(attributes, "PRICE_FOR_DISPLAY")


def _text_of(raw: msgspec.Raw) -> str | None:
    """An undecoded member as text; None unless it is a string (a list, however long or deep,
    is refused at its first byte, never built)."""
    return _decoded(raw, _TEXT)


def _decoded(raw: msgspec.Raw, decoder: msgspec.json.Decoder[_V]) -> _V | None:
    """`raw` by `decoder`; None if it is not of the decoder's type. Invalid UTF-8 reads as
    U+FFFD, as in `decode_next_data`: the members skipped at the first decoding were not
    checked for it."""
    try:
        return decoder.decode(raw)
    except msgspec.ValidationError:
        return None
    except msgspec.DecodeError:
        repaired = bytes(raw).decode("utf-8", "replace").encode()
        if repaired == bytes(raw):
            return None
        return _decoded(msgspec.Raw(repaired), decoder)


def attribute_map(container: Attributes | None) -> dict[object, Any]:
    """`attributes.attribute[]` as name → raw values, the first entry of a name winning.

    An entry that is not an object is an attribute we do not know and is skipped, as is one
    whose first value is not a string (`_value`): every attribute we read is a string on the
    real page. (`__class__ is`, not `isinstance`: this runs for every entry of the page.)
    """
    entries = container.attribute if container is not None else None
    if not entries:
        return {}
    return {e.name: e.values for e in reversed(entries) if e.__class__ is _Attribute}


def _value(attributes: dict[object, Any], name: str) -> str | None:
    """The first value of attribute `name`; None if it has none or it is not a string.

    `values` of any shape decode here (a list of objects, `[null]`, not a list at all) and
    read as absent, like an attribute the advert does not have.
    """
    raw = attributes.get(name)
    values = _decoded(raw, _VALUES) if raw is not None else None
    first = values[0] if values else None
    return first if first.__class__ is str else None


def _categories(text: str | None) -> tuple[str, ...]:
    """`categorytreeids` "5824;5878;5882" as its ids; anything not an id is left out."""
    if not text:
        return ()
    return tuple(part for part in text.split(";") if ascii_digits(part))


def _coordinates(text: str | None) -> tuple[float, float] | None:
    """`COORDINATES` "48.38488,16.20766" as (latitude, longitude); None unless both are plain
    decimal numbers within their ranges (a "0,0" placeholder says nothing either)."""
    parts = (text or "").split(",")
    if len(parts) != 2 or not all(_COORDINATE.fullmatch(part.strip()) for part in parts):
        return None
    lat, lon = (float(part) for part in parts)
    if not (-90 <= lat <= 90 and -180 <= lon <= 180) or lat == lon == 0:
        return None
    return lat, lon


def _seller_id(text: str | None) -> str | None:
    """`ORGID` as it is, if it is a plausible id (bounded like an advert id)."""
    text = (text or "").strip()
    return text if text and len(text) <= MAX_ID else None


def _seller(value: str | None) -> bool | None:
    """`ISPRIVATE` "1" (a private person) or "0" (a company); anything else is not known."""
    return _SELLERS.get(value or "")


def _epoch_ms(text: str | None) -> float | None:
    """`PUBLISHED` (epoch milliseconds) as epoch seconds; None unless plain ASCII digits."""
    millis = None if text is None else whole_number(text, max_digits=15)
    return None if millis is None else millis / 1000


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
