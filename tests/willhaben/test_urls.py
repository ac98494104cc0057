"""Search URL rules: what a subscriber may watch, in one normalised form (issue 3)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from habicht.model import Search
from habicht.willhaben.errors import InvalidReason, InvalidSearch
from habicht.willhaben.urls import (
    advert_request_url,
    keyword_search,
    normalise_search_url,
    parse_watch_argument,
    request_url,
)

MARKT = "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz"
GRAKA = f"{MARKT}/pc-komponenten/grafikkarten-5882"

ACCEPTED = [
    (f"{MARKT}?keyword=rtx", f"{MARKT}?keyword=rtx&sort=1"),
    (
        "http://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz?keyword=rtx",
        f"{MARKT}?keyword=rtx&sort=1",
    ),
    (
        "https://willhaben.at/iad/kaufen-und-verkaufen/marktplatz?keyword=rtx",
        f"{MARKT}?keyword=rtx&sort=1",
    ),
    (
        "HTTPS://WWW.Willhaben.AT/iad/kaufen-und-verkaufen/marktplatz?keyword=rtx",
        f"{MARKT}?keyword=rtx&sort=1",
    ),
    ("willhaben.at/iad/kaufen-und-verkaufen/marktplatz?keyword=rtx", f"{MARKT}?keyword=rtx&sort=1"),
    (
        "www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz?keyword=rtx",
        f"{MARKT}?keyword=rtx&sort=1",
    ),
    (f"{MARKT}?keyword=rtx#top", f"{MARKT}?keyword=rtx&sort=1"),
    (f"{MARKT}?sort=3&keyword=rtx", f"{MARKT}?keyword=rtx&sort=1"),
    (f"{MARKT}?keyword=rtx&page=4&rows=90", f"{MARKT}?keyword=rtx&sort=1"),
    (
        f"{GRAKA}?sfId=053f5386-2e2b&isNavigation=true&page=1&rows=25&PRICE_FROM=100&PRICE_TO=900",
        f"{GRAKA}?PRICE_FROM=100&PRICE_TO=900&sort=1",
    ),
    (
        f"{MARKT}?utm_source=newsletter&utm_medium=mail&fbclid=abc&gclid=x&keyword=rtx",
        f"{MARKT}?keyword=rtx&sort=1",
    ),
    (f"{MARKT}?keyword=rtx+3070&PRICE_TO=400", f"{MARKT}?PRICE_TO=400&keyword=rtx+3070&sort=1"),
    (f"{MARKT}?keyword=rtx%203070", f"{MARKT}?keyword=rtx+3070&sort=1"),
    (f"{MARKT}?areaId=900&areaId=117223", f"{MARKT}?areaId=117223&areaId=900&sort=1"),
    (
        "https://www.willhaben.at:443/iad/immobilien/mietwohnungen/wien",
        "https://www.willhaben.at/iad/immobilien/mietwohnungen/wien?sort=1",
    ),
    (
        "  https://www.willhaben.at/iad/gebrauchtwagen/auto/gebrauchtwagenboerse  ",
        "https://www.willhaben.at/iad/gebrauchtwagen/auto/gebrauchtwagenboerse?sort=1",
    ),
    (
        "https://www.willhaben.at/iad/gebrauchtwagen/motorrad/motorradboerse?PRICE_TO=3000",
        "https://www.willhaben.at/iad/gebrauchtwagen/motorrad/motorradboerse?PRICE_TO=3000&sort=1",
    ),
    (
        "https://www.willhaben.at/iad/immobilien/mietwohnungen/wien/wien-1070-neubau",
        "https://www.willhaben.at/iad/immobilien/mietwohnungen/wien/wien-1070-neubau?sort=1",
    ),
    (f"{MARKT}/%C3%A4pfel-1", f"{MARKT}/%C3%A4pfel-1?sort=1"),
]

REFUSED = [
    ("", InvalidReason.EMPTY),
    (
        "https://www.willhaben.at.evil.example/iad/kaufen-und-verkaufen/marktplatz",
        InvalidReason.HOST,
    ),
    ("https://evil.example/iad/kaufen-und-verkaufen/marktplatz", InvalidReason.HOST),
    (
        "https://www.willhaben.at@evil.example/iad/kaufen-und-verkaufen/marktplatz",
        InvalidReason.HOST,
    ),
    ("https://user:pw@www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz", InvalidReason.HOST),
    ("https://notwillhaben.at/iad/kaufen-und-verkaufen/marktplatz", InvalidReason.HOST),
    ("https://api.willhaben.at/iad/kaufen-und-verkaufen/marktplatz", InvalidReason.HOST),
    ("http://127.0.0.1/iad/kaufen-und-verkaufen/marktplatz", InvalidReason.HOST),
    ("http://[::1]/iad/kaufen-und-verkaufen/marktplatz", InvalidReason.HOST),
    ("https://www.willhaben.at:8080/iad/kaufen-und-verkaufen/marktplatz", InvalidReason.HOST),
    ("http://www.willhaben.at:443/iad/kaufen-und-verkaufen/marktplatz", InvalidReason.HOST),
    ("https://www.willhaben.at:http/iad/kaufen-und-verkaufen/marktplatz", InvalidReason.MALFORMED),
    ("ftp://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz", InvalidReason.SCHEME),
    ("file:///etc/passwd", InvalidReason.SCHEME),
    ("javascript:alert(1)", InvalidReason.SCHEME),
    (
        "https://www.willhaben.at/iad/kaufen-und-verkaufen/d/gtx-760-528603014/",
        InvalidReason.AD_PAGE,
    ),
    (
        "https://www.willhaben.at/iad/immobilien/d/mietwohnungen/wien/wien-1070/altbau-123456789/",
        InvalidReason.AD_PAGE,
    ),
    ("https://www.willhaben.at/iad/object?adId=528603014", InvalidReason.AD_PAGE),
    # Issue 9: an old-style advert link (no /d/, the id in ?adId=), a share link, a Suchagent.
    (
        "https://www.willhaben.at/iad/immobilien/mietwohnungen/wien/2-zimmer-altbauwohnung-95640092/"
        "?adId=95640092",
        InvalidReason.AD_PAGE,
    ),
    ("https://www.willhaben.at/iad/share/1622906706", InvalidReason.AD_PAGE),
    (
        "https://www.willhaben.at/iad/searchagent/alert?searchId=101&alertId=7744",
        InvalidReason.SEARCH_AGENT,
    ),
    ("https://www.willhaben.at/jobs/suche?keyword=koch", InvalidReason.NOT_SEARCH),
    ("https://www.willhaben.at/", InvalidReason.NOT_SEARCH),
    ("https://www.willhaben.at/iad", InvalidReason.NOT_SEARCH),
    ("https://www.willhaben.at/iad/../admin/x", InvalidReason.MALFORMED),
    (
        "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz?keyword=a b",
        InvalidReason.MALFORMED,
    ),
    (
        "https://evil.example\\@www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz",
        InvalidReason.MALFORMED,
    ),
    (
        "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz?q=" + "x" * 2000,
        InvalidReason.TOO_LONG,
    ),
    # Review of issue 3: hosts the URL parser cannot read are malformed, not a crash ...
    ("https://[::1/iad/kaufen-und-verkaufen/marktplatz", InvalidReason.MALFORMED),
    ("https://[www.willhaben.at]/iad/kaufen-und-verkaufen/marktplatz", InvalidReason.MALFORMED),
    ("https://www.willhaben.at]/iad/kaufen-und-verkaufen/marktplatz", InvalidReason.MALFORMED),
    (
        "https://www.willhaben.at\uff0fevil/iad/kaufen-und-verkaufen/marktplatz",
        InvalidReason.MALFORMED,
    ),
    # ... encoded dot segments and separators in the path ...
    ("https://www.willhaben.at/iad/%2e%2e/%2e%2e/admin/x", InvalidReason.MALFORMED),
    ("https://www.willhaben.at/iad/kaufen-und-verkaufen/..%2F..%2Fadmin", InvalidReason.MALFORMED),
    ("https://www.willhaben.at/iad/immobilien/a%5Cb/c", InvalidReason.MALFORMED),
    # ... invisible characters anywhere ...
    ("https://www.willhaben.at/iad/immobilien/wien\u200b/x", InvalidReason.MALFORMED),
    (
        "https://www.willhaben.at/iad/immobilien/wien/x?keyword=\u202egnp.exe",
        InvalidReason.MALFORMED,
    ),
    ("https://www.willhaben.at/iad/immobilien/wien/x?keyword=a\x85b", InvalidReason.MALFORMED),
    # ... a typed host without a scheme is judged as a host ...
    ("www.willhaben.at.evil.example/iad/kaufen-und-verkaufen/marktplatz", InvalidReason.HOST),
    ("willhaben.at@evil.example/iad/kaufen-und-verkaufen/marktplatz", InvalidReason.HOST),
    # ... and only the search sections of /iad/ are searches.
    ("https://www.willhaben.at/iad/myprofile/myadverts/active", InvalidReason.NOT_SEARCH),
    ("https://www.willhaben.at/iad/anzeigenaufgabe/marktplatz/neu", InvalidReason.NOT_SEARCH),
]


@pytest.mark.parametrize(("given", "normalised"), ACCEPTED)
def test_search_urls_are_normalised(given: str, normalised: str) -> None:
    """An accepted URL becomes https, www, sort=1, no page/tracking/fragment, sorted query."""
    assert normalise_search_url(given) == normalised


@pytest.mark.parametrize(("given", "reason"), REFUSED)
def test_everything_else_is_refused_with_a_reason(given: str, reason: InvalidReason) -> None:
    """Other hosts, tricks, schemes, adverts and non-search pages are refused, with a reason."""
    with pytest.raises(InvalidSearch) as refused:
        parse_watch_argument(given)
    assert refused.value.reason is reason
    assert str(refused.value) == refused.value.detail != ""


def test_normalising_twice_changes_nothing() -> None:
    """The normalised form is a fixed point, so stored URLs compare equal."""
    for given, _ in ACCEPTED:
        once = normalise_search_url(given)
        assert normalise_search_url(once) == once


@pytest.mark.parametrize(
    ("text", "url", "label"),
    [
        ("rtx 3070", f"{MARKT}?keyword=rtx+3070&sort=1", "rtx 3070"),
        (
            "rtx 3070 max 400",
            f"{MARKT}?PRICE_TO=400&keyword=rtx+3070&sort=1",
            "rtx 3070 (max € 400)",
        ),
        ("Sofa  bis 1.000 €", f"{MARKT}?PRICE_TO=1000&keyword=sofa&sort=1", "Sofa (max € 1000)"),
        ("max 400", f"{MARKT}?keyword=max+400&sort=1", "max 400"),
        ("äpfel & birnen", f"{MARKT}?keyword=%C3%A4pfel+%26+birnen&sort=1", "äpfel & birnen"),
    ],
)
def test_keywords_become_a_marketplace_search(text: str, url: str, label: str) -> None:
    """Keywords, with an optional trailing `max`/`bis` price, search the marketplace."""
    assert parse_watch_argument(text) == Search(url=url, label=label)


@pytest.mark.parametrize(
    ("url", "label"),
    [
        (f"{GRAKA}?PRICE_FROM=100&PRICE_TO=900", "grafikkarten (€ 100 - 900)"),
        (f"{MARKT}?PRICE_FROM=0&PRICE_TO=300&keyword=sofa", "sofa (max € 300)"),
        (f"{MARKT}?PRICE_FROM=0.00&keyword=sofa", "sofa"),
        (f"{MARKT}?keyword=rtx", "rtx"),
        ("https://www.willhaben.at/iad/immobilien/mietwohnungen/wien", "wien"),
    ],
)
def test_url_searches_get_a_readable_label(url: str, label: str) -> None:
    """A pasted URL is labelled by its keyword or its last path segment, plus a price range
    (a zero lower bound is not named: issue 36)."""
    assert parse_watch_argument(url).label == label


@pytest.mark.parametrize("price", [Decimal(0), Decimal("-5"), Decimal("10.5"), Decimal(10**9)])
def test_nonsense_max_prices_are_refused(price: Decimal) -> None:
    """A maximum price must be whole euros above zero and below a hundred million."""
    with pytest.raises(InvalidSearch) as refused:
        keyword_search("sofa", max_price=price)
    assert refused.value.reason is InvalidReason.PRICE


@pytest.mark.parametrize("text", ["sofa " * 30, "sofa" + " " * 20_000 + "max 4"])
def test_overlong_keywords_are_refused(text: str) -> None:
    """Keyword text longer than anyone types is refused rather than sent to willhaben, and
    before the price pattern, whose time grows with the square of the length, reads it."""
    with pytest.raises(InvalidSearch) as refused:
        parse_watch_argument(text)
    assert refused.value.reason is InvalidReason.TOO_LONG


@pytest.mark.parametrize("base", ["http://127.0.0.1:8099", "http://127.0.0.1:8099/"])
def test_requests_go_to_the_configured_base(base: str) -> None:
    """The fetch URL is HABICHT_WILLHABEN_URL + the normalised path and query, asking for
    willhaben's 200 rows a page, and the page number from page 2 on."""
    url = normalise_search_url(f"{MARKT}?keyword=rtx")
    first = "http://127.0.0.1:8099/iad/kaufen-und-verkaufen/marktplatz?keyword=rtx&sort=1&rows=200"
    assert request_url(url, base) == first
    assert request_url(url, base, page=3) == f"{first}&page=3"


@pytest.mark.parametrize(
    "typed", ["RTX  3070", "rtx 3070", " Rtx\t3070 ", f"{MARKT}?keyword=RTX++3070&rows=30"]
)
def test_keyword_searches_ignore_case_and_spacing(typed: str) -> None:
    """Issue 9: "RTX  3070" and "rtx 3070" are one search (one row, one fetch); the label
    keeps what the subscriber typed."""
    search = parse_watch_argument(typed)
    assert search.url == f"{MARKT}?keyword=rtx+3070&sort=1"
    if not typed.startswith("http"):
        assert search.label == " ".join(typed.split())


ADVERT_PATH = "/iad/immobilien/d/haus-kaufen/wien/wien-1140-penzing/gepflegte-immobilie-969757460/"


@pytest.mark.parametrize(
    ("url", "fetched"),
    [
        (f"https://www.willhaben.at{ADVERT_PATH}", ADVERT_PATH),
        (f"https://willhaben.at{ADVERT_PATH}", ADVERT_PATH),
        (f"HTTPS://WWW.willhaben.at:443{ADVERT_PATH}#bilder", ADVERT_PATH),
        ("https://www.willhaben.at/iad/object?adId=969757460", "/iad/object?adId=969757460"),
    ],
    ids=["canonical", "bare-host", "case-port-fragment", "short-link"],
)
@pytest.mark.parametrize("base", ["http://127.0.0.1:8099", "http://127.0.0.1:8099/"])
def test_an_advert_page_is_fetched_from_the_configured_base(
    url: str, fetched: str, base: str
) -> None:
    """An advert's page is HABICHT_WILLHABEN_URL + its path and query, without a fragment."""
    assert advert_request_url(url, base) == f"http://127.0.0.1:8099{fetched}"


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        (f"https://evil.example{ADVERT_PATH}", "not an https link to willhaben.at"),
        (f"http://www.willhaben.at{ADVERT_PATH}", "not an https link to willhaben.at"),
        (f"https://a@www.willhaben.at{ADVERT_PATH}", "not an https link to willhaben.at"),
        (f"https://www.willhaben.at:444{ADVERT_PATH}", "not an https link to willhaben.at"),
        (f"https://www.willhaben.at:x{ADVERT_PATH}", "not a readable URL"),
        ("https://www.willhaben.at/iad", "not a page under /iad/"),
        ("https://www.willhaben.at/iad/", "not a page under /iad/"),
        ("https://www.willhaben.at/iad/./x/../../admin", "the path contains . or .. segments"),
        ("https://www.willhaben.at/iad/x%2Fy", "the path contains an encoded"),
        (f"https://www.willhaben.at{ADVERT_PATH}\u200b", "not one plain URL"),
        (f"https://www.willhaben.at{ADVERT_PATH}?{'x' * 2000}", "not one plain URL"),
    ],
    ids=[
        "host",
        "http",
        "user",
        "port",
        "bad-port",
        "no-slash",
        "root",
        "dots",
        "encoded-slash",
        "zero-width",
        "overlong",
    ],
)
def test_anything_but_a_willhaben_page_is_no_advert_url(url: str, reason: str) -> None:
    """Only `https://(www.)willhaben.at/iad/…` on the standard port is an advert's page; the
    refusal says why."""
    with pytest.raises(ValueError, match=reason):
        advert_request_url(url, "http://127.0.0.1:8099")
