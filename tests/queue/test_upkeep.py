"""The owner's counts and repairs (`habicht.queue.upkeep`): stats, requeue, purge — on a
real SQLite file."""

from __future__ import annotations

from kit.fakes import FakeClock
from kit.outbox import NOW, item, statuses

from habicht.queue import NotificationStore
from habicht.queue.upkeep import QueueStats


async def test_requeue_revives_dead_rows_with_a_fresh_start(
    store: NotificationStore, clock: FakeClock
) -> None:
    """Requeue (by id or all): pending, attempts 0, due now, a new TTL; other rows untouched."""
    await store.enqueue_many([item(k, chat_id=i) for i, k in enumerate("abc")])
    claimed = await store.start(await store.claim(10))
    await store.mark_dead(claimed[:2], reason="blocked", error="Forbidden: blocked")
    await store.mark_sent(claimed[2:])
    clock.advance(2 * 86400)
    assert await store.requeue([claimed[0].id, claimed[2].id, 999]) == 1
    assert await store.reap() == []
    (revived,) = await store.claim(10)
    assert (revived.dedupe_key, revived.attempts, revived.dead_reason) == ("a", 0, None)
    assert await store.requeue("all") == 1
    assert await statuses(store) == {"a": "sending", "b": "pending", "c": "sent"}


async def test_stats_summarise_the_queue(store: NotificationStore, clock: FakeClock) -> None:
    """Counts per status, retrying, sent today, oldest pending age, next due, dead by reason."""
    await store.enqueue_many([item(k, chat_id=i) for i, k in enumerate("abcdefg")])
    clock.advance(100)
    a, b, c, d, e, f = await store.start(await store.claim(6))
    await store.mark_sent([a, b])
    await store.mark_dead([c], reason="blocked", error="x")
    await store.mark_dead([d, e], reason="expired", error="y")
    await store.mark_retry(f, at=NOW + 500, error="Bad Gateway")
    stats = await store.stats()
    assert stats == QueueStats(
        pending=2,
        sending=0,
        sent=2,
        dead=3,
        retrying=1,
        sent_last_24h=2,
        oldest_pending_age=100,
        next_due_at=NOW,
        dead_by_reason={"expired": 2, "blocked": 1},
        held={},
        next_retry_at=NOW + 500,  # issue 19 (12): the retry's, not the next pending row's
    )
    clock.advance(86400)
    assert (await store.stats()).sent_last_24h == 0


async def test_purge_keeps_recent_and_unsent_rows(
    store: NotificationStore, clock: FakeClock
) -> None:
    """Purge deletes only sent and dead rows older than the cut-off; keys become tombstones."""
    await store.enqueue_many([item(k, chat_id=i) for i, k in enumerate("abcd")])
    a, b, c = await store.claim(3)
    await store.mark_sent([a])
    await store.mark_dead([b], reason="blocked", error="x")
    clock.advance(10)
    await store.mark_sent([c])
    assert await store.purge(5) == 2
    assert await statuses(store) == {"c": "sent", "d": "pending"}
    tombstones = await store.db.fetchall("SELECT dedupe_key FROM notification_tombstones")
    assert sorted(key for (key,) in tombstones) == ["a", "b"]
