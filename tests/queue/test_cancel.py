"""Rows know their watches (issue 19, case 1): `disown_within` takes watches off their unsent
rows, and a pending row no watch owes any more is cancelled. A real SQLite file."""

from __future__ import annotations

from habicht.queue import NotificationStore, Outgoing, disown_within

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
