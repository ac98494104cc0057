"""The database: connection settings, the single writer, and forward-only migrations."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest
from kit import within

from habicht.db import Database, DatabaseError, latest_version, migrations


async def test_every_connection_is_durable_and_checked(db: Database) -> None:
    """WAL, synchronous=FULL, foreign keys and a busy timeout on the connections."""
    assert (await db.single_value("PRAGMA journal_mode")) == "wal"
    assert (await db.single_value("PRAGMA synchronous")) == 2  # FULL
    assert (await db.single_value("PRAGMA foreign_keys")) == 1
    assert (await db.single_value("PRAGMA busy_timeout")) > 0
    async with db.transaction() as conn, conn.execute("PRAGMA synchronous") as cursor:
        assert (await cursor.fetchone())[0] == 2


async def test_a_fresh_file_is_migrated_to_the_latest_version(db: Database) -> None:
    """Opening a new file applies every migration and records the version."""
    assert await db.user_version() == latest_version() >= 1
    tables = {row[0] for row in await db.fetchall("SELECT name FROM sqlite_master")}
    assert {"notifications", "notification_tombstones", "watches", "searches"} <= tables


async def test_reopening_is_a_no_op(tmp_path: Path) -> None:
    """Running the migrations again changes nothing and keeps the data."""
    path = tmp_path / "x.sqlite3"
    async with Database(path) as first, first.transaction() as conn:
        await conn.execute("INSERT INTO chats (chat_id, created_at, updated_at) VALUES (1, 0, 0)")
    async with Database(path) as second:
        assert await second.migrate() == latest_version()
        assert await second.single_value("SELECT count(*) FROM chats") == 1


async def test_a_newer_database_is_refused(tmp_path: Path) -> None:
    """A file written by a newer habicht is refused with a message that says so."""
    path = tmp_path / "new.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA user_version = {latest_version() + 1}")
    with pytest.raises(DatabaseError, match="newer than this habicht understands"):
        await Database(path).open()


async def test_migrating_stops_at_the_target(tmp_path: Path) -> None:
    """`target` builds an old file (here: before any migration), which a later open upgrades."""
    path = tmp_path / "old.sqlite3"
    old = await Database(path).open(target=0)
    assert await old.user_version() == 0
    assert await old.fetchall("SELECT name FROM sqlite_master WHERE type = 'table'") == []
    await old.close()
    async with Database(path) as upgraded:
        assert await upgraded.user_version() == latest_version()
        assert await upgraded.single_value("SELECT count(*) FROM notifications") == 0


async def test_a_cancel_while_a_transaction_begins_leaves_no_transaction_open(
    db: Database,
) -> None:
    """A task cancelled at any point of `transaction()` never leaves the writer inside a
    transaction: the next write still works (issue: a shutdown cancelled a drain mid-BEGIN)."""
    for yields in range(6):

        async def write() -> None:
            async with db.transaction() as conn:
                await conn.execute(
                    "INSERT INTO chats (chat_id, created_at, updated_at) VALUES (1, 0, 0)"
                )

        task = asyncio.create_task(write())
        for _ in range(yields):
            await asyncio.sleep(0)
        task.cancel()
        await within(asyncio.gather(task, return_exceptions=True), "the cancelled write")
        async with db.transaction() as conn:
            await conn.execute("DELETE FROM chats")
    assert await db.single_value("SELECT count(*) FROM chats") == 0


def test_migrations_are_numbered_without_gaps() -> None:
    """Bundled migrations are 001, 002, … in order."""
    assert [version for version, _, _ in migrations()] == list(range(1, latest_version() + 1))


async def test_a_failed_transaction_is_rolled_back(db: Database) -> None:
    """An exception inside `transaction()` leaves nothing behind."""

    async def insert_then_fail() -> None:
        async with db.transaction() as conn:
            await conn.execute(
                "INSERT INTO chats (chat_id, created_at, updated_at) VALUES (1, 0, 0)"
            )
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        await insert_then_fail()
    assert await db.single_value("SELECT count(*) FROM chats") == 0


async def test_concurrent_writers_never_interleave(db: Database) -> None:
    """Two coroutines writing at once each commit whole transactions, one after the other."""

    async def writer(base: int) -> None:
        async with db.transaction() as conn:
            for i in range(20):
                await conn.execute(
                    "INSERT INTO chats (chat_id, created_at, updated_at) VALUES (?, 0, 0)",
                    (base + i,),
                )
                await asyncio.sleep(0)
            async with conn.execute(
                "SELECT count(*) FROM chats WHERE chat_id BETWEEN ? AND ?", (base, base + 19)
            ) as cursor:
                assert (await cursor.fetchone())[0] == 20

    await within(asyncio.gather(writer(0), writer(1000), writer(2000)), "three writers")
    assert await db.single_value("SELECT count(*) FROM chats") == 60


async def test_reads_see_only_committed_data(db: Database) -> None:
    """A read during an open write transaction does not see its uncommitted rows."""
    async with db.transaction() as conn:
        await conn.execute("INSERT INTO chats (chat_id, created_at, updated_at) VALUES (1, 0, 0)")
        assert await db.single_value("SELECT count(*) FROM chats") == 0
    assert await db.single_value("SELECT count(*) FROM chats") == 1


async def test_use_after_close_is_refused(tmp_path: Path) -> None:
    """A closed database says so in a full sentence."""
    database = await Database(tmp_path / "c.sqlite3").open()
    await database.close()
    with pytest.raises(DatabaseError, match="was closed"):
        await database.fetchall("SELECT 1")
    with pytest.raises(DatabaseError, match="was closed"):
        await database.open()


async def test_single_value_insists_on_one_row(db: Database) -> None:
    """`single_value` raises when a query returns no row or several."""
    with pytest.raises(DatabaseError, match="exactly one row, got 0"):
        await db.single_value("SELECT 1 WHERE 0")


async def test_an_unopenable_path_is_a_clear_error(tmp_path: Path) -> None:
    """A database path inside a file cannot be opened, and the error names the path."""
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(DatabaseError, match=r"cannot create the folder of .*file/db\.sqlite3"):
        await Database(blocker / "db.sqlite3").open()
