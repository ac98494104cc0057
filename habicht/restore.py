"""`habicht restore`: the database back from the live replica (HABICHT_REPLICA), to its latest
state or to a moment, or from a `habicht backup` file — one command that tells the truth.

What it does, in order, holding the same lock `habicht run` holds (so it refuses to run beside
a live bot, and no bot starts while it works):

1. builds the restored file beside the database under a name of its own — Litestream's
   `restore` from the replica, or SQLite's online backup of the backup file — and refuses a
   result that is not habicht's;
2. opens it as habicht does (migrating an older file), and records in it what was done
   (`restores`): the source, the moment its own last write dates it to (the newest heartbeat
   or outbox change it holds), and how many alerts wait in it;
3. checkpoints it into one self-contained file, moves the database aside with its `-wal` and
   `-shm` (never one without the others: a WAL applied to another file corrupts it) as
   `<db>.before-restore-<time>`, and Litestream's state beside it, then renames the restored
   file into place.

The first `habicht run` after it tells the owners once, in words (`bot.alerts`): restored to
which moment, how many alerts were pending (they go out now), and that alerts sent after that
moment may arrive once more — the restored outbox cannot know they went out. What a restore
cannot know: anything committed after the moment (watches added, settings changed, alerts
detected) is gone; the replica's history after a restore to an earlier moment continues from
the restored state.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sqlite3
from contextlib import closing
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from habicht.clock import Clock, system_clock
from habicht.config import Settings
from habicht.db import Database, DatabaseError, examine
from habicht.instance import single_instance
from habicht.replica import ReplicaError, litestream_binary, shown

__all__ = ["Restore", "Restored", "mark_announced", "restore", "unannounced"]

_SIDES = ("", "-wal", "-shm")
"""A database's files: the file, its write-ahead log and the log's index."""

# The moment a file's own last write dates it to: its newest heartbeat or outbox change.
_MOMENT = """
SELECT max(coalesce((SELECT max(max(coalesce(finished_at, 0), coalesce(progress_at, 0),
                                    started_at)) FROM heartbeats), 0),
           coalesce((SELECT max(updated_at) FROM notifications), 0))
"""

_PENDING = "SELECT count(*) FROM notifications WHERE status IN ('pending', 'sending')"

_RECORD = """
INSERT INTO restores (restored_at, source, moment, pending) VALUES (?, ?, ?, ?)
"""


@dataclass(frozen=True, slots=True)
class Restored:
    """What a restore did: where from, the moment the restored file dates to (None: it holds
    no dated write), the alerts waiting in it, and where the database it replaced went."""

    source: str
    moment: float | None
    pending: int
    aside: Path | None


async def restore(
    settings: Settings,
    *,
    backup: Path | None = None,
    at: datetime | None = None,
    clock: Clock = system_clock,
) -> Restored:
    """Restore HABICHT_DB from `backup`, or from HABICHT_REPLICA (at `at`, if given); a
    `DatabaseError` or `ReplicaError` with one sentence when it cannot."""
    db = settings.db
    work = db.with_name(f".{db.name}.restoring")
    try:
        with single_instance(db):
            _remove(work)
            if backup is not None:
                if at is not None:
                    raise DatabaseError("--time restores from the replica; a backup has one moment")
                source = str(backup)
                await asyncio.to_thread(_copy, backup, work)
            else:
                url = settings.replica_url
                if url is None:
                    raise ReplicaError(
                        "HABICHT_REPLICA is not set: say where the replica is, or restore"
                        " --from a backup file"
                    )
                source = shown(url)
                await _from_replica(url, work, at)
            moment, pending = await _record(work, source, clock())
            aside = _put_in_place(work, db, clock())
    except BaseException:
        _remove(work)
        raise
    return Restored(source, moment, pending, aside)


def _copy(backup: Path, work: Path) -> None:
    """SQLite's online backup of a `habicht backup` file to `work`; a file that is not
    habicht's database is refused."""
    if not backup.is_file() or examine(backup) is None:
        raise DatabaseError(f"{backup} is no habicht backup: no such file, or an empty one")
    with (
        closing(sqlite3.connect(f"file:{backup}?mode=ro", uri=True)) as source,
        closing(sqlite3.connect(work)) as copy,
    ):
        source.backup(copy)


async def _from_replica(url: str, work: Path, at: datetime | None) -> None:
    """Litestream's restore of the replica at `url` (at `at`, if given) to `work`."""
    moment = [] if at is None else ["-timestamp", at.astimezone(UTC).isoformat()]
    process = await asyncio.create_subprocess_exec(
        str(litestream_binary()),
        "restore",
        *moment,
        "-o",
        str(work),
        url,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    _out, err = await process.communicate()
    if process.returncode != 0 or not await asyncio.to_thread(work.is_file):
        lines = err.decode(errors="replace").strip().splitlines()
        why = lines[-1] if lines else "it restored nothing"
        raise ReplicaError(f"cannot restore from the replica {shown(url)}: {why}")


async def _record(work: Path, source: str, now: float) -> tuple[float | None, int]:
    """Open the restored file as habicht does (migrating it), date it, count what waits in
    it, record the restore, and leave it one self-contained file (its WAL checkpointed)."""
    await asyncio.to_thread(examine, work)  # refuses a file not habicht's before any write
    async with Database(work) as restored:
        moment = await restored.single_value(_MOMENT) or None
        pending = int(await restored.single_value(_PENDING))
        async with restored.transaction() as conn:
            await conn.execute(_RECORD, (now, source, moment, pending))
    await asyncio.to_thread(_self_contained, work)
    return moment, pending


def _self_contained(work: Path) -> None:
    """Everything of the file in the file itself: its WAL checkpointed and gone."""
    with closing(sqlite3.connect(work)) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    for side in _SIDES[1:]:
        Path(f"{work}{side}").unlink(missing_ok=True)


def _put_in_place(work: Path, db: Path, now: float) -> Path | None:
    """Move the database (its WAL and index with it) and Litestream's state aside, then the
    restored file into its place; where the old database went (None: there was none)."""
    stamp = datetime.fromtimestamp(now, UTC).strftime("%Y%m%dT%H%M%SZ")
    aside = db.with_name(f"{db.name}.before-restore-{stamp}")
    moved = False
    for side in _SIDES:
        current = Path(f"{db}{side}")
        if current.exists():
            os.replace(current, Path(f"{aside}{side}"))
            moved = True
    state = db.with_name(f".{db.name}-litestream")
    if state.exists():  # it follows the old file's history, not the restored one's
        shutil.rmtree(state)
    os.replace(work, db)
    directory = os.open(db.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)
    return aside if moved else None


def _remove(work: Path) -> None:
    for side in _SIDES:
        Path(f"{work}{side}").unlink(missing_ok=True)


@dataclass(frozen=True, slots=True)
class Restore:
    """A restore recorded in the database (`restores`) that the owners have not heard of."""

    id: int
    source: str
    moment: float | None
    pending: int


async def unannounced(db: Database) -> list[Restore]:
    """The restores of this file the owners were not told of yet, oldest first."""
    rows = await db.fetchall(
        "SELECT id, source, moment, pending FROM restores WHERE announced_at IS NULL ORDER BY id"
    )
    return [Restore(row[0], row[1], row[2], row[3]) for row in rows]


async def mark_announced(db: Database, restore: Restore, *, now: float) -> None:
    """The owners' message about `restore` is queued: never again."""
    async with db.transaction() as conn:
        await conn.execute("UPDATE restores SET announced_at = ? WHERE id = ?", (now, restore.id))
