"""The scheduler migration: old searches kept, none with a scan request pending."""

from __future__ import annotations

from pathlib import Path

from habicht.db import Database, latest_version, migrations


async def test_the_scheduler_migration_keeps_old_searches(tmp_path: Path) -> None:
    """A file from before the scheduler migration keeps its searches, which have no scan
    request pending after the upgrade."""
    (version,) = [v for v, name, _ in migrations() if name.endswith("_scheduler.sql")]
    path = tmp_path / "old.sqlite3"
    old = await Database(path).open(target=version - 1)
    async with old.transaction() as conn:
        await conn.execute(
            "INSERT INTO searches (url, created_at, last_attempt_at) VALUES ('u', 1, 2)"
        )
    await old.close()
    async with Database(path) as upgraded:
        assert await upgraded.user_version() == latest_version()
        row = await upgraded.fetchone(
            "SELECT url, last_attempt_at, scan_requested_at FROM searches"
        )
        assert row is not None
        assert tuple(row) == ("u", 2, None)
