"""Edits of sent messages (`habicht.queue.edits`): outbox rows below the alerts, one pending
per message, keeping what a delivery made of each message — on a real SQLite file."""

from __future__ import annotations

import asyncio
import random
from dataclasses import replace

import pytest
from kit.delivery import Recorder
from kit.fakes import FakeClock
from kit.outbox import NOW, item, small_outbox

from habicht.db import Database
from habicht.message import Button, Delivered, Message, Outgoing
from habicht.queue import Notification, NotificationStore, drain
from habicht.queue.deliver import EDIT_FLIGHTS
from habicht.queue.edits import Edit, edit_within, owed_by, shown_text


@pytest.fixture
def store(db: Database, clock: FakeClock) -> NotificationStore:
    return small_outbox(db, clock)


def edit(text: str, *, chat_id: int = 1, message_id: int = 70) -> Edit:
    buttons = ((Button(text="⏸", data="w:p:1:x"),),)
    return Edit(chat_id, message_id, "photo", text, buttons=buttons, ad_id="ad-1")


async def queue_edit(store: NotificationStore, change: Edit) -> None:
    async with store.db.transaction() as conn:
        await edit_within(conn, change, now=store.clock(), max_attempts=store.max_attempts)


async def test_a_newer_state_replaces_the_pending_edit_of_its_message(
    store: NotificationStore, clock: FakeClock
) -> None:
    """Two changes before the edit goes out: one row, saying the newer; once that is sent,
    the next change is an edit of its own, with a key of its own."""
    await queue_edit(store, edit("🔒 reserviert"))
    clock.advance(10)
    await queue_edit(store, edit("❌ weg"))
    [row] = await store.claim(5, edits=5)
    assert (row.kind, row.text, row.dedupe_key) == ("edit", "❌ weg", "edit:1:70:1")
    assert (row.message_id, row.sent_as, row.disable_notification) == (70, "photo", 1)
    assert row.message.edits == Delivered(70, as_photo=True)
    assert row.message.buttons == ((Button(text="⏸", data="w:p:1:x"),),)
    await store.mark_sent([(await store.start([row]))[0]])
    await queue_edit(store, edit("✅ wieder da"))
    rows = await store.db.fetchall(
        "SELECT dedupe_key, status FROM notifications WHERE kind = 'edit' ORDER BY id"
    )
    assert [tuple(r) for r in rows] == [("edit:1:70:1", "sent"), ("edit:1:70:2", "pending")]
    async with store.db.transaction() as conn:
        assert await shown_text(conn, 1, 70) == "✅ wieder da"
        assert await shown_text(conn, 1, 71) is None


async def test_a_claim_takes_every_due_alert_before_any_edit(
    store: NotificationStore, clock: FakeClock
) -> None:
    """Fifty edits queued first, then an alert: the claim hands out the alert first, and no
    more edits than it is allowed."""
    for n in range(50):
        await queue_edit(store, edit(f"edit {n}", chat_id=100 + n))
    clock.advance(5)
    await store.enqueue(item("alert", chat_id=7))
    claimed = await store.claim(10, per_chat=1, edits=2)
    assert [row.kind for row in claimed] == ["new", "edit", "edit"]
    assert await store.claim(10, per_chat=1) == [], "no edit without leave"


async def test_an_edit_takes_no_turn_from_its_chats_alerts(
    store: NotificationStore, clock: FakeClock
) -> None:
    """An edit waiting for the chat does not push the chat's next alert one gap back."""
    await queue_edit(store, edit("🔒", chat_id=5))
    await store.enqueue(item("alert", chat_id=5))
    [alert] = await store.claim(5, per_chat=1)
    assert (alert.kind, alert.next_attempt_at) == ("new", NOW)


async def test_a_burst_of_edits_does_not_hold_up_a_new_alert(
    store: NotificationStore, clock: FakeClock
) -> None:
    """Fifty edits to one chat and to fifty chats wait; a new alert queued beside them is the
    first thing delivered, and the edits follow, a few at a time."""
    for n in range(50):
        await queue_edit(store, edit(f"one chat {n}", chat_id=9, message_id=n + 1))
        await queue_edit(store, edit(f"chat {n}", chat_id=200 + n))
    await store.enqueue(item("alert", chat_id=9, text="new advert"))
    sent = Recorder(clock)
    in_flight: list[int] = []
    most = 0

    async def send(message: Message) -> Delivered | None:
        nonlocal most
        in_flight.append(message.chat_id)
        most = max(most, sum(1 for _ in in_flight))
        await sent(message)
        await asyncio.sleep(0)
        in_flight.remove(message.chat_id)
        return None

    async def sleep(seconds: float) -> None:
        await clock.sleep(seconds)
        await asyncio.sleep(0)

    await drain(store, send, clock=clock, sleep=sleep, rand=random.Random(1))
    assert sent.sent[0][1:] == (9, "new advert")
    assert len(sent.sent) == 101
    assert most <= 1 + EDIT_FLIGHTS


async def test_a_delivery_keeps_its_message_id_and_a_digest_its_text(
    store: NotificationStore, clock: FakeClock
) -> None:
    """What Telegram made of a message is kept on the rows it carried: the id, photo or text,
    and a digest's whole text on its first row."""
    await store.enqueue_many([item("a"), item("b", chat_id=2), item("c", chat_id=2)])
    clock.advance(60)  # c's turn, a gap after b's
    a, b, c = await store.start(await store.claim(5))
    await store.mark_sent([a], delivered=Delivered(11, as_photo=True))
    await store.mark_sent([b, c], delivered=Delivered(12), digest=True, text="📬 2\nb\nc")
    rows = await store.db.fetchall(
        "SELECT dedupe_key, message_id, sent_as, sent_text FROM notifications ORDER BY id"
    )
    assert [tuple(r) for r in rows] == [
        ("a", 11, "photo", None),
        ("b", 12, "digest", "📬 2\nb\nc"),
        ("c", 12, "digest", None),
    ]


async def test_a_drain_with_every_edit_flight_taken_waits_instead_of_claiming_in_vain(
    store: NotificationStore, clock: FakeClock
) -> None:
    """Four edits to four chats, each send slow: three fly, the fourth waits for one of them
    to land — the drain does not claim again and again meanwhile (it once spun on it)."""
    for chat in range(1, EDIT_FLIGHTS + 2):
        await queue_edit(store, edit(f"edit {chat}", chat_id=chat))
    claims = 0
    claim = store.claim

    async def counted(*args: object, **kwargs: object) -> list[Notification]:
        nonlocal claims
        claims += 1
        return await claim(*args, **kwargs)  # type: ignore[arg-type]

    store.claim = counted  # type: ignore[method-assign]
    release = asyncio.Event()

    async def slow(message: Message) -> Delivered | None:
        await release.wait()
        return None

    async def sleep(seconds: float) -> None:
        await clock.sleep(seconds)
        await asyncio.sleep(0)

    running = asyncio.create_task(
        drain(store, slow, clock=clock, sleep=sleep, rand=random.Random(1))
    )
    for _ in range(20_000):  # plenty of turns of the loop for a drain that would spin
        await asyncio.sleep(0)
    assert claims <= 2
    release.set()
    summary = await running
    assert summary.sent == EDIT_FLIGHTS + 1


async def test_owed_by_names_each_rows_watches_and_leaves_unowed_rows_out(
    store: NotificationStore,
) -> None:
    """Issue 37: the watches that owe each row, by id — two watches of one chat share one
    row — and a row no watch owes (an answer) is not there: `watches.follow` asks this
    instead of reading the outbox's table."""
    new = Outgoing(chat_id=1, kind="new", text="x", dedupe_key="new:1", ad_id="ad-1")
    await store.enqueue_many([new, replace(new, watch_id=7), replace(new, watch_id=8)])
    await store.enqueue_many([replace(new, dedupe_key="new:2", watch_id=9), item("answer")])
    rows = await store.db.fetchall("SELECT dedupe_key, id FROM notifications")
    ids = {key: row_id for key, row_id in rows}
    owed = await owed_by(store.db.reader, list(ids.values()))
    assert owed == {ids["new:1"]: {7, 8}, ids["new:2"]: {9}}
    assert await owed_by(store.db.reader, []) == {}
