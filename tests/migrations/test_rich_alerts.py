"""The rich-alerts migration upgrades a file with data: rows queued before it still send, as
the text they were, and watches are unmuted."""

from __future__ import annotations

import random
from pathlib import Path

from kit.fakes import FakeClock
from kit.migrations import before_migration, seed_sofa_watch

from habicht.db import Database
from habicht.message import Message
from habicht.queue import NotificationStore, drain
from habicht.watches.subscriptions import Subscriptions


async def test_an_old_files_queued_alert_still_sends_as_text(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    clock = FakeClock()
    old = await before_migration(path, "rich_alerts")
    async with old.transaction() as conn:
        await seed_sofa_watch(conn, alert_at=clock())
    await old.close()

    async with Database(path) as db:
        [(muted,)] = await db.fetchall("SELECT muted_until FROM watches")
        assert muted is None
        [watch] = await Subscriptions(db, clock=clock).watches(7)
        assert not watch.paused
        sent: list[Message] = []

        async def send(message: Message) -> None:
            sent.append(message)

        store = NotificationStore(db, clock=clock, max_attempts=5, ttl=86400)
        summary = await drain(store, send, clock=clock, sleep=clock.sleep, rand=random.Random(0))
        assert summary.sent == 1
        assert sent == [Message(7, "🆕 <b>Sofa</b>")]
