"""A stepped virtual clock for delivery tests and benchmarks: time moves only when every
waiter waits, and never while a read or a write on the database is still under way.

The demo's clock (`habicht.demo.clock`) moves `speed` times faster than real time, so a
commit that takes 1 ms of real time may let seconds pass at a high speed; this one makes
database work take no time at all, however slow the machine, and pacing is what it measures.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools

from habicht.db import Database

__all__ = ["SteppedClock"]


class SteppedClock:
    """A `Clock` (call it) with a `Sleep` (`await clock.sleep(s)`): the earliest wake-up goes
    first, concurrent waits do not add up, and before each step every task runs as far as it
    can and every read and write queued on `db` is done. No real time passes."""

    def __init__(self, db: Database, start: float = 1_700_000_000.0) -> None:
        self.now = start
        self.db = db
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._order = itertools.count()
        self._driver: asyncio.Task[None] | None = None

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        wake = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (self.now + max(0.0, seconds), next(self._order), wake))
        if self._driver is None or self._driver.done():
            self._driver = asyncio.create_task(self._drive())
        await wake

    async def _settle(self) -> None:
        """Let every runnable task go as far as it can, every queued write commit and every
        queued read answer: each connection runs its requests in order in its own thread, so
        an empty transaction on the writer and a `SELECT 1` on the reader come back only
        after all that was queued before them (a read still in flight on a busy machine would
        otherwise see time move under it)."""
        for _ in range(2):
            for _ in range(20):
                await asyncio.sleep(0)
            async with self.db.transaction():
                pass
            await self.db.fetchone("SELECT 1")

    async def _drive(self) -> None:
        while self._sleepers:
            await self._settle()
            if not self._sleepers:
                return
            at = self._sleepers[0][0]
            self.now = max(self.now, at)
            while self._sleepers and self._sleepers[0][0] <= at:
                wake = heapq.heappop(self._sleepers)[2]
                if not wake.done():  # a cancelled wait is skipped
                    wake.set_result(None)
