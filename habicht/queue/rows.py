"""The outbox's rows: what is queued (`Outgoing`), what is sent (`Message`), and a row as read.

Knows nothing of Telegram or willhaben: a row is `(chat_id, text, dedupe_key)`, what else its
message carries (a photo URL, buttons, a topic, send options: `Message`), and its delivery
state (see DESIGN.md, "Notification states"). Every read returns frozen dataclasses, never
sqlite rows.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, fields
from typing import Any, Literal

__all__ = [
    "COLUMNS",
    "Button",
    "Buttons",
    "Delivered",
    "Kind",
    "Message",
    "Notification",
    "Outgoing",
    "SentAs",
    "Source",
    "Status",
    "as_notification",
    "buttons_json",
]

Kind = Literal["new", "drop", "info", "admin", "edit"]
Status = Literal["pending", "sending", "sent", "dead"]
Source = Literal["feed", "search"]
SentAs = Literal["photo", "text", "digest"]
"""How a message went out: a photo with its text as the caption, a text, or a digest's text
(which carries several rows). An edit must change a caption or a text accordingly."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Button:
    """An inline button: opens `url`, or sends `data` back to the bot (at most 64 bytes)."""

    text: str
    url: str | None = None
    data: str | None = None


Buttons = tuple[tuple[Button, ...], ...]
"""Rows of inline buttons under a message."""


@dataclass(frozen=True, slots=True)
class Message:
    """What one send delivers, exactly as it was queued: the `send` callable's argument.

    `text` is HTML; with `photo_url` it is the photo's caption (the sender may fall back to
    text if Telegram cannot fetch the photo). `thread_id` is the forum topic to post in.
    `disable_notification` sends it without a notification sound (Telegram's name).

    With `edits`, it is no new message: it replaces the text (the caption, if the message
    `edits` names went out as a photo) and the buttons of that earlier message, silently.
    """

    chat_id: int
    text: str
    photo_url: str | None = None
    buttons: Buttons = ()
    thread_id: int | None = None
    disable_notification: bool = False
    edits: Delivered | None = None


@dataclass(frozen=True, slots=True)
class Delivered:
    """What Telegram made of a sent message: its `message_id` in the chat, and how it went
    out (a photo whose caption is the text, or a text). What `send` returns, so the outbox can
    keep it: an alert can be edited later (`Message.edits`)."""

    message_id: int
    as_photo: bool = False


@dataclass(frozen=True, slots=True)
class Outgoing:
    """A message to enqueue. `text` is the fully rendered HTML: a retry never re-renders.
    The fields after `ad_id` are stored with it and sent unchanged (see `Message`)."""

    chat_id: int
    kind: Kind
    text: str
    dedupe_key: str
    ad_id: str | None = None
    photo_url: str | None = None
    buttons: Buttons = ()
    thread_id: int | None = None
    disable_notification: bool = False
    digest_line: str | None = None
    """The message as one line of a digest (HTML); None: it never goes in a digest."""
    watch_id: int | None = None
    """The watch that owes this alert (None: an answer or an owner message). A second watch
    of the chat queueing the same key owes the same row too (see `disown_within`)."""
    source: Source | None = None
    """Where an alert came from (a shared feed, or its search's own scan); kept for counting."""
    first_seen_at: float | None = None
    """When what a new-listing alert tells of was first read, for a new advert only (not
    bumped, not older than its watch): the start of its freshness, kept for measuring."""
    published_at: float | None = None
    """Its `PUBLISHED` time, under the same rule (None also when the page gave none)."""


@dataclass(frozen=True, slots=True)
class Notification:
    """One row of the outbox, as it was when read or claimed."""

    id: int
    chat_id: int
    kind: Kind
    ad_id: str | None
    text: str
    dedupe_key: str
    status: Status
    attempts: int
    max_attempts: int
    next_attempt_at: float
    lease_until: float | None
    last_error: str | None
    dead_reason: str | None
    created_at: float
    queued_at: float
    updated_at: float
    sent_at: float | None
    claims: int
    started_at: float | None
    photo_url: str | None = None
    buttons: str | None = None
    """The buttons as JSON (`buttons_json`); NULL on rows queued before photo alerts."""
    thread_id: int | None = None
    disable_notification: int = 0
    digest_line: str | None = None
    message_id: int | None = None
    """The Telegram message that delivered this row (an edit row: the message it edits);
    None until sent, and on rows sent before alerts were followed."""
    sent_as: SentAs | None = None
    """How that message went out (`SentAs`)."""
    sent_text: str | None = None
    """A digest's text as sent, kept on the first row it carried (None on every other row)."""

    @property
    def message(self) -> Message:
        """The message to send, as it was queued (an edit row: the edit of its message)."""
        edits = None
        if self.kind == "edit" and self.message_id is not None:
            edits = Delivered(self.message_id, as_photo=self.sent_as == "photo")
        return Message(
            chat_id=self.chat_id,
            text=self.text,
            photo_url=None if edits else self.photo_url,
            buttons=_buttons(self.buttons),
            thread_id=self.thread_id,
            disable_notification=bool(self.disable_notification) or edits is not None,
            edits=edits,
        )


def buttons_json(buttons: Buttons) -> str | None:
    """Rows of buttons as stored: `[[{"text": …, "url": …} | {"text": …, "data": …}]]`."""
    if not buttons:
        return None
    return json.dumps(
        [
            [
                {k: v for k, v in (("text", b.text), ("url", b.url), ("data", b.data)) if v}
                for b in row
            ]
            for row in buttons
        ],
        ensure_ascii=False,
    )


def _buttons(stored: str | None) -> Buttons:
    if not stored:
        return ()
    return tuple(tuple(Button(**button) for button in row) for row in json.loads(stored))


_NAMES = [f.name for f in fields(Notification)]
COLUMNS = ", ".join(_NAMES)
"""The columns of a `Notification`, in its fields' order: what a query selects to read one."""


def as_notification(row: sqlite3.Row | tuple[Any, ...]) -> Notification:
    """A row read as `COLUMNS`, as the frozen dataclass every read returns."""
    values = dict(zip(_NAMES, row, strict=True))
    return Notification(**values)
