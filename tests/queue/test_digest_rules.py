"""Digests that hold together (issue 19, cases 2, 3, 4, 6, 8): a digest that fails once
retries as one digest; a burst of any size leaves at once, as many messages as its entries
need, at the chat's pace; one digest per forum topic, and a topic that is gone ends only its
own rows; a gone chat ends every row of its digest; any threshold is honoured. A real SQLite
file, a virtual clock."""

from __future__ import annotations

import asyncio
import math
import random
from collections.abc import Callable

import pytest
from kit.digests import BURSTY, alert, render, statuses
from kit.fakes import FakeClock
from telegram.error import BadRequest, Forbidden, TimedOut

from habicht.message import Message, Outgoing
from habicht.queue import NotificationStore, drain
from habicht.queue.claim import DIGEST_MOST
from habicht.queue.digest import MESSAGE_LIMIT
from habicht.queue.pacing import CHAT_GAP, GROUP_GAP

GROUP = -100500


class Telegram:
    """Every message sent, when; `fail(message)` may raise instead (what Telegram answered)."""

    def __init__(self, clock: FakeClock, fail: Callable[[Message], None] | None = None) -> None:
        self.clock = clock
        self.fail = fail
        self.tries: list[Message] = []
        self.sent: list[tuple[float, Message]] = []

    async def __call__(self, message: Message) -> object:
        self.tries.append(message)
        if self.fail is not None:
            self.fail(message)
        self.sent.append((self.clock(), message))
        return None

    def entries(self) -> list[str]:
        return [line for _, m in self.sent for line in m.text.splitlines()[1:]]


async def run(
    store: NotificationStore,
    send: Telegram,
    clock: FakeClock,
    *,
    digest_after: int = 5,
    **kw: object,
) -> int:
    async def sleep(seconds: float) -> None:
        await clock.sleep(seconds)
        await asyncio.sleep(0)

    summary = await drain(
        store,
        send,
        clock=clock,
        sleep=sleep,
        rand=random.Random(7),
        digest_after=digest_after,
        render_digest=render,
        **kw,  # type: ignore[arg-type]
    )
    return summary.sent


async def test_a_digest_that_timed_out_is_retried_as_one_digest(
    store: NotificationStore, clock: FakeClock
) -> None:
    """Issue 19, case 2: 12 alerts, the first send times out; at the one backoff they share,
    the chat receives ONE digest of all 12 (not 12 single messages in shuffled order)."""
    await store.enqueue_many([alert(f"a{i}") for i in range(12)])
    failures = iter([TimedOut("timed out")])

    def first_times_out(message: Message) -> None:
        if (error := next(failures, None)) is not None:
            raise error

    telegram = Telegram(clock, first_times_out)
    assert await run(store, telegram, clock) == 0
    due = await store.db.fetchall("SELECT DISTINCT next_attempt_at FROM notifications")
    assert len(due) == 1  # one backoff for the digest
    clock.now = due[0][0]
    assert await run(store, telegram, clock) == 12
    [(_, digest)] = telegram.sent
    assert digest.text.startswith("📬 12 alerts\n")
    assert len(telegram.entries()) == 12
    assert await statuses(store) == {"sent": 12}


async def test_the_rest_of_a_digest_waits_for_its_failed_message_and_goes_with_it(
    store: NotificationStore, clock: FakeClock
) -> None:
    """A digest of several messages whose first one times out: all of its rows go again
    together, as few messages as before, each entry once."""
    await store.enqueue_many([alert(f"a{i:02}", width=100) for i in range(40)])
    failures = iter([TimedOut("timed out")])

    def first_times_out(message: Message) -> None:
        if (error := next(failures, None)) is not None:
            raise error

    telegram = Telegram(clock, first_times_out)
    assert await run(store, telegram, clock) == 0
    [(due,)] = await store.db.fetchall(
        "SELECT DISTINCT next_attempt_at FROM notifications WHERE attempts > 0"
    )
    [(unspent,)] = await store.db.fetchall(
        "SELECT min(next_attempt_at) FROM notifications WHERE attempts = 0"
    )
    assert unspent >= due  # the rest of the digest waits for the retry
    clock.now = due
    assert await run(store, telegram, clock) == 40
    assert len(telegram.sent) == len(telegram.tries) - 1
    assert sorted(telegram.entries()) == sorted(set(telegram.entries()))
    assert len(telegram.entries()) == 40


@pytest.mark.parametrize(("chat_id", "gap"), [(BURSTY, CHAT_GAP), (GROUP, GROUP_GAP)])
async def test_a_burst_of_75_leaves_together_at_the_chats_pace(
    store: NotificationStore, clock: FakeClock, chat_id: int, gap: float
) -> None:
    """Issue 19, case 3: 75 alerts at once, more than one claim takes: every one is sent
    within the time its messages need at the chat's pace (not the 15 beyond the claim's cap
    a minute later, at their own turns), in as few messages as the limit allows."""
    await store.enqueue_many([alert(f"a{i:02}", chat_id=chat_id, width=60) for i in range(75)])
    start = clock()
    telegram = Telegram(clock)
    assert await run(store, telegram, clock) == 75
    assert [line.split(">")[1].split("<")[0] for line in telegram.entries()] == [
        f"a{i:02}" for i in range(75)
    ]
    texts = [m.text for _, m in telegram.sent]
    size = sum(len(line) + 1 for line in telegram.entries())
    assert len(texts) <= math.ceil(size / (MESSAGE_LIMIT - 30)) + 1
    assert all(len(text) <= MESSAGE_LIMIT for text in texts)
    last = telegram.sent[-1][0]
    assert last - start <= (len(texts) - 1) * gap + 1.0
    assert await statuses(store) == {"sent": 75}


async def test_a_threshold_above_the_claims_cap_is_honoured(
    store: NotificationStore, clock: FakeClock
) -> None:
    """Issue 19, case 8: HABICHT_DIGEST_AFTER of 60 or more turned digests off (the claim
    counted at most 59 others); 75 alerts over a threshold of 70 are digests, 65 are not."""
    await store.enqueue_many([alert(f"a{i:02}") for i in range(75)])
    telegram = Telegram(clock)
    assert await run(store, telegram, clock, digest_after=70) == 75
    assert len(telegram.sent) <= 2
    await store.enqueue_many([alert(f"b{i:02}", chat_id=9) for i in range(65)])
    other = Telegram(clock)
    assert await run(store, other, clock, digest_after=70) == 65
    assert len(other.sent) == 65


def topic_alert(key: str, thread_id: int) -> Outgoing:
    return Outgoing(
        GROUP, "new", f"<b>{key}</b>", key, thread_id=thread_id, digest_line=f"🆕 {key}"
    )


async def test_each_forum_topic_gets_its_own_digest(
    store: NotificationStore, clock: FakeClock
) -> None:
    """Issue 19, case 4: 4 + 4 alerts in topics 10 and 20 (8 over the chat's threshold of
    5): one digest in each topic, not one in the General topic."""
    await store.enqueue_many([topic_alert(f"t{t}-{i}", t) for i in range(4) for t in (10, 20)])
    telegram = Telegram(clock)
    assert await run(store, telegram, clock) == 8
    assert [(m.thread_id, m.text.splitlines()[1:]) for _, m in telegram.sent] == [
        (10, [f"🆕 t10-{i}" for i in range(4)]),
        (20, [f"🆕 t20-{i}" for i in range(4)]),
    ]


async def test_a_closed_topic_ends_only_its_own_rows(
    store: NotificationStore, clock: FakeClock
) -> None:
    """Topic 10 is closed: its 4 rows die (`topic_closed`) and only topic 10 is reported
    gone; topic 20's digest arrives."""
    await store.enqueue_many([topic_alert(f"t{t}-{i}", t) for i in range(4) for t in (10, 20)])

    def topic_10_closed(message: Message) -> None:
        if message.thread_id == 10:
            raise BadRequest("Topic_closed")

    gone: list[tuple[int, int, str]] = []

    async def on_topic_gone(chat_id: int, thread_id: int, reason: str) -> None:
        gone.append((chat_id, thread_id, reason))

    telegram = Telegram(clock, topic_10_closed)
    assert await run(store, telegram, clock, on_topic_gone=on_topic_gone) == 4
    assert [m.thread_id for _, m in telegram.sent] == [20]
    assert gone == [(GROUP, 10, "topic_closed")]
    rows = await store.db.fetchall(
        "SELECT thread_id, status, dead_reason, count(*) FROM notifications"
        " GROUP BY thread_id, status, dead_reason"
    )
    assert sorted(tuple(row) for row in rows) == [
        (10, "dead", "topic_closed", 4),
        (20, "sent", None, 4),
    ]


async def test_a_gone_chat_ends_every_row_of_its_digest_with_one_403(
    store: NotificationStore, clock: FakeClock
) -> None:
    """Issue 19, case 6: the first of a digest's messages gets a 403; the rows of its later
    messages (claimed, `sending`) die with it, and no second 403 is asked for."""
    await store.enqueue_many([alert(f"a{i:02}", width=100) for i in range(45)])

    def blocked(message: Message) -> None:
        raise Forbidden("Forbidden: bot was blocked by the user")

    telegram = Telegram(clock, blocked)
    assert await run(store, telegram, clock) == 0
    assert len(telegram.tries) == 1
    rows = await store.db.fetchall(
        "SELECT status, dead_reason, count(*) FROM notifications GROUP BY status, dead_reason"
    )
    assert [tuple(row) for row in rows] == [("dead", "blocked", 45)]
    assert await run(store, telegram, clock) == 0
    assert len(telegram.tries) == 1


@pytest.mark.parametrize("digest_after", [5, 100], ids=["below-the-cap", "above-the-cap"])
async def test_a_digest_claim_holds_at_most_digest_most_rows(
    store: NotificationStore, digest_after: int
) -> None:
    """The claim's cap: of 130 alerts of one chat due at once, a digest's claim holds the
    first DIGEST_MOST (60), whatever the threshold; the next claim the following 60, in
    turn order; the last 10 stay pending."""
    await store.enqueue_many([alert(f"a{i:03}") for i in range(130)])
    [first] = await store.claim(1)
    rows = await store.claim_digest(first, digest_after=digest_after)
    assert [r.dedupe_key for r in rows] == [f"a{i:03}" for i in range(DIGEST_MOST)]
    more = await store.claim_digest_more(BURSTY, held=[r.id for r in rows])
    assert [r.dedupe_key for r in more] == [f"a{i:03}" for i in range(DIGEST_MOST, 120)]
    assert DIGEST_MOST == 60  # as the README says
    assert await statuses(store) == {"sending": 120, "pending": 10}
