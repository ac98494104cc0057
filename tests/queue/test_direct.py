"""The direct line (issue 27): messages the outbox cannot hold, sent from memory in order, each
retried until Telegram takes it — and what is lost when the process stops first."""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import random
from typing import Any

import pytest
from kit import within
from kit.fakes import FakeClock
from telegram.error import Forbidden, NetworkError, RetryAfter

from habicht.message import Message
from habicht.queue import Pacer
from habicht.queue.direct import DIRECT, DirectLine


class Telegram:
    """The far end: answers each try from a script of errors, else takes the message."""

    def __init__(self, clock: FakeClock, *errors: Exception) -> None:
        self.clock = clock
        self.errors = list(errors)
        self.tries: list[tuple[float, int, str]] = []
        self.taken: list[str] = []
        self.asked = asyncio.Event()
        self.hold: asyncio.Event | None = None

    async def send(self, message: Message) -> None:
        self.tries.append((self.clock.now, message.chat_id, message.text))
        self.asked.set()
        if self.hold is not None:
            await self.hold.wait()
        if self.errors:
            raise self.errors.pop(0)
        self.taken.append(message.text)


def line(clock: FakeClock, telegram: Telegram, tasks: set[asyncio.Task[Any]]) -> DirectLine:
    return DirectLine(
        telegram.send,
        pacer=Pacer(clock=clock, sleep=clock.sleep),
        clock=clock,
        sleep=clock.sleep,
        rand=random.Random(3),
        backoff_base=60,
        backoff_cap=3600,
        tasks=tasks,
    )


async def _sent(direct: DirectLine, tasks: set[asyncio.Task[Any]]) -> None:
    """Until the line's task is done."""
    await within(asyncio.gather(*tasks), "the direct line to finish")
    assert direct.waiting == []


async def test_messages_go_in_order_each_retried_until_taken(clock: FakeClock) -> None:
    """Two 5xx answers, then the first message is taken; the second follows it. No limit of
    attempts or time: the backoff grows as the queue's does."""
    telegram = Telegram(clock, NetworkError("Bad Gateway"), NetworkError("Bad Gateway"))
    tasks: set[asyncio.Task[Any]] = set()
    direct = line(clock, telegram, tasks)
    direct.post([Message(1, "full"), Message(1, "again")])
    assert [task.get_name() for task in tasks] == [DIRECT]
    await _sent(direct, tasks)
    assert telegram.taken == ["full", "again"]
    times = [at for at, _, text in telegram.tries if text == "full"]
    assert len(times) == 3
    assert 0 < times[1] - times[0] <= 60
    assert times[2] > times[1]


async def test_a_429_waits_its_retry_after(clock: FakeClock) -> None:
    """Telegram's flood answer: the next try comes exactly `retry_after` later."""
    telegram = Telegram(clock, RetryAfter(dt.timedelta(seconds=30)))
    tasks: set[asyncio.Task[Any]] = set()
    direct = line(clock, telegram, tasks)
    direct.post([Message(1, "full")])
    await _sent(direct, tasks)
    (first, *_), (second, *_) = telegram.tries
    assert second - first == 30
    assert telegram.taken == ["full"]


async def test_an_owner_who_blocked_the_bot_costs_that_message_only(
    clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    """A refusal no retry changes drops the message, logged with its text; the next goes."""
    telegram = Telegram(clock, Forbidden("Forbidden: bot was blocked by the user"))
    tasks: set[asyncio.Task[Any]] = set()
    direct = line(clock, telegram, tasks)
    direct.post([Message(1, "full"), Message(2, "full")])
    await _sent(direct, tasks)
    assert [chat for _, chat, _ in telegram.tries] == [1, 2]
    assert telegram.taken == ["full"]
    assert "a message to chat 1 cannot be sent (Forbidden: bot was blocked" in caplog.text


async def test_what_waits_when_the_process_stops_is_lost_and_logged(
    clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    """Memory does not outlive the process: a message not yet taken when the line closes is
    gone — each one logged at WARNING with its text, the honest limit of "never lost"."""
    telegram = Telegram(clock)
    telegram.hold = asyncio.Event()  # Telegram does not answer
    tasks: set[asyncio.Task[Any]] = set()
    direct = line(clock, telegram, tasks)
    direct.post([Message(1, "first"), Message(1, "second")])
    await within(telegram.asked.wait(), "the first try")
    assert len(telegram.tries) == 1
    direct.close()
    with pytest.raises(asyncio.CancelledError):
        await within(asyncio.gather(*tasks), "the line's task to end")
    assert telegram.taken == []
    lost = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert lost == [
        "not confirmed sent before the stop, a message to chat 1: first",
        "not confirmed sent before the stop, a message to chat 1: second",
    ]


async def test_a_stop_while_a_send_returns_ends_the_line_quietly(clock: FakeClock) -> None:
    """The stop comes while Telegram is answering and the cancellation is lost on the way (as
    `asyncio.wait_for` loses one that races its result): the line ends without an error — no
    `IndexError` from taking a message the stop already dropped — and sends nothing more."""
    tasks: set[asyncio.Task[Any]] = set()
    telegram = Telegram(clock)
    direct = line(clock, telegram, tasks)

    async def send_then_stop(message: Message) -> None:
        await telegram.send(message)
        direct.close()
        try:  # the answer is ready as the stop's cancellation comes: swallowed, as wait_for does
            await asyncio.sleep(0)
        except asyncio.CancelledError:
            asyncio.current_task().uncancel()  # type: ignore[union-attr]

    direct.send = send_then_stop
    direct.post([Message(chat_id=1, text="a"), Message(chat_id=1, text="b")])
    [task] = tasks
    await within(asyncio.wait([task]), "the direct line to end")
    assert task.exception() is None
    assert (telegram.taken, direct.waiting) == (["a"], [])
