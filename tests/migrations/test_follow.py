"""Migration 020 (alerts that stay true, issue 34): the outbox is rebuilt to take edit rows;
every old row, and every watch an unsent row is owed to, survives it unchanged, and alerts
sent before it are not followed (they have no message id)."""

from __future__ import annotations

from pathlib import Path

from kit.migrations import before_migration, seed_sofa_watch

from habicht.db import Database


async def test_migration_020_keeps_every_row_and_the_watches_they_are_owed_to(
    tmp_path: Path,
) -> None:
    path = tmp_path / "old.sqlite3"
    old = await before_migration(path, "follow")
    async with old.transaction() as conn:
        await seed_sofa_watch(conn, baseline_at=1.0, alert_at=5.0)
        await conn.execute("INSERT INTO notification_watches VALUES (1, 1)")
        await conn.execute(
            "UPDATE notifications SET status = 'sent', sent_at = 6, photo_url = 'p',"
            " digest_line = 'l', source = 'feed'"
        )
    await old.close()
    async with Database(path) as db:
        rows = await db.fetchall(
            "SELECT dedupe_key, status, sent_at, photo_url, digest_line, source, message_id,"
            " sent_as FROM notifications"
        )
        assert [tuple(row) for row in rows] == [
            ("new:11:7", "sent", 6.0, "p", "l", "feed", None, None)
        ]
        owed = await db.fetchall("SELECT notification_id, watch_id FROM notification_watches")
        assert [tuple(row) for row in owed] == [(1, 1)]
        follow = await db.single_value("SELECT follow_alerts FROM chats WHERE chat_id = 7")
        assert follow == 1
        async with db.transaction() as conn:  # the new kind is allowed
            await conn.execute(
                "INSERT INTO notifications (chat_id, kind, text, dedupe_key, max_attempts,"
                " next_attempt_at, created_at, queued_at, updated_at, message_id, sent_as)"
                " VALUES (7, 'edit', 'x', 'edit:7:1:1', 5, 9, 9, 9, 9, 1, 'photo')"
            )
