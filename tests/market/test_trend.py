"""A search's going price day by day (issue 21): what the /history and /stats <n> charts draw."""

from __future__ import annotations

import random
from datetime import datetime
from decimal import Decimal
from zoneinfo import ZoneInfo

import aiosqlite
import pytest

from habicht.db import Database
from habicht.market.going import going_price
from habicht.market.history import PricePoint
from habicht.market.trend import GoingDay, day_bounds, going_by_day, path_as_going

VIENNA = ZoneInfo("Europe/Vienna")
NOW = datetime(2026, 11, 20, 15, 30, tzinfo=VIENNA).timestamp()
DAY = 86400.0


async def search(conn: aiosqlite.Connection, url: str) -> int:
    async with conn.execute(
        "INSERT INTO searches (url, created_at) VALUES (?, 0) RETURNING id", (url,)
    ) as cursor:
        row = await cursor.fetchone()
    assert row is not None
    return int(row[0])


async def shown(
    conn: aiosqlite.Connection,
    search_id: int,
    ad_id: str,
    prices: list[tuple[float, str]],
    *,
    first: float,
    last: float,
    now_price: str | None = "last",
) -> None:
    """Advert `ad_id`, shown by the search from `first` to `last`, at `prices` ((since, price),
    oldest first); its listing's price is the last of them unless `now_price` says another."""
    price = prices[-1][1] if now_price == "last" and prices else now_price
    await conn.execute(
        "INSERT INTO listings (ad_id, title, price, url, first_seen_at, updated_at)"
        " VALUES (?, 'Sofa', ?, 'https://www.willhaben.at/x', ?, ?)"
        " ON CONFLICT (ad_id) DO NOTHING",
        (ad_id, price, first, last),
    )
    await conn.executemany(
        "INSERT OR IGNORE INTO price_history (ad_id, seen_at, price) VALUES (?, ?, ?)",
        [(ad_id, at, value) for at, value in prices],
    )
    await conn.execute(
        "INSERT INTO search_listings (search_id, ad_id, first_seen_at, last_seen_at)"
        " VALUES (?, ?, ?, ?)",
        (search_id, ad_id, first, last),
    )


def medians(days: list[GoingDay]) -> list[Decimal | None]:
    return [None if day.going is None else day.going.median for day in days]


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_todays_point_is_the_going_price_the_alerts_say(db: Database, seed: int) -> None:
    """The last day of the series is exactly `going_price` now (placeholders, outliers,
    price-less and long-gone adverts included in the data), so the chart and the alert's
    "≈ 18 % under the median" line never disagree."""
    rand = random.Random(seed)
    async with db.transaction() as conn:
        search_id = await search(conn, "https://www.willhaben.at/iad/sofa")
        for n in range(60):
            first = NOW - rand.uniform(0, 50) * DAY
            last = rand.uniform(first, NOW)
            price = rand.choice(["0", "1", "99999", *[str(rand.randrange(200, 700))] * 6])
            await shown(
                conn,
                search_id,
                str(rand.randrange(10**8, 2 * 10**9)) + str(n),
                [(first, str(rand.randrange(200, 900))), (last, price)],
                first=first,
                last=last,
                now_price=None if n % 9 == 0 else "last",
            )
        expected = await going_price(conn, search_id, now=NOW)
    days = await going_by_day(db, [search_id], now=NOW)
    assert len(days) == 30
    assert expected is not None
    assert days[-1].going == expected
    assert days[-1].end == NOW


async def test_a_past_day_counts_each_advert_at_its_price_then(db: Database) -> None:
    """An advert at € 500 until five days ago and € 300 since counts € 500 on the days before
    and € 300 after; the day it changed ends with the new price."""
    async with db.transaction() as conn:
        search_id = await search(conn, "https://www.willhaben.at/iad/sofa")
        await shown(
            conn,
            search_id,
            "1001",
            [(NOW - 20 * DAY, "500"), (NOW - 5 * DAY, "300")],
            first=NOW - 20 * DAY,
            last=NOW,
        )
    days = await going_by_day(db, [search_id], now=NOW, days=8)
    assert medians(days) == [Decimal(500)] * 2 + [Decimal(300)] * 6


async def test_an_advert_counts_while_its_search_showed_it_in_the_window(db: Database) -> None:
    """An advert counts on a day once the search first showed it and until 30 days after it
    last did: not before it appeared, not after it has been gone a month."""
    async with db.transaction() as conn:
        search_id = await search(conn, "https://www.willhaben.at/iad/sofa")
        # Shown only 40 to 35 days ago: it counts on the days that end 35 + 30 days after.
        gone = NOW - 35 * DAY
        await shown(
            conn, search_id, "1", [(NOW - 40 * DAY, "400")], first=NOW - 40 * DAY, last=gone
        )
        # First shown two days ago.
        await shown(conn, search_id, "2", [(NOW - 2 * DAY, "800")], first=NOW - 2 * DAY, last=NOW)
    days = await going_by_day(db, [search_id], now=NOW, days=8)
    counts = [0 if day.going is None else day.going.count for day in days]
    assert counts == [1, 1, 0, 0, 0, 1, 1, 1]
    assert medians(days)[-1] == Decimal(800)


async def test_searches_together_count_an_advert_once(db: Database) -> None:
    """Two searches that showed the same advert set one band, with the advert in it once."""
    async with db.transaction() as conn:
        first = await search(conn, "https://www.willhaben.at/iad/sofa")
        second = await search(conn, "https://www.willhaben.at/iad/couch")
        for search_id in (first, second):
            await shown(conn, search_id, "7", [(NOW - DAY, "450")], first=NOW - DAY, last=NOW)
        await shown(conn, second, "8", [(NOW - DAY, "650")], first=NOW - DAY, last=NOW)
    days = await going_by_day(db, [first, second], now=NOW, days=2)
    assert days[-1].going is not None
    assert days[-1].going.count == 2
    assert days[-1].going.median == Decimal(550)
    assert await going_by_day(db, [], now=NOW, days=2) == [
        GoingDay(day.start, day.end, None) for day in days
    ]


def test_days_are_viennas_calendar_days_across_a_clock_change() -> None:
    """Each day runs from one Vienna midnight to the next: 23 hours on the day the clocks go
    forward (29 March 2026), and today ends now."""
    now = datetime(2026, 3, 30, 9, 0, tzinfo=VIENNA).timestamp()
    bounds = day_bounds(now, 3)
    assert [datetime.fromtimestamp(start, VIENNA).hour for start, _ in bounds] == [0, 0, 0]
    assert [end - start for start, end in bounds[:2]] == [DAY, 23 * 3600]
    assert bounds[-1][1] == now
    assert [bounds[n][1] for n in range(2)] == [bounds[n + 1][0] for n in range(2)]


async def test_a_flat_search_goes_per_m2_and_a_flats_path_with_it(db: Database) -> None:
    """Issue 29: flats say their living area, so each day of their search is € per m² (a past
    day at the prices then), and a flat's /history path is drawn per m² against it; an advert
    that does not say its area gets no band it cannot be set against."""
    async with db.transaction() as conn:
        flats = await search(conn, "https://www.willhaben.at/iad/immobilien/mietwohnungen/wien")
        for n in range(10):  # 50 m² at € 1,000 (€ 20/m²), from early yesterday € 900
            ad = f"f{n}"
            await shown(
                conn,
                flats,
                ad,
                [(NOW - 5 * DAY, "1000"), (NOW - 1.5 * DAY, "900")],
                first=NOW - 5 * DAY,
                last=NOW,
            )
            await conn.execute("UPDATE listings SET living_area = 50 WHERE ad_id = ?", (ad,))
        await shown(
            conn, flats, "sizeless", [(NOW - 5 * DAY, "700")], first=NOW - 5 * DAY, last=NOW
        )
        today = await going_price(conn, flats, now=NOW)
    days = await going_by_day(db, [flats], now=NOW, days=3)
    assert [(day.going.per_m2, day.going.median) for day in days if day.going] == [
        (True, Decimal(20)),
        (True, Decimal(18)),
        (True, Decimal(18)),
    ]
    assert days[-1].going == today
    path = [PricePoint(NOW - 5 * DAY, Decimal(1000)), PricePoint(NOW - 1.5 * DAY, Decimal(900))]
    assert await path_as_going(db, "f0", path, days) == (
        [PricePoint(NOW - 5 * DAY, Decimal(20)), PricePoint(NOW - 1.5 * DAY, Decimal(18))],
        days,
    )
    assert await path_as_going(db, "sizeless", path, days) == (path, [])
