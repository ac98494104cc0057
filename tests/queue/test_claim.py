"""Which rows go out next (`habicht.queue.claim`): due rows once, with a lease, a few per
chat — on a real SQLite file."""

from __future__ import annotations

import asyncio

import pytest
from kit.fakes import FakeClock
from kit.outbox import NOW, item, small_outbox

from habicht.db import Database
from habicht.queue import NotificationStore


@pytest.fixture
def store(db: Database, clock: FakeClock) -> NotificationStore:
    """`kit.outbox.small_outbox`: a lease of 300 s, three attempts."""
    return small_outbox(db, clock)


async def test_claim_takes_due_rows_once_with_a_lease(
    store: NotificationStore, clock: FakeClock
) -> None:
    """A claim marks rows sending with a lease and spends no attempt; a second claim gets
    none of them."""
    await store.enqueue_many([item("a", chat_id=1), item("b", chat_id=2), item("c", chat_id=3)])
    first = await store.claim(2)
    assert [(n.dedupe_key, n.status, n.attempts, n.claims) for n in first] == [
        ("a", "sending", 0, 1),
        ("b", "sending", 0, 1),
    ]
    assert all(n.lease_until == NOW + 300 for n in first)
    assert [n.dedupe_key for n in await store.claim(10)] == ["c"]
    assert await store.claim(10) == []


async def test_a_claim_takes_at_most_per_chat_rows_and_skips_busy_chats(
    store: NotificationStore, clock: FakeClock
) -> None:
    """Issue 10: `per_chat` caps one chat's rows in a claim, and the chats in `skip` (a row
    of theirs is in hand) are passed over, however many of their rows are due first."""
    await store.enqueue_many([item(f"a{i}", chat_id=1) for i in range(20)])
    await store.enqueue_many([item(f"b{i}", chat_id=2) for i in range(2)])
    clock.advance(100)
    assert [n.dedupe_key for n in await store.claim(5, per_chat=1)] == ["a0", "b0"]
    assert [n.dedupe_key for n in await store.claim(5, per_chat=1, skip={1})] == ["b1"]
    assert await store.next_due(skip={1, 2}) is None
    assert await store.next_due(skip={2}) == NOW + 1.1


async def test_concurrent_claims_never_share_a_row(store: NotificationStore) -> None:
    """Claims racing through asyncio.gather split the rows between them, none twice."""
    await store.enqueue_many([item(f"k{i}", chat_id=i) for i in range(100)])
    batches = await asyncio.gather(*(store.claim(15) for _ in range(8)))
    ids = [n.id for batch in batches for n in batch]
    assert len(ids) == len(set(ids)) == 100
