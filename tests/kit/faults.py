"""Storage faults on a real SQLite file (issue 27): the disk full, and the write lock held by
another program. Each starts and ends on command, from inside a fake `send` or `sleep`, so a
test can make exactly the commit it means refused."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from habicht.db import Database

NO_LIMIT = 4_294_967_294
"""`max_page_count` as SQLite has it by default: no limit short of the file system's."""


@dataclass
class FullDisk:
    """The disk is full for the writes `on` a table (by default the outbox's updates) that
    match `when` (a condition on `new`, the row as the write leaves it): the file may not grow
    by a page (`max_page_count`), and such a write needs one more — a temporary trigger writes
    a page's worth beside it, as a scan's larger writes do. (The few bytes a claim or a settle
    change would otherwise fit in the pages the file has, so no limit of pages alone could
    refuse them.)"""

    db: Database
    when: str = "1"
    on: str = "UPDATE ON main.notifications"

    async def start(self) -> None:
        async with self.db.transaction() as conn:
            await conn.execute("CREATE TABLE IF NOT EXISTS filler (b BLOB)")
            await conn.execute(
                f"CREATE TEMP TRIGGER filling AFTER {self.on}"
                f" WHEN {self.when} BEGIN INSERT INTO filler VALUES (zeroblob(16384)); END"
            )
            pages = await (await conn.execute("PRAGMA page_count")).fetchone()
            assert pages is not None
            await conn.execute(f"PRAGMA max_page_count = {pages[0]}")

    async def end(self) -> None:
        """Space again."""
        async with self.db.transaction() as conn:
            await conn.execute(f"PRAGMA max_page_count = {NO_LIMIT}")
            await conn.execute("DROP TRIGGER temp.filling")


@dataclass
class HeldLock:
    """Another program holds the write lock (`BEGIN IMMEDIATE` on a connection of its own,
    like an `sqlite3` shell or a backup tool): every write transaction of `db` waits its busy
    timeout and is refused with "database is locked". The timeout is made short here, so the
    test waits milliseconds, not SQLite's 5 s."""

    db: Database
    other: sqlite3.Connection | None = None

    async def start(self) -> None:
        async with self.db.transaction() as conn:
            await conn.execute("PRAGMA busy_timeout = 20")
        self.other = sqlite3.connect(self.db.path, isolation_level=None)
        self.other.execute("BEGIN IMMEDIATE")

    async def end(self) -> None:
        """The other program ends its transaction."""
        assert self.other is not None
        self.other.rollback()
        self.other.close()
        self.other = None


StorageFault = FullDisk | HeldLock
