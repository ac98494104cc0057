"""Migration 026 (learned places, issue 36): an old file's plain flat searches are classified
again — a town's or a keyword's search may now have its feed — and the rest stay as they were."""

from __future__ import annotations

from pathlib import Path

from kit.migrations import before_migration

from habicht.db import Database

RENT = "https://www.willhaben.at/iad/immobilien/mietwohnungen"


async def test_migration_026_classifies_plain_flat_searches_again(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    old = await before_migration(path, "learned_places")
    searches = [
        (1, f"{RENT}/mietwohnung-angebote?areaId=31703&sort=1", 0),
        (2, f"{RENT}/wien/?keyword=balkon&sort=1", 0),
        (3, f"{RENT}/wien/?sort=1", 1),
        (4, "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz?areaId=900&sort=1", 0),
    ]
    async with old.transaction() as conn:
        await conn.executemany(
            "INSERT INTO searches (id, url, created_at, local) VALUES (?, ?, 0, ?)", searches
        )
    await old.close()
    async with Database(path) as db:
        rows = await db.fetchall("SELECT id, local FROM searches ORDER BY id")
        assert [tuple(row) for row in rows] == [(1, None), (2, None), (3, 1), (4, 0)]
        assert await db.fetchall("SELECT * FROM search_places") == []
