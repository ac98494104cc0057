"""Reposts (issue 21): a new advert by the seller of an advert that left the search within 60
days, with the same or a very close title, says so; cheaper, it reads as that drop."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import AsyncIterator
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any

import pytest
from kit import willhaben_client
from kit.fakes import FakeClock, TextRenderer
from kit.filters import parse_rules

from habicht.db import Database
from habicht.fakes import FakeAdvert
from habicht.fakes.willhaben_site import MARKETPLACE, FakeWillhabenSite
from habicht.market.reposts import CANDIDATES, WINDOW, same_item, title_words
from habicht.model import Listing
from habicht.scraper.scan import scan
from habicht.watches.filters import WatchFilter
from habicht.watches.notes import AlertNotes, Repost
from habicht.watches.subscriptions import Subscriptions
from habicht.willhaben.fetch import WillhabenClient
from habicht.willhaben.urls import parse_watch_argument

SOFA = parse_watch_argument("sofa")
DAY = 86400.0
SELLER = "27149817"


@dataclass
class Scanner:
    """Scans on the test's clock; `renderer` keeps each alert's notes."""

    db: Database
    site: FakeWillhabenSite
    clock: FakeClock
    client: WillhabenClient
    renderer: TextRenderer = field(default_factory=TextRenderer)

    async def after(self, seconds: float = 300) -> list[tuple[str, str, str]]:
        """`seconds` later, a scan; the (kind, text, dedupe key) of the alerts it queued."""
        self.clock.advance(seconds)
        before = await self.db.single_value("SELECT COALESCE(MAX(id), 0) FROM notifications")
        await scan(self.db, self.client, self.renderer, clock=self.clock, max_attempts=5)
        rows = await self.db.fetchall(
            "SELECT kind, text, dedupe_key FROM notifications WHERE id > ? AND kind != 'info'"
            " ORDER BY id",
            (before,),
        )
        return [(row[0], row[1], row[2]) for row in rows]


@pytest.fixture
async def scanner(db: Database, clock: FakeClock, subs: Subscriptions) -> AsyncIterator[Scanner]:
    """Chat 7 watches "sofa"; its baseline is the test's first scan."""
    site = FakeWillhabenSite()
    site.set_listings(MARKETPLACE, [])  # every search lists the same adverts
    await subs.add_watch(7, SOFA, max_watches=5)
    async with willhaben_client(site.transport(), clock, fetch_gap=0) as client:
        yield Scanner(db, site, clock, client)


rand = random.Random(21)


def ad_id() -> str:
    """A random advert id, as real ones are (about 5·10^8 to 2.2·10^9)."""
    return str(rand.randrange(500_000_000, 2_200_000_000))


def page(count: int = 28) -> list[FakeAdvert]:
    """`count` adverts of other sellers, every fifth one bumped."""
    return [
        FakeAdvert(ad_id(), f"Artikel {i}", Decimal(10 + i), bumped=i % 5 == 0)
        for i in range(count)
    ]


def kivik(price: int = 400, title: str = "IKEA Kivik Sofa grau", **details: Any) -> FakeAdvert:
    """The seller's sofa, a new advert of it each call."""
    return FakeAdvert(ad_id(), title, Decimal(price), seller=SELLER, **details)


async def gone_then_back(
    scanner: Scanner, new: FakeAdvert, *, old: FakeAdvert | None = None, gone_for: float = DAY
) -> tuple[FakeAdvert, list[tuple[str, str, str]]]:
    """The baseline shows `old` among 28 others (bumped ones included); it leaves the pages
    and, `gone_for` later, `new` comes: the old advert and the alerts of that scan."""
    old = old or kivik()
    others = page()
    scanner.site.set_listings(MARKETPLACE, [*others[:3], old, *others[3:]])
    await scanner.after()  # the baseline
    scanner.site.set_listings(MARKETPLACE, others)
    assert await scanner.after() == []
    scanner.site.set_listings(MARKETPLACE, [new, *others])
    return old, await scanner.after(gone_for)


async def test_same_seller_same_title_is_a_repost(scanner: Scanner, clock: FakeClock) -> None:
    """The new advert's alert carries the old one, when habicht first saw it and its price."""
    first_seen = clock() + 300
    new = kivik(title="Ikea KIVIK sofa, grau")
    old, alerts = await gone_then_back(scanner, new)
    assert alerts == [("new", f"new {new.id}", f"new:{new.id}:7")]
    assert scanner.renderer.notes[new.id].repost == Repost(old.id, first_seen, Decimal(400))


async def test_a_cheaper_repost_reads_as_the_drop_and_is_told_once(scanner: Scanner) -> None:
    """€ 400 gone, the same sofa back at € 350: a drop alert from € 400, still the advert's one
    new-listing alert (kind and key), and a later scan does not repeat it."""
    new = kivik(350)
    old, alerts = await gone_then_back(scanner, new)
    assert alerts == [("new", f"drop {new.id} 400->350", f"new:{new.id}:7")]
    repost = scanner.renderer.notes[new.id].repost
    assert repost is not None
    assert (repost.ad_id, repost.price) == (old.id, 400)
    line = await scanner.db.single_value("SELECT digest_line FROM notifications WHERE kind = 'new'")
    assert line == f"line {new.id} 400->350"
    assert await scanner.after() == []


async def test_a_dearer_repost_is_a_new_advert_with_the_old_price_said(scanner: Scanner) -> None:
    new = kivik(450)
    _, alerts = await gone_then_back(scanner, new)
    assert alerts == [("new", f"new {new.id}", f"new:{new.id}:7")]
    assert scanner.renderer.notes[new.id].repost is not None


@pytest.mark.parametrize(
    "title",
    [
        "IKEA Kivik Sofa grau NEU",
        "Kivik IKEA grau Sofa",
        "IKEA Kivick Sofa grau!",
        "IKEA Kiviks Sofa grau",
    ],
)
async def test_a_very_close_title_of_the_same_seller_is_a_repost(
    scanner: Scanner, title: str
) -> None:
    """Words sellers add, another order, punctuation and one letter in a longer word."""
    new = kivik(title=title)
    _, alerts = await gone_then_back(scanner, new)
    assert len(alerts) == 1
    assert scanner.renderer.notes[new.id].repost is not None


async def test_a_similar_title_by_another_seller_is_no_repost(scanner: Scanner) -> None:
    new = replace(kivik(350), seller="55501234")
    _, alerts = await gone_then_back(scanner, new)
    assert alerts == [("new", f"new {new.id}", f"new:{new.id}:7")]
    assert scanner.renderer.notes[new.id].repost is None


@pytest.mark.parametrize(
    "title", ["IKEA Kivik Sessel grau", "IKEA Kivik Sofa blau", "IKEA Kivik 3er Sofa grau"]
)
async def test_another_item_of_the_same_seller_is_no_repost(scanner: Scanner, title: str) -> None:
    new = kivik(300, title=title)
    _, alerts = await gone_then_back(scanner, new)
    assert alerts == [("new", f"new {new.id}", f"new:{new.id}:7")]
    assert scanner.renderer.notes[new.id].repost is None


async def test_an_advert_gone_for_longer_than_60_days_is_not_reposted(scanner: Scanner) -> None:
    new = kivik(350)
    _, alerts = await gone_then_back(scanner, new, gone_for=WINDOW + DAY)
    assert alerts == [("new", f"new {new.id}", f"new:{new.id}:7")]
    assert scanner.renderer.notes[new.id].repost is None


async def test_an_advert_gone_for_just_under_60_days_is(scanner: Scanner) -> None:
    new = kivik(350)
    _, alerts = await gone_then_back(scanner, new, gone_for=WINDOW - DAY)
    assert alerts[0][1] == f"drop {new.id} 400->350"


async def test_an_old_advert_still_on_the_pages_is_not_reposted(scanner: Scanner) -> None:
    """The seller has the same sofa up twice: the second is no repost of the first."""
    old, others = kivik(), page()
    scanner.site.set_listings(MARKETPLACE, [old, *others])
    await scanner.after()
    new = kivik(350)
    scanner.site.set_listings(MARKETPLACE, [new, *others[:10], old, *others[10:]])
    assert await scanner.after() == [("new", f"new {new.id}", f"new:{new.id}:7")]
    assert scanner.renderer.notes[new.id].repost is None


async def test_a_shop_with_several_of_one_item_up_posts_another_unit_not_a_repost(
    scanner: Scanner,
) -> None:
    """A dealer lists two identical cars; one sells and a third comes up while the second is
    still on the pages: another unit, not a repost of the sold one."""
    golf = "VW Golf 1.6 TDI"
    sold, still, others = kivik(9900, title=golf), kivik(9900, title=golf), page()
    scanner.site.set_listings(MARKETPLACE, [sold, *others[:5], still, *others[5:]])
    await scanner.after()
    third = kivik(9500, title=golf)
    scanner.site.set_listings(MARKETPLACE, [third, *others[:5], still, *others[5:]])
    assert await scanner.after() == [("new", f"new {third.id}", f"new:{third.id}:7")]
    assert scanner.renderer.notes[third.id].repost is None


async def test_a_reserved_old_advert_counts_as_gone(scanner: Scanner) -> None:
    """Reserved is not on the page (as everywhere in habicht): the same sofa put up again by its
    seller while the old advert still shows "(reserviert)" is a repost."""
    old, others = kivik(), page()
    scanner.site.set_listings(MARKETPLACE, [*others[:5], old, *others[5:]])
    await scanner.after()
    new = kivik(380)
    scanner.site.set_listings(
        MARKETPLACE, [new, *others[:5], replace(old, reserved=True), *others[5:]]
    )
    alerts = await scanner.after()
    assert alerts == [("new", f"drop {new.id} 400->380", f"new:{new.id}:7")]


async def test_a_reserved_repost_is_not_alerted_until_it_is_free(scanner: Scanner) -> None:
    new = kivik(350, reserved=True)
    _, alerts = await gone_then_back(scanner, new)
    assert alerts == []
    scanner.site.set_reserved(new.id, False)
    assert await scanner.after() == [("new", f"drop {new.id} 400->350", f"new:{new.id}:7")]


async def test_on_a_busy_page_only_the_repost_says_so(scanner: Scanner) -> None:
    """30 adverts, bumped ones on top, several new ones at once: only the sofa is a repost,
    and a weekly repost chain reads as on the market since its first week."""
    first = kivik()
    others = page()
    scanner.site.set_listings(MARKETPLACE, [*others[:2], first, *others[2:]])
    await scanner.after()
    scanner.site.set_listings(MARKETPLACE, others)
    await scanner.after(7 * DAY)
    second = kivik(380)
    scanner.site.set_listings(MARKETPLACE, [second, *others])
    await scanner.after(7 * DAY)
    scanner.site.set_listings(MARKETPLACE, others)
    await scanner.after(7 * DAY)
    third = kivik(360)
    fresh = page(3)
    bumped = [replace(advert, bumped=True) for advert in others[-3:]]
    scanner.site.set_listings(MARKETPLACE, [*bumped, *fresh[:1], third, *fresh[1:], *others[:-3]])
    alerts = await scanner.after(DAY)
    assert sorted(text for _, text, _ in alerts) == sorted(
        [f"drop {third.id} 380->360", *(f"new {advert.id}" for advert in fresh)]
    )
    repost = scanner.renderer.notes[third.id].repost
    assert repost is not None
    first_seen = await scanner.db.single_value(
        "SELECT first_seen_at FROM listings WHERE ad_id = ?", (first.id,)
    )
    assert (repost.ad_id, repost.first_seen_at, repost.price) == (second.id, first_seen, 380)
    assert all(scanner.renderer.notes[advert.id].repost is None for advert in fresh)


async def test_an_advert_without_a_seller_is_never_a_repost(scanner: Scanner) -> None:
    new = replace(kivik(350), seller="")
    _, alerts = await gone_then_back(scanner, new)
    assert alerts == [("new", f"new {new.id}", f"new:{new.id}:7")]


@pytest.mark.parametrize(
    ("one", "other", "same"),
    [
        ("Sofa grau", "Sofa grau", True),
        ("(reserviert) Sofa grau", "sofa GRAU!!", True),
        ("Couchtisch Eiche", "Couchtish Eiche", True),
        ("Sessel", "Sesseln", True),
        ("Lederjacke Größe 38", "Lederjacke Groesse 38 TOP", True),
        ("iPhone 13 128GB blau", "iPhone 13 256GB blau", False),
        ("Winterreifen 205/55 R16", "Winterreifen 195/65 R15", False),
        ("Festplatte 1000GB", "Festplatte 2000GB", False),
        ("Kinderfahrrad 16Zoll", "Kinderfahrrad 18Zoll", False),
        ("Lederjacke Größe 38", "Lederjacke Größe 39", False),
        ("Sofa blau", "Sofa grau", False),
        ("Fahrrad rot", "Fahrrad tot", False),
        ("Sofa", "Sofa Bezug", False),
        ("Sofa grau Ikea", "Sofa grün Ikea", False),
        ("NEU TOP", "NEU TOP", False),
        ("", "", False),
    ],
)
def test_only_strong_title_matches_count(one: str, other: str, same: bool) -> None:
    """The same words in any order with punctuation and sellers' filler gone, or one letter off
    in one longer word; numbers exactly (module docstring of `scraper.reposts`)."""
    assert same_item(one, other) is same
    assert same_item(other, one) is same


def test_title_words_are_folded_sorted_and_without_filler() -> None:
    assert title_words("(reserviert) Größe 38 — Lederjacke, wie NEU!") == (
        "38",
        "groesse",
        "lederjacke",
        "wie",
    )


async def test_the_lookup_walks_indexes_never_a_whole_table(db: Database) -> None:
    """The scan's hot path: the read's adverts, their sellers' adverts, their rows of the
    search (EXPLAIN QUERY PLAN on the real schema)."""
    params = {"reads": "[]", "read_at": 1.0, "gone_before": 1.0, "since": 0.0}
    with sqlite3.connect(db.path) as conn:
        plan = [row[3] for row in conn.execute(f"EXPLAIN QUERY PLAN {CANDIDATES}", params)]
    assert "SEARCH o USING INDEX listings_seller (seller_id=?)" in plan
    assert [line for line in plan if line.startswith("SCAN")] == ["SCAN j VIRTUAL TABLE INDEX 1:"]


REPOST = Repost("123456789", 1_700_000_000.0, Decimal(400))


def advert(title: str) -> Listing:
    return Listing(
        "1", title, Decimal(350), None, None, None, "https://x.test/1", None, None, False
    )


@pytest.mark.parametrize("typed", ["-reposts", "-Reposts", "-REPOSTS"])
def test_minus_reposts_is_the_rule_and_hides_reposts_only(typed: str) -> None:
    rules = parse_rules(["-defekt", typed, "max", "500"])
    assert (rules.no_reposts, rules.exclude) == (True, ("defekt",))
    assert rules.rules() == ["-defekt", "max 500", "-reposts"]
    listing = advert("Sofa")
    assert rules.hidden_by(listing, AlertNotes(repost=REPOST)) == "-reposts"
    assert rules.hidden_by(listing) is None
    assert WatchFilter.from_json(rules.to_json()) == rules


def test_the_word_reposts_is_hidden_by_minus_repost() -> None:
    """`-reposts` is taken by the rule; `-repost` hides the word (parts of words match)."""
    rules = parse_rules(["-repost"])
    assert (rules.no_reposts, rules.exclude) == (False, ("repost",))
    listing = advert("Reposts of old posters")
    assert rules.hidden_by(listing) == "-repost"


def test_a_filter_stored_before_reposts_reads_the_same() -> None:
    stored = parse_rules(["-defekt"]).to_json()
    assert stored is not None
    assert "reposts" not in stored
    assert not WatchFilter.from_json(stored).no_reposts
