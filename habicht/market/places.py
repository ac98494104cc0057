"""Where things are: postcodes placed by the adverts habicht reads, what a point shared is
near, and the distance between two points. The location a chat shared is the chat's, kept by
the watches (`watches.notes.chat_location`), which hand it here (issue 37).

A postcode's place is the median latitude and longitude of its latest adverts that carry
`COORDINATES` (at most `SAMPLE` of them), so no data set is needed: habicht learns the
places of the postcodes people sell in. The median, not the mean, because one advert placed
at the wrong end of the country (a seller's office, a mistyped map pin) must not move a
postcode; taken coordinate-wise, which at the size of a postcode is the same thing.

`refresh_places` keeps the table inside the scan's transaction, for the postcodes a read
touched that are due: a postcode not placed yet, or one placed `REFRESH` ago or longer. So a
postcode is placed by one of the first reads that show its adverts, and placed again at most
once per `REFRESH`, however many reads show it. A read costs one indexed look-up of its
postcodes when none is due (the usual case), and one query of at most `SAMPLE` rows for each
due postcode (read from a covering index), `PER_READ` at most. Measured on 300,000 adverts in
2,200 postcodes (Zipf-sized, the largest 36,000), a read of 200 adverts in 130 postcodes:
0.4 ms with none due, 8-18 ms with 16 due (`tests/market/test_places.py` counts the queries).

Knows nothing of Telegram; never fetches anything.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from statistics import median
from typing import Any

import aiosqlite

from habicht.model import Listing

__all__ = [
    "EARTH_RADIUS_KM",
    "PER_READ",
    "REFRESH",
    "SAMPLE",
    "Fetch",
    "Located",
    "Place",
    "Point",
    "distance_km",
    "in_austria",
    "locate",
    "nearest_place",
    "places_of",
    "reader",
    "refresh_places",
]

Point = tuple[float, float]
"""(latitude, longitude) in degrees."""
Fetch = Callable[[str, Sequence[Any]], Awaitable[list[sqlite3.Row]]]
"""A read: the writer connection inside a transaction (`reader(conn)`), or the database's."""

EARTH_RADIUS_KM = 6371.0088
"""The mean radius of the earth (IUGG): haversine distances are good to about 0.5 %."""
SAMPLE = 201
"""Adverts a postcode's place is the median of at most (odd, so the median is one advert's)."""
REFRESH = 3600.0
"""Seconds after which a postcode is placed again by the next read that shows it."""
PER_READ = 16
"""Postcodes one read places at most (unknown ones first, then the longest unplaced): the
rest wait for the next reads that show them, so no read holds the scan's transaction long."""


@dataclass(frozen=True, slots=True)
class Place:
    """Where the adverts of `postcode` are: the median of `adverts` of them, and the name
    they give most often (`LOCATION`, e.g. "Wien, 07. Bezirk, Neubau"), None if none does."""

    postcode: str
    point: Point
    name: str | None
    adverts: int


@dataclass(frozen=True, slots=True)
class Located:
    """A shared location as habicht understood it: the nearest postcode it knows (and how
    far that is), None when it knows none; whether it lies in Austria."""

    point: Point
    nearest: Place | None
    km: float | None
    in_austria: bool


def reader(conn: aiosqlite.Connection) -> Fetch:
    """Reads through `conn` (the writer, inside a transaction)."""

    async def fetch(sql: str, params: Sequence[Any]) -> list[sqlite3.Row]:
        return list(await conn.execute_fetchall(sql, params))

    return fetch


def distance_km(a: Point, b: Point) -> float:
    """The great-circle distance between two points (haversine):
    `2 R asin(sqrt(sin²(Δφ/2) + cos φ1 cos φ2 sin²(Δλ/2)))`."""
    lat1, lon1, lat2, lon2 = map(math.radians, (*a, *b))
    h = math.sin((lat2 - lat1) / 2) ** 2
    h += math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    return 2 * EARTH_RADIUS_KM * math.asin(min(1.0, math.sqrt(h)))


# Austria's border as a rough outline (longitude, latitude), clockwise from Lake Constance:
# good to a few kilometres, which is all `in_austria` needs (it only decides whether the
# confirmation of a shared location says "outside Austria").
_AUSTRIA = (
    (9.62, 47.50), (9.60, 47.35), (9.53, 47.27), (9.62, 47.15), (9.63, 47.05),
    (9.87, 46.93), (10.15, 46.85), (10.47, 46.85), (10.75, 46.79), (11.00, 46.77),
    (11.10, 46.91), (11.32, 46.97), (11.51, 47.00), (11.75, 46.97), (12.14, 47.08),
    (12.20, 46.89), (12.30, 46.78), (12.48, 46.67), (12.73, 46.64), (13.00, 46.60),
    (13.40, 46.56), (13.71, 46.52), (14.00, 46.48), (14.45, 46.42), (14.81, 46.51),
    (15.00, 46.63), (15.40, 46.65), (15.65, 46.70), (16.00, 46.68), (16.11, 46.87),
    (16.30, 46.99), (16.45, 47.40), (16.42, 47.55), (16.45, 47.67), (16.55, 47.75),
    (16.65, 47.69), (17.05, 47.71), (17.10, 47.85), (17.16, 48.01), (17.07, 48.12),
    (16.95, 48.25), (16.94, 48.62), (16.54, 48.81), (16.10, 48.75), (15.80, 48.87),
    (15.30, 48.98), (15.00, 49.02), (14.97, 48.78), (14.70, 48.58), (14.33, 48.56),
    (14.00, 48.65), (13.84, 48.77), (13.73, 48.52), (13.44, 48.56), (13.40, 48.45),
    (13.25, 48.29), (13.03, 48.26), (12.75, 48.12), (12.85, 47.98), (12.96, 47.85),
    (13.00, 47.72), (13.08, 47.65), (13.05, 47.50), (12.80, 47.55), (12.75, 47.65),
    (12.50, 47.64), (12.22, 47.70), (12.15, 47.61), (11.63, 47.59), (11.25, 47.43),
    (10.98, 47.40), (10.88, 47.48), (10.64, 47.56), (10.45, 47.55), (10.43, 47.42),
    (10.29, 47.30), (10.22, 47.37), (10.10, 47.37), (9.97, 47.54), (9.72, 47.55),
)  # fmt: skip


def in_austria(point: Point) -> bool:
    """Whether `point` lies within Austria's rough outline (a ray-casting test)."""
    lat, lon = point
    inside = False
    for (x1, y1), (x2, y2) in zip(_AUSTRIA, _AUSTRIA[1:] + _AUSTRIA[:1], strict=True):
        if (y1 > lat) != (y2 > lat) and lon < x1 + (lat - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside


def _place(row: sqlite3.Row) -> Place:
    return Place(row["postcode"], (row["lat"], row["lon"]), row["name"], row["adverts"])


_DUE = """
SELECT t.value AS postcode FROM json_each(?) t
LEFT JOIN postcode_places p ON p.postcode = t.value
WHERE p.postcode IS NULL OR p.updated_at <= ?
ORDER BY p.updated_at IS NOT NULL, p.updated_at, t.value
LIMIT ?
"""
_SAMPLE = """
SELECT lat, lon, location FROM listings
WHERE postcode = ? AND lat IS NOT NULL
ORDER BY updated_at DESC LIMIT ?
"""


async def refresh_places(
    conn: aiosqlite.Connection, listings: Iterable[Listing], *, now: float
) -> int:
    """Place again the postcodes of `listings` (already recorded) that are due, inside the
    caller's transaction; how many were placed."""
    postcodes = sorted(
        {listing.postcode for listing in listings if listing.postcode and listing.coordinates}
    )
    if not postcodes:
        return 0
    fetch = reader(conn)
    due = await fetch(_DUE, (json.dumps(postcodes), now - REFRESH, PER_READ))
    rows = []
    for postcode in (row["postcode"] for row in due):
        sample = await fetch(_SAMPLE, (postcode, SAMPLE))
        if not sample:  # pragma: no cover - a listing with coordinates was just recorded
            continue
        names = Counter(row["location"] for row in sample if row["location"])
        name = names.most_common(1)[0][0] if names else None
        lat = median(row["lat"] for row in sample)
        lon = median(row["lon"] for row in sample)
        rows.append((postcode, lat, lon, name, len(sample), now))
    if not rows:  # the usual read: every postcode placed, and not due
        return 0
    await conn.executemany(
        "INSERT INTO postcode_places (postcode, lat, lon, name, adverts, updated_at)"
        " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (postcode) DO UPDATE SET lat = excluded.lat,"
        " lon = excluded.lon, name = excluded.name, adverts = excluded.adverts,"
        " updated_at = excluded.updated_at",
        rows,
    )
    return len(rows)


async def places_of(fetch: Fetch, postcodes: Iterable[str]) -> dict[str, Place]:
    """The places of those of `postcodes` habicht knows."""
    rows = await fetch(
        "SELECT * FROM postcode_places WHERE postcode IN (SELECT value FROM json_each(?))",
        (json.dumps(sorted(set(postcodes))),),
    )
    return {row["postcode"]: _place(row) for row in rows}


async def nearest_place(fetch: Fetch, point: Point) -> tuple[Place, float] | None:
    """The known postcode nearest to `point` and its distance; None while none is known.

    Reads every place (Austria has about 2,200 postcodes): this answers a shared location,
    which is rare, never an advert."""
    places = [_place(row) for row in await fetch("SELECT * FROM postcode_places", ())]
    if not places:
        return None
    return min(((place, distance_km(point, place.point)) for place in places), key=_second)


def _second(pair: tuple[Place, float]) -> float:
    return pair[1]


async def locate(fetch: Fetch, point: Point) -> Located:
    """`point` as habicht understands it: the nearest postcode it knows, and whether it is
    in Austria."""
    found = await nearest_place(fetch, point)
    nearest, km = found if found is not None else (None, None)
    return Located(point, nearest, km, in_austria(point))
