"""The fair-delivery migration: old rows kept, a leased row counts as started."""

from __future__ import annotations

from pathlib import Path

from kit.fakes import FakeClock
from kit.migrations import migration_version
from kit.outbox import NOW

from habicht.db import Database, latest_version
from habicht.queue import NotificationStore, TakenOver


async def test_the_fair_delivery_migration_keeps_old_rows_and_their_leases(
    tmp_path: Path, clock: FakeClock
) -> None:
    """Issues 10 and 15: rows written by the schema before `fair_delivery` survive it; a row
    an older habicht had leased counts as started (its claim spent the attempt and it may
    have been mid-send): a restart sends it again, attempt spent, and gives nothing else back."""
    path = tmp_path / "old.sqlite3"
    before = migration_version("_fair_delivery.sql") - 1
    old = await Database(path).open(target=before)
    async with old.transaction() as conn:
        for key, status, attempts, lease in (
            ("a", "sending", 2, NOW + 300),
            ("b", "pending", 0, None),
        ):
            await conn.execute(
                "INSERT INTO notifications (chat_id, kind, text, dedupe_key, status, attempts,"
                " max_attempts, next_attempt_at, lease_until, created_at, queued_at, updated_at)"
                " VALUES (1, 'new', 'x', ?, ?, ?, 5, ?, ?, ?, ?, ?)",
                (key, status, attempts, NOW, lease, NOW, NOW, NOW),
            )
    await old.close()
    async with Database(path) as db:
        assert await db.user_version() == latest_version()
        store = NotificationStore(db, clock=clock, max_attempts=5, ttl=86400)
        assert await store.take_over_leases() == TakenOver(in_flight=1, unsent=0)
        rows = await db.fetchall(
            "SELECT dedupe_key, status, attempts, started_at FROM notifications ORDER BY id"
        )
        assert [tuple(r) for r in rows] == [("a", "sending", 2, NOW), ("b", "pending", 0, None)]
        claimed = await store.claim(10)
        assert [(n.dedupe_key, n.attempts, n.claims) for n in claimed] == [("a", 2, 1), ("b", 0, 1)]
