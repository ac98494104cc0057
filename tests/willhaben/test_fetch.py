"""Polite fetching: retries, blocks and backoff, the gap between requests, one error boundary;
for search pages and for adverts' own pages alike."""

from __future__ import annotations

import asyncio
import itertools
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import Future, ThreadPoolExecutor
from decimal import Decimal
from typing import Any, TypeVar

import httpx
import pytest
from kit import willhaben_client
from kit.fakes import FakeClock
from kit.outsized import (
    MARKETPLACE_PAGE,
    MIB,
    Chunks,
    compressed,
    grown_page,
    gzip_bomb,
    page_without_data,
    traced,
)

from habicht.fakes import FakeAdvert, render_search_page
from habicht.fakes.willhaben_site import FakeWillhabenSite, SiteFault
from habicht.willhaben.advert import AdvertPage, Missing
from habicht.willhaben.errors import Blocked, FetchError, LayoutError, ScrapeError
from habicht.willhaben.fetch import MAX_PAGE_BYTES, WillhabenClient
from habicht.willhaben.urls import normalise_search_url

BASE = "http://127.0.0.1:8099"
SEARCH = normalise_search_url(
    "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz?keyword=rtx"
)
OTHER = normalise_search_url(
    "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz?keyword=sofa"
)
FETCHED = f"{BASE}/iad/kaufen-und-verkaufen/marktplatz?keyword=rtx&sort=1&rows=200"
GPU = FakeAdvert("1", "RTX 3070", Decimal(400))
ADVERT = "https://www.willhaben.at/iad/kaufen-und-verkaufen/d/rtx-3070-1/"
"""GPU's own page, as its `Listing.url` names it."""
ADVERT_FETCHED = f"{BASE}/iad/kaufen-und-verkaufen/d/rtx-3070-1/"
_R = TypeVar("_R")


@pytest.fixture
def site() -> FakeWillhabenSite:
    """willhaben with SEARCH and OTHER, each listing one advert, GPU."""
    site = FakeWillhabenSite()
    for search in (SEARCH, OTHER):
        site.set_listings(search, [GPU])
    return site


def calls(site: FakeWillhabenSite, url: str = FETCHED) -> int:
    """How many requests the site received for exactly `url`."""
    return sum(request.url == httpx.URL(url) for request in site.log)


@pytest.fixture
async def client(site: FakeWillhabenSite, clock: FakeClock) -> AsyncIterator[WillhabenClient]:
    async with willhaben_client(
        site.transport(),
        clock,
        base_url=BASE,
        attempts=3,
        retry_delay=5.0,
        block_base=600.0,
        block_cap=3600.0,
    ) as willhaben:
        yield willhaben


async def test_a_page_is_fetched_from_the_configured_base_like_a_browser(
    client: WillhabenClient, site: FakeWillhabenSite
) -> None:
    """The request goes to HABICHT_WILLHABEN_URL with a browser User-Agent and de-AT."""
    page = await client.search(SEARCH)
    assert [listing.id for listing in page.listings] == ["1"]
    (request,) = site.log
    assert request.url == httpx.URL(FETCHED)
    assert request.headers["Accept-Language"].startswith("de-AT")
    assert request.headers["User-Agent"].startswith("Mozilla/5.0")


async def test_429_waits_exactly_retry_after_then_succeeds(
    client: WillhabenClient, site: FakeWillhabenSite, clock: FakeClock
) -> None:
    """A 429 with Retry-After: 7 is retried after 7 s and does not start a backoff."""
    site.fail_next(SiteFault.rate_limited(7))
    await client.search(SEARCH)
    assert calls(site) == 2
    assert clock.slept == [7.0]
    assert client.paused_until is None


async def test_5xx_is_retried_with_growing_waits(
    client: WillhabenClient, site: FakeWillhabenSite, clock: FakeClock
) -> None:
    """Two 5xx answers are retried after 5 s and 10 s, then the page is returned."""
    site.fail_next(SiteFault(502), SiteFault(503))
    page = await client.search(SEARCH)
    assert (calls(site), len(page.listings)) == (3, 1)
    assert clock.slept == [5.0, 10.0]


async def test_timeouts_fail_after_the_last_attempt(
    client: WillhabenClient, site: FakeWillhabenSite
) -> None:
    """Timing out on every attempt raises FetchError chained from the httpx timeout."""

    def too_slow(request: httpx.Request) -> None:
        raise httpx.ReadTimeout("slow", request=request)

    site.intercept(too_slow)
    with pytest.raises(FetchError) as failed:
        await client.search(SEARCH)
    assert calls(site) == 3
    assert isinstance(failed.value.__cause__, httpx.ReadTimeout)
    assert failed.value.kind == "fetch"


async def test_connect_errors_are_fetch_errors(
    client: WillhabenClient, site: FakeWillhabenSite
) -> None:
    """An unreachable site is a FetchError; no httpx error leaves the client."""
    site.intercept(SiteFault.down())
    with pytest.raises(FetchError) as failed:
        await client.search(SEARCH)
    assert isinstance(failed.value.__cause__, httpx.ConnectError)


async def test_a_404_is_not_retried(client: WillhabenClient, site: FakeWillhabenSite) -> None:
    """An answer another try would not change fails at once."""
    site.intercept(SiteFault(404))
    with pytest.raises(FetchError, match=r"^willhaben answered 404$"):
        await client.search(SEARCH)
    assert calls(site) == 1


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        (SiteFault.block_page(), "^willhaben answered with its block page$"),
        (SiteFault(403, "Forbidden"), "^willhaben answered 403 Forbidden$"),
    ],
    ids=["block-page", "403"],
)
@pytest.mark.parametrize("read", ["search", "advert"])
async def test_a_block_pauses_all_of_willhaben(
    client: WillhabenClient,
    site: FakeWillhabenSite,
    clock: FakeClock,
    answer: SiteFault,
    error: str,
    read: str,
) -> None:
    """A block page or 403, for a search or an advert's page, raises Blocked and pauses every
    search and advert page without a request."""
    site.intercept(answer)
    with pytest.raises(Blocked, match=error):
        await (client.search(SEARCH) if read == "search" else client.advert(ADVERT))
    assert client.paused_until == clock.now + 600
    with pytest.raises(Blocked) as paused:
        await client.search(OTHER)
    assert paused.value.retry_after == 600
    with pytest.raises(Blocked, match=r"^backing off from willhaben"):
        await client.advert(ADVERT)
    # Only the first read was asked.
    asked = FETCHED if read == "search" else ADVERT_FETCHED
    assert [request.url for request in site.log] == [httpx.URL(asked)]


async def test_the_block_pause_grows_honours_retry_after_and_resets(
    client: WillhabenClient, site: FakeWillhabenSite, clock: FakeClock
) -> None:
    """Blocks in a row pause 600 s, 1200 s, a long Retry-After; a success resets the growth."""
    site.fail_next(SiteFault(403), SiteFault(403), SiteFault.rate_limited(3000))
    pauses = []
    for _ in range(3):
        with pytest.raises(Blocked):
            await client.search(SEARCH)
        assert client.paused_until is not None
        pauses.append(client.paused_until - clock.now)
        clock.advance(pauses[-1])
    assert pauses == [600, 1200, 3000]
    await client.search(SEARCH)
    site.fail_next(SiteFault(403))
    with pytest.raises(Blocked, match=r"^willhaben answered 403 Forbidden$"):
        await client.search(SEARCH)
    assert client.paused_until == clock.now + 600


async def test_429_on_every_attempt_is_a_block(
    client: WillhabenClient, site: FakeWillhabenSite, clock: FakeClock
) -> None:
    """A 429 without Retry-After is retried after retry_delay, then gives up with Blocked."""
    site.intercept(SiteFault(429))
    with pytest.raises(Blocked, match=r"^willhaben answered 429 Too Many Requests$"):
        await client.search(SEARCH)
    assert (calls(site), clock.slept) == (3, [5.0, 5.0])
    assert client.paused_until == clock.now + 600


async def test_a_long_retry_after_is_not_waited_for_within_the_cycle(
    client: WillhabenClient, site: FakeWillhabenSite, clock: FakeClock
) -> None:
    """A Retry-After beyond max_retry_wait (here an HTTP date 100 s away) blocks at once."""
    when = "Tue, 14 Nov 2023 22:15:00 GMT"  # FakeClock starts at 22:13:20 that day
    site.intercept(SiteFault(429, headers={"Retry-After": when}))
    with pytest.raises(Blocked) as blocked:
        await client.search(SEARCH)
    assert (calls(site), clock.slept, blocked.value.retry_after) == (1, [], 100.0)


async def test_requests_keep_the_gap(
    client: WillhabenClient, site: FakeWillhabenSite, clock: FakeClock
) -> None:
    """Consecutive requests start at least fetch_gap seconds after the previous one ended."""
    started: list[float] = []

    def answer(request: httpx.Request) -> None:
        started.append(clock.now)
        clock.advance(0.5)  # the request takes half a second

    site.intercept(answer)
    for url in (SEARCH, OTHER, SEARCH):
        await client.search(url)
    assert [b - a for a, b in itertools.pairwise(started)] == [2.5, 2.5]


async def test_layout_errors_are_not_retried(
    client: WillhabenClient, site: FakeWillhabenSite
) -> None:
    """A page without data is a LayoutError after one request, and no block."""
    site.intercept(SiteFault(200, "<html></html>"))
    with pytest.raises(LayoutError, match=r"^the page has no __NEXT_DATA__ script$"):
        await client.search(SEARCH)
    assert calls(site) == 1
    assert client.paused_until is None


async def test_a_redirect_on_the_site_is_followed_after_the_gap(
    client: WillhabenClient, site: FakeWillhabenSite, clock: FakeClock
) -> None:
    """A redirect to the base's own origin is followed, its hop a request that keeps the gap."""
    moved = f"{BASE}/iad/kaufen-und-verkaufen/marktplatz/?keyword=rtx&sort=1"
    site.fail_next(SiteFault.redirect(moved, 301))
    assert len((await client.search(SEARCH)).listings) == 1
    assert [request.url for request in site.log] == [httpx.URL(FETCHED), httpx.URL(moved)]
    assert clock.slept == [2.0]


@pytest.mark.parametrize(
    "location",
    [
        "https://evil.example/iad/x",
        "http://127.0.0.1:8098/iad/kaufen-und-verkaufen/marktplatz?keyword=rtx",
        "https://127.0.0.1:8099/iad/kaufen-und-verkaufen/marktplatz?keyword=rtx",
        "http://localhost:8099/iad/kaufen-und-verkaufen/marktplatz?keyword=rtx",
    ],
    ids=["other-host", "other-port", "other-scheme", "other-name"],
)
async def test_redirects_off_the_base_origin_fail_at_once(
    client: WillhabenClient, site: FakeWillhabenSite, location: str
) -> None:
    """A redirect to another scheme, host or port is refused unfetched and not retried
    (review of issue 3)."""
    site.intercept(SiteFault.redirect(location))
    with pytest.raises(FetchError, match="off-site") as failed:
        await client.search(SEARCH)
    # One request, to the search: not retried, and nothing fetched from `location`.
    assert ([request.url for request in site.log], failed.value.retryable) == (
        [httpx.URL(FETCHED)],
        False,
    )


async def test_a_redirect_loop_fails_at_once(
    client: WillhabenClient, site: FakeWillhabenSite
) -> None:
    """More than 3 redirects in a row fail the search without retrying the loop."""
    site.intercept(SiteFault.redirect(FETCHED))
    with pytest.raises(FetchError, match="redirects") as failed:
        await client.search(SEARCH)
    assert (calls(site), len(site.log), failed.value.retryable) == (4, 4, False)


@pytest.mark.parametrize(
    ("retry_after", "slept", "pause"),
    [
        ("9" * 400, [], 3600.0),
        ("Fri, 31 Dec 9999 23:59:59 GMT", [], 3600.0),
        ("\u00b2", [5.0, 5.0], 600.0),
        ("-1", [5.0, 5.0], 600.0),
    ],
    ids=["huge-seconds", "far-date", "superscript-digit", "negative"],
)
async def test_a_retry_after_is_read_strictly_and_capped(
    client: WillhabenClient,
    site: FakeWillhabenSite,
    clock: FakeClock,
    retry_after: str,
    slept: list[float],
    pause: float,
) -> None:
    """A huge Retry-After pauses at most block_cap; one that is not ASCII digits or an HTTP
    date counts as absent (retry_delay between tries), never as a crash (review of issue 3)."""
    # Raw bytes: a `SiteFault`'s headers are text httpx would refuse to encode ("²").
    header = [(b"Retry-After", retry_after.encode())]
    site.intercept(lambda request: httpx.Response(429, headers=header))
    with pytest.raises(Blocked, match=r"^willhaben answered 429 Too Many Requests$"):
        await client.search(SEARCH)
    assert clock.slept == slept
    assert client.paused_until == clock.now + pause


SECOND = {
    "search": lambda client: client.search(OTHER),
    "advert": lambda client: client.advert(ADVERT),
}
"""What runs beside a search in `test_at_most_one_request_is_in_flight`."""


@pytest.mark.parametrize("second", SECOND.values(), ids=SECOND.keys())
async def test_at_most_one_request_is_in_flight(
    site: FakeWillhabenSite,
    clock: FakeClock,
    second: Callable[[WillhabenClient], Awaitable[object]],
) -> None:
    """A search and another search or an advert's page at once: the second request starts
    after the first ended plus the gap."""
    spans: list[tuple[float, float]] = []
    in_flight = 0

    # An async transport in front of the site: only an answer that awaits lets the other
    # search run meanwhile, and the site's own handler is synchronous.
    async def answer(request: httpx.Request) -> httpx.Response:
        nonlocal in_flight
        in_flight += 1
        start = clock.now
        assert in_flight == 1
        for _ in range(5):  # let the other search run, were it not held back
            await asyncio.sleep(0)
        clock.advance(0.5)
        spans.append((start, clock.now))
        in_flight -= 1
        return site.handle(request)

    async with willhaben_client(httpx.MockTransport(answer), clock, base_url=BASE) as client:
        await asyncio.gather(client.search(SEARCH), second(client))
    (_, first_end), (second_start, _) = spans
    assert second_start >= first_end + 2.0


async def test_a_closed_client_refuses_use(site: FakeWillhabenSite) -> None:
    """Using the client outside its `async with` raises a sentence, not an httpx error."""
    client = WillhabenClient(base_url=BASE, fetch_gap=0, transport=site.transport())
    with pytest.raises(RuntimeError, match="not open yet") as misuse:
        await client.search(SEARCH)
    assert not isinstance(misuse.value, ScrapeError)  # a bug, not a search failure to count
    async with client:
        pass
    with pytest.raises(RuntimeError, match="was closed"):
        await client.open()


# ----------------------------------------------------------------- an advert's own page


async def test_an_active_advert_page_is_read_from_the_configured_base(
    client: WillhabenClient, site: FakeWillhabenSite
) -> None:
    """`advert(url)` fetches the page's path from HABICHT_WILLHABEN_URL and says what it says."""
    assert await client.advert(ADVERT) == AdvertPage(
        ad_id="1", status="active", price=Decimal(400), price_display="€ 400", title="RTX 3070"
    )
    (request,) = site.log
    assert request.url == httpx.URL(ADVERT_FETCHED)
    assert request.headers["User-Agent"].startswith("Mozilla/5.0")
    assert site.advert_pages == {"1": 1}


async def test_a_reserved_advert_page_says_reserved(
    client: WillhabenClient, site: FakeWillhabenSite
) -> None:
    """The seller reserved the advert: its page says so, at its current price."""
    site.set_reserved("1", True)
    site.set_price("1", Decimal(350))
    page = await client.advert(ADVERT)
    assert isinstance(page, AdvertPage)
    assert (page.status, page.price, page.title) == ("reserved", Decimal(350), "RTX 3070")


@pytest.mark.parametrize("status", [404, 410])
async def test_a_missing_advert_page_is_missing_not_an_error(
    client: WillhabenClient, site: FakeWillhabenSite, clock: FakeClock, status: int
) -> None:
    """A 404 or 410 is `Missing(status)` after one request: no retry, no pause, no error."""
    site.take_down("1", status=status)
    assert await client.advert(ADVERT) == Missing(status)
    assert (len(site.log), clock.slept, client.paused_until) == (1, [], None)


async def test_a_search_that_answers_404_is_still_an_error(
    client: WillhabenClient, site: FakeWillhabenSite
) -> None:
    """Only an advert's page may be missing: a search answering 404 or 410 fails as before."""
    site.fail_next(SiteFault.not_found(), SiteFault.not_found(410))
    for status in (404, 410):
        with pytest.raises(FetchError, match=f"^willhaben answered {status}$") as failed:
            await client.search(SEARCH)
        assert not failed.value.retryable


async def test_a_passing_404_then_the_page(
    client: WillhabenClient, site: FakeWillhabenSite
) -> None:
    """One 404 of a page that is there is reported as it came; the next read finds the
    page: the caller's second look, not this layer, decides that an advert is gone."""
    site.fail_next(SiteFault.not_found(), url=ADVERT)
    assert await client.advert(ADVERT) == Missing(404)
    page = await client.advert(ADVERT)
    assert isinstance(page, AdvertPage)
    assert page.status == "active"
    assert site.advert_pages == {"1": 2}


async def test_a_block_on_a_search_pauses_advert_pages(
    client: WillhabenClient, site: FakeWillhabenSite, clock: FakeClock
) -> None:
    """While the backoff after a blocked search lasts, no advert page is asked for; after
    it, the page is read and a second block would pause 600 s again."""
    site.fail_next(SiteFault.rate_limited(3000))
    with pytest.raises(Blocked):
        await client.search(SEARCH)
    with pytest.raises(Blocked) as paused:
        await client.advert(ADVERT)
    assert (paused.value.retry_after, len(site.log)) == (3000, 1)
    clock.advance(3000)
    assert isinstance(await client.advert(ADVERT), AdvertPage)
    site.fail_next(SiteFault.forbidden(), url=ADVERT)
    with pytest.raises(Blocked):
        await client.advert(ADVERT)
    assert client.paused_until == clock.now + 600


async def test_an_advert_page_is_retried_and_keeps_the_gap(
    client: WillhabenClient, site: FakeWillhabenSite, clock: FakeClock
) -> None:
    """5xx answers on an advert's page are retried as a search's are, every request after
    the gap from the one before (here a search's)."""
    await client.search(SEARCH)
    site.fail_next(SiteFault.server_error(502), url=ADVERT)
    assert isinstance(await client.advert(ADVERT), AdvertPage)
    assert clock.slept == [2.0, 5.0]
    assert [request.url for request in site.log] == [httpx.URL(FETCHED)] + 2 * [
        httpx.URL(ADVERT_FETCHED)
    ]


async def test_an_advert_page_that_is_no_advert_page_is_a_layout_error(
    client: WillhabenClient, site: FakeWillhabenSite
) -> None:
    """A 200 answer without `advertDetails` (here a search page, as a redirect to the
    category might give) is a LayoutError, not a status, and no block."""
    site.intercept(SiteFault(200, render_search_page([GPU])))
    with pytest.raises(LayoutError, match="advertDetails"):
        await client.advert(ADVERT)
    assert client.paused_until is None


async def test_an_advert_page_redirected_off_site_fails(
    client: WillhabenClient, site: FakeWillhabenSite
) -> None:
    """A redirect to another host is refused unfetched, as for a search."""
    site.fail_next(SiteFault.redirect("https://evil.example/iad/x-1/"), url=ADVERT)
    with pytest.raises(FetchError, match="off-site"):
        await client.advert(ADVERT)
    assert [request.url for request in site.log] == [httpx.URL(ADVERT_FETCHED)]


@pytest.mark.parametrize(
    "url",
    [
        "https://evil.example/iad/kaufen-und-verkaufen/d/rtx-3070-1/",
        "https://www.willhaben.at.evil.example/iad/kaufen-und-verkaufen/d/rtx-3070-1/",
        "https://www.willhaben.at@evil.example/iad/kaufen-und-verkaufen/d/rtx-3070-1/",
        "http://www.willhaben.at/iad/kaufen-und-verkaufen/d/rtx-3070-1/",
        "https://www.willhaben.at:8443/iad/kaufen-und-verkaufen/d/rtx-3070-1/",
        "https://www.willhaben.at/kaufen-und-verkaufen/d/rtx-3070-1/",
        "https://www.willhaben.at/iad/",
        "https://www.willhaben.at/iad/../admin/",
        "https://www.willhaben.at/iad/%2e%2e/admin/",
        "https://www.willhaben.at/iad/kaufen-und-verkaufen/d/rtx 3070-1/",
        "/iad/kaufen-und-verkaufen/d/rtx-3070-1/",
        f"{BASE}/iad/kaufen-und-verkaufen/d/rtx-3070-1/",
    ],
    ids=[
        "other-host",
        "look-alike-host",
        "user-at-host",
        "http",
        "other-port",
        "outside-iad",
        "iad-root",
        "dot-segments",
        "encoded-dots",
        "space",
        "relative",
        "the-base-itself",
    ],
)
async def test_only_willhaben_advert_urls_are_fetched(
    client: WillhabenClient, site: FakeWillhabenSite, url: str
) -> None:
    """Any URL but `https://(www.)willhaben.at/iad/…` is refused without a request, and
    another try would not change that."""
    with pytest.raises(FetchError, match=r"^not a willhaben advert URL") as refused:
        await client.advert(url)
    assert (site.log, refused.value.retryable, client.paused_until) == ([], False, None)


async def test_the_bare_host_and_a_query_are_kept(
    client: WillhabenClient, site: FakeWillhabenSite
) -> None:
    """`willhaben.at` without www is willhaben too, and a query (the short `object?adId=`
    link) is fetched with the path; the fragment stays home."""
    site.intercept(SiteFault.not_found())
    assert await client.advert("https://willhaben.at/iad/object?adId=1#top") == Missing(404)
    assert [request.url for request in site.log] == [httpx.URL(f"{BASE}/iad/object?adId=1")]


# ------------------------------------------------- limits on what comes in (issue 35)


@pytest.mark.parametrize("chunk", [1024, 64 * 1024, len(gzip_bomb())], ids=["1k", "64k", "whole"])
async def test_a_gzip_bomb_fails_the_page_at_the_cap_holding_no_more(
    client: WillhabenClient, site: FakeWillhabenSite, caplog: pytest.LogCaptureFixture, chunk: int
) -> None:
    """Issue 35: an answer of a 0.26 MB gzip bomb (256 MiB of zeros) fails the page at
    MAX_PAGE_BYTES decoded, at once (another try would get the same), with a log line naming
    the page — holding no more than the cap and a step, however the bomb arrives in chunks
    (it cost 281 MB and a 19.6 s stall of the event loop before)."""
    bomb = Chunks(gzip_bomb(), size=chunk)
    site.intercept(lambda request: bomb.response({"Content-Encoding": "gzip"}))
    with traced() as memory, pytest.raises(FetchError) as failed:
        await client.search(SEARCH)
    assert str(failed.value) == (
        "willhaben's answer is larger than 8 MiB once decoded; habicht reads at most that "
        "(MAX_PAGE_BYTES)"
    )
    assert (failed.value.retryable, calls(site), client.paused_until) == (False, 1, None)
    assert memory.peak < MAX_PAGE_BYTES + 2 * MIB
    (record,) = [r for r in caplog.records if r.name == "habicht.willhaben.fetch"]
    assert record.levelname == "WARNING"
    assert record.getMessage() == (
        f"willhaben's answer to {FETCHED} is larger than 8 MiB once decoded "
        "(Content-Encoding: gzip); cut there, the page fails"
    )


async def test_an_answer_past_the_cap_is_read_no_further(
    client: WillhabenClient, site: FakeWillhabenSite
) -> None:
    """An uncompressed answer of 20 MiB is read up to the chunk that passes the cap, not to
    its end."""
    body = Chunks(bytes(20 * MIB))
    site.intercept(lambda request: body.response())
    with pytest.raises(FetchError, match="larger than 8 MiB once decoded"):
        await client.search(SEARCH)
    assert (body.sent, body.total) == (MAX_PAGE_BYTES // body.size + 1, 320)


@pytest.mark.parametrize("encoding", ["gzip", "deflate", "raw-deflate", "identity"])
async def test_a_compressed_page_reads_as_the_page(
    site: FakeWillhabenSite, clock: FakeClock, encoding: str
) -> None:
    """A page of 200 real adverts, gzip, deflate (wrapped as the standard says, or raw as some
    servers send it) or not encoded, in chunks of 1,000 bytes, reads to its 200 listings — up
    to exactly the cap, and one byte less is a failed page."""
    page = grown_page(MARKETPLACE_PAGE, 200)
    body = page if encoding == "identity" else compressed(page, encoding)
    header = {"Content-Encoding": encoding.removeprefix("raw-")}
    site.intercept(lambda request: Chunks(body, size=1000).response(header))
    async with willhaben_client(
        site.transport(), clock, base_url=BASE, max_page_bytes=len(page)
    ) as client:
        assert len((await client.search(SEARCH)).listings) == 200
    async with willhaben_client(
        site.transport(), clock, base_url=BASE, max_page_bytes=len(page) - 1
    ) as client:
        with pytest.raises(FetchError, match=f"larger than {len(page) - 1:,} bytes once"):
            await client.search(SEARCH)


@pytest.mark.parametrize("encoding", ["gzip, gzip", "br", "zstd", "compress"])
async def test_an_encoding_habicht_did_not_ask_for_is_refused_unread(
    client: WillhabenClient, site: FakeWillhabenSite, encoding: str
) -> None:
    """The request asks for gzip or deflate only; any other Content-Encoding, or two in a row
    (a bomb inside a bomb expands to thousands of times more), fails the page before a byte
    of the body is read."""
    bomb = Chunks(compressed(gzip_bomb(), "gzip"))
    site.intercept(lambda request: bomb.response({"Content-Encoding": encoding}))
    with pytest.raises(FetchError, match=f"^willhaben answered with Content-Encoding '{encoding}'"):
        await client.search(SEARCH)
    assert (bomb.sent, calls(site)) == (0, 1)
    assert site.log[0].headers["Accept-Encoding"] == "gzip, deflate"


@pytest.mark.parametrize(
    ("status", "error"),
    [(500, FetchError), (404, FetchError), (403, Blocked), (429, Blocked), (302, FetchError)],
)
async def test_only_a_200s_body_is_read(
    client: WillhabenClient, site: FakeWillhabenSite, status: int, error: type[Exception]
) -> None:
    """Any answer but a 200 says all by its status: its body, here a bomb, is never read."""
    bomb = Chunks(gzip_bomb())
    headers = {"Content-Encoding": "gzip", "Location": "https://example.com/"}
    site.intercept(lambda request: bomb.response(headers, status=status))
    with pytest.raises(error):
        await client.search(SEARCH)
    assert bomb.sent == 0


async def test_a_large_page_without_data_is_a_layout_error_at_no_great_cost(
    client: WillhabenClient, site: FakeWillhabenSite
) -> None:
    """Issue 35: a 6.25 MB page without `__NEXT_DATA__` (within the cap) is a layout error,
    holding the page and its joined copy and little more (+433 MB and a 14.5 s stall in the
    BeautifulSoup fallback before)."""
    page = Chunks(page_without_data(6_250_000))
    site.intercept(lambda request: page.response())
    with traced() as memory, pytest.raises(LayoutError, match=r"^the page has no __NEXT_DATA__"):
        await client.search(SEARCH)
    assert memory.peak < 2 * len(page.body) + MIB


async def test_the_page_is_parsed_while_the_event_loop_runs_on(
    client: WillhabenClient, site: FakeWillhabenSite
) -> None:
    """The page is handed to a worker thread to be parsed: until that thread is let go, the
    search waits and the event loop serves everything else (issue 35: parsing a large page
    stopped Telegram polling and delivery)."""
    handed = threading.Event()
    let_go = threading.Event()

    class Held(ThreadPoolExecutor):
        def submit(self, fn: Callable[..., _R], /, *args: Any, **kwargs: Any) -> Future[_R]:
            def held() -> _R:
                handed.set()
                assert let_go.wait(30)
                return fn(*args, **kwargs)

            return super().submit(held)

    loop = asyncio.get_running_loop()
    workers = Held(max_workers=1)
    loop.set_default_executor(workers)
    searching = asyncio.create_task(client.search(SEARCH))
    for _ in range(10_000):  # yields to the loop, no sleep: the fake answers at once
        if handed.is_set():
            break
        await asyncio.sleep(0)
    assert handed.is_set()
    for _ in range(100):  # the loop goes on running this test while the page waits
        await asyncio.sleep(0)
    assert not searching.done()
    let_go.set()
    assert [listing.id for listing in (await searching).listings] == ["1"]
