"""Issue 20: which searches habicht can decide itself, and that a local match never says "yes"
where willhaben's search would say "no" — tried on the saved pages and their own searches."""

from __future__ import annotations

import random
from dataclasses import replace
from decimal import Decimal
from urllib.parse import quote

import httpx
import pytest
from conftest import FIXTURES

from habicht.fakes import FakeAdvert
from habicht.fakes.willhaben_site import FakeWillhabenSite
from habicht.fakes.willhaben_world import listed
from habicht.model import Listing
from habicht.willhaben.estate import EstateSearch
from habicht.willhaben.local import FeedMatcher, LocalSearch, local_search
from habicht.willhaben.parse import parse_search_page
from habicht.willhaben.urls import normalise_search_url, parse_watch_argument

MARKET = "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz"
GRAPHICS = normalise_search_url(
    "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz/pc-komponenten/grafikkarten-5882"
    "?PRICE_FROM=100&PRICE_TO=900&rows=25&sfId=053f5386&isNavigation=true"
)
"""The search the saved marketplace page answers (README of the fixtures)."""
REAL_PAGE = parse_search_page((FIXTURES / "search-marketplace-grafikkarten.html").read_bytes())
FLATS_PAGE = parse_search_page(
    (FIXTURES / "search-immobilien-mietwohnungen-wien.html").read_bytes()
)


def local(url: str) -> LocalSearch:
    found = local_search(url)
    assert found is not None, url
    return found


def test_every_advert_of_the_saved_page_matches_its_own_search() -> None:
    """The saved page is willhaben's answer to GRAPHICS: each of its 25 adverts is in the
    category tree of the path's id and within the price range, so each is a local match."""
    search = local(GRAPHICS)
    assert (search.category, search.price_from, search.price_to) == ("5882", 100, 900)
    assert search.feed == f"{MARKET}?sort=1"
    assert len(REAL_PAGE.listings) == 25
    assert all(search.matches(listing) for listing in REAL_PAGE.listings)
    assert {listing.category_ids for listing in REAL_PAGE.listings} == {("5824", "5878", "5882")}


def test_another_category_a_price_out_of_range_or_unknown_is_no_match() -> None:
    """Adverts of another category (the flats of the other saved page), over the range, under
    it, or without a price are not in the search."""
    search = local(GRAPHICS)
    advert = REAL_PAGE.listings[0]
    assert not any(search.matches(flat) for flat in FLATS_PAGE.listings)
    for price in (Decimal(901), Decimal(99), None):
        assert not search.matches(replace(advert, price=price))
    assert search.matches(replace(advert, price=Decimal(900)))


def test_a_parent_category_holds_its_children_and_the_marketplace_holds_everything() -> None:
    """`pc-komponenten-5878` is above Grafikkarten in the tree, so it holds the page's
    adverts; the marketplace root (a keyword watch's search) holds every marketplace advert."""
    parent = local(
        "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz/pc-komponenten-5878"
    )
    assert all(parent.matches(listing) for listing in REAL_PAGE.listings)
    sibling = local("https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz/monitore-5887")
    assert not any(sibling.matches(listing) for listing in REAL_PAGE.listings)
    everything = local(parse_watch_argument("gtx").url)
    assert everything.category is None
    assert everything.feed == "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz?sort=1"


def listing(title: str, body: str | None = None) -> Listing:
    """An advert of the saved page, with another title and snippet."""
    return replace(REAL_PAGE.listings[0], title=title, body=body)


def test_every_word_must_be_a_whole_word_of_the_title_or_the_snippet() -> None:
    """`rtx 3080`: both words, anywhere in the title or `BODY_DYN`, in any case; a word that
    is only part of another ("rtx3080", "3080ti") is no match, as is a word missing from both
    (it may be further down the description: the safety net). Umlauts are matched as written
    (`tests/willhaben/test_words.py` has the rest of how words are read)."""
    search = local(parse_watch_argument("RTX 3080").url)
    assert search.words == ("rtx", "3080")
    assert search.matches(listing("Gigabyte RTX 3080 Gaming OC"))
    assert search.matches(listing("Grafikkarte", "Verkaufe meine rtx, Modell 3080."))
    assert not search.matches(listing("Gigabyte RTX3080"))
    assert not search.matches(listing("RTX 3080ti"))
    assert not search.matches(listing("RTX 3070", "neuwertig"))
    umlaut = local(parse_watch_argument("Käsereibe").url)
    assert umlaut.matches(listing("KÄSEREIBE aus Edelstahl"))
    assert not umlaut.matches(listing("Käsereiben-Set"))


def test_the_seller_type_is_matched_only_where_the_advert_says() -> None:
    private = local(parse_watch_argument("rtx").url + "&ISPRIVATE=1")
    advert = listing("RTX 2060")
    assert private.matches(replace(advert, is_private=True))
    assert not private.matches(replace(advert, is_private=False))
    assert not private.matches(replace(advert, is_private=None))
    company = local(parse_watch_argument("rtx").url + "&ISPRIVATE=0")
    assert company.matches(replace(advert, is_private=False))


@pytest.mark.parametrize(
    "url",
    [
        # an area, an attribute filter, a parameter habicht has never seen, paging twice
        "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz/grafikkarten-5882?areaId=900",
        "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz/grafikkarten-5882?treeAttributes=1",
        "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz?keyword=sofa&SOMETHING=1",
        "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz?keyword=a&keyword=b",
        # words willhaben's search may read as operators
        "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz?keyword=sofa+-ikea",
        'https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz?keyword="rtx+3080"',
        "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz?keyword=i7-8700",
        # bounds that are not whole euros, a seller type that is neither, another order
        "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz?PRICE_TO=99.90",
        "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz?PRICE_FROM=-5",
        "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz?ISPRIVATE=yes",
        "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz?sort=3",
        # paths whose words the pages tie to no id
        "https://www.willhaben.at/iad/gebrauchtwagen/auto/gebrauchtwagenboerse",
        "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz/pc-komponenten",
        "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz/grafikkarten-5882/wien",
        "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz/../grafikkarten-5882",
        "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz/Grafikkarten-5882",
        "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz/grafikkarten-58820000000",
    ],
)
def test_what_habicht_cannot_decide_is_not_local(url: str) -> None:
    """Any other parameter or path makes a search not local: it is polled as before."""
    assert local_search(url) is None


def test_a_local_match_never_says_yes_where_the_world_says_no() -> None:
    """400 random adverts in the fake world (words in titles, in snippets and further down,
    umlauts, prices with and without, both sellers, three categories) against local searches
    of every kind: each local match is an advert the search lists, and what local matching
    misses is exactly what only the description beyond the snippet holds."""
    rand = random.Random(20)
    vocabulary = ["rtx", "3080", "käse", "sofa", "gaming", "defekt", "neu", "linz"]
    trees = [("5824", "5878", "5882"), ("5824", "5878", "5887"), ("5387", "5388")]
    site = FakeWillhabenSite()
    adverts = [
        FakeAdvert(
            str(1_000_000 + n),
            " ".join(rand.sample(vocabulary, 2)).title(),
            rand.choice([None, Decimal(rand.randint(1, 1500))]),
            body=" ".join(rand.sample(vocabulary, 2))
            + " x" * rand.choice([0, 200])
            + " "
            + rand.choice(vocabulary),
            private=rand.random() < 0.5,
            categories=rand.choice(trees),
            published_ms=n,
        )
        for n in range(400)
    ]
    site.publish(*adverts)
    page = site.handle(httpx.Request("GET", f"{MARKET}?rows=200&sort=1"))
    shown = (
        parse_search_page(page.content).listings
        + parse_search_page(
            site.handle(httpx.Request("GET", f"{MARKET}?rows=200&page=2&sort=1")).content
        ).listings
    )
    assert len(shown) == 400
    searches = [
        f"{MARKET}?keyword=rtx+3080&sort=1",
        f"{MARKET}?keyword=k%C3%A4se&sort=1",
        f"{MARKET}?keyword=linz&PRICE_TO=500&sort=1",
        f"{MARKET}/pc-komponenten-5878?ISPRIVATE=1&PRICE_FROM=100&sort=1",
        f"{MARKET}/pc-komponenten/grafikkarten-5882?keyword=gaming&sort=1",
        f"{MARKET}/sofas-5388?sort=1",
    ]
    full = {advert.id: advert.description for advert in adverts}
    parsed = {listing.id: listing for listing in shown}
    for url in searches:
        search = local(url)
        matched = {listing.id for listing in shown if search.matches(listing)}
        listed_ids = {advert.id for advert in adverts if listed(advert, httpx.URL(url))}
        assert matched, url
        assert matched <= listed_ids, url
        for ad_id in listed_ids - matched:  # only beyond the snippet: the safety net's
            assert search.matches(replace(parsed[ad_id], body=full[ad_id])), (url, ad_id)


# Issue 26: a feed's adverts matched against thousands of searches at once.

_TREES = [("5824", "5878", "5882"), ("5824", "5878", "5887"), ("5387", "5388"), (), ("5882",)]
_PATHS = ["", "/pc-komponenten-5878", "/pc-komponenten/grafikkarten-5882", "/sofas-5388", "/x-9"]
_KEYWORDS = ["rtx", "3080", "käse", "kaese", "golf", "6", "7", "1", "neu", "ovp", "straße", "a"]
_TEXT = [
    *_KEYWORDS,
    *("RTX", "Käse", "KAESE", "STRASSE", "Café", "1.6", "6,1", "23.11.2021", "7-fach"),
    *("&nbsp;", "&amp;", "gekauft.Neu", "geht's", "3080ti", ",", ".", "-", "/", "…"),
]


def _random_listing(rand: random.Random, n: int) -> Listing:
    """An advert of tricky words: numbers, umlauts, markup, cut snippets."""

    def text(size: int) -> str:
        return " ".join(rand.choices(_TEXT, k=rand.randint(0, size)))

    body = rand.choice([None, "", text(12), text(12) + "...", text(12) + "&hellip;"])
    return replace(
        REAL_PAGE.listings[0],
        id=str(n),
        title=text(5),
        body=body,
        price=rand.choice([None, Decimal(rand.randint(0, 400))]),
        is_private=rand.choice([None, True, False]),
        category_ids=rand.choice(_TREES),
    )


def _random_search(rand: random.Random) -> str:
    query = []
    if rand.random() < 0.8:
        query.append(("keyword", "+".join(rand.sample(_KEYWORDS, rand.randint(1, 3)))))
    for name in ("PRICE_FROM", "PRICE_TO"):
        if rand.random() < 0.3:
            query.append((name, str(rand.randint(0, 400))))
    if rand.random() < 0.3:
        query.append(("ISPRIVATE", rand.choice("01")))
    query.append(("sort", "1"))
    encoded = "&".join(f"{name}={quote(value, safe='+')}" for name, value in query)
    return f"{MARKET}{rand.choice(_PATHS)}?{encoded}"


def test_the_feed_matcher_answers_exactly_as_each_search_would() -> None:
    """2,000 random adverts in feed pages of 200 against 300 random local searches (words,
    prices, sellers, the marketplace and categories, many sharing their longest word): for
    every page, `FeedMatcher.match` lists exactly the adverts `LocalSearch.matches` does,
    search by search, in page order, and leaves out the searches that list none."""
    rand = random.Random(26)
    searches = [(n, local(_random_search(rand))) for n in range(300)]
    matcher = FeedMatcher(searches)
    listings = [_random_listing(rand, n) for n in range(2000)]
    matched = 0
    for start in range(0, len(listings), 200):
        page = listings[start : start + 200]
        expected = {
            search_id: hits
            for search_id, search in searches
            if (hits := [listing for listing in page if search.matches(listing)])
        }
        assert matcher.match(page) == expected
        matched += sum(map(len, expected.values()))
    assert matched > 5000  # the comparison is not between two empty answers


def test_the_feed_matcher_takes_each_search_once() -> None:
    """Two searches under one id would share one answer: refused."""
    search = local(f"{MARKET}?keyword=rtx&sort=1")
    with pytest.raises(ValueError, match="search 7 is given twice"):
        FeedMatcher([(7, search), (8, search), (7, search)])
    assert FeedMatcher([]).match(REAL_PAGE.listings) == {}


def test_the_feed_matcher_serves_flat_searches_with_words_and_learned_places() -> None:
    """Issue 36, on the saved Vienna page: a flat search with search words gets the flats
    whose title or snippet has them; a town search that has learned no place yet gets
    nothing (not even indexed), and once it learned a place (here Landstraße's, which a mix
    of areas teaches as any `LOCATION_ID`) every flat there that fits its other parameters —
    as `EstateSearch.matches` answers for each."""
    rent = "https://www.willhaben.at/iad/immobilien/mietwohnungen"
    words = local_search(normalise_search_url(f"{rent}/wien?keyword=palais&PRICE_TO=1200"))
    mixed = local_search(
        normalise_search_url(f"{rent}/mietwohnung-angebote?areaId=31703&areaId=117225")
    )
    assert isinstance(words, EstateSearch)
    assert isinstance(mixed, EstateSearch)
    assert FeedMatcher([(1, mixed)]).match(FLATS_PAGE.listings) == {}
    taught = mixed.learning({"117225"})
    matched = FeedMatcher([(1, words), (2, taught)]).match(FLATS_PAGE.listings)
    in_landstrasse = [
        listing
        for listing in FLATS_PAGE.listings
        if listing.estate is not None and listing.estate.location_id == "117225"
    ]
    assert matched[2] == in_landstrasse
    assert len(in_landstrasse) >= 9
    assert matched[1] == [listing for listing in FLATS_PAGE.listings if words.matches(listing)]
    assert {listing.id for listing in matched[1]} == {"1339479305", "1613379810"}
