"""The database: connection settings, the single writer, and forward-only migrations."""

from __future__ import annotations

import asyncio
import sqlite3
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path

import pytest
from kit import within
from kit.bot import OWNER, running
from kit.fakes import FakeClock
from kit.files import FOREIGN, contents, crashed_database, foreign_database
from kit.kills import killed_while_creating

from habicht.bot import deliver
from habicht.cli import main
from habicht.config import Settings
from habicht.db import (
    Database,
    DatabaseError,
    Mode,
    backup,
    belongs_to,
    examine,
    latest_version,
    migrations,
)
from habicht.health import probe
from habicht.instance import single_instance
from habicht.storage import StatusFile, StorageWatch, WatchedDatabase


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
    `created_at`; opened again, the file is not new any more (only the opener that created
    it hears of it, unless it `announce`s)."""
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
        assert await db.single_value("SELECT announced_at FROM origin") == 1234.5
    async with Database(path, clock=lambda: 9999.0) as again:
        assert again.created_at is None
        assert await again.single_value("SELECT created_at FROM origin") == 1234.5
        assert await again.made_at() == 1234.5  # what `habicht health` shows (issue 37)


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
    await _create(tmp_path / "yesterday" / "habicht.sqlite3")
    backup(tmp_path / "yesterday" / "habicht.sqlite3", copy)  # yesterday's copy, replaced
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


async def test_a_commit_that_fails_is_rolled_back(db: Database) -> None:
    """Issue 35: a COMMIT that SQLite refuses and leaves open — a deferred constraint here,
    as SQLITE_BUSY does on a rollback-journal file (a full disk or an I/O error at COMMIT
    SQLite rolls back itself) — is rolled back and its error raised: none of its rows stay,
    and the next transaction begins instead of failing with "cannot start a transaction
    within a transaction"."""

    async def refused_at_commit() -> None:
        async with db.transaction() as conn:
            await conn.execute("PRAGMA defer_foreign_keys = ON")  # checked at COMMIT only
            await conn.execute(
                "INSERT INTO chats (chat_id, created_at, updated_at) VALUES (1, 0, 0)"
            )
            await conn.execute(  # there is no search 99
                "INSERT INTO watches (chat_id, search_id, label, created_at)"
                " VALUES (1, 99, 'sofa', 0)"
            )

    with pytest.raises(sqlite3.IntegrityError, match="FOREIGN KEY constraint failed"):
        await refused_at_commit()
    async with db.transaction() as conn:
        await conn.execute("INSERT INTO chats (chat_id, created_at, updated_at) VALUES (2, 0, 0)")
    assert [tuple(row) for row in await db.fetchall("SELECT chat_id FROM chats")] == [(2,)]


DATA = "data"
"""The database's folder in the backup tests: `<tmp>/data/habicht.sqlite3`."""


async def _live(tmp_path: Path) -> tuple[Path, Database]:
    """habicht's database in `<tmp>/data`, open, with a commit in its `-wal`: as the running
    bot has it."""
    db = await Database(tmp_path / DATA / "habicht.sqlite3").open()
    async with db.transaction() as conn:
        await conn.execute("INSERT INTO chats (chat_id, created_at, updated_at) VALUES (7, 0, 0)")
    return db.path, db


def _unchanged(tmp_path: Path) -> dict[str, bytes]:
    """The bytes of everything in the database's folder but the `-shm` (every reader's
    locks, rewritten by any read)."""
    return {
        name: data for name, data in contents(tmp_path / DATA).items() if not name.endswith("-shm")
    }


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("habicht.sqlite3-wal", "is the write-ahead log of the database"),
        ("habicht.sqlite3-shm", "is the shared-memory index of the database"),
        ("habicht.sqlite3-journal", "is the rollback journal of the database"),
        ("habicht.sqlite3.lock", "is the lock file of the database"),
        ("habicht.sqlite3.fault", "is the storage-fault file of the database"),
        (".habicht.sqlite3-litestream", "is Litestream's folder of the database"),
        (".habicht.sqlite3-litestream/generations/0/wal/0.wal", "is in Litestream's folder"),
        (".habicht.sqlite3.restoring", "is a file habicht keeps beside the database"),
        ("habicht.sqlite3.before-restore-1", "is a file habicht keeps beside the database"),
        ("habicht.sqlite3", "is the database itself"),
    ],
)
@pytest.mark.parametrize("force", [False, True])
async def test_a_backup_never_writes_the_database_or_what_is_kept_beside_it(
    tmp_path: Path, name: str, says: str, force: bool
) -> None:
    """Issue 35: the database, its `-wal`, `-shm` and `-journal`, the bot's lock and fault
    files, Litestream's folder and anything in it, and any other file named after the
    database beside it are refused in one line, `--force` or not: nothing in the folder
    changes and no partial copy is left."""
    path, db = await _live(tmp_path)
    (tmp_path / DATA / ".habicht.sqlite3-litestream").mkdir()
    try:
        before = _unchanged(tmp_path)
        with pytest.raises(DatabaseError) as refused:
            backup(path, tmp_path / DATA / name, force=force)
        assert says in str(refused.value)
        assert "\n" not in str(refused.value)
        assert _unchanged(tmp_path) == before
    finally:
        await db.close()


@pytest.mark.parametrize(
    "spelling",
    [
        "data/./habicht.sqlite3-wal",
        "data/../data/habicht.sqlite3-wal",
        "linked/habicht.sqlite3-wal",
        "wal-link",
        "db-link",
        "hard-link",
        "linked/habicht.sqlite3",
    ],
)
async def test_a_backup_knows_the_database_however_it_is_spelled(
    tmp_path: Path, spelling: str
) -> None:
    """Issue 35: `./` and `../`, a link to the database's folder, a symlink to its `-wal` or
    to it, and a hard link to it name the same files, and are refused the same."""
    path, db = await _live(tmp_path)
    (tmp_path / "linked").symlink_to(tmp_path / DATA)
    (tmp_path / "wal-link").symlink_to(f"{path}-wal")
    (tmp_path / "db-link").symlink_to(path)
    (tmp_path / "hard-link").hardlink_to(path)
    try:
        before = _unchanged(tmp_path)
        with pytest.raises(DatabaseError, match=r"the database itself|write-ahead log"):
            backup(path, tmp_path / spelling, force=True)
        assert _unchanged(tmp_path) == before
    finally:
        await db.close()


async def test_every_file_a_running_bot_keeps_beside_its_database_is_refused(
    tmp_path: Path,
) -> None:
    """Issue 35: whatever appears beside the database while the bot runs — SQLite's `-wal`
    and `-shm`, the instance lock, the storage-fault file — `belongs_to` it, so a backup is
    refused there; a file named otherwise in the same folder is the operator's."""
    path = tmp_path / DATA / "habicht.sqlite3"
    clock = FakeClock()
    watch = StorageWatch(path, clock=clock, settled=30)
    with single_instance(path):
        async with WatchedDatabase(path, watch=watch, clock=clock) as db:
            async with db.transaction() as conn:
                await conn.execute(
                    "INSERT INTO chats (chat_id, created_at, updated_at) VALUES (7, 0, 0)"
                )
            status = StatusFile(path).open()
            try:
                beside = sorted(child.name for child in path.parent.iterdir())
                assert beside == [
                    "habicht.sqlite3",
                    "habicht.sqlite3-shm",
                    "habicht.sqlite3-wal",
                    "habicht.sqlite3.fault",
                    "habicht.sqlite3.lock",
                ]
                for name in beside:
                    assert belongs_to(path, path.with_name(name)) is not None, name
                    with pytest.raises(DatabaseError):
                        backup(path, path.with_name(name), force=True)
            finally:
                status.close()
    for name in ("backup.sqlite3", "habicht-copy.sqlite3", "habicht.sqlite3x"):
        assert belongs_to(path, path.with_name(name)) is None
        assert backup(path, path.with_name(name)) > 0


async def _other_database(path: Path) -> None:
    """Another habicht's database, closed: in WAL mode, as every database habicht opened."""
    await _create(path)


async def _backup_with_a_journal(path: Path) -> None:
    """A habicht backup with a `-journal` beside it, as a writer that died leaves one."""
    await _create(path.with_name("source.sqlite3"))
    backup(path.with_name("source.sqlite3"), path)
    await asyncio.to_thread(Path(f"{path}-journal").write_bytes, b"\0" * 512)


@pytest.mark.parametrize(
    ("existing", "why"),
    [
        ("notes", "not an SQLite file"),
        ("recipes", "an SQLite file this habicht does not take for its own"),
        ("database", "a database in WAL mode, maybe in use; a backup is in rollback-journal mode"),
        ("journal", "copy.sqlite3-journal is beside it: a database in use, or not closed cleanly"),
    ],
)
async def test_an_existing_file_that_is_no_habicht_backup_is_replaced_only_when_forced(
    tmp_path: Path, existing: str, why: str
) -> None:
    """Issue 35: a text file, another application's database, another habicht's database
    (it may be in use) and a backup beside a journal are refused in one line saying why,
    and keep every byte; with `force` each is replaced by the backup."""
    path, db = await _live(tmp_path)
    await db.close()
    copy = tmp_path / "copy.sqlite3"
    match existing:
        case "notes":
            copy.write_text("milk, eggs\n")
        case "recipes":
            foreign_database(copy, "recipes")
        case "database":
            await _other_database(copy)
        case "journal":
            await _backup_with_a_journal(copy)
    before = contents(tmp_path)
    with pytest.raises(DatabaseError) as refused:
        backup(path, copy)
    assert str(refused.value) == (
        f"{copy} exists and is not a habicht backup ({why}); it is left as it is: choose"
        " another file, or give --force to replace it"
    )
    assert contents(tmp_path) == before
    assert backup(path, copy, force=True) == copy.stat().st_size
    async with await Database(copy).open(mode="ro") as forced:
        assert await forced.single_value("SELECT chat_id FROM chats") == 7


@pytest.mark.parametrize("existing", ["an earlier backup", "an empty file"])
async def test_an_earlier_backup_or_an_empty_file_is_replaced(
    tmp_path: Path, existing: str
) -> None:
    """An earlier habicht backup is replaced by the new one, as is an empty file: there is
    nothing in either a backup could lose."""
    path, db = await _live(tmp_path)
    copy = tmp_path / "copy.sqlite3"
    if existing == "an earlier backup":
        backup(path, copy)
    else:
        copy.touch()
    async with db.transaction() as conn:
        await conn.execute("INSERT INTO chats (chat_id, created_at, updated_at) VALUES (8, 0, 0)")
    await db.close()
    backup(path, copy)
    async with await Database(copy).open(mode="ro") as copied:
        assert [tuple(row) for row in await copied.fetchall("SELECT chat_id FROM chats")] == [
            (7,),
            (8,),
        ]
    assert list(contents(tmp_path)) == ["copy.sqlite3"]  # and no partial copy


async def test_a_folder_is_no_backup_file(tmp_path: Path) -> None:
    """A folder given for the backup is refused, `--force` or not."""
    path, db = await _live(tmp_path)
    await db.close()
    with pytest.raises(DatabaseError, match=f"^{tmp_path} is a folder; give the backup's"):
        backup(path, tmp_path, force=True)


@pytest.mark.parametrize("after", [1, 7, latest_version()])
async def test_a_first_start_killed_while_creating_its_file_is_announced_by_the_next(
    tmp_path: Path, after: int
) -> None:
    """Issue 35: the bot's first start, killed after migration 7 of its new file (or the
    first, or the last), leaves the file as new as it found it — its creation is one
    transaction — so the restart creates it and tells the owner, once; health dates the
    file, and the start after that tells nobody anything."""
    path = tmp_path / "habicht.sqlite3"
    killed_while_creating(path, after=after)
    assert examine(path) is None
    clock = FakeClock()
    created = clock()
    async with running(tmp_path, clock=clock, new_database=True) as bot:
        await deliver(bot.app.bot_data)
        (told,) = bot.api.messages(OWNER)
        assert told.text.startswith("🗄 ")
        assert str(path) in told.text
    async with running(tmp_path, clock=clock, new_database=True) as bot:
        await deliver(bot.app.bot_data)
        assert bot.api.messages() == []
    report = (await probe(Settings(db=path), now=created + 60)).as_dict()
    dated = datetime.fromtimestamp(created, UTC).isoformat(timespec="seconds")
    assert report["database"]["created_at"] == dated


async def test_a_file_created_to_be_announced_says_so_until_the_owners_message_is_queued(
    tmp_path: Path,
) -> None:
    """Issue 35: a file the bot's database creates (`announce`) names its creation on every
    open — a start may die before it told the owners — until the owners' message about it
    is queued (`announced`); a file another opener creates is told to that opener only."""
    path = tmp_path / "habicht.sqlite3"
    async with Database(path, clock=lambda: 1234.5, announce=True) as created:
        assert created.created_at == 1234.5
        assert await created.single_value("SELECT announced_at FROM origin") is None
    async with Database(path, clock=lambda: 9999.0, announce=True) as again:
        assert again.created_at == 1234.5
        await again.announced()
        assert await again.single_value("SELECT announced_at FROM origin") == 9999.0
    async with Database(path, announce=True) as told_already:
        assert told_already.created_at is None
        assert await told_already.single_value("SELECT created_at FROM origin") == 1234.5
