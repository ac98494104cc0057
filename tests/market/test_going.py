"""Issue 21, the going price: what the adverts a search showed in the last 30 days cost, each
once at its latest price, without placeholders and outliers; the note it gives alerts, and
`deal`, through real scans of real-shaped pages (30 adverts, random ids, bumped and reserved
ones)."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Callable
from decimal import Decimal
from typing import Any

import pytest
from kit import willhaben_client
from kit.fakes import FakeClock, TextRenderer

from habicht.db import Database
from habicht.fakes import FakeAdvert
from habicht.fakes.willhaben_site import MARKETPLACE
from habicht.fakes.willhaben_site import FakeWillhabenSite as Site  # short for the signatures
from habicht.market.going import MIN_PRICES, PriceStats, going_price, summarize
from habicht.market.listings import record_listings, record_shown
from habicht.market.trend import going_by_day
from habicht.model import Estate, Listing
from habicht.scraper.scan import ScanSummary, scan
from habicht.watches.figures import WatchFigures, watch_figures
from habicht.watches.filters import WatchFilter
from habicht.watches.notes import SearchFacts
from habicht.watches.subscriptions import Subscriptions
from habicht.willhaben.fetch import WillhabenClient
from habicht.willhaben.urls import parse_watch_argument

SOFA = parse_watch_argument("sofa")
DAY = 86400.0
CHAT = 11


def prices(*values: str) -> list[Decimal]:
    return [Decimal(value) for value in values]


# ---- summarize: the figures and how they resist nonsense ---------------------------------


def test_the_median_and_quartiles_of_plain_prices() -> None:
    """Ten prices give their median and their inclusive quartiles, to the cent."""
    stats = summarize(prices(*(str(100 * n) for n in range(1, 11))))
    assert stats == PriceStats(count=10, median=Decimal(550), low=Decimal(325), high=Decimal(775))
    assert stats.enough


@pytest.mark.parametrize(
    "junk",
    [
        prices("0", "1", "0.5"),  # "zu verschenken" and "make an offer" typed as a price
        prices("5", "45000"),  # a "Tausch" and a mistyped € 45,000 for a € 450 sofa
        prices("0", "1", "5", "45000", "99999"),
    ],
    ids=["placeholders", "outliers", "both"],
)
def test_placeholders_and_outliers_change_nothing(junk: list[Decimal]) -> None:
    """€ 0 and € 1 are no prices, and a price more than ten times away from the median is an
    outlier: neither is counted, and the median and quartiles stay what the real prices say."""
    real = prices("380", "400", "420", "440", "450", "450", "460", "480", "500", "520")
    assert summarize(real + junk) == summarize(real)
    assert summarize(junk + real) == PriceStats(10, Decimal(450), Decimal("425"), Decimal("475"))


def test_nothing_left_is_no_going_price() -> None:
    """Only placeholders: there is no going price, not a median of € 0."""
    assert summarize(prices("0", "1", "1")) is None
    assert summarize([]) is None


def test_a_single_price_is_its_own_median() -> None:
    stats = summarize(prices("99.90"))
    assert stats == PriceStats(1, Decimal("99.9"), Decimal("99.9"), Decimal("99.9"))
    assert stats is not None
    assert not stats.enough


@pytest.mark.parametrize(
    ("price", "under", "deal_20"),
    [
        ("360", 20, True),  # exactly 20 % under
        ("360.01", 20, False),  # says ≈ 20 %, is 19.998 %: deal is exact
        ("369", 18, False),
        ("450", 0, False),
        ("540", -20, False),
        ("44", 90, False),  # more than ten times under: an outlier, no deal
        ("1", 100, False),  # a placeholder, no deal
    ],
)
def test_percent_under_the_median_and_what_deal_takes(
    price: str, under: int, deal_20: bool
) -> None:
    """The line says the rounded percent; `deal` compares exactly, and never takes a price the
    going price itself would not count."""
    going = PriceStats(20, Decimal(450), Decimal(400), Decimal(500))
    assert going.percent_under(Decimal(price)) == under
    assert going.under_by(Decimal(price), Decimal(20)) is deal_20
    assert going.threshold(Decimal(20)) == Decimal(360)
    assert going.threshold(Decimal("12.5")) == Decimal("393.75")


# ---- through scans -----------------------------------------------------------------------


class Ids:
    """Random advert ids as willhaben's look (nine or ten digits), never the same twice."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)
        self._used: set[str] = set()

    def __call__(self) -> str:
        while (ad_id := str(self._rng.randrange(100_000_000, 2_000_000_000))) in self._used:
            pass
        self._used.add(ad_id)
        return ad_id


@pytest.fixture
def new_id() -> Ids:
    return Ids(21)


@pytest.fixture
async def client(site: Site, clock: FakeClock) -> AsyncIterator[WillhabenClient]:
    async with willhaben_client(site.transport(), clock, fetch_gap=0.0) as willhaben:
        yield willhaben


@pytest.fixture
def renderer() -> TextRenderer:
    return TextRenderer()


Run = Callable[[], Any]


@pytest.fixture
def run(db: Database, client: WillhabenClient, clock: FakeClock, renderer: TextRenderer) -> Run:
    async def run_scan() -> ScanSummary:
        clock.advance(300)
        return await scan(db, client, renderer, clock=clock, max_attempts=5)

    return run_scan


def sofas(new_id: Ids, values: list[str | None], **kwargs: Any) -> list[FakeAdvert]:
    """Adverts at `values` (None: price-less, "zu verschenken"), each with a random id."""
    return [
        FakeAdvert(new_id(), f"Sofa {n}", None if v is None else Decimal(v), **kwargs)
        for n, v in enumerate(values)
    ]


def page_of_30(new_id: Ids) -> list[FakeAdvert]:
    """A real-shaped page: 24 sofas around € 450 (two of them bumped), a reserved one, two
    price-less ones ("zu verschenken", "VB"), placeholders of € 0 and € 1 and a € 45,000
    typo."""
    around = [str(400 + 5 * n) for n in range(24)]  # € 400 … € 515, median € 457.50
    adverts = sofas(new_id, around[:22])
    adverts[3:3] = sofas(new_id, around[22:], bumped=True)
    adverts += sofas(new_id, ["430"], reserved=True)
    adverts += sofas(new_id, [None, "0", "1", "45000"])
    adverts += sofas(new_id, [None], price_display="VB")
    assert len(adverts) == 30
    return adverts


async def figures(db: Database, clock: FakeClock) -> WatchFigures:
    search_id = await db.single_value("SELECT id FROM searches")
    return await watch_figures(db, search_id=search_id, chat_id=CHAT, now=clock())


async def test_a_page_of_30_counts_each_real_price_once(
    run: Run, subs: Subscriptions, site: Site, new_id: Ids, db: Database, clock: FakeClock
) -> None:
    """Of a page of 30 the going price counts the 24 real prices, bumped ones once each
    however often they are read; the price-less advert, the placeholder, the outlier and
    the reserved advert (which counts as not on the page) are left out."""
    await subs.add_watch(CHAT, SOFA, max_watches=5)
    site.set_listings(MARKETPLACE, page_of_30(new_id))
    await run()
    await run()
    shown = await figures(db, clock)
    assert (shown.shown, shown.priced, shown.left_out) == (29, 27, 3)
    assert shown.going == PriceStats(24, Decimal("457.5"), Decimal("428.75"), Decimal("486.25"))


async def test_a_price_change_replaces_the_adverts_price(
    run: Run, subs: Subscriptions, site: Site, new_id: Ids, db: Database, clock: FakeClock
) -> None:
    """An advert counts once, at its latest price: a repriced advert moves the median, it
    does not add a price; one that goes price-less drops out."""
    await subs.add_watch(CHAT, SOFA, max_watches=5)
    site.set_listings(MARKETPLACE, sofas(new_id, ["100", "200", "300", "400", "500"]))
    await run()
    assert (await figures(db, clock)).going == PriceStats(
        5, Decimal(300), Decimal(200), Decimal(400)
    )
    site.set_price(site.listings(MARKETPLACE)[2].id, Decimal(450))
    await run()
    assert (await figures(db, clock)).going == PriceStats(
        5, Decimal(400), Decimal(200), Decimal(450)
    )
    site.set_price(site.listings(MARKETPLACE)[0].id, None)
    await run()
    shown = await figures(db, clock)
    assert (shown.shown, shown.priced) == (5, 4)
    assert shown.going == PriceStats(4, Decimal(425), Decimal(350), Decimal("462.5"))


@pytest.mark.parametrize(("days", "counted"), [(29, 19), (31, 9)])
async def test_adverts_count_for_30_days_after_they_were_last_shown(
    run: Run,
    subs: Subscriptions,
    site: Site,
    new_id: Ids,
    db: Database,
    clock: FakeClock,
    renderer: TextRenderer,
    days: int,
    counted: int,
) -> None:
    """Ten adverts last shown 29 days ago still count; 31 days ago they do not, and the nine
    of today are too few for the alert's line."""
    await subs.add_watch(CHAT, SOFA, max_watches=5)
    site.set_listings(MARKETPLACE, sofas(new_id, ["450"] * 10))
    await run()
    clock.advance(days * DAY)
    site.set_listings(MARKETPLACE, sofas(new_id, ["400"] * 8))
    await run()  # the old ten are gone: seen as gone, not counted from now on
    fresh = sofas(new_id, ["300"])
    site.set_listings(MARKETPLACE, fresh + site.listings(MARKETPLACE))
    await run()
    shown = await figures(db, clock)
    assert shown.going is not None
    assert shown.going.count == counted
    going = renderer.notes[fresh[0].id].going
    assert (going is not None) is (counted >= MIN_PRICES)


@pytest.mark.parametrize("count", [MIN_PRICES - 1, MIN_PRICES])
async def test_an_alert_carries_the_going_price_from_10_prices(
    run: Run,
    subs: Subscriptions,
    site: Site,
    new_id: Ids,
    renderer: TextRenderer,
    count: int,
) -> None:
    """With 9 real prices (price-less adverts, placeholders and outliers beside them do not
    help) a new advert's alert has no going price; with 10 (the new advert's own counts) it
    has, and it is the search's median."""
    await subs.add_watch(CHAT, SOFA, max_watches=5)
    site.set_listings(
        MARKETPLACE, sofas(new_id, ["450"] * (count - 1) + [None, None, "0", "1", "9", "9999"])
    )
    await run()
    fresh = sofas(new_id, ["380"])
    site.set_listings(MARKETPLACE, fresh + site.listings(MARKETPLACE))
    await run()
    going = renderer.notes[fresh[0].id].going
    if count < MIN_PRICES:
        assert going is None
    else:
        assert going == PriceStats(10, Decimal(450), Decimal(450), Decimal(450))


async def test_a_drop_alerts_going_price_counts_the_new_price(
    run: Run, subs: Subscriptions, site: Site, new_id: Ids, renderer: TextRenderer
) -> None:
    """A drop's notes carry the going price with the advert at its new price (its old one no
    longer counts)."""
    await subs.add_watch(CHAT, SOFA, max_watches=5)
    site.set_listings(
        MARKETPLACE, sofas(new_id, [str(400 + 10 * n) for n in range(11)])
    )  # median € 450
    await run()
    dropping = site.listings(MARKETPLACE)[-1]  # € 500
    site.set_price(dropping.id, Decimal(100))
    await run()
    going = renderer.notes[dropping.id].going
    assert going is not None
    assert (going.count, going.median) == (11, Decimal(440))


# ---- deal through scans ------------------------------------------------------------------


async def _alerted_and_hidden(db: Database) -> tuple[set[str], dict[str, str]]:
    alerted = {row[0] for row in await db.fetchall("SELECT ad_id FROM notifications")}
    hits = {row[0]: row[1] for row in await db.fetchall("SELECT ad_id, rule FROM filter_hits")}
    return alerted - {None}, hits


async def test_deal_keeps_only_adverts_far_enough_under_the_median(
    run: Run, subs: Subscriptions, site: Site, new_id: Ids, db: Database
) -> None:
    """`deal 20%` on a search with a going price of € 457.50 (three new prices under it and
    three over it keep it there): € 300 and € 366 (20 % under) are alerted; € 400, the dear
    ones, a price-less advert, a € 1 placeholder and a € 9 "Tausch" are hidden by the rule
    and counted as its hits."""
    await subs.add_watch(CHAT, SOFA, max_watches=5)
    await subs.set_filter(CHAT, 1, WatchFilter().with_rules(["deal", "20%"]))
    site.set_listings(MARKETPLACE, page_of_30(new_id))
    await run()
    cheap, edge, near, free, placeholder, swap = sofas(
        new_id, ["300", "366", "400", None, "1", "9"]
    )
    dear = sofas(new_id, ["600", "700", "800"])
    site.set_listings(
        MARKETPLACE,
        [cheap, edge, near, free, placeholder, swap, *dear, *site.listings(MARKETPLACE)[:24]],
    )
    await run()
    alerted, hits = await _alerted_and_hidden(db)
    assert alerted == {cheap.id, edge.id}
    hidden = (near, free, placeholder, swap, *dear)
    assert hits == {ad.id: "deal 20%" for ad in hidden}


async def test_deal_hides_everything_while_the_search_has_too_few_prices(
    run: Run, subs: Subscriptions, site: Site, new_id: Ids, db: Database
) -> None:
    """Until the search has 10 prices there is no median, and `deal` lets nothing through:
    the watch asked for bargains only. What it hid stays seen; the first advert after the
    tenth price is judged against the median."""
    await subs.add_watch(CHAT, SOFA, max_watches=5)
    await subs.set_filter(CHAT, 1, WatchFilter(deal=Decimal(20)))
    site.set_listings(MARKETPLACE, sofas(new_id, ["450"] * 8))
    await run()
    early = sofas(new_id, ["100"])
    site.set_listings(MARKETPLACE, early + site.listings(MARKETPLACE))
    await run()  # nine prices now
    late = sofas(new_id, ["200"])
    site.set_listings(MARKETPLACE, late + site.listings(MARKETPLACE))
    await run()  # ten, its own included
    alerted, hits = await _alerted_and_hidden(db)
    assert alerted == {late[0].id}
    assert hits == {early[0].id: "deal 20%"}


async def test_a_drop_into_deal_range_is_alerted(
    run: Run, subs: Subscriptions, site: Site, new_id: Ids, db: Database
) -> None:
    """`deal` judges an advert as it is now: one hidden at € 440 is alerted when its price
    drops to € 300; a drop that stays above the deal price is not."""
    await subs.add_watch(CHAT, SOFA, max_watches=5)
    await subs.set_filter(CHAT, 1, WatchFilter(deal=Decimal(20)))
    site.set_listings(MARKETPLACE, sofas(new_id, ["450"] * 12))
    await run()
    slow, fast = site.listings(MARKETPLACE)[:2]
    site.set_price(slow.id, Decimal(400))
    site.set_price(fast.id, Decimal(300))
    await run()
    rows = await db.fetchall("SELECT ad_id, kind FROM notifications WHERE kind = 'drop'")
    assert [(row[0], row[1]) for row in rows] == [(fast.id, "drop")]


# ---- real estate: like with like, per m² (issue 29) ---------------------------------------

FLATS = "https://www.willhaben.at/iad/immobilien/mietwohnungen/wien/wien-1070-neubau"


def flat(ad_id: str, price: str, area: int | None) -> Listing:
    """A Neubau rental of `area` m² at `price` a month, as the parser makes one."""
    return Listing(
        id=ad_id,
        title=f"Mietwohnung {ad_id}",
        price=Decimal(price),
        price_display=f"€ {price}",
        location="Wien, 07. Bezirk, Neubau",
        postcode="1070",
        url=f"https://www.willhaben.at/iad/immobilien/d/mietwohnungen/wien/{ad_id}/",
        image_url=None,
        published_at=None,
        bumped=False,
        estate=Estate(ad_type=2, state="Wien", location_id="117229", living_area=area),
    )


async def shown_by_flat_search(db: Database, listings: list[Listing], *, now: float) -> None:
    """Search 1 (FLATS) read `listings` at `now`: recorded as a scan records them."""
    async with db.transaction() as conn:
        await conn.execute(
            "INSERT OR IGNORE INTO searches (id, url, created_at) VALUES (1, ?, 0)", (FLATS,)
        )
        await record_shown(conn, 1, await record_listings(conn, listings, now=now), now=now)


async def flat_going(db: Database, *, now: float) -> PriceStats | None:
    async with db.transaction() as conn:
        return await going_price(conn, 1, now=now)


async def test_a_big_flat_is_under_the_median_of_small_flats(db: Database) -> None:
    """The issue's case: among 24 flats of 45 m² at € 864 (€ 19.20 a m²) a 100 m² flat at
    € 1,004 was "≈ 16 % over the median (€ 864)"; per m² (€ 10.04) it is 48 % under, `deal`
    takes it, and a flat that does not say its area is left out, not counted by its rent."""
    big = flat("big", "1004", 100)
    small = [flat(f"s{n}", "864", 45) for n in range(24)]
    await shown_by_flat_search(db, [*small, big, flat("sizeless", "300", None)], now=DAY)
    going = await flat_going(db, now=DAY)
    assert going == PriceStats(25, Decimal("19.2"), Decimal("19.2"), Decimal("19.2"), True)
    notes = SearchFacts(going=going).notes(big)
    assert notes.compared(big.price) == Decimal("10.04")
    assert going.percent_under(Decimal("10.04")) == 48
    assert WatchFilter(deal=Decimal(40)).hidden_by(big, notes) is None
    assert (
        SearchFacts(going=going).notes(flat("sizeless", "300", None)).compared(Decimal(300)) is None
    )  # no area: no comparison, and no deal either
    figures = await watch_figures(db, search_id=1, chat_id=CHAT, now=DAY)
    assert (figures.going, figures.priced, figures.left_out) == (going, 26, 1)
    [today] = await going_by_day(db, [1], now=DAY, days=1)
    assert today.going == going  # the /stats chart's last point says what the alert says


async def test_the_area_is_stored_with_the_advert_and_sofas_keep_plain_prices(
    db: Database,
) -> None:
    """The area is stored with the advert (migration 019), a corrected one replaces it, and
    the going price reads it back; a search whose adverts say no area (the marketplace) keeps
    the plain price."""
    flats = [flat(f"f{n}", str(500 + 10 * n), 50) for n in range(10)]  # € 10.00 … 11.80/m²
    await shown_by_flat_search(db, flats, now=DAY)
    await shown_by_flat_search(db, [flat("f9", "590", 59)], now=DAY + 60)  # € 10.00/m² now
    area = "SELECT living_area FROM listings WHERE ad_id = ?"
    assert [await db.single_value(area, (ad,)) for ad in ("f0", "f9")] == [50, 59]
    going = await flat_going(db, now=2 * DAY)
    assert going is not None
    assert (going.per_m2, going.count, going.median) == (True, 10, Decimal("10.7"))
    plain = summarize(prices("450", "460"))
    assert plain is not None
    assert not plain.per_m2
    assert plain.measure(Decimal(450), 45) == Decimal(450)  # a plain going price ignores m²
