"""Issue 26: a feed never costs an alert. Each case of the issue's table against the fake
world, the real client and scheduler and a real SQLite file on the virtual clock, with the
figure feeds off gives (`HABICHT_FEED_INTERVAL=0`)."""

from __future__ import annotations

import asyncio
import random
from decimal import Decimal
from typing import Any

import pytest
from kit.fakes import FakeClock, TextRenderer
from kit.feeds import (
    AREA,
    CARDS,
    GAMING,
    INTERVAL,
    MARKET,
    PASS_EVERY,
    RTX,
    alerts,
    client,
    make,
    one_pass,
    run,
    started,
    world,
)

from habicht.db import Database
from habicht.fakes import FakeAdvert
from habicht.fakes.willhaben_site import FakeWillhabenSite
from habicht.scraper.scan import ScanSummary, scan
from habicht.watches.filters import WatchFilter
from habicht.watches.subscriptions import Subscriptions
from habicht.willhaben.fetch import WillhabenClient
from habicht.willhaben.urls import parse_watch_argument

__all__ = ["client", "make", "run", "world"]  # the kit's fixtures this file uses

WHOLE = parse_watch_argument(f"{MARKET}/pc-komponenten/grafikkarten-5882")
SOFAS = "/moebel-wohnen/sofas-4863"
SOFA_SEARCHES = [
    parse_watch_argument(f"{MARKET}{SOFAS}{query}")
    for query in ("", "?PRICE_TO=500", "?ISPRIVATE=1")
]
ON_TIME = INTERVAL + 3 * PASS_EVERY
"""Publication (or a price cut) → its alert queued, polled every interval: the interval, the
pass that comes up to 10 s after it, and its scan."""

_ids = random.Random(26)


def advert(title: str, published: float, **fields: Any) -> FakeAdvert:
    """An advert with a random id (as willhaben's are), published at `published`."""
    return FakeAdvert(
        str(_ids.randrange(500_000_000, 2_200_000_000)),
        title,
        fields.pop("price", Decimal(400)),
        published_ms=int(published * 1000),
        **fields,
    )


def sofas(count: int, published: float, every: float = 0.001) -> list[FakeAdvert]:
    """Adverts of another category, one every `every` seconds from `published` on: they fill
    the feed."""
    return [
        advert(f"Sofa {n}", published + n * every, categories=("4800", "4863"), price=Decimal(300))
        for n in range(count)
    ]


async def created(db: Database, ad_id: str, kind: str = "new") -> list[tuple[int, float, str]]:
    """(chat, queued at, source) of each alert of `kind` for the advert."""
    rows = await db.fetchall(
        "SELECT chat_id, created_at, source FROM notifications WHERE ad_id = ? AND kind = ?"
        " ORDER BY chat_id",
        (ad_id, kind),
    )
    return [(row["chat_id"], row["created_at"], row["source"]) for row in rows]


async def test_every_card_published_while_habicht_was_down_is_alerted(
    db: Database, subs: Subscriptions, world: FakeWillhabenSite, run: Any, clock: FakeClock
) -> None:
    """A whole-category watch; habicht is down 3 h while 340 cards and 1,000 other adverts
    are published. The feed's first read after it reaches none of its anchors and records
    only the newest 250 cards for the watch; the search's own scan still reads on to the
    adverts its own reads saw, so every card is alerted — 340 of 340, as with feeds off (was
    200: its page 1 held only cards the feed had recorded, and it stopped there)."""
    world.publish(*[advert(f"Grafikkarte alt {n}", clock() - 30 * 86400) for n in range(30)])
    await started(subs, run, (1, WHOLE), (2, RTX))
    await run(120)
    down = clock()
    clock.advance(3 * 3600)
    cards = [advert(f"Grafikkarte {n}", down + 30 * n) for n in range(340)]
    world.publish(*cards, *sofas(1000, down, every=10.8))
    await run(INTERVAL + 60)
    told = await db.fetchall("SELECT ad_id FROM notifications WHERE chat_id = 1 AND kind = 'new'")
    assert {row["ad_id"] for row in told} == {card.id for card in cards}


@pytest.mark.parametrize("rule", ["below 300", "drop 10%"])
async def test_a_new_advert_trimmed_before_its_search_first_reads_it_is_new(
    db: Database, subs: Subscriptions, world: FakeWillhabenSite, run: Any, make: Any, rule: str
) -> None:
    """A search with an `areaId` (polled on its own) first reads a new card at € 280, which
    the feed had read at € 290 before its seller trimmed it. Published after the watch's
    baseline, it is a new listing — not a drop "now within your search" that the watch's
    price rule holds back for good (nothing was sent)."""
    await started(subs, run, (1, RTX), (2, CARDS), (3, AREA))
    await subs.set_filter(3, 1, WatchFilter().with_rules([rule]))
    card = make(1, "RTX 3080", price=Decimal(290), params=(("areaId", "900"),))[0]
    world.publish(card)
    await run(60)
    assert [chat for chat, _, _ in await created(db, card.id)] == [1, 2]
    world.set_price(card.id, Decimal(280))
    await run(INTERVAL)
    assert (f"new {card.id}", f"new:{card.id}:3", "search") in await alerts(db)


async def test_a_dealers_second_unit_is_new_not_a_repost_of_the_first(
    db: Database, subs: Subscriptions, world: FakeWillhabenSite, run: Any, clock: FakeClock
) -> None:
    """A dealer has unit A of a card on the search's pages (below the feed's newest) and puts
    up an identical unit B, cheaper. The search still shows A, so B is no repost: new for
    both chats, the one hiding reposts too (B arrived as a drop 9,900 → 9,500 of A, and the
    `-reposts` watch never heard of it). The feed cannot see whether A is still there, so B
    is the search's own scan's to judge, requested at once: within the same minute (issue
    36)."""
    unit_a = advert("RTX 3080 Gaming OC", clock() - 2 * 86400, price=Decimal(9900), seller="d7")
    world.publish(unit_a, *sofas(250, clock() - 86400))
    await started(subs, run, (1, RTX), (2, CARDS))
    await subs.set_filter(2, 1, WatchFilter().with_rules(["-reposts"]))
    await run(60)
    unit_b = advert("RTX 3080 Gaming OC", clock(), price=Decimal(9500), seller="d7")
    world.publish(unit_b)
    await run(60)
    assert sorted(await alerts(db)) == [
        (f"new {unit_b.id}", f"new:{unit_b.id}:1", "search"),
        (f"new {unit_b.id}", f"new:{unit_b.id}:2", "search"),
    ]


async def test_a_price_cut_of_a_fed_search_arrives_within_the_scrape_interval(
    db: Database, subs: Subscriptions, world: FakeWillhabenSite, run: Any, clock: FakeClock
) -> None:
    """An older card of a fed search (below the feed's newest adverts) is cut from € 300 to
    € 240: the budget has room, so the search's own scan finds the drop within one scrape
    interval — as with feeds off (it waited for the safety net: 1,202 s)."""
    card = advert("RTX 3080 Ventus", clock() - 2 * 86400, price=Decimal(300))
    world.publish(card, *sofas(250, clock() - 86400))
    await started(subs, run, (1, RTX), (2, CARDS))
    await run(600)
    world.set_price(card.id, Decimal(240))
    cut = clock()
    await run(ON_TIME)
    drops = await created(db, card.id, "drop")
    assert [chat for chat, _, _ in drops] == [1, 2]
    assert max(at for _, at, _ in drops) - cut <= ON_TIME


async def test_a_word_beyond_the_snippet_arrives_within_the_scrape_interval(
    db: Database, subs: Subscriptions, world: FakeWillhabenSite, run: Any, clock: FakeClock
) -> None:
    """willhaben lists "Grafikkarte" for a `gaming` search by a word further down its
    description than the feed's snippet: the feed cannot match it, and the search's own scan
    sends it within one scrape interval while the budget idles (not up to 30 min later)."""
    await started(subs, run, (1, GAMING), (2, RTX))
    body = "Top Zustand. " + "x " * 150 + "Ideal zum Gaming."
    hidden = advert("Grafikkarte", clock(), body=body)
    world.publish(hidden)
    await run(ON_TIME)
    assert [(chat, source) for chat, _, source in await created(db, hidden.id)] == [(1, "search")]


async def test_a_watch_added_during_a_long_pass_is_served_by_the_feed_at_once(
    db: Database,
    subs: Subscriptions,
    world: FakeWillhabenSite,
    client: WillhabenClient,
    clock: FakeClock,
    run: Any,
) -> None:
    """`/watch lego technic` while a long pass scans 100 plain searches: its baseline is
    taken in the pass, and the feed's next read (within the minute) alerts a set published
    just after it — in the same pass, not 658 s later in the next."""
    areas = [
        parse_watch_argument(f"{MARKET}/pc-komponenten/grafikkarten-5882?areaId={900 + n}")
        for n in range(100)
    ]
    await started(subs, run, (1, RTX), (2, CARDS), *[(10 + n, a) for n, a in enumerate(areas)])
    clock.advance(INTERVAL)
    lego = parse_watch_argument("lego technic")
    lego_set = advert("LEGO Technic 42115 Lamborghini", 0.0, categories=("6000", "6001"))
    published: list[float] = []
    adding: list[asyncio.Task[Any]] = []

    def progress() -> None:
        """Add the watch at the pass's first step; publish the set once its baseline read."""
        if not adding:
            adding.append(asyncio.ensure_future(subs.add_watch(50, lego, max_watches=5)))
        elif not published and world.hits[lego.url]:
            published.append(clock())
            world.publish(FakeAdvert(**{**vars(lego_set), "published_ms": int(clock() * 1000)}))

    summary: ScanSummary = await one_pass(db, client, clock, progress)
    assert summary.scanned >= 100
    assert published
    (chat, at, source), *_ = await created(db, lego_set.id)
    assert (chat, source) == (50, "feed")
    assert at - published[0] <= 60 + 2 * 2.0


async def test_preview_says_a_repost_is_hidden_by_minus_reposts(
    db: Database, subs: Subscriptions, world: FakeWillhabenSite, run: Any, clock: FakeClock
) -> None:
    """A seller's card leaves the search and comes back as a new advert: the search's own
    scan holds it back from the `-reposts` watch, and `/preview` says the same (it said the
    repost passes)."""
    first = advert("RTX 3080 Eagle", clock() - 86400, seller="s1", params=(("areaId", "900"),))
    world.publish(first)
    await started(subs, run, (1, AREA))
    await subs.set_filter(1, 1, WatchFilter().with_rules(["-reposts"]))
    world.withdraw(first.id)
    await run(INTERVAL)
    again = advert("RTX 3080 Eagle", clock(), seller="s1", params=(("areaId", "900"),))
    world.publish(again)
    await run(INTERVAL)
    assert await alerts(db) == []
    preview = await subs.preview(1, 1)
    assert preview is not None
    assert preview.alerted.count == 0
    assert [(outcome.rule, outcome.count) for outcome in preview.hidden] == [("-reposts", 1)]


async def test_a_root_that_lists_one_category_costs_the_others_nothing(
    db: Database, subs: Subscriptions, world: FakeWillhabenSite, run: Any, clock: FakeClock
) -> None:
    """A willhaben whose marketplace root lists only graphics cards: the sofa searches' own
    scans find every sofa within one scrape interval of its publication, as with feeds off;
    they count coverage misses, go back to plain polling, the feed — which lists what three
    of its five searches cannot find — is switched off, and the owner is told once."""
    world.root_lists = lambda advert: "5882" in advert.categories
    chats = [(1, RTX), (2, CARDS), *[(3 + n, s) for n, s in enumerate(SOFA_SEARCHES)]]
    await started(subs, run, *chats)
    published = []
    summaries: list[ScanSummary] = []
    for _ in range(36):  # a sofa every 100 s for an hour
        sofa = advert("Ecksofa Leder", clock(), categories=("4800", "4863"), price=Decimal(300))
        world.publish(sofa)
        published.append((sofa.id, clock()))
        summaries += await run(100)
    summaries += await run(ON_TIME)
    for ad_id, at in published:
        queued = await created(db, ad_id)
        assert [chat for chat, _, _ in queued] == [3, 4, 5]
        assert max(when for _, when, _ in queued) - at <= ON_TIME
    assert sum(summary.coverage_misses for summary in summaries) >= 3
    switched = [off for summary in summaries for off in summary.feeds_off]
    assert [(off.url, off.searches) for off in switched] == [(f"{MARKET}?sort=1", 3)]
    missing = await db.fetchall("SELECT coverage_misses FROM searches ORDER BY id")
    assert [row[0] > 0 for row in missing] == [False, False, True, True, True]


async def test_a_drop_after_a_rise_is_told_from_the_price_the_chat_knows(
    db: Database, subs: Subscriptions, world: FakeWillhabenSite, run: Any, clock: FakeClock
) -> None:
    """An advert told at € 870 rises to € 890 (nothing to tell) and falls to € 840: the alert
    says "€ 870 → € 840", from the price the chat was told — as the README now says too (it
    promised "€ 890 → € 840", the price seen before the drop)."""
    await started(subs, run, (1, AREA))
    card = advert("RTX 3080 Suprim", clock(), price=Decimal(870), params=(("areaId", "900"),))
    world.publish(card)
    await run(INTERVAL)
    for price in (890, 840):
        world.set_price(card.id, Decimal(price))
        await run(INTERVAL)
    assert [key for _, key, _ in await alerts(db)] == [
        f"new:{card.id}:1",
        f"drop:{card.id}:1:870:840",
    ]


async def test_a_feed_read_judges_only_what_it_has_not_shown_as_it_is(
    db: Database, subs: Subscriptions, world: FakeWillhabenSite, run: Any, clock: FakeClock
) -> None:
    """The feed shows the same newest adverts minute after minute: only those it has not shown
    as they are now are matched and judged again — so the searches' records of them stay as
    the first read left them — while a card it showed reserved is judged, and alerted from
    the feed, once it is active again at the same price."""
    await started(subs, run, (1, RTX), (2, CARDS))
    card = advert("RTX 3080 Phoenix", clock(), price=Decimal(350))
    held = advert("RTX 3080 Strix", clock(), price=Decimal(500), reserved=True)
    world.publish(card, held)
    await run(60)
    shown = "SELECT max(last_seen_at) FROM search_listings WHERE ad_id = ?"
    first = await db.single_value(shown, (card.id,))
    await run(120)
    assert await db.single_value(shown, (card.id,)) == first
    assert [key for _, key, _ in await alerts(db)] == [f"new:{card.id}:1", f"new:{card.id}:2"]
    world.set_reserved(held.id, False)
    await run(60)
    assert [(chat, source) for chat, _, source in await created(db, held.id)] == [
        (1, "feed"),
        (2, "feed"),
    ]


async def test_one_cut_is_told_once_to_a_chat_whose_two_watches_knew_other_prices(
    db: Database,
    subs: Subscriptions,
    world: FakeWillhabenSite,
    client: WillhabenClient,
    clock: FakeClock,
) -> None:
    """Found by benchmarks/freshness.py: a chat with two watches whose searches list one card.
    A cut € 49 → € 42 reaches it through the first watch; the next cut, to € 36, would come
    as "€ 42 → € 36" by the first watch and "€ 49 → € 36" by the second — one cut, told once.
    A cut to the same price after a rise is a new drop and told again."""
    cheap = parse_watch_argument(f"{AREA.url}&PRICE_TO=60")
    card = advert("GTX 1050", 0.0, price=Decimal(49), params=(("areaId", "900"),))
    world.publish(card)
    first = await subs.add_watch(1, AREA, max_watches=5)
    second = await subs.add_watch(1, cheap, max_watches=5)

    async def scanned(*watches: Any) -> None:
        ids = [watch.search_id for watch in watches]
        await scan(db, client, TextRenderer(), clock=clock, max_attempts=5, search_ids=ids)

    await scanned(first, second)
    for price, watches in ((42, [first]), (36, [first, second]), (45, [first, second])):
        clock.advance(60)
        world.set_price(card.id, Decimal(price))
        await scanned(*watches)
    clock.advance(60)
    world.set_price(card.id, Decimal(36))
    await scanned(second, first)
    drops = [key for _, key, _ in await alerts(db) if key.startswith("drop")]
    assert drops == [
        f"drop:{card.id}:1:49:42",
        f"drop:{card.id}:1:42:36",
        f"drop:{card.id}:1:45:36",
    ]
