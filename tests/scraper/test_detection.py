"""Issue 9: detection on pages shaped like the real site — random ids, heavy bumping, reserved
adverts, 200 rows a page and `page=` paging — through the real client, scan and SQLite file
(how deep a read goes: tests/scraper/test_pages.py)."""

from __future__ import annotations

import random
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from kit.fakes import FakeClock, TextRenderer
from kit.migrations import before_migration
from kit.paging import (
    FLATS,
    alerts,
    baseline,
    client,
    make,
    pages_asked,
    run,
    site,
)

from habicht.db import Database
from habicht.fakes import FakeAdvert
from habicht.fakes.willhaben_site import FakeWillhabenSite as Site  # short for the signatures
from habicht.scraper.pages import MAX_PAGES
from habicht.scraper.scan import scan
from habicht.watches.filters import WatchFilter
from habicht.watches.subscriptions import Subscriptions
from habicht.willhaben.fetch import WillhabenClient
from habicht.willhaben.urls import PAGE_ROWS, parse_watch_argument

__all__ = ["client", "make", "run", "site"]  # the kit's fixtures this file uses


async def test_75_new_adverts_in_one_interval_are_all_alerted_exactly_once(
    db: Database, subs: Subscriptions, site: Site, run: Any, make: Any
) -> None:
    """75 new adverts between two scans, mixed with 20 old ones bumped among them, are 75
    alerts — each once, however often the search is scanned again."""
    old = make(100, age=30 * 86400)
    await baseline(subs, site, run, old)
    new = make(75)
    shuffled = random.Random(1).sample(new + old[:20], 95)
    for advert in shuffled:
        if advert in old:
            site.bump(FLATS.url, advert.id)
        else:
            site.add(FLATS.url, advert)
    assert (await run()).new == 75
    assert (await run()).new == 0
    keys = [key for _, key in await alerts(db)]
    assert sorted(keys) == sorted(f"new:{advert.id}:1" for advert in new)


async def test_a_search_of_260_adverts_bumped_after_the_baseline_announces_none_of_them(
    db: Database, subs: Subscriptions, site: Site, run: Any, make: Any, clock: FakeClock
) -> None:
    """The baseline reads both pages of a 260-advert search, so old adverts bumped to the top
    later — even from the second page — are known; a new advert with an id lower than every
    id seen is still alerted."""
    old = make(260, age=90 * 86400)
    site.log.clear()
    await baseline(subs, site, run, old)
    assert pages_asked(site) == ["1", "2"]
    assert await db.single_value("SELECT baseline_complete FROM watches") == 1
    for advert in random.Random(2).sample(old, 80) + old[-5:]:
        site.bump(FLATS.url, advert.id, published_ms=int(clock() * 1000))
    lowest = min(int(advert.id) for advert in old)
    low_id = FakeAdvert(str(lowest - 1), "Neu, kleine id", Decimal(650))
    site.add(FLATS.url, low_id)
    assert (await run()).new == 1
    assert await alerts(db) == [(f"new {low_id.id}", f"new:{low_id.id}:1")]


async def test_beyond_a_baseline_that_could_not_read_the_search_a_bump_is_said_honestly_once(
    db: Database, subs: Subscriptions, site: Site, run: Any, make: Any, clock: FakeClock
) -> None:
    """A search larger than MAX_PAGES pages: the baseline is incomplete. An unseen advert
    bumped up from beyond it may be new or old: it is sent once as "bumped, not seen before",
    never as new; a seen one bumped says nothing, a new unbumped one is new."""
    old = make(MAX_PAGES * PAGE_ROWS + 100, age=90 * 86400)
    await baseline(subs, site, run, old)
    assert await db.single_value("SELECT baseline_complete FROM watches") == 0
    (watch,) = await subs.watches(1)
    assert watch.listings_known == MAX_PAGES * PAGE_ROWS
    deep, seen = old[-50], old[10]
    new = make(1)[0]
    for _ in range(2):
        site.bump(FLATS.url, deep.id, published_ms=int(clock() * 1000))
        site.bump(FLATS.url, seen.id, published_ms=int(clock() * 1000))
        await run()
    site.add(FLATS.url, new)
    await run()
    assert await alerts(db) == [
        (f"bumped {deep.id}", f"new:{deep.id}:1"),
        (f"new {new.id}", f"new:{new.id}:1"),
    ]


async def test_a_reserved_advert_is_silent_and_judged_again_when_active(
    db: Database, subs: Subscriptions, site: Site, run: Any
) -> None:
    """Reserved adverts are not on the page: not counted in the baseline, no alert while
    reserved (new or cheaper); active again, one never seen is new and one seen is a drop
    from its last known price."""
    reserved = FakeAdvert("1622906706", "Helle 3 Zimmer", Decimal(1099), reserved=True)
    flat = FakeAdvert("978586977", "Loft", Decimal(3500))
    summary = await baseline(subs, site, run, [reserved, flat])
    assert summary.baselines == 1
    assert [text for text, _ in await alerts(db, "info")] == [f"watching {FLATS.label}: 1"]
    site.set_reserved(flat.id, True)
    site.set_price(flat.id, Decimal(3000))
    late = FakeAdvert("1032170049", "Neu, gleich reserviert", Decimal(745), reserved=True)
    site.add(FLATS.url, late)
    assert ((await run()).new, await alerts(db, "drop")) == (0, [])
    for advert in (reserved, flat, late):
        site.set_reserved(advert.id, False)
    summary = await run()
    assert (summary.new, summary.drops) == (2, 1)
    assert await alerts(db) == [
        (f"new {late.id}", f"new:{late.id}:1"),
        (f"new {reserved.id}", f"new:{reserved.id}:1"),
    ]
    assert await alerts(db, "drop") == [
        (f"drop {flat.id} 3500->3000", f"drop:{flat.id}:1:3500:3000")
    ]


async def test_each_distinct_drop_is_alerted_once_and_only_queued_ones_count(
    db: Database, subs: Subscriptions, site: Site, run: Any
) -> None:
    """500 → 400 → 450 → 400 alerts 500→400 and 450→400; 500 → 400 once more is the same
    pair, not re-sent, and the scan does not count it."""
    flat = FakeAdvert("1613379810", "Erstbezug", Decimal(500))
    await baseline(subs, site, run, [flat])
    drops = []
    for price in (400, 450, 400, 500, 400):
        site.set_price(flat.id, Decimal(price))
        drops.append((await run()).drops)
    assert drops == [1, 0, 1, 0, 0]
    assert [key for _, key in await alerts(db, "drop")] == [
        f"drop:{flat.id}:1:500:400",
        f"drop:{flat.id}:1:450:400",
    ]


async def test_keywords_in_any_case_are_one_search_and_one_fetch(
    db: Database, subs: Subscriptions, site: Site, run: Any
) -> None:
    """ "RTX  3070" and "rtx 3070" are one search row, fetched once for both chats."""
    upper, lower = parse_watch_argument("RTX  3070"), parse_watch_argument("rtx 3070")
    site.set_listings(lower.url, [FakeAdvert("1000000001", "RTX 3070", Decimal(300))])
    first = await subs.add_watch(1, upper, max_watches=5)
    second = await subs.add_watch(2, lower, max_watches=5)
    assert first.search_id == second.search_id
    assert (first.label, second.label) == ("RTX 3070", "rtx 3070")
    summary = await run()
    assert (summary.scanned, summary.baselines) == (1, 2)
    assert sum(site.hits.values()) == 1


async def test_a_watch_from_before_the_deep_baseline_is_upgraded_keeping_what_it_saw(
    tmp_path: Path, site: Site, client: WillhabenClient, clock: FakeClock
) -> None:
    """The migration keeps every watch, what it has seen and every old `drop:<ad>:<chat>:<new>`
    key; a watch baselined before it read one page only, so it counts as incomplete: an
    unseen bumped advert is "bumped", a seen one's drop gets the (old, new) key."""
    path = tmp_path / "old.sqlite3"
    now = clock()
    async with await before_migration(path, "_deep_baseline.sql") as old, old.transaction() as conn:
        await conn.execute(
            "INSERT INTO chats (chat_id, created_at, updated_at) VALUES (1, ?, ?)", (now, now)
        )
        await conn.execute("INSERT INTO searches (url, created_at) VALUES (?, ?)", (FLATS.url, now))
        await conn.execute(
            "INSERT INTO watches (chat_id, search_id, label, baseline_at, created_at)"
            " VALUES (1, 1, ?, ?, ?)",
            (FLATS.label, now, now),
        )
        await conn.execute(
            "INSERT INTO watch_listings (watch_id, ad_id, last_price, first_seen_at)"
            " VALUES (1, '1871129324', '990', ?)",
            (now,),
        )
        await conn.execute(
            "INSERT INTO notifications (chat_id, kind, ad_id, text, dedupe_key, status,"
            " max_attempts, next_attempt_at, created_at, queued_at, updated_at)"
            " VALUES (1, 'drop', '1871129324', 'drop', 'drop:1871129324:1:990', 'sent', 5,"
            " ?, ?, ?, ?)",
            (now, now, now, now),
        )
    seen = FakeAdvert("1871129324", "U1 Oberlaa", Decimal(900))
    beyond = FakeAdvert("826611808", "Klimatisiert", Decimal(1290), bumped=True)
    site.set_listings(FLATS.url, [beyond, seen])
    async with Database(path) as db:
        assert await db.single_value("SELECT baseline_complete FROM watches") == 0
        clock.advance(300)
        summary = await scan(db, client, TextRenderer(), clock=clock, max_attempts=5)
        assert (summary.new, summary.drops) == (1, 1)
        rows = await db.fetchall("SELECT text, dedupe_key FROM notifications ORDER BY id")
        assert [(row["text"], row["dedupe_key"]) for row in rows] == [
            ("drop", "drop:1871129324:1:990"),
            ("bumped 826611808", "new:826611808:1"),
            ("drop 1871129324 990->900", "drop:1871129324:1:990:900"),
        ]


# ---- issue 18: detection at the edges -------------------------------------------------

RTX = parse_watch_argument("rtx 3080")
CAPPED = parse_watch_argument("rtx 3080 max 500")


async def test_an_old_advert_that_drops_into_a_capped_search_is_a_drop_now_within_it(
    db: Database, subs: Subscriptions, site: Site, run: Any, make: Any, clock: FakeClock
) -> None:
    """`/watch rtx 3080 max 500`: an advert listed at € 600 weeks before the watch is not in
    the search; it drops to € 480 and enters it at its old date, deep among old adverts.
    habicht knew the € 600 from another chat's search, so chat 1 hears of it as a drop, now
    within its search; chat 2, which saw it all along, as a plain drop."""
    cheap = make(40, age=40 * 86400, price=400)
    card = make(1, age=20 * 86400, price=600)[0]
    site.set_listings(RTX.url, [card, *cheap])
    site.set_listings(CAPPED.url, cheap)
    await subs.add_watch(2, RTX, max_watches=5)
    await subs.add_watch(1, CAPPED, max_watches=5)
    assert (await run()).baselines == 2
    cheaper = site.set_price(card.id, Decimal(480))
    site.set_listings(CAPPED.url, [cheaper, *cheap])
    assert (await run()).drops == 2
    assert sorted(await alerts(db, "drop"), key=lambda alert: alert[1]) == [
        (f"drop {card.id} 600->480 entered", f"drop:{card.id}:1:600:480"),
        (f"drop {card.id} 600->480", f"drop:{card.id}:2:600:480"),
    ]
    assert (await run()).drops == 0


async def test_an_old_advert_that_starts_to_match_is_news_once_listed_earlier(
    db: Database, subs: Subscriptions, site: Site, run: Any, make: Any
) -> None:
    """An advert habicht never saw that starts to match later (a title edited to hold the
    keyword, moved into the category) is a new listing that says it was listed earlier —
    once; bumped old adverts the watch has seen stay silent, reserved ones unsent."""
    old = make(30, age=40 * 86400, price=300)
    site.set_listings(CAPPED.url, old)
    await subs.add_watch(1, CAPPED, max_watches=5)
    await run()
    edited = make(1, age=10 * 86400, price=450)[0]
    reserved = replace(make(1, age=10 * 86400, price=420)[0], reserved=True)
    site.set_listings(CAPPED.url, [*old[:10], edited, reserved, *old[10:]])
    site.bump(CAPPED.url, old[20].id)
    summary = await run()
    assert (summary.new, summary.drops) == (1, 0)
    assert await alerts(db) == [(f"entered {edited.id}", f"new:{edited.id}:1")]
    assert (await run()).new == 0


async def drop_alerts_on_a_slide(
    db: Database, subs: Subscriptions, site: Site, run: Any, rules: str, prices: list[int]
) -> list[str]:
    """The drop alerts of a watch with `rules` for an advert whose price goes `prices` (the
    first one at the baseline)."""
    flat = FakeAdvert("1906843150", "Altbau", Decimal(prices[0]))
    await baseline(subs, site, run, [flat])
    await subs.set_filter(1, 1, WatchFilter().with_rules(rules.split()))
    for price in prices[1:]:
        site.set_price(flat.id, Decimal(price))
        await run()
    return [key for _, key in await alerts(db, "drop")]


@pytest.mark.parametrize("rules", ["drop 10%", "drop 50€"])
async def test_a_slow_slide_alerts_once_it_has_fallen_far_enough_from_what_the_chat_knows(
    db: Database, subs: Subscriptions, site: Site, run: Any, rules: str
) -> None:
    """500 → 475 → 451 → 429 → 407 → 387: each step is about 5 %, yet by 429 the price has
    fallen 14 % (€ 71) from the € 500 the chat knows: one alert, € 500 → € 429; the steps
    after it measure from € 429 and are held."""
    keys = await drop_alerts_on_a_slide(db, subs, site, run, rules, [500, 475, 451, 429, 407, 387])
    assert keys == ["drop:1906843150:1:500:429"]


async def test_a_rise_in_between_does_not_make_a_drop_of_what_the_chat_was_told(
    db: Database, subs: Subscriptions, site: Site, run: Any
) -> None:
    """500 → 470 → 520 → 460 → 440 with `drop 10%`: 460 is 11.5 % below the € 520 seen, but
    only 8 % below the € 500 the chat knows, so held; 440 is 12 % below it: € 500 → € 440."""
    keys = await drop_alerts_on_a_slide(db, subs, site, run, "drop 10%", [500, 470, 520, 460, 440])
    assert keys == ["drop:1906843150:1:500:440"]


async def test_a_watch_that_started_mid_slide_measures_from_its_first_price(
    db: Database, subs: Subscriptions, site: Site, run: Any
) -> None:
    """A watch whose baseline saw € 451 — it was never told anything — alerts `drop 10%`
    once the price is 10 % below that: € 451 → € 387."""
    keys = await drop_alerts_on_a_slide(db, subs, site, run, "drop 10%", [451, 429, 407, 387])
    assert keys == ["drop:1906843150:1:451:387"]


async def test_without_drop_rules_every_step_is_an_alert_from_the_last_price(
    db: Database, subs: Subscriptions, site: Site, run: Any
) -> None:
    """A watch without drop rules is told every step, each from the price before it."""
    keys = await drop_alerts_on_a_slide(db, subs, site, run, "max 1000", [500, 475, 451])
    assert keys == ["drop:1906843150:1:500:475", "drop:1906843150:1:475:451"]
