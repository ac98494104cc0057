"""The detection-edges migration upgrades a file with data: what each chat was told is the
last price its watch saw, and no baseline has failed yet."""

from __future__ import annotations

from pathlib import Path

from kit.migrations import before_migration, seed_sofa_watch

from habicht.db import Database


async def test_an_old_file_knows_what_each_chat_was_told(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    old = await before_migration(path, "detection_edges")
    async with old.transaction() as conn:
        await seed_sofa_watch(conn, baseline_at=10)
        await conn.executemany(
            "INSERT INTO watch_listings (watch_id, ad_id, last_price, first_seen_at)"
            " VALUES (1, ?, ?, 10)",
            [("11", "450"), ("12", None)],
        )
    await old.close()

    async with Database(path) as db:
        rows = await db.fetchall(
            "SELECT ad_id, last_price, told_price FROM watch_listings ORDER BY ad_id"
        )
        assert [tuple(row) for row in rows] == [("11", "450", "450"), ("12", None, None)]
        assert await db.single_value("SELECT baseline_failures FROM watches") == 0
