"""What a chart costs, and whether the bot keeps answering others while charts are drawn.

Two parts, each against a baseline measured in the same run:

- one chart: the median time to draw a /history chart (`history_png`: an advert's five
  prices over 60 days of its search's going price) and a /stats <n> chart (`search_png`: 30
  days of median, quartiles and count) as PNG bytes, against rendering the /history text the
  chart comes with (`Texts.fill`, 20 price lines) — the ratio is what a picture costs over
  the words;
- the bot while charts are drawn: the real Application as `build_application` builds it,
  over the fake Bot API (in-process) and a fake willhaben page of 30 adverts one chat
  watches. Another chat's /list is sent over and over, one at a time, and timed from
  `process_update` to its answer at the fake Telegram; and a ticker measures how late the
  event loop wakes it (every 5 ms). First with nothing else going on (the baseline), then
  while `--charts` (20) /history of different adverts are drawn, all asked for at once: the
  ratio of the two p95s is what the charts cost everyone else. The charts' own times (from
  the ask to the photo at Telegram) are printed too.

`--quick` (what CI runs, so that a change that breaks the benchmark fails there) times 3 runs
of each chart and draws 4 charts at once; its figures are rough.

    python benchmarks/charts.py [--quick] [--repeat N] [--charts N]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
from telegram import Update

from habicht.bot import BASELINE, Texts, build_application, history_png, run_jobs_now, search_png
from habicht.config import Settings
from habicht.fakes import FakeAdvert, render_search_page
from habicht.fakes.telegram import FakeBotAPI
from habicht.market.going import PriceStats
from habicht.market.history import PricePoint
from habicht.market.trend import GoingDay, day_bounds

DAY = 86400.0
SEARCH = "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz?keyword=sofa"
WATCHER, OTHER = 2002, 3003
TICK = 0.005
"""How often the ticker asks the event loop to wake it (seconds)."""


def sample_days(now: float, days: int, rand: random.Random) -> list[GoingDay]:
    """`days` days of a search's going price: 15 to 60 prices a day around € 450."""
    out = []
    for start, end in day_bounds(now, days):
        median = 450 + rand.randint(-40, 40)
        stats = PriceStats(
            rand.randint(15, 60), Decimal(median), Decimal(median - 90), Decimal(median + 110)
        )
        out.append(GoingDay(start, end, stats))
    return out


def median_seconds(draw: Callable[[], object], repeat: int) -> float:
    draw()  # warm up: fonts, caches
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        draw()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def one_chart(repeat: int) -> None:
    rand = random.Random(21)
    now = time.time()
    texts = Texts("de")
    band = sample_days(now, 60, rand)
    month = sample_days(now, 30, rand)
    path = [PricePoint(now - (50 - 10 * n) * DAY, Decimal(560 - 30 * n)) for n in range(5)]
    lines = [
        texts.fill("history_line", price=f"€ {400 + n}", age=texts.age(n * DAY)) for n in range(20)
    ]

    def text() -> object:
        return texts.fill(
            "history", url="https://www.willhaben.at/iad/x-1", title="Sofa", lines="\n".join(lines)
        )

    words = median_seconds(text, max(repeat, 30) * 10)
    history = median_seconds(lambda: history_png(path, band, now=now, texts=texts), repeat)
    stats = median_seconds(lambda: search_png(month, texts=texts), repeat)
    size = len(history_png(path, band, now=now, texts=texts) or b"")
    print(f"one chart, median of {repeat} (the text: of {max(repeat, 30) * 10})")
    print(f"  the /history text            {words * 1e3:8.3f} ms")
    print(
        f"  the /history chart           {history * 1e3:8.1f} ms  {history / words:,.0f}x the text,"
        f" {size / 1024:.0f} KiB"
    )
    print(f"  the /stats <n> chart         {stats * 1e3:8.1f} ms  {stats / words:,.0f}x the text")


class Chats:
    """Updates as Telegram sends them, into the Application; answers timed at the fake."""

    def __init__(self, app: Any, api: FakeBotAPI) -> None:
        self.app, self.api = app, api
        self.ids = itertools.count(1)

    async def say(self, chat_id: int, text: str) -> None:
        command = len(text.split()[0])
        message = {
            "message_id": next(self.ids),
            "date": int(time.time()),
            "chat": {"id": chat_id, "type": "private"},
            "from": {"id": chat_id, "is_bot": False, "first_name": "Bench"},
            "text": text,
            "entities": [{"type": "bot_command", "offset": 0, "length": command}],
        }
        update = Update.de_json({"update_id": next(self.ids), "message": message}, self.app.bot)
        await self.app.process_update(update)

    async def answered(self, chat_id: int, count: int) -> None:
        await asyncio.to_thread(
            self.api.wait_until, lambda: len(self.api.messages(chat_id)) >= count, timeout=120
        )


async def ticker(lags: list[float], stop: asyncio.Event) -> None:
    """How late the event loop wakes a task that sleeps `TICK` at a time."""
    while not stop.is_set():
        start = time.perf_counter()
        await asyncio.sleep(TICK)
        lags.append(time.perf_counter() - start - TICK)


async def lists_while(chats: Chats, busy: Callable[[], bool], least: int) -> list[float]:
    """Time the other chat's /list, one after another, while `busy()` (at least `least`)."""
    times = []
    while busy() or len(times) < least:
        count = len(chats.api.messages(OTHER)) + 1
        start = time.perf_counter()
        await chats.say(OTHER, "/list")
        await chats.answered(OTHER, count)
        times.append(time.perf_counter() - start)
    return times


def p95(values: list[float]) -> float:
    return (
        statistics.quantiles(values, n=20, method="inclusive")[-1] if len(values) > 1 else values[0]
    )


async def the_bot_meanwhile(charts: int) -> None:
    rand = random.Random(7)
    adverts = [
        FakeAdvert(
            str(rand.randrange(10**8, 2 * 10**9)), f"Sofa {n}", Decimal(rand.randrange(300, 600))
        )
        for n in range(30)
    ]
    page = render_search_page(adverts)
    with tempfile.TemporaryDirectory() as tmp, FakeBotAPI() as api:
        settings = Settings(
            bot_token=api.token,
            db=Path(tmp) / "habicht.sqlite3",
            fetch_gap=0.0,
            willhaben_url="http://willhaben.test",
        )
        app = build_application(
            settings,
            telegram_transport=api.transport(),
            willhaben_transport=httpx.MockTransport(lambda _: httpx.Response(200, text=page)),
        )
        async with app:
            assert app.post_init is not None
            assert app.post_shutdown is not None
            await app.post_init(app)
            try:
                chats = Chats(app, api)
                await chats.say(WATCHER, f"/watch {SEARCH}")
                await run_jobs_now(app, BASELINE)
                await chats.say(OTHER, "/start")
                await report_meanwhile(app, chats, adverts[:charts])
            finally:
                await app.post_shutdown(app)


async def report_meanwhile(app: Any, chats: Chats, adverts: list[FakeAdvert]) -> None:
    stop = asyncio.Event()
    idle_lags: list[float] = []
    ticking = asyncio.create_task(ticker(idle_lags, stop))
    idle = await lists_while(chats, lambda: False, 30)
    stop.set()
    await ticking

    worker = app.bot_data.charts
    stop = asyncio.Event()
    busy_lags: list[float] = []
    ticking = asyncio.create_task(ticker(busy_lags, stop))
    before = len(chats.api.messages(WATCHER))
    start = time.perf_counter()
    for advert in adverts:
        await chats.say(WATCHER, f"/history {advert.id}")
    done: list[float] = []

    async def photos() -> None:
        for n in range(1, len(adverts) + 1):
            await chats.answered(WATCHER, before + n)
            done.append(time.perf_counter() - start)

    collecting = asyncio.create_task(photos())
    busy = await lists_while(chats, lambda: not collecting.done(), 5)
    await collecting
    stop.set()
    await ticking
    sent = chats.api.messages(WATCHER)[before:]
    assert all(m.photo is not None for m in sent), "a chart was answered with its text alone"
    assert worker.drawn == len(adverts)

    print(f"\nthe bot while {len(adverts)} charts are drawn (asked for at once)")
    print(
        f"  the charts: the first at Telegram after {done[0]:.2f} s,"
        f" the last after {done[-1]:.2f} s"
    )
    print(f"  {'':28} {'p50':>9} {'p95':>9} {'max':>9}")
    for name, values in (
        ("another chat's /list, idle", idle),
        ("  … while charts are drawn", busy),
        ("event loop lag, idle", idle_lags),
        ("  … while charts are drawn", busy_lags),
    ):
        print(
            f"  {name:28} {statistics.median(values) * 1e3:7.1f}ms {p95(values) * 1e3:7.1f}ms"
            f" {max(values) * 1e3:7.1f}ms  ({len(values)} samples)"
        )
    print(f"  /list p95 while drawing: {p95(busy) / p95(idle):.1f}x idle's")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 timed runs, 4 charts (CI)")
    parser.add_argument("--repeat", type=int, help="timed runs of each chart (30; quick 3)")
    parser.add_argument("--charts", type=int, help="charts asked for at once (20; quick 4)")
    args = parser.parse_args()
    one_chart(args.repeat or (3 if args.quick else 30))
    asyncio.run(the_bot_meanwhile(args.charts or (4 if args.quick else 20)))


if __name__ == "__main__":
    main()
