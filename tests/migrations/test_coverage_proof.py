"""Migration `coverage_proof` (issue 36): an old file's feeds keep their reads and coverage
misses, and its searches keep being served; the covered span goes — a feed read now proves
how deep it reached, and the first read after the upgrade records it."""

from __future__ import annotations

from pathlib import Path

from kit.migrations import before_migration

from habicht.db import Database

FEED = "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz?sort=1"


async def test_an_old_files_feed_keeps_its_reads_and_misses_and_loses_its_covered_span(
    tmp_path: Path,
) -> None:
    path = tmp_path / "old.sqlite3"
    old = await before_migration(path, "coverage_proof")
    async with old.transaction() as conn:
        await conn.execute(
            "INSERT INTO feeds (id, url, created_at, last_success_at, covered_since,"
            " coverage_misses) VALUES (1, ?, 0, 500, 100, 3)",
            (FEED,),
        )
        await conn.execute(
            "INSERT INTO searches (id, url, created_at, local, feed_id, fed_since)"
            " VALUES (1, 'https://x.test/s', 0, 1, 1, 200)"
        )
    await old.close()
    async with Database(path) as db:
        feed = await db.fetchone("SELECT * FROM feeds")
        assert feed is not None
        assert (feed["last_success_at"], feed["coverage_misses"], feed["shown_since"]) == (
            500,
            3,
            None,
        )
        columns = await db.fetchall("SELECT name FROM pragma_table_info('feeds')")
        assert "covered_since" not in {row["name"] for row in columns}
        assert await db.single_value("SELECT fed_since FROM searches WHERE feed_id = 1") == 200
        assert await db.fetchall("SELECT * FROM coverage_candidates") == []
