"""Every price an advert was seen at, and which adverts each search showed when.

All are written inside a scan's transaction (the caller's connection) and read by drop
alerts, `/list`, `/history`, the going price and `/preview`. The price history holds one row
per change of a known price: a price-less spell writes nothing, so a drop is always measured
against, and shown after, the last price that was known.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal

import aiosqlite

__all__ = [
    "PricePoint",
    "lowest_prices",
    "price_at",
    "price_paths",
    "priced_since",
    "record_prices",
]


@dataclass(frozen=True, slots=True)
class PricePoint:
    """An advert was seen at `price` from `seen_at` on."""

    seen_at: float
    price: Decimal


def _ids(ad_ids: Iterable[str]) -> str:
    return json.dumps(list(ad_ids))


async def record_prices(
    conn: aiosqlite.Connection, prices: Iterable[tuple[str, str]], *, now: float
) -> None:
    """Add `(ad_id, price)` to each advert's history unless it is the last price known."""
    await conn.executemany(
        """
        INSERT INTO price_history (ad_id, seen_at, price)
        SELECT :ad_id, :now, :price
        WHERE :price IS NOT (
            SELECT price FROM price_history WHERE ad_id = :ad_id ORDER BY seen_at DESC LIMIT 1
        )
        ON CONFLICT (ad_id, seen_at) DO UPDATE SET price = excluded.price
        """,
        [{"ad_id": ad_id, "price": price, "now": now} for ad_id, price in prices],
    )


async def lowest_prices(
    conn: aiosqlite.Connection, ad_ids: Sequence[str], *, before: float
) -> dict[str, Decimal]:
    """The lowest price each advert was seen at before `before` (adverts with none left out).

    (With `MIN()`, SQLite takes the bare column `price` from the row holding the minimum.)
    """
    rows = await conn.execute_fetchall(
        "SELECT ad_id, MIN(CAST(price AS REAL)) AS low, price FROM price_history"
        " WHERE ad_id IN (SELECT value FROM json_each(?)) AND seen_at < ? GROUP BY ad_id",
        (_ids(ad_ids), before),
    )
    return {row["ad_id"]: Decimal(row["price"]) for row in rows}


async def price_paths(
    conn: aiosqlite.Connection, ad_ids: Sequence[str]
) -> dict[str, list[PricePoint]]:
    """Each advert's known prices, oldest first."""
    paths: dict[str, list[PricePoint]] = {ad_id: [] for ad_id in ad_ids}
    rows = await conn.execute_fetchall(
        "SELECT ad_id, seen_at, price FROM price_history"
        " WHERE ad_id IN (SELECT value FROM json_each(?)) ORDER BY ad_id, seen_at",
        (_ids(ad_ids),),
    )
    for row in rows:
        paths[row["ad_id"]].append(PricePoint(row["seen_at"], Decimal(row["price"])))
    return paths


async def price_at(conn: aiosqlite.Connection, ad_id: str, *, at: float) -> Decimal | None:
    """The price the advert was seen at, as of `at` (the history's latest row then); None if
    it had none yet. A followed alert's edit compares it, the price the alert told, with the
    advert's price now (`watches.follow`); the market owns the table, so it asks here."""
    rows = list(
        await conn.execute_fetchall(
            "SELECT price FROM price_history WHERE ad_id = ? AND seen_at <= ?"
            " ORDER BY seen_at DESC LIMIT 1",
            (ad_id, at),
        )
    )
    return Decimal(rows[0][0]) if rows else None


async def priced_since(conn: aiosqlite.Connection, ad_ids: Iterable[str]) -> dict[str, float]:
    """When each advert's price became what it is (the history's latest row); adverts with no
    history left out. A scan tells a chat each cut once, counting its drop alerts since then
    (`watches.judge`); the market owns the table, so it asks here."""
    rows = await conn.execute_fetchall(
        "SELECT ad_id, max(seen_at) FROM price_history"
        " WHERE ad_id IN (SELECT value FROM json_each(?)) GROUP BY ad_id",
        (_ids(sorted(set(ad_ids))),),
    )
    return {row[0]: row[1] for row in rows}
