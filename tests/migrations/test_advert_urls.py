"""Migration 028 (issue 37): a followed advert keeps its URL with its state, taken from the
advert as the market last read it; a state whose advert the market no longer keeps had no URL
to check and goes."""

from __future__ import annotations

from pathlib import Path

from kit.migrations import before_migration

from habicht.db import Database

URL = "https://www.willhaben.at/iad/kaufen-und-verkaufen/d/sofa-11/"


async def test_migration_028_gives_each_followed_advert_its_url(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    old = await before_migration(path, "advert_urls")
    async with old.transaction() as conn:
        await conn.execute(
            "INSERT INTO listings (ad_id, title, price, url, first_seen_at, updated_at)"
            " VALUES ('11', 'Sofa', '300', ?, 1, 1)",
            (URL,),
        )
        await conn.executemany(
            "INSERT INTO advert_states (ad_id, state, since, left_at, price, seen_at,"
            " alerted_at, flat, checked_at, checks, missing_at, check_due_at)"
            " VALUES (?, 'reserved', 2, 3, '300', 4, 5, 0, 6, 2, 7, 8)",
            [("11",), ("12",)],
        )
    await old.close()
    async with Database(path) as db:
        rows = await db.fetchall(
            "SELECT ad_id, url, state, since, left_at, price, seen_at, alerted_at, flat,"
            " checked_at, checks, missing_at, check_due_at FROM advert_states"
        )
        assert [tuple(row) for row in rows] == [
            ("11", URL, "reserved", 2.0, 3.0, "300", 4.0, 5.0, 0, 6.0, 2, 7.0, 8.0)
        ]
        plan = await db.fetchall(
            "EXPLAIN QUERY PLAN SELECT ad_id FROM advert_states"
            " WHERE flat = 0 AND check_due_at <= 9 ORDER BY check_due_at"
        )
        assert "advert_states_due" in " ".join(row["detail"] for row in plan)
