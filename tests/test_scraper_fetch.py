"""Polite fetching: retries, blocks and backoff, the gap between requests, one error boundary."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator
from decimal import Decimal

import httpx
import pytest
import respx
from fakes import FakeClock
from kit import willhaben_client

from habicht.fakes import FakeAdvert, render_block_page, render_search_page
from habicht.scraper import (
    Blocked,
    FetchError,
    LayoutError,
    ScrapeError,
    WillhabenClient,
    normalise_search_url,
)

BASE = "http://127.0.0.1:8099"
SEARCH = normalise_search_url(
    "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz?keyword=rtx"
)
OTHER = normalise_search_url(
    "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz?keyword=sofa"
)
FETCHED = f"{BASE}/iad/kaufen-und-verkaufen/marktplatz?keyword=rtx&sort=1&rows=200"
PAGE = render_search_page([FakeAdvert("1", "RTX 3070", Decimal(400))])


def ok() -> httpx.Response:
    return httpx.Response(200, text=PAGE)


@pytest.fixture
def router() -> respx.Router:
    return respx.Router(assert_all_called=False)


@pytest.fixture
async def client(router: respx.Router, clock: FakeClock) -> AsyncIterator[WillhabenClient]:
    transport = httpx.MockTransport(router.async_handler)
    async with willhaben_client(
        transport,
        clock,
        base_url=BASE,
        attempts=3,
        retry_delay=5.0,
        block_base=600.0,
        block_cap=3600.0,
    ) as willhaben:
        yield willhaben


async def test_a_page_is_fetched_from_the_configured_base_like_a_browser(
    client: WillhabenClient, router: respx.Router
) -> None:
    """The request goes to HABICHT_WILLHABEN_URL with a browser User-Agent and de-AT."""
    route = router.get(FETCHED).mock(return_value=ok())
    page = await client.search(SEARCH)
    assert [listing.id for listing in page.listings] == ["1"]
    request = route.calls.last.request
    assert request.headers["Accept-Language"].startswith("de-AT")
    assert request.headers["User-Agent"].startswith("Mozilla/5.0")


async def test_429_waits_exactly_retry_after_then_succeeds(
    client: WillhabenClient, router: respx.Router, clock: FakeClock
) -> None:
    """A 429 with Retry-After: 7 is retried after 7 s and does not start a backoff."""
    route = router.get(FETCHED).mock(
        side_effect=[httpx.Response(429, headers={"Retry-After": "7"}), ok()]
    )
    await client.search(SEARCH)
    assert route.call_count == 2
    assert clock.slept == [7.0]
    assert client.paused_until is None


async def test_5xx_is_retried_with_growing_waits(
    client: WillhabenClient, router: respx.Router, clock: FakeClock
) -> None:
    """Two 5xx answers are retried after 5 s and 10 s, then the page is returned."""
    route = router.get(FETCHED).mock(side_effect=[httpx.Response(502), httpx.Response(503), ok()])
    page = await client.search(SEARCH)
    assert (route.call_count, len(page.listings)) == (3, 1)
    assert clock.slept == [5.0, 10.0]


async def test_timeouts_fail_after_the_last_attempt(
    client: WillhabenClient, router: respx.Router
) -> None:
    """Timing out on every attempt raises FetchError chained from the httpx timeout."""
    route = router.get(FETCHED).mock(side_effect=httpx.ReadTimeout("slow"))
    with pytest.raises(FetchError) as failed:
        await client.search(SEARCH)
    assert route.call_count == 3
    assert isinstance(failed.value.__cause__, httpx.ReadTimeout)
    assert failed.value.kind == "fetch"


async def test_connect_errors_are_fetch_errors(
    client: WillhabenClient, router: respx.Router
) -> None:
    """An unreachable site is a FetchError; no httpx error leaves the client."""
    router.get(FETCHED).mock(side_effect=httpx.ConnectError("refused"))
    with pytest.raises(FetchError) as failed:
        await client.search(SEARCH)
    assert isinstance(failed.value.__cause__, httpx.ConnectError)


async def test_a_404_is_not_retried(client: WillhabenClient, router: respx.Router) -> None:
    """An answer another try would not change fails at once."""
    route = router.get(FETCHED).mock(return_value=httpx.Response(404))
    with pytest.raises(FetchError, match=r"^willhaben answered 404$"):
        await client.search(SEARCH)
    assert route.call_count == 1


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        (httpx.Response(200, text=render_block_page()), "^willhaben answered with its block page$"),
        (httpx.Response(403, text="Forbidden"), "^willhaben answered 403 Forbidden$"),
    ],
    ids=["block-page", "403"],
)
async def test_a_block_pauses_all_of_willhaben(
    client: WillhabenClient,
    router: respx.Router,
    clock: FakeClock,
    answer: httpx.Response,
    error: str,
) -> None:
    """A block page or 403 raises Blocked and pauses every search without a request."""
    route = router.get(FETCHED).mock(return_value=answer)
    other = router.get(url__startswith=f"{BASE}/iad/").mock(return_value=ok())
    with pytest.raises(Blocked, match=error):
        await client.search(SEARCH)
    assert client.paused_until == clock.now + 600
    with pytest.raises(Blocked) as paused:
        await client.search(OTHER)
    assert paused.value.retry_after == 600
    assert (route.call_count, other.call_count) == (1, 0)


async def test_the_block_pause_grows_honours_retry_after_and_resets(
    client: WillhabenClient, router: respx.Router, clock: FakeClock
) -> None:
    """Blocks in a row pause 600 s, 1200 s, a long Retry-After; a success resets the growth."""
    router.get(FETCHED).mock(
        side_effect=[
            httpx.Response(403),
            httpx.Response(403),
            httpx.Response(429, headers={"Retry-After": "3000"}),
            ok(),
            httpx.Response(403),
        ]
    )
    pauses = []
    for _ in range(3):
        with pytest.raises(Blocked):
            await client.search(SEARCH)
        assert client.paused_until is not None
        pauses.append(client.paused_until - clock.now)
        clock.advance(pauses[-1])
    assert pauses == [600, 1200, 3000]
    await client.search(SEARCH)
    with pytest.raises(Blocked, match=r"^willhaben answered 403 Forbidden$"):
        await client.search(SEARCH)
    assert client.paused_until == clock.now + 600


async def test_429_on_every_attempt_is_a_block(
    client: WillhabenClient, router: respx.Router, clock: FakeClock
) -> None:
    """A 429 without Retry-After is retried after retry_delay, then gives up with Blocked."""
    route = router.get(FETCHED).mock(return_value=httpx.Response(429))
    with pytest.raises(Blocked, match=r"^willhaben answered 429 Too Many Requests$"):
        await client.search(SEARCH)
    assert (route.call_count, clock.slept) == (3, [5.0, 5.0])
    assert client.paused_until == clock.now + 600


async def test_a_long_retry_after_is_not_waited_for_within_the_cycle(
    client: WillhabenClient, router: respx.Router, clock: FakeClock
) -> None:
    """A Retry-After beyond max_retry_wait (here an HTTP date 100 s away) blocks at once."""
    when = "Tue, 14 Nov 2023 22:15:00 GMT"  # FakeClock starts at 22:13:20 that day
    route = router.get(FETCHED).mock(
        return_value=httpx.Response(429, headers={"Retry-After": when})
    )
    with pytest.raises(Blocked) as blocked:
        await client.search(SEARCH)
    assert (route.call_count, clock.slept, blocked.value.retry_after) == (1, [], 100.0)


async def test_requests_keep_the_gap(
    client: WillhabenClient, router: respx.Router, clock: FakeClock
) -> None:
    """Consecutive requests start at least fetch_gap seconds after the previous one ended."""
    started: list[float] = []

    def answer(request: httpx.Request) -> httpx.Response:
        started.append(clock.now)
        clock.advance(0.5)  # the request takes half a second
        return ok()

    router.get(url__startswith=f"{BASE}/iad/").mock(side_effect=answer)
    for url in (SEARCH, OTHER, SEARCH):
        await client.search(url)
    assert [b - a for a, b in itertools.pairwise(started)] == [2.5, 2.5]


async def test_layout_errors_are_not_retried(client: WillhabenClient, router: respx.Router) -> None:
    """A page without data is a LayoutError after one request, and no block."""
    route = router.get(FETCHED).mock(return_value=httpx.Response(200, text="<html></html>"))
    with pytest.raises(LayoutError, match=r"^the page has no __NEXT_DATA__ script$"):
        await client.search(SEARCH)
    assert route.call_count == 1
    assert client.paused_until is None


async def test_a_redirect_on_the_site_is_followed_after_the_gap(
    client: WillhabenClient, router: respx.Router, clock: FakeClock
) -> None:
    """A redirect to the base's own origin is followed, its hop a request that keeps the gap."""
    moved = f"{BASE}/iad/kaufen-und-verkaufen/marktplatz/?keyword=rtx&sort=1"
    router.get(FETCHED).mock(return_value=httpx.Response(301, headers={"Location": moved}))
    router.get(moved).mock(return_value=ok())
    assert len((await client.search(SEARCH)).listings) == 1
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
    client: WillhabenClient, router: respx.Router, location: str
) -> None:
    """A redirect to another scheme, host or port is refused unfetched and not retried
    (review of issue 3)."""
    route = router.get(FETCHED).mock(
        return_value=httpx.Response(302, headers={"Location": location})
    )
    elsewhere = router.route(url__startswith=location.split("/iad/")[0]).mock(return_value=ok())
    with pytest.raises(FetchError, match="off-site") as failed:
        await client.search(SEARCH)
    assert (route.call_count, elsewhere.call_count, failed.value.retryable) == (1, 0, False)


async def test_a_redirect_loop_fails_at_once(client: WillhabenClient, router: respx.Router) -> None:
    """More than 3 redirects in a row fail the search without retrying the loop."""
    route = router.get(FETCHED).mock(
        return_value=httpx.Response(302, headers={"Location": FETCHED})
    )
    with pytest.raises(FetchError, match="redirects") as failed:
        await client.search(SEARCH)
    assert (route.call_count, failed.value.retryable) == (4, False)


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
    router: respx.Router,
    clock: FakeClock,
    retry_after: str,
    slept: list[float],
    pause: float,
) -> None:
    """A huge Retry-After pauses at most block_cap; one that is not ASCII digits or an HTTP
    date counts as absent (retry_delay between tries), never as a crash (review of issue 3)."""
    header = [(b"Retry-After", retry_after.encode())]
    router.get(FETCHED).mock(return_value=httpx.Response(429, headers=header))
    with pytest.raises(Blocked, match=r"^willhaben answered 429 Too Many Requests$"):
        await client.search(SEARCH)
    assert clock.slept == slept
    assert client.paused_until == clock.now + pause


async def test_at_most_one_request_is_in_flight(
    client: WillhabenClient, router: respx.Router, clock: FakeClock
) -> None:
    """Two concurrent searches: the second request starts after the first ended plus the gap."""
    spans: list[tuple[float, float]] = []
    in_flight = 0

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
        return ok()

    router.get(url__startswith=f"{BASE}/iad/").mock(side_effect=answer)
    await asyncio.gather(client.search(SEARCH), client.search(OTHER))
    (_, first_end), (second_start, _) = spans
    assert second_start >= first_end + 2.0


async def test_a_closed_client_refuses_use(router: respx.Router) -> None:
    """Using the client outside its `async with` raises a sentence, not an httpx error."""
    client = WillhabenClient(
        base_url=BASE, fetch_gap=0, transport=httpx.MockTransport(router.async_handler)
    )
    with pytest.raises(RuntimeError, match="not open yet") as misuse:
        await client.search(SEARCH)
    assert not isinstance(misuse.value, ScrapeError)  # a bug, not a search failure to count
    async with client:
        pass
    with pytest.raises(RuntimeError, match="was closed"):
        await client.open()
