"""The adverts habicht has read, whoever watches them: each advert's latest state
(`listings`) with its price history and its postcode's place, and which adverts each search
showed when (`search_listings`).

Both are written inside the transaction of the read that saw them — a search's own scan or a
feed (`habicht.scraper`) — before any watch is judged on the adverts, so every watch of a
search judges them against the same, already recorded, history.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal

import aiosqlite

from habicht.market.history import (
    record_prices,
)
from habicht.market.places import refresh_places
from habicht.model import Listing, money

__all__ = [
    "Stored",
    "count_listings",
    "first_seen",
    "latest_shown",
    "prices",
    "record_listings",
    "record_shown",
    "record_shown_by",
    "shown_ads",
    "stored",
    "take_back_shown",
]


async def record_listings(
    conn: aiosqlite.Connection, listings: list[Listing], *, now: float
) -> list[Listing]:
    """The latest state and price of every advert read, and the places of their postcodes
    that are due; the ones not reserved (those that are on the page for a watch)."""
    await _upsert_listings(conn, listings, now)
    await refresh_places(conn, listings, now=now)
    active = [listing for listing in listings if not listing.reserved]
    priced = [(listing.id, money(listing.price)) for listing in active]
    await record_prices(conn, [(ad_id, price) for ad_id, price in priced if price], now=now)
    return active


async def _upsert_listings(conn: aiosqlite.Connection, listings: list[Listing], now: float) -> None:
    """The latest known state of each advert; `first_seen_at` keeps its first value.

    Most adverts of a read are as the last read left them: they only get `updated_at` (still
    on the pages), and the rest of a row is written only when it changed. An update rewrites
    a row's entry in the index of every column it sets, changed or not (the seller's index
    alone: a page of its own for each advert), and the commit writes each page touched to the
    WAL: in `benchmarks/scale.py` 85 pages a search with every row rewritten, 60 without.
    A real-estate advert's living area is kept for the going price per m² (`market.going`).
    """
    await conn.execute(
        "UPDATE listings SET updated_at = ? WHERE ad_id IN (SELECT value FROM json_each(?))",
        (now, json.dumps([listing.id for listing in listings])),
    )
    await conn.executemany(
        """
        INSERT INTO listings (ad_id, title, price, price_display, location, postcode, url,
                              image_url, published_at, first_seen_at, updated_at, lat, lon,
                              seller_id, body, is_private, living_area)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (ad_id) DO UPDATE SET
            title = excluded.title, price = excluded.price,
            price_display = excluded.price_display, location = excluded.location,
            postcode = excluded.postcode, url = excluded.url, image_url = excluded.image_url,
            published_at = excluded.published_at, updated_at = excluded.updated_at,
            lat = excluded.lat, lon = excluded.lon, seller_id = excluded.seller_id,
            body = excluded.body, is_private = excluded.is_private,
            living_area = excluded.living_area
        WHERE (title, price, price_display, location, postcode, url, image_url, published_at,
               lat, lon, seller_id, body, is_private, living_area)
           IS NOT (excluded.title, excluded.price, excluded.price_display, excluded.location,
                   excluded.postcode, excluded.url, excluded.image_url, excluded.published_at,
                   excluded.lat, excluded.lon, excluded.seller_id, excluded.body,
                   excluded.is_private, excluded.living_area)
        """,
        [
            (
                listing.id,
                listing.title,
                money(listing.price),
                listing.price_display,
                listing.location,
                listing.postcode,
                listing.url,
                listing.image_url,
                listing.published_at,
                now,
                now,
                *(listing.coordinates or (None, None)),
                listing.seller_id,
                listing.body,
                listing.is_private,
                None if listing.estate is None else listing.estate.living_area,
            )
            for listing in listings
        ],
    )


async def record_shown(
    conn: aiosqlite.Connection, search_id: int, listings: Iterable[Listing], *, now: float
) -> None:
    """Note that search `search_id` showed `listings` now (`search_listings`)."""
    await record_shown_by(conn, {search_id: listings}, now=now)


async def record_shown_by(
    conn: aiosqlite.Connection, shown: Mapping[int, Iterable[Listing]], *, now: float
) -> None:
    """Note that each search of `shown` showed its adverts now, in one statement for them all
    (a feed read shows adverts to many searches)."""
    await conn.executemany(
        "INSERT INTO search_listings (search_id, ad_id, first_seen_at, last_seen_at)"
        " VALUES (?, ?, ?, ?) ON CONFLICT (search_id, ad_id)"
        " DO UPDATE SET last_seen_at = excluded.last_seen_at",
        [
            (search_id, listing.id, now, now)
            for search_id, listings in shown.items()
            for listing in listings
        ],
    )


async def take_back_shown(
    conn: aiosqlite.Connection, taken: Mapping[int, Iterable[str]], *, since: float
) -> None:
    """Take back the sightings of each search's adverts in `taken` first recorded at or after
    `since` (older ones stay: the search showed the advert before). A feed read that leaves
    possible reposts to a search's own scan undoes the sighting it just recorded, so the scan
    finds them new (`scraper.feeds`); the market owns the table, so the scraper asks here."""
    await conn.executemany(
        "DELETE FROM search_listings WHERE search_id = ? AND ad_id = ? AND first_seen_at >= ?",
        [(search_id, ad_id, since) for search_id, ads in taken.items() for ad_id in ads],
    )


async def prices(conn: aiosqlite.Connection, ad_ids: Iterable[str]) -> dict[str, str | None]:
    """The latest price habicht recorded of each of these adverts, as stored (a decimal's
    text, None when the advert showed none); an advert never read is left out. A scan
    compares it with the price its search's feed showed (`scraper.scan`'s feed misses) and
    the market owns the table, so the scraper asks here."""
    rows = await conn.execute_fetchall(
        "SELECT ad_id, price FROM listings WHERE ad_id IN (SELECT value FROM json_each(?))",
        (json.dumps(sorted(set(ad_ids))),),
    )
    return {row[0]: row[1] for row in rows}


async def shown_ads(conn: aiosqlite.Connection, search_id: int) -> list[str]:
    """Every advert search `search_id` ever showed (each once): the watches count the alerts
    their chat was sent of them (`watches.figures`), and the market owns the table, so they
    ask here."""
    rows = await conn.execute_fetchall(
        "SELECT ad_id FROM search_listings WHERE search_id = ?", (search_id,)
    )
    return [row[0] for row in rows]


# The newest in the search first: what a subscriber is likeliest to recognise.
_LATEST = """
SELECT l.ad_id, l.title, l.price, l.price_display, l.location, l.postcode, l.url, l.image_url,
       l.published_at, l.body, l.is_private, l.lat, l.lon, l.seller_id
FROM search_listings s JOIN listings l ON l.ad_id = s.ad_id
WHERE s.search_id = ? AND s.last_seen_at >= ?
ORDER BY s.first_seen_at DESC, l.published_at DESC, l.ad_id
"""


async def latest_shown(
    conn: aiosqlite.Connection, search_id: int, *, since: float
) -> list[Listing]:
    """The adverts search `search_id` showed at or after `since`, as last read, the newest in
    the search first. A watch's preview judges them (`watches.preview`), and the market owns
    both tables, so it asks here."""
    async with conn.execute(_LATEST, (search_id, since)) as cursor:
        return [_stored(row) for row in await cursor.fetchall()]


def _stored(row: sqlite3.Row) -> Listing:
    """An advert as the scan last read it, from its `listings` row. Not stored, and judged by
    no listing rule: whether it was bumped (False) and its categories."""
    lat, lon = row["lat"], row["lon"]
    is_private = row["is_private"]
    return Listing(
        id=row["ad_id"],
        title=row["title"],
        price=None if row["price"] is None else Decimal(row["price"]),
        price_display=row["price_display"],
        location=row["location"],
        postcode=row["postcode"],
        url=row["url"],
        image_url=row["image_url"],
        published_at=row["published_at"],
        bumped=False,
        body=row["body"],
        is_private=None if is_private is None else bool(is_private),
        coordinates=None if lat is None or lon is None else (lat, lon),
        seller_id=row["seller_id"],
    )


@dataclass(frozen=True, slots=True)
class Stored:
    """An advert as habicht last read it, in short: what `/history` shows of it and what an
    alert's following starts from (`price` None: the advert showed none)."""

    ad_id: str
    title: str
    url: str
    price: Decimal | None
    price_display: str | None


async def stored(conn: aiosqlite.Connection, ad_ids: Iterable[str]) -> dict[str, Stored]:
    """Each of these adverts as last read; an advert never read is left out. The watches ask
    here for `/history` (`watches.subscriptions`) and for the adverts whose alerts they
    follow (`watches.follow`), inside the caller's transaction when it has one; the market
    owns the table."""
    rows = await conn.execute_fetchall(
        "SELECT ad_id, title, url, price, price_display FROM listings"
        " WHERE ad_id IN (SELECT value FROM json_each(?))",
        (json.dumps(sorted(set(ad_ids))),),
    )
    return {
        row[0]: Stored(
            ad_id=row[0],
            title=row[1],
            url=row[2],
            price=None if row[3] is None else Decimal(row[3]),
            price_display=row[4],
        )
        for row in rows
    }


async def first_seen(conn: aiosqlite.Connection, ad_ids: Iterable[str]) -> dict[str, float]:
    """When habicht first read each of these adverts on any page; an advert never read is
    left out. A scan's new alerts carry it (`watches.judge`, the alert-freshness figures)."""
    rows = await conn.execute_fetchall(
        "SELECT ad_id, first_seen_at FROM listings WHERE ad_id IN (SELECT value FROM json_each(?))",
        (json.dumps(list(ad_ids)),),
    )
    return {row[0]: row[1] for row in rows if row[1] is not None}


async def count_listings(conn: aiosqlite.Connection) -> int:
    """How many adverts habicht has read and keeps (the owner's `/stats`)."""
    rows = await conn.execute_fetchall("SELECT COUNT(*) FROM listings")
    return int(next(iter(rows))[0])
