"""The neighbourhood migration (issue 21) upgrades a file whose watches have seen adverts:
each search knows the adverts its watches saw, so its going price starts from them."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from kit.migrations import before_migration, seed_sofa_watch

from habicht.db import Database
from habicht.market.going import going_price


async def test_an_old_files_seen_adverts_become_what_its_search_showed(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    old = await before_migration(path, "neighbourhood")
    async with old.transaction() as conn:
        await seed_sofa_watch(conn, baseline_at=100.0)
        for ad_id, price, first_seen, updated in (
            ("11", "400", 100.0, 5_000.0),
            ("12", "500", 200.0, 6_000.0),
            ("13", None, 300.0, 7_000.0),
        ):
            await conn.execute(
                "INSERT INTO listings (ad_id, title, price, url, first_seen_at, updated_at)"
                " VALUES (?, 'Sofa', ?, 'https://x.test/a', ?, ?)",
                (ad_id, price, first_seen, updated),
            )
            await conn.execute(
                "INSERT INTO watch_listings (watch_id, ad_id, last_price, first_seen_at)"
                " VALUES (1, ?, ?, ?)",
                (ad_id, price, first_seen),
            )
    await old.close()

    async with Database(path) as db:
        rows = await db.fetchall(
            "SELECT search_id, ad_id, first_seen_at, last_seen_at FROM search_listings"
            " ORDER BY ad_id"
        )
        assert [tuple(row) for row in rows] == [
            (1, "11", 100.0, 5_000.0),
            (1, "12", 200.0, 6_000.0),
            (1, "13", 300.0, 7_000.0),
        ]
        listing = await db.fetchall("SELECT lat, lon, seller_id, body, is_private FROM listings")
        assert {tuple(row) for row in listing} == {(None, None, None, None, None)}
        async with db.transaction() as conn:
            going = await going_price(conn, 1, now=7_000.0)
        assert going is not None
        assert (going.count, going.median) == (2, Decimal(450))
