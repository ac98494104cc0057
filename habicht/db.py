"""The one SQLite file: whose it is, connection setup, the single writer, and forward-only
migrations.

Only habicht's own file is touched: before any PRAGMA that writes (`journal_mode = WAL`
rewrites the header) or any migration, `examine` reads the file through a read-only connection
and refuses anything that is neither empty nor habicht's — another application's database
keeps every byte. Every PRAGMA is set in `_configure` and nowhere else. Writes go through
`Database.transaction()`, which holds an `asyncio.Lock` from `BEGIN IMMEDIATE` to `COMMIT`:
coroutines sharing one aiosqlite connection would otherwise interleave inside each other's
transactions. Reads use a second connection, so they see only committed data and never
wait for a writer (WAL).

`synchronous=FULL` is deliberate: the outbox promises that a committed notification
survives power loss, not only a process crash.

A read is one hop to aiosqlite's thread with `execute_fetchall`; `async with conn.execute()`
and `fetchall()` take three (execute, fetch, close). A scan makes dozens of small reads, and
the hops, each a wake-up of two threads, cost more CPU than their SQL (issue 26).
"""

from __future__ import annotations

import asyncio
import functools
import os
import re
import sqlite3
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager, closing
from importlib import resources
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, Self

import aiosqlite

from habicht.clock import Clock, system_clock

__all__ = [
    "BUSY_TIMEOUT_MS",
    "Database",
    "DatabaseError",
    "Mode",
    "backup",
    "examine",
    "latest_version",
    "migrations",
]

BUSY_TIMEOUT_MS = 5000
_MIGRATION_NAME = re.compile(r"^([0-9]{3})_[a-z0-9_]+\.sql$")

Params = Sequence[Any] | dict[str, Any]

Mode = Literal["rwc", "rw", "ro"]
"""SQLite's own open modes: read-write, creating the file if need be; read-write, the file
must hold a habicht database already; read-only."""

_TABLES = (
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite^_%' ESCAPE '^'"
)
"""The tables a file holds, without SQLite's own (`sqlite_sequence`, `sqlite_stat1`, …)."""

NAMES_SHOWN = 5
"""Table names a refusal lists at most: enough to recognise whose file it is."""


class DatabaseError(Exception):
    """The database cannot be used as it is: closed, from a newer habicht, not habicht's,
    or unreadable."""


def migrations() -> list[tuple[int, str, str]]:
    """(version, file name, SQL) of every bundled migration, in order."""
    found = []
    for entry in resources.files("habicht.migrations").iterdir():
        match = _MIGRATION_NAME.match(entry.name)
        if match:
            found.append((int(match.group(1)), entry.name, entry.read_text(encoding="utf-8")))
    found.sort()
    versions = [version for version, _, _ in found]
    if versions != list(range(1, len(found) + 1)):
        raise DatabaseError(f"migrations must be numbered 1..n without gaps, found {versions}")
    return found


def latest_version() -> int:
    """The schema version this habicht writes."""
    return len(migrations())


@functools.cache
def _tables_by_version() -> tuple[frozenset[str], ...]:
    """The tables of habicht's file at each schema version (the index): what the bundled
    migrations create, applied in order to an in-memory database. Derived, never listed by
    hand, so a new migration cannot make habicht refuse its own file."""
    found = [frozenset[str]()]
    with closing(sqlite3.connect(":memory:", isolation_level=None)) as conn:
        for _version, _name, sql in migrations():
            conn.executescript(sql)
            found.append(frozenset(row[0] for row in conn.execute(_TABLES)))
    return tuple(found)


def _uri(path: Path, mode: Mode) -> str:
    return f"{path.absolute().as_uri()}?mode={mode}"


def _names(names: Iterable[str]) -> str:
    ordered = sorted(names)
    more = ", …" if len(ordered) > NAMES_SHOWN else ""
    return ", ".join(ordered[:NAMES_SHOWN]) + more


def _newer(path: Path, version: int, latest: int) -> DatabaseError:
    return DatabaseError(
        f"database {path} has schema version {version}, newer than this habicht understands "
        f"({latest}); upgrade habicht or use another HABICHT_DB"
    )


def examine(path: Path) -> int | None:
    """The schema version of habicht's own file at `path`, or None when there is nothing
    there yet: no file, a file of 0 bytes, or an SQLite file with nothing in it.

    Anything else raises `DatabaseError` with one line naming the file: not SQLite; another
    application's id (habicht sets none); a `user_version` newer than this habicht; any
    schema at version 0 (habicht's first migration creates its tables and sets version 1 in
    one transaction); or tables that differ from what habicht's migrations create at the
    file's version — one habicht does not know, or one of its own missing. Reads only,
    through a read-only connection: a file it refuses keeps every byte.
    """
    try:
        if path.stat().st_size == 0:
            return None
    except (FileNotFoundError, NotADirectoryError):  # no file; creating one says what fails
        return None
    except OSError as exc:
        raise DatabaseError(f"cannot read database {path}: {exc}") from exc
    try:
        with closing(
            sqlite3.connect(_uri(path, "ro"), uri=True, timeout=BUSY_TIMEOUT_MS / 1000)
        ) as conn:
            (version,) = conn.execute("PRAGMA user_version").fetchone()
            (application,) = conn.execute("PRAGMA application_id").fetchone()
            (objects,) = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            tables = {row[0] for row in conn.execute(_TABLES)}
    except sqlite3.Error as exc:
        raise DatabaseError(f"cannot read database {path}: {exc}") from exc
    known = _tables_by_version()
    if version >= len(known) and not application:
        raise _newer(path, version, len(known) - 1)
    if version == 0 and not objects and not application:
        return None
    expected = known[version] if 0 <= version < len(known) else frozenset[str]()
    unknown, missing = tables - expected, expected - tables
    if not application and version > 0 and not unknown and not missing:
        return int(version)
    what = [f"user_version {version}"]
    if application:
        what.append(f"application_id {application:#x}")
    if unknown:
        what.append(f"tables habicht does not know: {_names(unknown)}")
    elif version == 0:
        what.append("a schema habicht did not create")
    if missing:
        what.append(f"without habicht's tables {_names(missing)}")
    raise DatabaseError(
        f"{path} is not habicht's database ({'; '.join(what)}); habicht leaves it untouched:"
        " point HABICHT_DB at habicht's own file, or at a new one"
    )


async def _configure(conn: aiosqlite.Connection, *, read_only: bool = False) -> None:
    """Every connection's settings. WAL is a property of the file (it rewrites the header),
    so a read-only connection leaves the journal mode as it finds it; `synchronous` only
    matters to a connection that writes."""
    conn.row_factory = sqlite3.Row
    await conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    await conn.execute("PRAGMA foreign_keys = ON")
    if read_only:
        return
    await conn.execute("PRAGMA journal_mode = WAL")
    await conn.execute("PRAGMA synchronous = FULL")


class Database:
    """One SQLite file opened as a writer and a reader connection (a reader only, read-only).

    Use it as an async context manager, or call `open()` and `close()`; after `close()`
    every method raises `DatabaseError`. `clock` dates the file when this habicht creates it.
    """

    def __init__(self, path: Path | str, *, clock: Clock = system_clock) -> None:
        self.path = Path(path)
        self._clock = clock
        self._writer: aiosqlite.Connection | None = None
        self._reader: aiosqlite.Connection | None = None
        self._write_lock = asyncio.Lock()
        self._closed = False
        self._read_only = False
        self.created_at: float | None = None
        """When this `open` created the file (there was none, or nothing in it); None when
        it opened one that was there. Recorded in the file's `origin` too."""

    async def open(
        self, *, mode: Mode = "rwc", migrate: bool = True, target: int | None = None
    ) -> Self:
        """Check whose file it is (`examine`), open it and, unless told not to, bring the
        schema up to date.

        `mode` "rwc" creates the file when there is none; "rw" refuses to (a command that
        inspects or repairs a database must not make an empty one); "ro" opens a read-only
        reader that never migrates and never writes a byte. `target` stops migrating at
        that version: tests use it to build an old file.
        """
        if self._closed:
            raise DatabaseError("This Database was closed; create a new one to reopen the file.")
        if self._reader is not None:
            return self
        version = await asyncio.to_thread(examine, self.path)
        if version is None and mode != "rwc":
            if not self.path.exists():
                raise DatabaseError(f"no database at {self.path}; check HABICHT_DB")
            raise DatabaseError(f"the database {self.path} is empty; check HABICHT_DB")
        if mode == "rwc":
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise DatabaseError(f"cannot create the folder of {self.path}: {exc}") from exc
        self._read_only = mode == "ro"
        try:
            if not self._read_only:
                self._writer = await self._connect(mode)
            self._reader = await self._connect(mode)
            if migrate and not self._read_only:
                reached = await self.migrate(target=target)
                if version is None:
                    await self._record_creation(reached)
        except sqlite3.Error as exc:
            await self.close()
            raise DatabaseError(f"cannot open database {self.path}: {exc}") from exc
        except DatabaseError:
            await self.close()
            raise
        return self

    async def _connect(self, mode: Mode) -> aiosqlite.Connection:
        conn = await aiosqlite.connect(_uri(self.path, mode), uri=True, isolation_level=None)
        try:
            await _configure(conn, read_only=mode == "ro")
        except BaseException:
            await conn.close()
            raise
        return conn

    async def _record_creation(self, version: int) -> None:
        """Date the file this `open` created, where its schema has `origin` (a test's old
        file may not)."""
        self.created_at = self._clock()
        if "origin" not in _tables_by_version()[version]:
            return
        async with self.transaction() as conn:
            await conn.execute(
                "INSERT INTO origin (id, created_at) VALUES (1, ?)", (self.created_at,)
            )

    async def close(self) -> None:
        """Wait for a running write transaction, then close both connections."""
        async with self._write_lock:
            for conn in (self._reader, self._writer):
                if conn is not None:
                    await conn.close()
            self._reader = self._writer = None
            self._closed = True

    async def __aenter__(self) -> Self:
        return await self.open()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    @property
    def is_open(self) -> bool:
        return self._reader is not None

    def _conn(self, conn: aiosqlite.Connection | None) -> aiosqlite.Connection:
        if conn is None:
            state = "was closed" if self._closed else "is not open yet"
            raise DatabaseError(f"The database {self.path} {state}; open it before use.")
        return conn

    def _writable(self) -> aiosqlite.Connection:
        if self._read_only and self._reader is not None:
            raise DatabaseError(
                f"The database {self.path} was opened read-only; it takes no writes."
            )
        return self._conn(self._writer)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """The only way to write: `BEGIN IMMEDIATE` … `COMMIT`, rolled back on any error.

        Record inside the transaction, act after it: nothing inside may send a message.
        """
        async with self._write_lock:
            conn = self._writable()
            try:
                # Inside the `try`: a cancel that lands while BEGIN is queued still runs it,
                # and only the rollback below keeps the connection out of a dangling
                # transaction (rolling back with none open is a no-op).
                await conn.execute("BEGIN IMMEDIATE")
                yield conn
            except BaseException:
                await conn.rollback()
                raise
            else:
                await conn.commit()

    @property
    def reader(self) -> aiosqlite.Connection:
        """The connection reads go through (committed data only), for code written against a
        connection that only reads — a read-only `habicht health` has no other."""
        return self._conn(self._reader)

    async def fetchall(self, sql: str, params: Params = ()) -> list[sqlite3.Row]:
        """All rows of a read, from committed data only."""
        return list(await self._conn(self._reader).execute_fetchall(sql, params))

    async def fetchone(self, sql: str, params: Params = ()) -> sqlite3.Row | None:
        """The first row of a read, or None."""
        async with self._conn(self._reader).execute(sql, params) as cursor:
            return await cursor.fetchone()

    async def single_value(self, sql: str, params: Params = ()) -> Any:
        """The one value of a read that must return exactly one row."""
        rows = await self.fetchall(sql, params)
        if len(rows) != 1:
            raise DatabaseError(f"expected exactly one row, got {len(rows)}: {sql.strip()}")
        return rows[0][0]

    async def user_version(self) -> int:
        return int(await self.single_value("PRAGMA user_version"))

    async def migrate(self, *, target: int | None = None) -> int:
        """Apply the bundled migrations above the file's version; return the new version.

        Each migration runs in one transaction together with its `user_version` bump, so a
        failure leaves the file at the previous version. A file newer than this habicht is
        refused rather than guessed at.
        """
        known = migrations()
        latest = len(known)
        target = latest if target is None else target
        async with self._write_lock:
            conn = self._writable()
            async with conn.execute("PRAGMA user_version") as cursor:
                row = await cursor.fetchone()
            current = int(row[0]) if row else 0
            if current > latest:
                raise _newer(self.path, current, latest)
            for version, _name, sql in _pending(known, current, target):
                try:
                    await conn.executescript(
                        f"BEGIN IMMEDIATE;\n{sql}\nPRAGMA user_version = {version};\nCOMMIT;"
                    )
                except sqlite3.Error:
                    if conn.in_transaction:
                        await conn.rollback()
                    raise
                current = version
        return current


def _pending(
    known: Iterable[tuple[int, str, str]], current: int, target: int
) -> list[tuple[int, str, str]]:
    return [m for m in known if current < m[0] <= target]


def backup(source: Path, target: Path) -> int:
    """Copy habicht's database at `source` to `target` with SQLite's online backup; the
    copy's size in bytes.

    Safe while the bot runs, unlike a file copy, which can catch the file halfway through a
    write and miss what still sits in its `-wal`: the backup reads one consistent snapshot
    in one step, and a reader of a WAL database holds up no writer. The source is opened
    read-only. The copy is written beside `target` and renamed over it only when complete,
    so an interrupted backup never replaces the last good one; it is one self-contained file
    in rollback-journal mode (habicht switches it back to WAL when it opens it).
    """
    if examine(source) is None:
        raise DatabaseError(f"no database at {source}; check HABICHT_DB")
    if target.exists() and target.samefile(source):
        raise DatabaseError(f"{target} is the database itself; back it up to another file")
    partial = target.with_name(f"{target.name}.partial")
    try:
        partial.unlink(missing_ok=True)
        with (
            closing(
                sqlite3.connect(_uri(source, "ro"), uri=True, timeout=BUSY_TIMEOUT_MS / 1000)
            ) as live,
            closing(sqlite3.connect(partial)) as copy,
        ):
            live.backup(copy)
            copy.execute("PRAGMA journal_mode = DELETE")
        os.replace(partial, target)
        return target.stat().st_size
    except (sqlite3.Error, OSError) as exc:
        partial.unlink(missing_ok=True)
        raise DatabaseError(f"cannot back up {source} to {target}: {exc}") from exc
