"""Migration 027 (issue 37): `watched_searches`, the watches' answer to "is this search
watched?" that the scraper's scheduling queries join — an active watch of an active chat —
and SQLite flattens it into them, so they still find a search's watches on its index."""

from __future__ import annotations

from pathlib import Path

from habicht.db import Database


async def test_a_search_is_watched_by_an_active_watch_of_an_active_chat(
    tmp_path: Path,
) -> None:
    async with Database(tmp_path / "new.sqlite3") as db:
        async with db.transaction() as conn:
            await conn.executemany(
                "INSERT INTO chats (chat_id, status, created_at, updated_at) VALUES (?, ?, 0, 0)",
                [(7, "active"), (8, "blocked")],
            )
            await conn.executemany(
                "INSERT INTO searches (id, url, created_at) VALUES (?, ?, 0)",
                [(search, f"https://x.test/{search}") for search in (1, 2, 3, 4, 5)],
            )
            await conn.executemany(
                "INSERT INTO watches (chat_id, search_id, label, status, created_at)"
                " VALUES (?, ?, 'w', ?, 0)",
                [
                    (7, 1, "active"),
                    (7, 2, "paused"),
                    (8, 3, "active"),
                    (7, 5, "active"),
                    (8, 5, "active"),
                ],
            )
        watched = await db.fetchall("SELECT DISTINCT search_id FROM watched_searches ORDER BY 1")
        assert [row[0] for row in watched] == [1, 5]
        plan = await db.fetchall(
            "EXPLAIN QUERY PLAN SELECT s.id FROM searches s"
            " WHERE EXISTS (SELECT 1 FROM watched_searches v WHERE v.search_id = s.id)"
        )
        assert "watches_by_search" in " ".join(row["detail"] for row in plan)
