"""Delivery: drain the outbox through a `send(message)` callable, paced and settled.

`drain` is a pipeline, not a series of batches. Each claimed row — at most one per chat,
claimed when its turn is due (see `store`, "Fair turns") — gets a flight of its own that
waits for its pacer turn, then sends and settles it; the rows still waiting are the *hand*.
Whichever row's chat the pacer lets through first goes first, so a chat waiting out its gap
never holds up another chat, and a chat's backlog never holds up a chat with one message.
As flights land, their chats are free again and the drain claims their next rows; it ends
when nothing is in flight and nothing is due within `LINGER` seconds.

An attempt is spent by a send that started, never by a claim: right before each send, one
small commit (`store.start`) counts it. A cancel or a stop gives back every row in hand
unspent; after a crash, the restart does the same (`take_over_leases`).

Delivery is at-least-once, not exactly-once: a send whose answer is lost (a timeout, a crash
between Telegram's reply and the commit that records it, or a cancel mid-send) is sent again.
The window is one send plus one small commit per message, since each row is settled on its
own, and a settle, once its send has started, runs to its end even when the drain is
cancelled. (A digest — several rows of one chat in one message — would claim them together
with `per_chat`, `start` them together and settle them together: the unit of a send is the
rows of one chat in hand.)
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections import Counter
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, TypeVar

from habicht.clock import Clock, Sleep
from habicht.queue.pacing import Pacer
from habicht.queue.policy import Dead, Fatal, Migrate, Outcome, Retry, RetryAt, backoff, classify
from habicht.queue.store import LEASE_MARGIN, Message, Notification, NotificationStore

__all__ = [
    "ChatGoneHook",
    "ChatMigratedHook",
    "DeliveryStopped",
    "DrainSummary",
    "Send",
    "TopicGoneHook",
    "drain",
]

log = logging.getLogger(__name__)

Send = Callable[[Message], Awaitable[object]]
"""Sends one message as it was queued; raises `telegram.error` exceptions on failure."""
ChatGoneHook = Callable[[int, str], Awaitable[object]]
"""Called with `(chat_id, reason)` when a chat cannot be written to any more."""
TopicGoneHook = Callable[[int, int, str], Awaitable[object]]
"""Called with `(chat_id, thread_id, reason)` when a forum topic was deleted or closed: only
what goes to that topic is affected, not the rest of the chat."""
ChatMigratedHook = Callable[[int, int], Awaitable[object]]
"""Called with `(old_chat_id, new_chat_id)` when a group became a supergroup."""


T = TypeVar("T")

_LEAST_PAUSE = 1.0
"""A 429 pauses its chat at least this long, so `retry_after=0` cannot make a drain spin."""

LINGER = 5.0
"""A drain with nothing in hand waits for a row due within this many seconds rather than
ending: a backlog's next turn is at most a group's gap (3.1 s) away."""

_REAP_EVERY = 60.0
"""Seconds between two reaps of a long drain (each drain also reaps when it starts)."""


class DeliveryStopped(Exception):
    """Nothing can be delivered (the bot token was rejected). The claimed rows were given
    back without spending attempts; the caller should log it and exit non-zero."""


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
    backoff_base: float = 60.0,
    backoff_cap: float = 3600.0,
    pacer: Pacer | None = None,
    flood_chats: int = 2,
    on_chat_gone: ChatGoneHook | None = None,
    on_chat_migrated: ChatMigratedHook | None = None,
    on_topic_gone: TopicGoneHook | None = None,
    stop: asyncio.Event | None = None,
) -> DrainSummary:
    """Deliver every due notification; return what happened.

    Holds at most `batch` claimed rows (in hand or in flight), one per chat, and sends them
    as `pacer` allows: fairly across chats, each chat's in the order they were queued. A 429
    pauses its chat until its `retry_after` — a group's pauses that group only; 429s on
    `flood_chats` private chats paused at once mean the bot is flooded: the drain stops and
    every pending row waits. A row whose forum topic is gone is dead and `on_topic_gone` is
    told; the chat's other rows go on. The pacer remembers those pauses, so a later drain sends
    nothing to a paused chat (its rows go back, due when the pause ends) and claims nothing
    while the bot is flooded; without a given `pacer` a fresh one remembers them for this
    drain only. Raises `DeliveryStopped` on a fatal error, after giving all claimed rows
    back.

    Setting `stop` (a shutdown) ends the drain soon without cutting a send short: sends
    already started are settled, nothing new starts, and the rest is given back unsent.
    Cancelling the drain gives back every row that has not started its send, nothing spent;
    a send cut off mid-flight may have reached Telegram, so its row keeps the attempt spent
    and is claimable at once (at-least-once). A send that finished is always settled, even
    if the cancel arrives while it is being recorded.
    """
    run = _Drain(
        store=store,
        send=send,
        clock=clock,
        rand=rand,
        batch=batch,
        backoff_base=backoff_base,
        backoff_cap=backoff_cap,
        pacer=pacer or Pacer(clock=clock, sleep=sleep),
        sleep=sleep,
        flood_chats=flood_chats,
        on_chat_gone=on_chat_gone,
        on_chat_migrated=on_chat_migrated,
        on_topic_gone=on_topic_gone,
        stop=stop if stop is not None else asyncio.Event(),
    )
    return await run.run()


@dataclass(kw_only=True)
class _Drain:
    """The state of one drain: its settings, its counters and its flights."""

    store: NotificationStore
    send: Send
    clock: Clock
    sleep: Sleep
    rand: random.Random
    batch: int
    backoff_base: float
    backoff_cap: float
    pacer: Pacer
    flood_chats: int
    on_chat_gone: ChatGoneHook | None
    on_chat_migrated: ChatMigratedHook | None
    on_topic_gone: TopicGoneHook | None
    stop: asyncio.Event
    # Counted with `tally.update(sent=await …)`, never `self.sent += await …`: the latter
    # reads the old value before the await, and concurrent flights would lose updates.
    tally: Counter[str] = field(default_factory=Counter)
    flood_until: float | None = None
    fatal: str | None = None
    flights: dict[asyncio.Task[None], int] = field(default_factory=dict)
    """One task per claimed row, with its chat (at most one per chat): it waits for the
    row's turn, then sends and settles it — or gives it back unsent."""
    claim_at: float = float("-inf")
    due: float | None = None
    """When the next waiting row of a chat with no flight is due (None: none waits)."""

    @property
    def stopping(self) -> bool:
        return self.fatal is not None or self.flood_until is not None or self.stop.is_set()

    async def run(self) -> DrainSummary:
        # A flood seen by an earlier drain: claim nothing, and hold back rows queued since.
        flooded = self.pacer.paused_until()
        self.flood_until = flooded
        try:
            await self._loop()
        except asyncio.CancelledError:
            for task in self.flights:  # cut off: each gives back or records what it can
                task.cancel()
            raise
        finally:
            await self._land_all()
        if self.flood_until is not None:
            await self.store.postpone(self.flood_until)
            if flooded is None:
                log.warning("the bot is flooded (429 on several private chats): delivery paused")
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

    async def _loop(self) -> None:
        """Claim and wait — until stopped, or nothing is left to do soon."""
        reap_at = float("-inf")
        while not self.stopping:
            now = self.clock()
            if now >= reap_at:
                self._count_dead(await self.store.reap())
                reap_at = now + _REAP_EVERY
            if self._room() and now >= self.claim_at:
                await self._claim(now)
            if not self.flights and (self.due is None or self.due > now + LINGER):
                return
            # Wake when a flight lands (its chat is free again, and the claim then also finds
            # rows queued meanwhile), or to claim a row due within LINGER.
            soon = self.claim_at <= now + LINGER and self._room()
            await self._wait(max(0.0, self.claim_at - now) if soon else None)

    def _room(self) -> int:
        """How many rows a claim may take now: up to `batch` held in all."""
        return max(0, self.batch - len(self.flights))

    async def _claim(self, now: float) -> None:
        room = self._room()
        rows = await self.store.claim(room, per_chat=1, skip=set(self.flights.values()))
        for row in rows:
            self.flights[asyncio.create_task(self._fly(row))] = row.chat_id
        if len(rows) == room:  # there may be more due: claim again when there is room
            self.due = self.claim_at = now
            return
        self.due = await self.store.next_due(skip=set(self.flights.values()))
        self.claim_at = float("inf") if self.due is None else max(self.due, now)

    async def _wait(self, seconds: float | None) -> None:
        """Until a flight lands, `seconds` pass (if given), or the drain is told to stop."""
        waits: set[asyncio.Task[Any]] = {asyncio.create_task(self.stop.wait())}
        if seconds is not None:
            waits.add(asyncio.create_task(_sleeping(self.sleep, seconds)))
        try:
            await asyncio.wait({*self.flights, *waits}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in waits:
                task.cancel()
        for task in [task for task in self.flights if task.done()]:
            del self.flights[task]
            self.claim_at = self.clock()  # its chat is free: its next row may be due
            task.result()  # a settle that failed (the database) ends the drain

    async def _land_all(self) -> None:
        """Wait for every flight: those still waiting for their turn give their rows back
        when it comes (the drain is stopping); a cancel meanwhile cuts them all off."""
        cancelled = False
        while not all(task.done() for task in self.flights):
            try:
                await asyncio.shield(asyncio.wait(self.flights))
            except asyncio.CancelledError:
                cancelled = True
                for task in self.flights:
                    task.cancel()
        for task in self.flights:  # retrieved here; the first failure was raised already
            if not task.cancelled():
                task.exception()
        if cancelled:
            raise asyncio.CancelledError

    async def _fly(self, row: Notification) -> None:
        """Wait for the row's turn, count its attempt, send it and settle it; give it back
        unspent if the drain stops, its chat is paused or its lease nearly over first."""
        try:
            last_start = (row.lease_until or 0.0) - LEASE_MARGIN
            paused = self.pacer.paused_until(row.chat_id)
            booked = None if paused else await self.pacer.turn(row.chat_id, by=last_start)
            if booked is not None and not self.stopping:
                started = await self.store.start([row])
                if not started:  # the claim was lost (its lease ran out): nothing to send
                    return
                row = started[0]
                await self.pacer.keep(row.chat_id, booked)  # at once, unless the commit was slow
            if booked is None or self.stopping:  # due again when its chat may have it
                until = None if self.stopping else self.pacer.ready_at(row.chat_id)
                self.tally.update(deferred=await _finish(self.store.release([row], until=until)))
                return
        except BaseException:
            # Not sent: back unspent (a started row's attempt is given back too).
            self.tally.update(deferred=await _finish(self.store.release([row])))
            raise
        try:
            outcome = await self._attempt(row)
        except asyncio.CancelledError:
            # Cut off mid-send, it may have reached Telegram: the attempt stays spent and
            # the row is claimable at once, as after a crash.
            await _finish(self.store.abandon([row]))
            raise
        await _finish(self._settle(row, outcome))

    async def _attempt(self, row: Notification) -> Outcome | None:
        try:
            await self.send(row.message)
        except Exception as exc:  # every failure is classified; the table names the catch-all
            outcome = classify(exc)
            if isinstance(outcome, Retry) and outcome.unexpected:
                log.error("unexpected error sending notification %d", row.id, exc_info=exc)
            return outcome
        return None

    async def _settle(self, row: Notification, outcome: Outcome | None) -> None:
        """Record what happened to `row`; a chat-wide outcome also settles the chat's other
        waiting rows."""
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
                # The pause first: other rows of the chat (and other chats) see it at once.
                until = self.clock() + max(delay, _LEAST_PAUSE)
                self._rate_limited(row.chat_id, until)
                self.tally.update(deferred=await store.release([row], until=until))
                await store.postpone(until, chat_id=row.chat_id)
            case Dead(error=error, reason=reason, chat_gone=True):
                await self._bury([row], reason, error)
                self._count_dead(await store.bury_chat(row.chat_id, reason=reason, error=error))
                await self._hook(self.on_chat_gone, row.chat_id, reason)
            case Dead(error=error, reason=reason, topic_gone=True) if row.thread_id is not None:
                await self._bury([row], reason, error)
                await self._hook(self.on_topic_gone, row.chat_id, row.thread_id, reason)
            case Dead(error=error, reason=reason):
                await self._bury([row], reason, error)
            case Migrate(error=error, new_chat_id=new_chat_id):
                if row.attempts >= row.max_attempts:  # a chat "migrating" on every try
                    await self._bury([row], "attempts_exhausted", error)
                else:  # at once, to the new id; the attempt stays spent, so a loop ends
                    await store.mark_retry(row, at=self.clock(), error=error)
                await store.migrate_chat(row.chat_id, new_chat_id)
                await self._hook(self.on_chat_migrated, row.chat_id, new_chat_id)
            case Fatal(error=error):
                self.fatal = error
                self.tally.update(deferred=await store.release([row]))

    def _rate_limited(self, chat_id: int, until: float) -> None:
        """Pause the chat; private chats paused by 429s at once mean the bot is flooded.
        A group's 429 pauses that group only: groups have a limit of their own."""
        self.pacer.pause(until, chat_id=chat_id)
        if chat_id > 0 and self.pacer.paused_private_chats() >= self.flood_chats:
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
