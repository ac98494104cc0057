"""Delivery without the outbox, for the few messages the outbox cannot hold.

Every message habicht sends is an outbox row first (`store`), durable before it goes out —
except a notice that the outbox cannot be written: the database refusing writes is what it
tells of (`habicht.storage`). `DirectLine` keeps such messages in memory and sends them
straight through `send`, one after the other in the order they came, each retried until
Telegram takes it: a 429 waits its `retry_after` (and pauses that chat in the shared
`Pacer`, which keeps these sends inside the limits the drain keeps), any other transient
error waits the queue's backoff, with no limit of attempts or time. An answer no retry
changes — the chat blocked the bot, a rejected token — drops that message, logged.

What "never lost" can honestly mean without a disk: nothing drops a message while the process
lives. Memory does not outlive the process: a message still waiting when habicht ends is
gone, and the stop logs it at WARNING with its text. (A restarted habicht whose database
still refuses writes finds the fault again and tells it again; one whose database works
again has no fault to tell of, and the end of the old one goes untold.)
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections import deque
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from habicht.clock import Clock, Sleep
from habicht.message import Message
from habicht.queue.deliver import Send
from habicht.queue.pacing import Pacer
from habicht.queue.policy import Migrate, Retry, RetryAt, backoff, classify

__all__ = ["DIRECT", "DirectLine"]

log = logging.getLogger(__name__)

DIRECT = "direct"
"""The name of the line's task: a shutdown gives it the grace it gives drains."""

_LEAST_PAUSE = 1.0
"""A 429 waits at least this long, so `retry_after=0` cannot make the line spin."""


class DirectLine:
    """Messages kept in memory and sent through `send` until Telegram takes each (see the
    module docstring). `post` never waits; the sending runs in a task named `DIRECT`, added
    to `tasks` while it runs, so the bot's shutdown can wait for it like for a drain."""

    def __init__(
        self,
        send: Send,
        *,
        pacer: Pacer,
        clock: Clock,
        sleep: Sleep,
        rand: random.Random,
        backoff_base: float,
        backoff_cap: float,
        tasks: set[asyncio.Task[Any]],
    ) -> None:
        self.send = send
        self.pacer = pacer
        self.clock = clock
        self.sleep = sleep
        self.rand = rand
        self.backoff_base = backoff_base
        self.backoff_cap = backoff_cap
        self.tasks = tasks
        self._waiting: deque[Message] = deque()
        self._task: asyncio.Task[None] | None = None

    @property
    def waiting(self) -> list[Message]:
        """The messages not yet taken by Telegram, the one being sent first."""
        return list(self._waiting)

    def post(self, messages: Iterable[Message]) -> None:
        """Send `messages` after those already waiting."""
        self._waiting.extend(messages)
        if self._waiting and (self._task is None or self._task.done()):
            self._task = asyncio.get_running_loop().create_task(self._run(), name=DIRECT)
            self.tasks.add(self._task)
            self._task.add_done_callback(self.tasks.discard)

    def close(self) -> None:
        """Stop sending; what still waits is gone with the process, each logged."""
        if self._task is not None:
            self._task.cancel()
        for message in self._waiting:
            log.warning(
                "not confirmed sent before the stop, a message to chat %d: %s",
                message.chat_id,
                message.text,
            )
        self._waiting.clear()

    async def _run(self) -> None:
        while self._waiting:
            message = self._waiting[0]
            await self._deliver(message)
            # `close` may have dropped it meanwhile, its cancellation lost on the way (as
            # `asyncio.wait_for` loses one that races its result): then nothing is left to do.
            if self._waiting and self._waiting[0] is message:
                self._waiting.popleft()

    async def _deliver(self, message: Message) -> None:
        """Until Telegram takes `message`, or refuses it for good."""
        attempt = 0
        while True:
            await self.pacer.turn(message.chat_id)
            try:
                await self.send(message)
                return
            except Exception as exc:  # classified: the queue's table names the catch-all
                outcome = classify(exc)
            match outcome:
                case RetryAt(delay=delay):
                    until = self.clock() + max(delay, _LEAST_PAUSE)
                    self.pacer.pause(until, chat_id=message.chat_id)
                case Retry(error=error):
                    attempt += 1
                    wait = backoff(
                        attempt, base=self.backoff_base, cap=self.backoff_cap, rand=self.rand
                    )
                    log.info(
                        "a message to chat %d failed (%s): again in %.0f s",
                        message.chat_id,
                        error,
                        wait,
                    )
                    await self.sleep(wait)
                case Migrate(new_chat_id=new_chat_id):
                    message = replace(message, chat_id=new_chat_id)
                case _:
                    log.warning(
                        "a message to chat %d cannot be sent (%s): %s",
                        message.chat_id,
                        outcome.error,
                        message.text,
                    )
                    return
