"""The outbox store: enqueue, claim, settle, inspect — on a real SQLite file."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest
from kit.fakes import FakeClock

from habicht import health
from habicht.db import Database, latest_version, migrations
from habicht.queue import (
    Button,
    Message,
    NotificationStore,
    Outgoing,
    QueueStats,
    TakenOver,
    claim,
    enqueue,
    enqueue_within,
    upkeep,
)
from habicht.scraper import alert_times

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


async def test_a_chats_backlog_takes_turns_with_other_chats(
    store: NotificationStore, clock: FakeClock
) -> None:
    """Issue 10: each row of a chat's backlog is due one gap (1.1 s, 3.1 s for a group) after
    the one before it, and a chat queued later joins at the head of the line: a claim in due
    order serves the chats in turn, each chat's rows in their order."""
    await store.enqueue_many([item(f"a{i}", chat_id=1) for i in range(3)])
    await store.enqueue_many([item(f"g{i}", chat_id=-7) for i in range(2)])
    clock.advance(0.5)
    await store.enqueue(item("b", chat_id=2))
    rows = await store.db.fetchall("SELECT dedupe_key, next_attempt_at FROM notifications")
    assert {key: round(due - NOW, 6) for key, due in rows} == {
        "a0": 0.0,
        "a1": 1.1,
        "a2": 2.2,
        "g0": 0.0,
        "g1": 3.1,
        "b": 0.0,
    }
    clock.advance(10)
    order = [n.dedupe_key for n in await store.claim(10)]
    assert order == ["a0", "g0", "b", "a1", "a2", "g1"]


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


async def test_a_row_sends_its_message_as_it_was_queued(store: NotificationStore) -> None:
    """Issue 13: photo URL, buttons (URL and callback), forum topic and `disable_notification`
    are stored with the row and come back unchanged as its `Message`; a plain row is plain
    text."""
    buttons = (
        (Button(text="🔗 Öffnen", url="https://x.test/ad"),),
        (Button(text="⏸", data="w:p:1:tag"), Button(text="🗑 „&“", data="w:r:1:tag")),
    )
    rich = Outgoing(
        -100, "new", "<b>Sofa</b>", "rich", "11",
        photo_url="https://img.test/1.jpg", buttons=buttons, thread_id=42,
        disable_notification=True,
    )  # fmt: skip
    await store.enqueue_many([rich, item("plain")])
    claimed = {row.dedupe_key: row.message for row in await store.claim(10)}
    assert claimed == {
        "rich": Message(-100, "<b>Sofa</b>", "https://img.test/1.jpg", buttons, 42, True),
        "plain": Message(1, "<b>hi</b>"),
    }


def test_the_store_refuses_nonsense_settings(db: Database, clock: FakeClock) -> None:
    """No attempts, no TTL, or a lease too short to start a send is refused in one sentence."""
    with pytest.raises(ValueError, match="max_attempts must be at least 1"):
        NotificationStore(db, clock=clock, max_attempts=0, ttl=1)
    with pytest.raises(ValueError, match=r"lease at least 60 s, got .* lease=59"):
        NotificationStore(db, clock=clock, max_attempts=1, ttl=1, lease=59)


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


def _version_of(file_name: str) -> int:
    """The version of a bundled migration by its file name (the integrator renumbers)."""
    (version,) = [v for v, name, _ in migrations() if name.endswith(file_name)]
    return version


async def test_the_fair_delivery_migration_keeps_old_rows_and_their_leases(
    tmp_path: Path, clock: FakeClock
) -> None:
    """Issues 10 and 15: rows written by the schema before `fair_delivery` survive it; a row
    an older habicht had leased counts as started (its claim spent the attempt and it may
    have been mid-send): a restart sends it again, attempt spent, and gives nothing else back."""
    path = tmp_path / "old.sqlite3"
    before = _version_of("_fair_delivery.sql") - 1
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


# Indexes that leave the sent rows out: a query an owner or the health check runs may walk
# these whole, but nothing that holds every row (the million sent ones).
_SMALL = {
    "notifications_due",
    "notifications_lease",
    "notifications_age",
    "notifications_turn",
    "notifications_dead",
    "notifications_dead_reason",
}


def _scans(db_path: Path, sql: str, params: dict[str, object] | tuple[object, ...]) -> list[str]:
    """The lines of the query's plan that read notifications without a key or a range."""
    with sqlite3.connect(db_path) as conn:
        plan = [row[3] for row in conn.execute(f"EXPLAIN QUERY PLAN {sql}", params)]
    return [line for line in plan if line.startswith("SCAN notifications")]


@pytest.mark.parametrize(
    ("name", "sql"),
    [
        ("stats", upkeep._STATS),
        ("dead by reason", upkeep._DEAD_BY_REASON),
        ("dead", upkeep._DEAD),
        ("health", health._QUEUE),
        ("claim", claim._CLAIM),
        ("next due", claim._NEXT_DUE),
        ("enqueue", enqueue._INSERT),
        ("held", upkeep._HELD),
        ("digest rows", claim._DIGEST_WAITING),
        ("owe", enqueue._OWE),
        ("owed", enqueue._OWED),
        ("cancel", enqueue._CANCEL),
        ("retime", enqueue._RETIME),
        ("alert freshness", alert_times._SAMPLES),
        *[(f"purge {i}", f"DELETE {old}") for i, old in enumerate(upkeep._PURGED)],
        *[(f"tombstones {i}", f"SELECT dedupe_key {old}") for i, old in enumerate(upkeep._PURGED)],
    ],
)
async def test_owner_and_health_queries_never_read_every_sent_row(
    db: Database, name: str, sql: str
) -> None:
    """Issue 10: every query of `/queue`, `habicht health`, purge, `dead()` and delivery
    walks an index that leaves the sent rows out (EXPLAIN QUERY PLAN on the real schema);
    the only whole-table read is the stats' count of all rows, a b-tree count."""
    params: dict[str, object] | tuple[object, ...] = {
        "now": NOW,
        "day_ago": NOW,
        "cutoff": NOW,
        "lease_until": NOW,
        "born_after": NOW,
        "limit": 5,
        "scan": 20,
        "per_chat": 1,
        "busy": "[]",
        "chat_id": 1,
        "kind": "new",
        "ad_id": None,
        "text": "x",
        "dedupe_key": "k",
        "max_attempts": 5,
        "gap": 1.0,
        "release": None,
        "silent": False,
        "digest_line": None,
        "source": None,
        "first_seen_at": None,
        "published_at": None,
        "id": 1,
        "at": NOW,
        "ids": "[]",
        "most": 5,
        "key": "k",
        "watch_id": 1,
        "watches": "[1]",
        "rows": "[1]",
        "why": "x",
        "photo_url": None,
        "buttons": None,
        "thread_id": None,
        "disable_notification": 0,
    }
    if "?" in sql:
        params = (10,)
    scans = _scans(db.path, sql, params)
    allowed = [line for line in scans if line.split()[-1] in _SMALL]
    if name == "stats":  # SELECT count(*) FROM notifications: SQLite counts b-tree entries
        assert len(scans) - len(allowed) == 1
        assert "COVERING INDEX" in next(line for line in scans if line not in allowed)
    else:
        assert scans == allowed, f"{name} reads every row: {scans}"
