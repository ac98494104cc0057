"""Delivery: drain the outbox through a `send(message)` callable, paced and settled.

`drain` is a pipeline, not a series of batches. Each claimed row — at most one per chat,
claimed when its turn is due (see `enqueue`, "Fair turns") — gets a flight of its own that
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
cancelled. What each outcome does to the rows is `outcome`'s.

Digests: when a claimed row's chat has more than its threshold of alerts waiting at once
(`digest_after`: one for all chats, or the caller's function of a chat — the queue reads no
chat's settings)
(a burst, released quiet hours, the backlog after an outage), the drain claims them together
(`store.claim_digest`) and sends them as digest messages — one forum topic at a time, each
as few as Telegram's 4,096-character limit allows, `render_digest` writing one from the
rows' `digest_line`s (`digest.next_message`). A claim takes at most `DIGEST_MOST` rows; a
bigger burst is claimed on as its messages go (`store.claim_digest_more`), so none of it
waits for its own turn.
A digest message is one send for the pacer; its rows are started in one commit right before
it and settled together after it, so a crash mid-digest repeats at most that message, and
the chat's later digest messages go back unspent. A transient failure gives the message's
rows one backoff and the rest of the digest waits for it too: they form one digest again.
A 403 ends the chat's rows, the claimed rest of the digest included; a topic that is gone
ends that topic's rows, and the digest goes on in the chat's other topics.

Leases: `store.start` renews a row's lease when its send starts, and a send is cut off at the
lease less `LEASE_MARGIN`, so no send outlives its lease (see `table.DEFAULT_LEASE`).

Storage faults (issue 27): every commit of the drain — a claim, a start, a settle, a
release — is tried until it goes through (`durable.Writes.commit`). When the database refuses it
(its disk full, its write lock held by another program, an I/O error: `habicht.storage`), the
drain keeps what it holds in memory — the claimed rows, a send's outcome — and tries the same
commit again after a growing pause (`storage.pause`: 0.5 s, doubling, at most 5 s), for as
long as it takes. So a send is settled once: its message is never sent again because its
bookkeeping failed, and a refused start sends nothing. Meanwhile the rows' leases may run out
in the file; nothing takes them over, because only one drain runs, it claims no row of a chat
it holds and reaps none of them either (a lease only ever expires for a process that is
gone). Only a cancel — the process ending — ends the wait: what was not recorded then is
repeated after the restart, as after a crash.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from habicht.clock import Clock, Sleep
from habicht.message import Delivered, Message
from habicht.queue.claim import DIGEST_MOST
from habicht.queue.digest import DigestRenderer, next_message
from habicht.queue.durable import finish, sleeping
from habicht.queue.outcome import ChatGoneHook, ChatMigratedHook, Landing, Outcomes, TopicGoneHook
from habicht.queue.pacing import Pacer
from habicht.queue.policy import Outcome, Retry, classify
from habicht.queue.rows import Notification
from habicht.queue.store import NotificationStore
from habicht.queue.table import LEASE_MARGIN

DigestAfter = int | Callable[[int], int]
"""How many alerts waiting at once make a chat's digest: one number for every chat, or the
caller's function of a chat id (the bot's: each chat's own setting, else the default)."""

__all__ = ["DeliveryStopped", "DrainSummary", "Send", "drain"]

log = logging.getLogger(__name__)

Send = Callable[[Message], Awaitable[Delivered | None]]
"""Sends one message as it was queued (or makes the edit it is); raises `telegram.error`
exceptions on failure. Returns what Telegram made of a new message, which the outbox keeps
so the message can be edited later (None: nothing to keep)."""

LINGER = 5.0
"""A drain with nothing in hand waits for a row due within this many seconds rather than
ending: a backlog's next turn is at most a group's gap (3.1 s) away."""

EDIT_FLIGHTS = 3
"""Edits of sent messages in flight at most: they fill the room alerts leave (a claim takes
them after every due alert), and a few at a time leave the pacer free for the next alert."""

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
    digest_after: DigestAfter | None = None,
    render_digest: DigestRenderer | None = None,
    on_pause: Callable[[], object] | None = None,
) -> DrainSummary:
    """Deliver every due notification; return what happened.

    Holds at most `batch` claimed rows (in hand or in flight; a digest's rows count as one),
    one per chat, and sends them
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

    With `render_digest`, a chat with more than `digest_after` alerts waiting at once (a
    number, or a function giving each chat's own threshold) gets them as digests (see the
    module docstring).

    A commit the database refuses (a storage fault) is tried again until it goes through,
    `on_pause` called before each pause (the bot tells its watchdog: a drain waiting for the
    disk is not stuck); see the module docstring.
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
        digest_after=None if render_digest is None else digest_after,
        render_digest=render_digest,
        on_pause=on_pause,
    )
    return await run.run()


@dataclass(kw_only=True)
class _Drain(Outcomes):
    """The state of one drain: its settings, its counters and its flights."""

    send: Send
    batch: int
    digest_after: DigestAfter | None
    render_digest: DigestRenderer | None
    flights: dict[asyncio.Task[None], int] = field(default_factory=dict)
    """One task per chat with claimed rows (a row, or the rows of its digest): it waits for
    each message's turn, then sends and settles it — or gives the rows back unsent."""
    editing: set[asyncio.Task[None]] = field(default_factory=set)
    """The flights that carry an edit (at most `EDIT_FLIGHTS`)."""
    claim_at: float = float("-inf")
    due: float | None = None
    """When the next waiting row of a chat with no flight is due (None: none waits)."""

    async def run(self) -> DrainSummary:
        # A flood seen by an earlier drain: claim nothing, and hold back rows queued since.
        flooded = self.pacer.paused_until()
        self.flood_until = flooded
        try:
            await self._loop()
        except asyncio.CancelledError:
            self.cut.set()
            for task in self.flights:  # cut off: each gives back or records what it can
                task.cancel()
            raise
        finally:
            await self._land_all()
        if self.flood_until is not None:
            await self.commit(partial(self.store.postpone, self.flood_until))
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
                busy = set(self.flights.values())
                self.count_dead(await self.commit(partial(self.store.reap, busy=busy)))
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
        edits = EDIT_FLIGHTS - len(self.editing)
        busy = set(self.flights.values())
        claim = partial(self.store.claim, room, per_chat=1, skip=busy, edits=edits)
        rows = await self.commit(claim)
        for row in rows:
            carried = [row]
            if self.digest_after is not None:
                after = self.digest_after
                threshold = after if isinstance(after, int) else after(row.chat_id)
                more = partial(self.store.claim_digest, row, digest_after=threshold)
                carried = await self.commit(more)
            flight = asyncio.create_task(self._fly_all(carried))
            self.flights[flight] = row.chat_id
            if row.kind == "edit":
                self.editing.add(flight)
        if len(rows) == room:  # there may be more due: claim again when there is room
            self.due = self.claim_at = now
            return
        # With every edit flight taken, a due edit waits for one to land (`_wait` claims
        # again then), not for its turn: else the drain would claim nothing, again and again.
        edits = len(self.editing) < EDIT_FLIGHTS
        self.due = await self.store.next_due(skip=set(self.flights.values()), edits=edits)
        self.claim_at = float("inf") if self.due is None else max(self.due, now)

    async def _wait(self, seconds: float | None) -> None:
        """Until a flight lands, `seconds` pass (if given), or the drain is told to stop."""
        waits: set[asyncio.Task[Any]] = {asyncio.create_task(self.stop.wait())}
        if seconds is not None:
            waits.add(asyncio.create_task(sleeping(self.sleep, seconds)))
        try:
            await asyncio.wait({*self.flights, *waits}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in waits:
                task.cancel()
        for task in [task for task in self.flights if task.done()]:
            del self.flights[task]
            self.editing.discard(task)
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

    async def _fly_all(self, rows: list[Notification]) -> None:
        """Send the messages that carry the chat's claimed rows one after the other, at the
        chat's pace. A digest that took the claim's cap claims the chat's next waiting alerts
        as it goes, so a burst of any size leaves together. When a message is not sent and
        the flight cannot go on, the rows it still holds go back unspent."""
        chat_id = rows[0].chat_id
        digest = len(rows) > 1
        more = digest and len(rows) >= DIGEST_MOST  # the claim was capped: more may wait
        waiting = list(rows)
        while True:
            if more and len(waiting) < DIGEST_MOST and not self.stopping:
                held = [row.id for row in waiting]
                extra = await self.commit(partial(self.store.claim_digest_more, chat_id, held=held))
                more = len(extra) == DIGEST_MOST
                waiting = sorted([*waiting, *extra], key=lambda n: (n.next_attempt_at, n.id))
            if not waiting:
                return
            message, carried = next_message(waiting, self.render_digest if digest else None)
            waiting = [row for row in waiting if row not in carried]
            try:
                landing = await self._fly(carried, message)
            except BaseException:
                self.tally.update(deferred=await self._give_back(waiting))
                raise
            if not landing.go_on:
                self.tally.update(deferred=await self._give_back(waiting, until=landing.until))
                return

    async def _fly(self, rows: list[Notification], message: Message) -> Landing:
        """Wait for the message's turn, count the attempt of its rows, send it and settle
        them; give them back unspent if the drain stops, the chat is paused or the lease
        nearly over first."""
        chat_id = rows[0].chat_id
        try:
            last_start = min(row.lease_until or 0.0 for row in rows) - LEASE_MARGIN
            paused = self.pacer.paused_until(chat_id)
            booked = None if paused else await self.pacer.turn(chat_id, by=last_start)
            if booked is not None and not self.stopping:
                started = await self.commit(partial(self.store.start, rows))
                if not started:  # the claim was lost (its lease ran out): nothing to send
                    return Landing(go_on=False, until=self.pacer.ready_at(chat_id))
                rows = started
                await self.pacer.keep(chat_id, booked)  # at once, unless the commit was slow
            if booked is None or self.stopping:  # due again when its chat may have it
                until = None if self.stopping else self.pacer.ready_at(chat_id)
                self.tally.update(deferred=await self._give_back(rows, until=until))
                return Landing(go_on=False, until=until)
        except BaseException:
            # Not sent: back unspent (a started row's attempt is given back too).
            self.tally.update(deferred=await self._give_back(rows))
            raise
        try:
            outcome = await self._attempt(rows, message)
        except asyncio.CancelledError:
            # Cut off mid-send, it may have reached Telegram: the attempt stays spent and
            # the rows are claimable at once, as after a crash.
            await finish(self.commit(partial(self.store.abandon, rows)))
            raise
        return await finish(self.settle(rows, message, outcome))

    async def _attempt(
        self, rows: list[Notification], message: Message
    ) -> Outcome | Delivered | None:
        """Send, bounded by the lease less `LEASE_MARGIN`: a send never outlives its rows'
        lease (see `table.DEFAULT_LEASE`), so the reaper never buries a send that runs.
        What the send returned if it went through, else its classified failure."""
        limit = self.store.lease - LEASE_MARGIN
        bound = asyncio.timeout(limit)
        try:
            async with bound:
                delivered = await self.send(message)
            # Anything else a `send` returns went out too, with nothing to keep.
            return delivered if isinstance(delivered, Delivered) else None
        except Exception as exc:  # every failure is classified; the table names the catch-all
            if isinstance(exc, TimeoutError) and bound.expired():
                return Retry(f"the send took longer than {limit:g} s and was cut off")
            outcome = classify(exc)
            if isinstance(outcome, Retry) and outcome.unexpected:
                ids = ", ".join(str(row.id) for row in rows)
                log.error("unexpected error sending notification %s", ids, exc_info=exc)
            return outcome

    async def _give_back(self, rows: list[Notification], *, until: float | None = None) -> int:
        """Release `rows` unsent (`store.release`), to its end even if the drain is cancelled
        meanwhile; how many were given back."""
        return await finish(self.commit(partial(self.store.release, rows, until=until)))
