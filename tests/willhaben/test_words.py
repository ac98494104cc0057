"""Issue 26: words as willhaben reads them — a local search finds a word only where every
plausible reading of the title and the snippet finds it (markup, numbers, a cut snippet,
umlauts), tried on the saved page and on pages of the fake site read by the real parser."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

import httpx
import pytest
from conftest import FIXTURES

from habicht.fakes import FakeAdvert
from habicht.fakes.willhaben_site import FakeWillhabenSite
from habicht.model import Listing
from habicht.willhaben.local import local_search
from habicht.willhaben.parse import parse_search_page
from habicht.willhaben.urls import parse_watch_argument
from habicht.willhaben.words import advert_words, keyword_words, words

MARKET = "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz"
REAL_PAGE = parse_search_page((FIXTURES / "search-marketplace-grafikkarten.html").read_bytes())
REAL = {listing.id: listing for listing in REAL_PAGE.listings}
VEGA = REAL["528632079"]
"""`BODY_DYN` "Verkaufe hiermit meine VEGA 56&nbsp;Sapphire Nitro+ 8GB Graffikkarte …"."""
GTX_1660 = REAL["528641658"]
"""`BODY_DYN` "Verkaufe gtx 1660 da sie mir zu schwach ist. Gekauft am 23.11.2021 …"."""
ASUS_1660 = REAL["528632422"]
"""`BODY_DYN` cut: "… overclocked 6GB GDDR6 memory in a 2.7 slot form..."."""


def found(keywords: str, listing: Listing) -> bool:
    """Whether the local search `/watch <keywords>` matches `listing`."""
    search = local_search(parse_watch_argument(keywords).url)
    assert search is not None, keywords
    return search.matches(listing)


def shown(title: str, body: str) -> Listing:
    """The advert as the fake site's page shows it, read by the real parser."""
    site = FakeWillhabenSite()
    site.publish(FakeAdvert("1", title, Decimal(100), body=body))
    page = site.handle(httpx.Request("GET", f"{MARKET}?sort=1"))
    (listing,) = parse_search_page(page.content).listings
    return listing


def test_markup_entities_are_not_words() -> None:
    """`&nbsp;` in the saved page's snippet is a space, `&amp;` an ampersand: "nbsp" and
    "amp" are no words of the advert, the words beside them are."""
    assert "&nbsp;" in (VEGA.body or "")
    assert found("vega 56 sapphire", VEGA)
    assert not found("nbsp", VEGA)
    tom = shown("Kinderbuch", "Tom &amp; Jerry, gut erhalten")
    assert tom.body == "Tom &amp; Jerry, gut erhalten"
    assert found("tom jerry", tom)
    assert not found("amp", tom)


def test_a_number_with_a_dot_is_one_word() -> None:
    """`golf 6` does not find a Golf 7 with a 1.6 litre engine: "1.6" is one word, not 1 and
    6; `golf 7` and `golf 1.6`'s whole words do."""
    golf = shown("Golf 7 1.6 TDI", "Gepflegt, Pickerl neu.")
    assert not found("golf 6", golf)
    assert not found("golf 1", golf)
    assert found("golf 7 tdi", golf)
    assert not found("slot 7", ASUS_1660)  # "in a 2.7 slot form..." on the saved page


def test_a_number_with_a_comma_is_one_word() -> None:
    """`iphone 6` does not find an iPhone 12 with a 6,1-inch display."""
    iphone = shown("iPhone 12", "Display 6,1 Zoll, Akku 89 %")
    assert not found("iphone 6", iphone)
    assert not found("iphone 1", iphone)
    assert found("iphone 12 zoll", iphone)


def test_a_date_is_one_word() -> None:
    """The saved page's "Gekauft am 23.11.2021" holds neither 23 nor 11 nor 2021."""
    assert found("gtx 1660", GTX_1660)
    for keywords in ("gtx 11", "gtx 23", "gtx 2021"):
        assert not found(keywords, GTX_1660), keywords


def test_a_cut_snippets_last_word_does_not_count() -> None:
    """A snippet that ends in "..." (or "…") was cut after its last word, which may itself be
    cut: "form" of the saved page's "2.7 slot form..." may be "format", "Grafikk" is not a
    word. Every word before it counts, and so does the last word of a snippet not cut."""
    assert (ASUS_1660.body or "").endswith("slot form...")
    assert not found("form", ASUS_1660)
    assert found("slot", ASUS_1660)
    for cut in (
        "Verkaufe eine Grafikk...",
        "Verkaufe eine Grafikk …",
        "Verkaufe eine Grafikk&hellip;",
    ):
        assert not found("grafikk", replace(ASUS_1660, body=cut)), cut
        assert found("verkaufe eine", replace(ASUS_1660, body=cut)), cut
    assert found("1030 möglich", GTX_1660)  # "… Abholung in 1100 oder 1030 möglich": whole


def test_a_long_description_on_the_fake_site_loses_only_its_last_shown_word() -> None:
    """The fake site cuts as willhaben does (after a whole word, then "..."); that word is
    left out all the same, since on a real page it may be cut."""
    listing = shown("Grafikkarte", "a " * 120 + "Netzteil Abholung in Linz")
    assert listing.body == "a " * 120 + "Netzteil..."
    assert found("grafikkarte a", listing)
    assert not found("netzteil", listing)
    assert not found("linz", listing)


@pytest.mark.parametrize(
    ("keywords", "text"),
    [
        ("käse", "Kaese"),
        ("kaese", "Käse"),
        ("kase", "Käse"),
        ("käse", "Kase"),
        ("straße", "STRASSE"),
        ("strasse", "Straße"),
        ("cafe", "Café-Tisch"),
        ("café", "Cafe Tisch"),
    ],
)
def test_umlauts_accents_and_sharp_s_are_matched_as_written(keywords: str, text: str) -> None:
    """Whether willhaben folds "ä" to "a" or to "ae" is unknown, so no folding counts: in
    either direction, `käse` and "Kaese" are different words, as are "ß" and "ss"."""
    assert not found(keywords, shown(text, "Abholung"))
    assert not found(keywords, shown("Tisch", text))


def test_case_does_not_matter_and_umlauts_match_themselves() -> None:
    """The keyword is read in lower case, as the advert: `KÄSE` finds "käse" and `käse`
    "KÄSE"; the same letter written as "a" and a combining diaeresis is the same word."""
    assert found("KÄSE", shown("käse", "Abholung"))
    assert found("käse", shown("KÄSE", "Abholung"))
    assert found("straße", shown("STRAẞE Schild", "Abholung"))
    assert found("ka\u0308se", shown("Käse", "Abholung"))


def test_a_local_search_keeps_its_keyword_as_written() -> None:
    """`local_search` reads the keyword as the advert's words are read: lower case, umlauts
    kept — no more "kaese" for `Käse`."""
    search = local_search(f"{MARKET}?keyword=K%C3%A4se+Reibe&sort=1")
    assert search is not None
    assert search.words == ("käse", "reibe")


def test_the_words_of_a_text() -> None:
    """Marks join two digits (dot, comma, semicolon, apostrophe) or two letters (dot, colon,
    apostrophe), as a Unicode word splitter reads them; anything else separates."""
    assert words("Golf 7 1.6 TDI, 23.11.2021: € 1.200,- (2'000 km)") == [
        "golf",
        "7",
        "1.6",
        "tdi",
        "23.11.2021",
        "1.200",
        "2'000",
        "km",
    ]
    assert words("gekauft.Verkaufe geht's Mieter:innen") == [
        "gekauft.verkaufe",
        "geht's",
        "mieter:innen",
    ]
    assert words("Tisch,Stühle H.265 i7-8700 12:30 Grafik\u00adkarte") == [
        "tisch",
        "stühle",
        "h",
        "265",
        "i7",
        "8700",
        "12",
        "30",
        "grafik\u00adkarte",
    ]
    assert advert_words("RTX 3080", "Neu, OVP, nur 3 Mon...") == {
        "rtx",
        "3080",
        "neu",
        "ovp",
        "nur",
        "3",
    }


@pytest.mark.parametrize("keyword", ["", "  ", "rtx-3080", '"rtx"', "a_b", "1.6", "q\u0308x"])
def test_a_keyword_of_anything_but_letters_digits_and_spaces_has_no_words(keyword: str) -> None:
    """Such a keyword may mean more to willhaben's search than its words: not local."""
    assert keyword_words(keyword) is None
