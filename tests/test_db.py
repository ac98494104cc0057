"""The database: connection settings, the single writer, and forward-only migrations."""

from __future__ import annotations

import asyncio
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from kit import within
from kit.files import FOREIGN, contents, crashed_database, foreign_database

from habicht.cli import main
from habicht.db import Database, DatabaseError, Mode, backup, latest_version, migrations


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


@pytest.mark.parametrize("table", sorted(FOREIGN))
@pytest.mark.parametrize("mode", ["rwc", "rw", "ro"])
async def test_another_applications_file_is_refused_and_keeps_every_byte(
    tmp_path: Path, table: str, mode: Mode
) -> None:
    """Issue 27: a foreign SQLite file — with a table named like habicht's outbox, or with
    none in common — is refused in one sentence naming it and its table, in any mode; not a
    byte of it changes (WAL would rewrite header bytes 18-19) and nothing appears beside it."""
    path = tmp_path / "other.sqlite3"
    foreign_database(path, table)
    before = contents(tmp_path)
    with pytest.raises(DatabaseError) as refused:
        await Database(path).open(mode=mode)
    assert str(refused.value).startswith(f"{path} is not habicht's database (user_version 0")
    assert table in str(refused.value)
    assert "\n" not in str(refused.value)
    assert contents(tmp_path) == before


@pytest.mark.parametrize(
    ("schema", "because"),
    [
        ("PRAGMA application_id = 1179602760", "application_id 0x464f4f48"),
        ("CREATE VIEW answer AS SELECT 42", "a schema habicht did not create"),
        ("PRAGMA user_version = 3; CREATE TABLE recipes (id)", "tables habicht does not know"),
        ("PRAGMA user_version = 3; CREATE TABLE chats (id)", "without habicht's tables"),
    ],
)
async def test_only_a_file_that_is_habichts_at_its_version_is_taken(
    tmp_path: Path, schema: str, because: str
) -> None:
    """Whose file it is takes more than a name or a number: another program's application
    id, a schema at version 0, a version with tables habicht never made or without its own
    are all refused, and say which."""
    path = tmp_path / "other.sqlite3"
    with closing(sqlite3.connect(path)) as conn:
        conn.executescript(schema)
    before = path.read_bytes()
    with pytest.raises(DatabaseError, match="is not habicht's database") as refused:
        await Database(path).open()
    assert because in str(refused.value)
    assert path.read_bytes() == before


async def test_habichts_file_with_a_table_of_someone_elses_is_refused(tmp_path: Path) -> None:
    """A table added to habicht's file by hand makes it no longer habicht's alone: refused,
    naming the table, rather than migrated around it."""
    path = tmp_path / "habicht.sqlite3"
    async with Database(path):
        pass
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("CREATE TABLE notes (text)")
    with pytest.raises(DatabaseError, match="tables habicht does not know: notes"):
        await Database(path).open()


@pytest.mark.parametrize("empty", ["missing", "0 bytes", "no schema"])
async def test_a_new_file_is_created_and_dated(tmp_path: Path, empty: str) -> None:
    """A missing file, one of 0 bytes and an SQLite file with nothing in it are all new:
    set up at the latest version, with the time of their creation in `origin` and in
    `created_at`; opened again, the file is not new any more."""
    path = tmp_path / "habicht.sqlite3"
    if empty == "0 bytes":
        path.touch()
    elif empty == "no schema":
        with closing(sqlite3.connect(path)) as conn:
            conn.execute("VACUUM")  # writes the header: a database with nothing in it
        assert path.stat().st_size > 0
    async with Database(path, clock=lambda: 1234.5) as db:
        assert db.created_at == 1234.5
        assert await db.user_version() == latest_version()
        assert await db.single_value("SELECT created_at FROM origin") == 1234.5
    async with Database(path, clock=lambda: 9999.0) as again:
        assert again.created_at is None
        assert await again.single_value("SELECT created_at FROM origin") == 1234.5


@pytest.mark.parametrize("mode", ["rw", "ro"])
async def test_only_rwc_creates_a_file(tmp_path: Path, mode: Mode) -> None:
    """ "rw" and "ro" refuse a missing or empty file instead of setting one up."""
    path = tmp_path / "habicht.sqlite3"
    with pytest.raises(DatabaseError, match=f"no database at {path}; check HABICHT_DB"):
        await Database(path).open(mode=mode)
    assert not path.exists()
    path.touch()
    with pytest.raises(DatabaseError, match=f"the database {path} is empty; check HABICHT_DB"):
        await Database(path).open(mode=mode)
    assert path.stat().st_size == 0


async def test_read_only_reads_everything_and_writes_nothing(tmp_path: Path) -> None:
    """A read-only open sees the rows a killed process left in `-wal`, takes no write, and
    leaves the database and its `-wal` as they were — a read-write connection closing last
    would have checkpointed them into the file."""
    path = tmp_path / "habicht.sqlite3"
    await crashed_database(path)
    before = {name: data for name, data in contents(tmp_path).items() if "-shm" not in name}
    async with await Database(path).open(mode="ro") as db:
        assert await db.single_value("SELECT count(*) FROM chats") == 1
        with pytest.raises(DatabaseError, match="was opened read-only"):
            async with db.transaction():
                pass
    after = {name: data for name, data in contents(tmp_path).items() if "-shm" not in name}
    assert after == before


async def test_a_backup_is_a_consistent_copy_taken_while_a_writer_is_busy(
    tmp_path: Path,
) -> None:
    """`backup` copies what is committed — the rows still in `-wal` too — while another
    connection holds a write transaction, leaves the source as it was, and replaces an
    older copy only with a whole one."""
    path = tmp_path / "habicht.sqlite3"
    await crashed_database(path)
    copy = tmp_path / "copies" / "habicht.sqlite3"
    copy.parent.mkdir()
    copy.write_bytes(b"yesterday's copy")
    before = contents(tmp_path)
    with closing(sqlite3.connect(path, isolation_level=None)) as writer:
        writer.execute("BEGIN IMMEDIATE")
        writer.execute("INSERT INTO chats (chat_id, created_at, updated_at) VALUES (8, 0, 0)")
        size = await asyncio.to_thread(backup, path, copy)
        writer.execute("ROLLBACK")
        source = {name: data for name, data in contents(tmp_path).items() if "-shm" not in name}
        assert source == {name: data for name, data in before.items() if "-shm" not in name}
    assert size == copy.stat().st_size
    assert sorted(child.name for child in copy.parent.iterdir()) == ["habicht.sqlite3"]
    assert copy.read_bytes()[18:20] == b"\x01\x01"  # one self-contained file
    async with await Database(copy).open(mode="ro") as db:
        assert [tuple(row) for row in await db.fetchall("SELECT chat_id FROM chats")] == [(7,)]
        assert await db.user_version() == latest_version()


async def test_a_backup_needs_habichts_database_and_another_file(tmp_path: Path) -> None:
    """Backing up nothing, another application's file, or the database onto itself is
    refused in one sentence."""
    path = tmp_path / "habicht.sqlite3"
    with pytest.raises(DatabaseError, match=f"no database at {path}"):
        backup(path, tmp_path / "copy.sqlite3")
    foreign_database(path, "recipes")
    with pytest.raises(DatabaseError, match="is not habicht's database"):
        backup(path, tmp_path / "copy.sqlite3")
    path.unlink()
    async with Database(path):
        pass
    with pytest.raises(DatabaseError, match="is the database itself"):
        backup(path, tmp_path / "." / "habicht.sqlite3")
    assert not (tmp_path / "copy.sqlite3").exists()


@pytest.mark.usefixtures("restore_logging")
def test_habicht_backup_prints_one_line_either_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`habicht backup PATH` says where the copy went and how big it is (exit 0); a refusal
    is one line, exit 2."""
    path, copy = tmp_path / "habicht.sqlite3", tmp_path / "copy.sqlite3"
    monkeypatch.setenv("HABICHT_DB", str(path))
    assert main(["backup", str(copy)]) == 2
    assert capsys.readouterr().err == f"habicht: error: no database at {path}; check HABICHT_DB\n"
    asyncio.run(_create(path))
    assert main(["backup", str(copy)]) == 0
    assert capsys.readouterr().out == (
        f"backed up {path} to {copy} ({copy.stat().st_size} bytes)\n"
    )


async def _create(path: Path) -> None:
    async with Database(path):
        pass
