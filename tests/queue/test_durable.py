"""A drain's writes through storage faults (`habicht.queue.durable`, issue 27): a refused
claim, start or settle is kept in memory and tried again until it goes through, so a send is
settled once; only a cut-off drain stops waiting."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import pytest
from kit.delivery import FakeBotApi, message, row
from kit.fakes import FakeClock
from kit.faults import FullDisk, HeldLock

from habicht.db import Database
from habicht.message import Message
from habicht.queue import DrainSummary, Notification, NotificationStore, Send, TakenOver, drain
from habicht.queue.table import DEFAULT_LEASE

CLAIMED = "new.status = 'sending' AND new.started_at IS NULL"


STARTED = "new.started_at IS NOT NULL"


SENT = "new.status = 'sent'"


def fault_of(kind: str, db: Database, when: str) -> FullDisk | HeldLock:
    """The disk full (for the updates matching `when`), or the database locked (for all)."""
    return FullDisk(db, when) if kind == "full" else HeldLock(db)


@dataclass
class Pauses:
    """The drain's `on_pause` (counts the pauses for refused commits) and its `sleep` (moves
    the clock); in the second pause the fault ends — after `look` had a look, if given — so
    the commit's third try goes through."""

    clock: FakeClock
    fault: FullDisk | HeldLock
    look: Callable[[], Awaitable[None]] | None = None
    seen: list[float] = field(default_factory=list)
    ended: bool = False

    def __call__(self) -> None:
        self.seen.append(self.clock.now)

    async def sleep(self, seconds: float) -> None:
        if len(self.seen) == 2 and not self.ended:
            self.ended = True
            if self.look is not None:
                await self.look()
            await self.fault.end()
        await self.clock.sleep(seconds)
        await asyncio.sleep(0)


@pytest.mark.parametrize("kind", ["full", "locked"])
async def test_a_refused_settle_is_kept_and_recorded_once(
    store: NotificationStore, api: FakeBotApi, send: Send, clock: FakeClock, kind: str
) -> None:
    """Issue 27: the commit that records a delivery is refused twice — the disk full, or the
    database locked by another program — then goes through. The drain kept the outcome and
    tried that commit again after short pauses: the message was sent once, is recorded sent
    with its one attempt, and no lease running out sends it again."""
    await store.enqueue(message("a"))
    fault = fault_of(kind, store.db, SENT)

    async def sent_then_fault(sending: Message) -> None:
        await send(sending)
        await fault.start()

    pauses = Pauses(clock, fault)
    summary = await drain(
        store,
        sent_then_fault,
        clock=clock,
        sleep=pauses.sleep,
        rand=random.Random(7),
        on_pause=pauses,
    )
    assert summary.sent == 1
    assert [later - pauses.seen[0] for later in pauses.seen] == [0.0, 0.5]
    done = await row(store, "a")
    assert (done.status, done.attempts, done.claims) == ("sent", 1, 1)
    clock.advance(2 * DEFAULT_LEASE)
    summary = await drain(store, send, clock=clock, sleep=clock.sleep, rand=random.Random(7))
    assert summary == DrainSummary()
    assert api.texts() == ["<b>a</b>"]


@pytest.mark.parametrize("kind", ["full", "locked"])
async def test_a_refused_claim_sends_nothing_and_loses_nothing(
    store: NotificationStore, api: FakeBotApi, send: Send, clock: FakeClock, kind: str
) -> None:
    """Issue 27: while the disk is full (or the database locked) the drain's claim is
    refused: nothing is sent and the row waits, pending, no attempt spent; when writes go
    through again the same drain claims it, and it is sent once."""
    await store.enqueue(message("a"))
    fault = fault_of(kind, store.db, CLAIMED)
    await fault.start()
    during: list[tuple[list[str], Notification]] = []

    async def look() -> None:
        during.append((api.texts(), await row(store, "a")))

    pauses = Pauses(clock, fault, look)
    summary = await drain(
        store, send, clock=clock, sleep=pauses.sleep, rand=random.Random(7), on_pause=pauses
    )
    ((sent_meanwhile, waiting),) = during
    assert sent_meanwhile == []
    assert (waiting.status, waiting.attempts, waiting.claims) == ("pending", 0, 0)
    assert summary.sent == 1
    assert api.texts() == ["<b>a</b>"]
    assert (await row(store, "a")).attempts == 1


async def test_a_refused_start_sends_nothing_until_it_goes_through(
    store: NotificationStore, api: FakeBotApi, send: Send, clock: FakeClock
) -> None:
    """Issue 27: the commit that marks a claimed row's send as started is refused: nothing is
    sent while it is — the row stays claimed, not started, no attempt spent — and once it
    goes through the message is sent once."""
    await store.enqueue(message("a"))
    fault = FullDisk(store.db, STARTED)
    await fault.start()
    during: list[tuple[list[str], Notification]] = []

    async def look() -> None:
        during.append((api.texts(), await row(store, "a")))

    pauses = Pauses(clock, fault, look)
    summary = await drain(
        store, send, clock=clock, sleep=pauses.sleep, rand=random.Random(7), on_pause=pauses
    )
    ((sent_meanwhile, claimed),) = during
    assert sent_meanwhile == []
    assert (claimed.status, claimed.started_at, claimed.attempts) == ("sending", None, 0)
    assert summary.sent == 1
    assert api.texts() == ["<b>a</b>"]


async def test_a_drain_cut_off_in_a_fault_stops_waiting_and_its_send_repeats_after_restart(
    store: NotificationStore, api: FakeBotApi, send: Send, clock: FakeClock
) -> None:
    """The honest limit of issue 27: memory does not outlive the process. A drain cancelled
    while it waits out a refused settle stops waiting (a shutdown is not held up); the send
    it could not record stays started, and after the restart it is sent again — as after a
    crash, at-least-once."""
    await store.enqueue(message("a"))
    fault = FullDisk(store.db, SENT)

    async def sent_then_fault(sending: Message) -> None:
        await send(sending)
        await fault.start()

    seen: list[float] = []

    def cut_off_at_the_third() -> None:
        seen.append(clock.now)
        if len(seen) == 3:
            draining.cancel()

    async def sleep(seconds: float) -> None:
        await clock.sleep(seconds)
        await asyncio.sleep(0)

    draining = asyncio.create_task(
        drain(
            store,
            sent_then_fault,
            clock=clock,
            sleep=sleep,
            rand=random.Random(7),
            on_pause=cut_off_at_the_third,
        )
    )
    with pytest.raises(asyncio.CancelledError):
        await draining
    assert len(seen) == 3
    unrecorded = await row(store, "a")
    assert (unrecorded.status, unrecorded.attempts) == ("sending", 1)
    assert unrecorded.started_at is not None

    await fault.end()
    assert await store.take_over_leases() == TakenOver(in_flight=1, unsent=0)
    assert (await drain(store, send, clock=clock, sleep=sleep, rand=random.Random(7))).sent == 1
    assert api.texts() == ["<b>a</b>"] * 2
