"""The outbox's figures for others (`habicht.queue.figures`, issue 37): rows by status,
delivery times and alert times, each row read once after the place a reader last saw."""

from __future__ import annotations

from dataclasses import replace

from kit.fakes import FakeClock
from kit.outbox import NOW, item

from habicht.message import Kind, Outgoing
from habicht.queue import NotificationStore
from habicht.queue.figures import (
    AlertTimes,
    Delivery,
    Waiting,
    alert_times,
    by_status,
    deliveries,
    sent_counts,
    waiting,
)


async def test_by_status_counts_every_status_zero_included(
    store: NotificationStore, clock: FakeClock
) -> None:
    """Every status is counted, 0 where no row has it, so a gauge never keeps an old count."""
    assert await by_status(store.db) == {"pending": 0, "sending": 0, "sent": 0, "dead": 0}
    await store.enqueue_many([item(k, chat_id=i) for i, k in enumerate("abc")])
    a, b = await store.start(await store.claim(2))
    await store.mark_dead([a], reason="blocked", error="x")
    assert await by_status(store.db) == {"pending": 1, "sending": 1, "sent": 0, "dead": 1}
    await store.mark_sent([b])
    assert (await by_status(store.db))["sent"] == 1


async def test_deliveries_come_once_in_order_after_a_place(
    store: NotificationStore, clock: FakeClock
) -> None:
    """Each sent row comes once, by (sent_at, id) after the place given, with its time from
    queued to sent; two rows sent at one clock reading are told apart by their id."""
    await store.enqueue_many([item(k, chat_id=i) for i, k in enumerate("abc")])
    clock.advance(5)
    a, b, c = await store.start(await store.claim(3))
    await store.mark_sent([a, b])
    first = await deliveries(store.db, after=(NOW, 0))
    assert first == [Delivery(5.0, (NOW + 5, a.id)), Delivery(5.0, (NOW + 5, b.id))]
    await store.mark_sent([c])
    assert await deliveries(store.db, after=first[-1].place) == [Delivery(5.0, (NOW + 5, c.id))]


async def test_alert_times_are_the_alerts_that_kept_an_adverts_times(
    store: NotificationStore, clock: FakeClock
) -> None:
    """Only alerts queued with a first read come, their spans as stored (negative too: the
    reader decides), and none before the place given."""
    clock.advance(10)
    await store.enqueue_many(
        [
            replace(item("a"), first_seen_at=NOW, published_at=NOW + 20),
            replace(item("b", chat_id=2), first_seen_at=NOW + 4),
            item("c", chat_id=3),
        ]
    )
    times = await alert_times(store.db, after=(NOW, 0))
    assert [(t.seen, t.published) for t in times] == [(10.0, -10.0), (6.0, None)]
    assert all(isinstance(t, AlertTimes) and t.place[0] == NOW + 10 for t in times)
    assert await alert_times(store.db, after=times[-1].place) == []


async def test_sent_counts_are_a_chats_sent_alerts_of_some_adverts_by_kind(
    store: NotificationStore, clock: FakeClock
) -> None:
    """Only sent new-listing and drop alerts of the chat, for the adverts given, since the
    time given, by kind; a kind with none is left out."""

    def alert(key: str, kind: Kind, ad_id: str, chat_id: int = 1) -> Outgoing:
        return Outgoing(chat_id=chat_id, kind=kind, text="x", dedupe_key=key, ad_id=ad_id)

    await store.enqueue_many(
        [
            alert("n1", "new", "ad-1"),
            alert("d1", "drop", "ad-1"),
            alert("n2", "new", "ad-2"),
            alert("n3", "new", "ad-3"),
            alert("other", "new", "ad-1", chat_id=2),
        ]
    )
    clock.advance(5)
    rows = await store.start(await store.claim(10))
    await store.mark_sent([row for row in rows if row.dedupe_key != "n2"])
    counts = await sent_counts(store.db, chat_id=1, since=NOW, ad_ids=["ad-1", "ad-2"])
    assert counts == {"new": 1, "drop": 1}
    assert await sent_counts(store.db, chat_id=1, since=NOW + 6, ad_ids=["ad-1"]) == {}


async def test_waiting_counts_the_unsent_rows(store: NotificationStore, clock: FakeClock) -> None:
    """Issue 37: `habicht health` asks here for the rows not sent — pending (those that
    failed before among them), sending, dead; sent rows are not counted."""
    assert await waiting(store.db) == Waiting(0, 0, 0, 0)
    await store.enqueue_many([item(k, chat_id=i) for i, k in enumerate("abcd")])
    a, b, _sending = await store.start(await store.claim(3))
    await store.mark_dead([a], reason="blocked", error="x")
    await store.mark_sent([b])
    assert await waiting(store.db) == Waiting(pending=1, retrying=0, sending=1, dead=1)
