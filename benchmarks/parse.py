"""How much faster habicht's parser is than a full BeautifulSoup parse of a search page.

Both sides read the same saved willhaben page (tests/fixtures/willhaben/) in the same run:
`parse_search_page` — a string search for the `__NEXT_DATA__` script, then `raw_decode` of
only `rowsFound` and `advertSummaryList` where they provably belong to `searchResult`, then
the `Listing`s — versus `BeautifulSoup(html, "html.parser")` that then finds the script tag
and `json.loads` all of it (no listings built — the baseline is given the easier job). Checks
that the page parses to its 25 listings, then prints both medians and their ratio.

    python benchmarks/parse.py [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bs4 import BeautifulSoup

from habicht.scraper import parse_search_page

PAGE = (
    Path(__file__).resolve().parents[1]
    / "tests/fixtures/willhaben/search-marketplace-grafikkarten.html"
)


def full_soup(html: str) -> Any:
    tag = BeautifulSoup(html, "html.parser").find("script", id="__NEXT_DATA__")
    assert tag is not None
    return json.loads(tag.get_text())


def median_seconds(func: Callable[[str], object], html: str, repeat: int) -> float:
    func(html)  # warm up imports and caches
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func(html)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30, help="timed runs per side (default 30)")
    args = parser.parse_args()
    html = PAGE.read_text(encoding="utf-8")
    assert len(parse_search_page(html).listings) == 25
    ours = median_seconds(parse_search_page, html, args.repeat)
    soup = median_seconds(full_soup, html, args.repeat)
    print(f"page: {PAGE.name}, {len(html.encode()) / 1024:.0f} KiB, {args.repeat} runs each")
    print(f"parse_search_page       median {ours * 1000:8.2f} ms")
    print(f"BeautifulSoup full parse median {soup * 1000:8.2f} ms")
    print(f"ratio: {soup / ours:.0f}x faster")


if __name__ == "__main__":
    main()
