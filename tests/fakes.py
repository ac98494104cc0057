"""Fakes shared by the tests: plain objects, no mocks."""

from __future__ import annotations


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
