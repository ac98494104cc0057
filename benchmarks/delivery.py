"""How close habicht's delivery comes to Telegram's limits without ever breaking one.

Queues notifications in a fresh database and delivers them with `habicht.bot.deliver` — the
drain the bot runs, through the real `telegram.Bot` (python-telegram-bot's HTTPXRequest and
AIORateLimiter, as `habicht run` builds it) — to the fake Bot API served over HTTP on
127.0.0.1, which answers every request after 50 ms and counts limit violations: more than 30
messages in any second overall, or two messages to one chat less than 1 s apart. Two runs:
1,000 notifications to 1,000 distinct chats (bounded by the overall limit, goal ≥ 28.5
messages/s with zero violations), and 100 to a single chat (bounded by the per-chat limit:
about 1 message/s).

    python benchmarks/delivery.py [--chats N] [--single N] [--batch N]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from habicht.bot import build_application, deliver
from habicht.config import Settings
from habicht.fakes.telegram import FakeBotAPI
from habicht.queue import Outgoing

ANSWER_DELAY = 0.05
GOAL = 28.5
TEXT = '🆕 <b><a href="https://www.willhaben.at/iad/x-{n}">Sofa &amp; Tisch {n}</a></b>\n💶 € 120'


@dataclass(frozen=True)
class Result:
    messages: int
    seconds: float
    violations: int
    failed_sends: int

    @property
    def rate(self) -> float:
        return self.messages / self.seconds


async def run(count: int, chats: int, *, batch: int) -> Result:
    """Deliver `count` queued notifications spread over `chats` chats; what the fake saw."""
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
            queue_batch=batch,
        )
        app = build_application(settings)
        async with app:
            assert app.post_init is not None
            assert app.post_shutdown is not None
            await app.post_init(app)
            services = app.bot_data
            await services.store.enqueue_many(
                Outgoing(10_000 + n % chats, "new", TEXT.format(n=n), f"bench:{n}")
                for n in range(count)
            )
            start = time.perf_counter()
            await deliver(services)
            seconds = time.perf_counter() - start
            stats = await services.store.stats()
            await app.post_shutdown(app)
        assert stats.sent == count, f"only {stats.sent} of {count} were sent"
        delivered = len(api.messages())
        return Result(
            messages=delivered,
            seconds=seconds,
            violations=len(api.violations),
            failed_sends=sum(api.attempts.values()) - delivered,
        )


def report(title: str, result: Result) -> None:
    print(
        f"{title:<34} {result.messages:>5} messages in {result.seconds:7.2f} s = "
        f"{result.rate:6.2f} msg/s, {result.violations} limit violations, "
        f"{result.failed_sends} failed sends (429s)"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chats", type=int, default=1000, help="distinct chats (default 1000)")
    parser.add_argument(
        "--single", type=int, default=100, help="messages to one chat (default 100; 0 skips)"
    )
    parser.add_argument(
        "--batch", type=int, default=50, help="HABICHT_QUEUE_BATCH (default 50, as shipped)"
    )
    args = parser.parse_args()
    print(
        f"fake Bot API on 127.0.0.1 answering after {ANSWER_DELAY * 1000:.0f} ms; "
        f"batches of {args.batch}"
    )
    spread = await run(args.chats, args.chats, batch=args.batch)
    report(f"{args.chats} chats, one message each", spread)
    met = spread.rate >= GOAL and not spread.violations
    print(f"  goal >= {GOAL} msg/s with 0 violations: {'met' if met else 'NOT met'}")
    if args.single:
        single = await run(args.single, 1, batch=args.batch)
        report(f"1 chat, {args.single} messages", single)


if __name__ == "__main__":
    asyncio.run(main())
