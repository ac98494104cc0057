"""Digest messages: as many of a chat's alerts as fit in one message, one line each.

A digest is text only, in one forum topic, measured as Telegram counts (`MESSAGE_LIMIT`);
the bot's renderer (`DigestRenderer`) writes it from the rows' `digest_line`s.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from habicht.message import Message
from habicht.queue.rows import Notification

__all__ = ["MESSAGE_LIMIT", "DigestRenderer", "next_message"]


DigestRenderer = Callable[[int, Sequence[str]], str]
"""Writes one digest message for `chat_id` from its entries' `digest_line`s (HTML)."""

MESSAGE_LIMIT = 4096
"""Telegram's longest message text (UTF-16 code units of the visible text). A digest is
measured by its HTML, which is never shorter than what it shows."""


def _length(text: str) -> int:
    """A text's length as Telegram counts it: UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2


def _line(row: Notification) -> str:
    return row.digest_line or row.text


def _digest(text: str, rows: list[Notification]) -> Message:
    """A digest carrying `rows` (all of one forum topic, or none): text only, in their topic;
    silent only if every alert in it is."""
    return Message(
        chat_id=rows[0].chat_id,
        text=text,
        thread_id=rows[0].thread_id,
        disable_notification=all(row.disable_notification for row in rows),
    )


def next_message(
    rows: list[Notification], render: DigestRenderer | None
) -> tuple[Message, list[Notification]]:
    """The next message of a flight's rows and the rows it carries: the first row's own
    message; or, in a digest (with `render`), a digest message of the first row's forum
    topic with as many of that topic's rows, in turn order, as fit in `MESSAGE_LIMIT`."""
    if render is None:
        return rows[0].message, rows[:1]
    chat_id, topic = rows[0].chat_id, rows[0].thread_id
    carried = rows[:1]
    text = render(chat_id, [_line(rows[0])])
    for row in rows[1:]:
        if row.thread_id != topic:
            continue
        longer = render(chat_id, [_line(n) for n in (*carried, row)])
        if _length(longer) > MESSAGE_LIMIT:
            break
        carried, text = [*carried, row], longer
    return _digest(text, carried), carried
