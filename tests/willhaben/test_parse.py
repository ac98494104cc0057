"""Parsing search pages: the real fixture, built pages, and pages that must not parse."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from decimal import Decimal

import pytest
from bs4 import BeautifulSoup  # what the tag scan must agree with
from conftest import FIXTURES
from kit.outsized import FLATS_PAGE as GROWN_FLATS
from kit.outsized import MIB, grown_page, page_without_data, traced

from habicht.fakes import FakeAdvert, render_block_page, render_search_page
from habicht.model import Estate, EstateUnit, Listing
from habicht.willhaben.errors import Blocked, LayoutError
from habicht.willhaben.fetch import MAX_PAGE_BYTES
from habicht.willhaben.parse import (
    MAX_UNITS,
    next_data_script,
    next_data_span,  # to prove which path a page takes
    parse_search_page,
)

REAL_PAGE = (FIXTURES / "search-marketplace-grafikkarten.html").read_text(encoding="utf-8")
FLATS_PAGE = (FIXTURES / "search-immobilien-mietwohnungen-wien.html").read_text(encoding="utf-8")


def test_the_real_page_parses_to_its_25_listings() -> None:
    """The saved willhaben page yields its 25 adverts in page order, with rowsFound 838."""
    page = parse_search_page(REAL_PAGE)
    assert page.rows_found == 838
    assert len(page.listings) == 25
    assert [listing.id for listing in page.listings[:3]] == ["528603014", "528613062", "528641658"]
    assert page.listings[0] == Listing(
        id="528603014",
        title="Gtx 760",
        price=Decimal(120),
        price_display="€ 120",
        location="Stockerau",
        postcode="2000",
        url="https://www.willhaben.at/iad/kaufen-und-verkaufen/d/gtx-760-528603014/",
        image_url="https://cache.willhaben.at/mmo/4/528/603/014_-437128259.jpg",
        published_at=1640035260.0,
        bumped=False,
        body="Verkaufe meine Ersatzkarte da ich upgrade.",
        is_private=True,
        category_ids=("5824", "5878", "5882"),
        coordinates=(48.38488, 16.20766),
        seller_id="28492099",
    )
    last = page.listings[-1]
    assert (last.id, last.title, last.price) == (
        "528567636",
        "EVGA Geforce GTX 970 SSC (4GB VRAM)",
        Decimal(175),
    )
    assert last.url.endswith(
        "/iad/kaufen-und-verkaufen/d/evga-geforce-gtx-970-ssc-4gb-vram-528567636/"
    )
    assert all(listing.url.endswith(f"-{listing.id}/") for listing in page.listings)
    assert all(listing.price is not None for listing in page.listings)
    assert [int(listing.price or 0) for listing in page.listings] == [
        120, 450, 611, 550, 750, 640, 150, 250, 400, 849, 442, 600, 599,
        900, 740, 540, 650, 470, 600, 150, 600, 400, 460, 849, 175,
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("48.2264562,16.3954451", (48.2264562, 16.3954451)),
        (" 47.1 , 15.4 ", (47.1, 15.4)),
        ("0,0", None),  # a placeholder, not a place in the Gulf of Guinea
        ("91.0,16.3", None),
        ("48.2", None),
        ("48.2,16.3,1", None),
        ("48,2;16,3", None),
        ("1e3,16.3", None),
        ("nan,16.3", None),
        ("", None),
    ],
)
def test_coordinates_are_read_only_when_they_are_a_place(
    text: str, expected: tuple[float, float] | None
) -> None:
    """Issue 21: `COORDINATES` gives where an advert is; anything but two plain numbers in
    range reads as not known, never as an error or a wrong place."""
    page = render_search_page([FakeAdvert("1", "Sofa", coordinates=None)])
    attribute = f'{{"name":"COORDINATES","values":["{text}"]}},{{"name":"ORGID"'
    page = page.replace('{"name":"ORGID"', attribute)
    assert parse_search_page(page).listings[0].coordinates == expected


def test_the_seller_is_read_from_orgid() -> None:
    """Issue 21: `ORGID` names the seller (private sellers have one too)."""
    page = render_search_page(
        [FakeAdvert("1", "Sofa", seller="28492099"), FakeAdvert("2", "Tisch")]
    )
    first, second = parse_search_page(page).listings
    assert first.seller_id == "28492099"
    assert second.seller_id is not None
    assert second.seller_id != first.seller_id


def test_the_real_2026_page_parses_completely_with_its_reserved_and_bumped_adverts() -> None:
    """Issue 9: the rental-flats page of 2026 yields its 30 adverts (building projects'
    `children` are not adverts of the search), rowsFound 4864, advert 1622906706 reserved with
    its plain title, 20 bumped, and every id, price and link as the page has them."""
    page = parse_search_page(FLATS_PAGE)
    assert (page.rows_found, len(page.listings)) == (4864, 30)
    first = page.listings[0]
    assert (first.body or "").startswith("Traumhafte Loftwohnung beim Rudolf Bednar Park")
    assert replace(first, body=None) == Listing(
        id="978586977",
        title="Exklusives Loft - Wo Design und Einzigartigkeit verschmelzen",
        price=Decimal(3500),
        price_display="€ 3.500",
        location="Wien, 02. Bezirk, Leopoldstadt",
        postcode="1020",
        url="https://www.willhaben.at/iad/immobilien/d/mietwohnungen/wien/wien-1020-leopoldstadt/"
        "exklusives-loft-wo-design-und-einzigartigkeit-verschmelzen-978586977/",
        image_url="https://cache.willhaben.at/mmo/7/978/586/977_-1754364430.jpg",
        published_at=1787407800.0,
        bumped=True,
        reserved=False,
        is_private=False,
        category_ids=("7276",),
        coordinates=(48.2264562, 16.3954451),
        seller_id="1002828",
        estate=Estate(
            ad_type=2,
            state="Wien",
            location_id="117224",
            living_area=153,
            rooms="2X2",
            property_type="3",
            free_areas=frozenset({"30"}),
            features=frozenset({"15", "23", "24", "25", "250", "27", "28", "4"}),
        ),
    )
    assert all(listing.coordinates and listing.seller_id for listing in page.listings)
    assert sum(listing.is_private is False for listing in page.listings) == 20
    assert all(listing.body for listing in page.listings)
    reserved = [listing for listing in page.listings if listing.reserved]
    assert [(r.id, r.title, r.price) for r in reserved] == [
        ("1622906706", "Helle 3 Zimmer Wohnung nahe Friedensbrücke", Decimal(1099))
    ]
    assert sum(listing.bumped for listing in page.listings) == 20
    assert "924517760" not in {listing.id for listing in page.listings}  # a child unit
    assert all(listing.url.endswith(f"-{listing.id}/") for listing in page.listings)
    assert all(listing.price is not None for listing in page.listings)
    assert Decimal("1038.82") in {listing.price for listing in page.listings}


def test_built_pages_round_trip_prices_titles_and_flags() -> None:
    """Price-less, decimal-priced, bumped and oddly titled adverts keep what makes them."""
    adverts = [
        FakeAdvert("1", 'Sofa <gratis> & "gut"', None),
        FakeAdvert("2", "Tisch", Decimal("676.22"), bumped=True, published_ms=1_600_000_000_500),
        FakeAdvert("3", "Haus", None, price_display="auf Anfrage"),
    ]
    page = parse_search_page(render_search_page(adverts, rows_found=3))
    sofa, tisch, haus = page.listings
    assert (sofa.title, sofa.price, sofa.price_display) == (
        'Sofa <gratis> & "gut"',
        None,
        "zu verschenken",
    )
    assert (tisch.price, tisch.bumped, tisch.published_at) == (
        Decimal("676.22"),
        True,
        1_600_000_000.5,
    )
    assert (haus.price, haus.price_display, haus.bumped) == (None, "auf Anfrage", False)


def test_zero_results_is_a_valid_empty_page() -> None:
    """rowsFound 0 with no adverts is an empty result, not an error."""
    page = parse_search_page(render_search_page([]))
    assert (page.listings, page.rows_found) == ([], 0)


def test_the_block_page_is_blocked_not_empty() -> None:
    """A page saying the IP is blocked raises Blocked, never reads as no listings."""
    with pytest.raises(Blocked, match="block page"):
        parse_search_page(render_block_page())


SEARCH = "$.props.pageProps.searchResult"
ADVERT = f"{SEARCH}.advertSummaryList.advertSummary[0]"


def at(path: str) -> str:
    """The end of a LayoutError naming the JSON path where the shape is wrong."""
    return re.escape(f"- at `{path}`") + "$"


@pytest.mark.parametrize(
    ("page", "error"),
    [
        ("<html><body><h1>Wartungsarbeiten</h1></body></html>", "^the page has no __NEXT_DATA__"),
        ("", "^the page has no __NEXT_DATA__"),
        (
            render_search_page([FakeAdvert("1", "x", Decimal(1))]).replace('"rowsFound"', '"x"'),
            "missing required field `rowsFound` " + at(SEARCH),
        ),
        (
            '<script id="__NEXT_DATA__" type="application/json">{"props": {"pageProps": {}}}'
            "</script>",
            "missing required field `searchResult` " + at("$.props.pageProps"),
        ),
        (
            '<script id="__NEXT_DATA__" type="application/json">{"props": </script>',
            "^__NEXT_DATA__ is not valid JSON",
        ),
        (
            '<script id="__NEXT_DATA__" type="application/json">[1, 2]</script>',
            "Expected `object`, got `array`$",
        ),
        (
            '<script id="__NEXT_DATA__">{"props":{"pageProps":{"searchResult":'
            '{"rowsFound":"many","advertSummaryList":{"advertSummary":[]}}}}}</script>',
            at(f"{SEARCH}.rowsFound"),
        ),
        (
            '<script id="__NEXT_DATA__">{"props":{"pageProps":{"searchResult":'
            '{"rowsFound":3,"advertSummaryList":{}}}}}</script>',
            "^no advertSummaryList.advertSummary list in searchResult$",
        ),
        (
            '<script id="__NEXT_DATA__">{"props":{"pageProps":{"searchResult":'
            '{"rowsFound":3,"advertSummaryList":{"advertSummary":[{"title":"no id"}]}}}}}'
            "</script>",
            "^none of the 1 adverts has an id$",
        ),
    ],
    ids=[
        "no-data",
        "empty",
        "no-rowsFound",
        "no-searchResult",
        "broken-json",
        "not-an-object",
        "rowsFound-text",
        "no-advert-list",
        "adverts-without-ids",
    ],
)
def test_unrecognised_pages_are_layout_errors(page: str, error: str) -> None:
    """Missing or unrecognised structure raises LayoutError, never an empty result; the
    error says what is wrong and, for a shape, where."""
    with pytest.raises(LayoutError, match=error):
        parse_search_page(page)


@pytest.mark.parametrize(
    "template",
    [
        "<html><script type=application/json id='&#95;_NEXT_DATA__'>{}</script></html>",
        "<html><SCRIPT\nid='__NEXT_DATA__'>{}</SCRIPT></html>",
    ],
    ids=["entity-in-id", "upper-case-end-tag"],
)
def test_markup_the_fast_path_misses_is_found_by_the_tag_scan(template: str) -> None:
    """A script tag the string search provably does not find is still found, by the pass over
    the script tags (review of issue 3: the fallback must really run; since issue 35 it is
    that pass, not a full HTML parse)."""
    data = {"props": {"pageProps": {"searchResult": {"rowsFound": 0}}}}
    page = template.format(json.dumps(data))
    assert next_data_span(page.encode()) is None  # the fast path gives up on this page ...
    assert parse_search_page(page).rows_found == 0  # ... so the result is the tag scan's


X = '{"props":{"pageProps":{"searchResult":{"rowsFound":0}}}}'


@pytest.mark.parametrize(
    "page",
    [
        f"<script type=application/json id='&#95;_NEXT_DATA__'>{X}</script>",
        f"<SCRIPT\nid='__NEXT_DATA__'>{X}</SCRIPT>",
        f'<script id="__NEXT_DATA__">{X}</script >',
        f'<script id="&#x5f;&#x5F;NEXT&#95;DATA&#95;&#95;">{X}</Script>',
        f"<script id=&#95;_NEXT_DATA__ type=application/json>{X}</script>",
        f"<script/id='&#95;_NEXT_DATA__'>{X}</script>",
        f'<script id="x" ID="&#95;_NEXT_DATA__">{X}</script>',
        f'<script id="&#95;_NEXT_DATA__" id="x">{X}</script>',
        f'<script data-id="&#95;_NEXT_DATA__">{X}</script>',
        f"<scripts id='&#95;_NEXT_DATA__'>{X}</scripts>",
        f"<script>s = \"<script id='&#95;_NEXT_DATA__'>[1]\";</script>"
        f"<SCRIPT id='__NEXT_DATA__'>{X}</SCRIPT>",
        f"<script id='&#95;_NEXT_DATA__'>{X}",
        f"<p>__NEXT_DATA__</p><script id='&#95;_NEXT_DATA__'>{X}</SCRIPT>",
        "<html><body>Wartungsarbeiten</body></html>",
    ],
    ids=[
        "entity-in-id",
        "upper-case-end-tag",
        "space-in-end-tag",
        "id-all-references",
        "unquoted-id",
        "slash-before-id",
        "second-id-wins",
        "second-id-loses",
        "data-id",
        "other-tag",
        "tag-inside-a-script",
        "unclosed",
        "marker-in-text",
        "none",
    ],
)
def test_the_tag_scan_finds_what_an_html_parser_finds(page: str) -> None:
    """Where the fast path gives up, the script found (or none) is the one BeautifulSoup's
    HTML parse finds — what the fallback was before issue 35."""
    assert next_data_span(page.encode()) is None
    tag = BeautifulSoup(page, "html.parser").find("script", id="__NEXT_DATA__")
    if tag is None or not tag.get_text():
        with pytest.raises(LayoutError):
            parse_search_page(page)
    else:
        assert bytes(next_data_script(page)) == tag.get_text().encode()


def test_a_large_page_without_data_is_a_layout_error_at_no_great_cost() -> None:
    """Issue 35: a 6.25 MB page without `__NEXT_DATA__` is a layout error, reading it costs
    next to nothing beyond the page (the BeautifulSoup fallback took 433 MB and 14.5 s)."""
    page = page_without_data(6_250_000)
    with traced() as memory, pytest.raises(LayoutError, match=r"^the page has no __NEXT_DATA__"):
        parse_search_page(page)
    assert memory.peak < MIB


@pytest.mark.parametrize(
    "page",
    [
        b"<script " + b"__NEXT_DATA__ " * 200_000,
        b"<script " + b"x" * 100_000 + b"__NEXT_DATA__ " * 200_000,
        b"<script __NEXT_DATA__ " * 200_000,
        b"<script>" * 400_000,
        b"<script " * 400_000,
    ],
    ids=["markers-in-one-tag", "markers-beyond-reach", "a-tag-each", "scripts", "open-tags"],
)
def test_a_page_of_markers_or_tags_is_read_in_one_pass(page: bytes) -> None:
    """A page of nothing but the marker or script tags is a layout error, found in one pass:
    each "<" is tried once (16,000 markers in 224 kB took 22 s before issue 35; these pages,
    with 200,000 and more, would take hours and fail by the suite's timeout)."""
    with pytest.raises(LayoutError, match=r"^the page has no __NEXT_DATA__"):
        parse_search_page(page)


def test_a_script_of_more_values_than_any_page_is_refused_unbuilt() -> None:
    """An 8 MiB script of empty adverts (2.8 million of them) is a layout error naming the
    bound, found before anything is decoded (decoding it took 226 MB and 0.2 s holding the
    GIL before issue 35)."""
    entries = ",".join(["{}"] * (MAX_PAGE_BYTES // 3))
    page = one_advert_page({}).replace("[{}]", f"[{entries}]").encode()
    with (
        traced() as memory,
        pytest.raises(LayoutError, match=r"^__NEXT_DATA__ holds more than 500,000 JSON values"),
    ):
        parse_search_page(page)
    assert memory.peak < MIB


def test_a_real_page_at_the_size_cap_parses_whole() -> None:
    """Real flats, 800 of them, grown from the saved page to just under the client's size cap:
    within the bound on values too, every advert read (the bounds refuse no real page)."""
    page = grown_page(GROWN_FLATS, 800)
    assert MAX_PAGE_BYTES - MIB < len(page) <= MAX_PAGE_BYTES
    assert len(parse_search_page(page).listings) == 800


def test_more_adverts_than_a_page_holds_is_a_layout_error() -> None:
    """A page holds at most 200 adverts: 1,000 entries still read, 1,001 are no page we know."""
    result = {"rowsFound": 1001, "advertSummaryList": {"advertSummary": []}}
    data: dict[str, object] = {"props": {"pageProps": {"searchResult": result}}}
    for count in (1000, 1001):
        result["advertSummaryList"] = {"advertSummary": [{"id": str(n)} for n in range(count)]}
        page = f'<script id="__NEXT_DATA__">{json.dumps(data)}</script>'
        if count == 1000:
            assert len(parse_search_page(page).listings) == 1000
        else:
            with pytest.raises(LayoutError, match=r"^searchResult lists 1,001 entries; a willh"):
                parse_search_page(page)


@pytest.mark.parametrize("member", ["description", "verticalId", "adTypeId", "selfLink"])
def test_a_member_read_as_one_value_is_never_built(member: str) -> None:
    """A member habicht reads as one value (a title, a number, a link) of another shape —
    here 100,000 lists — reads as not given, and is not decoded at all (issue 35)."""
    odd = "[" + ",".join(["[]"] * 100_000) + "]"
    page = one_advert_page({"id": "1", member: 0}).replace(f'"{member}": 0', f'"{member}": {odd}')
    body = page.encode()
    with traced() as memory:
        (listing,) = parse_search_page(body).listings
    assert (listing.id, listing.title, listing.estate) == ("1", "", None)
    assert memory.peak < MIB // 4


def test_a_byte_that_is_no_utf_8_in_a_value_read_later_is_a_replacement_character() -> None:
    """Invalid UTF-8 in an attribute's value, which the first decoding skips, reads as U+FFFD
    too (it made the parse raise msgspec's error, no `LayoutError`, before issue 35)."""
    location = [{"name": "LOCATION", "values": ["Wien"]}]
    page = one_advert_page(
        {"id": "1", "description": "Sofa", "attributes": {"attribute": location}}
    )
    (listing,) = parse_search_page(page.encode().replace(b"Wien", b"Wi\xffen")).listings
    assert (listing.title, listing.location) == ("Sofa", "Wi\ufffden")


def test_an_advert_listed_twice_counts_once() -> None:
    """A bumped advert repeated further down the page appears once, at its first place."""
    advert = FakeAdvert("5", "Lampe", Decimal(10), bumped=True)
    page = parse_search_page(
        render_search_page([advert, FakeAdvert("6", "Bett", Decimal(9)), advert])
    )
    assert [listing.id for listing in page.listings] == ["5", "6"]


def test_reformatted_json_parses_to_the_same_listings() -> None:
    """Indented JSON (no compact keys for the fast path) parses to exactly the same page."""
    start = REAL_PAGE.index(">", REAL_PAGE.index('id="__NEXT_DATA__"')) + 1
    end = REAL_PAGE.index("</script>", start)
    indented = json.dumps(json.loads(REAL_PAGE[start:end]), indent=1)
    assert '"rowsFound": 838' in indented  # a space after each colon
    reformatted = REAL_PAGE[:start] + indented + REAL_PAGE[end:]
    assert parse_search_page(reformatted) == parse_search_page(REAL_PAGE)


def one_advert_page(advert: object) -> str:
    """A page whose searchResult lists exactly `advert`, as given."""
    result = {"rowsFound": 1, "advertSummaryList": {"advertSummary": [advert]}}
    data = {"props": {"pageProps": {"searchResult": result}}}
    return f'<script id="__NEXT_DATA__" type="application/json">{json.dumps(data)}</script>'


TOO_LONG = "^an advert id is longer than 40 characters"


@pytest.mark.parametrize(
    ("advert", "error"),
    [
        ({"id": "1", "attributes": [{"attribute": []}]}, at(f"{ADVERT}.attributes")),
        ({"id": "1", "attributes": "PRICE=5"}, at(f"{ADVERT}.attributes")),
        ({"id": "1", "attributes": {"attribute": 5}}, at(f"{ADVERT}.attributes.attribute")),
        ({"id": "1", "attributes": {"attribute": {"name": "PRICE"}}},
         at(f"{ADVERT}.attributes.attribute")),
        ({"id": 1.5}, at(f"{ADVERT}.id")),
        ({"id": ["1"]}, at(f"{ADVERT}.id")),
        ("an advert", at(ADVERT)),
        ({"id": "1" * 41}, TOO_LONG),
        ({"id": int("1" * 41)}, TOO_LONG),
        ({"id": True}, at(f"{ADVERT}.id")),
        ({"id": "1", "advertStatus": "reserved"}, at(f"{ADVERT}.advertStatus")),
        ({"id": "1", "advertStatus": {"id": 55}}, at(f"{ADVERT}.advertStatus.id")),
    ],
    ids=["attributes-list", "attributes-text", "attribute-number", "attribute-object",
         "id-float", "id-list", "entry-text", "id-too-long", "id-number-too-long", "id-bool",
         "status-text", "status-number"],
)  # fmt: skip
def test_an_advert_of_unknown_shape_makes_the_page_a_layout_error(
    advert: object, error: str
) -> None:
    """A malformed advert raises LayoutError naming where it is malformed, never a crash nor
    a silently shorter page, so it cannot come back later as a false "new" (review of
    issue 3)."""
    with pytest.raises(LayoutError, match=error):
        parse_search_page(one_advert_page(advert))


def test_attribute_values_of_unknown_type_are_ignored() -> None:
    """Non-string values, a superscript PUBLISHED and an exponent price read as absent."""
    attributes = [
        {"name": "SEO_URL", "values": [{"path": "x"}]},
        {"name": "PUBLISHED", "values": ["²"]},
        {"name": "PRICE", "values": ["1E+999999"]},
        {"name": "LOCATION", "values": [None]},
        {"name": 5, "values": ["x"]},
        "HEADING",
    ]
    page = parse_search_page(one_advert_page({"id": "9", "attributes": {"attribute": attributes}}))
    (listing,) = page.listings
    assert (listing.url, listing.published_at, listing.price, listing.location) == (
        "https://www.willhaben.at/iad/object?adId=9",
        None,
        None,
        None,
    )


def test_a_reserved_built_advert_reads_as_reserved_with_its_plain_title() -> None:
    """The builder's reserved advert is the real one's shape: reserved, "(reserviert) " gone."""
    adverts = [FakeAdvert("5", "Sofa", Decimal(50), reserved=True), FakeAdvert("6", "Tisch")]
    reserved, active = parse_search_page(render_search_page(adverts)).listings
    assert (reserved.reserved, reserved.title, active.reserved) == (True, "Sofa", False)


def test_an_overlong_advert_link_becomes_the_short_one() -> None:
    """Issue 9: a SEO_URL beyond MAX_URL is replaced by `object?adId=`, so no page can make a
    message's link grow without limit."""
    attributes = [{"name": "SEO_URL", "values": ["immobilien/d/" + "x" * 600 + "-9/"]}]
    page = parse_search_page(one_advert_page({"id": "9", "attributes": {"attribute": attributes}}))
    assert page.listings[0].url == "https://www.willhaben.at/iad/object?adId=9"


def test_deeply_nested_json_is_a_layout_error() -> None:
    """JSON nested beyond the decoder's recursion limit is a LayoutError, not a crash."""
    deep = '{"props":{"pageProps":{"searchResult":' + "[" * 100_000 + "]" * 100_000 + "}}}"
    with pytest.raises(LayoutError, match=at(SEARCH)):
        parse_search_page(f'<script id="__NEXT_DATA__">{deep}</script>')


def advert_json(ad_id: str) -> dict[str, object]:
    return {"id": ad_id, "description": f"Anzeige {ad_id}", "attributes": {"attribute": []}}


@pytest.mark.parametrize(
    "page_props",
    [
        {
            "searchResult": {"rowsFound": 0},
            "recommendations": {"advertSummaryList": {"advertSummary": [advert_json("666")]}},
        },
        {
            "searchResult": {"rowsFound": 1, "navigators": [], "advertSummaryList": {
                "advertSummary": [advert_json("1")]}},
            "recommendations": {"advertSummaryList": {"advertSummary": [advert_json("666")]}},
        },
        {
            "searchResult": {"teaser": {"rowsFound": 7}, "rowsFound": 1, "advertSummaryList": {
                "advertSummary": [advert_json("1")]}},
        },
    ],
    ids=["list-only-in-recommendations", "list-after-a-nested-value", "rowsFound-nested-first"],
)  # fmt: skip
def test_adverts_outside_search_result_are_never_read_as_its_own(
    page_props: dict[str, object],
) -> None:
    """Keys found after searchResult but not in it (recommended adverts) do not count as
    the search's listings: that would send them as "new" (review of issue 3)."""
    data = json.dumps({"props": {"pageProps": page_props}}, separators=(",", ":"))
    page = parse_search_page(f'<script id="__NEXT_DATA__">{data}</script>')
    result = page_props["searchResult"]
    assert isinstance(result, dict)
    assert page.rows_found == result["rowsFound"]
    assert [listing.id for listing in page.listings] == ["1"] * result["rowsFound"]


def test_a_repeated_key_counts_with_its_last_value() -> None:
    """Of a key repeated in searchResult the last value counts, as JSON means it: an earlier
    list of adverts is no part of the page."""
    stale = json.dumps({"advertSummary": [advert_json("666")]}, separators=(",", ":"))
    result = f'{{"rowsFound":0,"advertSummaryList":{stale},"advertSummaryList":{{}}}}'
    page = parse_search_page(
        f'<script id="__NEXT_DATA__">{{"props":{{"pageProps":{{"searchResult":{result}}}}}}}'
        "</script>"
    )
    assert (page.rows_found, page.listings) == (0, [])


def test_the_search_s_own_keys_elsewhere_in_the_script_are_not_read() -> None:
    """`rowsFound`, `advertSummaryList` and a whole `searchResult` outside
    `props.pageProps.searchResult` — first in the script, at other depths, inside an advert, or
    in a string — change nothing: only the search's own members are read."""
    decoy = {"rowsFound": 9, "advertSummaryList": {"advertSummary": [advert_json("666")]}}
    advert = {**advert_json("1"), "advertSummaryList": decoy["advertSummaryList"]}
    data = {
        "searchResult": decoy,
        "props": {
            "rowsFound": 9,
            "pageProps": {
                "advertSummaryList": decoy["advertSummaryList"],
                "teaser": {"searchResult": decoy},
                "note": json.dumps({"searchResult": decoy}),
                "searchResult": {
                    "pagingLinksList": [decoy],
                    "rowsFound": 1,
                    "advertSummaryList": {"advertSummary": [advert]},
                },
            },
        },
    }
    page = parse_search_page(f'<script id="__NEXT_DATA__">{json.dumps(data)}</script>')
    assert (page.rows_found, [listing.id for listing in page.listings]) == (1, ["1"])


def test_an_integer_id_reads_as_its_digits() -> None:
    """An id the page writes as a number is the same advert as its string form."""
    (listing,) = parse_search_page(one_advert_page({"id": 1622906706})).listings
    assert listing.id == "1622906706"


def test_the_body_as_bytes_parses_like_its_text() -> None:
    """The client hands on the body as received, UTF-8 bytes: they parse to exactly what the
    decoded text does, non-ASCII titles and prices included."""
    for text in (REAL_PAGE, FLATS_PAGE):
        assert parse_search_page(text.encode()) == parse_search_page(text)
    built = render_search_page([FakeAdvert("1", "Küche „neu“ für 5 €", Decimal(5))])
    assert parse_search_page(built.encode()).listings[0].title == "Küche „neu“ für 5 €"


def test_a_layout_error_says_where_on_the_page_the_shape_is_wrong() -> None:
    """The decoder's message names the member that does not fit, so a changed page is found."""
    with pytest.raises(LayoutError, match=r"advertSummary\[0\]\.advertStatus\.id`"):
        parse_search_page(one_advert_page({"id": "1", "advertStatus": {"id": 55}}))


def test_a_byte_that_is_no_utf_8_reads_as_a_replacement_character() -> None:
    """Invalid UTF-8 in the bytes costs the one character, as in a decode into text, not the
    page."""
    page = render_search_page([FakeAdvert("1", "Sofa", Decimal(5)), FakeAdvert("2", "Bett")])
    (sofa, bett) = parse_search_page(page.encode().replace(b"Sofa", b"So\xfffa")).listings
    assert (sofa.title, sofa.price, bett.title) == ("So\ufffdfa", Decimal(5), "Bett")


def test_the_real_flats_page_says_what_each_flat_is() -> None:
    """Issue 29: every advert of the saved rental page is real estate (`verticalId` 2) and
    says its category, place, size, rooms, type, free areas and features as the page writes
    them; none is a placement; the marketplace page's adverts are no real estate."""
    page = parse_search_page(FLATS_PAGE)
    estates = [listing.estate for listing in page.listings]
    assert all(estate is not None for estate in estates)
    assert {(e.ad_type, e.state, e.placement) for e in estates if e} == {(2, "Wien", False)}
    assert all(e and e.location_id and 117223 <= int(e.location_id) <= 117245 for e in estates)
    by_id = {listing.id: listing.estate for listing in page.listings}
    assert by_id["1039946198"] == Estate(
        ad_type=2,
        state="Wien",
        location_id="117231",
        living_area=99,
        rooms="2X2",
        property_type="102",
        free_areas=frozenset({"10", "40"}),
        features=frozenset({"15", "23", "24", "250", "27", "28", "4"}),
    )
    assert by_id["1069009511"] == Estate(2, "Wien", "117236", 31, "1X1", "110")  # neither
    assert page.placements == 0
    assert all(listing.estate is None for listing in parse_search_page(REAL_PAGE).listings)


def flat_json(ad_id: str, **attributes: str) -> dict[str, object]:
    """A real-estate advert entry (`verticalId` 2) with these attributes."""
    entries = [{"name": name, "values": [value]} for name, value in attributes.items()]
    return {"id": ad_id, "verticalId": 2, "adTypeId": 2, "attributes": {"attribute": entries}}


def test_odd_real_estate_values_read_as_not_said() -> None:
    """Values the saved page never writes read as None (or no ids), never a crash or a wrong
    number: a fraction of a m², a bucket in words, ids with junk, a sign, an `adTypeId` the
    attribute contradicts."""
    odd = flat_json(
        "1",
        ADTYPE_ID="1",
        STATE="  ",
        LOCATION_ID="1172x9",
        **{"ESTATE_SIZE/LIVING_AREA": "45.5"},
        ROOMS="zwei",
        PROPERTY_TYPE_ID="-3",
        FREE_AREA_TYPE="10, x, ,30",
        ESTATE_PREFERENCE="alle",
        REFERER="organic",
    )
    (listing,) = parse_search_page(one_advert_page(odd)).listings
    assert listing.estate == Estate(free_areas=frozenset({"10", "30"}))
    members: list[tuple[dict[str, object], Estate | None]] = [
        ({"adTypeId": "2"}, Estate(ad_type=2)),  # digits as text, as the attributes write them
        ({"adTypeId": True}, Estate()),
        ({"adTypeId": [2]}, Estate()),
        ({"verticalId": 5}, None),
        ({"verticalId": "zwei"}, None),
    ]
    for member, estate in members:
        (other,) = parse_search_page(one_advert_page({**flat_json("2"), **member})).listings
        assert other.estate == estate
    unsaid = {"id": "3", "attributes": {"attribute": []}}
    page = {"rowsFound": 1, "verticalId": 2, "advertSummaryList": {"advertSummary": [unsaid]}}
    data = json.dumps({"props": {"pageProps": {"searchResult": page}}})
    (listing,) = parse_search_page(f'<script id="__NEXT_DATA__">{data}</script>').listings
    assert listing.estate == Estate()  # the page's vertical, for an advert without its own


@pytest.mark.parametrize(
    "marker",
    [
        {"attributes": {"attribute": [{"name": "REFERER", "values": ["pp"]}]}},
        {"selfLink": "https://api.willhaben.at/restapi/v2/atverz/7?referer=pp"},
        {"selfLink": "https://api.willhaben.at/restapi/v2/atverz/7?x=1&referer=pp#top"},
    ],
    ids=["REFERER", "selfLink", "selfLink-among-others"],
)
def test_the_paid_placement_is_marked_and_its_own_entry_wins(marker: dict[str, object]) -> None:
    """The placement is marked by `REFERER` "pp" or its `selfLink`; when the page also lists
    the advert by its own entry, that entry is the listing, at its own place, and the page
    counts the paid one beside it."""
    paid = {**flat_json("7"), **marker}
    (alone,) = parse_search_page(one_advert_page(paid)).listings
    assert alone.estate is not None
    assert alone.estate.placement
    result = {
        "rowsFound": 3,
        "advertSummaryList": {"advertSummary": [paid, flat_json("8"), flat_json("7")]},
    }
    data = json.dumps({"props": {"pageProps": {"searchResult": result}}})
    page = parse_search_page(f'<script id="__NEXT_DATA__">{data}</script>')
    assert [
        (listing.id, listing.estate.placement) for listing in page.listings if listing.estate
    ] == [
        ("8", False),
        ("7", False),
    ]
    assert page.placements == 1


def test_a_building_projects_children_are_its_units_as_far_as_each_says() -> None:
    """Issue 36: a project's (`adTypeId` 16) `children` are read as its units, in the saved
    page's shape — category by the unit's own `adTypeId`, price by `PRICE_FOR_DISPLAY` with
    German separators, rooms bucket by `NUMBER_OF_ROOMS`; what a unit writes otherwise is not
    said, a unit of an unknown shape is left out, and no more than `MAX_UNITS` are read.
    Another advert's `children` are not its units."""

    def unit(ad_type: object, **attributes: str) -> dict[str, object]:
        entries = [{"name": name, "values": [value]} for name, value in attributes.items()]
        return {"id": "9", "adTypeId": ad_type, "attributes": {"attribute": entries}}

    children: list[object] = [
        unit(2, PRICE_FOR_DISPLAY="€ 2.329", NUMBER_OF_ROOMS="4",
             **{"ESTATE_SIZE/LIVING_AREA": "94"}),
        unit(1, PRICE_FOR_DISPLAY="€ 1.038,82", NUMBER_OF_ROOMS="7"),
        unit(2, PRICE_FOR_DISPLAY="ab € 213.000", NUMBER_OF_ROOMS="2.5"),
        unit(2, PRICE_FOR_DISPLAY="€ 1.149", PRICE="1150", NUMBER_OF_ROOMS="0"),
        unit("x", PRICE_FOR_DISPLAY="Preis auf Anfrage", NUMBER_OF_ROOMS="12"),
        {"id": "9", "attributes": "PRICE=5"},
        "a unit",
    ]  # fmt: skip
    project = {**flat_json("1"), "adTypeId": 16, "children": children}
    (listing,) = parse_search_page(one_advert_page(project)).listings
    assert listing.estate is not None
    assert listing.estate.units == (
        EstateUnit(2, Decimal(2329), 94, "4X4"),
        EstateUnit(1, Decimal("1038.82"), None, "6X9"),
        EstateUnit(2, None, None, None),
        EstateUnit(2, Decimal(1150), None, None),
        EstateUnit(None, None, None, "10X"),
    )
    many = {**project, "children": [unit(2, NUMBER_OF_ROOMS="1")] * (MAX_UNITS + 5)}
    (listing,) = parse_search_page(one_advert_page(many)).listings
    assert listing.estate is not None
    assert len(listing.estate.units) == MAX_UNITS
    flat = {**flat_json("2"), "children": children}
    (listing,) = parse_search_page(one_advert_page(flat)).listings
    assert listing.estate is not None
    assert listing.estate.units == ()
