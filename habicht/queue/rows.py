"""The outbox's rows: a row as read (`Notification`), and how its message is stored.

Knows nothing of Telegram or willhaben: a row is `(chat_id, text, dedupe_key)`, what else its
message carries (a photo URL, buttons, a topic, send options: `habicht.message`), and its
delivery state (see DESIGN.md, "Notification states"). Every read returns frozen dataclasses,
never sqlite rows.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, fields
from typing import Any, Literal

from habicht.message import Button, Buttons, Delivered, Kind, Message

__all__ = [
    "COLUMNS",
    "Notification",
    "SentAs",
    "Status",
    "as_notification",
    "buttons_json",
]

Status = Literal["pending", "sending", "sent", "dead"]
SentAs = Literal["photo", "text", "digest"]
"""How a message went out: a photo with its text as the caption, a text, or a digest's text
(which carries several rows). An edit must change a caption or a text accordingly."""


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
