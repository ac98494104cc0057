"""A search's health: whether its scans succeed, and since when they fail.

Each scan of a search ends in its row of `searches`: a success resets
`consecutive_failures` and records when and how many adverts it read (`last_count`); a
failure counts one more cycle in the streak and records its kind (`ErrorKind`) and message.
A search that has failed `FAILING_AFTER` cycles in a row is reported to the owner, once when
its streak reaches the mark and once when it recovers (`scraper.scan.ScanSummary`).
A database error is the database's fault, not the page's (`DATABASE_ERRORS`): it is
counted as a "database" failure, never as "layout".
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

import aiosqlite

from habicht.db import Database, DatabaseError
from habicht.model import ErrorKind

__all__ = [
    "DATABASE_ERRORS",
    "FAILING_AFTER",
    "DueSearch",
    "SearchFailure",
    "count_failure",
    "record_failure",
    "record_success",
]

FAILING_AFTER = 3
"""Failed cycles in a row after which a search is reported to the owner."""


@dataclass(frozen=True, slots=True)
class SearchFailure:
    """A search whose scan failed this cycle, and how many cycles in a row it has failed."""

    search_id: int
    url: str
    kind: ErrorKind
    message: str
    consecutive_failures: int


@dataclass(frozen=True, slots=True)
class DueSearch:
    """A search due for a scan, and its streak of failed cycles as it was read."""

    id: int
    url: str
    consecutive_failures: int


DATABASE_ERRORS = (sqlite3.Error, DatabaseError)
"""Locked past the busy timeout, disk full, closed: the database's fault, not the page's."""


async def record_failure(
    db: Database, search: DueSearch, kind: ErrorKind, message: str, *, now: float
) -> SearchFailure:
    """Only the search's health changes: no events, every watch keeps its state."""
    async with db.transaction() as conn:
        return await count_failure(conn, search, kind, message, now=now)


async def count_failure(
    conn: aiosqlite.Connection, search: DueSearch, kind: ErrorKind, message: str, *, now: float
) -> SearchFailure:
    """One more failed cycle in the search's health, inside the caller's transaction.

    The streak is the one the database now holds (RETURNING): another scan of the same search
    may have counted a failure since this cycle read it.
    """
    async with conn.execute(
        "UPDATE searches SET last_attempt_at = ?, consecutive_failures ="
        " consecutive_failures + 1, last_error_kind = ?, last_error = ? WHERE id = ?"
        " RETURNING consecutive_failures",
        (now, kind, message, search.id),
    ) as cursor:
        row = await cursor.fetchone()
    return SearchFailure(
        search_id=search.id,
        url=search.url,
        kind=kind,
        message=message,
        consecutive_failures=search.consecutive_failures + 1 if row is None else row[0],
    )


async def record_success(
    conn: aiosqlite.Connection, search: DueSearch, count: int, *, now: float
) -> int:
    """A successful scan that read `count` adverts, inside the caller's transaction; the
    streak of failures it ended, as the database held it."""
    rows = await conn.execute_fetchall(
        "SELECT consecutive_failures FROM searches WHERE id = ?", (search.id,)
    )
    row = next(iter(rows), None)
    await conn.execute(
        "UPDATE searches SET last_attempt_at = ?, last_success_at = ?, consecutive_failures = 0,"
        " last_error_kind = NULL, last_error = NULL, last_count = ? WHERE id = ?",
        (now, now, count, search.id),
    )
    return search.consecutive_failures if row is None else int(row[0])
