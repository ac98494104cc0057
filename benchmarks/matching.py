"""What matching one feed page against thousands of local searches costs.

The question of issue 26: a feed read hands its page of 200 adverts (`rows=200`) to every
local search it serves; at 10,000 searches that must cost at most 0.2 s of CPU a page. Both
sides answer the same page in the same run:

- **`FeedMatcher.match`**, built once from the searches: each advert's words read once, each
  tried only against the searches of its categories whose longest word it holds;
- **the naive loop** (the baseline): `LocalSearch.matches` for every pair of search and
  advert, which reads the advert's words again for every search. At 10,000 searches that is
  2 million calls a page, so it is timed on the page's first `--sample` adverts and scaled to
  the page; on those adverts both answers are checked to be the same.

The world: adverts of a marketplace of 20 categories. A title names one or two of 180
products (brands, models, things; the n-th drawn with weight 1/(n + 10): a few popular, a
long tail) and often a model number or size ("7", "1.6", "10294"); a description of 10 to
80 words says mostly what every advert says ("Verkaufe", "Abholung", "Zustand"), its own
words now and then, another product rarely, a date and a price with an `&nbsp;`. Pages are
rendered by the fake site's page builder and read by the real parser, so snippets are cut
and escaped as the parser hands them on (about 70 % are cut). Searches are drawn with the
same popularity, so many share their words as subscribers' searches do: 70 % `/watch
<words>` on the whole marketplace, 15 % words in a category, 15 % a category alone (its leaf
mostly, a parent now and then); a product, often narrowed by a model, a second product or a
common word; half with a price cap, a tenth private sellers only. About 5 % are not local (a
model with a dot, "golf 1.6", is no plain keyword). Also printed: building the matcher from
the searches' URLs (`local_search` for each, then `FeedMatcher`), which a feed read pays
once if it builds the matcher anew.

CPU seconds are `time.process_time`, medians over `--pages` pages. `--quick` (what CI
runs) matches 1 page and times the naive loop on 2 adverts: the same code, in seconds; its
figures are rough.

    python benchmarks/matching.py [--quick] [--searches N ...] [--pages N] [--sample N]
                                  [--seed N]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import TypeVar
from urllib.parse import urlencode

from habicht.fakes import FakeAdvert, render_search_page
from habicht.model import Listing
from habicht.willhaben.local import FeedMatcher, LocalSearch, local_search
from habicht.willhaben.parse import parse_search_page
from habicht.willhaben.urls import PAGE_ROWS

T = TypeVar("T")

MARKET = "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz"
GOAL = 0.2
"""CPU seconds a feed page may cost at 10,000 searches (issue 26)."""
PRODUCTS = (  # noqa: SIM905 - a list of words reads best as words
    "iphone samsung galaxy pixel xiaomi huawei nokia ipad macbook thinkpad lenovo dell asus "
    "acer hp surface kindle airpods ps5 ps4 playstation xbox switch nintendo gameboy wii "
    "rtx gtx radeon geforce ryzen intel monitor tastatur maus headset lautsprecher bose sonos "
    "jbl marshall kopfhörer fernseher lg philips sony panasonic canon nikon fujifilm objektiv "
    "stativ drohne dji gopro lego duplo playmobil barbie puppenhaus kinderwagen maxicosi "
    "hochstuhl babybett wickeltisch fahrrad rennrad mountainbike ebike kinderrad helm ktm "
    "cube trek scott bulls vespa roller ski snowboard skischuhe zelt schlafsack rucksack "
    "sofa couch sessel tisch stuhl stühle schrank kommode regal ikea billy kallax malm bett "
    "matratze lampe teppich spiegel vorhang küche kühlschrank waschmaschine trockner "
    "geschirrspüler herd backofen mikrowelle kaffeemaschine siebträger delonghi jura "
    "nespresso thermomix kitchenaid dyson staubsauger rasenmäher husqvarna stihl bosch "
    "makita hilti bohrmaschine akkuschrauber werkbank leiter gartenmöbel griller weber "
    "pool trampolin schaukel gitarre fender gibson yamaha klavier keyboard schlagzeug "
    "geige saxophon jacke mantel dirndl lederhose sneaker nike adidas puma birkenstock "
    "handtasche uhr rolex swatch ring kette winterreifen sommerreifen felgen alufelgen "
    "dachbox anhänger kindersitz aquarium terrarium hundebox katzenbaum vogelkäfig bücher "
    "vinyl schallplatten comics briefmarken münzen modellbahn märklin"
).split()
COMMON = (  # noqa: SIM905 - as PRODUCTS
    "verkaufe biete neu neuwertig gebraucht top zustand sehr gut guter leichte "
    "gebrauchsspuren funktioniert einwandfrei abholung versand möglich in wien graz linz "
    "salzburg innsbruck mit ohne rechnung ovp originalverpackung garantie gewährleistung "
    "privatverkauf keine rücknahme nur selbstabholer preis fix vb verhandelbar bei "
    "interesse gerne melden nichtraucherhaushalt haustierfrei wegen umzug platzmangel "
    "und oder der die das ein eine für auf zu ist wird war noch kaum benutzt"
).split()
CATEGORIES = [("5824", "5878", str(5882 + n)) for n in range(10)] + [
    ("5387", str(5388 + n)) for n in range(10)
]
"""20 categories, two under each of two parents."""


def popular(rand: random.Random, items: Sequence[T], k: int) -> list[T]:
    """`k` of `items`, the n-th drawn with weight 1/(n + 10): a few popular, a long tail
    (the most popular of the 180 products is in about one title in 20)."""
    return rand.choices(items, weights=[1 / (n + 10) for n in range(len(items))], k=k)


def model(rand: random.Random) -> str:
    """A model number or size, as titles have them: "7", "1.6", "10294", or none."""
    return rand.choice(
        [
            "",
            "",
            str(rand.randint(2, 15)),
            f"{rand.randint(1, 9)}.{rand.randint(0, 9)}",
            str(rand.randint(100, 99999)),
        ]
    )


def advert(rand: random.Random, number: int) -> FakeAdvert:
    """An advert of one or two products: its title names them, its description mostly says
    what every advert says, with its own words now and then and another product rarely."""
    own = [*popular(rand, PRODUCTS, rand.randint(1, 2)), model(rand)]
    words = []
    for _ in range(rand.randint(10, 80)):
        chance = rand.random()
        if chance < 0.1:
            words.append(rand.choice(own))
        elif chance < 0.13:
            words.append(popular(rand, PRODUCTS, 1)[0])
        else:
            words.append(rand.choice(COMMON))
    words.insert(rand.randrange(len(words)), f"am {rand.randint(1, 28)}.{rand.randint(1, 12)}.2026")
    words.insert(rand.randrange(len(words)), f"€ {rand.randint(5, 2000)},-&nbsp;")
    return FakeAdvert(
        str(100_000_000 + number),
        " ".join([*own, rand.choice(["", "", "neu", "top", "OVP"])]).strip().title(),
        rand.choice([None, Decimal(rand.randint(1, 2000))]),
        body=" ".join(words).capitalize(),
        private=rand.random() < 0.8,
        categories=rand.choice(CATEGORIES),
        published_ms=1_800_000_000_000 - number,
    )


def search_url(rand: random.Random) -> str:
    """A subscriber's search: a popular product, maybe narrowed by a model, a second
    product or a word every advert might say; or a category alone."""
    query: list[tuple[str, str]] = []
    kind = rand.random()
    if kind < 0.85:
        words = popular(rand, PRODUCTS, 1)
        narrowed = rand.random()
        if narrowed < 0.3:
            words.append(model(rand))
        elif narrowed < 0.45:
            words += popular(rand, PRODUCTS, 1)
        elif narrowed < 0.6:
            words.append(rand.choice(["neu", "ovp", "wien", "defekt", "top"]))
        query.append(("keyword", " ".join(dict.fromkeys(word for word in words if word))))
    if rand.random() < 0.5:
        query.append(("PRICE_TO", str(rand.choice([50, 100, 200, 500, 1000]))))
    if rand.random() < 0.1:
        query.append(("ISPRIVATE", "1"))
    query.append(("sort", "1"))
    path = ""
    if kind >= 0.7:
        tree = rand.choice(CATEGORIES)
        path = f"/kategorie-{tree[-1] if rand.random() < 0.8 else rand.choice(tree[:-1])}"
    return f"{MARKET}{path}?{urlencode(query)}"


def cpu_seconds(func: Callable[..., T], *args: object) -> tuple[float, T]:
    """`func(*args)` and the CPU seconds it took."""
    start = time.process_time()
    result = func(*args)
    return time.process_time() - start, result


def local_searches(urls: Sequence[str]) -> list[tuple[int, LocalSearch]]:
    """The local searches among `urls`, numbered, as a feed read finds them."""
    return [(n, search) for n, url in enumerate(urls) if (search := local_search(url)) is not None]


def naive(
    searches: Sequence[tuple[int, LocalSearch]], page: Sequence[Listing]
) -> dict[int, list[Listing]]:
    """What a feed read did before issue 26: every search against every advert."""
    return {
        search_id: hits
        for search_id, search in searches
        if (hits := [listing for listing in page if search.matches(listing)])
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="1 page, the naive loop on 2 adverts (CI)"
    )
    parser.add_argument("--searches", type=int, nargs="+", default=[2000, 10_000])
    parser.add_argument("--pages", type=int, help="feed pages matched (5; quick 1)")
    parser.add_argument(
        "--sample", type=int, help="adverts the naive loop is timed on (10; quick 2)"
    )
    parser.add_argument("--seed", type=int, default=26)
    args = parser.parse_args()
    pages_wanted = args.pages or (1 if args.quick else 5)
    sample = args.sample or (2 if args.quick else 10)
    rand = random.Random(args.seed)
    pages = []
    for number in range(pages_wanted):
        adverts = [advert(rand, number * PAGE_ROWS + n) for n in range(PAGE_ROWS)]
        html = render_search_page(adverts, rows_requested=PAGE_ROWS).encode()
        pages.append(parse_search_page(html).listings)
    cut = sum((listing.body or "").endswith("...") for page in pages for listing in page)
    print(
        f"{pages_wanted} pages of {PAGE_ROWS} adverts ({cut} snippets cut), naive loop on {sample}"
    )
    for count in args.searches:
        urls = [search_url(rand) for _ in range(count)]
        build, searches = cpu_seconds(local_searches, urls)
        compile_, matcher = cpu_seconds(FeedMatcher, searches)
        times, naive_times, matched = [], [], 0
        for page in pages:
            elapsed, answer = cpu_seconds(matcher.match, page)
            times.append(elapsed)
            matched += sum(map(len, answer.values()))
            few = page[:sample]
            elapsed, expected = cpu_seconds(naive, searches, few)
            naive_times.append(elapsed * len(page) / len(few))
            assert matcher.match(few) == expected, "FeedMatcher and matches disagree"
        ours, theirs = statistics.median(times), statistics.median(naive_times)
        local = f"{len(searches):,} local"
        print(f"{count:,} searches ({local}), {matched / len(pages):,.0f} matches a page")
        print(f"  local_search for each URL      {build:8.3f} s CPU (once)")
        print(f"  FeedMatcher(searches)          {compile_:8.3f} s CPU (once)")
        print(f"  FeedMatcher.match, a page      {ours:8.4f} s CPU (median, goal <= {GOAL} s)")
        print(
            f"  matches for every pair, a page {theirs:8.3f} s CPU (median, from {sample} adverts)"
        )
        print(f"  ratio: {theirs / ours:.0f}x faster; {'met' if ours <= GOAL else 'NOT MET'}")


if __name__ == "__main__":
    main()
