"""The one SQLite file: connection setup, the single writer, and forward-only migrations.

Every PRAGMA is set in `_configure` and nowhere else. Writes go through
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
import re
import sqlite3
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import aiosqlite

__all__ = ["BUSY_TIMEOUT_MS", "Database", "DatabaseError", "latest_version", "migrations"]

BUSY_TIMEOUT_MS = 5000
_MIGRATION_NAME = re.compile(r"^([0-9]{3})_[a-z0-9_]+\.sql$")

Params = Sequence[Any] | dict[str, Any]


class DatabaseError(Exception):
    """The database cannot be used as it is: closed, from a newer habicht, or unreadable."""


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


async def _configure(conn: aiosqlite.Connection) -> None:
    conn.row_factory = sqlite3.Row
    await conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    await conn.execute("PRAGMA journal_mode = WAL")
    await conn.execute("PRAGMA synchronous = FULL")
    await conn.execute("PRAGMA foreign_keys = ON")


class Database:
    """One SQLite file opened as a writer and a reader connection.

    Use it as an async context manager, or call `open()` and `close()`; after `close()`
    every method raises `DatabaseError`.
    """

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._writer: aiosqlite.Connection | None = None
        self._reader: aiosqlite.Connection | None = None
        self._write_lock = asyncio.Lock()
        self._closed = False

    async def open(self, *, migrate: bool = True, target: int | None = None) -> Self:
        """Open both connections and, unless told not to, bring the schema up to date.

        `target` stops migrating at that version: tests use it to build an old file.
        """
        if self._closed:
            raise DatabaseError("This Database was closed; create a new one to reopen the file.")
        if self._writer is not None:
            return self
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise DatabaseError(f"cannot create the folder of {self.path}: {exc}") from exc
        try:
            self._writer = await aiosqlite.connect(self.path, isolation_level=None)
            await _configure(self._writer)
            self._reader = await aiosqlite.connect(self.path, isolation_level=None)
            await _configure(self._reader)
            if migrate:
                await self.migrate(target=target)
        except sqlite3.Error as exc:
            await self.close()
            raise DatabaseError(f"cannot open database {self.path}: {exc}") from exc
        except DatabaseError:
            await self.close()
            raise
        return self

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
        return self._writer is not None

    def _conn(self, conn: aiosqlite.Connection | None) -> aiosqlite.Connection:
        if conn is None:
            state = "was closed" if self._closed else "is not open yet"
            raise DatabaseError(f"The database {self.path} {state}; open it before use.")
        return conn

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """The only way to write: `BEGIN IMMEDIATE` … `COMMIT`, rolled back on any error.

        Record inside the transaction, act after it: nothing inside may send a message.
        """
        async with self._write_lock:
            conn = self._conn(self._writer)
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
            conn = self._conn(self._writer)
            async with conn.execute("PRAGMA user_version") as cursor:
                row = await cursor.fetchone()
            current = int(row[0]) if row else 0
            if current > latest:
                raise DatabaseError(
                    f"database {self.path} has schema version {current}, newer than this "
                    f"habicht understands ({latest}); upgrade habicht or use another HABICHT_DB"
                )
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
