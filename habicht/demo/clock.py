"""The demo's clock: virtual time that moves only when something sleeps, `speed` times faster
than real time.

Everything in the demo — the outbox's due times, the backoffs, a 429's `retry_after`, the
pacer, willhaben's fetch gap, the scrape and drain intervals — reads this clock and waits
through its `sleep`, so a 60 s backoff really is 60 s on the record yet passes in 60/`speed`
real seconds. Time does not move while the pipeline works (only while it waits), so the
story the demo prints is the same on a fast machine and a slow one.
"""

from __future__ import annotations

import asyncio

__all__ = ["VirtualClock"]


class VirtualClock:
    """A `Clock` (call it) with a `Sleep` (`await clock.sleep(s)`), starting at `start`.

    Concurrent sleepers do not add up: each one moves the time to at least its own wake-up
    time, as on a real clock, so two chats paced one second apart at once take one second.
    """

    def __init__(self, start: float, *, speed: float) -> None:
        if not speed > 0:
            raise ValueError(f"speed must be a positive number, got {speed!r}")
        self.start = start
        self.now = start
        self.speed = speed

    def __call__(self) -> float:
        return self.now

    def jump(self, to: float) -> None:
        """Move the time forward to `to` at once: the hours of a night nobody waits through."""
        self.now = max(self.now, to)

    async def sleep(self, seconds: float) -> None:
        wake = self.now + max(0.0, seconds)
        await asyncio.sleep(max(0.0, seconds) / self.speed)
        self.now = max(self.now, wake)
