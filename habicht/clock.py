"""Time as an injected dependency: every time-dependent function takes a `Clock` (and, where it
waits, a `Sleep`) so tests move a fake clock instead of sleeping or patching `time`."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

__all__ = ["Clock", "Sleep", "system_clock", "system_sleep"]

Clock = Callable[[], float]
"""Returns the current time as Unix epoch seconds."""

Sleep = Callable[[float], Awaitable[None]]
"""Waits the given number of seconds."""

system_clock: Clock = time.time
system_sleep: Sleep = asyncio.sleep
