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

Limits on what comes in (issue 35; keep in sync with docs/internals/scraper.md): a body is
read as a stream and counted *decoded* — gzip or deflate undone here in steps of at most
64 KiB, never in one call — and cut at `max_page_bytes` (`MAX_PAGE_BYTES`, 8 MiB): a failed
page, a `FetchError` no retry would change, logged with the URL. So a compression bomb costs
the cap and a step, not what it would expand to (a 0.26 MB gzip bomb took 281 MB before; on
its own, httpx decodes each chunk it receives in one call, up to 64 MB for one 64 KiB read).
Only a 200's body is read at all. The page is parsed in a worker thread
(`asyncio.to_thread`), so a large one does not stop the event loop: Telegram polling and
delivery go on while it is read (`benchmarks/stall.py`).

httpx errors become `FetchError`/`Blocked` here and nowhere else, chained with `from`.
"""

from __future__ import annotations

import asyncio
import email.utils
import logging
import zlib
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import UTC
from types import TracebackType
from typing import Self, TypeVar

import httpx

from habicht.clock import Clock, Sleep, system_clock, system_sleep
from habicht.digits import ascii_digits, whole_number
from habicht.willhaben.advert import AdvertAnswer, Missing, parse_advert_page
from habicht.willhaben.errors import Blocked, FetchError
from habicht.willhaben.parse import SearchPage, parse_search_page
from habicht.willhaben.urls import advert_request_url, request_url

__all__ = ["DEFAULT_TIMEOUT", "MAX_PAGE_BYTES", "USER_AGENT", "WillhabenClient"]

log = logging.getLogger(__name__)

USER_AGENT = "Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0"
DEFAULT_TIMEOUT = httpx.Timeout(connect=10.0, read=20.0, write=10.0, pool=10.0)
_HEADERS = {
    "User-Agent": USER_AGENT,
    "Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
    "Accept-Language": "de-AT,de;q=0.9,en;q=0.5",
    # Said outright, not left to httpx, which would add "br" and "zstd" when their packages
    # happen to be installed: those are not undone here in bounded steps (`_Inflater`).
    "Accept-Encoding": "gzip, deflate",
}
MAX_PAGE_BYTES = 8 * 1024 * 1024
"""The most bytes of a willhaben answer that are read, counted after its Content-Encoding
is undone. Real pages at `rows=200` are 1.1 MB (marketplace) to 2 MB (flats; 3.7 MB if all
200 were building projects, the largest adverts saved), so 8 MiB leaves 4 times the room for
willhaben's pages to grow before one is refused, and it keeps above the 6.25 MB of issue 35's
page without data, which must read as a layout error. What it costs: the body held while it
is read (8 MiB), joined once (8 MiB more for a moment), then parsed — bounded by
`habicht.willhaben.parse.MAX_TOKENS`."""
_PIECE = 64 * 1024
"""Decoded bytes one step of decompression may produce: the most held beside the body."""
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
        max_page_bytes: int = MAX_PAGE_BYTES,
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
        self._max_page_bytes = max_page_bytes
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

    async def search(self, url: str, *, page: int = 1, own_block: bool = False) -> SearchPage:
        """Fetch and parse page `page` of the normalised search `url` (`PAGE_ROWS` adverts a
        page); raises a `ScrapeError` on failure. Each page is a request like any other: after
        the gap, and not at all while the block backoff lasts.

        With `own_block`, a block of this request (403, 429, the block page) is its caller's
        alone: `Blocked` is raised but willhaben as a whole is not paused — a feed's heavy
        page may be refused while ordinary searches are not (`scraper.feeds`). A plain
        request refused as well then pauses the whole client as ever."""
        where = request_url(url, self._base_url, page=page)
        return await self._read(where, parse_search_page, pause=not own_block)

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

    async def _read(self, url: str, parse: Callable[[bytes], _T], *, pause: bool = True) -> _T:
        """`parse` of the page at `url`, fetched holding the lock, after the gap, and only when
        no block backoff lasts; a block starts (or extends) the backoff (unless `pause` is
        off: the caller backs off itself), a page ends it.

        `parse` runs in a worker thread: a 200-advert page takes 3 to 8 ms, but the largest
        real page the limits allow (`MAX_PAGE_BYTES`) about 50 ms and a page made to be slow
        (8 MiB of `__NEXT_DATA__` markers) a quarter of a second, in Python code that yields
        the GIL every few milliseconds. Only the decoder's one C call holds it throughout,
        and `parse.MAX_TOKENS` keeps that under ≈ 40 ms (`benchmarks/stall.py`)."""
        async with self._lock:
            paused_until = self.paused_until
            if paused_until is not None:
                raise Blocked(
                    "backing off from willhaben after a block",
                    retry_after=paused_until - self._clock(),
                )
            try:
                found = await asyncio.to_thread(parse, await self._fetch(url))
            except Blocked as exc:
                if pause:
                    self._start_pause(exc.retry_after)
                raise
            if pause:
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
            response, body = await self._send(self._http, request)
            if not response.is_redirect or response.next_request is None:
                return self._body(response, body)
            request = response.next_request
            if _origin(request.url) != self._origin:
                where = f"{request.url.scheme}://{request.url.netloc.decode('ascii')}"
                raise FetchError(f"willhaben redirected off-site to {where}", retryable=False)
        raise FetchError(f"more than {_MAX_REDIRECTS} redirects from {url}", retryable=False)

    async def _send(
        self, http: httpx.AsyncClient, request: httpx.Request
    ) -> tuple[httpx.Response, bytes]:
        """One request and, for a 200, its body (`_content`); httpx errors translated: the one
        boundary. Any other answer's body is never read: its status says all."""
        try:
            response = await http.send(request, stream=True)
            try:
                body = await self._content(response) if response.status_code == 200 else b""
            finally:
                await response.aclose()
            return response, body
        except httpx.TimeoutException as exc:
            raise FetchError(f"willhaben timed out ({type(exc).__name__})") from exc
        except httpx.HTTPError as exc:
            raise FetchError(f"cannot reach willhaben: {type(exc).__name__}: {exc}") from exc
        finally:
            self._last_request_end = self._clock()

    async def _content(self, response: httpx.Response) -> bytes:
        """The body as sent, its Content-Encoding undone step by step (`_Inflater`); a
        `FetchError` as soon as it grows past `max_page_bytes`, before more is read."""
        encoding = response.headers.get("Content-Encoding", "")
        if response.is_stream_consumed:
            # An answer made in-process from bytes (an `httpx.MockTransport` fake's): httpx
            # read and decoded it when it was made, so only its size is left to check.
            encoding, received = "", _one(response.content)
        else:
            received = response.aiter_raw()
        inflater = _Inflater(encoding)
        pieces: list[bytes] = []
        size = 0
        async for chunk in received:
            for piece in inflater.inflate(chunk):
                size += len(piece)
                if size > self._max_page_bytes:
                    limit = _size(self._max_page_bytes)
                    log.warning(
                        "willhaben's answer to %s is larger than %s once decoded "
                        "(Content-Encoding: %s); cut there, the page fails",
                        response.request.url,
                        limit,
                        encoding or "none",
                    )
                    raise FetchError(
                        f"willhaben's answer is larger than {limit} once decoded; habicht "
                        "reads at most that (MAX_PAGE_BYTES)",
                        retryable=False,
                    )
                pieces.append(piece)
        return b"".join(pieces)

    def _body(self, response: httpx.Response, body: bytes) -> bytes:
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
        return body  # the parser reads bytes; text would only be encoded back


class _Inflater:
    """A body's Content-Encoding undone in steps of at most `_PIECE` decoded bytes, so that
    whoever counts them can stop at any step, whatever one chunk received expands to.

    None, `identity`, `gzip` (`x-gzip`) and `deflate` (zlib-wrapped, or raw as some servers
    send it, as httpx reads it) — what `_HEADERS` asks for. Any other encoding, or two in a
    row, is a `FetchError` without decoding: habicht did not ask for it, and undoing layers in
    turn would multiply what a bomb can expand to. A stream cut short is not noticed here; the
    page then lacks its end, which the parser does notice.
    """

    def __init__(self, encoding: str) -> None:
        codings = [c.strip().lower() for c in encoding.split(",")]
        codings = [c for c in codings if c not in ("", "identity")]
        self._coding = codings[0] if len(codings) == 1 else ""
        if codings and self._coding not in ("gzip", "x-gzip", "deflate"):
            raise FetchError(
                f"willhaben answered with Content-Encoding {encoding!r}; habicht asks for "
                "gzip or deflate only",
                retryable=False,
            )
        self._zlib = None if not codings else zlib.decompressobj(self._wbits())
        self._started = False

    def _wbits(self) -> int:
        """gzip's header and trailer (16 +), or deflate's zlib wrapper."""
        return 16 + zlib.MAX_WBITS if self._coding != "deflate" else zlib.MAX_WBITS

    def inflate(self, data: bytes) -> Iterator[bytes]:
        """The decoded bytes of `data`, the next chunk received, a step at a time."""
        if self._zlib is None:
            if data:
                yield data
            return
        while True:
            try:
                piece = self._zlib.decompress(data, _PIECE)
            except zlib.error as exc:
                if self._coding == "deflate" and not self._started:
                    self._started = True  # raw deflate, without the zlib wrapper
                    self._zlib = zlib.decompressobj(-zlib.MAX_WBITS)
                    continue
                raise FetchError(f"willhaben's answer is not valid {self._coding}: {exc}") from exc
            self._started = True
            data = self._zlib.unconsumed_tail
            if piece:
                yield piece
            if self._zlib.eof or (not data and len(piece) < _PIECE):
                return


async def _one(content: bytes) -> AsyncIterator[bytes]:
    """`content` as the one chunk of a stream."""
    yield content


def _size(count: int) -> str:
    """A byte count as people read it, exactly: "8 MiB", "512 KiB", "1,153,023 bytes"."""
    for unit, factor in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= factor and count % factor == 0:
            return f"{count // factor:,} {unit}"
    return f"{count:,} bytes"


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
