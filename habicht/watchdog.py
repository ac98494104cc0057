"""An in-process watchdog: exit when the cycles stop, so the restart policy can act.

Docker restarts a container that exited, not one that is merely unhealthy. A process whose
event loop is stuck (a blocking call, a deadlock) or whose JobQueue stopped firing would
otherwise sit there forever, healthy-looking from the outside. The jobs `beat(job)` each time
a run finishes or gets somewhere (a scrape after each search, a drain after each send); a
daemon *thread* — not a task, which a stuck loop would never run — calls `check()` every few
seconds, and when a job has not beaten for longer than its threshold it logs CRITICAL and
ends the process with `os._exit(EXIT_STALLED)`: a stuck loop cannot run a
graceful shutdown, and `sys.exit` in a thread would end only the thread. Nothing is lost by
the hard exit: every alert is in the outbox, and an interrupted send's lease expires.

Thresholds (keep in sync with docs/operating.md): per job, the larger of 3 * its interval
and `MIN_STALL` seconds, so a long scrape cycle of many searches or a large drain is not
taken for a stall.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Mapping
from types import TracebackType
from typing import Self

from habicht.clock import Clock
from habicht.config import Settings

__all__ = ["EXIT_STALLED", "MIN_STALL", "Watchdog", "stall_thresholds"]

log = logging.getLogger(__name__)

EXIT_STALLED = 3
MIN_STALL = 300.0


def stall_thresholds(settings: Settings) -> dict[str, float]:
    """Seconds without a beat after which each job counts as stalled."""
    return {
        "scrape": max(3 * settings.scrape_interval, MIN_STALL),
        "drain": max(3 * settings.queue_interval, MIN_STALL),
    }


class Watchdog:
    """Watches the jobs' beats from a daemon thread; see the module docstring.

    Every job counts as having beaten when the watchdog was created, so a process that never
    completes its first cycle is caught too. `clock` defaults to the monotonic clock (a wall
    clock jump must not kill the bot); `exit` is the seam tests replace.
    """

    def __init__(
        self,
        thresholds: Mapping[str, float],
        *,
        clock: Clock = time.monotonic,
        exit: Callable[[int], object] = os._exit,
        interval: float = 5.0,
    ) -> None:
        self._thresholds = dict(thresholds)
        self._clock = clock
        self._exit = exit
        self._interval = interval
        started = clock()
        self._beats = {job: started for job in self._thresholds}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def beat(self, job: str) -> None:
        """`job` finished a run (or made progress worth counting); thread-safe."""
        with self._lock:
            self._beats[job] = self._clock()

    def stalled(self) -> str | None:
        """A sentence naming the stalled job, or None while every job beats in time."""
        now = self._clock()
        with self._lock:
            beats = dict(self._beats)
        for job, threshold in self._thresholds.items():
            silent = now - beats[job]
            if silent > threshold:
                return (
                    f"no {job} cycle finished or progressed for {silent:.0f} s"
                    f" (limit {threshold:g} s)"
                )
        return None

    def check(self) -> bool:
        """Exit the process if a job stalled (what the thread runs); True while all is well."""
        problem = self.stalled()
        if problem is None:
            return True
        try:
            log.critical("watchdog: %s; exiting so the restart policy restarts habicht", problem)
            sys.stderr.flush()
        finally:  # a log handler that fails must not keep a stalled process alive
            self._exit(EXIT_STALLED)
        return False

    def start(self) -> Self:
        if self._thread is None:
            self._thread = threading.Thread(target=self._watch, name="watchdog", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        """Stop watching (a graceful shutdown must not be taken for a stall)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def _watch(self) -> None:
        while not self._stop.wait(self._interval):
            if not self.check():
                return

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
