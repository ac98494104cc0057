"""Telegram's rate limits, and the `Pacer` that keeps delivery inside them.

Keep in sync with docs/internals/queue.md (pacing):

- at most `PER_SECOND` (30) messages in any `WINDOW` (1.02 s) in all, and never two closer
  than `CATCH_UP` (9/10) of a slot of 1/30 s: a send that went out late does not push every
  later one back, and none goes out in a burst;
- at least `CHAT_GAP` (1.1 s) between two messages to one private chat (Telegram's 1 s, plus
  room for network jitter, which can bring two messages closer on arrival than they were
  when sent: at exactly 1 s, 1 of 100 arrived 0.99 s apart — benchmarks/delivery.py);
- at least `GROUP_GAP` (3.1 s) between two messages to one group or channel (a negative chat
  id): Telegram allows about 20 a minute there, and spacing them evenly keeps any rolling
  minute at 20 or fewer without the burst a bucket would let through at the start.

Knows nothing of the database; `enqueue` uses `chat_gap` to give each row its turn.
"""

from __future__ import annotations

from collections import deque

from habicht.clock import Clock, Sleep

__all__ = ["CHAT_GAP", "GROUP_GAP", "PER_SECOND", "WINDOW", "Pacer", "chat_gap"]

PER_SECOND = 30.0
CHAT_GAP = 1.1
GROUP_GAP = 3.1


WINDOW = 1.02
"""Seconds that hold at most `PER_SECOND` messages: Telegram's 1 s, plus room for jitter on
the way (arrivals can bunch closer than the sends were)."""

CATCH_UP = 0.9
"""Two sends in all are at least this share of a slot (1/30 s) apart: a send that went out
late lets the next catch up a little, never in a burst."""


def chat_gap(chat_id: int, *, private: float = CHAT_GAP, group: float = GROUP_GAP) -> float:
    """Least seconds between two messages to `chat_id`: groups and channels have negative
    ids (as python-telegram-bot's AIORateLimiter tells them apart)."""
    return group if chat_id < 0 else private


class Pacer:
    """Telegram's limits for one bot: `per_second` messages in all, and `chat_gap` /
    `group_gap` seconds between two messages to one private chat / group; and the pauses a
    429 imposes, on one chat or on the whole bot. Keep one per bot so limits and pauses hold
    across drains (rows queued after a 429 wait too); it waits through the injected `sleep`,
    so a fake clock never really waits. Pauses live in memory: after a restart the rows'
    `next_attempt_at` still holds them."""

    def __init__(
        self,
        *,
        clock: Clock,
        sleep: Sleep,
        per_second: float = PER_SECOND,
        chat_gap: float = CHAT_GAP,
        group_gap: float = GROUP_GAP,
    ) -> None:
        self.clock = clock
        self.sleep = sleep
        self.interval = 1.0 / per_second
        self.chat_gap = chat_gap
        self.group_gap = group_gap
        self._recent: deque[float] = deque(maxlen=max(1, round(per_second)))
        self._next_by_chat: dict[int, float] = {}
        self._paused_all = float("-inf")
        self._paused_chat: dict[int, float] = {}

    def gap(self, chat_id: int) -> float:
        return chat_gap(chat_id, private=self.chat_gap, group=self.group_gap)

    def pause(self, until: float, *, chat_id: int | None = None) -> None:
        """Nothing goes to `chat_id` — to any chat if None — before `until`; a pause only
        ever grows."""
        if chat_id is None:
            self._paused_all = max(self._paused_all, until)
            return
        now = self.clock()
        self._paused_chat = {c: t for c, t in self._paused_chat.items() if t > now}
        self._paused_chat[chat_id] = max(self._paused_chat.get(chat_id, until), until)

    def paused_until(self, chat_id: int | None = None) -> float | None:
        """When the pause of `chat_id` (or of the whole bot, if None) ends; None if none."""
        until = self._paused_all
        if chat_id is not None:
            until = max(until, self._paused_chat.get(chat_id, until))
        return until if until > self.clock() else None

    def paused_private_chats(self) -> int:
        """How many private chats are paused by a 429 right now (groups do not count)."""
        now = self.clock()
        return sum(1 for c, t in self._paused_chat.items() if c > 0 and t > now)

    def ready_at(self, chat_id: int) -> float:
        """The earliest time a message to `chat_id` may go out (its pause included)."""
        return max(
            self._next_any(),
            self._next_by_chat.get(chat_id, float("-inf")),
            self._paused_all,
            self._paused_chat.get(chat_id, self._paused_all),
        )

    async def turn(self, chat_id: int, *, by: float = float("inf")) -> float | None:
        """Wait until a message to `chat_id` may go out, book that slot and return its time:
        the caller sends right after (see `keep`), so the limits hold for what is sent.
        None, with nothing booked, if that time is later than `by` (or the chat is paused
        until then)."""
        while True:
            now = self.clock()
            ready = self.ready_at(chat_id)
            if ready > by:
                return None
            if ready <= now:
                # Checked and booked without an await in between: atomic for asyncio.
                self._book(chat_id, now)
                return now
            await self.sleep(ready - now)

    async def keep(self, chat_id: int, booked: float) -> None:
        """Right before sending in a slot booked at `booked`: if booking and send drifted
        apart by more than a third of a slot (a slow commit in between), take the next free
        slot in all instead, so the limits hold for the sends, not only for the bookings."""
        while self.clock() - booked > self.interval / 3:
            now = self.clock()
            if self._next_any() <= now:
                if booked in self._recent:  # the slot it did not use
                    self._recent.remove(booked)
                self._book(chat_id, now)
                return
            await self.sleep(self._next_any() - now)

    def _book(self, chat_id: int, now: float) -> None:
        self._recent.append(now)
        self._next_by_chat[chat_id] = now + self.gap(chat_id)
        self._forget_before(now)

    def _next_any(self) -> float:
        """When the next message in all may go: a window after the one `PER_SECOND` sends
        back, and `CATCH_UP` of a slot after the last."""
        if not self._recent:
            return float("-inf")
        after_last = self._recent[-1] + self.interval * CATCH_UP
        if len(self._recent) < (self._recent.maxlen or 1):
            return after_last
        return max(after_last, self._recent[0] + WINDOW)

    def _forget_before(self, now: float) -> None:
        if len(self._next_by_chat) > 1000:
            self._next_by_chat = {c: t for c, t in self._next_by_chat.items() if t > now}
