"""Digest test helpers: two chats, an alert with its digest line, a plain digest renderer."""

from __future__ import annotations

from collections.abc import Sequence

from habicht.message import Outgoing
from habicht.queue import NotificationStore

BURSTY, QUIET = 7, 8


def alert(key: str, *, chat_id: int = BURSTY, width: int = 0) -> Outgoing:
    line = f'🆕 <a href="https://x.test/{key}">{key}</a>' + " ·" * width
    return Outgoing(
        chat_id=chat_id, kind="new", text=f"<b>{key}</b> full", dedupe_key=key, digest_line=line
    )


def render(chat_id: int, lines: Sequence[str]) -> str:
    return "\n".join([f"📬 {len(lines)} alerts", *lines])


async def statuses(store: NotificationStore) -> dict[str, int]:
    rows = await store.db.fetchall("SELECT status, count(*) FROM notifications GROUP BY status")
    return {row[0]: row[1] for row in rows}
