"""The fake site's world (`habicht.fakes.willhaben_world`, issue 20): any search answered
from one catalogue, as willhaben's own search would list it."""

from __future__ import annotations

from decimal import Decimal

import httpx
import pytest

from habicht.fakes import FakeAdvert
from habicht.fakes.willhaben_site import FakeWillhabenSite
from habicht.scraper.parse import parse_search_page

MARKET = "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz"
GRAPHICS = f"{MARKET}/pc-komponenten/grafikkarten-5882"
SOFAS = ("5387", "5388")


def world_ids(site: FakeWillhabenSite, url: str) -> list[str]:
    response = site.handle(httpx.Request("GET", url))
    return [listing.id for listing in parse_search_page(response.content).listings]


def test_the_world_answers_every_search_from_one_catalogue_newest_first() -> None:
    """Published adverts are listed by every search that would list them on willhaben: the
    marketplace root holds all, a category path its tree, keywords and price bounds select,
    newest first by `PUBLISHED`; a bump moves an advert up by its new date; a withdrawn one
    is gone everywhere."""
    site = FakeWillhabenSite()
    gpu = FakeAdvert("11", "RTX 3070 Gaming", Decimal(350), published_ms=3000)
    cheap = FakeAdvert("12", "GTX 760", Decimal(60), published_ms=2000)
    sofa = FakeAdvert("13", "Sofa", Decimal(300), published_ms=4000, categories=SOFAS)
    site.publish(gpu, cheap, sofa)
    assert world_ids(site, f"{MARKET}?sort=1") == ["13", "11", "12"]
    assert world_ids(site, f"{GRAPHICS}?sort=1") == ["11", "12"]
    assert world_ids(site, f"{MARKET}?keyword=rtx+3070&sort=1") == ["11"]
    assert world_ids(site, f"{GRAPHICS}?PRICE_FROM=100&PRICE_TO=400&sort=1") == ["11"]
    site.bump(None, cheap.id, published_ms=5000)
    assert world_ids(site, f"{GRAPHICS}?sort=1") == ["12", "11"]
    site.withdraw(gpu.id)
    assert world_ids(site, f"{MARKET}?sort=1") == ["12", "13"]


def test_a_keyword_further_down_than_the_snippet_is_found_by_the_search_only() -> None:
    """The page shows at most the first 250 characters of the description (`BODY_DYN`);
    willhaben's search reads all of it."""
    site = FakeWillhabenSite()
    long = FakeAdvert("21", "Grafikkarte", Decimal(200), body="x " * 200 + "Abholung in Linz")
    site.publish(long)
    assert world_ids(site, f"{MARKET}?keyword=linz&sort=1") == ["21"]
    response = site.handle(httpx.Request("GET", f"{MARKET}?keyword=linz&sort=1"))
    (listing,) = parse_search_page(response.content).listings
    assert listing.body == "x " * 124 + "x..."


@pytest.mark.parametrize(
    ("description", "shown"),
    [
        ("kurz und gut", "kurz und gut"),
        ("a" * 250, "a" * 250),
        ("a" * 244 + " Grafikkarte", "a" * 244 + "..."),
        ("a" * 243 + " Karte, OVP", "a" * 243 + " Karte,..."),
        ("a" * 244 + " Karte neu", "a" * 244 + " Karte..."),
        ("a" * 300, "a" * 250 + "..."),
    ],
    ids=[
        "whole",
        "exactly 250",
        "a word over the edge",
        "a comma kept",
        "a word ending at 250",
        "one long word",
    ],
)
def test_a_long_description_is_cut_after_a_whole_word(description: str, shown: str) -> None:
    """Issue 26: as on the real pages ("...in a 2.7 slot form..."), a snippet is cut after
    the last whole word that fits and marked with "...", never inside a word."""
    site = FakeWillhabenSite()
    site.publish(FakeAdvert("22", "Grafikkarte", Decimal(200), body=description))
    response = site.handle(httpx.Request("GET", f"{MARKET}?sort=1"))
    (listing,) = parse_search_page(response.content).listings
    assert listing.body == shown


def test_sellers_other_parameters_and_paths_select_in_the_world() -> None:
    site = FakeWillhabenSite()
    company = FakeAdvert("31", "RTX", Decimal(300), private=False, params=(("areaId", "900"),))
    private = FakeAdvert("32", "RTX", Decimal(300))
    flat = FakeAdvert("33", "Altbau", Decimal(900), path="/iad/immobilien/mietwohnungen/wien")
    site.publish(company, private, flat)
    assert world_ids(site, f"{MARKET}?ISPRIVATE=0&keyword=rtx&sort=1") == ["31"]
    assert world_ids(site, f"{MARKET}?areaId=900&keyword=rtx&sort=1") == ["31"]
    assert world_ids(site, "https://www.willhaben.at/iad/immobilien/mietwohnungen?sort=1") == ["33"]
    assert world_ids(site, "https://www.willhaben.at/iad/immobilien/mietwohnungen/wien") == ["33"]
    assert sorted(world_ids(site, f"{MARKET}?sort=1")) == ["31", "32"]
