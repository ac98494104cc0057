"""How long the event loop stalls while habicht reads a large or hostile willhaben page.

Issue 35: a gzip bomb stalled the loop 19.6 s, a 6.25 MB page without data 14.5 s — and while
the loop stalls, Telegram polling and delivery stop. Here a task ticks every 10 ms and keeps
how late its latest tick was, while the bot's own `WillhabenClient` fetches and parses a page
from a local fake willhaben: a real HTTP server on loopback, serving exact bytes and headers
(the fakes' own server would unpack a bomb itself). The longest lateness is the loop's longest
stall. Two baselines are measured in the same run: the client reading a small page (30
adverts: the machine's own jitter), and the largest page and the markers page (below) fetched
with httpx and parsed on the loop, as the client did before issue 35. Goal: every stall under
100 ms.

The pages:

- the largest real page the limits allow: 800 real flats, grown from the saved page
  (`tests/fixtures/willhaben/`) to just under the 8 MiB cap, plain and gzipped;
- issue 35's gzip bomb, 0.26 MB that expand to 256 MiB;
- issue 35's 6.25 MB page without `__NEXT_DATA__` (the saved page's markup, repeated);
- the costliest scripts the parser's bound on JSON values lets through: 250,000 adverts with
  only an id (decoded, then refused: more than a page holds), and one advert whose `PRICE`
  values are 166,000 small objects (read);
- 8 MiB of `__NEXT_DATA__` markers and no script (what finding the script costs at worst).

For each: what the read ended in, its median time, the longest stall of all its reads, and the
peak of Python memory one read took (tracemalloc, in a read of its own, untimed).

`--quick` (CI): 2 reads of each page instead of 10; the same pages, in about 15 seconds.

    python benchmarks/stall.py [--quick] [--reads N]
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import gzip
import logging
import statistics
import threading
import time
import tracemalloc
import zlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import httpx
from parse import FLATS, MARKETPLACE, full_page

from habicht.willhaben.errors import ScrapeError
from habicht.willhaben.fetch import MAX_PAGE_BYTES, WillhabenClient
from habicht.willhaben.parse import MAX_TOKENS, parse_search_page
from habicht.willhaben.urls import normalise_search_url, request_url

TICK = 0.010
MIB = 1 << 20
GOAL = 0.100
ON_THE_LOOP = ("largest", "markers")
"""The pages also read as before issue 35, parsed on the loop: the slowest to parse."""
_SCRIPT_TAG = '<script id="__NEXT_DATA__" type="application/json">'


@dataclass(frozen=True)
class Page:
    name: str
    body: bytes
    headers: dict[str, str]


class Site:
    """`pages` by name over HTTP/1.1 on 127.0.0.1, the name being the search's keyword."""

    def __init__(self, pages: list[Page]) -> None:
        by_name = {page.name: page for page in pages}

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                (name,) = parse_qs(urlsplit(self.path).query)["keyword"]
                page = by_name[name]
                self.send_response(200)
                for header, value in page.headers.items():
                    self.send_header(header, value)
                self.send_header("Content-Length", str(len(page.body)))
                self.end_headers()
                self.wfile.write(page.body)

            def handle(self) -> None:
                try:
                    super().handle()
                except ConnectionError:
                    self.close_connection = True  # the client cut the answer: as it should

            def log_message(self, format: str, *args: object) -> None:
                """Quiet."""

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def search(name: str) -> str:
    return normalise_search_url(
        f"https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz?keyword={name}"
    )


def script_page(entries: str) -> bytes:
    """A page that is only a `__NEXT_DATA__` script listing `entries` (JSON, comma-joined)."""
    result = '{"rowsFound":1,"advertSummaryList":{"advertSummary":[' + entries + "]}}"
    data = '{"props":{"pageProps":{"searchResult":' + result + "}}}"
    return f"{_SCRIPT_TAG}{data}</script>".encode()


def pages() -> list[Page]:
    """Every page to read, the small one (the baseline) first."""
    marketplace = MARKETPLACE.read_text(encoding="utf-8")
    small = Page("small", full_page(marketplace, 30).encode(), {})
    largest = Page("largest", full_page(FLATS.read_text(encoding="utf-8"), 800).encode(), {})
    assert MAX_PAGE_BYTES - MIB < len(largest.body) <= MAX_PAGE_BYTES
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    zeros = bytes(MIB)
    bomb = b"".join([*(packer.compress(zeros) for _ in range(256)), packer.flush()])
    start = marketplace.index(_SCRIPT_TAG)
    markup = (marketplace[:start] + marketplace[marketplace.index("</script>", start) :]).encode()
    slack = MAX_TOKENS // 100  # the page's own `{`, `[` and `,` beside the entries
    pages = [
        small,
        largest,
        Page("largest-gzipped", gzip.compress(largest.body), {"Content-Encoding": "gzip"}),
        Page("bomb", bomb, {"Content-Encoding": "gzip"}),
        Page("no-data", (markup * (6_250_000 // len(markup) + 1))[:6_250_000], {}),
        Page("ids", script_page(",".join(['{"id":"1"}'] * ((MAX_TOKENS - slack) // 2))), {}),
        Page(
            "values",
            script_page(
                '{"id":"1","attributes":{"attribute":[{"name":"PRICE","values":['
                + ",".join(['{"a":[]}'] * ((MAX_TOKENS - slack) // 3))
                + "]}]}}"
            ),
            {},
        ),
        Page("markers", b"<script " + b"__NEXT_DATA__ " * (MAX_PAGE_BYTES // 14 - 1), {}),
    ]
    return pages


async def read_with(client: WillhabenClient, name: str) -> str:
    """What reading page `name` ends in: its listings, or the error."""
    try:
        found = await client.search(search(name))
    except ScrapeError as exc:
        return f"{exc.kind}: {str(exc)[:70]}"
    return f"{len(found.listings)} listings"


async def measure(read: Callable[[], Awaitable[str]], reads: int) -> tuple[str, float, float]:
    """`reads` reads in a row while a task ticks every 10 ms: what the last ended in, the
    median read's seconds, and the longest any tick was late (the loop's longest stall)."""
    loop = asyncio.get_running_loop()
    longest = 0.0

    async def tick() -> None:
        nonlocal longest
        while True:
            due = loop.time() + TICK
            await asyncio.sleep(TICK)
            longest = max(longest, loop.time() - due)

    ticker = asyncio.create_task(tick())
    await asyncio.sleep(3 * TICK)
    times, outcome = [], ""
    for _ in range(reads):
        start = time.perf_counter()
        outcome = await read()
        times.append(time.perf_counter() - start)
    await asyncio.sleep(3 * TICK)
    ticker.cancel()
    return outcome, statistics.median(times), longest


async def traced_peak(read: Callable[[], Awaitable[str]]) -> float:
    """The peak of Python memory, in MB, one read takes beyond what was live before."""
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        await read()
        return (tracemalloc.get_traced_memory()[1] - before) / 1e6
    finally:
        tracemalloc.stop()


async def read_on_the_loop(http: httpx.AsyncClient, url: str) -> str:
    """What reading `url` ends in, fetched with httpx and parsed on the loop (before issue 35)."""
    response = await http.get(url)
    try:
        return f"{len(parse_search_page(response.content).listings)} listings"
    except ScrapeError as exc:
        return f"{exc.kind}: {str(exc)[:70]}"


async def run(reads: int) -> None:
    every = pages()
    site = Site(every)
    rows = []
    try:
        async with (
            WillhabenClient(base_url=site.url, fetch_gap=0.0) as client,
            httpx.AsyncClient() as http,
        ):
            await read_with(client, every[0].name)  # warm up: the connection, the worker
            for page in every:
                url = request_url(search(page.name), site.url, page=1)
                ways: dict[str, Callable[[], Awaitable[str]]] = {
                    "client": functools.partial(read_with, client, page.name)
                }
                if page.name in ON_THE_LOOP:
                    ways["parsed on the loop"] = functools.partial(read_on_the_loop, http, url)
                for how, read in ways.items():
                    outcome, median, stall = await measure(read, reads)
                    rows.append((page, how, outcome, median, stall, await traced_peak(read)))
    finally:
        site.close()
    baseline = rows[0][4]
    print(f"{reads} reads of each page; a tick every {TICK * 1000:.0f} ms; goal: stall < 100 ms")
    print(f"{'page':<16} {'how':<19} {'size':>9} {'read':>9} {'stall':>9} {'memory':>9}  outcome")
    for page, how, outcome, median, stall, peak in rows:
        print(
            f"{page.name:<16} {how:<19} {len(page.body) / 1e6:>6.2f} MB {median * 1000:>6.0f} ms "
            f"{stall * 1000:>6.0f} ms {peak:>6.1f} MB  {outcome}"
        )
    worst = max(row[4] for row in rows if row[1] == "client")
    old = max(row[4] for row in rows if row[1] == "parsed on the loop")
    print(
        f"longest stall through the client {worst * 1000:.0f} ms "
        f"({'within' if worst < GOAL else 'OVER'} the 100 ms goal); "
        f"baseline: {baseline * 1000:.0f} ms for the small page, "
        f"{old * 1000:.0f} ms for a page parsed on the loop"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 reads of each page (CI)")
    parser.add_argument("--reads", type=int, help="reads of each page (10; quick 2)")
    args = parser.parse_args()
    # A bomb's read logs a warning, as it should; here the table says it.
    logging.getLogger("habicht").setLevel(logging.ERROR)
    asyncio.run(run(args.reads or (2 if args.quick else 10)))


if __name__ == "__main__":
    main()
