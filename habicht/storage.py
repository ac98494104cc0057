"""Storage faults: the database refuses writes — its disk is full, another program holds its
write lock, or the disk fails — and how a running habicht lives through one.

A storage fault is the operator's to fix and habicht's to wait out. What was committed stays;
what was not is kept by whoever wanted to write it — the drain keeps a send's outcome in
memory and commits it when it can, a scheduler pass that could not record a page reads it
again later. So a write that meets one waits a growing pause (`pause`) and tries again:
never spinning, never giving up while the process lives, never taking the fault for a bug.

`StorageWatch` is a process's one view of whether its writes go through (`WatchedDatabase`
tells it after each write transaction): the first write refused opens a fault — one log line
with the cause and the file, and its listeners told (the owners' notice, the status file) —
and a write that changes something going through once no write was refused for `settled`
seconds ends it, with one more line. A full disk refuses only the writes that need new room,
so writes come and go while it lasts; `settled` keeps that one fault, told once each way.

`habicht health` runs in another process, so the open fault is also published in a small
file beside the database (`StatusFile`): sized when the bot starts and then only overwritten
in place, so that publishing a fault needs no free block on the disk that is full.

Knows nothing of Telegram, the queue or the scraper.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Literal, Self

import aiosqlite

from habicht.clock import Clock
from habicht.db import Database

__all__ = [
    "PAUSE_FIRST",
    "PAUSE_MOST",
    "STATUS_SIZE",
    "FaultKind",
    "StatusFile",
    "StorageFault",
    "StorageWatch",
    "WatchedDatabase",
    "fault_kind",
    "log_database_error",
    "pause",
    "read_fault",
    "status_path",
]

log = logging.getLogger(__name__)

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
    included (`SQLITE_IOERR_WRITE` is an I/O error, as is a file the process may not write,
    `SQLITE_READONLY`) — or None for any other error."""
    code = getattr(error, "sqlite_errorcode", None)
    if not isinstance(error, sqlite3.Error) or not isinstance(code, int):
        return None
    return _KINDS.get(code & 0xFF)


def log_database_error(
    logger: logging.Logger, error: BaseException, message: str, *args: object
) -> None:
    """Log a database error where a write met it: a storage fault at DEBUG, since the storage
    watch logs each fault once, for every write it refuses; any other error at ERROR, with
    its traceback."""
    if fault_kind(error) is None:
        logger.error(message, *args, exc_info=error)
    else:
        logger.debug(message, *args)


def pause(refused: int) -> float:
    """Seconds to wait after the `refused`-th refused write in a row before the next try:
    `min(PAUSE_MOST, PAUSE_FIRST · 2^(refused-1))` — 0.5, 1, 2, 4, then 5 s. Short, so that a
    write goes through within seconds of the space or the lock coming back; capped, so that a
    fault of hours costs one try every 5 s (a locked database adds SQLite's busy timeout of
    5 s to each). Keep in sync with docs/operating.md."""
    return min(PAUSE_MOST, PAUSE_FIRST * 2.0 ** min(max(refused, 1) - 1, 16))


@dataclass(frozen=True, slots=True)
class StorageFault:
    """A time the database refused writes: what kind, which file, SQLite's words, since when
    (epoch seconds) and, once it is over, until when."""

    kind: FaultKind
    path: str
    error: str
    since: float
    until: float | None = None

    def describe(self) -> str:
        """What is wrong, naming the file: the first half of the log line and of
        `habicht health`'s reason."""
        match self.kind:
            case "full":
                return f"the database disk is full ({self.path})"
            case "locked":
                return f"the database is locked by another program ({self.path})"
            case "io":
                return f"the database cannot be written ({self.path}: {self.error})"

    def summary(self) -> str:
        """What is wrong and what ends it: `habicht health`'s words for it."""
        return f"{self.describe()}: {self.remedy()}"

    def remedy(self) -> str:
        """What the operator does to end it."""
        match self.kind:
            case "full":
                return "free space to resume"
            case "locked":
                return "end the other program's transaction (a backup, an sqlite3 shell) to resume"
            case "io":
                return "check the disk to resume"


Listener = Callable[[StorageFault], object]
"""Told when a fault opens (`until` None) and when it ends (`until` set)."""


class StorageWatch:
    """Whether the database takes this process's writes (see the module docstring).

    `refused` and `written` are the two things a write transaction can report; `fault` is
    the open fault or None; `paused()` says whether a job that has nothing held in memory
    should skip its turn rather than try a write now (the growing `pause` after the latest
    refusal). `settled` is how long after the last refusal a write must go through to end
    the fault: longer than the longest time between two tries, so a fault that lets a
    write through now and then is still one fault.
    """

    def __init__(self, path: Path | str, *, clock: Clock, settled: float) -> None:
        self.path = str(path)
        self.clock = clock
        self.settled = settled
        self.fault: StorageFault | None = None
        self._refused = 0
        self._refused_at = float("-inf")
        self._listeners: list[Listener] = []

    def listen(self, listener: Listener) -> None:
        """Tell `listener` when a fault opens and when it ends; it must not raise (if it does,
        the error is logged and the write it came from goes on)."""
        self._listeners.append(listener)

    def refused(self, error: BaseException) -> FaultKind | None:
        """A write failed with `error`: if that is a storage fault, count it and, if none is
        open, open one (its one log line); returns its kind, or None for another error."""
        kind = fault_kind(error)
        if kind is None:
            return None
        now = self.clock()
        self._refused += 1
        self._refused_at = now
        if self.fault is None:
            self.fault = StorageFault(kind, self.path, str(error), since=now)
            log.error(
                "%s: alerts are held, nothing is lost; %s (SQLite: %s)",
                self.fault.describe(),
                self.fault.remedy(),
                error,
            )
            self._tell(self.fault)
        return kind

    def written(self) -> None:
        """A write that changed something went through: no pause any more, and the open
        fault ends once no write was refused for `settled` seconds."""
        self._refused = 0
        now = self.clock()
        if self.fault is None or now - self._refused_at < self.settled:
            return
        ended = replace(self.fault, until=now)
        self.fault = None
        log.warning(
            "the database %s accepts writes again after %.0f s: the held alerts go out now",
            self.path,
            now - ended.since,
        )
        self._tell(ended)

    def paused(self) -> bool:
        """Whether the latest refusal's pause still runs (and no write went through since)."""
        return self._refused > 0 and self.clock() < self._refused_at + pause(self._refused)

    def _tell(self, fault: StorageFault) -> None:
        for listener in self._listeners:
            try:
                listener(fault)
            except Exception:
                log.exception("a listener of the storage watch failed")


class WatchedDatabase(Database):
    """The running bot's database, whose write transactions tell `watch` how they went:
    refused (a storage fault, or any other error, which the watch ignores), or gone through —
    counted only if they changed something, since an empty write goes through on a full disk
    too.

    It `announce`s a file it creates (`habicht.db.Database`): the bot tells its owners, and
    until their message is queued every start names the file's creation in `created_at`."""

    def __init__(
        self, path: Path | str, *, watch: StorageWatch, clock: Clock, announce: bool = True
    ) -> None:
        super().__init__(path, clock=clock, announce=announce)
        self.watch = watch

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        changes = 0
        try:
            async with super().transaction() as conn:
                before = conn.total_changes
                yield conn
                changes = conn.total_changes - before
        except Exception as exc:
            self.watch.refused(exc)
            raise
        if changes:
            self.watch.written()


STATUS_SIZE = 1024
"""Bytes of the status file: a fault's JSON, padded with spaces (JSON ignores them)."""


def status_path(db: Path | str) -> Path:
    """The status file of the database at `db`: beside it, `<name>.fault`."""
    path = Path(db)
    return path.with_name(f"{path.name}.fault")


class StatusFile:
    """The open fault, for `habicht health`: `{"fault": null}` or `{"fault": {...}}` in
    `status_path(db)`, always `STATUS_SIZE` bytes, there while the bot runs.

    `open` writes the file in full once (the bot starts; a fault of an earlier run is over
    or will be found again), `publish` overwrites it in place — no new block on a full
    disk, on file systems that overwrite in place (ext4, XFS, tmpfs; not copy-on-write ones
    such as btrfs) — and `close` removes it: no bot, no fault to report. A file that cannot
    be written is logged, never raised: health then simply names no fault.
    """

    def __init__(self, db: Path | str) -> None:
        self.path = status_path(db)
        self._fd: int | None = None

    def open(self) -> Self:
        try:
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            log.warning(
                "cannot open %s; habicht health will not name storage faults: %s", self.path, exc
            )
            return self
        self.publish(None)
        return self

    def publish(self, fault: StorageFault | None) -> None:
        """Write `fault` (None: no fault open) over the file's bytes."""
        if self._fd is None:
            return
        record = None if fault is None or fault.until is not None else asdict(fault)
        data = json.dumps({"fault": record}, ensure_ascii=False).encode()
        if len(data) > STATUS_SIZE and record is not None:  # a very long error text
            record["error"] = record["error"][: STATUS_SIZE // 2]
            data = json.dumps({"fault": record}, ensure_ascii=False).encode()
        try:
            os.pwrite(self._fd, data.ljust(STATUS_SIZE), 0)
        except OSError as exc:
            log.warning("cannot write %s: %s", self.path, exc)

    def close(self) -> None:
        if self._fd is None:
            return
        os.close(self._fd)
        self._fd = None
        self.path.unlink(missing_ok=True)


def read_fault(db: Path | str) -> StorageFault | None:
    """The fault the running bot published for the database at `db`, or None (none open, no
    bot has run, or the file is unreadable). Reads only."""
    try:
        record = json.loads(status_path(db).read_bytes())["fault"]
        return None if record is None else StorageFault(**record)
    except (OSError, ValueError, TypeError, KeyError):
        return None
