"""What goes into the outbox (`habicht.queue.enqueue`): each key once ever, inside the
caller's transaction, at its chat's fair turn; the watches that owe a row, and the row no
watch owes any more cancelled (`disown_within`) — on a real SQLite file. Quiet hours at
enqueue have their own clock: test_enqueue_held.py."""

from __future__ import annotations

import pytest
from kit.fakes import FakeClock
from kit.outbox import NOW, item, statuses

from habicht.db import Database
from habicht.message import Outgoing
from habicht.queue import NotificationStore
from habicht.queue.enqueue import disown_within, drops_told, enqueue_within


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


# -- owners: rows know their watches (issue 19, case 1) ---------------------------------

CHAT = 7


def alert(key: str, *, watch_id: int | None) -> Outgoing:
    return Outgoing(CHAT, "new", f"<b>{key}</b>", key, ad_id=key, watch_id=watch_id)


async def disown(store: NotificationStore, *watch_ids: int) -> int:
    async with store.db.transaction() as conn:
        return await disown_within(conn, watch_ids, now=store.clock(), why="its watch was removed")


async def states(store: NotificationStore) -> dict[str, tuple[str, str | None]]:
    rows = await store.db.fetchall("SELECT dedupe_key, status, dead_reason FROM notifications")
    return {row[0]: (row[1], row[2]) for row in rows}


async def test_a_pending_row_is_cancelled_once_no_watch_owes_it(store: NotificationStore) -> None:
    """Watch 2 queues the same key as watch 1 (one row: the key is per chat): disowning 1
    cancels only what 1 alone owed; disowning 2 as well cancels the shared row."""
    await store.enqueue_many([alert("a", watch_id=1), alert("b", watch_id=1)])
    assert await store.enqueue(alert("a", watch_id=2)) is False  # deduplicated, but owed
    assert await disown(store, 1) == 1
    assert await states(store) == {"a": ("pending", None), "b": ("dead", "cancelled")}
    assert await disown(store, 2) == 1
    assert await states(store) == {"a": ("dead", "cancelled"), "b": ("dead", "cancelled")}
    stats = await store.stats()
    assert stats.dead_by_reason == {"cancelled": 2}
    assert await store.claim(10) == []


async def test_a_claimed_row_is_not_recalled_and_answers_are_never_cancelled(
    store: NotificationStore,
) -> None:
    """A row in flight (claimed) goes out; a row with no watch (an answer, an old row) stays."""
    await store.enqueue_many([alert("a", watch_id=1), alert("info", watch_id=None)])
    [claimed] = await store.claim(1)
    assert claimed.dedupe_key == "a"
    assert await disown(store, 1) == 0
    assert await states(store) == {"a": ("sending", None), "info": ("pending", None)}
    assert await store.mark_sent([claimed]) == 1


async def test_drops_told_finds_a_chats_drop_of_a_cut_since_a_time(db: Database) -> None:
    """Issue 37: the scan asks which cuts a chat already has a drop alert of — keys in a range
    that match a pattern, queued since the cut's first sighting — by their place in the asks;
    another kind, an older row or no time at all is not a told cut."""

    def drop(key: str) -> Outgoing:
        return Outgoing(chat_id=1, kind="drop", text="x", dedupe_key=key, ad_id="7")

    async with db.transaction() as conn:
        await enqueue_within(conn, [drop("drop:7:1:49:36")], now=NOW, max_attempts=5)
        await enqueue_within(conn, [item("drop:7:1:42:30")], now=NOW, max_attempts=5)
        asks = [
            ("drop:7:1:", "drop:7:1;", "drop:7:1:%:36", NOW),  # told
            ("drop:7:1:", "drop:7:1;", "drop:7:1:%:36", NOW + 1),  # told before the cut
            ("drop:7:1:", "drop:7:1;", "drop:7:1:%:36", None),  # no sighting
            ("drop:7:1:", "drop:7:1;", "drop:7:1:%:30", NOW),  # a `new` row, not a drop
            ("drop:7:2:", "drop:7:2;", "drop:7:2:%:36", NOW),  # another chat
        ]
        assert await drops_told(conn, asks) == {0}
        assert await drops_told(conn, []) == set()
