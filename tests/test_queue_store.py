"""The outbox store: enqueue, claim, settle, inspect — on a real SQLite file."""

from __future__ import annotations

import asyncio

import pytest
from fakes import FakeClock

from habicht.db import Database
from habicht.queue import NotificationStore, Outgoing, QueueStats, enqueue_within

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


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(NOW)


@pytest.fixture
def store(db: Database, clock: FakeClock) -> NotificationStore:
    return NotificationStore(db, clock=clock, max_attempts=3, ttl=86400, lease=300)


async def statuses(store: NotificationStore) -> dict[str, str]:
    rows = await store.db.fetchall("SELECT dedupe_key, status FROM notifications ORDER BY id")
    return {key: status for key, status in rows}


async def test_a_key_is_enqueued_once_ever(store: NotificationStore, clock: FakeClock) -> None:
    """Enqueue twice with one key: one row — also after it was sent, and after a purge."""
    assert await store.enqueue(item("a")) is True
    assert await store.enqueue(item("a", text="again")) is False
    claimed = await store.claim(10)
    assert await store.mark_sent(claimed) == 1
    assert await store.enqueue(item("a")) is False
    clock.advance(31 * 86400)
    assert await store.purge(30 * 86400) == 1
    assert await statuses(store) == {}
    assert await store.enqueue(item("a")) is False
    assert await store.enqueue_many([item("a"), item("b"), item("b")]) == 1


async def test_claim_takes_due_rows_once_with_a_lease(
    store: NotificationStore, clock: FakeClock
) -> None:
    """A claim marks rows sending with a lease and counts an attempt; a second claim gets none."""
    await store.enqueue_many([item("a", chat_id=1), item("b", chat_id=2), item("c", chat_id=1)])
    first = await store.claim(2)
    assert [(n.dedupe_key, n.status, n.attempts) for n in first] == [
        ("a", "sending", 1),
        ("b", "sending", 1),
    ]
    assert all(n.lease_until == NOW + 300 for n in first)
    assert [n.dedupe_key for n in await store.claim(10)] == ["c"]
    assert await store.claim(10) == []


async def test_concurrent_claims_never_share_a_row(store: NotificationStore) -> None:
    """Claims racing through asyncio.gather split the rows between them, none twice."""
    await store.enqueue_many([item(f"k{i}", chat_id=i) for i in range(100)])
    batches = await asyncio.gather(*(store.claim(15) for _ in range(8)))
    ids = [n.id for batch in batches for n in batch]
    assert len(ids) == len(set(ids)) == 100


async def test_settling_needs_the_claim_that_still_owns_the_row(
    store: NotificationStore, clock: FakeClock
) -> None:
    """After its lease ran out and another claim took the row, the old claim settles nothing."""
    await store.enqueue(item("a"))
    (stale,) = await store.claim(1)
    clock.advance(300)
    (fresh,) = await store.claim(1)
    assert fresh.attempts == stale.attempts + 1
    assert await store.mark_sent([stale]) == 0
    assert await store.release([stale]) == 0
    assert await store.mark_sent([fresh]) == 1
    assert await statuses(store) == {"a": "sent"}


async def test_release_gives_the_attempt_back(store: NotificationStore, clock: FakeClock) -> None:
    """Released rows are pending again with their attempt returned, due when told."""
    await store.enqueue_many([item("a"), item("b")])
    claimed = await store.claim(10)
    assert await store.release(claimed[:1]) == 1
    assert await store.release(claimed[1:], until=NOW + 50) == 1
    again = {n.dedupe_key: n for n in await store.claim(10)}
    assert set(again) == {"a"}
    assert again["a"].attempts == 1
    clock.advance(50)
    assert [n.attempts for n in await store.claim(10)] == [1]


async def test_a_message_that_keeps_crashing_the_process_still_dies(
    store: NotificationStore, clock: FakeClock
) -> None:
    """Claimed and abandoned max_attempts times (a crash each time): reaped as exhausted."""
    await store.enqueue(item("a"))
    for _ in range(3):
        assert len(await store.claim(1)) == 1
        clock.advance(300)
    assert await store.claim(1) == []
    (dead,) = await store.reap()
    assert (dead.status, dead.dead_reason, dead.attempts) == ("dead", "attempts_exhausted", 3)
    assert dead.last_error == "the lease of its last attempt expired mid-send"


async def test_reap_buries_rows_past_their_ttl(store: NotificationStore, clock: FakeClock) -> None:
    """A pending row older than the TTL is dead (`expired`), never claimed; newer rows live."""
    await store.enqueue(item("old"))
    clock.advance(86400 - 1)
    await store.enqueue(item("new"))
    clock.advance(1)
    assert [n.dedupe_key for n in await store.reap()] == ["old"]
    assert [n.dedupe_key for n in await store.claim(10)] == ["new"]
    assert (await store.dead(10))[0].dead_reason == "expired"


async def test_requeue_revives_dead_rows_with_a_fresh_start(
    store: NotificationStore, clock: FakeClock
) -> None:
    """Requeue (by id or all): pending, attempts 0, due now, a new TTL; other rows untouched."""
    await store.enqueue_many([item("a"), item("b"), item("c")])
    claimed = await store.claim(10)
    await store.mark_dead(claimed[:2], reason="blocked", error="Forbidden: blocked")
    await store.mark_sent(claimed[2:])
    clock.advance(2 * 86400)
    assert await store.requeue([claimed[0].id, claimed[2].id, 999]) == 1
    assert await store.reap() == []
    (revived,) = await store.claim(10)
    assert (revived.dedupe_key, revived.attempts, revived.dead_reason) == ("a", 1, None)
    assert await store.requeue("all") == 1
    assert await statuses(store) == {"a": "sending", "b": "pending", "c": "sent"}


async def test_stats_summarise_the_queue(store: NotificationStore, clock: FakeClock) -> None:
    """Counts per status, retrying, sent today, oldest pending age, next due, dead by reason."""
    await store.enqueue_many([item(k) for k in "abcdefg"])
    clock.advance(100)
    a, b, c, d, e, f = await store.claim(6)
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
    )
    clock.advance(86400)
    assert (await store.stats()).sent_last_24h == 0


async def test_purge_keeps_recent_and_unsent_rows(
    store: NotificationStore, clock: FakeClock
) -> None:
    """Purge deletes only sent and dead rows older than the cut-off; keys become tombstones."""
    await store.enqueue_many([item(k) for k in "abcd"])
    a, b, c = await store.claim(3)
    await store.mark_sent([a])
    await store.mark_dead([b], reason="blocked", error="x")
    clock.advance(10)
    await store.mark_sent([c])
    assert await store.purge(5) == 2
    assert await statuses(store) == {"c": "sent", "d": "pending"}
    tombstones = await store.db.fetchall("SELECT dedupe_key FROM notification_tombstones")
    assert sorted(key for (key,) in tombstones) == ["a", "b"]


async def test_postpone_and_migrate_touch_only_unsent_rows_of_that_chat(
    store: NotificationStore,
) -> None:
    """A 429 pause moves a chat's pending rows; a migration rewrites its unsent rows."""
    await store.enqueue_many([item("a", chat_id=1), item("b", chat_id=1), item("c", chat_id=2)])
    (a,) = await store.claim(1)
    await store.mark_sent([a])
    assert await store.postpone(NOW + 9, chat_id=1) == 1
    assert [n.dedupe_key for n in await store.claim(10)] == ["c"]
    assert await store.migrate_chat(1, -100) == 1
    rows = await store.db.fetchall("SELECT dedupe_key, chat_id FROM notifications ORDER BY id")
    assert [tuple(r) for r in rows] == [("a", 1), ("b", -100), ("c", 2)]


def test_the_store_refuses_nonsense_settings(db: Database, clock: FakeClock) -> None:
    """No attempts, no TTL, or a lease too short to start a send is refused in one sentence."""
    with pytest.raises(ValueError, match="max_attempts must be at least 1"):
        NotificationStore(db, clock=clock, max_attempts=0, ttl=1)
    with pytest.raises(ValueError, match=r"lease at least 60 s, got .* lease=59"):
        NotificationStore(db, clock=clock, max_attempts=1, ttl=1, lease=59)


async def test_a_restart_takes_over_the_leases_of_the_process_that_died(
    db: Database, clock: FakeClock
) -> None:
    """Rows a crashed process had claimed are due at once after a restart, not after the
    lease; the attempt the crash spent stays spent."""
    store = NotificationStore(db, clock=clock, max_attempts=5, ttl=86400)
    await store.enqueue_many([Outgoing(1, "new", "a", "a"), Outgoing(2, "new", "b", "b")])
    assert len(await store.claim(10)) == 2  # then the process dies mid-send
    assert await store.claim(10) == []  # leased: another claim cannot take them yet
    assert await store.take_over_leases() == 2
    again = await store.claim(10)
    assert [(n.dedupe_key, n.attempts) for n in again] == [("a", 2), ("b", 2)]


async def test_reap_buries_a_row_past_its_ttl_even_before_it_is_due(
    store: NotificationStore, clock: FakeClock
) -> None:
    """Review of issue 2: a pending row past its TTL whose retry lies in the future is
    `expired` at once, not only when its retry comes due."""
    await store.enqueue(item("a"))
    (a,) = await store.claim(1)
    assert await store.mark_retry(a, at=NOW + 2 * 86400, error="Bad Gateway")
    clock.advance(86400)
    (dead,) = await store.reap()
    assert (dead.dedupe_key, dead.dead_reason, dead.last_error) == ("a", "expired", "Bad Gateway")


async def test_bury_chat_returns_the_pending_rows_it_buried(store: NotificationStore) -> None:
    """A gone chat's pending rows die and come back, dead, for logging; its sent rows and
    other chats are untouched."""
    await store.enqueue_many([item("a"), item("b"), item("c"), item("d", chat_id=2)])
    (a,) = await store.claim(1)
    await store.mark_sent([a])
    buried = await store.bury_chat(1, reason="blocked", error="Forbidden: blocked")
    assert [(n.dedupe_key, n.status, n.dead_reason) for n in buried] == [
        ("b", "dead", "blocked"),
        ("c", "dead", "blocked"),
    ]
    assert await statuses(store) == {"a": "sent", "b": "dead", "c": "dead", "d": "pending"}


async def test_abandon_ends_the_lease_and_keeps_the_attempt(store: NotificationStore) -> None:
    """A send cut off mid-flight: its row is claimable at once, with the attempt spent."""
    await store.enqueue(item("a"))
    (a,) = await store.claim(1)
    assert await store.abandon([a]) == 1
    (again,) = await store.claim(1)
    assert (again.dedupe_key, again.attempts) == ("a", 2)
