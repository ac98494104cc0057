"""A search's going price day by day: what the /stats <n> and /history charts draw.

For each day the going price is what `going_price` would have said at its end (the next
midnight in Vienna, or `now` for today): the adverts the search showed in the `WINDOW`
before, each once at its price then, summed up by `going_of` — so the chart's last point
and the alert's "≈ 18 % under the median" line always agree.

`search_listings` keeps when a search first and last showed an advert, not every read in
between, so an advert counts on a day when that span meets the day's window (first shown
before the day ended, last shown within the 30 days before): one that left the pages and
came back is taken to have been there all along. Its price then is the last one in
`price_history` up to the day's end (today: `listings.price`, as `going_price` reads it);
an advert with no known price by then is left out. A real-estate search's days are € per m²,
as its going price is (each advert's price then by its living area now). Two reads, however
many days: the adverts and their price paths, then the days are summed up in Python.

Knows nothing of Telegram; the days are Vienna's, willhaben's clock.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

from habicht.db import Database
from habicht.market.going import WINDOW, PriceStats, Shown, going_of, per_m2
from habicht.market.history import PricePoint

__all__ = [
    "TREND_DAYS",
    "GoingDay",
    "advert_searches",
    "day_bounds",
    "going_by_day",
    "path_as_going",
]

TREND_DAYS = 30
"""Days a /stats <n> chart shows (today and the 29 before)."""
_VIENNA = ZoneInfo("Europe/Vienna")


@dataclass(frozen=True, slots=True)
class GoingDay:
    """One day of a search (`start` its midnight, `end` the next one, or now for today) and
    its going price at `end` (None: no priced advert)."""

    start: float
    end: float
    going: PriceStats | None


def day_bounds(now: float, days: int, zone: ZoneInfo = _VIENNA) -> list[tuple[float, float]]:
    """(midnight, end) of the `days` days up to and including today in `zone`, oldest first;
    today ends at `now`. (Midnights by the calendar: a day of a clock change is 23 or 25 h.)"""
    today = datetime.fromtimestamp(now, zone).date()
    bounds = []
    for back in range(days - 1, -1, -1):
        day = today - timedelta(days=back)
        start = datetime(day.year, day.month, day.day, tzinfo=zone).timestamp()
        following = day + timedelta(days=1)
        end = datetime(following.year, following.month, following.day, tzinfo=zone).timestamp()
        bounds.append((start, min(end, now)))
    return bounds


async def going_by_day(
    db: Database,
    search_ids: Sequence[int],
    *,
    now: float,
    days: int = TREND_DAYS,
    window: float = WINDOW,
    zone: ZoneInfo = _VIENNA,
) -> list[GoingDay]:
    """The going price of the adverts searches `search_ids` showed (together: each advert
    once), at the end of each of the last `days` days (module docstring)."""
    bounds = day_bounds(now, days, zone)
    horizon = bounds[0][1] - window
    ids = json.dumps(list(search_ids))
    adverts = await db.fetchall(
        "SELECT sl.ad_id, MIN(sl.first_seen_at) AS first_seen,"
        " MAX(sl.last_seen_at) AS last_seen, l.price, l.living_area FROM search_listings sl"
        " JOIN listings l ON l.ad_id = sl.ad_id"
        " WHERE sl.search_id IN (SELECT value FROM json_each(?)) AND sl.last_seen_at >= ?"
        " GROUP BY sl.ad_id",
        (ids, horizon),
    )
    paths: dict[str, tuple[list[float], list[Decimal]]] = {}
    for row in await db.fetchall(
        "SELECT ph.ad_id, ph.seen_at, ph.price FROM price_history ph"
        " WHERE ph.ad_id IN (SELECT sl.ad_id FROM search_listings sl"
        " WHERE sl.search_id IN (SELECT value FROM json_each(?)) AND sl.last_seen_at >= ?)"
        " ORDER BY ph.ad_id, ph.seen_at",
        (ids, horizon),
    ):
        times, prices = paths.setdefault(row["ad_id"], ([], []))
        times.append(row["seen_at"])
        prices.append(Decimal(row["price"]))
    out = []
    for start, end in bounds:
        shown: list[Shown] = []
        for advert in adverts:
            if advert["first_seen"] > end or advert["last_seen"] < end - window:
                continue
            if end >= now:  # today: the listing's price, as `going_price` reads it
                if advert["price"] is not None:
                    shown.append((Decimal(advert["price"]), advert["living_area"]))
                continue
            times, known = paths.get(advert["ad_id"], ([], []))
            at = bisect.bisect_right(times, end)
            if at:
                shown.append((known[at - 1], advert["living_area"]))
        out.append(GoingDay(start, end, going_of(shown)))
    return out


async def advert_searches(db: Database, ad_id: str, *, among: Sequence[int]) -> list[int]:
    """The searches of `among` (a chat's: `Subscriptions.search_ids`) that showed advert
    `ad_id`, in order (their going price is the band its /history chart draws)."""
    rows = await db.fetchall(
        "SELECT DISTINCT search_id FROM search_listings"
        " WHERE ad_id = ? AND search_id IN (SELECT value FROM json_each(?)) ORDER BY search_id",
        (ad_id, json.dumps(list(among))),
    )
    return [row["search_id"] for row in rows]


async def path_as_going(
    db: Database, ad_id: str, path: Sequence[PricePoint], days: Sequence[GoingDay]
) -> tuple[Sequence[PricePoint], Sequence[GoingDay]]:
    """An advert's price path and its searches' going price in one unit, for its /history
    chart: when the going price is per m² (real estate), the path per m² of the advert's
    living area — and no band at all for an advert that does not say its area, which
    cannot be set against it."""
    if not any(day.going is not None and day.going.per_m2 for day in days):
        return path, days
    area = await db.single_value("SELECT living_area FROM listings WHERE ad_id = ?", (ad_id,))
    if not area:
        return path, []
    return [PricePoint(point.seen_at, per_m2(point.price, area)) for point in path], days
