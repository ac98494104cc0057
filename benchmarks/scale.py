"""The scheduler at scale: CPU per pass, peak memory, and the database after 30 days.

2,000 searches and 10,000 watches over 2,000 chats (5 each, every search watched by 5
chats), in a real SQLite file (WAL, `synchronous=FULL`), scanned by the real scheduler pass
(`habicht.scraper.run_pass`) through the real `WillhabenClient` over an in-process httpx
transport with no fetch gap. Every request renders its page anew (30 adverts, random ids,
as real pages have), so nothing is cached by the benchmark.

CPU is the process's CPU time minus what the fake site spent rendering pages (printed
apart): the bot's own work — fetching, parsing, the database (its threads included) and
rendering alerts.

- pass 1: every watch's baseline (2,000 fetches, 60,000 listings);
- pass 2: an interval later, one new advert on every search (10,000 alerts enqueued);
- the baseline the goals are measured against: the interval itself (300 s) — CPU per pass
  as a share of it (goal ≤ 10 %);
- peak RSS of this process (goal ≤ 200 MB);
- 30 simulated days: per day one pass with `--new-per-day` new adverts on every search, every
  alert marked sent, and the daily retention (`habicht.retention.retain`, 30 days) — the
  database size every 5 days, and how big it stays.

Finally the politeness-bound interval at this size: searches * (gap + fetch time), with the
default gap of 2 s.

The baseline measured in the same run: the same pass as the old cycle barrier ran it
(`habicht.scraper.scan`, every search in id order, no due times), on one more new advert per
search; the ratio is the scheduler's cost against it.

    python benchmarks/scale.py [--searches N] [--days N] [--new-per-day N]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import resource
import tempfile
import time
from collections.abc import Awaitable
from decimal import Decimal
from pathlib import Path

import httpx

from habicht.bot import MessageRenderer, Texts
from habicht.db import Database
from habicht.fakes import FakeAdvert, render_search_page
from habicht.queue import NotificationStore
from habicht.retention import retain
from habicht.scraper import ScanSummary, WillhabenClient, capacity, run_pass, scan

RENDERER = MessageRenderer(Texts("de"))
"""The bot's own texts, so the outbox rows have their real size."""
INTERVAL = 300.0
DAY = 86400.0
WATCHES_PER_CHAT = 5
PAGE = 30
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


async def deliver_all(db: Database, now: float) -> None:
    """Every pending alert delivered (the drain is not what is measured here)."""
    async with db.transaction() as conn:
        await conn.execute(
            "UPDATE notifications SET status = 'sent', sent_at = ?, updated_at = ?"
            " WHERE status = 'pending'",
            (now, now),
        )


def size_mb(path: Path) -> float:
    files = [path, path.with_name(path.name + "-wal")]
    return sum(f.stat().st_size for f in files if f.exists()) / 1e6


async def main(searches: int, days: int, new_per_day: int) -> None:
    clock = Clock()
    site = Site(searches, random.Random(11))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "scale.sqlite3"
        async with (
            Database(path) as db,
            WillhabenClient(
                base_url="http://willhaben.test",
                fetch_gap=0.0,
                clock=clock,
                transport=httpx.MockTransport(site),
            ) as client,
        ):
            await populate(db, searches, clock())
            store = NotificationStore(db, clock=clock, max_attempts=5, ttl=DAY)

            async def measured(scanning: Awaitable[ScanSummary], name: str) -> tuple[float, float]:
                cpu, wall, site_cpu = time.process_time(), time.perf_counter(), site.cpu
                summary = await scanning
                site_cpu = site.cpu - site_cpu
                cpu = time.process_time() - cpu - site_cpu
                wall = time.perf_counter() - wall
                assert summary.scanned + len(summary.failed) == searches, summary
                share = 100 * cpu / INTERVAL
                print(
                    f"{name:<22}{cpu:7.1f}  {share:9.1f} %  {wall:7.1f}  {summary.new:7}"
                    f"  {site_cpu:9.1f}"
                )
                return cpu, wall

            def one_pass() -> Awaitable[ScanSummary]:
                return run_pass(
                    db,
                    client,
                    RENDERER,
                    clock=clock,
                    max_attempts=5,
                    interval=INTERVAL,
                    slack=10.0,
                )

            async def next_interval(new: int) -> None:
                await deliver_all(db, clock())
                clock.offset += INTERVAL
                site.add(new)

            print(f"{searches} searches, {searches * WATCHES_PER_CHAT} watches, {searches} chats")
            print("pass                   CPU s  % of 300 s   wall s   alerts  site CPU s")
            await measured(one_pass(), "baseline")
            await next_interval(1)
            cpu, wall = await measured(one_pass(), "1 new per search")
            await next_interval(1)
            old = scan(db, client, RENDERER, clock=clock, max_attempts=5)
            old_cpu, _ = await measured(old, "  id-order cycle (old)")
            print(f"scheduler / old cycle: {cpu / old_cpu:.2f}x CPU")
            fetch_time = wall / searches
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            print(f"peak RSS {rss:.0f} MB (goal ≤ 200 MB)")

            print(
                f"\nday   database MB   (per day: {new_per_day} new adverts on each search,"
                " all delivered, retention 30 days)"
            )
            for day in range(1, days + 1):
                await deliver_all(db, clock())
                clock.offset += DAY
                site.add(new_per_day)
                await one_pass()
                await deliver_all(db, clock())
                await retain(db, store, now=clock(), days=30)
                if day % 5 == 0 or day == days:
                    print(f"{day:3}   {size_mb(path):11.1f}")

    for latency, what in (
        (fetch_time, "in-process fetch"),
        (fetch_time + NETWORK, f"+{NETWORK} s network"),
    ):
        fits = capacity(
            searches,
            interval=INTERVAL,
            fetch_gap=DEFAULT_GAP,
            seconds_per_search=DEFAULT_GAP + latency,
        )
        print(
            f"\npoliteness bound at HABICHT_FETCH_GAP={DEFAULT_GAP:g} ({what}, {latency:.3f} s):"
            f" {fits.fits} searches per {INTERVAL:g} s; {searches} searches are scanned every"
            f" {fits.interval_needed / 60:.0f} min"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--searches", type=int, default=2000)
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--new-per-day", type=int, default=3)
    args = parser.parse_args()
    asyncio.run(main(args.searches, args.days, args.new_per_day))
