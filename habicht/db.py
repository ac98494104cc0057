"""The one SQLite file: whose it is, connection setup, the single writer, and forward-only
migrations.

Only habicht's own file is touched: before any PRAGMA that writes (`journal_mode = WAL`
rewrites the header) or any migration, `examine` reads the file through a read-only connection
and refuses anything that is neither empty nor habicht's — another application's database
keeps every byte. A new file is created whole or not at all, in one transaction (`migrate`),
and `backup` never writes over the database or anything beside it (`belongs_to`). Every
PRAGMA is set in `_configure` and nowhere else. Writes go through `Database.transaction()`,
which holds an `asyncio.Lock` from `BEGIN IMMEDIATE` to `COMMIT`: coroutines sharing one
aiosqlite connection would otherwise interleave inside each other's transactions. Reads use
a second connection, so they see only committed data and never wait for a writer (WAL).

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
import secrets
import sqlite3
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager, closing, suppress
from importlib import resources
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, Self

import aiosqlite

from habicht.clock import Clock, system_clock

__all__ = [
    "BESIDE",
    "BUSY_TIMEOUT_MS",
    "Database",
    "DatabaseError",
    "Mode",
    "backup",
    "belongs_to",
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
    " AND name NOT LIKE '^_litestream^_%' ESCAPE '^'"
)
"""The tables a file holds, without SQLite's own (`sqlite_sequence`, `sqlite_stat1`, …) and
the two Litestream keeps in a database it replicates (`_litestream_seq`, `_litestream_lock`:
HABICHT_REPLICA)."""

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
def _version_named(stem: str) -> int:
    """The version of the bundled migration `NNN_<stem>.sql`: code that depends on what a
    migration added asks by its name, not its number."""
    for version, name, _sql in migrations():
        if name == f"{version:03d}_{stem}.sql":
            return version
    raise DatabaseError(f"no bundled migration is named {stem}")


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

    `announce` is for the running bot, which tells its owners when it had to create its
    database: a file it creates is recorded as not yet told (`origin.announced_at` NULL), and
    `created_at` names it on every open until the owners' message is queued — the start
    that created it may be killed before it got that far. Any other opener is the only one
    to hear of a file it creates (`created_at`), and the file is recorded as told.
    """

    def __init__(
        self, path: Path | str, *, clock: Clock = system_clock, announce: bool = False
    ) -> None:
        self.path = Path(path)
        self._clock = clock
        self._announce = announce
        self._writer: aiosqlite.Connection | None = None
        self._reader: aiosqlite.Connection | None = None
        self._write_lock = asyncio.Lock()
        self._closed = False
        self._read_only = False
        self.created_at: float | None = None
        """When habicht created the file, for an opener to tell of it: set when this `open`
        created it (there was none, or nothing in it) and, with `announce`, when the owners
        have not been told yet (`origin`); None otherwise."""

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
                if self._announce and reached >= _version_named("origin_announced"):
                    untold = await self.fetchone(
                        "SELECT created_at FROM origin WHERE announced_at IS NULL"
                    )
                    self.created_at = None if untold is None else float(untold["created_at"])
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

    async def announced(self) -> None:
        """The owners' message about this file's creation is queued (`created_at`): no later
        start names it again."""
        async with self.transaction() as conn:
            await conn.execute(
                "UPDATE origin SET announced_at = ? WHERE announced_at IS NULL", (self._clock(),)
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
        """The only way to write: `BEGIN IMMEDIATE` … `COMMIT`, rolled back on any error —
        a failed COMMIT included.

        SQLite rolls a transaction back itself when its COMMIT meets a full disk or an I/O
        error, but not when the COMMIT is refused and may be tried again: SQLITE_BUSY (the
        commit of a rollback-journal file waits for readers to let go) or a deferred
        constraint. The transaction then stays open on the shared writer, and every later
        `BEGIN` fails with "cannot start a transaction within a transaction" — a storage
        fault the bot would wait out turned into an error no retry ends (issue 35). So a
        failed COMMIT is rolled back here too, and its error raised.

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
                await conn.commit()
            except BaseException as exc:
                await _roll_back(conn, exc)
                raise

    @property
    def reader(self) -> aiosqlite.Connection:
        """The connection reads go through (committed data only), for code written against a
        connection that only reads — a read-only `habicht health` has no other."""
        return self._conn(self._reader)

    async def fetchall(self, sql: str, params: Params = ()) -> list[sqlite3.Row]:
        """All rows of a read, from committed data only."""
        return list(await self._conn(self._reader).execute_fetchall(sql, params))

    async def fetchone(self, sql: str, params: Params = ()) -> sqlite3.Row | None:
        """The first row of a read, or None.

        Read whole in the connection's thread, as `fetchall` is: a cursor kept open across an
        await would keep its statement — and so a read snapshot — open if the caller were
        cancelled there, and every later read on this connection would see the database as
        it was then (a drain cancelled mid-read saw its own settles undone)."""
        rows = await self._conn(self._reader).execute_fetchall(sql, params)
        return next(iter(rows), None)

    async def single_value(self, sql: str, params: Params = ()) -> Any:
        """The one value of a read that must return exactly one row."""
        rows = await self.fetchall(sql, params)
        if len(rows) != 1:
            raise DatabaseError(f"expected exactly one row, got {len(rows)}: {sql.strip()}")
        return rows[0][0]

    async def user_version(self) -> int:
        return int(await self.single_value("PRAGMA user_version"))

    async def made_at(self) -> float | None:
        """When the file was made (its `origin` row), None if it has none; `habicht health`
        shows it, and `db.py` owns the table, so health asks here."""
        row = await self.fetchone("SELECT created_at FROM origin")
        return None if row is None else row["created_at"]

    async def migrate(self, *, target: int | None = None) -> int:
        """Apply the bundled migrations above the file's version; return the new version.

        Each migration runs in one transaction together with its `user_version` bump, so a
        failure leaves the file at the previous version. A file newer than this habicht is
        refused rather than guessed at.

        A new file (version 0, which `examine` lets through only empty) is created in one
        transaction instead: every migration up to `target` and the file's `origin` row
        commit together, or nothing does (issue 35). Were they committed one by one, a
        start killed after migration 7 would leave a file at version 7 — no different from
        one an old habicht made before `origin` existed — and the restart would finish it
        without ever telling the owners that their database was new. As it is, a kill
        anywhere before that one COMMIT leaves the file without a schema, the next start
        creates it again, and `origin` says from the start whether the owners were told.
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
            pending = _pending(known, current, target)
            if current == 0 and pending:
                return await self._create(conn, pending)
            for version, _name, sql in pending:
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

    async def _create(
        self, conn: aiosqlite.Connection, pending: Sequence[tuple[int, str, str]]
    ) -> int:
        """Set up a new file in one transaction (see `migrate`): the schema up to the last of
        `pending`, and `origin` dated now — told already, unless this opener `announce`s
        (where the schema has `origin` and `announced_at`: a test's old file may not)."""
        reached = pending[-1][0]
        created_at = self._clock()
        # One script, so that one transaction holds it all: `executescript` would COMMIT a
        # transaction opened before it. The script leaves its transaction open for `origin`.
        script = "".join(f"{sql}\nPRAGMA user_version = {v};\n" for v, _name, sql in pending)
        try:
            await conn.executescript(f"BEGIN IMMEDIATE;\n{script}")
            if reached >= _version_named("origin_announced"):
                told = None if self._announce else created_at
                await conn.execute(
                    "INSERT INTO origin (id, created_at, announced_at) VALUES (1, ?, ?)",
                    (created_at, told),
                )
            elif reached >= _version_named("origin"):
                await conn.execute(
                    "INSERT INTO origin (id, created_at) VALUES (1, ?)", (created_at,)
                )
            await conn.commit()
        except BaseException as exc:
            await _roll_back(conn, exc)
            raise
        self.created_at = created_at
        return reached


async def _roll_back(conn: aiosqlite.Connection, error: BaseException) -> None:
    """End the transaction `error` broke off. A rollback that fails as well (the disk is gone)
    is noted on `error`, which stays the one raised: it says what went wrong first."""
    try:
        await conn.rollback()
    except sqlite3.Error as failed:
        error.add_note(f"rolling back failed too: {failed}")


def _pending(
    known: Iterable[tuple[int, str, str]], current: int, target: int
) -> list[tuple[int, str, str]]:
    return [m for m in known if current < m[0] <= target]


BESIDE = {
    "-wal": "the write-ahead log",
    "-shm": "the shared-memory index",
    "-journal": "the rollback journal",
    ".lock": "the lock file",
    ".fault": "the storage-fault file",
}
"""What SQLite and habicht keep beside a database `<name>`, by the end of the file's name:
the commits not yet in the file (`-wal`), the locks of every process using it (`-shm`), the
rollback journal of a file not in WAL mode, the lock of the bot using it
(`habicht.instance`) and the fault it publishes for `habicht health` (`habicht.storage`).
Anything else named `<name>-…`, `<name>.…` or `.<name>…` in its folder is counted as
habicht's too — Litestream's folder `.<name>-litestream`, what `habicht restore` keeps
(`.<name>.restoring`, `<name>.before-restore-…`) — so a file added later is protected without
being listed here."""

_SQLITE_HEADER = b"SQLite format 3\x00"
"""The first 16 bytes of every SQLite database file."""


def _spellings(path: Path) -> set[Path]:
    """`path` made absolute with `.` and `..` taken away, and with its symlinks resolved: a
    path may reach a file through either."""
    found = {Path(os.path.abspath(path))}
    with suppress(OSError, RuntimeError):  # a loop of symlinks: the plain spelling is all
        found.add(path.resolve())
    return found


def belongs_to(db: Path, path: Path) -> str | None:
    """What `path` is of the database at `db` — itself, a file kept beside it (`BESIDE`),
    or something in Litestream's folder of it — in words for a refusal; None when it is no
    part of it.

    Both are compared as spelled (absolute, `./` and `../` taken away) and with symlinks
    resolved, so `data/./habicht.sqlite3` or a link to its `-wal` is no other file; a hard
    link is the database itself by its inode.
    """
    try:
        if path.samefile(db):
            return "the database itself"
    except OSError:  # either is missing: the names decide
        pass
    for home in _spellings(db):
        folder, name = home.parent, home.name
        for spelled in _spellings(path):
            if spelled == folder or not spelled.is_relative_to(folder):
                continue
            parts = spelled.relative_to(folder).parts
            first = parts[0]
            if first == name:
                return "the database itself"
            if first == f".{name}-litestream":
                inside = "in " if len(parts) > 1 else ""
                return f"{inside}Litestream's folder of the database {db}"
            rest = first.removeprefix(name) if first.startswith(name) else None
            if rest is None and first.startswith(f".{name}"):
                rest = first.removeprefix(f".{name}")
            if rest in BESIDE:
                return f"{BESIDE[rest]} of the database {db}"
            if rest is not None and rest[:1] in ("-", "."):
                return f"a file habicht keeps beside the database {db} (named after it)"
    return None


def _not_a_backup(path: Path) -> str | None:
    """Why the file at `path` is none a backup may replace without `--force`; None for an
    empty file and for a habicht backup: a file `examine` takes for habicht's, in the
    rollback-journal mode a backup is written in, with no `-wal` or `-journal` beside it.
    A WAL file or one with a journal beside it may be a database in use — another habicht's,
    say — and replacing it under its writer destroys it, so it is not opened to find out."""
    try:
        with path.open("rb") as file:
            head = file.read(100)
    except OSError as exc:
        return f"unreadable: {exc.strerror}"
    if not head:
        return None
    if not head.startswith(_SQLITE_HEADER):
        return "not an SQLite file"
    if head[18:20] != b"\x01\x01":
        return "a database in WAL mode, maybe in use; a backup is in rollback-journal mode"
    for side in ("-wal", "-journal"):
        if Path(f"{path}{side}").exists():
            return f"{path.name}{side} is beside it: a database in use, or not closed cleanly"
    try:
        examine(path)
    except DatabaseError:
        return "an SQLite file this habicht does not take for its own"
    return None


def _refuse(source: Path, target: Path, *, force: bool) -> None:
    """Raise `DatabaseError` with one line when writing `target` could hurt: it is the
    database or part of it (never, `force` or not), a folder, or an existing file that is no
    habicht backup (unless `force`)."""
    what = belongs_to(source, target)
    if what == "the database itself":
        raise DatabaseError(f"{target} is the database itself; back it up to another file")
    if what is not None:
        raise DatabaseError(
            f"{target} is {what}: writing there would break the database; choose another file"
        )
    if target.is_dir():
        raise DatabaseError(f"{target} is a folder; give the backup's file name in it")
    if not target.exists() or force:
        return
    why = _not_a_backup(target)
    if why is not None:
        raise DatabaseError(
            f"{target} exists and is not a habicht backup ({why}); it is left as it is:"
            " choose another file, or give --force to replace it"
        )


def _partial(target: Path) -> Path:
    """A new, empty file beside `target` for the copy to grow in, under a name no file had:
    an interrupted backup's leftover is never reused, and no file is ever truncated."""
    while True:
        candidate = target.with_name(f"{target.name}.{secrets.token_hex(4)}.partial")
        try:
            os.close(os.open(candidate, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
        except FileExistsError:
            continue
        return candidate


def backup(source: Path, target: Path, *, force: bool = False) -> int:
    """Copy habicht's database at `source` to `target` with SQLite's online backup; the
    copy's size in bytes.

    Safe while the bot runs, unlike a file copy, which can catch the file halfway through a
    write and miss what still sits in its `-wal`: the backup reads one consistent snapshot
    in one step, and a reader of a WAL database holds up no writer. The source is opened
    read-only. The copy is written beside `target` and renamed over it only when complete,
    so an interrupted backup never replaces the last good one; it is one self-contained file
    in rollback-journal mode (habicht switches it back to WAL when it opens it).

    It cannot hurt (issue 35): a rename over the database, its `-wal` or `-shm` destroys
    what the running bot committed, over its lock lets a second bot in; so `target` may be
    none of them, nor anything else of the database's (`belongs_to`), `force` or not. An
    existing file is replaced only when it is a habicht backup (or empty), unless `force`.
    """
    if examine(source) is None:
        raise DatabaseError(f"no database at {source}; check HABICHT_DB")
    _refuse(source, target, force=force)
    partial: Path | None = None
    try:
        partial = _partial(target)
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
        if partial is not None:
            for leftover in (partial, Path(f"{partial}-journal")):
                leftover.unlink(missing_ok=True)
        raise DatabaseError(f"cannot back up {source} to {target}: {exc}") from exc
