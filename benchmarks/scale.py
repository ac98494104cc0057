"""The scheduler at scale: CPU per pass, peak memory, and the database over simulated days.

The bot is built as `habicht run` builds it — `build_application`, then its `post_init`
(database, willhaben client, the alerts' renderer with its signer and chat settings) — so
the benchmark follows the app's wiring instead of copying it. Its parts then run the
scheduler's passes as the `scrape` job does: the real `habicht.scraper.run_pass` through the
real `WillhabenClient` over an in-process httpx transport (`HABICHT_FETCH_GAP=0`), on a real
SQLite file (WAL, `synchronous=FULL`). Every request renders its page anew (30 adverts,
random ids, as real pages have), so nothing is cached by the benchmark. Telegram is the fake
Bot API in-process; only the startup calls reach it (alerts are marked delivered in SQL:
the drain is `benchmarks/delivery.py`'s subject).

CPU is the process's CPU time minus what the fake site spent rendering pages (printed
apart): the bot's own work — fetching, parsing, the database (its threads included) and
rendering alerts.

- the passes, at `--searches` (2,000) searches and 5 watches each over as many chats:
  pass 1, every watch's baseline (60,000 listings); pass 2, an interval later, one new advert
  on every search (10,000 alerts enqueued). Goal: CPU per pass ≤ 10 % of the 300 s interval;
- the baseline measured in the same run: the same pass as the old cycle barrier ran it
  (`habicht.scraper.scan`, every search in id order, no due times), on one more new advert
  per search; the ratio is the scheduler's cost against it;
- a search's own scan (issue 26): the CPU of pass 2 per search, one new advert for its five
  watches (goal < 8 ms), against reading its page alone in the same run — the client's
  fetch and parse of every search's page, nothing recorded: what any scan must spend.
  `--repeat N` runs pass 2's shape N times (one more new advert each) and takes the median:
  one pass moves by a third with the machine's load;
- peak RSS of this process (goal ≤ 200 MB);
- the database over `--days` (40) simulated days, in a second bot with `--day-searches`
  searches: per day one pass with `--new-per-day` new adverts on every search, every alert
  marked sent, and the daily retention (`habicht.retention.retain`,
  `HABICHT_RETENTION_DAYS=30`) — the file and its WAL every 5 days. Goal: bounded. 100
  searches by default, a twentieth of the passes', so that `make bench` stays within 10
  minutes: the file grows with the alerts, so 20 times its size is what 2,000 searches reach
  (the WAL holds what one pass writes between checkpoints, and grows less);
  `--day-searches 2000` is the long form, about 25 minutes;
- the politeness-bound interval at this size: searches * (gap + fetch time), with the
  default gap of 2 s.

`--quick` runs every part in seconds (100 searches; 40 days of 10, so the retention purges):
what CI runs, so that a change that breaks the benchmark fails there. Its figures say nothing.

    python benchmarks/scale.py [--quick] [--searches N] [--repeat N] [--days N]
                               [--day-searches N] [--new-per-day N]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import resource
import statistics
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager
from decimal import Decimal
from pathlib import Path

import httpx

from habicht.bot import BotServices, build_application
from habicht.config import Settings
from habicht.db import Database
from habicht.fakes import FakeAdvert, render_search_page
from habicht.fakes.telegram import FakeBotAPI
from habicht.retention import retain
from habicht.scraper.figures import capacity
from habicht.scraper.scan import ScanSummary, scan
from habicht.scraper.schedule import run_pass

DAY = 86400.0
WATCHES_PER_CHAT = 5
PAGE = 30
SITE = "http://willhaben.test"
TICK = 10.0
"""Seconds between the bot's scheduler passes (`habicht.bot.jobs.TICK`): a pass's slack."""
DEFAULT_GAP = 2.0
NETWORK = 0.3
"""Assumed seconds a real willhaben request takes (the in-process transport has none)."""


class Site:
    """Each search's page: its `PAGE` newest adverts, rendered on every request; `cpu` is
    the CPU time spent rendering (willhaben's work, not the bot's: subtracted)."""

    def __init__(self, searches: int, rand: random.Random) -> None:
        self.rand = rand
        self.cpu = 0.0
        self.adverts = {f"k{n:05d}": [self._advert() for _ in range(PAGE)] for n in range(searches)}

    def _advert(self) -> FakeAdvert:
        ad_id = str(self.rand.randrange(500_000_000, 2_200_000_000))
        title = f"MSI GeForce RTX 3070 Gaming X Trio 8GB {ad_id}"
        return FakeAdvert(ad_id, title, Decimal(self.rand.randrange(50, 900)))

    def add(self, per_search: int) -> None:
        for keyword, adverts in self.adverts.items():
            self.adverts[keyword] = ([self._advert() for _ in range(per_search)] + adverts)[:PAGE]

    def __call__(self, request: httpx.Request) -> httpx.Response:
        started = time.thread_time()  # the handler runs in the event loop's thread
        adverts = self.adverts[request.url.params["keyword"]]
        page = render_search_page(adverts, rows_requested=PAGE)
        self.cpu += time.thread_time() - started
        return httpx.Response(200, text=page)


class Clock:
    """The real clock, moved forward by whole intervals and days on demand."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset


async def populate(db: Database, searches: int, now: float) -> None:
    """Chats, searches and watches in one transaction (setup, not measured)."""
    chats = searches  # 2,000 chats for 2,000 searches, as in the issue
    async with db.transaction() as conn:
        await conn.executemany(
            "INSERT INTO chats (chat_id, created_at, updated_at) VALUES (?, ?, ?)",
            [(10_000 + c, now, now) for c in range(chats)],
        )
        base = "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz?keyword="
        await conn.executemany(
            "INSERT INTO searches (id, url, created_at) VALUES (?, ?, ?)",
            [(n + 1, f"{base}k{n:05d}&sort=1", now) for n in range(searches)],
        )
        await conn.executemany(
            "INSERT INTO watches (chat_id, search_id, label, created_at) VALUES (?, ?, ?, ?)",
            [
                (10_000 + c, (c * WATCHES_PER_CHAT + j) % searches + 1, f"k{c}-{j}", now)
                for c in range(chats)
                for j in range(WATCHES_PER_CHAT)
            ],
        )


@asynccontextmanager
async def running_bot(
    path: Path, searches: int, site: Site, clock: Clock
) -> AsyncIterator[BotServices]:
    """The services of the bot `habicht run` starts, on a database at `path` that already
    holds `searches` searches and their watches (the bot starts on an existing database, so
    its chat settings are loaded as in production), fetching from `site`."""
    async with Database(path) as db:
        await populate(db, searches, clock())
    with FakeBotAPI() as api:
        settings = Settings(bot_token=api.token, db=path, fetch_gap=0.0, willhaben_url=SITE)
        app = build_application(
            settings,
            clock=clock,
            telegram_transport=api.transport(),
            willhaben_transport=httpx.MockTransport(site),
        )
        assert app.post_init is not None  # both set by the builder
        assert app.post_shutdown is not None
        async with app:
            await app.post_init(app)
            try:
                yield app.bot_data
            finally:
                await app.post_shutdown(app)


def one_pass(services: BotServices) -> Awaitable[ScanSummary]:
    """A scheduler pass over what is due, with the arguments the `scrape` job passes."""
    settings = services.settings
    return run_pass(
        services.db,
        services.client,
        services.renderer,
        clock=services.clock,
        max_attempts=settings.max_attempts,
        interval=settings.scrape_interval,
        slack=TICK,
    )


def expect(summary: ScanSummary, *, searches: int, alerts: int) -> ScanSummary:
    """`summary`, after checking the pass did the work it is timed for: every search
    scanned, none failed, and the alerts the new adverts call for."""
    assert summary.scanned == searches, summary
    assert not summary.failed, summary
    assert summary.new == alerts, f"{summary.new} alerts, expected {alerts}: {summary}"
    return summary


async def deliver_all(db: Database, now: float) -> None:
    """Every pending alert delivered (the drain is not what is measured here)."""
    async with db.transaction() as conn:
        await conn.execute(
            "UPDATE notifications SET status = 'sent', sent_at = ?, updated_at = ?"
            " WHERE status = 'pending'",
            (now, now),
        )


async def read_alone(services: BotServices, site: Site) -> float:
    """CPU seconds a search to fetch and parse its page through the bot's client, nothing
    recorded: the floor under a search's own scan (the site's rendering subtracted)."""
    urls = [row["url"] for row in await services.db.fetchall("SELECT url FROM searches")]
    cpu, site_cpu = time.process_time(), site.cpu
    for url in urls:
        await services.client.search(url)
    return (time.process_time() - cpu - (site.cpu - site_cpu)) / len(urls)


def size_mb(path: Path) -> float:
    return path.stat().st_size / 1e6 if path.exists() else 0.0


async def passes(folder: Path, searches: int, repeat: int) -> float:
    """The timed passes and peak RSS; returns the fetch time per search."""
    clock = Clock()
    site = Site(searches, random.Random(11))
    async with running_bot(folder / "passes.sqlite3", searches, site, clock) as services:
        interval = services.settings.scrape_interval
        max_attempts = services.settings.max_attempts

        async def measured(
            scanning: Awaitable[ScanSummary], name: str, alerts: int
        ) -> tuple[float, float]:
            cpu, wall, site_cpu = time.process_time(), time.perf_counter(), site.cpu
            summary = expect(await scanning, searches=searches, alerts=alerts)
            site_cpu = site.cpu - site_cpu
            cpu = time.process_time() - cpu - site_cpu
            wall = time.perf_counter() - wall
            print(
                f"{name:<22}{cpu:7.1f}  {100 * cpu / interval:9.1f} %  {wall:7.1f}"
                f"  {summary.new:7}  {site_cpu:9.1f}  {1000 * cpu / searches:9.2f}"
            )
            return cpu, wall

        async def next_interval(new: int) -> None:
            await deliver_all(services.db, clock())
            clock.offset += interval
            site.add(new)

        alerts = searches * WATCHES_PER_CHAT
        print(f"{searches} searches, {alerts} watches, {searches} chats")
        print(
            f"pass                   CPU s  % of {interval:g} s   wall s   alerts  site CPU s"
            "  ms/search"
        )
        await measured(one_pass(services), "baseline", 0)
        await next_interval(1)
        cpu, wall = await measured(one_pass(services), "1 new per search", alerts)
        own = [cpu]
        for _ in range(repeat - 1):
            await next_interval(1)
            own.append((await measured(one_pass(services), "  1 new, again", alerts))[0])
        await next_interval(1)
        old = scan(
            services.db, services.client, services.renderer, clock=clock, max_attempts=max_attempts
        )
        old_cpu, _ = await measured(old, "  id-order cycle (old)", alerts)
        reading = await read_alone(services, site)
    print(f"scheduler / old cycle: {cpu / old_cpu:.2f}x CPU")
    scan_ms, read_ms = 1000 * statistics.median(own) / searches, 1000 * reading
    print(
        f"own scan, one new advert for 5 watches: {scan_ms:.2f} ms CPU a search"
        f" (median of {len(own)}; goal < 8 ms); reading its page alone {read_ms:.2f} ms,"
        f" the scan {scan_ms / read_ms:.1f}x"
    )
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS {rss:.0f} MB (goal ≤ 200 MB)")
    return wall / searches


async def simulate_days(folder: Path, searches: int, days: int, new_per_day: int) -> None:
    """The database size over `days` days of `new_per_day` new adverts on every search."""
    clock = Clock()
    site = Site(searches, random.Random(12))
    path = folder / "days.sqlite3"
    async with running_bot(path, searches, site, clock) as services:
        retention = services.settings.retention_days
        alerts = searches * WATCHES_PER_CHAT * new_per_day
        print(
            f"\n{searches} searches, {searches * WATCHES_PER_CHAT} watches; per day"
            f" {new_per_day} new adverts on each search ({alerts} alerts), all delivered,"
            f" retention {retention} days"
        )
        print("day   file MB   WAL MB")
        expect(await one_pass(services), searches=searches, alerts=0)
        for day in range(1, days + 1):
            await deliver_all(services.db, clock())
            clock.offset += DAY
            site.add(new_per_day)
            expect(await one_pass(services), searches=searches, alerts=alerts)
            await deliver_all(services.db, clock())
            await retain(services.db, services.store, now=clock(), days=retention)
            if day % 5 == 0 or day == days:
                wal = size_mb(path.with_name(path.name + "-wal"))
                print(f"{day:3}   {size_mb(path):7.1f}   {wal:6.1f}")


def politeness(searches: int, fetch_time: float, interval: float) -> None:
    for latency, what in (
        (fetch_time, "in-process fetch"),
        (fetch_time + NETWORK, f"+{NETWORK} s network"),
    ):
        fits = capacity(
            searches,
            interval=interval,
            fetch_gap=DEFAULT_GAP,
            seconds_per_search=DEFAULT_GAP + latency,
        )
        print(
            f"\npoliteness bound at HABICHT_FETCH_GAP={DEFAULT_GAP:g} ({what}, {latency:.3f} s):"
            f" {fits.fits} searches per {interval:g} s; {searches} searches are scanned every"
            f" {fits.interval_needed / 60:.0f} min"
        )


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        fetch_time = await passes(Path(tmp), args.searches, args.repeat)
        await simulate_days(Path(tmp), args.day_searches, args.days, args.new_per_day)
    politeness(args.searches, fetch_time, Settings().scrape_interval)


def arguments() -> argparse.Namespace:
    """The command line; `--quick` changes the defaults of the sizes not given."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="every part in seconds (CI)")
    parser.add_argument("--searches", type=int, help="searches of the passes (2000; quick 100)")
    parser.add_argument(
        "--repeat", type=int, help="passes whose median is the own scan (1; quick 2)"
    )
    parser.add_argument("--days", type=int, default=30, help="simulated days (30)")
    parser.add_argument("--day-searches", type=int, help="searches of the days (100; quick 10)")
    parser.add_argument("--new-per-day", type=int, default=3, help="new adverts a day (3)")
    args = parser.parse_args()
    sizes = {"searches": (2000, 100), "repeat": (1, 2), "day_searches": (100, 10)}
    for name, (full, quick) in sizes.items():
        if getattr(args, name) is None:
            setattr(args, name, quick if args.quick else full)
    return args


if __name__ == "__main__":
    asyncio.run(main(arguments()))
