"""Telegram's rate limits kept (`habicht.queue.pacing`): at most 30 messages in any second,
and a second between two to one chat, over a real drain."""

from __future__ import annotations

import itertools
import random

from kit.delivery import Recorder, message
from kit.fakes import FakeClock

from habicht.queue import NotificationStore, drain


async def test_pacing_keeps_telegrams_limits(store: NotificationStore, clock: FakeClock) -> None:
    """At most 30 messages in any second, and at least 1 s between two to one chat."""
    await store.enqueue_many(
        [message(f"m{i}", chat_id=i % 40) for i in range(120)]
        + [message(f"solo{i}", chat_id=99) for i in range(10)]
    )
    send = Recorder(clock)
    summary = await drain(store, send, clock=clock, sleep=clock.sleep, rand=random.Random(0))
    assert summary.sent == len(send.sent) == 130
    times = [at for at, _, _ in send.sent]
    assert times == sorted(times)
    slack = 1e-6  # float rounding of 1/30 s steps at epoch magnitudes
    assert all(later - first >= 1 - slack for first, later in zip(times, times[30:], strict=False))
    by_chat: dict[int, list[float]] = {}
    for at, chat_id, _ in send.sent:
        by_chat.setdefault(chat_id, []).append(at)
    gaps = [b - a for ats in by_chat.values() for a, b in itertools.pairwise(ats)]
    assert min(gaps) >= 1 - slack
    assert [text for _, chat, text in send.sent if chat == 99] == [
        f"<b>solo{i}</b>" for i in range(10)
    ]
