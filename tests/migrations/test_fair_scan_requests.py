"""The fair-scan-requests migration upgrades a file with a pending request: it is still
served first, as a chat of its own (it has no `scan_requested_by`)."""

from __future__ import annotations

from pathlib import Path

from kit.fakes import FakeClock, TextRenderer
from kit.migrations import before_migration

from habicht.db import Database
from habicht.fakes.willhaben_site import FakeWillhabenSite
from habicht.scraper.schedule import run_pass
from habicht.willhaben.fetch import WillhabenClient


async def test_an_old_files_pending_request_is_served_first(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    clock = FakeClock()
    old = await before_migration(path, "fair_scan_requests")
    async with old.transaction() as conn:
        await conn.execute("INSERT INTO chats (chat_id, created_at, updated_at) VALUES (7, 0, 0)")
        for search_id, keyword, requested in ((1, "alt", None), (2, "neu", 5.0)):
            await conn.execute(
                "INSERT INTO searches (id, url, created_at, last_attempt_at, scan_requested_at)"
                " VALUES (?, ?, 0, 1, ?)",
                (search_id, f"http://willhaben.test/iad/x?keyword={keyword}", requested),
            )
            await conn.execute(
                "INSERT INTO watches (chat_id, search_id, label, created_at) VALUES (7, ?, ?, 0)",
                (search_id, keyword),
            )
    await old.close()

    site = FakeWillhabenSite(world=True)  # nothing published: every search lists nothing

    async with (
        Database(path) as db,
        WillhabenClient(
            base_url="http://willhaben.test",
            fetch_gap=0.0,
            clock=clock,
            sleep=clock.sleep,
            transport=site.transport(),
        ) as client,
    ):
        rows = await db.fetchall("SELECT scan_requested_by FROM searches ORDER BY id")
        assert [tuple(row) for row in rows] == [(None,), (None,)]
        await run_pass(db, client, TextRenderer(), clock=clock, max_attempts=5, interval=100.0)
        assert [request.url.params["keyword"] for request in site.log] == ["neu", "alt"]
        assert (
            await db.single_value(
                "SELECT count(*) FROM searches WHERE scan_requested_at IS NOT NULL"
            )
            == 0
        )
