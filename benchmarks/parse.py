"""How much faster habicht's parser is than a full BeautifulSoup parse of a search page.

Both sides read the same page in the same run: `parse_search_page` — given the page's UTF-8
bytes, as the client hands it on: a byte search for the `__NEXT_DATA__` script, then a typed
`msgspec` decode of only the members habicht reads, then the `Listing`s — versus
`BeautifulSoup(html, "html.parser")`, given the page already decoded to text, that then finds
the script tag and `json.loads` all of it (no listings built, no bytes decoded — the baseline
is given the easier job; what the same parse costs from text is printed beside it). The
pages: the two saved willhaben pages (tests/fixtures/willhaben/: 25 marketplace adverts of
2021 in the full page's markup; 30 rental flats of 2026, trimmed to the `__NEXT_DATA__`
script, so there the ratio only compares JSON decoding) and a page of 200 adverts — what
habicht asks for (`rows=200`) — made from the 2021 page by repeating its adverts under new
ids in its own markup. Checks each page's advert count, then prints the medians and the
ratio per page.

`--quick` (what CI runs, so that a change that breaks the benchmark fails there) times 3 runs
a side instead of 30: the same pages and code, in about a second; its figures are rough.

    python benchmarks/parse.py [--quick] [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bs4 import BeautifulSoup

from habicht.willhaben.parse import parse_search_page
from habicht.willhaben.urls import PAGE_ROWS

FIXTURES = Path(__file__).resolve().parents[1] / "tests/fixtures/willhaben"
MARKETPLACE = FIXTURES / "search-marketplace-grafikkarten.html"
FLATS = FIXTURES / "search-immobilien-mietwohnungen-wien.html"
_SCRIPT = re.compile(r'(<script id="__NEXT_DATA__" type="application/json">)(.*?)(</script>)', re.S)


def full_soup(html: str) -> Any:
    tag = BeautifulSoup(html, "html.parser").find("script", id="__NEXT_DATA__")
    assert tag is not None
    return json.loads(tag.get_text())


def full_page(html: str, rows: int) -> str:
    """`html` (a real page) with `rows` adverts: its own, repeated under new ids."""
    match = _SCRIPT.search(html)
    assert match is not None
    data = json.loads(match.group(2))
    summaries = data["props"]["pageProps"]["searchResult"]["advertSummaryList"]["advertSummary"]
    grown = []
    for n in range(rows):
        advert = json.loads(json.dumps(summaries[n % len(summaries)]))
        advert["id"] = f"{advert['id']}{n:03d}"
        grown.append(advert)
    summaries[:] = grown
    script = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return html[: match.start(2)] + script.replace("<", "\\u003c") + html[match.end(2) :]


def median_seconds(func: Callable[[Any], object], page: bytes | str, repeat: int) -> float:
    func(page)  # warm up imports and caches
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func(page)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 timed runs per side (CI)")
    parser.add_argument("--repeat", type=int, help="timed runs per side (30; quick 3)")
    args = parser.parse_args()
    repeat = args.repeat or (3 if args.quick else 30)
    marketplace = MARKETPLACE.read_text(encoding="utf-8")
    pages = [
        (MARKETPLACE.name, marketplace, 25),
        (FLATS.name, FLATS.read_text(encoding="utf-8"), 30),
        (
            f"{PAGE_ROWS} adverts in {MARKETPLACE.name}",
            full_page(marketplace, PAGE_ROWS),
            PAGE_ROWS,
        ),
    ]
    print(f"{repeat} runs each")
    for name, html, adverts in pages:
        body = html.encode()
        assert len(parse_search_page(body).listings) == adverts
        ours = median_seconds(parse_search_page, body, repeat)
        from_text = median_seconds(parse_search_page, html, repeat)
        soup = median_seconds(full_soup, html, repeat)
        print(f"page: {name}, {len(body) / 1024:.0f} KiB, {adverts} adverts")
        print(f"  parse_search_page        median {ours * 1000:8.2f} ms")
        print(f"  the same, given text     median {from_text * 1000:8.2f} ms")
        print(f"  BeautifulSoup full parse median {soup * 1000:8.2f} ms")
        print(f"  ratio: {soup / ours:.0f}x faster")


if __name__ == "__main__":
    main()
