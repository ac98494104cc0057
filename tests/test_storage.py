"""Storage faults (issue 27): what counts as one, how long a write waits, one log line each way,
the writes that tell, and the status file `habicht health` reads — on real SQLite files."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from kit.fakes import FakeClock

from habicht.storage import (
    STATUS_SIZE,
    StatusFile,
    StorageFault,
    StorageWatch,
    WatchedDatabase,
    fault_kind,
    pause,
    read_fault,
)

SETTLED = 30.0


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    """A WAL database with one table of unique keys."""
    with sqlite3.connect(tmp_path / "f.sqlite3", isolation_level=None) as opened:
        opened.execute("PRAGMA journal_mode = WAL")
        opened.execute("CREATE TABLE t (k TEXT PRIMARY KEY, v BLOB)")
        yield opened
    opened.close()


def refusal(attempt: str, conn: sqlite3.Connection, path: Path) -> sqlite3.Error:
    """The error SQLite raises for a write when the disk is full, when another connection
    holds the write lock, when the file is read-only, or when a key is taken."""
    if attempt == "full":
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {pages}")
    if attempt == "locked":
        holder = sqlite3.connect(path, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        conn = sqlite3.connect(path, timeout=0)
    if attempt == "read-only":
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    if attempt == "taken":
        conn.execute("INSERT INTO t VALUES ('a', NULL)")
    with pytest.raises(sqlite3.Error) as refused:
        conn.execute("INSERT INTO t VALUES ('a', zeroblob(65536))")
    return refused.value


@pytest.mark.parametrize(
    ("attempt", "kind"),
    [("full", "full"), ("locked", "locked"), ("read-only", "io"), ("taken", None)],
)
def test_a_storage_fault_is_known_by_its_sqlite_code(
    conn: sqlite3.Connection, tmp_path: Path, attempt: str, kind: str | None
) -> None:
    """A full disk, a lock held by another program and a file that cannot be written are
    faults to wait out; a broken constraint (a bug) is none."""
    assert fault_kind(refusal(attempt, conn, tmp_path / "f.sqlite3")) == kind


def test_extended_codes_and_other_errors() -> None:
    """An extended code counts by its primary code (SQLITE_IOERR_WRITE is an I/O error); a
    corrupt or foreign file, and errors that are not SQLite's, are no storage fault."""
    written = sqlite3.OperationalError("disk I/O error")
    written.sqlite_errorcode = sqlite3.SQLITE_IOERR_WRITE
    foreign = sqlite3.DatabaseError("file is not a database")
    foreign.sqlite_errorcode = sqlite3.SQLITE_NOTADB
    assert fault_kind(written) == "io"
    assert fault_kind(foreign) is None
    assert fault_kind(sqlite3.OperationalError("no code")) is None
    assert fault_kind(OSError("disk full")) is None


def test_the_pause_doubles_from_half_a_second_to_five() -> None:
    """min(5, 0.5 · 2^(n-1)), clamped at any count (keep in sync with the README)."""
    assert [pause(n) for n in range(1, 7)] == [0.5, 1.0, 2.0, 4.0, 5.0, 5.0]
    assert pause(10**9) == 5.0


def test_one_fault_is_one_line_and_one_word_each_way(
    conn: sqlite3.Connection, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Many refused writes open one fault: one ERROR line naming the cause and the file, the
    listeners told once; it ends once no write was refused for `settled` seconds — a write
    that goes through before that (a full disk lets some through) ends nothing — with one
    more line, the listeners told again."""
    clock = FakeClock()
    watch = StorageWatch("data/habicht.sqlite3", clock=clock, settled=SETTLED)
    told: list[StorageFault] = []
    watch.listen(told.append)
    full = refusal("full", conn, tmp_path / "f.sqlite3")
    caplog.set_level(logging.INFO, logger="habicht.storage")
    for _ in range(3):
        assert watch.refused(full) == "full"
        clock.advance(5)
    watch.written()  # 5 s after the last refusal
    assert watch.refused(full) == "full"
    clock.advance(SETTLED - 1)
    watch.written()
    assert watch.fault is not None
    clock.advance(1)
    watch.written()
    assert watch.fault is None
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [
        (
            "ERROR",
            "the database disk is full (data/habicht.sqlite3): alerts are held, nothing is lost;"
            " free space to resume (SQLite: database or disk is full)",
        ),
        (
            "WARNING",
            "the database data/habicht.sqlite3 accepts writes again after 45 s: the held alerts"
            " go out now",
        ),
    ]
    start = clock.now - SETTLED - 15
    assert told == [
        StorageFault("full", "data/habicht.sqlite3", "database or disk is full", start),
        StorageFault("full", "data/habicht.sqlite3", "database or disk is full", start, start + 45),
    ]
    assert watch.refused(sqlite3.IntegrityError("UNIQUE constraint failed")) is None
    assert watch.fault is None


def test_a_job_pauses_after_a_refusal_for_longer_each_time(
    conn: sqlite3.Connection, tmp_path: Path
) -> None:
    """After the n-th refusal in a row a job skips its turns for `pause(n)` seconds; a write
    that goes through ends the pause at once."""
    clock = FakeClock()
    watch = StorageWatch("db", clock=clock, settled=SETTLED)
    full = refusal("full", conn, tmp_path / "f.sqlite3")
    assert not watch.paused()
    watch.refused(full)
    assert watch.paused()
    clock.advance(0.5)
    assert not watch.paused()
    watch.refused(full)
    clock.advance(0.9)
    assert watch.paused()
    watch.written()
    assert not watch.paused()


async def test_a_watched_database_tells_what_its_writes_did(tmp_path: Path) -> None:
    """A refused write transaction opens the fault; one that changes nothing — it goes
    through on a full disk too — does not end it; one that changes a row does; an error that
    is no storage fault tells nothing."""
    clock = FakeClock()
    watch = StorageWatch(tmp_path / "habicht.sqlite3", clock=clock, settled=SETTLED)
    async with WatchedDatabase(tmp_path / "habicht.sqlite3", watch=watch, clock=clock) as db:
        async with db.transaction() as conn:
            await conn.execute("CREATE TABLE t (k TEXT PRIMARY KEY, v BLOB)")
            pages = await (await conn.execute("PRAGMA page_count")).fetchone()
            assert pages is not None
            await conn.execute(f"PRAGMA max_page_count = {pages[0]}")
        with pytest.raises(sqlite3.OperationalError, match="full"):
            async with db.transaction() as conn:
                await conn.execute("INSERT INTO t VALUES ('a', zeroblob(65536))")
        assert watch.fault is not None
        assert watch.fault.kind == "full"
        clock.advance(SETTLED)
        async with db.transaction() as conn:
            await conn.execute("UPDATE t SET v = NULL WHERE k = 'nothing'")
        assert watch.fault is not None
        async with db.transaction() as conn:
            await conn.execute("INSERT INTO t VALUES ('a', NULL)")
        assert watch.fault is None
        with pytest.raises(sqlite3.IntegrityError):
            async with db.transaction() as conn:
                await conn.execute("INSERT INTO t VALUES ('a', NULL)")
        assert watch.fault is None


def test_the_status_file_names_the_open_fault_in_place(tmp_path: Path) -> None:
    """While the bot runs, the file beside the database says which fault is open, if any,
    always in the same `STATUS_SIZE` bytes of the same file (no new block on a full disk);
    it is gone when the bot stops. `read_fault` reads it back."""
    db = tmp_path / "habicht.sqlite3"
    assert read_fault(db) is None
    status = StatusFile(db).open()
    assert read_fault(db) is None
    inode = status.path.stat().st_ino
    fault = StorageFault("locked", str(db), "database is locked " + "x" * 2000, since=1.5)
    status.publish(fault)
    published = read_fault(db)
    assert published is not None
    assert (published.kind, published.path, published.since) == ("locked", str(db), 1.5)
    assert published.error.startswith("database is locked")
    assert (status.path.stat().st_size, status.path.stat().st_ino) == (STATUS_SIZE, inode)
    status.publish(StorageFault("locked", str(db), "database is locked", 1.5, until=9.0))
    assert read_fault(db) is None
    status.publish(fault)
    status.close()
    assert not status.path.exists()
    assert read_fault(db) is None
