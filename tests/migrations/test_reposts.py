"""Migration 015 (reposts): an old file gets the index of listings by seller, its data kept."""

from __future__ import annotations

from pathlib import Path

from kit.migrations import before_migration, seed_sofa_watch

from habicht.db import Database


async def test_migration_015_indexes_the_sellers_of_an_old_file(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    old = await before_migration(path, "reposts")
    async with old.transaction() as conn:
        await seed_sofa_watch(conn, baseline_at=1.0)
        await conn.execute(
            "INSERT INTO listings (ad_id, title, url, first_seen_at, updated_at, seller_id)"
            " VALUES ('11', 'Sofa', 'https://x.test/11', 0, 0, '42')"
        )
    await old.close()
    async with Database(path) as db:
        assert await db.single_value("SELECT seller_id FROM listings WHERE ad_id = '11'") == "42"
        indexes = await db.fetchall("PRAGMA index_list(listings)")
        assert "listings_seller" in {row["name"] for row in indexes}
