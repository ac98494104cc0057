"""What became of a claimed row (`habicht.queue.settle`): settled only by the claim that
owns it, given back, taken over after a crash, reaped, buried — on a real SQLite file."""

from __future__ import annotations

import pytest
from kit.fakes import FakeClock
from kit.outbox import NOW, item, small_outbox, statuses

from habicht.db import Database
from habicht.message import Outgoing
from habicht.queue import NotificationStore, TakenOver


@pytest.fixture
def store(db: Database, clock: FakeClock) -> NotificationStore:
    """`kit.outbox.small_outbox`: a lease of 300 s, three attempts."""
    return small_outbox(db, clock)


async def test_settling_needs_the_claim_that_still_owns_the_row(
    store: NotificationStore, clock: FakeClock
) -> None:
    """After its lease ran out and another claim took the row, the old claim settles nothing."""
    await store.enqueue(item("a"))
    (stale,) = await store.claim(1)
    clock.advance(300)
    (fresh,) = await store.claim(1)
    assert fresh.claims == stale.claims + 1
    assert await store.start([stale]) == []
    assert await store.mark_sent([stale]) == 0
    assert await store.release([stale]) == 0
    assert await store.mark_sent([fresh]) == 1
    assert await statuses(store) == {"a": "sent"}


async def test_release_gives_the_attempt_back(store: NotificationStore, clock: FakeClock) -> None:
    """Released rows are pending again, due when told, with no attempt spent — a started
    row's attempt is given back too (a 429 delivered nothing)."""
    await store.enqueue_many([item("a", chat_id=1), item("b", chat_id=2)])
    a, b = await store.claim(10)
    (started,) = await store.start([a])
    assert started.attempts == 1
    assert await store.release([started]) == 1
    assert await store.release([b], until=NOW + 50) == 1
    again = {n.dedupe_key: n for n in await store.claim(10)}
    assert set(again) == {"a"}
    assert again["a"].attempts == 0
    clock.advance(50)
    assert [n.attempts for n in await store.claim(10)] == [0]


async def test_a_message_that_keeps_crashing_the_process_still_dies(
    store: NotificationStore, clock: FakeClock
) -> None:
    """Sent and crashed max_attempts times (a crash mid-send each time, then a restart):
    reaped as exhausted. Claims whose send never started spend nothing."""
    await store.enqueue(item("a"))
    for _ in range(5):  # claimed, never sent, and the process dies
        assert len(await store.claim(1)) == 1
        assert await store.take_over_leases() == TakenOver(in_flight=0, unsent=1)
    for _ in range(3):
        (claimed,) = await store.claim(1)
        assert len(await store.start([claimed])) == 1
        assert await store.take_over_leases() == TakenOver(in_flight=1, unsent=0)
    assert await store.claim(1) == []
    (dead,) = await store.reap()
    assert (dead.status, dead.dead_reason, dead.attempts) == ("dead", "attempts_exhausted", 3)
    assert dead.last_error == "the lease of its last attempt expired mid-send"


async def test_reap_leaves_the_rows_of_busy_chats_alone(db: Database, clock: FakeClock) -> None:
    """Issue 27: a drain waiting out a storage fault holds a row whose last attempt was sent
    and whose lease ran out in the file meanwhile; a reap that names its chat busy leaves it
    to the drain's settle — which records it sent, not dead. Without it, it is buried."""
    store = NotificationStore(db, clock=clock, max_attempts=1, ttl=86400)
    await store.enqueue_many([item("held", chat_id=1), item("lost", chat_id=2)])
    held, _ = await store.start(await store.claim(10))
    clock.advance(2 * store.lease)
    assert [row.dedupe_key for row in await store.reap(busy={1})] == ["lost"]
    assert await store.mark_sent([held]) == 1
    assert await statuses(store) == {"held": "sent", "lost": "dead"}


async def test_reap_buries_rows_past_their_ttl(store: NotificationStore, clock: FakeClock) -> None:
    """A pending row older than the TTL is dead (`expired`), never claimed; newer rows live."""
    await store.enqueue(item("old"))
    clock.advance(86400 - 1)
    await store.enqueue(item("new"))
    clock.advance(1)
    assert [n.dedupe_key for n in await store.reap()] == ["old"]
    assert [n.dedupe_key for n in await store.claim(10)] == ["new"]
    assert (await store.dead(10))[0].dead_reason == "expired"


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


async def test_a_restart_takes_over_the_leases_of_the_process_that_died(
    db: Database, clock: FakeClock
) -> None:
    """Issue 15: rows a crashed process had claimed are due at once after a restart, not
    after the lease; a row whose send had started keeps its attempt spent, a row that was
    only claimed is pending again with nothing spent."""
    store = NotificationStore(db, clock=clock, max_attempts=5, ttl=86400)
    await store.enqueue_many([Outgoing(1, "new", "a", "a"), Outgoing(2, "new", "b", "b")])
    a, _b = await store.claim(10)
    await store.start([a])  # then the process dies, a mid-send, b waiting for its turn
    assert await store.claim(10) == []  # leased: another claim cannot take them yet
    assert await store.take_over_leases() == TakenOver(in_flight=1, unsent=1)
    rows = await store.db.fetchall("SELECT dedupe_key, status, attempts FROM notifications")
    assert [tuple(r) for r in rows] == [("a", "sending", 1), ("b", "pending", 0)]
    again = await store.claim(10)
    assert [(n.dedupe_key, n.attempts) for n in again] == [("a", 1), ("b", 0)]


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
    (a,) = await store.start(await store.claim(1))
    assert await store.abandon([a]) == 1
    (again,) = await store.claim(1)
    assert (again.dedupe_key, again.attempts) == ("a", 1)
