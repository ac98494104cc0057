"""The fake willhaben site, read by the real scraper client over both adapters."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from decimal import Decimal
from typing import Any

import httpx
import pytest
from kit.fakes import FakeClock

from habicht.fakes import FakeAdvert
from habicht.fakes.willhaben_estate import BUY, PLACES, FakeUnit
from habicht.fakes.willhaben_flats import PLACEMENTS, flat, project
from habicht.fakes.willhaben_site import MARKETPLACE, FakeWillhabenSite, SiteFault
from habicht.willhaben.advert import AdvertPage, Missing
from habicht.willhaben.errors import Blocked, FetchError, LayoutError
from habicht.willhaben.fetch import WillhabenClient
from habicht.willhaben.parse import parse_search_page

SEARCH = "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz?keyword=grafikkarte"
OTHER = "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz?keyword=sofa"
# What habicht fetches for SEARCH: normalised, so with sort=1 and sorted parameters.
FETCHED = "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz?keyword=grafikkarte&sort=1"

GPU = FakeAdvert("1001", "RTX 3070", Decimal(350))
CABLE = FakeAdvert("1002", "HDMI Kabel", Decimal(5))


@pytest.fixture(params=["transport", "loopback"])
async def scraper_and_site(
    request: pytest.FixtureRequest,
) -> AsyncIterator[tuple[WillhabenClient, FakeWillhabenSite]]:
    site = FakeWillhabenSite()
    site.set_listings(SEARCH, [GPU])
    site.set_listings(OTHER, [CABLE])
    clock = FakeClock()
    async with AsyncExitStack() as stack:
        if request.param == "loopback":
            server = stack.enter_context(site.serve())
            client = WillhabenClient(
                base_url=server.base_url, fetch_gap=0, clock=clock, sleep=clock.sleep, attempts=1
            )
        else:
            client = WillhabenClient(
                base_url="https://www.willhaben.at",
                fetch_gap=0,
                clock=clock,
                sleep=clock.sleep,
                transport=site.transport(),
                attempts=1,
            )
        yield await stack.enter_async_context(client), site


async def test_serves_the_registered_search(
    scraper_and_site: tuple[WillhabenClient, FakeWillhabenSite],
) -> None:
    """A normalised request (sort=1 added) gets the page of the search registered without it."""
    client, site = scraper_and_site
    page = await client.search(FETCHED)
    assert [(listing.id, listing.price) for listing in page.listings] == [("1001", Decimal(350))]
    assert site.hits == {SEARCH: 1}
    assert site.requests == {"/iad/kaufen-und-verkaufen/marktplatz": 1}


async def test_catalogue_changes_between_cycles(
    scraper_and_site: tuple[WillhabenClient, FakeWillhabenSite],
) -> None:
    """Added adverts appear on top and a price drop shows on the next fetch."""
    client, site = scraper_and_site
    await client.search(FETCHED)
    site.add(SEARCH, FakeAdvert("1003", "RX 6800", Decimal(420)))
    site.set_price("1001", Decimal(300))
    page = await client.search(FETCHED)
    assert [(listing.id, listing.price) for listing in page.listings] == [
        ("1003", Decimal(420)),
        ("1001", Decimal(300)),
    ]
    site.remove(SEARCH, "1003")
    assert [a.id for a in site.listings(SEARCH)] == ["1001"]


@pytest.mark.parametrize(
    ("fault", "error", "message"),
    [
        (SiteFault.forbidden(), Blocked, "^willhaben answered 403 Forbidden$"),
        (SiteFault.rate_limited(120), Blocked, "^willhaben answered 429 Too Many Requests$"),
        (SiteFault.block_page(), Blocked, "^willhaben answered with its block page$"),
        (SiteFault.server_error(), FetchError, "^willhaben answered 500$"),
        (SiteFault.changed_layout(), LayoutError, "^the page has no __NEXT_DATA__ script$"),
        (SiteFault.down(), FetchError, "^cannot reach willhaben: "),
    ],
)
@pytest.mark.parametrize("page", ["search", "advert"])
async def test_faults_reach_the_scraper_as_its_errors(
    scraper_and_site: tuple[WillhabenClient, FakeWillhabenSite],
    fault: SiteFault,
    error: type[Exception],
    message: str,
    page: str,
) -> None:
    """Each scripted fault becomes the scraper's own error, once, for a search or an advert's
    page (scripted by its URL); a search's fault counts as its hit."""
    client, site = scraper_and_site
    site.fail_next(fault, url=SEARCH if page == "search" else GPU.url)
    with pytest.raises(error, match=message):
        await (client.search(FETCHED) if page == "search" else client.advert(GPU.url))
    assert (site.hits[SEARCH], site.advert_pages[GPU.id]) == (
        (1, 0) if page == "search" else (0, 1)
    )
    assert site.faults_pending(SEARCH) + site.faults_pending(GPU.url) == 0


async def test_rate_limit_sends_retry_after(
    scraper_and_site: tuple[WillhabenClient, FakeWillhabenSite],
) -> None:
    """A 429 carries its Retry-After, which the scraper honours as its pause."""
    client, site = scraper_and_site
    site.fail_next(SiteFault.rate_limited(7200))
    with pytest.raises(Blocked) as caught:
        await client.search(FETCHED)
    assert caught.value.retry_after == pytest.approx(7200)


async def test_fault_for_one_search_leaves_others_alone(
    scraper_and_site: tuple[WillhabenClient, FakeWillhabenSite],
) -> None:
    """A fault scripted for one search is not spent on another."""
    client, site = scraper_and_site
    site.fail_next(SiteFault.server_error(), url=SEARCH)
    other = await client.search(OTHER + "&sort=1")
    assert [listing.id for listing in other.listings] == ["1002"]
    with pytest.raises(FetchError, match=r"^willhaben answered 500$"):
        await client.search(FETCHED)


async def test_an_intercepted_fault_answers_every_request_until_lifted(
    scraper_and_site: tuple[WillhabenClient, FakeWillhabenSite],
) -> None:
    """`intercept(fault)` answers every request with it, a search's or not, until
    `intercept(None)`; the log keeps each request in order."""
    client, site = scraper_and_site
    site.intercept(SiteFault.server_error(503))
    for _ in range(2):
        with pytest.raises(FetchError, match=r"^willhaben answered 503$"):
            await client.search(FETCHED)
    with pytest.raises(FetchError, match=r"^willhaben answered 503$"):
        await client.search("https://www.willhaben.at/iad/nowhere?keyword=x")
    site.intercept(None)
    assert [listing.id for listing in (await client.search(FETCHED)).listings] == ["1001"]
    assert [(r.url.path, r.url.params.get("keyword")) for r in site.log] == [
        ("/iad/kaufen-und-verkaufen/marktplatz", "grafikkarte"),
        ("/iad/kaufen-und-verkaufen/marktplatz", "grafikkarte"),
        ("/iad/nowhere", "x"),
        ("/iad/kaufen-und-verkaufen/marktplatz", "grafikkarte"),
    ]
    assert site.hits == {SEARCH: 3}


async def test_a_hook_sees_each_request_and_answers_raises_or_lets_it_through(
    scraper_and_site: tuple[WillhabenClient, FakeWillhabenSite],
) -> None:
    """A hook function answers with a response or a fault, raises an httpx error (the
    scraper's fetch error), or returns None for the site's own page; it runs before the
    page is read, so what it changes on the site shows in that very answer."""
    client, site = scraper_and_site
    answers: list[httpx.Response | SiteFault | Exception | None] = [
        httpx.Response(404, text="weg"),
        SiteFault.server_error(502),
        httpx.ConnectError("refused"),
        None,
    ]
    seen: list[str | None] = []

    def hook(request: httpx.Request) -> httpx.Response | SiteFault | None:
        seen.append(request.url.params.get("keyword"))
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        if answer is None:
            site.set_price("1001", Decimal(299))
        return answer

    site.intercept(hook)
    with pytest.raises(FetchError, match=r"^willhaben answered 404$"):
        await client.search(FETCHED)
    with pytest.raises(FetchError, match=r"^willhaben answered 502$"):
        await client.search(FETCHED)
    with pytest.raises(FetchError, match=r"^cannot reach willhaben: "):
        await client.search(FETCHED)
    page = await client.search(FETCHED)
    assert [(listing.id, listing.price) for listing in page.listings] == [("1001", Decimal(299))]
    assert seen == ["grafikkarte"] * 4
    assert len(site.log) == 4


def test_a_redirect_fault_names_its_location() -> None:
    """`SiteFault.redirect` answers 302 (or the status given) with a Location header."""
    site = FakeWillhabenSite()
    site.set_listings(SEARCH, [GPU])
    site.fail_next(SiteFault.redirect("/elsewhere"), SiteFault.redirect("/moved", 301))
    first, second = (site.handle(httpx.Request("GET", FETCHED)) for _ in range(2))
    assert (first.status_code, first.headers["Location"]) == (302, "/elsewhere")
    assert (second.status_code, second.headers["Location"]) == (301, "/moved")


def test_unknown_search_is_not_found() -> None:
    """A path nobody registered gets a 404 and is still counted."""
    site = FakeWillhabenSite()
    response = site.handle(httpx.Request("GET", "https://www.willhaben.at/iad/anything"))
    assert response.status_code == 404
    assert site.requests["/iad/anything"] == 1


def test_most_specific_search_wins() -> None:
    """With two registered searches on one path, the one matching more parameters answers."""
    site = FakeWillhabenSite()
    site.set_listings("/iad/kaufen-und-verkaufen/marktplatz", [CABLE])
    site.set_listings(SEARCH, [GPU])
    site.handle(httpx.Request("GET", FETCHED))
    assert site.hits == {SEARCH: 1}


def _page(site: FakeWillhabenSite, query: str) -> tuple[list[str], int, Any]:
    """The ids, rowsFound and the raw searchResult the site answers for SEARCH + `query`."""
    response = site.handle(httpx.Request("GET", f"{FETCHED}{query}"))
    page = parse_search_page(response.text)
    match = re.search(
        r'<script id="__NEXT_DATA__" type="application/json">(.*?)</script>', response.text, re.S
    )
    assert match is not None
    result = json.loads(match.group(1))["props"]["pageProps"]["searchResult"]
    return [listing.id for listing in page.listings], page.rows_found, result


def test_pages_hold_30_by_default_at_most_200_and_page_on() -> None:
    """Like the real site: 30 adverts without `rows`, `rows` capped at 200, `page=` pages,
    and rowsFound the whole search (issue 9)."""
    site = FakeWillhabenSite()
    adverts = [FakeAdvert(str(1000 + n), f"Anzeige {n}", Decimal(n + 1)) for n in range(450)]
    site.set_listings(SEARCH, adverts)
    ids = [advert.id for advert in adverts]
    first, found, result = _page(site, "")
    assert (first, found, result["rowsRequested"]) == (ids[:30], 450, 30)
    capped, _, result = _page(site, "&rows=1000")
    assert (capped, result["rowsRequested"]) == (ids[:200], 200)
    third, _, result = _page(site, "&rows=200&page=3")
    assert (third, result["pageRequested"]) == (ids[400:], 3)
    assert _page(site, "&rows=200&page=4")[0] == []


def test_bumping_moves_an_advert_on_top_and_reserving_marks_it() -> None:
    """A bumped advert is first and marked bumped, with its new PUBLISHED; a reserved one
    stays in place, shown reserved."""
    site = FakeWillhabenSite()
    site.set_listings(SEARCH, [GPU, CABLE])
    site.bump(SEARCH, CABLE.id, published_ms=1_787_407_800_000)
    site.set_reserved(GPU.id, True)
    response = site.handle(httpx.Request("GET", FETCHED))
    cable, gpu = parse_search_page(response.text).listings
    assert (cable.id, cable.bumped, cable.published_at) == (CABLE.id, True, 1_787_407_800.0)
    assert (gpu.id, gpu.reserved, gpu.bumped) == (GPU.id, True, False)


# ----------------------------------------------------------------- real estate (issue 29)

RENT = "https://www.willhaben.at/iad/immobilien/mietwohnungen/mietwohnung-angebote"
TIROL_CAPPED = "https://www.willhaben.at/iad/immobilien/mietwohnungen/tirol?PRICE_TO=1150"


def _estate_page(site: FakeWillhabenSite, url: str) -> tuple[list[dict[str, Any]], int]:
    """The adverts of a page and its `rowsFound`."""
    text = site.handle(httpx.Request("GET", url)).text
    data = re.search(r'<script id="__NEXT_DATA__" type="application/json">(.*?)</script>', text)
    assert data is not None
    result = json.loads(data[1])["props"]["pageProps"]["searchResult"]
    return list(result["advertSummaryList"]["advertSummary"]), result["rowsFound"]


def _referer(summary: dict[str, Any]) -> str | None:
    return next(
        (a["values"][0] for a in summary["attributes"]["attribute"] if a["name"] == "REFERER"),
        None,
    )


def test_a_paid_placement_tops_every_filtered_page_whatever_the_filters() -> None:
    """REALESTATE.md, trap 1: the issue's € 1,695 Vienna flat on a Tirol search capped at
    € 1,150, at position 0, `REFERER` "pp", counted in `rowsFound`; the flats below it."""
    site = FakeWillhabenSite(world=True)
    site.publish(flat("1", "Innsbruck", 990, place=next(p for p in PLACES if p.state == "Tirol")))
    site.publish(flat("2", "Wien", 990))
    summaries, found = _estate_page(site, TIROL_CAPPED)
    assert [s["id"] for s in summaries] == [PLACEMENTS[0].id, "1"]
    assert found == 2
    assert [_referer(s) for s in summaries] == ["pp", None]
    assert PLACEMENTS[0].price == Decimal(1695)
    listings = parse_search_page(site.handle(httpx.Request("GET", TIROL_CAPPED)).content)
    assert len(listings.listings) == 2
    # Even a search that lists nothing shows one.
    summaries, found = _estate_page(site, f"{TIROL_CAPPED}&PRICE_FROM=1100")
    assert (len(summaries), found) == (1, 1)


def test_the_placement_rotates_between_reads_within_its_category() -> None:
    """Each read of a category's page shows its next paid advert: a rent search rents, a
    buy search buys; a registered search and the marketplace show none."""
    site = FakeWillhabenSite(world=True)
    rents = [p.id for p in PLACEMENTS if p.estate is not None and p.estate.category == 2]
    shown = [_estate_page(site, f"{RENT}?areaId=900")[0][0]["id"] for _ in range(len(rents) + 1)]
    assert shown == [*rents, rents[0]]
    buy = "https://www.willhaben.at/iad/immobilien/eigentumswohnung/eigentumswohnung-angebote"
    (first, *_), _found = _estate_page(site, buy)
    assert first["adTypeId"] == 1
    assert _referer(first) == "pp"
    assert _estate_page(site, f"{MARKETPLACE}?sort=1")[0] == []
    site.set_listings(f"{RENT}?areaId=117229", [flat("3", "Neubau", 800)])
    assert [s["id"] for s in _estate_page(site, f"{RENT}?areaId=117229")[0]] == ["3"]


def test_the_placement_is_on_the_first_page_only_and_paging_counts_it() -> None:
    site = FakeWillhabenSite(world=True)
    site.publish(*(flat(str(n), f"Wohnung {n}", 800, published_ms=n) for n in range(1, 4)))
    first, found = _estate_page(site, f"{RENT}?rows=2")
    second, _found = _estate_page(site, f"{RENT}?rows=2&page=2")
    assert found == 4
    assert [_referer(s) for s in first] == ["pp", None]
    assert [s["id"] for s in first[1:] + second] == ["3", "2", "1"]


def test_a_building_project_shows_only_the_units_that_fit() -> None:
    """Trap 2 as the page shows it: listed under a rooms filter through a unit, its
    `children` the units that fit that search."""
    units = (FakeUnit("11", Decimal(213000), 48, 2), FakeUnit("12", Decimal(405000), 94, 4))
    site = FakeWillhabenSite(world=True)
    site.placements = ()
    site.publish(project("10", "Wohnpark", units, category=BUY, place=22))
    buy = "https://www.willhaben.at/iad/immobilien/eigentumswohnung/eigentumswohnung-angebote"
    (summary,), _found = _estate_page(site, f"{buy}?NO_OF_ROOMS_BUCKET=4X4")
    assert (summary["id"], summary["adTypeId"]) == ("10", 16)
    assert [child["id"] for child in summary["children"]] == ["12"]
    assert _estate_page(site, f"{buy}?NO_OF_ROOMS_BUCKET=3X3") == ([], 0)


# ----------------------------------------------------------------- adverts' own pages


async def test_each_advert_has_its_page_at_its_url(
    scraper_and_site: tuple[WillhabenClient, FakeWillhabenSite],
) -> None:
    """An advert's page is at the path its search entry's `SEO_URL` gives, as it is now (a
    price drop, reserved); page requests are counted by advert, not as search hits."""
    client, site = scraper_and_site
    (listing,) = (await client.search(FETCHED)).listings
    assert listing.url == GPU.url
    assert await client.advert(GPU.url) == AdvertPage(
        ad_id="1001", status="active", price=Decimal(350), price_display="€ 350", title="RTX 3070"
    )
    site.set_price(GPU.id, Decimal(300))
    site.set_reserved(GPU.id, True)
    page = await client.advert(GPU.url)
    assert isinstance(page, AdvertPage)
    assert (page.status, page.price, page.title) == ("reserved", Decimal(300), "RTX 3070")
    assert (site.advert_pages, site.hits) == ({"1001": 2}, {SEARCH: 1})
    assert site.requests["/iad/kaufen-und-verkaufen/d/rtx-3070-1001/"] == 2


async def test_leaving_a_search_keeps_the_page(
    scraper_and_site: tuple[WillhabenClient, FakeWillhabenSite],
) -> None:
    """An advert that `remove` took out of a search (it fell off the page) is still active on
    its own page."""
    client, site = scraper_and_site
    site.remove(SEARCH, GPU.id)
    assert (await client.search(FETCHED)).listings == []
    page = await client.advert(GPU.url)
    assert isinstance(page, AdvertPage)
    assert page.status == "active"


@pytest.mark.parametrize("status", [404, 410])
async def test_a_taken_down_advert_leaves_every_search_and_its_page_is_gone(
    scraper_and_site: tuple[WillhabenClient, FakeWillhabenSite], status: int
) -> None:
    """`take_down` removes the advert from every search and its page answers 404 or 410
    with an error page; other adverts stay."""
    client, site = scraper_and_site
    site.set_listings(OTHER, [CABLE, GPU])
    site.take_down(GPU.id, status=status)
    assert (await client.search(FETCHED)).listings == []
    assert [listing.id for listing in (await client.search(f"{OTHER}&sort=1")).listings] == [
        CABLE.id
    ]
    assert await client.advert(GPU.url) == Missing(status)
    assert isinstance(await client.advert(CABLE.url), AdvertPage)
    assert site.advert_pages == {GPU.id: 1, CABLE.id: 1}
    gone = site.handle(httpx.Request("GET", GPU.url))
    assert (gone.status_code, "nicht mehr verfügbar" in gone.text) == (status, True)


def test_take_down_refuses_what_it_cannot_do() -> None:
    """Only 404 and 410, and only an advert the site has."""
    site = FakeWillhabenSite()
    site.set_listings(SEARCH, [GPU])
    with pytest.raises(ValueError, match="404 or 410, not 403"):
        site.take_down(GPU.id, status=403)
    with pytest.raises(KeyError, match="no advert '9'"):
        site.take_down("9")


async def test_a_passing_404_on_one_advert_page(
    scraper_and_site: tuple[WillhabenClient, FakeWillhabenSite],
) -> None:
    """`fail_next(SiteFault.not_found(), url=advert.url)` answers that page's next request
    with a 404, spent neither on a search nor on another advert; then the page is back."""
    client, site = scraper_and_site
    site.set_listings(OTHER, [CABLE])
    site.fail_next(SiteFault.not_found(), url=GPU.url)
    await client.search(FETCHED)
    assert isinstance(await client.advert(CABLE.url), AdvertPage)
    assert site.faults_pending(GPU.url) == 1
    assert await client.advert(GPU.url) == Missing(404)
    assert isinstance(await client.advert(GPU.url), AdvertPage)
    assert site.faults_pending(GPU.url) == 0
    site.fail_next(SiteFault.not_found(410))  # for any request: an advert page's too
    assert await client.advert(CABLE.url) == Missing(410)


def test_a_path_like_an_advert_s_that_is_none_is_not_found() -> None:
    """A page for an id the site does not have, or an advert's id under another path, is
    the site's 404 as before, and counts as no advert page."""
    site = FakeWillhabenSite()
    site.set_listings(SEARCH, [GPU])
    for path in ("/iad/kaufen-und-verkaufen/d/rtx-3070-9/", "/iad/x/d/sofa-1001/"):
        response = site.handle(httpx.Request("GET", f"https://www.willhaben.at{path}"))
        assert response.status_code == 404
    assert (site.advert_pages, site.hits) == ({}, {})


def test_the_world_serves_its_adverts_pages_and_its_searches_as_before() -> None:
    """In the world every /iad/ path is a search, except an advert's own page; a taken-down
    advert leaves the world's searches."""
    site = FakeWillhabenSite(world=True)
    sofa = FakeAdvert("2001", "Sofa", Decimal(90), published_ms=2)
    site.publish(GPU, sofa)
    search = f"{MARKETPLACE}?sort=1"

    def listed() -> list[str]:
        page = parse_search_page(site.handle(httpx.Request("GET", search)).content)
        return [listing.id for listing in page.listings]

    assert listed() == ["2001", "1001"]
    page = site.handle(httpx.Request("GET", sofa.url))
    assert "advertDetails" in page.text
    assert "searchResult" not in page.text
    site.take_down(sofa.id, status=410)
    assert site.handle(httpx.Request("GET", sofa.url)).status_code == 410
    assert listed() == ["1001"]
    assert site.advert_pages == {"2001": 2}
