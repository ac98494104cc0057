"""What willhaben's own search lists, as the fake site's world answers it: the truth that
habicht's local matching (`habicht.scraper.local`) is held against.

Written apart from the scraper on purpose — a fake that shared habicht's matching code would
agree with every mistake in it. A search path and its query select adverts of one catalogue:

- the path: the marketplace root holds every marketplace advert; a marketplace path ending in
  a category id (`…/grafikkarten-5882`) holds the adverts whose category tree holds that id;
  any other path holds the adverts listed under it or below it (`FakeAdvert.path`);
- `keyword`: every word is a whole word of the title or the *whole* description (the page
  shows only its start, so a word further down is one only willhaben's search finds), case,
  accents and umlauts aside. Words are read as a generous search would: the text unescaped
  (`&nbsp;` is a space, as on the real pages), split at everything but letters and digits
  ("1.6" is 1 and 6), "ä" folded to "ae". habicht's local matching reads them more strictly
  (`habicht.scraper.words`), so that it never says "yes" where some plausible reading says
  "no" — held against this world, it must find a subset of what the world lists;
- `PRICE_FROM`, `PRICE_TO`: the price, inclusive; a price-less advert is not listed then;
- `ISPRIVATE`: the seller type;
- any other parameter but `sort`, `rows` and `page`: the advert names it among its `params`.

Newest first, as `sort=1` asks: by `PUBLISHED` (a bump refreshes it), undated adverts last.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Callable, Iterable
from decimal import Decimal, InvalidOperation
from functools import lru_cache

import httpx

from habicht.fakes.willhaben_pages import FakeAdvert

__all__ = ["listed", "lister", "newest_first"]

_MARKETPLACE = "/iad/kaufen-und-verkaufen/marktplatz"
_CATEGORY_ID = re.compile(r"-([0-9]+)$")
_PAGING = frozenset({"sort", "rows", "page"})
_WORD = re.compile(r"[^\W_]+")
_UMLAUTS = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss"})


def listed(advert: FakeAdvert, url: httpx.URL) -> bool:
    """Whether willhaben's search `url` lists `advert` (module docstring)."""
    return lister(url)(advert)


def lister(url: httpx.URL) -> Callable[[FakeAdvert], bool]:
    """`listed` for one search, its URL read once: what the site and the benchmarks call for
    every advert of a catalogue of thousands."""
    path = url.path.rstrip("/")
    params = [(name, value) for name, value in url.params.multi_items() if name not in _PAGING]
    category = _CATEGORY_ID.search(path) if path.startswith(_MARKETPLACE + "/") else None
    below = path + "/"

    def in_path(advert: FakeAdvert) -> bool:
        if category is not None:
            return category[1] in advert.categories
        return advert.path == path or advert.path.startswith(below)

    return lambda advert: (
        in_path(advert) and all(_satisfies(advert, name, value) for name, value in params)
    )


def newest_first(adverts: Iterable[FakeAdvert]) -> list[FakeAdvert]:
    return sorted(adverts, key=lambda advert: -(advert.published_ms or -1))


def _satisfies(advert: FakeAdvert, name: str, value: str) -> bool:
    if name == "keyword":
        return _words(value) <= _words(f"{advert.title} {advert.description}")
    if name in ("PRICE_FROM", "PRICE_TO"):
        bound = _decimal(value)
        if advert.price is None or bound is None:
            return False
        return advert.price >= bound if name == "PRICE_FROM" else advert.price <= bound
    if name == "ISPRIVATE":
        return value == ("1" if advert.private else "0")
    return (name, value) in advert.params


@lru_cache(maxsize=65536)
def _words(text: str) -> frozenset[str]:
    lowered = html.unescape(text).casefold().translate(_UMLAUTS)
    bare = "".join(
        c for c in unicodedata.normalize("NFKD", lowered) if not unicodedata.combining(c)
    )
    return frozenset(_WORD.findall(bare))


def _decimal(text: str) -> Decimal | None:
    try:
        return Decimal(text)
    except InvalidOperation:
        return None
