"""A drain's writes: tried until they go through, and run to their end through a cancel.

A commit the database refuses (a storage fault: `habicht.storage`) is tried again after a
growing pause for as long as it takes (`Writes.commit`), so what the drain holds in memory —
claimed rows, a send's outcome — is recorded once. A started send's outcome must be recorded,
or the message would be sent again: `finish` shields a write from the caller's cancel and
re-raises the cancel once the write is done.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, TypeVar

from habicht.clock import Sleep
from habicht.storage import fault_kind, pause

__all__ = ["Writes", "finish", "sleeping"]

T = TypeVar("T")


async def sleeping(sleep: Sleep, seconds: float) -> None:
    """`sleep` as a coroutine, which a task needs (a `Sleep` returns any awaitable)."""
    await sleep(seconds)


async def finish(work: Coroutine[Any, Any, T]) -> T:
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


@dataclass(kw_only=True)
class Writes:
    """How a drain commits: `sleep` paces the tries, `on_pause` is called before each pause
    (the bot tells its watchdog: a drain waiting for the disk is not stuck)."""

    sleep: Sleep
    on_pause: Callable[[], object] | None
    cut: asyncio.Event = field(default_factory=asyncio.Event)
    """Set when the drain is cancelled: a commit waiting out a storage fault gives up."""

    async def commit(self, write: Callable[[], Coroutine[Any, Any, T]]) -> T:
        """`write` — one of the store's commits — until it goes through: a storage fault is
        waited out, a growing pause between tries, however long it lasts (the module docstring).
        Only a cut-off drain stops waiting, with the error; any other error is raised at
        once."""
        refused = 0
        while True:
            try:
                return await write()
            except Exception as exc:
                if fault_kind(exc) is None or self.cut.is_set():
                    raise
                refused += 1
                if self.on_pause is not None:
                    self.on_pause()
                if not await self._pause(pause(refused)):
                    raise

    async def _pause(self, seconds: float) -> bool:
        """Wait `seconds`; False if the drain was cut off first."""
        nap = asyncio.create_task(sleeping(self.sleep, seconds))
        cut = asyncio.create_task(self.cut.wait())
        try:
            await asyncio.wait({nap, cut}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            nap.cancel()
            cut.cancel()
        if nap.done() and not nap.cancelled():
            nap.result()  # a `sleep` that failed
        return not self.cut.is_set()
