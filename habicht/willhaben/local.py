"""Searches habicht can decide itself: a marketplace category (or the whole marketplace),
words, a price range and a seller type; and flats (`willhaben.estate`).

A search is *local* when habicht can tell, for every advert of its category's newest adverts
(the category's *feed*, one request that serves every local search of the category), whether
willhaben's own search would list it. The answer must never be "yes" where willhaben would say
"no": a local match alerts at once, and a false one is an alert for an advert the subscriber's
search does not show. Where habicht cannot be sure, it answers "no" — the search's own scan,
which still runs as the safety net, finds what the feed did not match.

What the saved pages prove (`../shared/fixtures/willhaben/`), and so what is modelled:

- **Category**: a marketplace path ends in its category's id —
  `/iad/kaufen-und-verkaufen/marktplatz/pc-komponenten/grafikkarten-5882` — and every advert
  of that search carries `categorytreeids` "5824;5878;5882", its category and every one above
  it. An advert belongs to the path's category when its tree holds the id. The marketplace
  root `/iad/kaufen-und-verkaufen/marktplatz` (where `/watch <keywords>` searches) holds every
  advert of the marketplace.
- **Words** (`keyword`): every word must be a whole word of the title or the description
  snippet (`BODY_DYN`), read as `habicht.willhaben.words` reads them: HTML-unescaped, a number
  written with dots or commas one word ("1.6", "6,1", "23.11.2021": `golf 6` does not find
  "Golf 7 1.6 TDI"), a cut snippet's last word left out, case ignored, and umlauts, accents
  and ß compared exactly ("käse" finds "Käse" but neither "kaese" nor "kase"), since
  whether willhaben folds "ä" to "a" or to "ae" is not known and only words equal before any
  folding are equal after every one. willhaben may find more — word prefixes or stems,
  folded umlauts, words further down the description than the snippet reaches — but a word
  every plausible reading finds is found by any keyword search, so this is the choice that
  never says "yes" wrongly. A keyword with anything but letters, digits and spaces (quotes,
  a minus, an operator) may mean something to willhaben's search that habicht does not know:
  such a search is not local.
- **Price** (`PRICE_FROM`, `PRICE_TO`, whole euros): the advert's price, inclusive. An advert
  without a price is no match while a bound is set (whether willhaben lists it is not known).
- **Seller** (`ISPRIVATE`: "1" private, "0" a company): the advert's `ISPRIVATE`; an advert that
  does not say is no match.

Real-estate searches are decided by `willhaben.estate` (`EstateSearch`): flats to rent and to
buy, by place (towns and Bezirke by the places their own reads teach them, `scraper.places`),
price, living area, rooms, type, free areas, features and search words (read by the same word
rules as here), building projects by their units, as REALESTATE.md proves them. Anything else
makes a search not local, and it is polled as before: any other parameter (`areaId` on the
marketplace, attribute filters, ones habicht has never seen), a path segment it cannot map,
houses, and the car section, whose paths name makes and models in words the pages do not tie
to ids.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from urllib.parse import parse_qsl, urlsplit

from habicht.model import Listing
from habicht.willhaben.estate import EstateSearch, estate_search
from habicht.willhaben.words import advert_words, keyword_words

__all__ = ["AnyLocal", "FeedMatcher", "LocalSearch", "local_search"]

_MARKETPLACE = "/iad/kaufen-und-verkaufen/marktplatz"
_IMMOBILIEN = "/iad/immobilien/"
_CATEGORY = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*-(?P<id>[0-9]{1,9})")
"""The last path segment of a category: its slug and id, `grafikkarten-5882`."""
_PARENT = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
"""A segment above it, which names a parent category in words: `pc-komponenten`."""
_PRICE = re.compile(r"[0-9]{1,9}")
_SELLER = {"1": True, "0": False}
_KNOWN = frozenset({"keyword", "PRICE_FROM", "PRICE_TO", "ISPRIVATE", "sort"})


@dataclass(frozen=True, slots=True)
class LocalSearch:
    """What a local search asks of an advert; `feed` is the feed that shows every advert it
    may list: the marketplace's newest adverts, shared by every local search.

    One feed for the whole marketplace is the cheapest there is (one request a feed interval
    for every local watch), and it is deep enough: a read follows its anchors over up to
    `MAX_PAGES` pages, 1,000 adverts, far more than the marketplace publishes in a minute.
    A category's own feed would pay only if it published more than that.
    """

    feed: str
    category: str | None
    """The category id the path ends in; None for the whole marketplace."""
    words: tuple[str, ...] = ()
    """The keyword's words, as `words.keyword_words` reads them."""
    price_from: Decimal | None = None
    price_to: Decimal | None = None
    private: bool | None = None

    def matches(self, listing: Listing) -> bool:
        """Whether willhaben's search lists `listing`, as far as habicht can be sure (see the
        module docstring): False whenever it cannot."""
        return self._admits(listing, advert_words(listing.title, listing.body))

    def _admits(self, listing: Listing, found: frozenset[str]) -> bool:
        """`matches`, given the advert's words (`found`): the one test `FeedMatcher` shares,
        which reads an advert's words once for all the searches it tries."""
        if self.category is not None and self.category not in listing.category_ids:
            return False
        if self.private is not None and listing.is_private is not self.private:
            return False
        if self.price_from is not None or self.price_to is not None:
            price = listing.price
            if price is None:
                return False
            if self.price_from is not None and price < self.price_from:
                return False
            if self.price_to is not None and price > self.price_to:
                return False
        return found.issuperset(self.words)


AnyLocal = LocalSearch | EstateSearch
"""A local search of either kind: each has its `feed` and says whether it `matches` an advert."""

_Entry = tuple[int, LocalSearch]
_EstateEntry = tuple[int, EstateSearch]


class FeedMatcher:
    """Thousands of local searches matched against a feed's adverts at once: what a feed read
    calls instead of `LocalSearch.matches` for every pair of search and advert.

    Built once from `(search id, search)` pairs; an advert's words are read once, and it is
    tried only against the searches that may list it: those of the whole marketplace or of a
    category in its tree, and of those only the ones whose *index word* — the longest of
    their words, likely the rarest — the advert holds; a search without words by its category
    alone. A search lists an advert only if the advert holds all its words, so the index
    leaves out no match: the answer is exactly `matches`' for every pair
    (`tests/willhaben/test_local.py` holds the two together). Pure and synchronous, no I/O:
    CPU work a feed read can run off the event loop (`asyncio.to_thread`) and outside its
    write transaction.

    Flat searches (`EstateSearch`) are indexed by their category and each of their places (a
    `STATE` name, a district's or a learned `LOCATION_ID` — a search that has learned none is
    not indexed at all —, or "" for all of Austria), and a real-estate advert is tried
    against those of its category (a building project: of each category its units have)
    under "", its state and its `LOCATION_ID` — each search at most once, since a search
    names Bundesländer or places, never both; its words, read once for the advert, serve
    every flat search with words too. 2,000 random flat searches against a page of 200 flats
    take ≈ 0.016 s of CPU (a loop over every pair 0.054 s; `tests/willhaben/test_estate.py`).
    """

    __slots__ = ("_by_word", "_estates", "_plain")

    def __init__(self, searches: Iterable[tuple[int, AnyLocal]]) -> None:
        self._plain: dict[str | None, list[_Entry]] = {}
        """Searches without words, by category (None: the whole marketplace)."""
        self._by_word: dict[str, dict[str | None, list[_Entry]]] = {}
        """Searches with words, by index word, then by category."""
        self._estates: dict[tuple[int, str], list[_EstateEntry]] = {}
        """Flat searches, by category (`adTypeId`) and place."""
        ids: set[int] = set()
        for search_id, search in searches:
            if search_id in ids:
                raise ValueError(f"search {search_id} is given twice: give each search once")
            ids.add(search_id)
            if isinstance(search, EstateSearch):
                for place in search.places:
                    key = (search.ad_type, place)
                    self._estates.setdefault(key, []).append((search_id, search))
            elif search.words:
                by_category = self._by_word.setdefault(max(search.words, key=len), {})
                by_category.setdefault(search.category, []).append((search_id, search))
            else:
                self._plain.setdefault(search.category, []).append((search_id, search))

    def match(self, listings: Iterable[Listing]) -> dict[int, list[Listing]]:
        """The adverts of `listings` each search lists, in their order, by search id; a search
        that lists none of them is left out."""
        matched: dict[int, list[Listing]] = {}
        for listing in listings:
            found = advert_words(listing.title, listing.body)
            if listing.estate is not None and self._estates:
                self._match_estate(listing, found, matched)
            categories = {None, *listing.category_ids}
            candidates = [
                entry for category in categories for entry in self._plain.get(category, ())
            ]
            for word in found:
                by_category = self._by_word.get(word)
                if by_category is not None:
                    for category in categories:
                        candidates += by_category.get(category, ())
            for search_id, search in candidates:
                if search._admits(listing, found):
                    matched.setdefault(search_id, []).append(listing)
        return matched

    def _match_estate(
        self, listing: Listing, found: frozenset[str], matched: dict[int, list[Listing]]
    ) -> None:
        """Add the real-estate advert `listing`, whose words are `found`, to the flat
        searches that list it: a building project to those of each category its units have."""
        estate = listing.estate
        if estate is None:
            return
        if estate.project:
            categories = {unit.ad_type for unit in estate.units if unit.ad_type is not None}
        else:
            categories = {estate.ad_type} if estate.ad_type is not None else set()
        places = {"", estate.state or "", estate.location_id or ""}
        for category in categories:
            for place in places:
                for search_id, search in self._estates.get((category, place), ()):
                    if search.matches(listing, found=found):
                        matched.setdefault(search_id, []).append(listing)


@functools.lru_cache(maxsize=16384)
def local_search(url: str) -> AnyLocal | None:
    """The local form of the normalised search `url`, or None when habicht cannot decide it
    (see the module docstring; a real-estate URL: `estate.estate_search`). Remembered: every
    feed read asks it for each search it serves, and a search's URL never changes."""
    parts = urlsplit(url)
    if parts.path.startswith(_IMMOBILIEN):
        return estate_search(url)
    category_id = _category(parts.path)
    if category_id is None:
        return None
    params = parse_qsl(parts.query, keep_blank_values=True)
    names = [name for name, _ in params]
    if len(set(names)) != len(names) or not set(names) <= _KNOWN:
        return None
    query = dict(params)
    if query.get("sort", "1") != "1":
        return None
    keyword = query.get("keyword")
    words = () if keyword is None else keyword_words(keyword)
    if words is None:
        return None
    try:
        price_from, price_to = _price(query.get("PRICE_FROM")), _price(query.get("PRICE_TO"))
    except ValueError:
        return None
    seller = query.get("ISPRIVATE")
    if seller is not None and seller not in _SELLER:
        return None
    return LocalSearch(
        feed=f"https://{parts.hostname}{_MARKETPLACE}?sort=1",
        category=category_id or None,
        words=words,
        price_from=price_from,
        price_to=price_to,
        private=None if seller is None else _SELLER[seller],
    )


def _category(path: str) -> str | None:
    """The category id a marketplace path ends in, "" for the marketplace root, None for any
    other path."""
    path = path.rstrip("/")
    if path == _MARKETPLACE:
        return ""
    if not path.startswith(_MARKETPLACE + "/"):
        return None
    *parents, last = path.removeprefix(_MARKETPLACE + "/").split("/")
    match = _CATEGORY.fullmatch(last)
    if match is None or not all(_PARENT.fullmatch(parent) for parent in parents):
        return None
    return match["id"]


def _price(text: str | None) -> Decimal | None:
    """A price bound: whole euros, as willhaben's own links write them."""
    if text is None:
        return None
    if not _PRICE.fullmatch(text):
        raise ValueError(f"not a price bound: {text!r}")
    return Decimal(text)
