"""How close habicht's delivery comes to Telegram's limits, whatever the backlog's shape,
without ever breaking one.

Each shape is queued in a fresh database and delivered by the real drain through the real
`telegram.Bot` to the fake Bot API, which counts limit violations: more than 30 messages in
any second overall, two messages to one chat less than 1 s apart, or more than 20 to one
group in any minute. Two modes:

- real time (`1,000 chats x 1`): `habicht.bot.deliver`, the drain `habicht run` runs, through
  the Bot as `build_application` builds it (HTTPXRequest, AIORateLimiter) to the fake served
  over HTTP on 127.0.0.1, answering every request after 50 ms;
- virtual time (the long shapes): `habicht.queue.drain` on a `SteppedClock`, through a plain
  `telegram.Bot` to the fake in-process (PTB's AIORateLimiter waits in real time, so it stays
  out; the queue's pacer is what is measured). Database work takes no virtual time here.

For each shape it prints the time, messages/s, and the ratio to the physical minimum,
max(messages / 30 s, the busiest chat's count x its gap: 1 s private, 3 s group).

`--quick` (what CI runs, so that a change that breaks the benchmark fails there) delivers the
same kinds of shape, small (60 chats x 1, 3 chats x 4 in real time; 12 messages of chat A
before B's, two groups above their 20 a minute), in seconds; its ratios are rough.

    python benchmarks/delivery.py [--quick] [--skip-real | --real-only]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx
from telegram import Bot
from telegram.constants import ParseMode
from telegram.request import HTTPXRequest

from habicht.bot import build_application, deliver
from habicht.config import Settings
from habicht.db import Database
from habicht.fakes.clock import SteppedClock
from habicht.fakes.telegram import FakeBotAPI
from habicht.message import Message, Outgoing
from habicht.queue import NotificationStore, drain

ANSWER_DELAY = 0.05
TEXT = '🆕 <b><a href="https://www.willhaben.at/iad/x-{n}">Sofa &amp; Tisch {n}</a></b>\n💶 € 120'


@dataclass(frozen=True)
class Shape:
    """`counts[chat] = messages`, queued in one transaction (rows interleaved across chats
    as a scan would queue them); `late_chat` gets one more, queued after the 10th send."""

    name: str
    counts: dict[int, int]
    late_chat: int | None = None

    @property
    def total(self) -> int:
        return sum(self.counts.values()) + (self.late_chat is not None)

    def minimum(self) -> float:
        busiest = max(n * (3.0 if chat < 0 else 1.0) for chat, n in self.counts.items())
        return max(self.total / 30, busiest)

    def items(self) -> list[Outgoing]:
        rows, n = [], 0
        for i in range(max(self.counts.values())):
            for chat, count in self.counts.items():
                if i < count:
                    rows.append(Outgoing(chat, "new", TEXT.format(n=n), f"bench:{n}"))
                    n += 1
        return rows


@dataclass(frozen=True)
class Result:
    seconds: float
    messages: int
    violations: Counter[str]
    late_wait: float | None = None
    private_done: float | None = None


def spread(chats: int, each: int) -> Shape:
    """`chats` private chats with `each` messages apiece."""
    return Shape(f"{chats:,} chats x {each}", {10_000 + c: each for c in range(chats)})


def backlog(messages: int) -> Shape:
    """One chat's backlog, and another chat's message queued behind it."""
    return Shape(f"chat A x {messages}, then chat B x 1", {10_000: messages}, late_chat=20_000)


def groups(each: int, private: int, private_each: int) -> Shape:
    """Two groups (their 20 a minute) among private chats."""
    counts = {-1001: each, -1002: each} | {10_000 + c: private_each for c in range(private)}
    return Shape(f"2 groups x {each}, {private} private x {private_each}", counts)


REAL = [spread(1000, 1), spread(40, 50)]
SHAPES = [spread(40, 50), backlog(300), spread(1000, 10), groups(60, 20, 5)]
QUICK_REAL = [spread(60, 1), spread(3, 4)]
"""`--quick`: the same shapes, small enough for seconds; groups above their 20 a minute."""
QUICK = [spread(3, 4), backlog(12), spread(20, 5), groups(22, 3, 5)]


async def run_real(shape: Shape) -> Result:
    """The shape as `habicht run` delivers it."""
    with (
        tempfile.TemporaryDirectory() as tmp,
        FakeBotAPI(delay=ANSWER_DELAY) as api,
        api.serve() as server,
    ):
        settings = Settings(
            bot_token=api.token,
            telegram_api=server.base_url,
            db=Path(tmp) / "habicht.sqlite3",
            willhaben_url="http://127.0.0.1:9",  # never asked: no scrape runs here
        )
        app = build_application(settings)
        async with app:
            assert app.post_init is not None
            assert app.post_shutdown is not None
            await app.post_init(app)
            services = app.bot_data
            await services.store.enqueue_many(shape.items())
            start = time.perf_counter()
            await deliver(services)
            seconds = time.perf_counter() - start
            stats = await services.store.stats()
            await app.post_shutdown(app)
        assert stats.sent == shape.total, f"only {stats.sent} of {shape.total} were sent"
        return Result(seconds, len(api.messages()), Counter(v.kind for v in api.violations))


async def run_virtual(shape: Shape) -> Result:
    """The shape through the real drain on a stepped virtual clock."""
    with tempfile.TemporaryDirectory() as tmp:
        async with Database(Path(tmp) / "habicht.sqlite3") as db:
            clock = SteppedClock(db)
            store = NotificationStore(db, clock=clock, max_attempts=5, ttl=86400)
            start = clock()
            with FakeBotAPI(clock=clock) as api:
                request = HTTPXRequest(
                    connection_pool_size=64,
                    httpx_kwargs={"transport": httpx.MockTransport(api.handle)},
                )
                async with Bot(api.token, request=request) as bot:
                    queued: list[float] = []

                    async def send(message: Message) -> object:
                        if shape.late_chat is not None and len(api.messages()) == 10 and not queued:
                            queued.append(clock())
                            late = Outgoing(shape.late_chat, "new", "<b>late</b>", "bench:late")
                            await store.enqueue(late)
                        return await bot.send_message(
                            message.chat_id, message.text, parse_mode=ParseMode.HTML
                        )

                    await store.enqueue_many(shape.items())
                    summary = await drain(
                        store, send, clock=clock, sleep=clock.sleep, rand=random.Random(0)
                    )
                seconds = max(m.at for m in api.messages()) - start
                assert summary.sent == shape.total, f"only {summary.sent} of {shape.total} sent"
                late_wait = None
                if queued:
                    (late,) = api.messages(shape.late_chat)
                    late_wait = late.at - queued[0]
                private = [m.at for m in api.messages() if m.chat_id > 0]
                return Result(
                    seconds,
                    len(api.messages()),
                    Counter(v.kind for v in api.violations),
                    late_wait=late_wait,
                    private_done=max(private) - start if private else None,
                )


def report(name: str, result: Result, minimum: float | None) -> None:
    ratio = f", {result.seconds / minimum:4.2f}x the minimum {minimum:.0f} s" if minimum else ""
    kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(result.violations.items()))
    print(
        f"{name:<32} {result.messages:>6} in {result.seconds:8.2f} s = "
        f"{result.messages / result.seconds:6.2f} msg/s{ratio}, "
        f"{sum(result.violations.values())} violations{f' ({kinds})' if kinds else ''}"
    )
    if result.late_wait is not None:
        print(f"{'':<32} chat B's message went out {result.late_wait:.2f} s after it was queued")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small shapes, in seconds (CI)")
    parser.add_argument("--skip-real", action="store_true", help="only the virtual-time shapes")
    parser.add_argument(
        "--real-only", action="store_true", help="only the real-time shapes (about 100 s)"
    )
    args = parser.parse_args(argv)
    if not args.skip_real:
        print(f"real time: fake Bot API on 127.0.0.1 answering after {ANSWER_DELAY * 1000:.0f} ms")
        for shape in QUICK_REAL if args.quick else REAL:
            report(shape.name, asyncio.run(run_real(shape)), shape.minimum())
    if args.real_only:
        return
    print("virtual time (SteppedClock), fake Bot API in-process")
    for shape in QUICK if args.quick else SHAPES:
        result = asyncio.run(run_virtual(shape))
        report(shape.name, result, shape.minimum())
        if result.private_done is not None and min(shape.counts) < 0:
            print(f"{'':<32} private chats done after {result.private_done:.2f} s")


if __name__ == "__main__":
    main()
