"""The books the fake Telegram keeps for a delivery test: every message it recorded, and the
sends that broke one of Telegram's limits (more than 30 messages in any second overall, two
messages to one chat less than a second apart, or more than 20 messages to one group — a
negative chat id — in any minute). An accepted edit counts as a message, since Telegram
floods edits as it floods sends. It never enforces those limits; tests inject 429s
explicitly with `Fault.flood`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from habicht.fakes.telegram_payloads import Payload

__all__ = ["Limits", "SentMessage", "Violation"]

# Telegram's limits (https://core.telegram.org/bots/faq#my-bot-is-hitting-limits-how-do-i-avoid-this)
GLOBAL_PER_SECOND = 30
CHAT_GAP_SECONDS = 1.0
GROUP_PER_MINUTE = 20


@dataclass(frozen=True)
class SentMessage:
    """A message the bot sent (or edited into place), as the fake recorded it."""

    chat_id: int
    message_id: int
    text: str
    parse_mode: str | None
    at: float
    reply_markup: Payload | None = None
    thread_id: int | None = None
    """The forum topic (`message_thread_id`) it went to, if any."""
    photo: str | None = None
    """The photo's URL (sendPhoto), or the name of the file uploaded as the photo; `text` is
    then its caption."""
    upload: bytes | None = None
    """The uploaded photo's bytes (sendPhoto with a file rather than a URL)."""
    params: Mapping[str, Any] = field(default_factory=dict, repr=False)


@dataclass(frozen=True)
class Violation:
    """A send that broke one of Telegram's limits: `global` (> 30 in a second), `chat` (< 1 s
    after the one before) or `group` (> 20 to one group in a minute)."""

    kind: Literal["global", "chat", "group"]
    chat_id: int
    at: float
    detail: str


class Limits:
    """Telegram's limits, counted send by send: the recent sends overall, per chat and per
    group, and the `violations` found so far."""

    def __init__(self) -> None:
        self._recent: deque[float] = deque()
        self._last_to_chat: dict[int, float] = {}
        self._recent_to_group: dict[int, deque[float]] = {}
        self.violations: list[Violation] = []

    def account(self, chat_id: int, at: float) -> None:
        """Count limit violations of one delivered message or accepted edit (its caller holds
        the lock)."""
        while self._recent and self._recent[0] <= at - 1.0:
            self._recent.popleft()
        self._recent.append(at)
        if len(self._recent) > GLOBAL_PER_SECOND:
            self.violations.append(
                Violation("global", chat_id, at, f"{len(self._recent)} messages within 1 s")
            )
        last = self._last_to_chat.get(chat_id)
        if last is not None and at - last < CHAT_GAP_SECONDS:
            self.violations.append(
                Violation("chat", chat_id, at, f"{at - last:.3f} s after the previous one")
            )
        self._last_to_chat[chat_id] = at
        if chat_id < 0:
            minute = self._recent_to_group.setdefault(chat_id, deque())
            while minute and minute[0] <= at - 60.0:
                minute.popleft()
            minute.append(at)
            if len(minute) > GROUP_PER_MINUTE:
                detail = f"{len(minute)} messages to the group within 60 s"
                self.violations.append(Violation("group", chat_id, at, detail))
