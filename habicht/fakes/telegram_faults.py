"""What the fake Telegram answers instead of a message: scripted faults and Telegram's refusals.

Errors follow the real wire format, `{"ok": false, "error_code": ..., "description": ...,
"parameters": {...}}`, which python-telegram-bot maps by HTTP status
(`telegram/request/_baserequest.py`): 401/404 → `InvalidToken`, 403 → `Forbidden`,
400 → `BadRequest`, `parameters.retry_after` → `RetryAfter`, `parameters.migrate_to_chat_id`
→ `ChatMigrated`, anything else → `NetworkError`.
"""

from __future__ import annotations

from dataclasses import dataclass

from habicht.fakes.telegram_payloads import Payload

__all__ = [
    "CANT_BE_EDITED",
    "EDIT_NOT_FOUND",
    "NOT_MODIFIED",
    "NO_CAPTION_TO_EDIT",
    "NO_TEXT_TO_EDIT",
    "PHOTO_REFUSALS",
    "TOPIC_DELETED",
    "Fault",
]

PHOTO_REFUSALS = (
    "Bad Request: wrong file identifier/HTTP URL specified",
    "Bad Request: failed to get HTTP URL content",
    "Bad Request: wrong type of the web page content",
)
"""What Telegram answers when it cannot use a photo URL (`refuse_photo`)."""
TOPIC_DELETED = "Bad Request: message thread not found"
"""What Telegram answers for a message to a forum topic that was deleted."""

# What Telegram answers an edit it refuses (`telegram_edits`), word for word.
EDIT_NOT_FOUND = "Bad Request: message to edit not found"
"""The message was deleted (`FakeBotAPI.delete_message`), or the bot never sent it."""
NOT_MODIFIED = (
    "Bad Request: message is not modified: specified new message content and reply markup are"
    " exactly the same as a current content and reply markup of the message"
)
"""The edit would show the message exactly as it shows now."""
CANT_BE_EDITED = "Bad Request: message can't be edited"
"""The message may no longer be edited (`FakeBotAPI.make_uneditable`)."""
NO_CAPTION_TO_EDIT = "Bad Request: there is no caption in the message to edit"
"""editMessageCaption of a text message."""
NO_TEXT_TO_EDIT = "Bad Request: there is no text in the message to edit"
"""editMessageText of a photo message."""


@dataclass(frozen=True)
class Fault:
    """What the fake does with the next request for one chat instead of answering normally.

    `delay` holds the answer back that many seconds; `deliver` means the message is recorded
    (delivered) before the answer, as when only the answer is slow or gets lost.
    """

    status: int
    description: str
    parameters: Payload | None = None
    delay: float = 0.0
    deliver: bool = False

    @classmethod
    def server_error(cls, status: int = 500) -> Fault:
        """A 5xx from Telegram's side: python-telegram-bot raises `NetworkError`."""
        text = {500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable"}
        return cls(status, text.get(status, "Internal Server Error"))

    @classmethod
    def flood(cls, retry_after: int) -> Fault:
        """429 Too Many Requests: `RetryAfter` with this `retry_after`."""
        return cls(
            429,
            f"Too Many Requests: retry after {retry_after}",
            parameters={"retry_after": retry_after},
        )

    @classmethod
    def blocked(cls) -> Fault:
        """403 "bot was blocked by the user": `Forbidden`."""
        return cls(403, "Forbidden: bot was blocked by the user")

    @classmethod
    def not_started(cls) -> Fault:
        """403 "bot can't initiate conversation with a user" (a private chat that never
        sent /start): `Forbidden`."""
        return cls(403, "Forbidden: bot can't initiate conversation with a user")

    @classmethod
    def chat_not_found(cls) -> Fault:
        """400 "chat not found": `BadRequest`."""
        return cls(400, "Bad Request: chat not found")

    @classmethod
    def migrated(cls, new_chat_id: int) -> Fault:
        """400 with `migrate_to_chat_id` (a group became a supergroup): `ChatMigrated`."""
        return cls(
            400,
            "Bad Request: group chat was upgraded to a supergroup chat",
            parameters={"migrate_to_chat_id": new_chat_id},
        )

    @classmethod
    def slow(cls, seconds: float) -> Fault:
        """Deliver the message, then answer only after `seconds` (a client may time out)."""
        return cls(200, "", delay=seconds, deliver=True)
