"""Distance (issue 21): postcodes placed by the adverts read, the distance between two points,
what `near` hides, and a near watch's scans — what it alerts and how far each advert is (the
`near` rule's grammar: tests/watches/test_rules.py)."""

from __future__ import annotations

import random
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import Any

import aiosqlite
import pytest
from kit.fakes import FakeClock, TextRenderer
from kit.filters import parse_rules
from kit.migrations import before_migration

from habicht.db import Database
from habicht.fakes import FakeAdvert, render_search_page
from habicht.fakes.willhaben_site import MARKETPLACE
from habicht.fakes.willhaben_site import FakeWillhabenSite as Site  # short for the signatures
from habicht.market.places import (
    PER_READ,
    REFRESH,
    SAMPLE,
    distance_km,
    in_austria,
    places_of,
    reader,
    refresh_places,
)
from habicht.model import Listing
from habicht.scraper.scan import scan
from habicht.watches.filters import NO_PLACE, WatchFilter
from habicht.watches.notes import AlertNotes
from habicht.watches.subscriptions import Subscriptions
from habicht.willhaben.fetch import WillhabenClient
from habicht.willhaben.parse import parse_search_page
from habicht.willhaben.urls import parse_watch_argument

SOFA = parse_watch_argument("sofa")
NEUBAU = (48.2019, 16.3494)  # 1070
INNERE_STADT = (48.2085, 16.3721)  # 1010, 1.8 km from Neubau
STOCKERAU = (48.3850, 16.2080)  # 2000, 22 km from Neubau
GRAZ = (47.0707, 15.4395)  # 8010

# ---- what near hides -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("km", "hidden"),
    [(None, NO_PLACE), (0.0, None), (4.99, None), (5.0, None), (5.01, "near 1070 5")],
)
def test_near_hides_adverts_beyond_the_radius_and_those_without_a_place(
    km: float | None, hidden: str | None
) -> None:
    """An advert at the radius itself is in; one habicht could not place is hidden apart."""
    listing = _listing("1", coordinates=None)
    near = parse_rules(["near", "1070", "5"])
    assert near.hidden_by(listing, AlertNotes(km=km)) == hidden
    assert WatchFilter().hidden_by(listing, AlertNotes(km=None)) is None


def test_the_distance_is_the_great_circle_one() -> None:
    """Haversine on the mean earth: a degree of a meridian is 111.195 km, a degree of the
    equator too, and Vienna to Graz about 145 km."""
    assert distance_km((48.0, 16.0), (49.0, 16.0)) == pytest.approx(111.195, abs=0.001)
    assert distance_km((0.0, 16.0), (0.0, 17.0)) == pytest.approx(111.195, abs=0.001)
    assert distance_km(INNERE_STADT, GRAZ) == pytest.approx(145, abs=1)
    assert distance_km(NEUBAU, NEUBAU) == 0.0
    assert distance_km(NEUBAU, INNERE_STADT) == pytest.approx(1.8, abs=0.1)


@pytest.mark.parametrize(
    ("point", "inside"),
    [
        ((48.2082, 16.3738), True),  # Wien
        ((47.5031, 9.7471), True),  # Bregenz
        ((46.8289, 12.7693), True),  # Lienz
        ((48.9440, 15.0440), True),  # Litschau, the northern tip
        ((47.8095, 13.0550), True),  # Salzburg
        ((48.1370, 11.5750), False),  # München
        ((48.5740, 13.4610), False),  # Passau
        ((48.1480, 17.1070), False),  # Bratislava
        ((47.6800, 16.5900), False),  # Sopron, inside Austria's bounding box
        ((47.6300, 13.0000), False),  # Berchtesgaden
        ((46.4980, 11.3540), False),  # Bozen
        ((52.5200, 13.4050), False),  # Berlin
    ],
)
def test_austria_is_told_by_its_outline_not_its_bounding_box(
    point: tuple[float, float], inside: bool
) -> None:
    assert in_austria(point) is inside


# ---- postcode places -----------------------------------------------------------------------


def _listing(
    ad_id: str,
    *,
    postcode: str | None = "1070",
    coordinates: tuple[float, float] | None = NEUBAU,
    location: str = "Wien, 07. Bezirk, Neubau",
) -> Listing:
    """An advert as a page of the fake site shows it, parsed."""
    page = render_search_page(
        [FakeAdvert(ad_id, f"Sofa {ad_id}", Decimal(100), location, postcode or "1",
                    coordinates=coordinates)]
    )  # fmt: skip
    (listing,) = parse_search_page(page).listings
    return listing if postcode else replace(listing, postcode=None)


async def _record(db: Database, listings: list[Listing], *, now: float) -> int:
    """Store `listings` as a scan does and place their postcodes; how many were placed."""
    async with db.transaction() as conn:
        await conn.executemany(
            "INSERT INTO listings (ad_id, title, url, location, postcode, lat, lon,"
            " first_seen_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (ad_id) DO UPDATE SET lat = excluded.lat, lon = excluded.lon,"
            " updated_at = excluded.updated_at",
            [
                (
                    ad.id,
                    ad.title,
                    ad.url,
                    ad.location,
                    ad.postcode,
                    *(ad.coordinates or (None, None)),
                    now,
                    now,
                )
                for ad in listings
            ],
        )
        return await refresh_places(conn, listings, now=now)


async def test_a_postcode_is_placed_at_the_median_of_its_adverts(db: Database) -> None:
    """One advert pinned at the wrong end of the country does not move its postcode; the
    name is the one its adverts give most."""
    rand = random.Random(21)
    around = [
        (NEUBAU[0] + rand.uniform(-0.004, 0.004), NEUBAU[1] + rand.uniform(-0.006, 0.006))
        for _ in range(8)
    ]
    listings = [_listing(str(i), coordinates=point) for i, point in enumerate(around)]
    listings.append(_listing("99", coordinates=GRAZ, location="Graz"))
    assert await _record(db, listings, now=1000.0) == 1
    place = (await places_of(db.fetchall, ["1070"]))["1070"]
    assert distance_km(place.point, NEUBAU) < 0.5
    assert (place.name, place.adverts) == ("Wien, 07. Bezirk, Neubau", 9)


async def test_a_place_is_the_median_of_the_latest_sample_and_is_kept_an_hour(
    db: Database,
) -> None:
    """A read places a postcode at once; reads within `REFRESH` leave it; the next one after
    takes the latest `SAMPLE` adverts."""
    old = [_listing(f"o{i}", coordinates=STOCKERAU) for i in range(SAMPLE)]
    assert await _record(db, old, now=1000.0) == 1
    new = [_listing(f"n{i}") for i in range(SAMPLE)]
    assert await _record(db, new, now=1000.0 + REFRESH - 1) == 0
    place = (await places_of(db.fetchall, ["1070"]))["1070"]
    assert place.point == STOCKERAU
    assert await _record(db, new[:1], now=1000.0 + REFRESH) == 1
    place = (await places_of(db.fetchall, ["1070"]))["1070"]
    assert (place.point, place.adverts) == (NEUBAU, SAMPLE)


async def test_adverts_without_coordinates_or_postcode_place_nothing(db: Database) -> None:
    listings = [_listing("1", coordinates=None), _listing("2", postcode=None)]
    assert await _record(db, listings, now=1000.0) == 0
    assert await places_of(db.fetchall, ["1070"]) == {}


async def test_a_read_of_placed_postcodes_costs_one_query(db: Database) -> None:
    """The scan's hot path: when every postcode of a read is placed and fresh, placing costs
    one look-up, whatever the read's size; a due postcode one query more."""
    listings = [
        _listing(str(i), postcode=str(1010 + 10 * (i % 12)), coordinates=NEUBAU) for i in range(200)
    ]
    await _record(db, listings, now=1000.0)
    statements: list[str] = []
    async with db.transaction() as conn:
        await conn.set_trace_callback(statements.append)
        assert await refresh_places(conn, listings, now=1000.0 + REFRESH - 1) == 0
        await conn.set_trace_callback(None)
    assert len(statements) == 1
    statements.clear()
    graz = _listing("new", postcode="9020", coordinates=GRAZ)
    await _record(db, [graz], now=1000.0)
    async with db.transaction() as conn:
        await conn.set_trace_callback(statements.append)
        assert await refresh_places(conn, [*listings, graz], now=1000.0 + REFRESH - 1) == 0
        await conn.execute("UPDATE postcode_places SET updated_at = 0 WHERE postcode = '9020'")
        counted = len(statements)
        assert await refresh_places(conn, [*listings, graz], now=1000.0 + REFRESH - 1) == 1
        await conn.set_trace_callback(None)
    assert counted == 2  # the look-up, and the update this test made
    assert len(statements) - counted == 3  # the look-up, the sample, the upsert


# ---- a near watch's scans ------------------------------------------------------------------


@pytest.fixture
def run(db: Database, client: WillhabenClient, clock: FakeClock) -> Any:
    async def run_scan() -> TextRenderer:
        clock.advance(300)
        renderer = TextRenderer()
        await scan(db, client, renderer, clock=clock, max_attempts=5)
        return renderer

    return run_scan


def _ids(rand: random.Random, count: int) -> list[str]:
    return [str(rand.randrange(10**9, 10**10)) for _ in range(count)]


def _page(rand: random.Random) -> list[FakeAdvert]:
    """30 adverts in Vienna's 7th district, two of them bumped, one reserved."""
    return [
        FakeAdvert(
            ad_id,
            f"Sofa {n}",
            Decimal(50 + n),
            coordinates=(NEUBAU[0] + rand.uniform(-0.003, 0.003), NEUBAU[1]),
            bumped=n < 2,
            reserved=n == 7,
        )
        for n, ad_id in enumerate(_ids(rand, 30))
    ]


async def _alerts(db: Database) -> list[str]:
    rows = await db.fetchall("SELECT text FROM notifications WHERE kind = 'new' ORDER BY id")
    return [row["text"] for row in rows]


async def _hits(db: Database) -> dict[str, str]:
    rows = await db.fetchall("SELECT ad_id, rule FROM filter_hits")
    return {row["ad_id"]: row["rule"] for row in rows}


async def test_a_near_watch_alerts_within_its_radius_with_the_distance(
    run: Any, site: Site, db: Database, subs: Subscriptions
) -> None:
    """Near 1070 by 5 km, after a baseline that placed 1070: an advert 1.8 km away is sent
    with its distance; one without coordinates is placed by its postcode; one 22 km away is
    hidden by the rule, one habicht cannot place as without a place — all four seen."""
    rand = random.Random(2101)
    await subs.add_watch(1, SOFA, max_watches=5)
    site.set_listings(MARKETPLACE, _page(rand))
    await run()
    await subs.set_filter(1, 1, parse_rules(["near", "1070", "5"]))
    near, unplaced_known, far, nowhere = _ids(rand, 4)
    shown = site.listings(MARKETPLACE)
    site.set_listings(
        MARKETPLACE,
        [
            *shown[:2],
            FakeAdvert(near, "Sofa Innere Stadt", Decimal(90), "Wien, 01. Bezirk", "1010",
                       coordinates=INNERE_STADT),
            FakeAdvert(unplaced_known, "Sofa ohne Pin", Decimal(80), coordinates=None),
            FakeAdvert(far, "Sofa Stockerau", Decimal(70), "Stockerau", "2000",
                       coordinates=STOCKERAU),
            FakeAdvert(nowhere, "Sofa irgendwo", Decimal(60), "Irgendwo", "9999",
                       coordinates=None),
            *shown[2:],
        ],
    )  # fmt: skip
    renderer = await run()
    assert await _alerts(db) == [f"new {near}", f"new {unplaced_known}"]
    assert renderer.notes[near].km == pytest.approx(1.8, abs=0.1)
    assert renderer.notes[unplaced_known].km == pytest.approx(0.0, abs=0.4)
    assert await _hits(db) == {far: "near 1070 5", nowhere: NO_PLACE}
    (watch,) = await subs.watches(1, with_hits=True)
    assert sorted(watch.hidden) == [("near 1070 5", 1), (NO_PLACE, 1)]
    assert watch.listings_known == 29 + 4  # the reserved advert is not on the page

    await run()  # seen is seen: nothing again
    assert len(await _alerts(db)) == 2


async def test_near_here_measures_from_the_chats_latest_location(
    run: Any, site: Site, db: Database, subs: Subscriptions
) -> None:
    """`near here` follows the location the chat shared last, for each read."""
    rand = random.Random(2102)
    await subs.add_watch(1, SOFA, max_watches=5)
    site.set_listings(MARKETPLACE, _page(rand))
    await run()
    await subs.share_location(1, STOCKERAU)
    await subs.set_filter(1, 1, parse_rules(["near", "here", "3"]))
    first, second = _ids(rand, 2)
    site.add(MARKETPLACE, FakeAdvert(first, "Sofa Wien", Decimal(50)))
    await run()
    assert await _alerts(db) == []
    assert await _hits(db) == {first: "near here 3"}  # 22 km from Stockerau

    await subs.share_location(1, INNERE_STADT)
    site.add(MARKETPLACE, FakeAdvert(second, "Sofa Wien", Decimal(50)))
    renderer = await run()
    assert await _alerts(db) == [f"new {second}"]
    assert renderer.notes[second].km == pytest.approx(1.8, abs=0.3)


class PerChat(TextRenderer):
    """A `TextRenderer` for each chat, so each chat's notes are kept apart."""

    def __init__(self) -> None:
        super().__init__()
        self.chats: dict[int, TextRenderer] = {}

    def for_chat(self, chat_id: int) -> TextRenderer:
        return self.chats.setdefault(chat_id, TextRenderer())


async def test_only_a_near_watch_gets_a_distance(
    site: Site, db: Database, subs: Subscriptions, client: WillhabenClient, clock: FakeClock
) -> None:
    """Two chats watch one search; only the one with `near` is told how far."""
    rand = random.Random(2103)
    await subs.add_watch(1, SOFA, max_watches=5)
    await subs.add_watch(2, SOFA, max_watches=5)
    site.set_listings(MARKETPLACE, _page(rand))
    await scan(db, client, TextRenderer(), clock=clock, max_attempts=5)
    await subs.set_filter(1, 1, parse_rules(["near", "1070", "50"]))
    (new,) = _ids(rand, 1)
    site.add(MARKETPLACE, FakeAdvert(new, "Sofa", Decimal(50), coordinates=STOCKERAU))
    clock.advance(300)
    renderer = PerChat()
    await scan(db, client, renderer, clock=clock, max_attempts=5)
    assert renderer.chats[1].notes[new].km == pytest.approx(22.0, abs=1.0)
    assert renderer.chats[2].notes[new].km is None


# ---- migration -----------------------------------------------------------------------------


async def test_migration_015_places_the_postcodes_already_read(tmp_path: Path) -> None:
    """Adverts read since migration 014 kept their coordinates: 015 places their postcodes at
    the median (the mean of the middle two for an even count), and chats have no location."""
    path = tmp_path / "old.sqlite3"
    old = await before_migration(path, "near")
    async with old.transaction() as conn:
        await conn.execute("INSERT INTO chats (chat_id, created_at, updated_at) VALUES (7, 0, 0)")
        await _insert(conn, "1", "1070", (48.20, 16.34))
        await _insert(conn, "2", "1070", (48.21, 16.35))
        await _insert(conn, "3", "1070", (40.00, 10.00))  # an outlier
        await _insert(conn, "4", "1070", (48.30, 16.36))
        await _insert(conn, "5", "2000", (48.385, 16.208))
        await _insert(conn, "6", "3000", None)
    await old.close()
    async with Database(path) as db:
        places = await places_of(db.fetchall, ["1070", "2000", "3000"])
        assert sorted(places) == ["1070", "2000"]
        assert places["1070"].point == pytest.approx((48.205, 16.345))
        assert places["1070"].adverts == 4
        assert places["2000"].point == (48.385, 16.208)
        row = await db.fetchone("SELECT lat, lon, located_at FROM chats WHERE chat_id = 7")
        assert row is not None
        assert tuple(row) == (None, None, None)
        async with db.transaction() as conn:  # placed again by the first read of them
            assert await refresh_places(conn, [_listing("9")], now=REFRESH + 1) == 1
            assert (await places_of(reader(conn), ["1070"]))["1070"].point == pytest.approx(
                (48.205, 16.345)
            )


async def _insert(
    conn: aiosqlite.Connection, ad_id: str, postcode: str, point: tuple[float, float] | None
) -> None:
    lat, lon = point or (None, None)
    await conn.execute(
        "INSERT INTO listings (ad_id, title, url, postcode, lat, lon, first_seen_at, updated_at)"
        " VALUES (?, 'Sofa', 'https://x.test', ?, ?, ?, 0, 0)",
        (ad_id, postcode, lat, lon),
    )


async def test_one_read_places_at_most_per_read_postcodes_unknown_ones_first(
    db: Database,
) -> None:
    """A read of many due postcodes places `PER_READ` of them, the unknown first; the next
    reads place the rest."""
    known = [_listing(f"k{i}", postcode=str(9000 + i)) for i in range(PER_READ)]
    await _record(db, known, now=0.0)
    unknown = [_listing(f"u{i}", postcode=str(1000 + i)) for i in range(PER_READ + 3)]
    listings = [*known, *unknown]
    assert await _record(db, listings, now=REFRESH) == PER_READ
    placed = await places_of(db.fetchall, [ad.postcode or "" for ad in unknown])
    assert len(placed) == PER_READ
    assert await _record(db, listings, now=REFRESH) == 3 + PER_READ - 3
    assert await _record(db, listings, now=REFRESH) == 3
    assert await _record(db, listings, now=REFRESH) == 0
