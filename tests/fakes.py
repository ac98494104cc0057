"""Fakes shared by the tests: plain objects, no mocks."""

from __future__ import annotations

import asyncio
import heapq
import itertools

from habicht.db import Database


class FakeClock:
    """A clock that only moves when told; `sleep` advances it instead of waiting."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self.now = start
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += max(0.0, seconds)


class SteppedClock:
    """Virtual time for tests with concurrent waiters and a real database: `sleep` waits its
    turn — the earliest wake-up goes first, concurrent waits do not add up — and the time
    moves only after every write queued on `db` has committed, so a send in flight lands at
    the time it was sent, however slow the machine. No real time passes."""

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
        """Let every runnable task go as far as it can, and every queued write commit."""
        for _ in range(3):
            for _ in range(20):
                await asyncio.sleep(0)
            async with self.db.transaction():
                pass

    async def _drive(self) -> None:
        while self._sleepers:
            await self._settle()
            at, _, wake = heapq.heappop(self._sleepers)
            if wake.done():  # a cancelled wait moves no time
                continue
            self.now = max(self.now, at)
            wake.set_result(None)
