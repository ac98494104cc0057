"""How fast habicht's outbox enqueues and claims+settles, against persist-queue's SQLiteAckQueue.

Both run in the same process, one after the other, on the same disk (one temporary
directory), both in WAL mode with `synchronous=FULL`: habicht's `Database` sets both;
persist-queue sets WAL itself and leaves `synchronous` at SQLite's default, so this script
sets FULL on its connection explicitly (and prints what each side runs with).

- enqueue: N messages. persist-queue `put` commits every item (its ack queue refuses
  `auto_commit=False`). habicht is measured one message per transaction (`enqueue`) and 50
  per transaction (`enqueue_many`: a scrape cycle records its alerts in one transaction).
- claim+settle: N queued messages taken and marked done. persist-queue:
  `get(block=False, raw=True)` then `ack(id=…)`, one commit each. habicht: `claim(b)` (one
  `UPDATE … RETURNING`), `start(rows)` and `mark_sent(rows)` (one transaction each), with
  b = 1 and b = 50; for b = 50 persist-queue does 50 gets then 50 acks, which costs it the
  same as b = 1.
- claim+settle as `drain` does it: `claim(50, per_chat=1)` (the next row of 50 chats), then
  for each row `start([row])` — the small commit right before its send that counts the
  attempt, so a crash spends nothing of a row it never sent — and `mark_sent([row])` in its
  own transaction — recorded right after its send, so a crash can repeat at most that one
  send. And one chat's backlog, as the drain sends it: `claim(1)`, `start`, `mark_sent` per
  message. These are the figures that hold for habicht's delivery.
- owner queries on a table of `--sent` (1,000,000) sent rows (and a backlog of 1,000):
  `stats()` (`/queue`), the health check's counts, `dead()`, a purge that finds nothing to
  delete.

`--quick` (what CI runs, so that a change that breaks the benchmark fails there) takes 500
items and 10,000 sent rows: every operation above, in seconds; its figures say little.

    python benchmarks/outbox.py [--quick] [--items N] [--sent N]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import sqlite3
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from importlib.metadata import version
from pathlib import Path

from persistqueue import SQLiteAckQueue

from habicht.config import Settings
from habicht.db import Database
from habicht.health import check_health
from habicht.message import Outgoing
from habicht.queue import NotificationStore

TEXT = (
    "🆕 <b>MSI GeForce RTX 3070 Gaming X Trio 8GB</b>\n"
    "💶 <b>€ 380</b> · 1100 Wien, Favoriten\n"
    '<a href="https://www.willhaben.at/iad/kaufen-und-verkaufen/d/grafikkarte-123456789/">'
    "willhaben.at/iad/…/grafikkarte-123456789</a>\n"
    "Suche: rtx 3070 · /unwatch 3"
)


def messages(n: int) -> list[Outgoing]:
    return [
        Outgoing(chat_id=1000 + i % 100, kind="new", text=TEXT, dedupe_key=f"new:{i}:{i % 100}")
        for i in range(n)
    ]


def chunks(items: list[Outgoing], size: int) -> Iterator[list[Outgoing]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


async def _timed(work: Callable[[], Awaitable[object]]) -> float:
    start = time.perf_counter()
    await work()
    return time.perf_counter() - start


async def habicht_enqueue(folder: Path, items: list[Outgoing], per_txn: int) -> float:
    async with Database(folder / "habicht.sqlite3") as db:
        store = NotificationStore(db, clock=time.time, max_attempts=5, ttl=86400)

        async def work() -> None:
            for chunk in chunks(items, per_txn):
                await store.enqueue_many(chunk)

        seconds = await _timed(work)
        assert await db.single_value("SELECT count(*) FROM notifications") == len(items)
        return seconds


def _later() -> float:
    """A clock a day ahead: every queued row's turn has come (a chat's rows are due 1.1 s
    apart), so the claims measure the store, not the pacing."""
    return time.time() + 86400


async def habicht_claim_settle(
    folder: Path, items: list[Outgoing], batch: int, *, per_row: bool = False
) -> float:
    async with Database(folder / "habicht.sqlite3") as db:
        store = NotificationStore(db, clock=time.time, max_attempts=5, ttl=7 * 86400)
        for chunk in chunks(items, 1000):
            await store.enqueue_many(chunk)
        store.clock = _later
        per_chat = 1 if per_row else None

        async def work() -> None:
            while claimed := await store.claim(batch, per_chat=per_chat):
                for settle in [[row] for row in claimed] if per_row else [claimed]:
                    await store.mark_sent(await store.start(settle))

        seconds = await _timed(work)
        sent = await db.single_value("SELECT count(*) FROM notifications WHERE status = 'sent'")
        assert sent == len(items)
        return seconds


async def owner_queries(folder: Path, *, sent: int) -> list[tuple[str, float]]:
    """Milliseconds (best of 5) of each owner and health query over `sent` sent rows."""
    async with Database(folder / "habicht.sqlite3") as db:
        now = time.time()
        async with db.transaction() as conn:
            await conn.execute(
                """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < :sent)
                INSERT INTO notifications (chat_id, kind, text, dedupe_key, status, attempts,
                    max_attempts, next_attempt_at, created_at, queued_at, updated_at, sent_at)
                SELECT 1000 + i % 500, 'new', 'x', 'sent:' || i,
                       CASE WHEN i % 1000 = 0 THEN 'dead' ELSE 'sent' END, 1, 5,
                       :now - i, :now - i, :now - i, :now - i, :now - i FROM n
                """,
                {"sent": sent, "now": now},
            )
        store = NotificationStore(db, clock=time.time, max_attempts=5, ttl=86400)
        await store.enqueue_many(messages(1000))
        settings = Settings(db=folder / "habicht.sqlite3")
        queries: list[tuple[str, Callable[[], Awaitable[object]]]] = [
            ("stats() (/queue)", store.stats),
            ("habicht health", lambda: check_health(db, settings, now=time.time())),
            ("dead(20)", store.dead),
            ("purge, nothing old enough", lambda: store.purge(365 * 86400)),
        ]
        timings = []
        for name, query in queries:
            timings.append((name, min([await _timed(query) for _ in range(5)]) * 1000))
        return timings


def _pq(folder: Path) -> SQLiteAckQueue:
    queue = SQLiteAckQueue(str(folder), multithreading=False, auto_commit=True)
    queue._putter.execute("PRAGMA synchronous = FULL")  # no public option for it
    return queue


def _as_dict(item: Outgoing) -> dict[str, object]:
    return {"chat_id": item.chat_id, "text": item.text, "dedupe_key": item.dedupe_key}


def pq_put(folder: Path, items: list[Outgoing]) -> float:
    queue = _pq(folder)
    start = time.perf_counter()
    for item in items:
        queue.put(_as_dict(item))
    seconds = time.perf_counter() - start
    assert queue.qsize() == len(items)
    queue.close()
    return seconds


def pq_get_ack(folder: Path, items: list[Outgoing], batch: int) -> float:
    queue = _pq(folder)
    for item in items:
        queue.put(_as_dict(item))
    start = time.perf_counter()
    for _ in range(0, len(items), batch):
        got = [queue.get(block=False, raw=True) for _ in range(min(batch, queue.qsize()))]
        for entry in got:
            queue.ack(id=entry["pqid"])
    seconds = time.perf_counter() - start
    assert queue.acked_count() == len(items)
    queue.close()
    return seconds


def _synchronous(folder: Path) -> str:
    """What the benchmark's own connection settings look like, read back from SQLite."""
    names = {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}
    queue = _pq(folder)
    mode = queue._putter.execute("PRAGMA journal_mode").fetchone()[0]
    sync = names[queue._putter.execute("PRAGMA synchronous").fetchone()[0]]
    queue.close()
    return f"{mode}, synchronous={sync}"


async def _habicht_settings(folder: Path) -> str:
    async with Database(folder / "habicht.sqlite3") as db:
        mode = await db.single_value("PRAGMA journal_mode")
        sync = {2: "FULL"}.get(await db.single_value("PRAGMA synchronous"), "not FULL")
        return f"{mode}, synchronous={sync}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="500 items, 10000 sent rows (CI)")
    parser.add_argument("--items", type=int, help="items per run (6000; quick 500)")
    parser.add_argument("--sent", type=int, help="sent rows the owner queries read (300000)")
    args = parser.parse_args()
    n = args.items or (500 if args.quick else 6_000)
    sent = args.sent or (10_000 if args.quick else 300_000)
    items = messages(n)
    with tempfile.TemporaryDirectory(prefix="habicht-bench-") as tmp:
        root = Path(tmp)
        runs = iter(range(1_000_000))

        def fresh() -> Path:
            folder = root / str(next(runs))
            folder.mkdir()
            return folder

        print(
            f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, "
            f"Python {platform.python_version()}, SQLite {sqlite3.sqlite_version}, "
            f"persist-queue {version('persist-queue')}; temp dir {tmp}"
        )
        print(f"habicht: {asyncio.run(_habicht_settings(fresh()))}")
        print(f"persist-queue: {_synchronous(fresh())}")
        put = n / pq_put(fresh(), items)
        rows = [
            ("enqueue, 1 per transaction", asyncio.run(habicht_enqueue(fresh(), items, 1)), put),
            ("enqueue, 50 per transaction", asyncio.run(habicht_enqueue(fresh(), items, 50)), put),
        ]
        for batch in (1, 50):
            ours = asyncio.run(habicht_claim_settle(fresh(), items, batch))
            theirs = n / pq_get_ack(fresh(), items, batch)
            rows.append((f"claim+settle, batch {batch}", ours, theirs))
        drain_like = asyncio.run(habicht_claim_settle(fresh(), items, 50, per_row=True))
        rows.append(("drain: 50 chats, start+settle each", drain_like, theirs))
        one_chat = [Outgoing(1, "new", TEXT, f"one:{i}") for i in range(n)]
        backlog = asyncio.run(habicht_claim_settle(fresh(), one_chat, 1, per_row=True))
        rows.append(("drain: one chat, claim+start+settle", backlog, theirs))
        print(f"\n{n} items; items/s (higher is better)")
        print(f"{'operation':<36}{'habicht':>10}{'persist-queue':>15}{'ratio':>8}")
        for name, seconds, baseline in rows:
            rate = n / seconds
            print(f"{name:<36}{rate:>10,.0f}{baseline:>15,.0f}{rate / baseline:>7.1f}x")
        print(f"\nowner queries over {sent:,} sent rows and 1,000 pending (ms, best of 5)")
        for name, ms in asyncio.run(owner_queries(fresh(), sent=sent)):
            print(f"{name:<36}{ms:>10.2f}")


if __name__ == "__main__":
    main()
