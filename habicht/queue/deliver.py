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
cancelled.

Digests: when a claimed row's chat has more than its threshold of alerts waiting at once
(a burst, released quiet hours, the backlog after an outage), the drain claims them together
(`store.claim_digest`) and sends them as digest messages — one forum topic at a time, each
as few as Telegram's 4,096-character limit allows, `render_digest` writing one from the
rows' `digest_line`s. A claim takes at most `DIGEST_MOST` rows; a bigger burst is claimed on
as its messages go (`store.claim_digest_more`), so none of it waits for its own turn.
A digest message is one send for the pacer; its rows are started in one commit right before
it and settled together after it, so a crash mid-digest repeats at most that message, and
the chat's later digest messages go back unspent. A transient failure gives the message's
rows one backoff and the rest of the digest waits for it too: they form one digest again.
A 403 ends the chat's rows, the claimed rest of the digest included; a topic that is gone
ends that topic's rows, and the digest goes on in the chat's other topics.

Leases: `store.start` renews a row's lease when its send starts, and a send is cut off at the
lease less `LEASE_MARGIN`, so no send outlives its lease (see `table.DEFAULT_LEASE`).

Storage faults (issue 27): every commit of the drain — a claim, a start, a settle, a
release — is tried until it goes through (`_Drain._commit`). When the database refuses it
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
from collections import Counter
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar

from habicht.clock import Clock, Sleep
from habicht.queue.claim import DIGEST_MOST
from habicht.queue.digest import MESSAGE_LIMIT, DigestRenderer, _digest, _length, _line
from habicht.queue.durable import _finish, _sleeping
from habicht.queue.pacing import Pacer
from habicht.queue.policy import Dead, Fatal, Migrate, Outcome, Retry, RetryAt, backoff, classify
from habicht.queue.rows import Message, Notification
from habicht.queue.store import NotificationStore
from habicht.queue.table import LEASE_MARGIN
from habicht.storage import fault_kind, pause

__all__ = [
    "ChatGoneHook",
    "ChatMigratedHook",
    "DeliveryStopped",
    "DigestRenderer",
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
class _Landing:
    """How one message of a flight ended for the flight: whether it may send its next
    message, and if not, when the rows it still holds are due again (None: at their turn)."""

    go_on: bool
    until: float | None = None


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
    digest_after: int | None = None,
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

    With `render_digest`, a chat with more than `digest_after` alerts waiting at once (or its
    own threshold) gets them as digests (see the module docstring).

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
    digest_after: int | None
    render_digest: DigestRenderer | None
    on_pause: Callable[[], object] | None
    cut: asyncio.Event = field(default_factory=asyncio.Event)
    """Set when the drain is cancelled: a commit waiting out a storage fault gives up."""
    # Counted with `tally.update(sent=await …)`, never `self.sent += await …`: the latter
    # reads the old value before the await, and concurrent flights would lose updates.
    tally: Counter[str] = field(default_factory=Counter)
    flood_until: float | None = None
    fatal: str | None = None
    flights: dict[asyncio.Task[None], int] = field(default_factory=dict)
    """One task per chat with claimed rows (a row, or the rows of its digest): it waits for
    each message's turn, then sends and settles it — or gives the rows back unsent."""
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
            self.cut.set()
            for task in self.flights:  # cut off: each gives back or records what it can
                task.cancel()
            raise
        finally:
            await self._land_all()
        if self.flood_until is not None:
            await self._commit(partial(self.store.postpone, self.flood_until))
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
                self._count_dead(await self._commit(partial(self.store.reap, busy=busy)))
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
        claim = partial(self.store.claim, room, per_chat=1, skip=set(self.flights.values()))
        rows = await self._commit(claim)
        for row in rows:
            carried = [row]
            if self.digest_after is not None:
                more = partial(self.store.claim_digest, row, digest_after=self.digest_after)
                carried = await self._commit(more)
            self.flights[asyncio.create_task(self._fly_all(carried))] = row.chat_id
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

    def _next_message(
        self, rows: list[Notification], *, digest: bool
    ) -> tuple[Message, list[Notification]]:
        """The next message of a flight's rows and the rows it carries: the first row's own
        message; or, in a digest, a digest message of the first row's forum topic with as
        many of that topic's rows, in turn order, as fit in `MESSAGE_LIMIT`."""
        render = self.render_digest
        if not digest or render is None:
            return rows[0].message, rows[:1]
        chat_id, topic = rows[0].chat_id, rows[0].thread_id
        carried = rows[:1]
        text = render(chat_id, [_line(rows[0])])
        for row in rows[1:]:
            if row.thread_id != topic:
                continue
            longer = render(chat_id, [_line(n) for n in (*carried, row)])
            if _length(longer) > MESSAGE_LIMIT:
                break
            carried, text = [*carried, row], longer
        return _digest(text, carried), carried

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
                extra = await self._commit(
                    partial(self.store.claim_digest_more, chat_id, held=held)
                )
                more = len(extra) == DIGEST_MOST
                waiting = sorted([*waiting, *extra], key=lambda n: (n.next_attempt_at, n.id))
            if not waiting:
                return
            message, carried = self._next_message(waiting, digest=digest)
            waiting = [row for row in waiting if row not in carried]
            try:
                landing = await self._fly(carried, message)
            except BaseException:
                self.tally.update(deferred=await self._give_back(waiting))
                raise
            if not landing.go_on:
                self.tally.update(deferred=await self._give_back(waiting, until=landing.until))
                return

    async def _fly(self, rows: list[Notification], message: Message) -> _Landing:
        """Wait for the message's turn, count the attempt of its rows, send it and settle
        them; give them back unspent if the drain stops, the chat is paused or the lease
        nearly over first."""
        chat_id = rows[0].chat_id
        try:
            last_start = min(row.lease_until or 0.0 for row in rows) - LEASE_MARGIN
            paused = self.pacer.paused_until(chat_id)
            booked = None if paused else await self.pacer.turn(chat_id, by=last_start)
            if booked is not None and not self.stopping:
                started = await self._commit(partial(self.store.start, rows))
                if not started:  # the claim was lost (its lease ran out): nothing to send
                    return _Landing(go_on=False, until=self.pacer.ready_at(chat_id))
                rows = started
                await self.pacer.keep(chat_id, booked)  # at once, unless the commit was slow
            if booked is None or self.stopping:  # due again when its chat may have it
                until = None if self.stopping else self.pacer.ready_at(chat_id)
                self.tally.update(deferred=await self._give_back(rows, until=until))
                return _Landing(go_on=False, until=until)
        except BaseException:
            # Not sent: back unspent (a started row's attempt is given back too).
            self.tally.update(deferred=await self._give_back(rows))
            raise
        try:
            outcome = await self._attempt(rows, message)
        except asyncio.CancelledError:
            # Cut off mid-send, it may have reached Telegram: the attempt stays spent and
            # the rows are claimable at once, as after a crash.
            await _finish(self._commit(partial(self.store.abandon, rows)))
            raise
        return await _finish(self._settle(rows, message, outcome))

    async def _attempt(self, rows: list[Notification], message: Message) -> Outcome | None:
        """Send, bounded by the lease less `LEASE_MARGIN`: a send never outlives its rows'
        lease (see `table.DEFAULT_LEASE`), so the reaper never buries a send that runs."""
        limit = self.store.lease - LEASE_MARGIN
        bound = asyncio.timeout(limit)
        try:
            async with bound:
                await self.send(message)
        except Exception as exc:  # every failure is classified; the table names the catch-all
            if isinstance(exc, TimeoutError) and bound.expired():
                return Retry(f"the send took longer than {limit:g} s and was cut off")
            outcome = classify(exc)
            if isinstance(outcome, Retry) and outcome.unexpected:
                ids = ", ".join(str(row.id) for row in rows)
                log.error("unexpected error sending notification %s", ids, exc_info=exc)
            return outcome
        return None

    async def _settle(
        self, rows: list[Notification], message: Message, outcome: Outcome | None
    ) -> _Landing:
        """Record what happened to the rows of one message; a chat-wide outcome also settles
        the chat's other waiting rows. Says whether the flight may send its next message,
        and if not, when the rows it still holds are due again."""
        store = self.store
        chat_id = rows[0].chat_id
        spent = [row for row in rows if row.attempts >= row.max_attempts]
        left = [row for row in rows if row.attempts < row.max_attempts]
        match outcome:
            case None:
                self.tally.update(sent=await self._commit(partial(store.mark_sent, rows)))
            case Retry(error=error):
                # One backoff for the whole message: a digest retries as one, and the rest of
                # its flight waits with it, so all of them form one digest again.
                await self._bury(spent, "attempts_exhausted", error)
                attempt = max(row.attempts for row in rows)
                at = self.clock() + backoff(
                    attempt, base=self.backoff_base, cap=self.backoff_cap, rand=self.rand
                )
                for row in left:
                    retry = partial(store.mark_retry, row, at=at, error=error)
                    self.tally.update(retried=await self._commit(retry))
                return _Landing(go_on=False, until=at)
            case RetryAt(delay=delay):
                # The pause first: other rows of the chat (and other chats) see it at once.
                until = self.clock() + max(delay, _LEAST_PAUSE)
                self._rate_limited(chat_id, until)
                self.tally.update(
                    deferred=await self._commit(partial(store.release, rows, until=until))
                )
                await self._commit(partial(store.postpone, until, chat_id=chat_id))
                return _Landing(go_on=False, until=until)
            case Dead(error=error, reason=reason, chat_gone=True):
                await self._bury(rows, reason, error)
                bury = partial(store.bury_chat, chat_id, reason=reason, error=error)
                self._count_dead(await self._commit(bury))
                await self._hook(self.on_chat_gone, chat_id, reason)
                return _Landing(go_on=False)
            case Dead(error=error, reason=reason, topic_gone=True) if message.thread_id is not None:
                # Only this topic's rows: a digest to another topic of the chat goes on.
                await self._bury(rows, reason, error)
                topic = message.thread_id
                bury = partial(store.bury_topic, chat_id, topic, reason=reason, error=error)
                self._count_dead(await self._commit(bury))
                await self._hook(self.on_topic_gone, chat_id, topic, reason)
            case Dead(error=error, reason=reason):
                await self._bury(rows, reason, error)
            case Migrate(error=error, new_chat_id=new_chat_id):
                # A chat "migrating" on every try ends; else at once, to the new id, the
                # attempt spent, so a loop ends.
                await self._bury(spent, "attempts_exhausted", error)
                for row in left:
                    await self._commit(partial(store.mark_retry, row, at=self.clock(), error=error))
                await self._commit(partial(store.migrate_chat, chat_id, new_chat_id))
                await self._hook(self.on_chat_migrated, chat_id, new_chat_id)
                return _Landing(go_on=False)
            case Fatal(error=error):
                self.fatal = error
                self.tally.update(deferred=await self._commit(partial(store.release, rows)))
                return _Landing(go_on=False)
        return _Landing(go_on=not self.stopping)

    async def _commit(self, write: Callable[[], Coroutine[Any, Any, T]]) -> T:
        """`write` — one of the store's commits — until it goes through: a storage fault is
        waited out, a growing pause between tries, however long it lasts (module docstring).
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
        nap = asyncio.create_task(_sleeping(self.sleep, seconds))
        cut = asyncio.create_task(self.cut.wait())
        try:
            await asyncio.wait({nap, cut}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            nap.cancel()
            cut.cancel()
        if nap.done() and not nap.cancelled():
            nap.result()  # a `sleep` that failed
        return not self.cut.is_set()

    async def _give_back(self, rows: list[Notification], *, until: float | None = None) -> int:
        """Release `rows` unsent (`store.release`), to its end even if the drain is cancelled
        meanwhile; how many were given back."""
        return await _finish(self._commit(partial(self.store.release, rows, until=until)))

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
        dead = partial(self.store.mark_dead, rows, reason=reason, error=error)
        self.tally.update(dead=await self._commit(dead))
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
