"""What a message is: what is queued (`Outgoing`), what is sent (`Message`), and what came of it.

The shared vocabulary of those who write messages — the watches' and the bot's renderers, the
scraper that hands a read's alerts on — and of the outbox that stores and delivers them
(`habicht.queue`). A foundation beside `model` and `quiet`: it imports no part, so writing an
alert no longer needs the queue, and knows nothing of Telegram or willhaben: a message is a
chat, an HTML text and what else it carries (a photo URL, buttons, a forum topic, send
options).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["Button", "Buttons", "Delivered", "Kind", "Message", "Outgoing", "Source"]

Kind = Literal["new", "drop", "info", "admin", "edit"]
Source = Literal["feed", "search"]


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
