"""The outbox store: enqueue, claim, settle, inspect — on a real SQLite file."""

from __future__ import annotations

import pytest

from habicht.db import Database
from habicht.queue import Outgoing, enqueue_within

NOW = 1_700_000_000.0


def item(key: str, *, chat_id: int = 1, text: str = "<b>hi</b>") -> Outgoing:
    return Outgoing(chat_id=chat_id, kind="new", text=text, dedupe_key=key, ad_id="ad-1")


async def test_enqueue_within_counts_only_new_keys(db: Database) -> None:
    """Inside the caller's transaction, a key already queued, repeated or purged adds no row."""
    async with db.transaction() as conn:
        assert await enqueue_within(conn, [item("a"), item("b")], now=NOW, max_attempts=5) == 2
    async with db.transaction() as conn:
        await conn.execute(
            "INSERT INTO notification_tombstones (dedupe_key, purged_at) VALUES ('gone', ?)",
            (NOW,),
        )
        batch = [item("a", text="other"), item("c"), item("c"), item("gone")]
        assert await enqueue_within(conn, batch, now=NOW, max_attempts=5) == 1
    rows = await db.fetchall("SELECT dedupe_key, text, status FROM notifications ORDER BY id")
    assert [tuple(r) for r in rows] == [
        ("a", "<b>hi</b>", "pending"),
        ("b", "<b>hi</b>", "pending"),
        ("c", "<b>hi</b>", "pending"),
    ]


async def test_enqueue_within_rolls_back_with_the_caller(db: Database) -> None:
    """A failing caller transaction leaves no notification behind (transactional outbox)."""

    async def detect_then_fail() -> None:
        async with db.transaction() as conn:
            await enqueue_within(conn, [item("a")], now=NOW, max_attempts=5)
            raise RuntimeError("the scrape failed after detecting")

    with pytest.raises(RuntimeError, match="scrape failed"):
        await detect_then_fail()
    assert await db.single_value("SELECT count(*) FROM notifications") == 0
