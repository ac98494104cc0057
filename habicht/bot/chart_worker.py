"""Where charts are drawn: one worker thread beside the event loop, and a cache of what it drew.

A chart costs about 0.1 to 0.3 s of one core (benchmarks/charts.py). Drawn on the event loop it
would hold up every other chat for that long; drawn in the default executor, twenty /history
at once could take all its threads. So charts get a thread of their own — one: on a two-core
machine the other core stays with the event loop, and matplotlib's drawing holds the GIL
most of the time anyway, so a second thread would draw no faster. At most `MAX_WAITING`
charts wait for it; a chart asked for beyond that is not drawn (the caller sends its text
alone), so a burst is answered within seconds instead of queueing without end.

What it drew is kept in a least-recently-used cache of `MAX_CACHED` PNGs (≈ 20 to 50 KB each:
at most ≈ 6 MB), under the caller's key: an advert's or a search's, with the day (Vienna's)
and the chat's language, so a chart is drawn at most once a day for each (and again when the
advert's price changes: its key names its last price). A drawing that fails is logged and
counts as none drawn: the caller's text still goes out.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Callable, Hashable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec

__all__ = ["MAX_CACHED", "MAX_WAITING", "ChartWorker"]

log = logging.getLogger(__name__)

P = ParamSpec("P")

MAX_CACHED = 128
"""PNGs the cache keeps (the least recently used goes first)."""
MAX_WAITING = 32
"""Charts that may wait for the worker at once (≈ 3 to 6 s of drawing); one more is not
drawn."""


class ChartWorker:
    """Draws charts in its own thread (started on first use, stopped by `close`) and caches
    them; `drawn`, `hits` and `refused` count what happened, for tests and /stats."""

    def __init__(self, *, max_cached: int = MAX_CACHED, max_waiting: int = MAX_WAITING) -> None:
        if max_cached < 1 or max_waiting < 1:
            raise ValueError(
                f"a chart worker needs room for a chart: max_cached={max_cached},"
                f" max_waiting={max_waiting}"
            )
        self.max_cached, self.max_waiting = max_cached, max_waiting
        self._cache: OrderedDict[Hashable, bytes] = OrderedDict()
        self._executor: ThreadPoolExecutor | None = None
        self._waiting = 0
        self._drawing: dict[Hashable, asyncio.Future[bytes | None]] = {}
        self.drawn = 0
        """Charts drawn (not from the cache)."""
        self.hits = 0
        """Charts answered from the cache."""
        self.refused = 0
        """Charts not drawn because `max_waiting` were waiting already."""

    @property
    def executor(self) -> ThreadPoolExecutor:
        """The one thread charts are drawn in (a test may queue work on it to hold it)."""
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="charts")
        return self._executor

    def cached(self, key: Hashable) -> bytes | None:
        """The chart drawn under `key`, if the cache still has it."""
        png = self._cache.get(key)
        if png is not None:
            self._cache.move_to_end(key)
            self.hits += 1
        return png

    async def draw(
        self,
        key: Hashable,
        draw: Callable[P, bytes | None],
        *args: P.args,
        **kwargs: P.kwargs,
    ) -> bytes | None:
        """`draw(*args, **kwargs)` in the worker thread, its PNG cached under `key`; None when
        it draws nothing, fails (logged) or `max_waiting` charts wait already. A chart asked
        for again while it is being drawn is drawn once: both get it."""
        running = self._drawing.get(key)
        if running is None:
            if self._waiting >= self.max_waiting:
                self.refused += 1
                log.warning("%d charts wait to be drawn: this one is not", self._waiting)
                return None
            self._waiting += 1
            running = asyncio.ensure_future(self._draw(key, lambda: draw(*args, **kwargs)))
            self._drawing[key] = running
        # Shielded: one asker giving up (its update's task cancelled) leaves it for the others.
        return await asyncio.shield(running)

    async def _draw(self, key: Hashable, draw: Callable[[], bytes | None]) -> bytes | None:
        try:
            png = await asyncio.get_running_loop().run_in_executor(self.executor, draw)
        except Exception:
            log.exception("a chart could not be drawn (%r)", key)
            return None
        finally:
            self._waiting -= 1
            del self._drawing[key]
        if png is None:
            return None
        self.drawn += 1
        self._cache[key] = png
        self._cache.move_to_end(key)
        while len(self._cache) > self.max_cached:
            self._cache.popitem(last=False)
        return png

    @property
    def waiting(self) -> int:
        """Charts waiting for (or being drawn by) the worker now."""
        return self._waiting

    def close(self) -> None:
        """Stop the thread after the chart it draws (waiting ones are dropped); the next use
        starts a new one. Safe to call twice."""
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None
