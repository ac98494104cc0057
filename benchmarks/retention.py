"""Whether the database levels off under retention (issue 19, case 13): days of alerts, the
daily `retain`, and the file's used size after each day.

Each simulated day: `--alerts` new-listing alerts for `--chats` chats (three chats an
advert, one watch each, so each row has its watch in `notification_watches`), queued
through `NotificationStore.enqueue_many` and marked sent; the adverts stay on the pages for
`--listed` days (their `listings.updated_at` refreshed each day, as a scan does) and are
gone after; then `retain` with `--retention` days: sent rows older than that
are purged into tombstones, and a tombstone goes once its advert has been off every page that
long. Printed: the rows of each table and the bytes in use (pages less free pages) — the
file itself keeps its high-water mark, SQLite reuses the free pages.

    python benchmarks/retention.py [--quick] [--days N] [--alerts N]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from habicht.db import Database
from habicht.message import Outgoing
from habicht.queue import NotificationStore
from habicht.retention import retain

DAY = 86400.0
START = 1_700_000_000.0
TEXT = (
    "🆕 <b>MSI GeForce RTX 3070 Gaming X Trio 8GB</b>\n"
    "💶 <b>€ 380</b> · 1100 Wien, Favoriten\n"
    '<a href="https://www.willhaben.at/iad/kaufen-und-verkaufen/d/grafikkarte-123456789/">'
    "willhaben.at/iad/…/grafikkarte-123456789</a>"
)
PER_ADVERT = 3
"""Chats alerted of each advert."""

_LISTING = """
INSERT INTO listings (ad_id, title, price, price_display, location, postcode, url, image_url,
                      published_at, first_seen_at, updated_at)
VALUES (?, 'RTX 3070', '380', '€ 380', 'Wien', '1100', ?, NULL, NULL, ?, ?)
"""


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> float:
        return self.now


async def used_bytes(db: Database) -> int:
    pages = int(await db.single_value("PRAGMA page_count"))
    free = int(await db.single_value("PRAGMA freelist_count"))
    return (pages - free) * int(await db.single_value("PRAGMA page_size"))


async def count(db: Database, table: str) -> int:
    return int(await db.single_value(f"SELECT count(*) FROM {table}"))


async def day(
    db: Database, store: NotificationStore, clock: Clock, n: int, args: argparse.Namespace
) -> None:
    """One day: new adverts and their alerts, sent; the adverts still listed seen again."""
    now = clock.now
    adverts = args.alerts // PER_ADVERT
    first = n * adverts
    async with db.transaction() as conn:
        await conn.executemany(
            _LISTING,
            [(f"{ad}", f"https://x.test/{ad}", now, now) for ad in range(first, first + adverts)],
        )
        await conn.execute(
            "UPDATE listings SET updated_at = ? WHERE first_seen_at > ?",
            (now, now - args.listed * DAY),
        )
    alerts = [
        Outgoing(
            chat_id=1000 + (ad * PER_ADVERT + k) % args.chats,
            kind="new",
            text=TEXT,
            dedupe_key=f"new:{ad}:{1000 + (ad * PER_ADVERT + k) % args.chats}",
            ad_id=f"{ad}",
            watch_id=(ad * PER_ADVERT + k) % args.chats,
        )
        for ad in range(first, first + adverts)
        for k in range(PER_ADVERT)
    ]
    for start in range(0, len(alerts), 500):
        await store.enqueue_many(alerts[start : start + 500])
    async with db.transaction() as conn:
        await conn.execute(
            "UPDATE notifications SET status = 'sent', sent_at = ?, attempts = 1, updated_at = ?"
            " WHERE status = 'pending'",
            (now, now),
        )


async def run(args: argparse.Namespace) -> None:
    clock = Clock()
    with tempfile.TemporaryDirectory() as tmp:
        async with Database(Path(tmp) / "retention.sqlite3") as db:
            store = NotificationStore(db, clock=clock, max_attempts=5, ttl=DAY)
            print(
                f"{args.alerts:,} alerts a day to {args.chats} chats, adverts listed "
                f"{args.listed} days, HABICHT_RETENTION_DAYS={args.retention}"
            )
            print("day | notifications | tombstones | listings | MB in use")
            started = time.perf_counter()
            for n in range(args.days):
                await day(db, store, clock, n, args)
                await retain(db, store, now=clock.now, days=args.retention)
                if (n + 1) % args.every == 0 or n + 1 == args.days:
                    print(
                        f"{n + 1:3} | {await count(db, 'notifications'):13,} | "
                        f"{await count(db, 'notification_tombstones'):10,} | "
                        f"{await count(db, 'listings'):8,} | "
                        f"{await used_bytes(db) / 1e6:9.1f}"
                    )
                clock.now += DAY
            print(f"({time.perf_counter() - started:.0f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1,500 alerts a day for 120 days")
    parser.add_argument("--days", type=int, default=None, help="days simulated (default 150)")
    parser.add_argument(
        "--alerts",
        type=int,
        default=None,
        help="alerts a day (default 3000; --alerts 30000, about 15 min, is the long form)",
    )
    parser.add_argument("--chats", type=int, default=300)
    parser.add_argument("--listed", type=int, default=14, help="days an advert stays listed")
    parser.add_argument("--retention", type=int, default=30)
    parser.add_argument("--every", type=int, default=10, help="print every N days")
    args = parser.parse_args()
    args.days = args.days or (120 if args.quick else 150)
    args.alerts = args.alerts or (1_500 if args.quick else 3_000)
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
