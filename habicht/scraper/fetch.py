"""Polite fetching of willhaben search pages and adverts' own pages over one shared
`httpx.AsyncClient`.

Politeness: one request in flight (an `asyncio.Lock`) and at least `fetch_gap` seconds from
the end of one request to the start of the next — each redirect hop is a request too — so a
cycle of many searches never bursts. Redirects are followed only to the origin (scheme, host
and port) of `base_url`; one elsewhere, or more than 3 in a row, fails the search at once.

Retries inside one `search()` or `advert()` are few and bounded: up to `attempts` tries on
connect errors, timeouts, 5xx (waiting `retry_delay · 2^(try-1)`) and 429 (waiting its
`Retry-After` when that is at most `max_retry_wait`). Then the search has failed for this
cycle. An advert's page that answers 404 or 410 is `Missing` at once (perhaps gone: the caller
confirms); for a search that is a `FetchError`, as any other answer no retry would change.

Site-wide backoff (keep in sync with docs/internals/scraper.md): when willhaben blocks us —
403, a 429 that outlasts the retries, or its block page, for a search or an advert's page —
every `search()` and `advert()` raises `Blocked` without a request until `now + pause`, where
the n-th block in a row pauses `min(block_cap, max(retry_after, block_base · 2^(n-1)))`: a
`Retry-After` is honoured up to `block_cap`, never for years. A successful fetch resets n.

httpx errors become `FetchError`/`Blocked` here and nowhere else, chained with `from`.
"""

from __future__ import annotations

import asyncio
import email.utils
from collections.abc import Callable
from datetime import UTC
from types import TracebackType
from typing import Self, TypeVar

import httpx

from habicht.clock import Clock, Sleep, system_clock, system_sleep
from habicht.digits import ascii_digits, whole_number
from habicht.scraper.advert import AdvertAnswer, Missing, parse_advert_page
from habicht.scraper.errors import Blocked, FetchError
from habicht.scraper.parse import SearchPage, parse_search_page
from habicht.scraper.urls import advert_request_url, request_url

__all__ = ["DEFAULT_TIMEOUT", "USER_AGENT", "WillhabenClient"]

USER_AGENT = "Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0"
DEFAULT_TIMEOUT = httpx.Timeout(connect=10.0, read=20.0, write=10.0, pool=10.0)
_HEADERS = {
    "User-Agent": USER_AGENT,
    "Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
    "Accept-Language": "de-AT,de;q=0.9,en;q=0.5",
}
_MAX_REDIRECTS = 3
_MISSING = frozenset({404, 410})
_T = TypeVar("_T")


class _RateLimited(Blocked):
    """A 429: worth another try within the cycle if `Retry-After` is short."""


class _NotFound(FetchError):
    """A 404 or 410: not worth another try; an advert's page is `Missing` then."""

    def __init__(self, status: int) -> None:
        super().__init__(f"willhaben answered {status}", retryable=False)
        self.status = status


class WillhabenClient:
    """Fetches and parses willhaben search pages and adverts' pages, politely; an async
    context manager.

    `base_url` is HABICHT_WILLHABEN_URL: normalised `www.willhaben.at` search URLs are fetched
    from there. `transport`, `clock` and `sleep` are the seams for tests.
    """

    def __init__(
        self,
        *,
        base_url: str,
        fetch_gap: float,
        clock: Clock = system_clock,
        sleep: Sleep = system_sleep,
        transport: httpx.AsyncBaseTransport | None = None,
        timeout: httpx.Timeout = DEFAULT_TIMEOUT,
        attempts: int = 3,
        retry_delay: float = 5.0,
        max_retry_wait: float = 60.0,
        block_base: float = 600.0,
        block_cap: float = 6 * 3600.0,
    ) -> None:
        self._base_url = base_url
        self._origin = _origin(httpx.URL(base_url))
        self._fetch_gap = fetch_gap
        self._clock = clock
        self._sleep = sleep
        self._transport = transport
        self._timeout = timeout
        self._attempts = attempts
        self._retry_delay = retry_delay
        self._max_retry_wait = max_retry_wait
        self._block_base = block_base
        self._block_cap = block_cap
        self._lock = asyncio.Lock()
        self._http: httpx.AsyncClient | None = None
        self._closed = False
        self._last_request_end: float | None = None
        self._blocks_in_a_row = 0
        self._paused_until = 0.0

    async def open(self) -> Self:
        if self._closed:
            raise RuntimeError("This WillhabenClient was closed; create a new one.")
        if self._http is None:
            self._http = httpx.AsyncClient(
                headers=_HEADERS,
                timeout=self._timeout,
                transport=self._transport,
                follow_redirects=False,
            )
        return self

    async def close(self) -> None:
        if self._http is not None:
            await self._http.aclose()
        self._http = None
        self._closed = True

    async def __aenter__(self) -> Self:
        return await self.open()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    @property
    def is_open(self) -> bool:
        return self._http is not None

    @property
    def paused_until(self) -> float | None:
        """When the site-wide backoff after a block ends, or None if we are not backing off."""
        return self._paused_until if self._paused_until > self._clock() else None

    async def search(self, url: str, *, page: int = 1) -> SearchPage:
        """Fetch and parse page `page` of the normalised search `url` (`PAGE_ROWS` adverts a
        page); raises a `ScrapeError` on failure. Each page is a request like any other: after
        the gap, and not at all while the block backoff lasts."""
        return await self._read(request_url(url, self._base_url, page=page), parse_search_page)

    async def advert(self, url: str) -> AdvertAnswer:
        """Fetch and parse the advert's own page `url` (a `Listing.url`), politely as a search
        page; `Missing` for a 404 or 410 (perhaps gone: confirm it), a `ScrapeError` on any
        other failure. Only `https://(www.)willhaben.at/iad/…` is fetched, from `base_url`;
        any other URL is a `FetchError` without a request."""
        try:
            where = advert_request_url(url, self._base_url)
        except ValueError as exc:
            raise FetchError(f"not a willhaben advert URL: {exc}", retryable=False) from exc
        try:
            return await self._read(where, parse_advert_page)
        except _NotFound as exc:
            return Missing(exc.status)

    async def _read(self, url: str, parse: Callable[[bytes], _T]) -> _T:
        """`parse` of the page at `url`, fetched holding the lock, after the gap, and only when
        no block backoff lasts; a block starts (or extends) the backoff, a page ends it."""
        async with self._lock:
            paused_until = self.paused_until
            if paused_until is not None:
                raise Blocked(
                    "backing off from willhaben after a block",
                    retry_after=paused_until - self._clock(),
                )
            try:
                found = parse(await self._fetch(url))
            except Blocked as exc:
                self._start_pause(exc.retry_after)
                raise
            self._blocks_in_a_row = 0
            return found

    def _start_pause(self, retry_after: float | None) -> None:
        self._blocks_in_a_row += 1
        grown = self._block_base * 2.0 ** min(self._blocks_in_a_row - 1, 32)
        self._paused_until = self._clock() + min(self._block_cap, max(retry_after or 0.0, grown))

    async def _fetch(self, url: str) -> bytes:
        """The page body, after at most `attempts` tries; the last error if all fail."""
        for attempt in range(1, self._attempts + 1):
            try:
                return await self._get(url)
            except _RateLimited as exc:
                wait = exc.retry_after if exc.retry_after is not None else self._retry_delay
                if attempt == self._attempts or wait > self._max_retry_wait:
                    raise
            except FetchError as exc:
                if attempt == self._attempts or not exc.retryable:
                    raise
                wait = self._retry_delay * 2.0 ** (attempt - 1)
            await self._sleep(wait)
        raise AssertionError("unreachable: the last attempt returns or raises")

    async def _wait_for_gap(self) -> None:
        if self._last_request_end is not None:
            wait = self._last_request_end + self._fetch_gap - self._clock()
            if wait > 0:
                await self._sleep(wait)

    async def _get(self, url: str) -> bytes:
        """One GET, following redirects to our own origin only, each hop after the gap."""
        if self._http is None:
            state = "was closed" if self._closed else "is not open yet"
            raise RuntimeError(f"The WillhabenClient {state}; use it inside `async with`.")
        request = self._http.build_request("GET", url)
        for _ in range(_MAX_REDIRECTS + 1):
            await self._wait_for_gap()
            response = await self._send(self._http, request)
            if not response.is_redirect or response.next_request is None:
                return self._body(response)
            request = response.next_request
            if _origin(request.url) != self._origin:
                where = f"{request.url.scheme}://{request.url.netloc.decode('ascii')}"
                raise FetchError(f"willhaben redirected off-site to {where}", retryable=False)
        raise FetchError(f"more than {_MAX_REDIRECTS} redirects from {url}", retryable=False)

    async def _send(self, http: httpx.AsyncClient, request: httpx.Request) -> httpx.Response:
        """One request, httpx errors translated: the one boundary."""
        try:
            return await http.send(request)
        except httpx.TimeoutException as exc:
            raise FetchError(f"willhaben timed out ({type(exc).__name__})") from exc
        except httpx.HTTPError as exc:
            raise FetchError(f"cannot reach willhaben: {type(exc).__name__}: {exc}") from exc
        finally:
            self._last_request_end = self._clock()

    def _body(self, response: httpx.Response) -> bytes:
        status = response.status_code
        if status == 429:
            retry_after = _retry_after(response.headers.get("Retry-After"), self._clock())
            raise _RateLimited("willhaben answered 429 Too Many Requests", retry_after=retry_after)
        if status == 403:
            raise Blocked("willhaben answered 403 Forbidden")
        if status >= 500:
            raise FetchError(f"willhaben answered {status}")
        if status in _MISSING:
            raise _NotFound(status)
        if status != 200:
            raise FetchError(f"willhaben answered {status}", retryable=False)
        return response.content  # the parser reads bytes; text would only be encoded back


def _origin(url: httpx.URL) -> tuple[str, str, int | None]:
    """Scheme, host and port (None for the scheme's default): what a redirect must keep."""
    return url.scheme, url.host, url.port


def _retry_after(value: str | None, now: float) -> float | None:
    """`Retry-After` as seconds from now: delta-seconds or an HTTP date; None if absent/bad.

    Only ASCII digits are delta-seconds (`habicht.digits`); a huge value is cut to the block
    cap by the caller. A date without a zone is read as UTC, as HTTP dates are.
    """
    if value is None:
        return None
    value = value.strip()
    if ascii_digits(value):
        seconds = whole_number(value, max_digits=12)
        return 1e12 if seconds is None else float(seconds)  # 1e12 s, ~30,000 years: "forever"
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, when.timestamp() - now)
