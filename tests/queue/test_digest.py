"""Digests (issue 14): more than N alerts of one chat due at once go out as digest messages —
as few as Telegram's 4,096-character limit allows — that settle every row they carried; a
crash mid-digest repeats at most that message. A real SQLite file, a virtual clock."""

from __future__ import annotations

import asyncio
import itertools
import random
from collections.abc import Callable

import pytest
from kit import within
from kit.digests import BURSTY, QUIET, alert, render, statuses
from kit.fakes import FakeClock

from habicht.message import Message, Outgoing
from habicht.queue import NotificationStore, drain
from habicht.queue.digest import MESSAGE_LIMIT
from habicht.quiet import parse_quiet_hours


class Sent:
    """Every message the drain sent, with its silent flag."""

    def __init__(self) -> None:
        self.messages: list[tuple[int, str, bool]] = []

    async def __call__(self, message: Message) -> object:
        self.messages.append((message.chat_id, message.text, message.disable_notification))
        return None

    def to(self, chat_id: int) -> list[str]:
        return [text for chat, text, _ in self.messages if chat == chat_id]


async def run(
    store: NotificationStore,
    send: Sent,
    clock: FakeClock,
    *,
    digest_after: int | Callable[[int], int] = 5,
    **kwargs: object,
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
        **kwargs,  # type: ignore[arg-type]
    )
    return summary.sent


async def test_a_burst_of_12_is_one_digest_with_12_entries_and_12_rows_settled(
    store: NotificationStore, clock: FakeClock
) -> None:
    """The other chat's one alert arrives as itself, not held up behind the digest."""
    await store.enqueue_many([alert(f"a{i}") for i in range(12)] + [alert("q", chat_id=QUIET)])
    send = Sent()
    assert await run(store, send, clock) == 13
    [digest] = send.to(BURSTY)
    assert digest.startswith("📬 12 alerts\n")
    assert [line.split(">")[1].split("<")[0] for line in digest.splitlines()[1:]] == [
        f"a{i}" for i in range(12)
    ]
    assert send.to(QUIET) == ["<b>q</b> full"]
    assert await statuses(store) == {"sent": 13}
    sent_at = await store.db.fetchall(
        "SELECT DISTINCT sent_at FROM notifications WHERE chat_id = ?", (BURSTY,)
    )
    assert len(sent_at) == 1  # settled together


async def test_up_to_the_threshold_each_alert_is_its_own_message(
    store: NotificationStore, clock: FakeClock
) -> None:
    await store.enqueue_many([alert(f"a{i}") for i in range(5)])
    send = Sent()
    assert await run(store, send, clock) == 5
    assert send.to(BURSTY) == [f"<b>a{i}</b> full" for i in range(5)]


async def test_a_chat_sets_its_own_threshold(store: NotificationStore, clock: FakeClock) -> None:
    """The caller hands each chat's threshold in: 2 for one chat makes its 3 alerts a digest,
    the default 5 leaves the other's 3 alone."""
    await store.enqueue_many(
        [alert(f"a{i}") for i in range(3)] + [alert(f"q{i}", chat_id=QUIET) for i in range(3)]
    )
    send = Sent()
    threshold = {BURSTY: 2}
    assert await run(store, send, clock, digest_after=lambda chat: threshold.get(chat, 5)) == 6
    assert len(send.to(BURSTY)) == 1
    assert len(send.to(QUIET)) == 3


async def test_a_digest_over_4096_characters_splits_into_as_few_messages_as_fit(
    store: NotificationStore, clock: FakeClock
) -> None:
    """60 entries of about 250 characters: each message is within the limit and the next
    entry would not have fit in it; every entry arrives once, in order."""
    await store.enqueue_many([alert(f"a{i:02}", width=100) for i in range(60)])
    send = Sent()
    assert await run(store, send, clock) == 60
    messages = send.to(BURSTY)
    assert len(messages) > 1
    entries = [line for text in messages for line in text.splitlines()[1:]]
    assert [entry.split(">")[1].split("<")[0] for entry in entries] == [
        f"a{i:02}" for i in range(60)
    ]
    for text, following in itertools.pairwise(messages):
        assert len(text.encode("utf-16-le")) // 2 <= MESSAGE_LIMIT
        longer = render(BURSTY, [*text.splitlines()[1:], following.splitlines()[1]])
        assert len(longer.encode("utf-16-le")) // 2 > MESSAGE_LIMIT
    assert await statuses(store) == {"sent": 60}


async def test_alerts_without_a_digest_line_never_go_in_a_digest(
    store: NotificationStore, clock: FakeClock
) -> None:
    plain = [Outgoing(BURSTY, "info", f"<b>i{i}</b>", f"i{i}") for i in range(8)]
    await store.enqueue_many(plain)
    send = Sent()
    assert await run(store, send, clock) == 8
    assert len(send.to(BURSTY)) == 8


async def test_a_crash_mid_digest_repeats_only_that_message(
    store: NotificationStore, clock: FakeClock
) -> None:
    """Cut off during the second of three digest messages: the first is sent and settled,
    the second's rows keep their attempt and go again, the third's go back unspent; after
    the restart each entry of the first and third arrives once, of the second twice."""
    await store.enqueue_many([alert(f"a{i:02}", width=100) for i in range(45)])
    started = asyncio.Event()
    first = Sent()

    async def dies_on_the_second(message: Message) -> object:
        if first.messages:
            started.set()
            first.messages.append((message.chat_id, message.text, message.disable_notification))
            await asyncio.Event().wait()  # the process is killed mid-send
        return await first(message)

    task = asyncio.create_task(
        drain(
            store,
            dies_on_the_second,
            clock=clock,
            sleep=clock.sleep,
            rand=random.Random(0),
            digest_after=5,
            render_digest=render,
        )
    )
    await within(started.wait(), "the second send to start")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await within(task, "the cancelled drain to end")
    [one, two] = first.to(BURSTY)
    rows = await store.db.fetchall(
        "SELECT status, attempts, count(*) FROM notifications GROUP BY status, attempts"
    )
    carried = len(two.splitlines()) - 1
    assert sorted(tuple(r) for r in rows) == sorted(
        [
            ("sent", 1, len(one.splitlines()) - 1),
            ("sending", 1, carried),
            ("pending", 0, 45 - carried - len(one.splitlines()) + 1),
        ]
    )

    await store.take_over_leases()
    again = Sent()
    assert await run(store, again, clock) == 45 - (len(one.splitlines()) - 1)
    seen = [
        line for text in [*first.to(BURSTY), *again.to(BURSTY)] for line in text.splitlines()[1:]
    ]
    for line in one.splitlines()[1:]:
        assert seen.count(line) == 1
    for line in two.splitlines()[1:]:
        assert seen.count(line) == 2
    assert len(set(seen)) == 45
    assert await statuses(store) == {"sent": 45}


async def test_a_digest_in_silent_quiet_hours_is_silent(
    store: NotificationStore, clock: FakeClock
) -> None:
    quiet = {BURSTY: parse_quiet_hours("0-23:59 silent")}
    await store.enqueue_many([alert(f"a{i}") for i in range(8)], quiet=quiet)
    send = Sent()
    assert await run(store, send, clock) == 8
    assert [silent for _, _, silent in send.messages] == [True]
