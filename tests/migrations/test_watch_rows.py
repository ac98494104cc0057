"""The watch-rows migration upgrades a file with data (issue 19): tombstones learn their
advert from their key, and a row queued before it — which no watch owes — still sends when
its watch is removed."""

from __future__ import annotations

import random
from pathlib import Path

from kit.fakes import FakeClock
from kit.migrations import before_migration, seed_sofa_watch

from habicht.db import Database
from habicht.message import Message
from habicht.queue import NotificationStore, drain
from habicht.watches.subscriptions import Subscriptions


async def test_an_old_files_tombstones_and_queued_alert_survive(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    clock = FakeClock()
    old = await before_migration(path, "watch_rows")
    async with old.transaction() as conn:
        await seed_sofa_watch(conn, alert_at=clock())
        await conn.executemany(
            "INSERT INTO notification_tombstones (dedupe_key, purged_at) VALUES (?, 0)",
            [("new:12:7",), ("drop:13:7:100.00:90.00",), ("drop:14:7:90",), ("admin:x:1",)],
        )
    await old.close()

    async with Database(path) as db:
        rows = await db.fetchall("SELECT dedupe_key, ad_id FROM notification_tombstones")
        assert {row[0]: row[1] for row in rows} == {
            "new:12:7": "12",
            "drop:13:7:100.00:90.00": "13",
            "drop:14:7:90": "14",
            "admin:x:1": None,
        }
        assert await Subscriptions(db, clock=clock).remove_watch(7, 1) is not None
        sent: list[Message] = []

        async def send(message: Message) -> None:
            sent.append(message)

        store = NotificationStore(db, clock=clock, max_attempts=5, ttl=86400)
        summary = await drain(store, send, clock=clock, sleep=clock.sleep, rand=random.Random(0))
        assert summary.sent == 1
        assert sent == [Message(7, "🆕 <b>Sofa</b>")]
