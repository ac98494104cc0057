"""Storage faults: the database refuses writes — its disk is full, another program holds its
write lock, or the disk fails — and how a running habicht lives through one.

A storage fault is the operator's to fix and habicht's to wait out. What was committed stays;
what was not is kept by whoever wanted to write it — the drain keeps a send's outcome in
memory and commits it when it can. So a write that meets one waits a growing pause (`pause`)
and tries again: never spinning, never giving up while the process lives, never taking the
fault for a bug.

Knows nothing of Telegram, the queue or the scraper.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from typing import Literal

__all__ = ["PAUSE_FIRST", "PAUSE_MOST", "FaultKind", "fault_kind", "pause"]

FaultKind = Literal["full", "locked", "io"]

_KINDS: Mapping[int, FaultKind] = {
    sqlite3.SQLITE_FULL: "full",
    sqlite3.SQLITE_BUSY: "locked",
    sqlite3.SQLITE_LOCKED: "locked",
    sqlite3.SQLITE_IOERR: "io",
    sqlite3.SQLITE_READONLY: "io",
    sqlite3.SQLITE_CANTOPEN: "io",
}
"""Primary SQLite result codes that mean "not now", not "never": a corrupt file or a
constraint broken by a bug is no reason to wait, and stays an error."""

PAUSE_FIRST = 0.5
PAUSE_MOST = 5.0


def fault_kind(error: BaseException) -> FaultKind | None:
    """The storage fault `error` reports — by its SQLite result code, extended codes
    included (`SQLITE_IOERR_WRITE` is an I/O error, `SQLITE_READONLY_DBMOVED` a file that
    cannot be written) — or None for any other error."""
    code = getattr(error, "sqlite_errorcode", None)
    if not isinstance(error, sqlite3.Error) or not isinstance(code, int):
        return None
    return _KINDS.get(code & 0xFF)


def pause(refused: int) -> float:
    """Seconds to wait after the `refused`-th refused write in a row before the next try:
    `min(PAUSE_MOST, PAUSE_FIRST · 2^(refused-1))` — 0.5, 1, 2, 4, then 5 s. Short, so that a
    write goes through within seconds of the space or the lock coming back; capped, so that a
    fault of hours costs one try every 5 s (a locked database adds SQLite's busy timeout of
    5 s to each). Keep in sync with README "Operations"."""
    return min(PAUSE_MOST, PAUSE_FIRST * 2.0 ** min(max(refused, 1) - 1, 16))
