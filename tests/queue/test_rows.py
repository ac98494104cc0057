"""An outbox row (`habicht.queue.rows`): its message goes out exactly as it was queued."""

from __future__ import annotations

from kit.outbox import item

from habicht.message import Button, Message, Outgoing
from habicht.queue import NotificationStore


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
