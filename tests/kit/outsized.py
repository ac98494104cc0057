"""Answers and pages made to be too large (issue 35): a gzip bomb, a body served in chunks as
the network delivers it, real pages grown to the limits, and tracemalloc's peak, by which the
tests measure what reading them cost.

What a test asserts is the outcome and the memory, never the time: a page that takes
seconds where it should take milliseconds fails by the suite's timeout.
"""

from __future__ import annotations

import functools
import json
import re
import tracemalloc
import zlib
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import httpx
from conftest import FIXTURES

__all__ = [
    "FLATS_PAGE",
    "MARKETPLACE_PAGE",
    "MIB",
    "Chunks",
    "Traced",
    "compressed",
    "grown_page",
    "gzip_bomb",
    "page_without_data",
    "traced",
]

MARKETPLACE_PAGE = (FIXTURES / "search-marketplace-grafikkarten.html").read_text(encoding="utf-8")
FLATS_PAGE = (FIXTURES / "search-immobilien-mietwohnungen-wien.html").read_text(encoding="utf-8")
_SCRIPT = re.compile(r'(<script id="__NEXT_DATA__" type="application/json">)(.*?)(</script>)', re.S)
MIB = 1 << 20


@functools.cache
def gzip_bomb(expanded: int = 256 * MIB) -> bytes:
    """`expanded` zero bytes, gzipped: 256 MiB make 0.26 MB, issue 35's bomb."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = bytes(MIB)
    parts = [packer.compress(block) for _ in range(expanded // MIB)]
    return b"".join([*parts, packer.flush()])


def compressed(body: bytes, encoding: str) -> bytes:
    """`body` as a server sends it with Content-Encoding `encoding`: "gzip", "deflate" (zlib's
    wrapper, as the standard says) or "raw-deflate" (none, as some servers send deflate)."""
    wbits = {"gzip": 16 + zlib.MAX_WBITS, "deflate": zlib.MAX_WBITS, "raw-deflate": -15}
    packer = zlib.compressobj(6, zlib.DEFLATED, wbits[encoding])
    return packer.compress(body) + packer.flush()


@dataclass
class Chunks:
    """`body` served in `size`-byte chunks, as a network read delivers them; `sent` counts the
    chunks the client took, so a test sees where it stopped reading."""

    body: bytes
    size: int = 64 * 1024
    sent: int = 0

    def response(self, headers: dict[str, str] | None = None, status: int = 200) -> httpx.Response:
        """An answer streaming the chunks (made anew for each request: a stream is read once);
        an `httpx.Response` made from bytes would be read, and decoded, as it is made."""
        return httpx.Response(status, headers=headers, content=self._stream())

    async def _stream(self) -> AsyncIterator[bytes]:
        for start in range(0, len(self.body), self.size):
            self.sent += 1
            yield self.body[start : start + self.size]

    @property
    def total(self) -> int:
        return -(-len(self.body) // self.size)


def grown_page(html: str, rows: int) -> bytes:
    """`html` (a saved page) with `rows` adverts: its own, repeated under new ids, in its own
    markup and JSON — as `benchmarks/parse.py` grows its 200-advert page."""
    match = _SCRIPT.search(html)
    assert match is not None
    data = json.loads(match.group(2))
    summaries = data["props"]["pageProps"]["searchResult"]["advertSummaryList"]["advertSummary"]
    grown = []
    for n in range(rows):
        advert = json.loads(json.dumps(summaries[n % len(summaries)]))
        advert["id"] = f"{advert['id']}{n:04d}"
        grown.append(advert)
    summaries[:] = grown
    script = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
    return (html[: match.start(2)] + script + html[match.end(2) :]).encode()


def page_without_data(size: int) -> bytes:
    """A page of about `size` bytes of the saved marketplace page's real markup, repeated, with
    no `__NEXT_DATA__` script: what a redesign or an error page of that size looks like."""
    markup = _SCRIPT.sub("", MARKETPLACE_PAGE).encode()
    assert b"NEXT_DATA" not in markup
    return (markup * (size // len(markup) + 1))[:size]


@dataclass
class Traced:
    """What the traced block allocated at its peak beyond what was live when it began."""

    peak: int = 0


@contextmanager
def traced() -> Iterator[Traced]:
    """Trace the block's memory with tracemalloc (every thread's: a parse in a worker counts)."""
    found = Traced()
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        yield found
    finally:
        found.peak = tracemalloc.get_traced_memory()[1] - before
        tracemalloc.stop()
