"""Migration 019 (living area, issue 29): an old file's adverts get a living area, unknown
(NULL) until a read sees them again, and keep everything else."""

from __future__ import annotations

from pathlib import Path

from kit.migrations import before_migration, seed_sofa_watch

from habicht.db import Database


async def test_migration_019_gives_old_adverts_an_unknown_living_area(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    old = await before_migration(path, "living_area")
    async with old.transaction() as conn:
        await seed_sofa_watch(conn, baseline_at=1.0)
        await conn.execute(
            "INSERT INTO listings (ad_id, title, price, url, first_seen_at, updated_at)"
            " VALUES ('11', 'Mietwohnung', '864', 'https://x.test/11', 0, 0)"
        )
    await old.close()
    async with Database(path) as db:
        [row] = await db.fetchall("SELECT title, price, living_area FROM listings")
        assert tuple(row) == ("Mietwohnung", "864", None)
