"""The filters migration upgrades a file with data: watches keep working, prices are known."""

from __future__ import annotations

from pathlib import Path

from kit.fakes import FakeClock
from kit.migrations import before_migration

from habicht.db import Database
from habicht.watches.filters import WatchFilter
from habicht.watches.subscriptions import Subscriptions


async def test_an_old_file_gains_filters_and_a_price_history_of_what_it_knew(
    tmp_path: Path,
) -> None:
    path = tmp_path / "old.sqlite3"
    old = await before_migration(path, "filters")
    async with old.transaction() as conn:
        await conn.execute("INSERT INTO chats VALUES (7, 'active', 0, 0)")
        await conn.execute(
            "INSERT INTO searches (id, url, created_at) VALUES (1, 'https://x.test/s', 0)"
        )
        await conn.execute(
            "INSERT INTO watches (chat_id, search_id, label, baseline_at, created_at)"
            " VALUES (7, 1, 'sofa', 10, 0)"
        )
        for ad_id, price in (("11", "450"), ("12", None)):
            await conn.execute(
                "INSERT INTO listings (ad_id, title, price, url, first_seen_at, updated_at)"
                " VALUES (?, 'Sofa', ?, 'https://x.test/ad', 10, 20)",
                (ad_id, price),
            )
            await conn.execute("INSERT INTO watch_listings VALUES (1, ?, ?, 10)", (ad_id, price))
    await old.close()

    async with Database(path) as db:
        subscriptions = Subscriptions(db, clock=FakeClock())
        [watch] = await subscriptions.watches(7)
        assert watch.filter == WatchFilter()
        assert watch.listings_known == 2
        priced = await subscriptions.history(7, "11")
        assert priced is not None
        assert [(p.seen_at, str(p.price)) for p in priced.points] == [(20.0, "450")]
        unpriced = await subscriptions.history(7, "12")
        assert unpriced is not None
        assert unpriced.points == []
