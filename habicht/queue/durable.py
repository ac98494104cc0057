"""Writes that must not be lost: run to their end through a cancel.

A started send's outcome must be recorded, or the message would be sent again: `_finish`
shields the write from the caller's cancel and re-raises it once the write is done.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

from habicht.clock import Sleep

__all__: list[str] = []

T = TypeVar("T")


async def _sleeping(sleep: Sleep, seconds: float) -> None:
    """`sleep` as a coroutine, which a task needs (a `Sleep` returns any awaitable)."""
    await sleep(seconds)


async def _finish(work: Coroutine[Any, Any, T]) -> T:
    """Run `work` to its end even if the caller is cancelled meanwhile, then re-raise the
    cancel: a started send's outcome must be recorded, or it would be sent again."""
    task = asyncio.ensure_future(work)
    cancelled = False
    while not task.done():
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            cancelled = True
    if cancelled:
        raise asyncio.CancelledError
    return task.result()
