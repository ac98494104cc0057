"""Delivery: drain the outbox through a `send(chat_id, text)` callable, paced and settled.

`drain` claims a batch, sends it — one sequential worker per chat so a chat's messages
keep their order, a bounded number of chats at once — and settles every row by what
`classify` made of its error; then it claims the next batch, until nothing is due.

Delivery is at-least-once, not exactly-once: a send whose answer is lost (a timeout, a
crash between Telegram's reply and the commit that records it, or a cancel mid-send) is
sent again. The window is one send plus one small commit per message, since each row is
settled on its own, and a settle, once its send has started, runs to its end even when the
drain is cancelled.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections import Counter, deque
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, TypeVar

from habicht.clock import Clock, Sleep
from habicht.queue.policy import Dead, Fatal, Migrate, Outcome, Retry, RetryAt, backoff, classify
from habicht.queue.store import LEASE_MARGIN, Notification, NotificationStore

__all__ = [
    "ChatGoneHook",
    "ChatMigratedHook",
    "DeliveryStopped",
    "DrainSummary",
    "Pacer",
    "Send",
    "drain",
]

log = logging.getLogger(__name__)

Send = Callable[[int, str], Awaitable[object]]
"""Sends `text` (HTML) to `chat_id`; raises `telegram.error` exceptions on failure."""
ChatGoneHook = Callable[[int, str], Awaitable[object]]
"""Called with `(chat_id, reason)` when a chat cannot be written to any more."""
ChatMigratedHook = Callable[[int, int], Awaitable[object]]
"""Called with `(old_chat_id, new_chat_id)` when a group became a supergroup."""


T = TypeVar("T")

_LEAST_PAUSE = 1.0
"""A 429 pauses its chat at least this long, so `retry_after=0` cannot make a drain spin."""


class DeliveryStopped(Exception):
    """Nothing can be delivered (the bot token was rejected). The claimed rows were given
    back without spending attempts; the caller should log it and exit non-zero."""


class Pacer:
    """Telegram's limits: at most `per_second` messages in all, and at least `chat_gap`
    seconds between two messages to one chat; and the pauses a 429 imposes, on one chat or
    on the whole bot. Keep one per bot so limits and pauses hold across drains (rows queued
    after a 429 wait too); it waits through the injected `sleep`, so a fake clock never
    really waits. Pauses live in memory: after a restart the rows' `next_attempt_at` still
    holds them."""

    def __init__(
        self, *, clock: Clock, sleep: Sleep, per_second: float = 30.0, chat_gap: float = 1.0
    ) -> None:
        self.clock = clock
        self.sleep = sleep
        self.interval = 1.0 / per_second
        self.chat_gap = chat_gap
        self._next_any = float("-inf")
        self._next_by_chat: dict[int, float] = {}
        self._paused_all = float("-inf")
        self._paused_chat: dict[int, float] = {}

    def pause(self, until: float, *, chat_id: int | None = None) -> None:
        """Nothing goes to `chat_id` — to any chat if None — before `until`; a pause only
        ever grows."""
        if chat_id is None:
            self._paused_all = max(self._paused_all, until)
            return
        now = self.clock()
        self._paused_chat = {c: t for c, t in self._paused_chat.items() if t > now}
        self._paused_chat[chat_id] = max(self._paused_chat.get(chat_id, until), until)

    def paused_until(self, chat_id: int | None = None) -> float | None:
        """When the pause of `chat_id` (or of the whole bot, if None) ends; None if none."""
        until = self._paused_all
        if chat_id is not None:
            until = max(until, self._paused_chat.get(chat_id, until))
        return until if until > self.clock() else None

    async def turn(self, chat_id: int) -> None:
        """Wait until a message to `chat_id` may go out, and book that slot."""
        while True:
            now = self.clock()
            ready = max(self._next_any, self._next_by_chat.get(chat_id, now))
            if ready <= now:
                # Checked and booked without an await in between: atomic for asyncio.
                self._next_any = max(self._next_any, now) + self.interval
                self._next_by_chat[chat_id] = now + self.chat_gap
                self._forget_before(now)
                return
            await self.sleep(ready - now)

    def _forget_before(self, now: float) -> None:
        if len(self._next_by_chat) > 1000:
            self._next_by_chat = {c: t for c, t in self._next_by_chat.items() if t > now}


@dataclass(frozen=True, slots=True)
class DrainSummary:
    """What one drain did. `deferred` counts claimed rows given back unsent (a 429 or a
    paused chat, a stop, a lease too short to start a send); `flood_until` is set when the
    bot as a whole is flooded and every pending row waits until then."""

    sent: int = 0
    retried: int = 0
    dead: int = 0
    deferred: int = 0
    flood_until: float | None = None


async def drain(
    store: NotificationStore,
    send: Send,
    *,
    clock: Clock,
    sleep: Sleep,
    rand: random.Random,
    batch: int = 50,
    concurrency: int = 8,
    backoff_base: float = 60.0,
    backoff_cap: float = 3600.0,
    pacer: Pacer | None = None,
    flood_chats: int = 2,
    on_chat_gone: ChatGoneHook | None = None,
    on_chat_migrated: ChatMigratedHook | None = None,
    stop: asyncio.Event | None = None,
) -> DrainSummary:
    """Deliver every due notification; return what happened.

    Claims `batch` rows at a time until none is due, sending to at most `concurrency` chats
    at once, paced by `pacer`. A 429 pauses its chat until its `retry_after`; 429s from
    `flood_chats` different chats in one drain mean the bot is flooded: the drain stops and
    every pending row waits. The pacer remembers those pauses, so a later drain sends
    nothing to a paused chat (its rows go back, due when the pause ends) and claims nothing
    while the bot is flooded; without a given `pacer` a fresh one remembers them for this
    drain only. Raises `DeliveryStopped` on a fatal error, after giving all claimed rows
    back.

    Setting `stop` (a shutdown) ends the drain soon without cutting a send short: sends
    already started are settled, nothing new starts, and the rest is given back unsent.
    Cancelling the drain gives back every row that has not started its send, its attempt
    returned; a send cut off mid-flight may have reached Telegram, so its row keeps the
    attempt spent and is claimable at once (at-least-once). A send that finished is always
    settled, even if the cancel arrives while it is being recorded.
    """
    run = _Drain(
        store=store,
        send=send,
        clock=clock,
        rand=rand,
        batch=batch,
        limit=asyncio.Semaphore(concurrency),
        backoff_base=backoff_base,
        backoff_cap=backoff_cap,
        pacer=pacer or Pacer(clock=clock, sleep=sleep),
        flood_chats=flood_chats,
        on_chat_gone=on_chat_gone,
        on_chat_migrated=on_chat_migrated,
        stop=stop if stop is not None else asyncio.Event(),
    )
    return await run.run()


@dataclass(kw_only=True)
class _Drain:
    """The state of one drain: its settings, its counters, and whether it must stop."""

    store: NotificationStore
    send: Send
    clock: Clock
    rand: random.Random
    batch: int
    limit: asyncio.Semaphore
    backoff_base: float
    backoff_cap: float
    pacer: Pacer
    flood_chats: int
    on_chat_gone: ChatGoneHook | None
    on_chat_migrated: ChatMigratedHook | None
    stop: asyncio.Event
    # Counted with `tally.update(sent=await …)`, never `self.sent += await …`: the latter
    # reads the old value before the await, and concurrent chats would lose updates.
    tally: Counter[str] = field(default_factory=Counter)
    flood_until: float | None = None
    fatal: str | None = None
    rate_limited: set[int] = field(default_factory=set)

    @property
    def stopping(self) -> bool:
        return self.fatal is not None or self.flood_until is not None or self.stop.is_set()

    async def run(self) -> DrainSummary:
        # A flood seen by an earlier drain: claim nothing, and hold back rows queued since.
        flooded = self.pacer.paused_until()
        self.flood_until = flooded
        while not self.stopping:
            self._count_dead(await self.store.reap())
            claimed = await self.store.claim(self.batch)
            if not claimed:
                break
            by_chat: dict[int, list[Notification]] = {}
            for row in claimed:
                by_chat.setdefault(row.chat_id, []).append(row)
            workers = [asyncio.create_task(self._chat(rows)) for rows in by_chat.values()]
            try:
                await asyncio.gather(*workers)
            finally:
                # A cancelled gather returns at its first cancelled worker: wait until every
                # worker has given back its unsent rows.
                await asyncio.wait(workers)
        if self.flood_until is not None:
            await self.store.postpone(self.flood_until)
            if flooded is None:
                log.warning("the bot is flooded (429 on several chats): delivery paused")
        if self.fatal is not None:
            log.critical("delivery stopped: %s", self.fatal)
            raise DeliveryStopped(self.fatal)
        return DrainSummary(
            sent=self.tally["sent"],
            retried=self.tally["retried"],
            dead=self.tally["dead"],
            deferred=self.tally["deferred"],
            flood_until=self.flood_until,
        )

    def _may_send(self, chat_id: int) -> bool:
        return not self.stopping and self.pacer.paused_until(chat_id) is None

    async def _chat(self, rows: list[Notification]) -> None:
        """Send one chat's rows in order; whatever is left unsent is given back, due when
        the chat's (or the bot's) pause ends."""
        queue = deque(rows)
        chat_id = rows[0].chat_id
        try:  # outside the semaphore: a worker cancelled while it waits gives back its rows
            async with self.limit:
                while queue and self._may_send(chat_id):
                    row = queue[0]
                    await self.pacer.turn(chat_id)
                    lease_end = (row.lease_until or 0.0) - LEASE_MARGIN
                    if not self._may_send(chat_id) or self.clock() >= lease_end:
                        break
                    try:
                        outcome = await self._attempt(row)
                    except asyncio.CancelledError:
                        # Cut off mid-send, it may have reached Telegram: the attempt stays
                        # spent and the row is claimable at once, as after a crash.
                        queue.popleft()
                        await _finish(self.store.abandon([row]))
                        raise
                    queue.popleft()
                    await _finish(self._settle(row, outcome, queue))
        finally:
            if queue:
                until = self.pacer.paused_until(chat_id)
                released = await _finish(self.store.release(queue, until=until))
                self.tally.update(deferred=released)

    async def _attempt(self, row: Notification) -> Outcome | None:
        try:
            await self.send(row.chat_id, row.text)
        except Exception as exc:  # every failure is classified; the table names the catch-all
            outcome = classify(exc)
            if isinstance(outcome, Retry) and outcome.unexpected:
                log.error("unexpected error sending notification %d", row.id, exc_info=exc)
            return outcome
        return None

    async def _settle(
        self, row: Notification, outcome: Outcome | None, rest: deque[Notification]
    ) -> None:
        """Record what happened to `row`; a chat-wide outcome also settles the chat's `rest`."""
        store = self.store
        match outcome:
            case None:
                self.tally.update(sent=await store.mark_sent([row]))
            case Retry(error=error) if row.attempts >= row.max_attempts:
                await self._bury([row], "attempts_exhausted", error)
            case Retry(error=error):
                delay = backoff(
                    row.attempts, base=self.backoff_base, cap=self.backoff_cap, rand=self.rand
                )
                at = self.clock() + delay
                self.tally.update(retried=await store.mark_retry(row, at=at, error=error))
            case RetryAt(delay=delay):
                # The pause first: the chat's `rest` and other chats see it at once; `rest`
                # goes back when this chat's worker ends, due when the pause does.
                until = self.clock() + max(delay, _LEAST_PAUSE)
                self._rate_limited(row.chat_id, until)
                self.tally.update(deferred=await store.release([row], until=until))
                await store.postpone(until, chat_id=row.chat_id)
            case Dead(error=error, reason=reason, chat_gone=True):
                await self._bury([row, *rest], reason, error)
                rest.clear()
                self._count_dead(await store.bury_chat(row.chat_id, reason=reason, error=error))
                await self._hook(self.on_chat_gone, row.chat_id, reason)
            case Dead(error=error, reason=reason):
                await self._bury([row], reason, error)
            case Migrate(error=error, new_chat_id=new_chat_id):
                if row.attempts >= row.max_attempts:  # a chat "migrating" on every try
                    await self._bury([row], "attempts_exhausted", error)
                else:  # at once, to the new id; the attempt stays spent, so a loop ends
                    await store.mark_retry(row, at=self.clock(), error=error)
                await store.migrate_chat(row.chat_id, new_chat_id)
                await self._hook(self.on_chat_migrated, row.chat_id, new_chat_id)
                self.tally.update(deferred=await store.release(rest))  # reclaimed with the new id
                rest.clear()
            case Fatal(error=error):
                self.fatal = error
                self.tally.update(deferred=await store.release([row]))

    def _rate_limited(self, chat_id: int, until: float) -> None:
        self.pacer.pause(until, chat_id=chat_id)
        self.rate_limited.add(chat_id)
        if len(self.rate_limited) >= self.flood_chats:
            self.flood_until = max(self.flood_until or until, until)
            self.pacer.pause(self.flood_until)

    def _count_dead(self, rows: list[Notification]) -> None:
        """Count and log rows the store returned dead (reaped, or buried with their chat)."""
        self.tally.update(dead=len(rows))
        for row in rows:
            self._dead(row, row.dead_reason or "", row.last_error or "")

    async def _bury(self, rows: list[Notification], reason: str, error: str) -> None:
        self.tally.update(dead=await self.store.mark_dead(rows, reason=reason, error=error))
        for row in rows:
            self._dead(row, reason, error)

    @staticmethod
    def _dead(row: Notification, reason: str, error: str) -> None:
        log.warning(
            "notification %d to chat %d is dead (%s): %s", row.id, row.chat_id, reason, error
        )

    @staticmethod
    async def _hook(hook: Callable[..., Awaitable[object]] | None, *args: object) -> None:
        """Run a hook; its failure is logged, never allowed to stop delivery."""
        if hook is None:
            return
        try:
            await hook(*args)
        except Exception:
            log.exception("delivery hook %r failed", hook)


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
