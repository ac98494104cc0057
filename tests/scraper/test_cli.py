"""`habicht scrape`: fetch one search and print its listings; bad input is one line, exit 2."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal

import httpx
import pytest

from habicht.cli import main
from habicht.fakes import FakeAdvert, render_search_page
from habicht.fakes.willhaben_site import MARKETPLACE, FakeWillhabenSite

# Page 1 of a search that found more than it shows.
PAGE = render_search_page(
    [FakeAdvert("101", "RTX 3070", Decimal(400)), FakeAdvert("102", "Sofa", None, bumped=True)],
    rows_found=57,
)


pytestmark = pytest.mark.usefixtures("restore_logging")


@pytest.fixture
def willhaben(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeWillhabenSite]:
    """The fake willhaben on 127.0.0.1, where HABICHT_WILLHABEN_URL points; it answers PAGE
    until a test lists adverts of its own (`intercept(None)`, then `set_listings`)."""
    site = FakeWillhabenSite()
    site.intercept(lambda request: httpx.Response(200, text=PAGE))
    with site.serve() as server:
        monkeypatch.setenv("HABICHT_WILLHABEN_URL", server.base_url)
        yield site


def paths(site: FakeWillhabenSite) -> list[str]:
    """Each request's path and query, as sent."""
    return [request.url.raw_path.decode() for request in site.log]


def test_scrape_prints_the_listings(
    willhaben: FakeWillhabenSite, capsys: pytest.CaptureFixture[str]
) -> None:
    """The normalised search is fetched from HABICHT_WILLHABEN_URL and its listings printed."""
    url = "https://willhaben.at/iad/kaufen-und-verkaufen/marktplatz?keyword=rtx&utm_source=x"
    assert main(["scrape", url]) == 0
    assert paths(willhaben) == ["/iad/kaufen-und-verkaufen/marktplatz?keyword=rtx&sort=1&rows=200"]
    out = capsys.readouterr().out
    assert "2 listings shown of 57 found" in out
    assert "RTX 3070" in out
    assert "€ 400" in out
    assert "Sofa (bumped)" in out
    assert "https://www.willhaben.at/iad/kaufen-und-verkaufen/d/rtx-3070-101/" in out


@pytest.mark.parametrize(
    "argument",
    ["https://evil.example/iad/kaufen-und-verkaufen/marktplatz", "ftp://willhaben.at/iad/x/y"],
)
def test_scrape_refuses_what_is_not_a_search(
    willhaben: FakeWillhabenSite, capsys: pytest.CaptureFixture[str], argument: str
) -> None:
    """An invalid URL is one clear line on stderr and exit code 2, with no request made."""
    assert main(["scrape", argument]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("habicht: error: not a willhaben search")
    assert paths(willhaben) == []


def test_a_malformed_page_is_one_line_and_exit_1(
    willhaben: FakeWillhabenSite, capsys: pytest.CaptureFixture[str]
) -> None:
    """An advert of an unknown shape is reported in one line, no traceback (review of issue 3)."""
    odd = '"attributes":{"attribute":5,"x":'
    willhaben.intercept(
        lambda request: httpx.Response(200, text=PAGE.replace('"attributes":{"attribute":', odd, 1))
    )
    assert main(["scrape", "rtx"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("habicht: error: layout: ")
    assert "advertSummary[0].attributes.attribute`" in err  # where on the page it is


def test_a_listing_without_location_prints_no_placeholder(
    willhaben: FakeWillhabenSite, capsys: pytest.CaptureFixture[str]
) -> None:
    """A listing with no location prints nothing for it, never "[None]"."""
    willhaben.intercept(None)
    willhaben.set_listings(MARKETPLACE, [FakeAdvert("7", "Lampe", Decimal(5), location="")])
    assert main(["scrape", "lampe"]) == 0
    out = capsys.readouterr().out
    assert "Lampe" in out
    assert "[" not in out


def test_reserved_and_bumped_listings_are_marked_as_such(
    willhaben: FakeWillhabenSite, capsys: pytest.CaptureFixture[str]
) -> None:
    """A reserved advert prints as reserved under its plain title, a bumped one as bumped."""
    willhaben.intercept(None)
    willhaben.set_listings(
        MARKETPLACE,
        [
            FakeAdvert("7", "Lampe", Decimal(5), reserved=True),
            FakeAdvert("8", "Bett", Decimal(9), reserved=True, bumped=True),
            FakeAdvert("9", "Tisch", Decimal(7)),
        ],
    )
    assert main(["scrape", "lampe"]) == 0
    out = capsys.readouterr().out
    lines = [line.removesuffix("  [Wien, 07. Bezirk, Neubau]") for line in out.splitlines()]
    assert any(line.endswith("  Lampe (reserved)") for line in lines)
    assert any(line.endswith("  Bett (reserved, bumped)") for line in lines)
    assert any(line.endswith("  Tisch") for line in lines)
    assert "reserviert" not in out
