"""The in-process watchdog: exits when a job stops beating, checked without sleeping."""

from __future__ import annotations

import logging
import threading

import pytest
from kit.fakes import FakeClock

from habicht.config import Settings
from habicht.watchdog import EXIT_STALLED, MIN_STALL, Watchdog, stall_thresholds


class Exits:
    """Records exit codes instead of ending the test process."""

    def __init__(self) -> None:
        self.codes: list[int] = []
        self.called = threading.Event()

    def __call__(self, code: int) -> None:
        self.codes.append(code)
        self.called.set()


def test_beats_in_time_keep_it_quiet() -> None:
    """Jobs that beat within their thresholds never trigger an exit."""
    clock, exits = FakeClock(), Exits()
    dog = Watchdog({"scrape": 30, "drain": 10}, clock=clock, exit=exits)
    for _ in range(10):
        clock.advance(9)
        dog.beat("scrape")
        dog.beat("drain")
        assert dog.check()
    assert exits.codes == []


def test_a_silent_job_exits_non_zero(caplog: pytest.LogCaptureFixture) -> None:
    """A job silent for longer than its threshold logs CRITICAL and exits EXIT_STALLED."""
    clock, exits = FakeClock(), Exits()
    dog = Watchdog({"scrape": 30, "drain": 10}, clock=clock, exit=exits)
    clock.advance(10)
    assert dog.check()
    clock.advance(0.5)
    with caplog.at_level(logging.CRITICAL):
        assert not dog.check()
    assert exits.codes == [EXIT_STALLED]
    assert EXIT_STALLED != 0
    assert "no drain cycle finished or progressed for 10 s" in caplog.text


def test_one_busy_job_does_not_hide_a_stalled_one() -> None:
    """Beats of one job do not count for another."""
    clock, exits = FakeClock(), Exits()
    dog = Watchdog({"scrape": 30, "drain": 10}, clock=clock, exit=exits)
    for _ in range(7):
        clock.advance(5)
        dog.beat("drain")
    assert "no scrape cycle finished or progressed for 35 s" in (dog.stalled() or "")


def test_the_thread_checks_on_its_own() -> None:
    """Started, the watchdog's thread notices a stall without anyone calling check()."""
    clock, exits = FakeClock(), Exits()
    with Watchdog({"scrape": 1}, clock=clock, exit=exits, interval=0.01):
        clock.advance(2)
        assert exits.called.wait(timeout=10)
    assert exits.codes == [EXIT_STALLED]


def test_stop_ends_the_thread_without_an_exit() -> None:
    """A graceful shutdown after a long silence is not taken for a stall: `stop` ends the
    thread without a last check. The thread checks only every hour here, so the silence
    (past the threshold before `stop`) is seen by no check but one made on the way out."""
    clock, exits = FakeClock(), Exits()
    before = set(threading.enumerate())
    dog = Watchdog({"scrape": 1}, clock=clock, exit=exits, interval=3600).start()
    [thread] = set(threading.enumerate()) - before
    clock.advance(100)
    dog.stop()
    assert not thread.is_alive()
    assert exits.codes == []


def test_the_exit_comes_even_if_logging_fails() -> None:
    """A log handler that raises while the stall is logged does not keep the process alive."""
    clock, exits = FakeClock(), Exits()
    dog = Watchdog({"scrape": 1}, clock=clock, exit=exits)
    clock.advance(2)
    logger = logging.getLogger("habicht.watchdog")

    def broken(record: logging.LogRecord) -> bool:
        raise OSError("stderr is gone")

    logger.addFilter(broken)
    try:
        with pytest.raises(OSError, match="stderr is gone"):
            dog.check()
    finally:
        logger.removeFilter(broken)
    assert exits.codes == [EXIT_STALLED]


def test_thresholds_follow_the_intervals_with_a_floor() -> None:
    """3 intervals per job, never below MIN_STALL."""
    assert stall_thresholds(Settings(scrape_interval=300, queue_interval=30)) == {
        "scrape": 900,
        "drain": MIN_STALL,
    }
    assert stall_thresholds(Settings(scrape_interval=1, queue_interval=1))["scrape"] == MIN_STALL
