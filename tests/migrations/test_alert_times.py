"""The alert-times migration (issue 20) upgrades a file with alerts queued before it: they
keep everything and carry no freshness sample, and the first alert after it does."""

from __future__ import annotations

from pathlib import Path

from habicht.db import Database, latest_version, migrations
from habicht.message import Outgoing
from habicht.queue import NotificationStore
from habicht.scraper.alert_times import latency

NOW = 1_700_000_000.0


def _version(name: str) -> int:
    return next(version for version, file, _ in migrations() if name in file)


async def test_old_alerts_stay_and_are_no_samples(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    old = await Database(path).open(target=_version("alert_times") - 1)
    async with old.transaction() as conn:
        await conn.execute(
            "INSERT INTO notifications (chat_id, kind, ad_id, text, dedupe_key, max_attempts,"
            " next_attempt_at, created_at, queued_at, updated_at, source)"
            " VALUES (7, 'new', '42', 'alt', 'new:42:7', 5, ?, ?, ?, ?, 'feed')",
            (NOW, NOW, NOW, NOW),
        )
    await old.close()
    async with Database(path) as db:
        assert await db.user_version() == latest_version()
        row = await db.fetchone(
            "SELECT text, source, first_seen_at, published_at FROM notifications"
        )
        assert row is not None
        assert tuple(row) == ("alt", "feed", None, None)
        assert (await latency(db, now=NOW + 60)).alerts == 0
        store = NotificationStore(db, clock=lambda: NOW + 60, max_attempts=5, ttl=86400)
        fresh = Outgoing(
            7, "new", "neu", "new:43:7", "43", first_seen_at=NOW, published_at=NOW - 30
        )
        assert await store.enqueue(fresh)
        window = await latency(db, now=NOW + 60)
        assert (window.alerts, window.seen_p50, window.published_p50) == (1, 60, 90)
